/*!
 * \brief _contrib_MultiBoxDetection (MXNet 1.9.1's SSD decoder): parameter and kernel, shared by
 *  the CPU and the GPU. One kernel thread handles one image: it picks each anchor's best
 *  non-background class, decodes the box, sorts the kept rows by score (stably) and runs greedy
 *  NMS, marking suppressed rows with class id -1.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_MULTIBOX_DETECTION_H_
#define SYMNET_OPERATORS_CONTRIB_MULTIBOX_DETECTION_H_

#include <cmath>

#include "../operator_common.h"
#include "box_utils.h"
#include "detection_sort.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct MultiBoxDetectionParam : public dmlc::Parameter<MultiBoxDetectionParam> {
  bool clip, force_suppress;
  float threshold, nms_threshold;
  int background_id, nms_topk;
  FloatTuple variances;
  DMLC_DECLARE_PARAMETER(MultiBoxDetectionParam) {
    DMLC_DECLARE_FIELD(clip).set_default(true).describe("Clip the boxes to [0, 1].");
    DMLC_DECLARE_FIELD(threshold).set_default(0.01f).describe(
        "Anchors whose best class probability is below this are dropped.");
    DMLC_DECLARE_FIELD(background_id)
        .set_default(0)
        .describe(
            "Accepted for MXNet compatibility; as in MXNet 1.9.1, class 0 is the "
            "background whatever its value.");
    DMLC_DECLARE_FIELD(nms_threshold)
        .set_default(0.5f)
        .describe(
            "Suppress a box whose IoU with a better one reaches this; outside (0, 1]: no "
            "sorting and no NMS.");
    DMLC_DECLARE_FIELD(force_suppress).set_default(false).describe("Suppress across classes too.");
    DMLC_DECLARE_FIELD(variances)
        .set_default(FloatTuple{{0.1f, 0.1f, 0.2f, 0.2f}})
        .describe("Multipliers of the encoded box offsets (x, y, w, h).");
    DMLC_DECLARE_FIELD(nms_topk).set_default(-1).describe(
        "Keep the k best boxes before NMS (the others get class id -1); -1: all.");
  }
};

struct MBDetectPlan {
  int num_classes, num_anchors, nms_topk;
  bool clip, force_suppress;
  float threshold, nms_threshold;
  float var[4];
};

/*!
 * \brief Per-image workspace: the unsorted rows (6 values each) and the sort keys (one each), in
 *  8-byte slots whatever AccType is, then the sort's two int arrays.
 */
SYMNET_XINLINE int64_t MBDetectBytesPerImage(int64_t n) { return n * 7 * 8 + (n * 8 + 7) / 8 * 8; }

