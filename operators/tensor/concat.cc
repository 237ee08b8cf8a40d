/*! \brief Concat (alias concat): joins arrays along one axis; its gradient splits. */
#include "concat.h"

#include <cstring>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ConcatParam);

namespace {

/*! \brief Works on partial shapes, both ways: every dim but the axis is one dim across the
 *  inputs and the output; the output's axis dim is the inputs' sum, and an input's that alone is
 *  unknown is what the output's leaves over. */
bool ConcatShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ConcatParam& p = Param<ConcatParam>(attrs);
  int ndim = (*out)[0].ndim();
  for (const auto& s : *in) ndim = s.ndim_known() ? s.ndim() : ndim;
  if (ndim < 0) return false;
  const int a = ConcatAxis(p, ndim);
  // every dim but `a` agrees across inputs and output; the output's `a` is the sum
  Shape common = Shape::Unknown(ndim);
  auto merge = [&](const Shape& s) {
    if (!s.ndim_known()) return;
    SYMNET_CHECK_EQ(s.ndim(), ndim) << "Concat inputs and output must have one ndim, got " << s;
    Shape t = s;
    t[a] = -1;
    SYMNET_CHECK(ShapeAssign(&common, t))
        << "Concat inputs and output disagree outside dim " << p.dim << ": " << s;
  };
  for (const auto& s : *in) merge(s);
  merge((*out)[0]);
  int64_t total = 0;
  int unknown = 0, last_unknown = -1;
  for (size_t i = 0; i < in->size(); ++i) {
    Shape t = common;
    t[a] = (*in)[i].ndim_known() ? (*in)[i][a] : -1;
    AssignInShape(in, i, t);
    if ((*in)[i][a] < 0) {
      ++unknown;
      last_unknown = static_cast<int>(i);
    } else {
      total += (*in)[i][a];
    }
  }
  const int64_t out_a = (*out)[0].ndim_known() ? (*out)[0][a] : -1;
  if (unknown == 1 && out_a >= 0) {
    SYMNET_CHECK(out_a >= total) << "Concat: the output's dim " << p.dim << " is " << out_a
                                 << ", less than the inputs' known " << total;
    Shape t = common;
    t[a] = out_a - total;
    AssignInShape(in, last_unknown, t);
    total = out_a;
    unknown = 0;
  }
  Shape o = common;
  o[a] = unknown == 0 ? total : -1;
  AssignOutShape(out, 0, o);
  if (!(*out)[0].is_known()) return false;
  for (const auto& s : *in)
    if (!s.is_known()) return false;
  return true;
}

/*! \brief Copies between the whole (rows of total length) and its parts; forward or back. */
template <typename T>
void CopyParts(const Rows& r, T* whole, const std::vector<T*>& parts, bool to_whole,
               const std::vector<OpReqType>& req) {
  int64_t total = 0;
  for (auto l : r.len) total += l;
#pragma omp parallel for if (r.outer * total >= kOmpMinWork)
  for (int64_t o = 0; o < r.outer; ++o) {
    int64_t off = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      T* w = whole + o * total + off;
      T* part = parts[k] + o * r.len[k];
      const OpReqType q = req[to_whole ? 0 : k];
      if (q == kAddTo) {
        T* dst = to_whole ? w : part;
        const T* src = to_whole ? part : w;
        for (int64_t i = 0; i < r.len[k]; ++i)
          AssignReq<kAddTo>(&dst[i], static_cast<AccType<T>>(src[i]));
      } else if (q != kNullOp) {
        std::memcpy(to_whole ? w : part, to_whole ? part : w, r.len[k] * sizeof(T));
      }
      off += r.len[k];
    }
  }
}

void ConcatCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Rows r = MakeRows(Param<ConcatParam>(attrs), in);
  SYMNET_TYPE_SWITCH(out[0].dtype_, T, {
    if constexpr (std::is_arithmetic<T>::value || std::is_same<T, half_t>::value ||
                  std::is_same<T, bf16_t>::value) {
      std::vector<T*> parts;
      for (const auto& b : in) parts.push_back(b.dptr<T>());
      CopyParts<T>(r, out[0].dptr<T>(), parts, true, req);
    }
  });
}

/*! \brief Input dy; outputs the gradient of each input. */
void ConcatGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Rows r = MakeRows(Param<ConcatParam>(attrs), out);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    std::vector<T*> parts;
    for (const auto& b : out) parts.push_back(b.dptr<T>());
    CopyParts<T>(r, in[0].dptr<T>(), parts, false, req);
  });
}

uint32_t NumArgs(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<ConcatParam>(a).num_args);
}

/*! \brief Channels-last works for joining channels (dim 1). */
LayoutSlots ConcatLayout(const NodeAttrs& a) {
  return Param<ConcatParam>(a).dim == 1 ? AllSlotsUniform(a) : LayoutSlots();
}

}  // namespace

SYMNET_REGISTER_OP(Concat)
    .add_alias("concat")
    .describe("Joins input arrays along dimension `dim`; all other dimensions must agree.")
    .set_key_var_num_args("num_args")
    .set_num_inputs(NumArgs)
    .set_attr_parser(ParamParser<ConcatParam>)
    .add_arguments(ParamDocs<ConcatParam>())
    .add_argument("data", "NDArray-or-Symbol[]", "The arrays to concatenate.")
    .set_attr<FInferShape>("FInferShape", ConcatShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", ConcatLayout)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_Concat"))
    .set_attr<FCompute>("FCompute<cpu>", ConcatCompute);

SYMNET_REGISTER_OP(_backward_Concat)
    .set_num_outputs(NumArgs)
    .set_attr_parser(ParamParser<ConcatParam>)
    .add_arguments(ParamDocs<ConcatParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", ConcatLayout)
    .set_attr<FCompute>("FCompute<cpu>", ConcatGradCompute);

}  // namespace ops
}  // namespace symnet
