/*! \brief SVMOutput: parameter and hinge-loss gradient kernel, templated on the device. */
#ifndef SYMNET_OPERATORS_NN_SVM_OUTPUT_H_
#define SYMNET_OPERATORS_NN_SVM_OUTPUT_H_

#include <vector>

#include "../operator_common.h"
#include "../tensor/elemwise_kernels.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct SVMOutputParam : public dmlc::Parameter<SVMOutputParam> {
  float margin;
  float regularization_coefficient;
  bool use_linear;
  DMLC_DECLARE_PARAMETER(SVMOutputParam) {
    DMLC_DECLARE_FIELD(margin).set_default(1.0f).describe(
        "The loss penalizes scores that lie inside this margin.");
    DMLC_DECLARE_FIELD(regularization_coefficient)
        .set_default(1.0f)
        .describe("Multiplies the gradient.");
    DMLC_DECLARE_FIELD(use_linear)
        .set_default(false)
        .describe("The L1-SVM (hinge) objective instead of the default L2-SVM (squared hinge).");
  }
};

/*!
 * \brief Element i of the (rows, classes) view: the gradient of the one-vs-rest hinge loss,
 *  sum over classes j of h(margin - s_j) for the label class and h(margin + s_j) for the others,
 *  with h(z) = max(0, z) (L1) or max(0, z)^2 (L2), times c = regularization_coefficient. A label
 *  outside [0, classes) matches no class, so every score counts as a wrong class (as MXNet).
 */
template <bool linear, int req>
struct SVMGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, const T* label, const T* y, T* dx, int64_t classes,
                                 A margin, A c) {
    const A s = static_cast<A>(y[i]);
    const bool own = static_cast<int64_t>(static_cast<A>(label[i / classes])) == i % classes;
    A g;
    if (own) {
      g = margin > s ? -c * (linear ? A(1) : A(2) * (margin - s)) : A(0);
    } else {
      g = margin > -s ? c * (linear ? A(1) : A(2) * (margin + s)) : A(0);
    }
    AssignReq<req>(&dx[i], g);
  }
};

/*! \brief Inputs (label, y); outputs (ddata, dlabel = 0). The head gradient is ignored (a loss
 *  head); the dynamic loss scale multiplies the result. */
template <typename xpu = cpu>
void SVMOutputGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  const SVMOutputParam& p = Param<SVMOutputParam>(attrs);
  const TBlob &label = in[0], &y = in[1];
  const int64_t classes = y.shape_[y.shape_.ndim() - 1];
  SYMNET_FLOAT_TYPE_SWITCH(y.dtype_, T, {
    using A = AccType<T>;
    const A c = static_cast<A>(static_cast<double>(p.regularization_coefficient) * ctx.loss_scale);
    SYMNET_REQ_SWITCH(req[0], Req, {
      if (p.use_linear) {
        Kernel<SVMGradKernel<true, Req>, xpu>::Launch(y.Size(), label.dptr<T>(), y.dptr<T>(),
                                                      out[0].dptr<T>(), classes,
                                                      static_cast<A>(p.margin), c);
      } else {
        Kernel<SVMGradKernel<false, Req>, xpu>::Launch(y.Size(), label.dptr<T>(), y.dptr<T>(),
                                                       out[0].dptr<T>(), classes,
                                                       static_cast<A>(p.margin), c);
      }
    });
  });
  ZerosCompute(attrs, ctx, {}, {req[1]}, {out[1]});  // the label gets no gradient
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_SVM_OUTPUT_H_
