/*!
 * \brief _contrib_MultiBoxPrior (MXNet 1.9.1's SSD anchors): parameter and kernel, shared by the
 *  CPU and the GPU. Each feature-map position gets sizes.size() + ratios.size() - 1 anchors:
 *  every size with the first ratio, then the first size with each further ratio; boxes are
 *  (xmin, ymin, xmax, ymax) in [0, 1] image units.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_MULTIBOX_PRIOR_H_
#define SYMNET_OPERATORS_CONTRIB_MULTIBOX_PRIOR_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct MultiBoxPriorParam : public dmlc::Parameter<MultiBoxPriorParam> {
  FloatTuple sizes, ratios, steps, offsets;
  bool clip;
  DMLC_DECLARE_PARAMETER(MultiBoxPriorParam) {
    DMLC_DECLARE_FIELD(sizes)
        .set_default(FloatTuple{{1.0f}})
        .describe("Anchor sizes, as fractions of the image height.");
    DMLC_DECLARE_FIELD(ratios)
        .set_default(FloatTuple{{1.0f}})
        .describe("Anchor aspect ratios (width / height).");
    DMLC_DECLARE_FIELD(clip).set_default(false).describe("Clip the anchors to [0, 1].");
    DMLC_DECLARE_FIELD(steps)
        .set_default(FloatTuple{{-1.0f, -1.0f}})
        .describe("Distance between anchor centres along y and x; -1: 1 / the map's extent.");
    DMLC_DECLARE_FIELD(offsets)
        .set_default(FloatTuple{{0.5f, 0.5f}})
        .describe("Anchor centre offsets within a cell, along y and x.");
  }
};

/*!
 * \brief The anchors' half-extents, worked out on the host and passed by value to the kernel
 *  (the GPU kernel has no other way to see the attribute tuples), hence a fixed capacity.
 */
struct PriorPlan {
  static constexpr int kMaxAnchors = 64;
  int height, width, num_anchors;
  bool clip;
  double step_y, step_x, offset_y, offset_x;
  double half_w[kMaxAnchors], half_h[kMaxAnchors];
};

inline PriorPlan MakePriorPlan(const MultiBoxPriorParam& p, int64_t height, int64_t width) {
  PriorPlan v{};
  v.height = static_cast<int>(height);
  v.width = static_cast<int>(width);
  v.clip = p.clip;
  v.step_y = p.steps.values[0] > 0 ? p.steps.values[0] : 1.0 / height;
  v.step_x = p.steps.values[1] > 0 ? p.steps.values[1] : 1.0 / width;
  v.offset_y = p.offsets.values[0];
  v.offset_x = p.offsets.values[1];
  const auto& s = p.sizes.values;
  const auto& r = p.ratios.values;
  // the width is scaled by height / width so that a size is a fraction of the image height
  const double aspect = width > 0 ? static_cast<double>(height) / width : 0.0;
  int a = 0;
  auto add = [&](double size, double ratio) {
    const double sr = std::sqrt(ratio);
    v.half_w[a] = size * aspect * sr / 2;
    v.half_h[a] = size / sr / 2;
    ++a;
  };
  for (float size : s) add(size, r[0]);
  for (size_t j = 1; j < r.size(); ++j) add(s[0], r[j]);
  v.num_anchors = a;
  return v;
}

/*! \brief One thread per anchor: i = (row * width + col) * num_anchors + a. */
template <int req>
struct MultiBoxPriorKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, PriorPlan v) {
    using A = AccType<T>;
    const int64_t a = i % v.num_anchors, pos = i / v.num_anchors;
    const A cy = static_cast<A>((pos / v.width + v.offset_y) * v.step_y);
    const A cx = static_cast<A>((pos % v.width + v.offset_x) * v.step_x);
    const A hw = static_cast<A>(v.half_w[a]), hh = static_cast<A>(v.half_h[a]);
    A box[4] = {cx - hw, cy - hh, cx + hw, cy + hh};
    for (int k = 0; k < 4; ++k) {
      A b = box[k];
      if (v.clip) b = b < A(0) ? A(0) : (b > A(1) ? A(1) : b);
      AssignReq<req>(&out[i * 4 + k], b);
    }
  }
};

template <typename xpu>
void MultiBoxPriorForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape_;
  const PriorPlan v = MakePriorPlan(Param<MultiBoxPriorParam>(attrs), s[2], s[3]);
  const int64_t n = s[2] * s[3] * v.num_anchors;
  if (n == 0) return;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req,
                      { Kernel<MultiBoxPriorKernel<Req>, xpu>::Launch(n, out[0].dptr<T>(), v); });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_MULTIBOX_PRIOR_H_
