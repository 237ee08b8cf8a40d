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
/*! \brief The scalar as OP sees it on T data: on integers MXNet 1.x first converts it to the
 *  array's dtype (x + 2.7 adds 2, x / 0.5 divides by 0); floats keep it in MathType. */
template <typename OP, typename T>
SYMNET_XINLINE MathType<OP, T> ScalarOperand(double s) {
  if constexpr (std::is_integral<T>::value) {
    return static_cast<MathType<OP, T>>(static_cast<T>(s));
  } else {
    return static_cast<MathType<OP, T>>(s);
  }
}

/*! \brief FCompute for y = OP(x, scalar), any float or integer dtype. */
template <typename OP, typename xpu = cpu>
void ScalarCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const double s = Param<ScalarParam>(attrs).scalar;
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ScalarKernel<OP, Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                                 ScalarOperand<OP, T>(s));
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
#define SYMNET_SCALAR_OPS(X)              \
  X(_plus_scalar, plus)                   \
  X(_minus_scalar, minus)                 \
  X(_rminus_scalar, rminus)               \
  X(_mul_scalar, mul)                     \
  X(_div_scalar, div)                     \
  X(_rdiv_scalar, rdiv)                   \
  X(_maximum_scalar, maximum)             \
  X(_minimum_scalar, minimum)             \
  X(_power_scalar, power)                 \
  X(_rpower_scalar, rpower)               \
  X(_mod_scalar, mod)                     \
  X(_rmod_scalar, rmod)                   \
  X(_hypot_scalar, hypot)                 \
  X(_equal_scalar, equal)                 \
  X(_not_equal_scalar, not_equal)         \
  X(_greater_scalar, greater)             \
  X(_greater_equal_scalar, greater_equal) \
  X(_lesser_scalar, lesser)               \
  X(_lesser_equal_scalar, lesser_equal)   \
  X(_logical_and_scalar, logical_and)     \
  X(_logical_or_scalar, logical_or)       \
  X(_logical_xor_scalar, logical_xor)     \
  X(smooth_l1, smooth_l1)

/*! \brief The backward ops (inputs dy, x) as X(NAME, dy multiplier as a function of (x, s)). */
#define SYMNET_SCALAR_GRAD_OPS(X)                                \
  X(_backward_rdiv_scalar, right_partial<mathf::div_grad>)       \
  X(_backward_maximum_scalar, left_partial<mathf::maximum_grad>) \
  X(_backward_minimum_scalar, left_partial<mathf::minimum_grad>) \
  X(_backward_power_scalar, left_partial<mathf::power_grad>)     \
  X(_backward_rpower_scalar, right_partial<mathf::power_grad>)   \
  X(_backward_rmod_scalar, right_partial<mathf::mod_grad>)       \
  X(_backward_hypot_scalar, left_partial<mathf::hypot_grad>)     \
  X(_backward_smooth_l1, smooth_l1_grad)

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_ELEMWISE_SCALAR_H_
