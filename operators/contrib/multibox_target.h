/*!
 * \brief _contrib_MultiBoxTarget (MXNet 1.9.1's SSD training targets): parameter and kernel,
 *  shared by the CPU and the GPU. One kernel thread handles one image, sequentially, because
 *  the matching is greedy: each ground truth first takes its best free anchor (bipartite, best
 *  IoU pair first), then every other anchor takes its best ground truth when the IoU passes
 *  overlap_threshold; hard negatives are the anchors with the lowest background probability.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_MULTIBOX_TARGET_H_
#define SYMNET_OPERATORS_CONTRIB_MULTIBOX_TARGET_H_

#include <cmath>

#include "../operator_common.h"
#include "box_utils.h"
#include "detection_sort.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct MultiBoxTargetParam : public dmlc::Parameter<MultiBoxTargetParam> {
  float overlap_threshold, ignore_label, negative_mining_ratio, negative_mining_thresh;
  int minimum_negative_samples;
  FloatTuple variances;
  DMLC_DECLARE_PARAMETER(MultiBoxTargetParam) {
    DMLC_DECLARE_FIELD(overlap_threshold)
        .set_default(0.5f)
        .describe("An anchor whose best IoU with a ground truth exceeds this is positive.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f).describe("cls_target of ignored anchors.");
    DMLC_DECLARE_FIELD(negative_mining_ratio)
        .set_default(-1.0f)
        .describe(
            "At most this many negatives per positive (hardest first); -1: every anchor "
            "that is not positive is negative.");
    DMLC_DECLARE_FIELD(negative_mining_thresh)
        .set_default(0.5f)
        .describe("Only anchors whose best IoU is below this may be mined as negatives.");
    DMLC_DECLARE_FIELD(minimum_negative_samples)
        .set_default(0)
        .describe("Accepted for MXNet compatibility; MXNet 1.9.1 does not use it.");
    DMLC_DECLARE_FIELD(variances)
        .set_default(FloatTuple{{0.1f, 0.1f, 0.2f, 0.2f}})
        .describe("Divisors of the encoded box offsets (x, y, w, h).");
  }
};

/*! \brief Plain-value view of the problem, for the kernel (GPU kernels take arguments by value). */
struct MBTargetPlan {
  int num_anchors, num_labels, label_width, num_classes;
  float overlap_threshold, ignore_label, mining_ratio, mining_thresh;
  float var[4];
};

/*!
 * \brief Per-image workspace: 6 int arrays of num_anchors (flags, matched gt, sort index, sort
 *  buffer) plus one of num_labels, then 2 arrays of AccType (matched IoU, mining key).
 */
template <typename A>
struct MBTargetWork {
  int *flag, *gt, *idx, *tmp, *gt_done;
  A *iou, *key;
  SYMNET_XINLINE MBTargetWork(void* base, int64_t b, const MBTargetPlan& v) {
    const int64_t ints = 4 * static_cast<int64_t>(v.num_anchors) + v.num_labels;
    const int64_t bytes = static_cast<int64_t>(AlignUp8Dev(ints * 4)) + 2 * v.num_anchors * 8;
    char* p = static_cast<char*>(base) + b * bytes;
    flag = reinterpret_cast<int*>(p);
    gt = flag + v.num_anchors;
    idx = gt + v.num_anchors;
    tmp = idx + v.num_anchors;
    gt_done = tmp + v.num_anchors;
    iou = reinterpret_cast<A*>(p + AlignUp8Dev(ints * 4));
    key = reinterpret_cast<A*>(p + AlignUp8Dev(ints * 4) + v.num_anchors * 8);
  }
  static SYMNET_XINLINE int64_t AlignUp8Dev(int64_t n) { return (n + 7) / 8 * 8; }
  static size_t Bytes(int64_t batches, const MBTargetPlan& v) {
    const int64_t ints = 4 * static_cast<int64_t>(v.num_anchors) + v.num_labels;
    return static_cast<size_t>(batches * (AlignUp8Dev(ints * 4) + 2 * v.num_anchors * 8));
  }
};

