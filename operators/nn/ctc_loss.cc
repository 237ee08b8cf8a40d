/*!
 * \brief CTCLoss (aliases ctc_loss, _contrib_CTCLoss, _contrib_ctc_loss) with MXNet 1.9.1's
 *  inputs, attributes and outputs: the loss per batch element is the visible output, the
 *  gradient with respect to data a hidden second one, written by the forward pass.
 *
 *  Where MXNet 1.9.1 reads memory it does not own (a label outside the alphabet, a data length
 *  past the sequence, which crashes it), the call is an error here instead. A label value equal
 *  to the blank is a symbol like any other, as in MXNet (its emissions are the blank channel's;
 *  MXNet's own test_ctc_loss gives such labels).
 */
#include "ctc_loss.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(CTCLossParam);

void CTCThrow(const NodeAttrs& attrs, int status, int64_t b, const CTCDims& d) {
  std::ostringstream os;
  os << "CTCLoss node '" << attrs.name << "': batch element " << b << ": ";
  const int64_t first = d.blank == 0 ? 1 : 0, last = d.blank == 0 ? d.C - 1 : d.C - 2;
  switch (status) {
    case kCTCBadDataLength:
      os << "data_lengths must lie in [0, " << d.T << "] (the data's sequence_length)";
      break;
    case kCTCBadLabelLength:
      os << "label_lengths must lie in [0, " << d.W << "] (the label's width)";
      break;
    default:  // kCTCLabelOutOfRange
      os << "a label value lies outside the alphabet; with alphabet_size " << d.C
         << " and blank_label '" << (d.blank == 0 ? "first" : "last") << "', labels must lie in ["
         << first << ", " << last << "] (or be the blank, " << d.blank << ")";
      break;
  }
  SYMNET_THROW << os.str();
}

namespace {

uint32_t CTCNumInputs(const NodeAttrs& a) {
  const CTCLossParam& p = Param<CTCLossParam>(a);
  return 2 + p.use_data_lengths + p.use_label_lengths;
}

std::vector<std::string> CTCInputs(const NodeAttrs& a) {
  const CTCLossParam& p = Param<CTCLossParam>(a);
  std::vector<std::string> names{"data", "label"};
  if (p.use_data_lengths) names.push_back("data_lengths");
  if (p.use_label_lengths) names.push_back("label_lengths");
  return names;
}

bool CTCShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  const Shape& l = (*in)[1];
  if (d.ndim_known())
    SYMNET_CHECK(d.ndim() == 3) << "CTCLoss expects data of shape (sequence_length, batch_size, "
                                << "alphabet_size), got shape " << d;
  if (l.ndim_known())
    SYMNET_CHECK(l.ndim() == 2) << "CTCLoss expects label of shape (batch_size, "
                                << "label_sequence_length), got shape " << l;
  if (!d.is_known() || !l.is_known()) return false;
  SYMNET_CHECK(d[1] == l[0]) << "CTCLoss: data " << d << " has batch size " << d[1] << " but label "
                             << l << " has " << l[0];
  SYMNET_CHECK(l[1] <= d[0]) << "CTCLoss: the label width " << l[1] << " (label " << l
                             << ") exceeds the sequence length " << d[0] << " (data " << d << ")";
  SYMNET_CHECK(d[2] >= 1) << "CTCLoss: data " << d << " has an empty alphabet; alphabet_size "
                          << "counts the blank, so it must be at least 1";
  for (size_t i = 2; i < in->size(); ++i) AssignInShape(in, i, Shape{d[1]});
  AssignOutShape(out, 0, Shape{d[1]});
  AssignOutShape(out, 1, d);
  return true;
}

