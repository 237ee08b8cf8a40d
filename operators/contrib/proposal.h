/*!
 * \brief _contrib_Proposal and _contrib_MultiProposal (MXNet 1.9.1's Faster R-CNN region
 *  proposals): parameter and kernel, shared by the CPU and the GPU. Pixel boxes follow the
 *  Caffe convention of the original code: a box [x1, x2] is x2 - x1 + 1 pixels wide. One kernel
 *  thread handles one image: anchors shifted over the map, decoded, clipped, filtered by size,
 *  sorted by score (stably), greedy NMS, and the kept boxes repeated to fill the output.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_PROPOSAL_H_
#define SYMNET_OPERATORS_CONTRIB_PROPOSAL_H_

#include <cmath>

#include "../operator_common.h"
#include "detection_sort.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct ProposalParam : public dmlc::Parameter<ProposalParam> {
  int rpn_pre_nms_top_n, rpn_post_nms_top_n, rpn_min_size, feature_stride;
  float threshold;
  FloatTuple scales, ratios;
  bool output_score, iou_loss;
  DMLC_DECLARE_PARAMETER(ProposalParam) {
    DMLC_DECLARE_FIELD(rpn_pre_nms_top_n)
        .set_default(6000)
        .describe("Best-scoring boxes that enter NMS; <= 0: all.");
    DMLC_DECLARE_FIELD(rpn_post_nms_top_n)
        .set_default(300)
        .describe("Boxes kept after NMS per image (the output's rows per image).");
    DMLC_DECLARE_FIELD(threshold).set_default(0.7f).describe(
        "NMS threshold: a box whose IoU with a kept one exceeds it is suppressed.");
    DMLC_DECLARE_FIELD(rpn_min_size)
        .set_default(16)
        .describe("Boxes narrower or lower than this (times im_info's scale) score -1.");
    DMLC_DECLARE_FIELD(scales)
        .set_default(FloatTuple{{4.0f, 8.0f, 16.0f, 32.0f}})
        .describe("Anchor scales (multiples of feature_stride).");
    DMLC_DECLARE_FIELD(ratios)
        .set_default(FloatTuple{{0.5f, 1.0f, 2.0f}})
        .describe("Anchor aspect ratios (height / width).");
    DMLC_DECLARE_FIELD(feature_stride)
        .set_default(16)
        .describe("Image pixels per feature-map cell.");
    DMLC_DECLARE_FIELD(output_score).set_default(false).describe("Also output the scores.");
    DMLC_DECLARE_FIELD(iou_loss).set_default(false).describe(
        "bbox_pred holds corner offsets (x1, y1, x2, y2) instead of center/size ones.");
  }
};

/*! \brief The problem in plain values (GPU kernels take arguments by value). */
struct ProposalPlan {
  static constexpr int kMaxAnchors = 64;
  int num_anchors, height, width, stride;
  int pre, post, out_rows;  // boxes into NMS, kept by NMS, output rows per image
  float threshold, min_size;
  bool iou_loss;
  float base[kMaxAnchors][4];  // the anchors at cell (0, 0), ratio-major
};

inline ProposalPlan MakeProposalPlan(const ProposalParam& p, const Shape& cls) {
  ProposalPlan v{};
  v.num_anchors = static_cast<int>(cls[1] / 2);
  v.height = static_cast<int>(cls[2]);
  v.width = static_cast<int>(cls[3]);
  v.stride = p.feature_stride;
  const int count = v.num_anchors * v.height * v.width;
  v.pre =
      p.rpn_pre_nms_top_n > 0 ? (p.rpn_pre_nms_top_n < count ? p.rpn_pre_nms_top_n : count) : count;
  v.post = p.rpn_post_nms_top_n < v.pre ? p.rpn_post_nms_top_n : v.pre;
  v.out_rows = p.rpn_post_nms_top_n;
  v.threshold = p.threshold;
  v.min_size = static_cast<float>(p.rpn_min_size);
  v.iou_loss = p.iou_loss;
  // the base box [0, stride - 1]^2 reshaped to each ratio (area kept, rounded to whole pixels)
  // and scaled; float arithmetic as in the reference implementation, so the rounding agrees
  const float w = static_cast<float>(p.feature_stride), h = w;
  const float cx = 0.5f * (w - 1.0f), cy = 0.5f * (h - 1.0f);
  int a = 0;
  for (float ratio : p.ratios.values) {
    for (float scale : p.scales.values) {
      const float size_ratio = std::floor(w * h / ratio);
      const float nw = std::floor(std::sqrt(size_ratio) + 0.5f) * scale;
      const float nh = std::floor(nw / scale * ratio + 0.5f) * scale;
      v.base[a][0] = cx - 0.5f * (nw - 1.0f);
      v.base[a][1] = cy - 0.5f * (nh - 1.0f);
      v.base[a][2] = cx + 0.5f * (nw - 1.0f);
      v.base[a][3] = cy + 0.5f * (nh - 1.0f);
      ++a;
    }
  }
  return v;
}

