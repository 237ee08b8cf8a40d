/*!
 * \brief The box ops of MXNet 1.9.1's contrib namespace: box_iou (pairwise overlaps), box_nms
 *  (greedy non-maximum suppression per batch) and bipartite_matching (greedy one-to-one matching
 *  of a score matrix). Parameters and kernels, shared by the CPU and the GPU.
 *
 *  On the CPU, box_nms and bipartite_matching run one kernel thread per batch item: each item is
 *  a sequential greedy pass over its boxes sorted by score. The sort is a stable merge sort in
 *  scratch memory, so equal scores keep their input order, as MXNet's stable sorts do. The GPU's
 *  box_nms (bounding_box.cu) splits the same greedy pass into parallel steps; it shares the
 *  validity, suppression and format helpers below so that both decide in the same arithmetic.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_BOUNDING_BOX_H_
#define SYMNET_OPERATORS_CONTRIB_BOUNDING_BOX_H_

#include <algorithm>
#include <vector>

#include "../operator_common.h"
#include "box_utils.h"
#include "detection_sort.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct BoxIoUParam : public dmlc::Parameter<BoxIoUParam> {
  int format;
  DMLC_DECLARE_PARAMETER(BoxIoUParam) {
    DMLC_DECLARE_FIELD(format)
        .add_enum("corner", kBoxCorner)
        .add_enum("center", kBoxCenter)
        .set_default(kBoxCorner)
        .describe("Box encoding: 'corner' is [xmin, ymin, xmax, ymax], 'center' [x, y, w, h].");
  }
};

struct BoxNMSParam : public dmlc::Parameter<BoxNMSParam> {
  float overlap_thresh;
  float valid_thresh;
  int topk;
  int coord_start;
  int score_index;
  int id_index;
  int background_id;
  bool force_suppress;
  int in_format;
  int out_format;
  DMLC_DECLARE_PARAMETER(BoxNMSParam) {
    DMLC_DECLARE_FIELD(overlap_thresh)
        .set_default(0.5f)
        .describe("A box whose IoU with a kept, higher-scored box exceeds this is suppressed.");
    DMLC_DECLARE_FIELD(valid_thresh)
        .set_default(0.f)
        .describe("Only boxes whose score is greater than this take part.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe(
        "Only the topk highest-scored valid boxes of each batch item take part; -1: all.");
    DMLC_DECLARE_FIELD(coord_start)
        .set_default(2)
        .describe("Index of the first of the 4 consecutive coordinates in a box row.");
    DMLC_DECLARE_FIELD(score_index).set_default(1).describe("Index of the score in a box row.");
    DMLC_DECLARE_FIELD(id_index).set_default(-1).describe(
        "Index of the class id in a box row; -1: no class ids.");
    DMLC_DECLARE_FIELD(background_id)
        .set_default(-1)
        .describe("Boxes of this class id are dropped (with id_index set).");
    DMLC_DECLARE_FIELD(force_suppress)
        .set_default(false)
        .describe(
            "Suppress across classes; otherwise only boxes of one class suppress each other.");
    DMLC_DECLARE_FIELD(in_format)
        .add_enum("corner", kBoxCorner)
        .add_enum("center", kBoxCenter)
        .set_default(kBoxCorner)
        .describe(
            "Input box encoding: 'corner' [xmin, ymin, xmax, ymax] or 'center' [x, y, w, h].");
    DMLC_DECLARE_FIELD(out_format)
        .add_enum("corner", kBoxCorner)
        .add_enum("center", kBoxCenter)
        .set_default(kBoxCorner)
        .describe("Output box encoding: 'corner' or 'center'.");
  }
};

struct BipartiteMatchingParam : public dmlc::Parameter<BipartiteMatchingParam> {
  bool is_ascend;
  float threshold;
  int topk;
  DMLC_DECLARE_PARAMETER(BipartiteMatchingParam) {
    DMLC_DECLARE_FIELD(is_ascend).set_default(false).describe(
        "Match the lowest scores first (scores must then be below threshold).");
    DMLC_DECLARE_FIELD(threshold).describe(
        "Scores must exceed it (below it with is_ascend) for a match.");
    DMLC_DECLARE_FIELD(topk).set_default(-1).describe("Limit on the matches; -1: no limit.");
  }
};

/*!
 * \brief IoU of two boxes in `format`, as MXNet computes it: the overlap from the corners, the
 *  areas from the encoding itself (w * h for center boxes), 0 without overlap.
 */
