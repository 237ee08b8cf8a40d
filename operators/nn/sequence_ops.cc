/*! \brief SequenceMask and SequenceLast (sequence_ops.h): shape and type rules, registrations. */
#include "sequence_ops.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SequenceMaskParam);
DMLC_REGISTER_PARAMETER(SequenceLastParam);

namespace {

/*! \brief MXNet's kernels know only the (T, N, ...) and (N, T, ...) layouts. */
template <typename P>
void SeqParser(NodeAttrs* attrs) {
  ParamParser<P>(attrs);
  const int axis = Param<P>(*attrs).axis;
  if (axis != 0 && axis != 1)
    throw dmlc::ParamError("axis " + std::to_string(axis) +
                           " must be 0 (data (T, N, ...)) or 1 (data (N, T, ...))");
}

template <typename P>
uint32_t SeqNumInputs(const NodeAttrs& a) {
  return Param<P>(a).use_sequence_length ? 2 : 1;
}

template <typename P>
std::vector<std::string> SeqInputs(const NodeAttrs& a) {
  if (Param<P>(a).use_sequence_length) return {"data", "sequence_length"};
  return {"data"};
}

/*! \brief data needs the two axes (time and batch); sequence_length is (N,). */
template <typename P>
bool CheckSeqData(const NodeAttrs& attrs, std::vector<Shape>* in, const char* what) {
  const Shape& d = (*in)[0];
  if (!d.ndim_known()) return false;
  const P& p = Param<P>(attrs);
  SYMNET_CHECK(d.ndim() >= 2) << what << ": data must have at least 2 dims (time and batch), "
                              << "got shape " << d;
  if (p.use_sequence_length) AssignInShape(in, 1, Shape{d[1 - p.axis]});
  return true;
}

bool SequenceMaskShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known() && (*out)[0].ndim_known()) AssignInShape(in, 0, (*out)[0]);
  if (!CheckSeqData<SequenceMaskParam>(attrs, in, "SequenceMask")) return false;
  AssignOutShape(out, 0, (*in)[0]);
  return (*in)[0].is_known();
}

/*! \brief The output drops the time axis: (N, ...). */
bool SequenceLastShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!CheckSeqData<SequenceLastParam>(attrs, in, "SequenceLast")) return false;
  const Shape& d = (*in)[0];
  const int axis = Param<SequenceLastParam>(attrs).axis;
  Shape o = Shape::Scalar();
  for (int i = 0; i < d.ndim(); ++i)
    if (i != axis) o.push_back(d[i]);
  AssignOutShape(out, 0, o);
  return d.is_known();
}

/*! \brief The output has the data's dtype; the lengths' dtype is free (floats truncate). */
bool SeqType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> data{(*in)[0]};
  const bool known = ElemwiseType(attrs, &data, out);
  AssignType(in, 0, data[0], true);
  return known;
}

size_t SeqTemp(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<DType>&) {
  return in.size() > 1 ? IndexTempBytes(in[1]) : 0;
}

/*! \brief The backward op takes (dy[, sequence_length]); the lengths get no gradient. */
template <typename P>
FGradient SeqGradient(const char* backward_op) {
  return [backward_op](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
    const bool use = Param<P>(n->attrs).use_sequence_length;
    std::vector<NodeEntry> ins{ograds[0]};
    if (use) ins.push_back(n->inputs[1]);
    auto g = MakeGradNode(backward_op, n, ins, ParamsOf(n));
    std::vector<NodeEntry> grads{g[0]};
    if (use) grads.push_back(NoGradient());
    return grads;
  };
}

}  // namespace

SYMNET_REGISTER_OP(SequenceMask)
    .describe(
        "Sets the steps of each sequence past its length to `value`: data is (T, N, ...) "
        "(axis=0) or (N, T, ...) (axis=1), sequence_length (N,) (float lengths truncate). "
        "Without use_sequence_length the data passes unchanged. The gradient passes where the "
        "data was kept; sequence_length gets none.")
    .set_num_inputs(SeqNumInputs<SequenceMaskParam>)
    .set_attr_parser(SeqParser<SequenceMaskParam>)
    .add_argument("data", "NDArray-or-Symbol", "The sequences, (T, N, ...) or (N, T, ...).")
    .add_argument("sequence_length", "NDArray-or-Symbol",
                  "The length of each sequence (N,), with use_sequence_length.")
    .add_arguments(ParamDocs<SequenceMaskParam>())
    .set_attr<FListInputNames>("FListInputNames", SeqInputs<SequenceMaskParam>)
    .set_attr<FInferShape>("FInferShape", SequenceMaskShape)
    .set_attr<FInferType>("FInferType", SeqType)
    .set_attr<FTempSpace>("FTempSpace", SeqTemp)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", SeqGradient<SequenceMaskParam>("_backward_SequenceMask"))
    .set_attr<FCompute>("FCompute<cpu>", SequenceMaskCompute<cpu, false>);

SYMNET_REGISTER_OP(_backward_SequenceMask)
    .set_num_inputs(SeqNumInputs<SequenceMaskParam>)
    .set_attr_parser(SeqParser<SequenceMaskParam>)
    .add_arguments(ParamDocs<SequenceMaskParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", SeqTemp)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FCompute>("FCompute<cpu>", SequenceMaskCompute<cpu, true>);

SYMNET_REGISTER_OP(SequenceLast)
    .describe(
        "Takes the last valid step of each sequence: data is (T, N, ...) (axis=0) or "
        "(N, T, ...) (axis=1), the output (N, ...). With use_sequence_length, sequence (N,) "
        "gives each length (float lengths truncate; lengths past T pick step T-1, lengths "
        "below 1 step 0). The gradient goes to the picked steps; sequence_length gets none.")
    .set_num_inputs(SeqNumInputs<SequenceLastParam>)
    .set_attr_parser(SeqParser<SequenceLastParam>)
    .add_argument("data", "NDArray-or-Symbol", "The sequences, (T, N, ...) or (N, T, ...).")
    .add_argument("sequence_length", "NDArray-or-Symbol",
                  "The length of each sequence (N,), with use_sequence_length.")
    .add_arguments(ParamDocs<SequenceLastParam>())
    .set_attr<FListInputNames>("FListInputNames", SeqInputs<SequenceLastParam>)
    .set_attr<FInferShape>("FInferShape", SequenceLastShape)
    .set_attr<FInferType>("FInferType", SeqType)
    .set_attr<FTempSpace>("FTempSpace", SeqTemp)
    .set_attr<FGradient>("FGradient", SeqGradient<SequenceLastParam>("_backward_SequenceLast"))
    .set_attr<FCompute>("FCompute<cpu>", SequenceLastForward<cpu>);

SYMNET_REGISTER_OP(_backward_SequenceLast)
    .set_num_inputs(SeqNumInputs<SequenceLastParam>)
    .set_attr_parser(SeqParser<SequenceLastParam>)
    .add_arguments(ParamDocs<SequenceLastParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace", SeqTemp)
    .set_attr<FCompute>("FCompute<cpu>", SequenceLastBackward<cpu>);

}  // namespace ops
}  // namespace symnet