/*! \brief The ground truth with the highest IoU with anchor j (the first on ties), and that IoU. */
template <typename T, typename A>
SYMNET_XINLINE int BestGT(const T* anchor, const T* label, int num_valid, int width, A* best) {
  int k_best = -1;
  A m = A(-1);
  for (int k = 0; k < num_valid; ++k) {
    A gt[4], an[4];
    for (int c = 0; c < 4; ++c) {
      gt[c] = static_cast<A>(label[k * width + 1 + c]);
      an[c] = static_cast<A>(anchor[c]);
    }
    const A iou = BoxIoU(an, gt);
    if (iou > m) {
      m = iou;
      k_best = k;
    }
  }
  *best = m;
  return k_best;
}

struct MultiBoxTargetKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, const T* anchors, const T* labels, const T* cls_pred,
                                 T* loc_target, T* loc_mask, T* cls_target, void* work,
                                 MBTargetPlan v) {
    using A = AccType<T>;
    const int n = v.num_anchors, w = v.label_width;
    const T* lab = labels + b * static_cast<int64_t>(v.num_labels) * w;
    const T* pred = cls_pred + b * static_cast<int64_t>(v.num_classes) * n;
    T* lt = loc_target + b * static_cast<int64_t>(n) * 4;
    T* lm = loc_mask + b * static_cast<int64_t>(n) * 4;
    T* ct = cls_target + b * static_cast<int64_t>(n);
    for (int j = 0; j < n; ++j) {
      ct[j] = T(v.ignore_label);
      for (int c = 0; c < 4; ++c) lt[j * 4 + c] = lm[j * 4 + c] = T(0.0f);
    }
    // ground truths end at the first row whose class is -1 (padding)
    int num_valid = 0;
    while (num_valid < v.num_labels && static_cast<A>(lab[num_valid * w]) != A(-1)) ++num_valid;
    if (num_valid == 0) return;
    MBTargetWork<A> ws(work, b, v);
    for (int j = 0; j < n; ++j) {
      ws.flag[j] = -1;  // -1 ignored, 0 negative, 1 positive
      ws.gt[j] = -1;
      ws.iou[j] = A(-1);
    }
    for (int k = 0; k < num_valid; ++k) ws.gt_done[k] = 0;
    int num_pos = 0;
    // bipartite: the best (anchor, ground truth) pair among the unmatched, until none overlaps
    for (int round = 0; round < num_valid; ++round) {
      int ja = -1, kb = -1;
      A best = A(1e-6f);
      for (int j = 0; j < n; ++j) {
        if (ws.flag[j] == 1) continue;
        A an[4];
        for (int c = 0; c < 4; ++c) an[c] = static_cast<A>(anchors[j * 4 + c]);
        for (int k = 0; k < num_valid; ++k) {
          if (ws.gt_done[k]) continue;
          A gt[4];
          for (int c = 0; c < 4; ++c) gt[c] = static_cast<A>(lab[k * w + 1 + c]);
          const A iou = BoxIoU(an, gt);
          if (iou > best) {
            best = iou;
            ja = j;
            kb = k;
          }
        }
      }
      if (ja < 0) break;
      ws.iou[ja] = best;
      ws.gt[ja] = kb;
      ws.flag[ja] = 1;
      ws.gt_done[kb] = 1;
      ++num_pos;
    }
    if (v.overlap_threshold > 0) {
      for (int j = 0; j < n; ++j) {
        if (ws.flag[j] == 1) continue;
        A m;
        const int k = BestGT(anchors + j * 4, lab, num_valid, w, &m);
        if (k < 0) continue;
        ws.iou[j] = m;
        ws.gt[j] = k;
        if (m > A(v.overlap_threshold)) {
          ws.flag[j] = 1;
          ++num_pos;
        }
      }
    }
    if (v.mining_ratio > 0) {
      int num_neg = static_cast<int>(num_pos * v.mining_ratio);
      if (num_neg > n - num_pos) num_neg = n - num_pos;
      if (num_neg > 0) {
        int cand = 0;
        for (int j = 0; j < n; ++j) {
          if (ws.flag[j] == 1) continue;
          if (ws.iou[j] < A(0)) {
            A m;
            const int k = BestGT(anchors + j * 4, lab, num_valid, w, &m);
            if (k >= 0) {
              ws.iou[j] = m;
              ws.gt[j] = k;
            }
          }
          if (ws.iou[j] < A(v.mining_thresh) && ws.flag[j] == -1) {
            // the hardest negatives have the lowest background (class 0) probability
            A mx = static_cast<A>(pred[j]);
            for (int c = 1; c < v.num_classes; ++c) {
              const A x = static_cast<A>(pred[c * n + j]);
              if (x > mx) mx = x;
            }
            A sum = A(0);
            for (int c = 0; c < v.num_classes; ++c)
              sum += std::exp(static_cast<A>(pred[c * n + j]) - mx);
            ws.key[j] = -std::exp(static_cast<A>(pred[j]) - mx) / sum;
            ws.idx[cand++] = j;
          }
        }
        StableArgsortDesc(ws.key, ws.idx, ws.tmp, cand);
        for (int i = 0; i < cand && i < num_neg; ++i) ws.flag[ws.idx[i]] = 0;
      }
    } else {
      for (int j = 0; j < n; ++j)
        if (ws.flag[j] != 1) ws.flag[j] = 0;
    }
    for (int j = 0; j < n; ++j) {
      if (ws.flag[j] == 1) {
        const T* g = lab + ws.gt[j] * w;
        ct[j] = T(static_cast<A>(g[0]) + A(1));  // class 0 is the background
        const A al = anchors[j * 4], at = anchors[j * 4 + 1], ar = anchors[j * 4 + 2],
                ab = anchors[j * 4 + 3];
        const A aw = ar - al, ah = ab - at, ax = (al + ar) / A(2), ay = (at + ab) / A(2);
        const A gl = g[1], gt = g[2], gr = g[3], gb = g[4];
        const A gw = gr - gl, gh = gb - gt, gx = (gl + gr) / A(2), gy = (gt + gb) / A(2);
        lt[j * 4] = T((gx - ax) / aw / A(v.var[0]));
        lt[j * 4 + 1] = T((gy - ay) / ah / A(v.var[1]));
        lt[j * 4 + 2] = T(std::log(gw / aw) / A(v.var[2]));
        lt[j * 4 + 3] = T(std::log(gh / ah) / A(v.var[3]));
        for (int c = 0; c < 4; ++c) lm[j * 4 + c] = T(1.0f);
      } else if (ws.flag[j] == 0) {
        ct[j] = T(0.0f);
      }
    }
  }
};

