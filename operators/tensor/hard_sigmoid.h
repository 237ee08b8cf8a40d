/*! \brief hard_sigmoid: y = clip(alpha * x + beta, 0, 1), kernels templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_HARD_SIGMOID_H_
#define SYMNET_OPERATORS_TENSOR_HARD_SIGMOID_H_

#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct HardSigmoidParam : public dmlc::Parameter<HardSigmoidParam> {
  float alpha;
  float beta;
  DMLC_DECLARE_PARAMETER(HardSigmoidParam) {
    DMLC_DECLARE_FIELD(alpha).set_default(0.2f).describe("Slope of hard sigmoid");
    DMLC_DECLARE_FIELD(beta).set_default(0.5f).describe("Bias of hard sigmoid.");
  }
};

template <int req>
struct HardSigmoidKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* y, const T* x, A alpha, A beta) {
    const A v = alpha * static_cast<A>(x[i]) + beta;
    AssignReq<req>(&y[i], v < A(0) ? A(0) : (v > A(1) ? A(1) : v));
  }
};

/*! \brief Inputs (dy, x): the slope alpha strictly inside (0, 1), zero on the flat parts and at
 *  the corners (MXNet recomputes alpha x + beta from x and tests it strictly). */
template <int req>
struct HardSigmoidGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* dy, const T* x, A alpha, A beta) {
    const A v = alpha * static_cast<A>(x[i]) + beta;
    AssignReq<req>(&dx[i], v > A(0) && v < A(1) ? alpha * static_cast<A>(dy[i]) : A(0));
  }
};

template <typename xpu = cpu>
void HardSigmoidCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& p = Param<HardSigmoidParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<HardSigmoidKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                                  static_cast<A>(p.alpha), static_cast<A>(p.beta));
    });
  });
}

template <typename xpu = cpu>
void HardSigmoidGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const HardSigmoidParam& p = Param<HardSigmoidParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<HardSigmoidGradKernel<Req>, xpu>::Launch(
          out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(),
          static_cast<A>(p.alpha), static_cast<A>(p.beta));
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_HARD_SIGMOID_H_