template <typename A>
SYMNET_XINLINE A BoxIoUFormat(const A* a, const A* b, int format) {
  A ca[4], cb[4];
  BoxToCorner(a, format, ca);
  BoxToCorner(b, format, cb);
  const A inter =
      BoxOverlap1D(ca[0], ca[2], cb[0], cb[2]) * BoxOverlap1D(ca[1], ca[3], cb[1], cb[3]);
  if (!(inter > A(0))) return A(0);
  const A area_a = format == kBoxCenter ? (a[2] < A(0) || a[3] < A(0) ? A(0) : a[2] * a[3])
                                        : BoxArea(ca[0], ca[1], ca[2], ca[3]);
  const A area_b = format == kBoxCenter ? (b[2] < A(0) || b[3] < A(0) ? A(0) : b[2] * b[3])
                                        : BoxArea(cb[0], cb[1], cb[2], cb[3]);
  return inter / (area_a + area_b - inter);
}

// ---- box_iou ---------------------------------------------------------------------------------

template <int req>
struct BoxIoUKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* lhs, const T* rhs, int64_t nr,
                                 int format) {
    using A = AccType<T>;
    const T* a = lhs + (i / nr) * 4;
    const T* b = rhs + (i % nr) * 4;
    const A ba[4] = {A(a[0]), A(a[1]), A(a[2]), A(a[3])};
    const A bb[4] = {A(b[0]), A(b[1]), A(b[2]), A(b[3])};
    AssignReq<req>(&out[i], BoxIoUFormat(ba, bb, format));
  }
};

template <typename xpu>
void BoxIoUForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t nl = in[0].Size() / 4, nr = in[1].Size() / 4;
  if (nl * nr == 0) return;
  const int format = Param<BoxIoUParam>(attrs).format;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<BoxIoUKernel<Req>, xpu>::Launch(nl * nr, out[0].dptr<T>(), in[0].dptr<T>(),
                                             in[1].dptr<T>(), nr, format);
    });
  });
}

// ---- box_nms ---------------------------------------------------------------------------------

/*! \brief The geometry of box_nms's input: `batch` items of `num` rows of `width` values. */
struct NMSGeom {
  int64_t batch, num, width;
};

inline NMSGeom MakeNMSGeom(const Shape& s) {
  const int nd = s.ndim();
  return {s.ProdRange(0, nd - 2), s[nd - 2], s[nd - 1]};
}

/*! \brief Scratch bytes of box_nms: two index arrays of every box (the order and the buffer). */
inline size_t NMSTempBytes(const NodeAttrs&, const std::vector<Shape>& in,
                           const std::vector<DType>&) {
  return static_cast<size_t>(in[0].Size() / std::max<int64_t>(in[0][in[0].ndim() - 1], 1)) * 2 *
         sizeof(int32_t);
}

struct NMSParams {
  float overlap_thresh, valid_thresh;
  int topk, coord_start, score_index, id_index, background_id;
  bool force_suppress;
  int in_format, out_format;
};

inline NMSParams ToNMSParams(const BoxNMSParam& p) {
  return {p.overlap_thresh, p.valid_thresh,  p.topk,           p.coord_start, p.score_index,
          p.id_index,       p.background_id, p.force_suppress, p.in_format,   p.out_format};
}

template <typename T>
struct NMSScoreKey {
  const T* rows;
  int64_t width;
  int score_index;
  SYMNET_XINLINE AccType<T> operator()(int32_t r) const {
    return static_cast<AccType<T>>(rows[r * width + score_index]);
  }
};

/*! \brief Whether a box row takes part in box_nms: score > valid_thresh and, with class ids,
 *  not of background_id. The CPU and GPU kernels share it (and the two below), so that they
 *  decide in the same arithmetic. */
template <typename T>
SYMNET_XINLINE bool NMSIsValid(const T* r, const NMSParams& p) {
  using A = AccType<T>;
  const bool valid = static_cast<A>(r[p.score_index]) > A(p.valid_thresh);
  return p.id_index < 0 ? valid : valid && static_cast<A>(r[p.id_index]) != A(p.background_id);
}

/*! \brief Whether the higher-scored box row ri suppresses rj: of one class (unless
 *  force_suppress or no class ids) and IoU > overlap_thresh. */
template <typename T>
SYMNET_XINLINE bool NMSSuppresses(const T* ri, const T* rj, const NMSParams& p) {
  using A = AccType<T>;
  if (!p.force_suppress && p.id_index >= 0 &&
      static_cast<int>(static_cast<A>(ri[p.id_index])) !=
          static_cast<int>(static_cast<A>(rj[p.id_index])))
    return false;
  const int c = p.coord_start;
  const A bi[4] = {A(ri[c]), A(ri[c + 1]), A(ri[c + 2]), A(ri[c + 3])};
  const A bj[4] = {A(rj[c]), A(rj[c + 1]), A(rj[c + 2]), A(rj[c + 3])};
  return BoxIoUFormat(bi, bj, p.in_format) > A(p.overlap_thresh);
}

