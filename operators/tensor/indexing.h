/*!
 * \brief take, pick and one_hot (MXNet 1.x): ops that read positions from an index array.
 *
 *  Indices arrive in any dtype (float32 is MXNet's default, int32/int64 are common). Each call
 *  first resolves them, in one pass, to int64 positions inside the axis (clip, wrap, raise, or
 *  -1 for one_hot's "no position"), in the op's temporary space; the gathers, the gradient
 *  scatters and one_hot's fill then take those positions, so they are instantiated once per
 *  element size rather than once per (element, index) dtype pair. Float indices truncate toward
 *  zero, as MXNet's cast does.
 *
 *  Templated on the device: indexing.cc registers the CPU kernels, indexing.cu the GPU ones.
 */
#ifndef SYMNET_OPERATORS_TENSOR_INDEXING_H_
#define SYMNET_OPERATORS_TENSOR_INDEXING_H_

#include <dmlc/optional.h>

#include <type_traits>
#include <vector>

#include "../axis_split.h"
#include "bits_util.h"
#include "elemwise_kernels.h"
#include "src/device/device_ops.h"

namespace symnet {
namespace ops {

/*! \brief What happens to an index outside [0, len). kDrop is one_hot's: no position (-1). */
enum IndexMode : int { kIndexClip = 0, kIndexWrap = 1, kIndexRaise = 2, kIndexDrop = 3 };

struct TakeParam : public dmlc::Parameter<TakeParam> {
  int axis;
  int mode;
  DMLC_DECLARE_PARAMETER(TakeParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The axis of `a` to take from; negative values count from the back.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("clip", kIndexClip)
        .add_enum("raise", kIndexRaise)
        .add_enum("wrap", kIndexWrap)
        .set_default(kIndexClip)
        .describe(
            "Indices outside the axis: 'clip' moves them to the first or last position, 'wrap' "
            "counts them modulo the axis' length, 'raise' makes the call an error.");
  }
};

struct PickParam : public dmlc::Parameter<PickParam> {
  dmlc::optional<int> axis;
  bool keepdims;
  int mode;
  DMLC_DECLARE_PARAMETER(PickParam) {
    DMLC_DECLARE_FIELD(axis)
        .set_default(dmlc::optional<int>(-1))
        .describe(
            "The axis to pick along; negative values count from the back. None (MXNet's flattened "
            "pick) is not supported, as in MXNet 1.9.1.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the picked axis in the output, with length 1.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("clip", kIndexClip)
        .add_enum("wrap", kIndexWrap)
        .set_default(kIndexClip)
        .describe(
            "Indices outside the axis: 'clip' moves them to the first or last position, 'wrap' "
            "counts them modulo the axis' length.");
  }
};

struct OneHotParam : public dmlc::Parameter<OneHotParam> {
  int depth;
  double on_value, off_value;
  int dtype;
  DMLC_DECLARE_PARAMETER(OneHotParam) {
    DMLC_DECLARE_FIELD(depth).describe(
        "The length of the added last axis (the number of classes).");
    DMLC_DECLARE_FIELD(on_value).set_default(1.0).describe("The value at each index's position.");
    DMLC_DECLARE_FIELD(off_value).set_default(0.0).describe("The value everywhere else.");
    DMLC_DECLARE_FIELD(dtype)
        .SYMNET_DTYPE_ENUM_NO_BOOL(dtype)
        .set_default(static_cast<int>(DType::kFloat32))
        .describe("The output's dtype.");
  }
};

/*! \brief An index value truncated toward zero. Floats past +-2^62 (and NaN) would make the
 *  conversion undefined; they are far outside any axis, so they are pinned there. */
template <typename A>
SYMNET_XINLINE int64_t TruncIndex(A v) {
  if constexpr (std::is_floating_point<A>::value) {
    if (!(v > A(-4.6e18))) return -(int64_t{1} << 62);  // NaN lands here
    if (v > A(4.6e18)) return int64_t{1} << 62;
  }
  return static_cast<int64_t>(v);
}

/*! \brief pos[j] = index j resolved in an axis of length len (>= 1 except for kDrop). Raise
 *  checks the value itself, as MXNet does: -0.5 and 2.9 are outside an axis of length 3. */
template <typename I>
struct ResolveIndexKernel {
  SYMNET_XINLINE static void Map(int64_t j, int64_t* pos, const I* idx, int64_t len, int mode) {
    using A = AccType<I>;
    const A v = static_cast<A>(idx[j]);
    const int64_t k = TruncIndex(v);
    int64_t p;
    if (mode == kIndexRaise) {
      bool inside;
      if constexpr (std::is_floating_point<A>::value) {
        inside = v >= A(0) && v <= static_cast<A>(len - 1);
      } else {
        inside = k >= 0 && k < len;
      }
      p = inside ? k : -1;
    } else if (mode == kIndexClip) {
      p = k < 0 ? 0 : (k >= len ? len - 1 : k);
    } else if (mode == kIndexWrap) {
      p = k % len;
      if (p < 0) p += len;
    } else {
      p = (k >= 0 && k < len) ? k : -1;
    }
    pos[j] = p;
  }
};

/*! \brief Sets *flag when some position is -1 (every writer stores the same value). */
struct FlagMissingKernel {
  SYMNET_XINLINE static void Map(int64_t j, const int64_t* pos, int* flag) {
    if (pos[j] < 0) *flag = 1;
  }
};

/*! \brief Bytes of temporary space for resolving `n` indices: the positions and a flag. */
inline size_t IndexTempBytes(const Shape& indices) {
  return indices.is_known() ? static_cast<size_t>(indices.Size()) * sizeof(int64_t) + 8 : 0;
}

/*!
 * \brief Resolves `idx` into ctx.temp (n int64 positions, then an int flag). With kIndexRaise, an
 *  index outside the axis is an error naming `what`; on a GPU that check waits for the device.
 */
template <typename xpu>
const int64_t* ResolveIndices(const TBlob& idx, int64_t len, IndexMode mode, const OpContext& ctx,
                              const char* what) {
  const int64_t n = idx.Size();
  SYMNET_CHECK(ctx.temp != nullptr && ctx.temp_bytes >= IndexTempBytes(idx.shape_))
      << "internal error: " << what << " got no temporary space for its indices";
  int64_t* pos = static_cast<int64_t*>(ctx.temp);
  SYMNET_TYPE_SWITCH(idx.dtype_, I, {
    Kernel<ResolveIndexKernel<I>, xpu>::Launch(n, pos, idx.dptr<I>(), len, static_cast<int>(mode));
  });
  if (mode != kIndexRaise) return pos;
  bool missing = false;
  if constexpr (std::is_same<xpu, cpu>::value) {
    for (int64_t j = 0; j < n && !missing; ++j) missing = pos[j] < 0;
  } else {
    int* flag = reinterpret_cast<int*>(pos + n);
    cuda::Memset(flag, 0, sizeof(int), ctx.dev.id);
    Kernel<FlagMissingKernel, xpu>::Launch(n, pos, flag);
    int host = 0;
    cuda::CopyBytes(&host, Device::CPU(), flag, ctx.dev, sizeof(int));
    missing = host != 0;
  }
  SYMNET_CHECK(!missing) << what << ": mode='raise' and an index is outside [0, " << len - 1
                         << "] (indices of dtype " << idx.dtype_ << ", shape " << idx.shape_ << ")";
  return pos;
}

/*! \brief The axis of an op's parameter in [0, ndim), checked. */
int IndexAxis(int axis, const Shape& s, const char* what);

/*! \brief take: out[o, j, r] = a[o, pos[j], r] (o before the axis, r after it; m indices). */
template <int req>
struct TakeKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* a, const int64_t* pos, int64_t m,
                                 int64_t len, int64_t inner) {
    const int64_t r = i % inner, j = (i / inner) % m, o = i / (inner * m);
    AssignReq<req>(&out[i], static_cast<AccType<T>>(a[(o * len + pos[j]) * inner + r]));
  }
};

/*!
 * \brief take's gradient: da[o, pos[j], r] += dy[o, j, r] over j. Repeated indices add up, so
 *  each call owns one (o, r) column and walks the indices in order: no two calls touch the same
 *  element (no atomics, the same sums on every device and every run).
 */
struct TakeGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t c, T* da, const T* dy, const int64_t* pos, int64_t m,
                                 int64_t len, int64_t inner) {
    const int64_t r = c % inner, o = c / inner;
    for (int64_t j = 0; j < m; ++j)
      AssignReq<kAddTo>(&da[(o * len + pos[j]) * inner + r],
                        static_cast<AccType<T>>(dy[(o * m + j) * inner + r]));
  }
};

