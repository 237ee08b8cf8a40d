/*! \brief slice and slice_axis (slice.h): their index rules, shape rules, the CPU box copy by
 *  rows, and the registrations. */
#include "slice.h"

#include <algorithm>
#include <cstring>
#include <istream>
#include <iterator>
#include <ostream>
#include <sstream>
#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SliceParam);
DMLC_REGISTER_PARAMETER(SliceAxisParam);

std::ostream& operator<<(std::ostream& os, const OptionalIntTuple& t) {
  os << "(";
  for (size_t i = 0; i < t.values.size(); ++i) {
    if (i) os << ", ";
    if (t.values[i]) {
      os << *t.values[i];
    } else {
      os << "None";
    }
  }
  return os << (t.values.size() == 1 ? ",)" : ")");
}

std::istream& operator>>(std::istream& is, OptionalIntTuple& t) {
  const std::string text((std::istreambuf_iterator<char>(is)), std::istreambuf_iterator<char>());
  if (ParseOptionalIntTuple(text, &t.values)) {
    is.clear(std::ios::eofbit);
  } else {
    is.setstate(std::ios::failbit);
  }
  return is;
}

namespace {

/*!
 * \brief Python's slice(b, e, step).indices(len): None takes the start (or, for a negative
 *  step, the end) of the dim; negative values count from the back; what is still outside is
 *  clamped to [0, len] (to [-1, len - 1] going backwards), so a range past the dim is empty, not
 *  an error. MXNet 1.9.1's slice gives exactly NumPy's answers for every such case.
 */
DimRange PythonRange(std::optional<int64_t> b, std::optional<int64_t> e, int64_t step,
                     int64_t len) {
  const int64_t lo = step > 0 ? 0 : -1, hi = step > 0 ? len : len - 1;
  auto place = [&](std::optional<int64_t> v, int64_t none) {
    if (!v) return none;
    // (a value before -len is left at -1, which clamps like it; adding len could overflow)
    const int64_t x = *v >= 0 ? *v : (*v < -len ? -1 : *v + len);
    return std::min(std::max(x, lo), hi);
  };
  DimRange r;
  r.step = step;
  r.begin = place(b, step > 0 ? lo : hi);
  const int64_t end = place(e, step > 0 ? hi : lo);
  if (step > 0) {
    r.count = end > r.begin ? (end - r.begin - 1) / step + 1 : 0;
  } else {
    r.count = r.begin > end ? (r.begin - end - 1) / (-step) + 1 : 0;
  }
  return r;
}

int64_t StepAt(const SliceParam& p, size_t d) {
  return d < p.step.size() && p.step.values[d] ? *p.step.values[d] : 1;
}

/*! \brief The rules that need no input shape, checked when the node is made (MXNet checks them
 *  at shape inference; a node breaking them could never run). */
void SliceParser(NodeAttrs* attrs) {
  ParamParser<SliceParam>(attrs);
  const SliceParam& p = Param<SliceParam>(*attrs);
  std::ostringstream os;
  if (p.begin.size() != p.end.size()) {
    os << "begin " << p.begin << " and end " << p.end << " must have the same length";
  } else if (p.step.size() != 0 && p.step.size() != p.begin.size()) {
    os << "step " << p.step << " must be empty or have one entry per entry of begin " << p.begin;
  } else {
    for (size_t d = 0; d < p.step.size(); ++d) {
      if (StepAt(p, d) == 0) {
        os << "step " << p.step << ": step[" << d << "] is 0; a step must not be 0";
        break;
      }
    }
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

/*! \brief slice's output shape; an unknown input dim gives an unknown output dim. */
Shape SliceOutShape(const SliceParam& p, const Shape& in) {
  SYMNET_CHECK(in.ndim() >= 1) << "slice needs an input of at least one dim, got shape " << in;
  SYMNET_CHECK(static_cast<int>(p.begin.size()) <= in.ndim())
      << "slice: begin " << p.begin << " has " << p.begin.size()
      << " entries, more than the dims of the input of shape " << in;
  Shape o = in;
  for (size_t d = 0; d < p.begin.size(); ++d) {
    const int i = static_cast<int>(d);
    if (in[i] >= 0)
      o[i] = PythonRange(p.begin.values[d], p.end.values[d], StepAt(p, d), in[i]).count;
  }
  return o;
}

bool SliceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const Shape o = SliceOutShape(Param<SliceParam>(attrs), s);
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*! \brief slice_axis' axis in [0, ndim). */
int SliceAxisIndex(const SliceAxisParam& p, const Shape& in) {
  const int nd = in.ndim();
  SYMNET_CHECK(p.axis >= -nd && p.axis < nd)
      << "slice_axis: axis " << p.axis << " is out of range for an input of shape " << in
      << " (expected " << -nd << " to " << nd - 1 << ")";
  return p.axis < 0 ? p.axis + nd : p.axis;
}

/*!
 * \brief [begin, end) of slice_axis on an axis of length `len`. MXNet 1.9.1 does not clamp
 *  here (unlike slice): after counting negative values from the back, begin must be in
 *  [0, end) and end in (begin, len], else it is an error. An axis of length 0 gives an empty
 *  output whatever the attributes say, as in MXNet.
 */
void SliceAxisBounds(const SliceAxisParam& p, const Shape& in, int axis, int64_t* begin,
                     int64_t* end) {
  const int64_t len = in[axis];
  if (len == 0) {
    *begin = *end = 0;
    return;
  }
  int64_t b = p.begin, e = p.end.has_value() ? p.end.value() : len;
  if (b < 0) b += len;
  if (e < 0) e += len;
  // the message is built only on failure: this runs on every call of the kernel
  auto fail = [&](const std::string& what) {
    SYMNET_THROW << "slice_axis: " << what << " for axis " << p.axis << " of an input of shape "
                 << in << " (length " << len << ")";
  };
  if (e > len) fail("end " + std::to_string(e) + " is past the end (slice_axis does not clamp)");
  if (b < 0)
    fail("begin " + std::to_string(p.begin) + " is before the start (slice_axis does not clamp)");
  if (!(b < e)) {
    std::ostringstream os;
    os << "begin " << p.begin << " and end " << p.end
       << " select nothing (begin must come before end once negative values count from the back)";
    fail(os.str());
  }
  *begin = b;
  *end = e;
}

bool SliceAxisShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const SliceAxisParam& p = Param<SliceAxisParam>(attrs);
  const int a = SliceAxisIndex(p, s);
  Shape o = s;
  if (s[a] >= 0) {
    int64_t b = 0, e = 0;
    SliceAxisBounds(p, s, a, &b, &e);
    o[a] = e - b;
  }
  AssignOutShape(out, 0, o);
  return o.is_known();
}

/*!
 * \brief Copies the box's rows (runs along its last dim) between `whole` and `part`. Long rows
 *  are cut into chunks, so a box of one long strided row (a column of a matrix) still spreads
 *  over the threads; a contiguous run is a plain loop (or memcpy) the compiler vectorises.
 */
template <int req, bool to_whole, typename T>
void CopyRows(T* whole, const SliceBox& b, T* part) {
  constexpr int64_t kChunk = 4096;
  const int64_t len = b.shape[b.ndim - 1], step = b.stride[b.ndim - 1];
  const int64_t rows = b.size / len;
  const int64_t chunks = (len + kChunk - 1) / kChunk;
#pragma omp parallel for schedule(static) if (b.size >= kOmpMinWork)
  for (int64_t t = 0; t < rows * chunks; ++t) {
    const int64_t r = t / chunks, first = (t % chunks) * kChunk;
    const int64_t n = std::min(kChunk, len - first);
    T* w = whole + b.Offset(r * len) + first * step;
    T* p = part + r * len + first;
    if (step == 1) {
      T* dst = to_whole ? w : p;
      const T* src = to_whole ? p : w;
      if constexpr (req == kWriteTo) {
        std::memcpy(dst, src, n * sizeof(T));
      } else {
        for (int64_t i = 0; i < n; ++i) AssignReq<req>(&dst[i], static_cast<AccType<T>>(src[i]));
      }
    } else if (to_whole) {
      for (int64_t i = 0; i < n; ++i) AssignReq<req>(&w[i * step], static_cast<AccType<T>>(p[i]));
    } else {
      for (int64_t i = 0; i < n; ++i) AssignReq<req>(&p[i], static_cast<AccType<T>>(w[i * step]));
    }
  }
}

}  // namespace

SliceBox MakeBox(const Shape& whole, const std::vector<DimRange>& ranges) {
  const int n = whole.ndim();
  SYMNET_CHECK(static_cast<int>(ranges.size()) == n)
      << "internal error: " << ranges.size() << " ranges for a box of shape " << whole;
  SliceBox b;
  b.size = 1;
  for (const auto& r : ranges) b.size *= r.count;  // each count is at most its dim: no overflow
  if (b.size == 0) return b;                       // nothing to copy; no offsets are taken
  std::vector<int64_t> stride(n, 1);               // the whole array's element strides
  for (int d = n - 2; d >= 0; --d) stride[d] = stride[d + 1] * whole[d + 1];
  std::vector<int64_t> shape, step;
  for (int d = 0; d < n; ++d) {
    b.offset += ranges[d].begin * stride[d];
    if (ranges[d].count == 1) continue;  // one index: only its offset matters
    const int64_t st = ranges[d].step * stride[d];
    if (!shape.empty() && step.back() == st * ranges[d].count) {
      // the outer dim steps exactly over this one: one longer run with this dim's stride
      shape.back() *= ranges[d].count;
      step.back() = st;
    } else {
      shape.push_back(ranges[d].count);
      step.push_back(st);
    }
  }
  if (shape.empty()) {
    shape.push_back(1);
    step.push_back(1);
  }
  SYMNET_CHECK(static_cast<int>(shape.size()) <= kMaxSliceDim)
      << "slicing " << whole << " leaves " << shape.size() << " separately strided dims; at most "
      << kMaxSliceDim << " are supported";
  b.ndim = static_cast<int>(shape.size());
  for (int d = 0; d < b.ndim; ++d) {
    b.shape[d] = shape[d];
    b.stride[d] = step[d];
  }
  return b;
}

std::vector<DimRange> SliceRanges(const SliceParam& p, const Shape& in) {
  SliceOutShape(p, in);  // the shape checks, with their messages
  std::vector<DimRange> r(in.ndim());
  for (int d = 0; d < in.ndim(); ++d) {
    const size_t u = static_cast<size_t>(d);
    r[d] = u < p.begin.size() ? PythonRange(p.begin.values[u], p.end.values[u], StepAt(p, u), in[d])
                              : DimRange{0, 1, in[d]};
  }
  return r;
}

std::vector<DimRange> SliceAxisRanges(const SliceAxisParam& p, const Shape& in) {
  const int a = SliceAxisIndex(p, in);
  int64_t b = 0, e = 0;
  SliceAxisBounds(p, in, a, &b, &e);
  std::vector<DimRange> r(in.ndim());
  for (int d = 0; d < in.ndim(); ++d) r[d] = d == a ? DimRange{b, 1, e - b} : DimRange{0, 1, in[d]};
  return r;
}

SliceBox SliceBoxOf(const NodeAttrs& attrs, const Shape& in, const Shape&) {
  return MakeBox(in, SliceRanges(Param<SliceParam>(attrs), in));
}

SliceBox SliceAxisBoxOf(const NodeAttrs& attrs, const Shape& in, const Shape&) {
  return MakeBox(in, SliceAxisRanges(Param<SliceAxisParam>(attrs), in));
}

template <>
void BoxCopy<cpu>(const TBlob& whole, const SliceBox& b, const TBlob& part, bool to_whole,
                  OpReqType req) {
  if (req == kNullOp || b.size == 0) return;
  SYMNET_TYPE_SWITCH(whole.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      if (to_whole) {
        CopyRows<Req, true>(whole.dptr<T>(), b, part.dptr<T>());
      } else {
        CopyRows<Req, false>(whole.dptr<T>(), b, part.dptr<T>());
      }
    });
  });
}