/*!
 * \brief Converts one output row's 4 coordinates c from in_format to out_format (called only
 *  when they differ). MXNet converts every row whose first coordinate is not negative: the -1
 *  padding rows stay as they are (and so does a kept box whose first coordinate is negative).
 */
template <typename T>
SYMNET_XINLINE void NMSConvertRow(T* c, const NMSParams& p) {
  using A = AccType<T>;
  const A v[4] = {A(c[0]), A(c[1]), A(c[2]), A(c[3])};
  if (v[0] < A(0)) return;
  A o[4];
  if (p.out_format == kBoxCenter) {
    o[0] = (v[0] + v[2]) / A(2);
    o[1] = (v[1] + v[3]) / A(2);
    o[2] = v[2] - v[0];
    o[3] = v[3] - v[1];
  } else {
    BoxToCorner(v, kBoxCenter, o);
  }
  for (int s = 0; s < 4; ++s) c[s] = T(o[s]);
}

/*!
 * \brief One batch item: keeps the valid boxes (score > valid_thresh, not background), sorts
 *  them by score, suppresses greedily among the first topk, writes the kept rows to the front of
 *  the output (the rest -1), and records each output row's input row (global index, -1 for none)
 *  for the gradient.
 */
struct BoxNMSKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, T* out, int32_t* record, const T* data,
                                 int32_t* scratch, NMSGeom g, NMSParams p) {
    using A = AccType<T>;
    const T* rows = data + b * g.num * g.width;
    T* orows = out + b * g.num * g.width;
    int32_t* rec = record + b * g.num;
    int32_t* order = scratch + b * g.num * 2;
    int32_t* tmp = order + g.num;
    const int64_t k_limit = p.topk < 0 ? g.num : (p.topk < g.num ? p.topk : g.num);
    if (k_limit < 1) {  // MXNet: topk 0 passes the input through
      for (int64_t i = 0; i < g.num * g.width; ++i) orows[i] = rows[i];
      for (int64_t i = 0; i < g.num; ++i) rec[i] = static_cast<int32_t>(b * g.num + i);
      return;
    }
    int64_t nv = 0;
    for (int64_t i = 0; i < g.num; ++i)
      if (NMSIsValid(rows + i * g.width, p)) order[nv++] = static_cast<int32_t>(i);
    StableSortIndex(order, tmp, nv, NMSScoreKey<T>{rows, g.width, p.score_index}, false);
    const int64_t nk = nv < k_limit ? nv : k_limit;
    for (int64_t i = 0; i < nk; ++i) {
      if (order[i] < 0) continue;
      const T* ri = rows + order[i] * g.width;
      for (int64_t j = i + 1; j < nk; ++j) {
        if (order[j] >= 0 && NMSSuppresses(ri, rows + order[j] * g.width, p)) order[j] = -1;
      }
    }
    int64_t count = 0;
    for (int64_t i = 0; i < nk; ++i) {
      if (order[i] < 0) continue;
      const T* src = rows + order[i] * g.width;
      T* dst = orows + count * g.width;
      for (int64_t s = 0; s < g.width; ++s) dst[s] = src[s];
      rec[count++] = static_cast<int32_t>(b * g.num + order[i]);
    }
    for (int64_t i = count; i < g.num; ++i) {
      for (int64_t s = 0; s < g.width; ++s) orows[i * g.width + s] = T(A(-1));
      rec[i] = -1;
    }
    if (p.in_format == p.out_format) return;
    for (int64_t i = 0; i < g.num; ++i) NMSConvertRow(orows + i * g.width + p.coord_start, p);
  }
};

/*! \brief Writes `value` to n elements. */
struct FillValueKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, AccType<T> value) {
    out[i] = T(value);
  }
};

/*!
 * \brief The gradient of one output row goes to the input row it came from (the record): the
 *  rows are distinct, so threads never write one place twice.
 */
struct BoxNMSBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* dy, const int32_t* record,
                                 int64_t width) {
    const int32_t r = record[i];
    if (r < 0) return;
    for (int64_t s = 0; s < width; ++s) {
      AssignReq<kAddTo>(&dx[r * width + s], static_cast<AccType<T>>(dy[i * width + s]));
    }
  }
};