struct MultiBoxDetectionKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, const T* cls_prob, const T* loc_pred, const T* anchors,
                                 T* out, void* work, MBDetectPlan v) {
    using A = AccType<T>;
    const int n = v.num_anchors;
    const T* prob = cls_prob + b * static_cast<int64_t>(v.num_classes) * n;
    const T* loc = loc_pred + b * static_cast<int64_t>(n) * 4;
    char* wb = static_cast<char*>(work) + b * MBDetectBytesPerImage(n);
    A* rows = reinterpret_cast<A*>(wb);
    A* key = rows + static_cast<int64_t>(n) * 6;
    int* idx = reinterpret_cast<int*>(wb + static_cast<int64_t>(n) * 7 * 8);
    int* tmp = idx + n;
    int valid = 0;
    for (int i = 0; i < n; ++i) {
      A score = A(-1);
      int id = 0;
      for (int c = 1; c < v.num_classes; ++c) {
        const A p = static_cast<A>(prob[c * n + i]);
        if (p > score) {
          score = p;
          id = c;
        }
      }
      if (id == 0 || score < A(v.threshold)) continue;
      A* r = rows + valid * 6;
      r[0] = A(id - 1);
      r[1] = score;
      // decode (center offsets scaled by the anchor, log-scale sizes), as the targets encode
      const A al = anchors[i * 4], at = anchors[i * 4 + 1], ar = anchors[i * 4 + 2],
              ab = anchors[i * 4 + 3];
      const A aw = ar - al, ah = ab - at, ax = (al + ar) / A(2), ay = (at + ab) / A(2);
      const A ox = static_cast<A>(loc[i * 4]) * A(v.var[0]) * aw + ax;
      const A oy = static_cast<A>(loc[i * 4 + 1]) * A(v.var[1]) * ah + ay;
      const A ow = std::exp(static_cast<A>(loc[i * 4 + 2]) * A(v.var[2])) * aw / A(2);
      const A oh = std::exp(static_cast<A>(loc[i * 4 + 3]) * A(v.var[3])) * ah / A(2);
      const A box[4] = {ox - ow, oy - oh, ox + ow, oy + oh};
      for (int k = 0; k < 4; ++k) {
        A x = box[k];
        if (v.clip) x = x < A(0) ? A(0) : (x > A(1) ? A(1) : x);
        r[2 + k] = x;
      }
      ++valid;
    }
    T* o = out + b * static_cast<int64_t>(n) * 6;
    for (int64_t k = 0; k < static_cast<int64_t>(n) * 6; ++k)
      o[k] = k < valid * 6 ? T(rows[k]) : T(-1.0f);
    if (valid < 1 || !(v.nms_threshold > 0) || v.nms_threshold > 1) return;
    // sorting keys: the scores, gathered so that the argsort reads them contiguously
    for (int i = 0; i < valid; ++i) {
      key[i] = rows[i * 6 + 1];
      idx[i] = i;
    }
    StableArgsortDesc(key, idx, tmp, valid);
    int nkeep = valid;
    if (v.nms_topk > 0 && v.nms_topk < nkeep) nkeep = v.nms_topk;
    // rows past nkeep keep their unsorted contents with class id -1 (MXNet 1.9.1's output)
    for (int i = 0; i < nkeep; ++i)
      for (int k = 0; k < 6; ++k) o[i * 6 + k] = T(rows[idx[i] * 6 + k]);
    for (int i = nkeep; i < valid; ++i) o[i * 6] = T(-1.0f);
    for (int i = 0; i < nkeep; ++i) {
      const A* ri = rows + idx[i] * 6;
      if (static_cast<A>(o[i * 6]) < A(0)) continue;
      for (int j = i + 1; j < nkeep; ++j) {
        if (static_cast<A>(o[j * 6]) < A(0)) continue;
        const A* rj = rows + idx[j] * 6;
        if (v.force_suppress || ri[0] == rj[0]) {
          if (BoxIoU(ri + 2, rj + 2) >= A(v.nms_threshold)) o[j * 6] = T(-1.0f);
        }
      }
    }
  }
};

inline MBDetectPlan MakeMBDetectPlan(const MultiBoxDetectionParam& p, const Shape& cls) {
  MBDetectPlan v{};
  v.num_classes = static_cast<int>(cls[1]);
  v.num_anchors = static_cast<int>(cls[2]);
  v.nms_topk = p.nms_topk;
  v.clip = p.clip;
  v.force_suppress = p.force_suppress;
  v.threshold = p.threshold;
  v.nms_threshold = p.nms_threshold;
  for (int i = 0; i < 4; ++i) v.var[i] = p.variances.values[i];
  return v;
}

/*! \brief Inputs (cls_prob, loc_pred, anchor); output (batch, num_anchors, 6). */
template <typename xpu>
void MultiBoxDetectionForward(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>&,
                              const std::vector<TBlob>& out) {
  const MBDetectPlan v = MakeMBDetectPlan(Param<MultiBoxDetectionParam>(attrs), in[0].shape_);
  const int64_t batches = in[0].shape_[0];
  if (batches == 0 || v.num_anchors == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >=
               static_cast<size_t>(batches * MBDetectBytesPerImage(v.num_anchors)))
      << "internal error: _contrib_MultiBoxDetection got too little workspace";
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    Kernel<MultiBoxDetectionKernel, xpu>::Launch(batches, in[0].dptr<T>(), in[1].dptr<T>(),
                                                 in[2].dptr<T>(), out[0].dptr<T>(), ctx.temp, v);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_MULTIBOX_DETECTION_H_