SYMNET_REGISTER_OP(slice)
    .add_alias("crop")  // MXNet's deprecated name of slice
    .describe(
        "Takes a strided box out of the input: dim d keeps indices begin[d], begin[d] + "
        "step[d], ... before end[d], with NumPy's rules (None, negative values, negative steps, "
        "clamping). Dims past len(begin) are kept whole.")
    .set_attr_parser(SliceParser)
    .add_arguments(ParamDocs<SliceParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SliceShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_slice"))
    .set_attr<FCompute>("FCompute<cpu>", BoxForward<cpu, SliceBoxOf>);

SYMNET_REGISTER_OP(_backward_slice)
    .set_attr_parser(SliceParser)
    .add_arguments(ParamDocs<SliceParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BoxBackward<cpu, SliceBoxOf>);

SYMNET_REGISTER_OP(slice_axis)
    .describe(
        "Takes indices [begin, end) of one axis. Negative values count from the back and end "
        "None is the axis' length; unlike slice, a range outside the axis is an error.")
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .add_arguments(ParamDocs<SliceAxisParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", SliceAxisShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_slice_axis"))
    .set_attr<FCompute>("FCompute<cpu>", BoxForward<cpu, SliceAxisBoxOf>);

SYMNET_REGISTER_OP(_backward_slice_axis)
    .set_attr_parser(ParamParser<SliceAxisParam>)
    .add_arguments(ParamDocs<SliceAxisParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BoxBackward<cpu, SliceAxisBoxOf>);

}  // namespace ops
}  // namespace symnet