/*! \brief Both outputs take data's dtype; labels and lengths may have any dtype. */
bool CTCType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[0];
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) t = (*out)[1];
  if (t == DType::kUnknown) return false;
  SYMNET_CHECK(IsFloatType(t)) << "CTCLoss expects floating-point data, got " << DTypeName(t);
  AssignType(in, 0, t, true);
  AssignType(out, 0, t, false);
  AssignType(out, 1, t, false);
  for (const DType x : *in)
    if (x == DType::kUnknown) return false;
  return true;
}

size_t CTCTemp(const NodeAttrs& attrs, const std::vector<Shape>& in,
               const std::vector<DType>& types) {
  if (!in[0].is_known() || !in[1].is_known() || in[0].ndim() != 3 || in[1].ndim() != 2) return 0;
  const CTCDims d = MakeCTCDims(Param<CTCLossParam>(attrs), in[0], in[1]);
  return CTCTempBytes(d, types[0] == DType::kFloat64 ? 8 : 4);
}

/*! \brief The backward op takes (dloss, stored gradient); labels and lengths get none. */
std::vector<NodeEntry> CTCGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_CTCLoss", n, {ograds[0], NodeEntry{n, 1, 0}}, ParamsOf(n));
  std::vector<NodeEntry> grads(n->inputs.size(), NoGradient());
  grads[0] = g[0];
  return grads;
}

}  // namespace

SYMNET_REGISTER_OP(CTCLoss)
    .add_alias("ctc_loss")
    .add_alias("_contrib_CTCLoss")
    .add_alias("_contrib_ctc_loss")
    .describe(
        "Connectionist Temporal Classification loss (Graves et al.) of data (sequence_length, "
        "batch_size, alphabet_size), unnormalized activations (a softmax over the alphabet is "
        "applied inside), against label (batch_size, label_sequence_length). The output is the "
        "loss of each batch element, (batch_size,). With blank_label 'first', channel 0 is the "
        "blank, labels lie in 1..alphabet_size-1 and 0 pads them; with 'last', channel "
        "alphabet_size-1 is the blank, labels lie in 0..alphabet_size-2 and -1 pads them. A "
        "label ends at its first padding value unless use_label_lengths gives label_lengths "
        "(batch_size,); use_data_lengths gives each sequence's length in data_lengths "
        "(batch_size,). Lengths and labels are rounded to the nearest integer. A label that fits "
        "no alignment (its length plus its repeated neighbours exceeds the sequence) has loss 0 "
        "and a zero gradient, as in MXNet. The gradient with respect to data is computed by the "
        "forward pass and scaled by the head gradient; labels and lengths get none.")
    .set_num_inputs(CTCNumInputs)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<CTCLossParam>)
    .add_argument("data", "NDArray-or-Symbol",
                  "Activations, (sequence_length, batch_size, alphabet_size).")
    .add_argument("label", "NDArray-or-Symbol",
                  "Labels, (batch_size, label_sequence_length), padded at the end.")
    .add_argument("data_lengths", "NDArray-or-Symbol",
                  "The length of each sequence (batch_size,), with use_data_lengths.")
    .add_argument("label_lengths", "NDArray-or-Symbol",
                  "The length of each label (batch_size,), with use_label_lengths.")
    .add_arguments(ParamDocs<CTCLossParam>())
    .set_attr<FListInputNames>("FListInputNames", CTCInputs)
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", CTCShape)
    .set_attr<FInferType>("FInferType", CTCType)
    .set_attr<FTempSpace>("FTempSpace", CTCTemp)
    .set_attr<FGradient>("FGradient", CTCGradient)
    .set_attr<FCompute>("FCompute<cpu>", CTCLossForward<cpu>);

SYMNET_REGISTER_OP(_backward_CTCLoss)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<CTCLossParam>)
    .add_arguments(ParamDocs<CTCLossParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInplaceOption>("FInplaceOption",
                              [](const NodeAttrs&) {
                                return std::vector<std::pair<int, int>>{{1, 0}};
                              })
    .set_attr<FCompute>("FCompute<cpu>", CTCLossBackward<cpu>);

}  // namespace ops
}  // namespace symnet
