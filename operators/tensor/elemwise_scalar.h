/*! \brief Array-with-scalar kernels (_plus_scalar, ...), templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_ELEMWISE_SCALAR_H_
#define SYMNET_OPERATORS_TENSOR_ELEMWISE_SCALAR_H_

#include <vector>

#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

struct ScalarParam : public dmlc::Parameter<ScalarParam> {
  double scalar;
  DMLC_DECLARE_PARAMETER(ScalarParam) {
    DMLC_DECLARE_FIELD(scalar).set_default(1.0).describe("Scalar input value.");
  }
};
template <typename OP, typename xpu = cpu>
void ScalarCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = Param<ScalarParam>(attrs).scalar;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ScalarKernel<OP, Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                                 static_cast<A>(s));
    });
  });
}

/*! \brief Inputs (dy, x): dx = dy * OP(x, scalar). */
template <typename OP, int req>
struct ScalarGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* dy, const T* x, A s) {
    AssignReq<req>(&dx[i], static_cast<A>(dy[i]) * OP::Map(static_cast<A>(x[i]), s));
  }
};

template <typename OP, typename xpu = cpu>
void ScalarGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = Param<ScalarParam>(attrs).scalar;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ScalarGradKernel<OP, Req>, xpu>::Launch(
          out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(), static_cast<A>(s));
    });
  });
}

/*! \brief The ops as X(NAME, functor); expanded by elemwise_scalar.cc and elemwise_scalar.cu. */
#define SYMNET_SCALAR_OPS(X) \
  X(_plus_scalar, plus)      \
  X(_minus_scalar, minus)    \
  X(_rminus_scalar, rminus)  \
  X(_mul_scalar, mul)        \
  X(_div_scalar, div)        \
  X(_rdiv_scalar, rdiv)

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_ELEMWISE_SCALAR_H_
