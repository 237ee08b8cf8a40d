/*!
 * \brief InstanceNorm's parameter and its (A, R, B) view: each (sample, channel) pair is one
 *  group over the spatial positions, scaled by its channel's gamma/beta.
 */
#ifndef SYMNET_OPERATORS_NN_INSTANCE_NORM_H_
#define SYMNET_OPERATORS_NN_INSTANCE_NORM_H_

#include "norm_kernels.h"

namespace symnet {
namespace ops {

struct InstanceNormParam : public dmlc::Parameter<InstanceNormParam> {
  float eps;
  DMLC_DECLARE_PARAMETER(InstanceNormParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-3f).describe("Added to the variance.");
  }
};

inline NormView InstanceNormView(const InstanceNormParam& p, const Shape& s) {
  return {s[0] * s[1], s.ProdRange(2, s.ndim()), 1, s[1], p.eps, true};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_INSTANCE_NORM_H_
