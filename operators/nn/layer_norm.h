/*!
 * \brief LayerNorm's parameter and its (A, R, B) view: R is the normalized axis, so every
 *  position of the other axes is one group and gamma/beta run along the axis.
 */
#ifndef SYMNET_OPERATORS_NN_LAYER_NORM_H_
#define SYMNET_OPERATORS_NN_LAYER_NORM_H_

#include "norm_kernels.h"

namespace symnet {
namespace ops {

struct LayerNormParam : public dmlc::Parameter<LayerNormParam> {
  int axis;
  float eps;
  bool output_mean_var;
  DMLC_DECLARE_PARAMETER(LayerNormParam) {
    DMLC_DECLARE_FIELD(axis).set_default(-1).describe(
        "The normalized axis (negative counts from the end).");
    DMLC_DECLARE_FIELD(eps).set_default(1e-5f).describe("Added to the variance.");
    DMLC_DECLARE_FIELD(output_mean_var)
        .set_default(false)
        .describe("Also output the mean and the std (sqrt(var + eps)), which get no gradient.");
  }
};

/*! \brief The axis in [0, ndim), or an error naming the axis and the data's rank. */
inline int LayerNormAxis(const LayerNormParam& p, int ndim) {
  const int a = p.axis < 0 ? p.axis + ndim : p.axis;
  SYMNET_CHECK(a >= 0 && a < ndim)
      << "LayerNorm axis " << p.axis << " is out of range for " << ndim << "-D data";
  return a;
}

inline NormView LayerNormView(const LayerNormParam& p, const Shape& s) {
  const int a = LayerNormAxis(p, s.ndim());
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim()), 0, p.eps, false};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_LAYER_NORM_H_
