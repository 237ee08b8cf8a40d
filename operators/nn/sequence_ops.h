/*!
 * \brief SequenceMask and SequenceLast (MXNet 1.x) over data laid out (T, N, ...) (axis=0) or
 *  (N, T, ...) (axis=1), with an optional per-sequence length (N,).
 *
 *  The lengths arrive in any dtype; they are resolved once per call into int64 counts clipped to
 *  [0, T] with take's index resolver (tensor/indexing.h), so the kernels are instantiated per
 *  element size only. Float lengths truncate, as MXNet's cast does (2.7 keeps two steps).
 */
#ifndef SYMNET_OPERATORS_NN_SEQUENCE_OPS_H_
#define SYMNET_OPERATORS_NN_SEQUENCE_OPS_H_

#include <vector>

#include "../tensor/indexing.h"

namespace symnet {
namespace ops {

struct SequenceMaskParam : public dmlc::Parameter<SequenceMaskParam> {
  bool use_sequence_length;
  float value;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceMaskParam) {
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take sequence_length as an input; otherwise every sequence is full length.");
    DMLC_DECLARE_FIELD(value).set_default(0.0f).describe("The value of the masked steps.");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The time axis: 0 for (T, N, ...), 1 for (N, T, ...).");
  }
};

struct SequenceLastParam : public dmlc::Parameter<SequenceLastParam> {
  bool use_sequence_length;
  int axis;
  DMLC_DECLARE_PARAMETER(SequenceLastParam) {
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take sequence_length as an input; otherwise the last step is T - 1.");
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "The time axis: 0 for (T, N, ...), 1 for (N, T, ...).");
  }
};

/*! \brief The data seen as time steps T, batch N and the rest `inner`, and the time axis. */
struct SeqLayout {
  int64_t T, N, inner;
  int axis;
};

inline SeqLayout SeqSplit(const Shape& s, int axis) {
  return {s[axis], s[1 - axis], s.ProdRange(2, s.ndim()), axis};
}

/*! \brief (t, n) of flat element i, per layout. */
SYMNET_XINLINE void SeqStep(int64_t i, const SeqLayout& l, int64_t* t, int64_t* n) {
  const int64_t row = i / l.inner;  // index over the first two axes
  *t = l.axis == 0 ? row / l.N : row % l.T;
  *n = l.axis == 0 ? row % l.N : row / l.T;
}

/*! \brief out = in where t < len[n], else value. The gradient is the same map with value 0 on
 *  dy: the masked steps get none. len == nullptr means every length is T. */
template <int req>
struct SequenceMaskKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* in, const int64_t* len, SeqLayout l,
                                 AccType<T> value) {
    int64_t t, n;
    SeqStep(i, l, &t, &n);
    const bool keep = t < (len ? len[n] : l.T);
    AssignReq<req>(&out[i], keep ? static_cast<AccType<T>>(in[i]) : value);
  }
};

/*! \brief The flat index of step len[n] - 1 of sequence n at inner offset r. A length of 0 (or
 *  less) picks step 0: MXNet reads outside the array there, so any choice is compatible. */
SYMNET_XINLINE int64_t LastStepIndex(int64_t o, const int64_t* len, const SeqLayout& l) {
  const int64_t n = o / l.inner, r = o % l.inner;
  const int64_t k = len ? len[n] : l.T;
  const int64_t t = k > 0 ? k - 1 : 0;
  return (l.axis == 0 ? t * l.N + n : n * l.T + t) * l.inner + r;
}

/*! \brief Forward: last[o] = data[step]; backward: ddata[step] = dlast[o] (each step is picked
 *  by one output element, so the writes never collide). */
template <int req, bool backward>
struct SequenceLastKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t o, T* last, T* data, const int64_t* len, SeqLayout l) {
    T* at = data + LastStepIndex(o, len, l);
    if (backward) {
      AssignReq<req>(at, static_cast<AccType<T>>(last[o]));
    } else {
      AssignReq<req>(&last[o], static_cast<AccType<T>>(*at));
    }
  }
};

/*! \brief The lengths (input 1) resolved into [0, T], or nullptr without use_sequence_length. */
template <typename xpu>
const int64_t* SequenceLengths(bool use, const std::vector<TBlob>& in, int64_t T,
                               const OpContext& ctx, const char* what) {
  if (!use) return nullptr;
  return ResolveIndices<xpu>(in[1], T + 1, kIndexClip, ctx, what);
}

/*! \brief Forward (data[, len]) -> out; backward (dy[, len]) -> ddata, with value 0. */
template <typename xpu, bool backward>
void SequenceMaskCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const SequenceMaskParam& p = Param<SequenceMaskParam>(attrs);
  const SeqLayout l = SeqSplit(out[0].shape_, p.axis);
  const int64_t* len = SequenceLengths<xpu>(p.use_sequence_length, in, l.T, ctx, "SequenceMask");
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    const AccType<T> value = backward ? AccType<T>(0) : static_cast<AccType<T>>(p.value);
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SequenceMaskKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                                   len, l, value);
    });
  });
}

template <typename xpu>
void SequenceLastForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp || out[0].Size() == 0) return;
  const SequenceLastParam& p = Param<SequenceLastParam>(attrs);
  const SeqLayout l = SeqSplit(in[0].shape_, p.axis);
  SYMNET_CHECK(l.T > 0) << "SequenceLast: no last step in a sequence of length 0 (data of shape "
                        << in[0].shape_ << ")";
  const int64_t* len = SequenceLengths<xpu>(p.use_sequence_length, in, l.T, ctx, "SequenceLast");
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SequenceLastKernel<Req, false>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(),
                                                          in[0].dptr<T>(), len, l);
    });
  });
}

/*! \brief Inputs (dy[, len]), output ddata: dy at the last steps, zeros elsewhere. */
template <typename xpu>
void SequenceLastBackward(const NodeAttrs& attrs, const OpContext& ctx,
                          const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                          const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (req[0] != kAddTo) ZeroBlob(out[0]);
  if (in[0].Size() == 0) return;
  const SequenceLastParam& p = Param<SequenceLastParam>(attrs);
  const SeqLayout l = SeqSplit(out[0].shape_, p.axis);
  const int64_t* len = SequenceLengths<xpu>(p.use_sequence_length, in, l.T, ctx, "SequenceLast");
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0] == kAddTo ? kAddTo : kWriteTo, Req, {
      Kernel<SequenceLastKernel<Req, true>, xpu>::Launch(in[0].Size(), in[0].dptr<T>(),
                                                         out[0].dptr<T>(), len, l);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_SEQUENCE_OPS_H_