/*! \brief pick: picked[o, r] = data[o, pos[o, r], r]; the gradient (backward) writes the other
 *  way, dy into ddata at those positions (each position once). */
template <int req, bool backward>
struct PickKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* picked, T* data, const int64_t* pos, int64_t len,
                                 int64_t inner) {
    T* at = data + ((i / inner) * len + pos[i]) * inner + i % inner;
    if (backward) {
      AssignReq<req>(at, static_cast<AccType<T>>(picked[i]));
    } else {
      AssignReq<req>(&picked[i], static_cast<AccType<T>>(*at));
    }
  }
};

/*! \brief one_hot: out[j, d] = on where pos[j] == d, else off. */
template <int req>
struct OneHotKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const int64_t* pos, int64_t depth, T on,
                                 T off) {
    AssignReq<req>(&out[i], static_cast<AccType<T>>(pos[i / depth] == i % depth ? on : off));
  }
};

template <typename xpu>
void TakeForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const TakeParam& p = Param<TakeParam>(attrs);
  const AxisSplit sp = SplitAtAxis(in[0].shape_, IndexAxis(p.axis, in[0].shape_, "take"));
  const int64_t len = sp.n, inner = sp.inner;
  SYMNET_CHECK(len > 0) << "take: cannot take from axis " << p.axis << " of length 0 (input of "
                        << "shape " << in[0].shape_ << ")";
  const int64_t* pos = ResolveIndices<xpu>(in[1], len, static_cast<IndexMode>(p.mode), ctx, "take");
  SYMNET_COPY_REQ_SWITCH(out[0].dtype_, req[0], T, Req, {
    Kernel<TakeKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(), pos,
                                         in[1].Size(), len, inner);
  });
}