/*! \brief Outputs (out, record). */
template <typename xpu>
void BoxNMSForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const NMSGeom g = MakeNMSGeom(in[0].shape_);
  if (in[0].Size() == 0) return;
  SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(g.batch * g.num) * 2 * sizeof(int32_t))
      << "internal error: box_nms got too little scratch memory";
  const NMSParams p = ToNMSParams(Param<BoxNMSParam>(attrs));
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    Kernel<BoxNMSKernel, xpu>::LaunchCost(g.batch, g.num * g.num, out[0].dptr<T>(),
                                          out[1].dptr<int32_t>(), in[0].dptr<T>(),
                                          static_cast<int32_t*>(ctx.temp), g, p);
  });
}

/*! \brief Inputs (d out, record); output d data. */
template <typename xpu>
void BoxNMSBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const NMSGeom g = MakeNMSGeom(out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    if (req[0] != kAddTo)
      Kernel<FillValueKernel, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), AccType<T>(0));
    Kernel<BoxNMSBackwardKernel, xpu>::Launch(g.batch * g.num, out[0].dptr<T>(), in[0].dptr<T>(),
                                              in[1].dptr<int32_t>(), g.width);
  });
}

// ---- bipartite_matching ----------------------------------------------------------------------

inline size_t MatchingTempBytes(const NodeAttrs&, const std::vector<Shape>& in,
                                const std::vector<DType>&) {
  return static_cast<size_t>(in[0].Size()) * 2 * sizeof(int32_t);
}

template <typename T>
struct FlatKey {
  const T* v;
  SYMNET_XINLINE AccType<T> operator()(int32_t i) const { return static_cast<AccType<T>>(v[i]); }
};

/*!
 * \brief One batch item: visits the (row, column) pairs by score and matches a pair when both are
 *  free, stopping at the first free pair whose score fails the threshold. As in MXNet 1.9.1 the
 *  topk check runs after a match is made, so topk = k allows k + 1 matches.
 */
struct BipartiteMatchingKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t b, T* row_marker, T* col_marker, const T* scores,
                                 int32_t* scratch, int64_t rows, int64_t cols, float threshold,
                                 bool ascend, int topk) {
    using A = AccType<T>;
    const int64_t n = rows * cols;
    const T* s = scores + b * n;
    T* rm = row_marker + b * rows;
    T* cm = col_marker + b * cols;
    int32_t* order = scratch + b * n * 2;
    for (int64_t i = 0; i < rows; ++i) rm[i] = T(A(-1));
    for (int64_t i = 0; i < cols; ++i) cm[i] = T(A(-1));
    for (int64_t i = 0; i < n; ++i) order[i] = static_cast<int32_t>(i);
    StableSortIndex(order, order + n, n, FlatKey<T>{s}, ascend);
    int count = 0;
    for (int64_t j = 0; j < n; ++j) {
      const int64_t r = order[j] / cols, c = order[j] % cols;
      if (static_cast<A>(rm[r]) != A(-1) || static_cast<A>(cm[c]) != A(-1)) continue;
      const A v = static_cast<A>(s[order[j]]);
      if (!(ascend ? v < A(threshold) : v > A(threshold))) break;
      rm[r] = T(A(c));
      cm[c] = T(A(r));
      if (topk > 0 && ++count > topk) break;
    }
  }
};

template <typename xpu>
void BipartiteMatchingForward(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const Shape& s = in[0].shape_;
  const int64_t rows = s[s.ndim() - 2], cols = s[s.ndim() - 1];
  const int64_t batch = s.ProdRange(0, s.ndim() - 2);
  if (out[0].Size() + out[1].Size() == 0) return;
  const BipartiteMatchingParam& p = Param<BipartiteMatchingParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    if (rows * cols == 0) {  // nothing to match: every marker is -1
      Kernel<FillValueKernel, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), AccType<T>(-1));
      Kernel<FillValueKernel, xpu>::Launch(out[1].Size(), out[1].dptr<T>(), AccType<T>(-1));
      return;
    }
    SYMNET_CHECK(ctx.temp_bytes >= static_cast<size_t>(in[0].Size()) * 2 * sizeof(int32_t))
        << "internal error: bipartite_matching got too little scratch memory";
    Kernel<BipartiteMatchingKernel, xpu>::LaunchCost(
        batch, rows * cols * 8, out[0].dptr<T>(), out[1].dptr<T>(), in[0].dptr<T>(),
        static_cast<int32_t*>(ctx.temp), rows, cols, p.threshold, p.is_ascend, p.topk);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_BOUNDING_BOX_H_
