/*!
 * \brief GroupNorm's parameter and its (A, R, B) view: the channels of a sample split into
 *  num_groups consecutive groups, each normalized over its channels and positions. As in MXNet
 *  1.9.1, gamma and beta hold one value per group (shape (num_groups,)), not per channel.
 */
#ifndef SYMNET_OPERATORS_NN_GROUP_NORM_H_
#define SYMNET_OPERATORS_NN_GROUP_NORM_H_

#include "norm_kernels.h"

namespace symnet {
namespace ops {

struct GroupNormParam : public dmlc::Parameter<GroupNormParam> {
  int num_groups;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(GroupNormParam) {
    DMLC_DECLARE_FIELD(num_groups).set_default(1).describe("Groups the channels split into.");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe("Added to the variance.");
    DMLC_DECLARE_FIELD(output_mean_var)
        .set_default(false)
        .describe("Also output the mean and the std (sqrt(var + eps)), which get no gradient.");
  }
};

inline NormView GroupNormView(const GroupNormParam& p, const Shape& s) {
  const int64_t g = p.num_groups;
  return {s[0] * g, s.ProdRange(1, s.ndim()) / g, 1, g, p.eps, false};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_GROUP_NORM_H_