/*! \brief Inputs (dy, indices), output da. Out-of-range indices were refused by the forward
 *  call in raise mode, so the gradient resolves them as clip does. Integer data too (MXNet's
 *  take has integer gradients, and recorded advanced indexing is a take). */
template <typename xpu>
void TakeBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) ZeroBlob(out[0]);
  if (in[0].Size() == 0) return;
  const TakeParam& p = Param<TakeParam>(attrs);
  const AxisSplit sp = SplitAtAxis(out[0].shape_, IndexAxis(p.axis, out[0].shape_, "take"));
  const int64_t outer = sp.outer, len = sp.n, inner = sp.inner;
  SYMNET_CHECK(len > 0) << "take: cannot take from axis " << p.axis << " of length 0 (input of "
                        << "shape " << out[0].shape_ << ")";
  const IndexMode mode = p.mode == kIndexWrap ? kIndexWrap : kIndexClip;
  const int64_t* pos = ResolveIndices<xpu>(in[1], len, mode, ctx, "take");
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    Kernel<TakeGradKernel, xpu>::Launch(outer * inner, out[0].dptr<T>(), in[0].dptr<T>(), pos,
                                        in[1].Size(), len, inner);
  });
}

/*! \brief pick's axis in [0, ndim), checked (None is refused, as MXNet 1.9.1 does). */
int PickAxis(const PickParam& p, const Shape& data);

template <typename xpu>
void PickForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const PickParam& p = Param<PickParam>(attrs);
  const AxisSplit sp = SplitAtAxis(in[0].shape_, PickAxis(p, in[0].shape_));
  const int64_t outer = sp.outer, len = sp.n, inner = sp.inner;
  SYMNET_CHECK(len > 0) << "pick: cannot pick from an axis of length 0 (input of shape "
                        << in[0].shape_ << ")";
  const int64_t* pos = ResolveIndices<xpu>(in[1], len, static_cast<IndexMode>(p.mode), ctx, "pick");
  SYMNET_COPY_REQ_SWITCH(out[0].dtype_, req[0], T, Req, {
    Kernel<PickKernel<Req, false>, xpu>::Launch(outer * inner, out[0].dptr<T>(), in[0].dptr<T>(),
                                                pos, len, inner);
  });
}

/*! \brief Inputs (dy, index), output ddata: dy at the picked positions, zeros elsewhere (each
 *  position is picked once, so the writes never collide). */
template <typename xpu>
void PickBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) ZeroBlob(out[0]);
  if (in[0].Size() == 0) return;
  const PickParam& p = Param<PickParam>(attrs);
  const AxisSplit sp = SplitAtAxis(out[0].shape_, PickAxis(p, out[0].shape_));
  const int64_t outer = sp.outer, len = sp.n, inner = sp.inner;
  SYMNET_CHECK(len > 0) << "pick: cannot pick from an axis of length 0 (input of shape "
                        << out[0].shape_ << ")";
  const int64_t* pos = ResolveIndices<xpu>(in[1], len, static_cast<IndexMode>(p.mode), ctx, "pick");
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0] == kAddTo ? kAddTo : kWriteTo, Req, {
      Kernel<PickKernel<Req, true>, xpu>::Launch(outer * inner, in[0].dptr<T>(), out[0].dptr<T>(),
                                                 pos, len, inner);
    });
  });
}

template <typename xpu>
void OneHotForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const OneHotParam& p = Param<OneHotParam>(attrs);
  const int64_t* pos = ResolveIndices<xpu>(in[0], p.depth, kIndexDrop, ctx, "one_hot");
  const DType t = out[0].dtype_;
  SYMNET_COPY_REQ_SWITCH(t, req[0], T, Req, {
    const T on = CopyValue<Req, T>(p.on_value, t), off = CopyValue<Req, T>(p.off_value, t);
    Kernel<OneHotKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), pos, p.depth, on, off);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_INDEXING_H_