/*!
 * \brief Per-image workspace: boxes (5 values) and sort keys in 8-byte slots, then the order,
 *  the sort buffer, the suppression flags and the kept list (ints).
 */
SYMNET_XINLINE int64_t ProposalBytesPerImage(int64_t count, int64_t pre, int64_t post) {
  return count * 6 * 8 + (count * 2 * 4 + pre * 4 + post * 4 + 7) / 8 * 8;
}

struct ProposalKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, const T* cls_prob, const T* bbox_pred, const T* im_info,
                                 T* out, T* out_score, void* work, ProposalPlan v) {
    using A = AccType<T>;
    const int na = v.num_anchors, H = v.height, W = v.width;
    const int64_t hw = static_cast<int64_t>(H) * W, count = hw * na;
    char* wb = static_cast<char*>(work) + b * ProposalBytesPerImage(count, v.pre, v.post);
    A* box = reinterpret_cast<A*>(wb);  // count x 5: x1, y1, x2, y2, score
    A* key = box + count * 5;
    int* order = reinterpret_cast<int*>(wb + count * 6 * 8);
    int* tmp = order + count;
    int* suppressed = tmp + count;
    int* keep = suppressed + v.pre;
    // foreground scores are the second half of cls_prob's channels
    const T* fg = cls_prob + (b * 2 + 1) * static_cast<int64_t>(na) * hw;
    const T* delta = bbox_pred + b * static_cast<int64_t>(na) * 4 * hw;
    const A im_h = static_cast<A>(im_info[b * 3]), im_w = static_cast<A>(im_info[b * 3 + 1]);
    const A scale = static_cast<A>(im_info[b * 3 + 2]);
    // map cells past the image (padding) get score -1
    const int real_h = static_cast<int>(im_h / A(v.stride)),
              real_w = static_cast<int>(im_w / A(v.stride));
    const A min_size = A(v.min_size) * scale;
    for (int y = 0; y < H; ++y) {
      for (int x = 0; x < W; ++x) {
        for (int a = 0; a < na; ++a) {
          const int64_t i = (static_cast<int64_t>(y) * W + x) * na + a;
          A* r = box + i * 5;
          const A x1 = A(v.base[a][0]) + A(x * v.stride), y1 = A(v.base[a][1]) + A(y * v.stride);
          const A x2 = A(v.base[a][2]) + A(x * v.stride), y2 = A(v.base[a][3]) + A(y * v.stride);
          const int64_t cell = static_cast<int64_t>(y) * W + x;
          const A d0 = static_cast<A>(delta[(a * 4) * hw + cell]);
          const A d1 = static_cast<A>(delta[(a * 4 + 1) * hw + cell]);
          const A d2 = static_cast<A>(delta[(a * 4 + 2) * hw + cell]);
          const A d3 = static_cast<A>(delta[(a * 4 + 3) * hw + cell]);
          A p[4];
          if (v.iou_loss) {
            p[0] = x1 + d0;
            p[1] = y1 + d1;
            p[2] = x2 + d2;
            p[3] = y2 + d3;
          } else {
            const A bw = x2 - x1 + A(1), bh = y2 - y1 + A(1);
            const A cx = x1 + A(0.5) * (bw - A(1)), cy = y1 + A(0.5) * (bh - A(1));
            const A pcx = d0 * bw + cx, pcy = d1 * bh + cy;
            const A pw = std::exp(d2) * bw, ph = std::exp(d3) * bh;
            p[0] = pcx - A(0.5) * (pw - A(1));
            p[1] = pcy - A(0.5) * (ph - A(1));
            p[2] = pcx + A(0.5) * (pw - A(1));
            p[3] = pcy + A(0.5) * (ph - A(1));
          }
          for (int k = 0; k < 4; ++k) {
            const A hi = (k % 2 == 0 ? im_w : im_h) - A(1);
            A c = p[k] < hi ? p[k] : hi;
            r[k] = c > A(0) ? c : A(0);
          }
          r[4] = (y >= real_h || x >= real_w) ? A(-1) : static_cast<A>(fg[a * hw + cell]);
          // too small: score -1, and grown by min_size so that it suppresses little
          if (r[2] - r[0] + A(1) < min_size || r[3] - r[1] + A(1) < min_size) {
            r[0] -= min_size / A(2);
            r[1] -= min_size / A(2);
            r[2] += min_size / A(2);
            r[3] += min_size / A(2);
            r[4] = A(-1);
          }
          key[i] = r[4];
          order[i] = static_cast<int>(i);
        }
      }
    }
    StableArgsortDesc(key, order, tmp, static_cast<int>(count));
    int kept = 0;
    for (int i = 0; i < v.pre; ++i) suppressed[i] = 0;
    for (int i = 0; i < v.pre && kept < v.post; ++i) {
      if (suppressed[i]) continue;
      keep[kept++] = i;
      const A* bi = box + static_cast<int64_t>(order[i]) * 5;
      const A area_i = (bi[2] - bi[0] + A(1)) * (bi[3] - bi[1] + A(1));
      for (int j = i + 1; j < v.pre; ++j) {
        if (suppressed[j]) continue;
        const A* bj = box + static_cast<int64_t>(order[j]) * 5;
        const A area_j = (bj[2] - bj[0] + A(1)) * (bj[3] - bj[1] + A(1));
        const A xx1 = bi[0] > bj[0] ? bi[0] : bj[0], yy1 = bi[1] > bj[1] ? bi[1] : bj[1];
        const A xx2 = bi[2] < bj[2] ? bi[2] : bj[2], yy2 = bi[3] < bj[3] ? bi[3] : bj[3];
        const A iw = xx2 - xx1 + A(1), ih = yy2 - yy1 + A(1);
        const A inter = (iw > A(0) ? iw : A(0)) * (ih > A(0) ? ih : A(0));
        if (inter / (area_i + area_j - inter) > A(v.threshold)) suppressed[j] = 1;
      }
    }
    // fewer kept boxes than output rows: repeat them cyclically
    for (int r = 0; r < v.out_rows; ++r) {
      const int64_t row = b * static_cast<int64_t>(v.out_rows) + r;
      const A* k = box + static_cast<int64_t>(order[keep[r < kept ? r : r % kept]]) * 5;
      out[row * 5] = T(A(b));
      for (int c = 0; c < 4; ++c) out[row * 5 + 1 + c] = T(k[c]);
      if (out_score != nullptr) out_score[row] = T(k[4]);
    }
  }
};

/*! \brief Inputs (cls_prob, bbox_pred, im_info); outputs (rois, scores). */
template <typename xpu>
void ProposalForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape_;
  const ProposalPlan v = MakeProposalPlan(Param<ProposalParam>(attrs), s);
  const int64_t batches = s[0], count = static_cast<int64_t>(v.num_anchors) * s[2] * s[3];
  if (batches == 0 || v.out_rows == 0) return;
  SYMNET_CHECK(count > 0) << "Proposal: the feature map is empty (cls_prob shape " << s
                          << "), so there are no boxes to fill " << v.out_rows << " rows";
  SYMNET_CHECK(ctx.temp_bytes >=
               static_cast<size_t>(batches * ProposalBytesPerImage(count, v.pre, v.post)))
      << "internal error: Proposal got too little workspace";
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    T* score = req[1] == kNullOp ? nullptr : out[1].dptr<T>();
    Kernel<ProposalKernel, xpu>::Launch(batches, in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
                                        out[0].dptr<T>(), score, ctx.temp, v);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_PROPOSAL_H_