inline MBTargetPlan MakeMBTargetPlan(const MultiBoxTargetParam& p, const Shape& anchor,
                                     const Shape& label, const Shape& pred) {
  MBTargetPlan v{};
  v.num_anchors = static_cast<int>(anchor[1]);
  v.num_labels = static_cast<int>(label[1]);
  v.label_width = static_cast<int>(label[2]);
  v.num_classes = static_cast<int>(pred[1]);
  v.overlap_threshold = p.overlap_threshold;
  v.ignore_label = p.ignore_label;
  v.mining_ratio = p.negative_mining_ratio;
  v.mining_thresh = p.negative_mining_thresh;
  for (int i = 0; i < 4; ++i) v.var[i] = p.variances.values[i];
  return v;
}

/*! \brief Inputs (anchor, label, cls_pred); outputs (loc_target, loc_mask, cls_target). */
template <typename xpu>
void MultiBoxTargetForward(const NodeAttrs& attrs, const OpContext& ctx,
                           const std::vector<TBlob>& in, const std::vector<OpReqType>&,
                           const std::vector<TBlob>& out) {
  const MBTargetPlan v =
      MakeMBTargetPlan(Param<MultiBoxTargetParam>(attrs), in[0].shape_, in[1].shape_, in[2].shape_);
  const int64_t batches = in[1].shape_[0];
  if (batches == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >= MBTargetWork<double>::Bytes(batches, v))
      << "internal error: _contrib_MultiBoxTarget got too little workspace";
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    Kernel<MultiBoxTargetKernel, xpu>::Launch(batches, in[0].dptr<T>(), in[1].dptr<T>(),
                                              in[2].dptr<T>(), out[0].dptr<T>(), out[1].dptr<T>(),
                                              out[2].dptr<T>(), ctx.temp, v);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_MULTIBOX_TARGET_H_
