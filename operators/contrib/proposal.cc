/*!
 * \brief _contrib_Proposal (one image) and _contrib_MultiProposal (a batch) with MXNet 1.9.1's
 *  attributes: outputs (rois, scores), scores hidden unless output_score. Each roi row is
 *  (image index, x1, y1, x2, y2). Proposals are not differentiable: the inputs get zero
 *  gradients (as in MXNet). Ties in score are broken by anchor order (a stable sort), where
 *  MXNet's unstable sort leaves them unspecified.
 */
#include "proposal.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ProposalParam);

namespace {

void ProposalParser(NodeAttrs* attrs) {
  ParamParser<ProposalParam>(attrs);
  const auto& p = Param<ProposalParam>(*attrs);
  std::ostringstream os;
  const size_t na = p.scales.values.size() * p.ratios.values.size();
  if (na == 0) {
    os << "scales and ratios must each hold at least one value, got scales=" << p.scales
       << " ratios=" << p.ratios;
  } else if (na > static_cast<size_t>(ProposalPlan::kMaxAnchors)) {
    os << "at most " << ProposalPlan::kMaxAnchors << " anchors (scales x ratios), got " << na;
  } else if (p.feature_stride <= 0) {
    os << "feature_stride must be positive, got " << p.feature_stride;
  } else if (p.rpn_post_nms_top_n < 0) {
    os << "rpn_post_nms_top_n must not be negative, got " << p.rpn_post_nms_top_n;
  } else {
    for (float r : p.ratios.values) {
      if (!(r > 0)) {
        os << "ratios must be positive, got " << p.ratios;
        break;
      }
    }
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

template <bool kMulti>
bool ProposalShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const char* op = kMulti ? "_contrib_MultiProposal" : "_contrib_Proposal";
  const Shape& c = (*in)[0];
  if (!c.is_known()) return false;
  const auto& p = Param<ProposalParam>(attrs);
  const int64_t na = static_cast<int64_t>(p.scales.values.size() * p.ratios.values.size());
  SYMNET_CHECK(c.ndim() == 4 && c[1] == 2 * na)
      << op << ": input 'cls_prob' must have shape (batch, 2 * " << na
      << " anchors (scales x ratios), height, width), got " << c;
  if (!kMulti) {
    SYMNET_CHECK(c[0] == 1) << op << ": input 'cls_prob' must hold one image (batch 1), got "
                            << "shape " << c << "; _contrib_MultiProposal takes a batch";
  }
  AssignInShape(in, 1, Shape({c[0], 4 * na, c[2], c[3]}));
  AssignInShape(in, 2, Shape({c[0], 3}));
  AssignOutShape(out, 0, Shape({c[0] * p.rpn_post_nms_top_n, 5}));
  AssignOutShape(out, 1, Shape({c[0] * p.rpn_post_nms_top_n, 1}));
  return true;
}

template <bool kMulti>
bool ProposalType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0]))
      << (kMulti ? "_contrib_MultiProposal" : "_contrib_Proposal")
      << ": inputs must be floating-point, got " << DTypeName((*in)[0]);
  return true;
}

size_t ProposalTemp(const NodeAttrs& attrs, const std::vector<Shape>& s,
                    const std::vector<DType>&) {
  const ProposalPlan v = MakeProposalPlan(Param<ProposalParam>(attrs), s[0]);
  const int64_t count = static_cast<int64_t>(v.num_anchors) * s[0][2] * s[0][3];
  return static_cast<size_t>(s[0][0] * ProposalBytesPerImage(count, v.pre, v.post));
}

std::vector<std::string> ProposalInputs(const NodeAttrs&) {
  return {"cls_prob", "bbox_pred", "im_info"};
}
std::vector<std::string> ProposalOutputs(const NodeAttrs&) { return {"output", "score"}; }
uint32_t ProposalVisible(const NodeAttrs& attrs) {
  return Param<ProposalParam>(attrs).output_score ? 2 : 1;
}

}  // namespace

#define SYMNET_REGISTER_PROPOSAL(Name, kMulti, Doc)                                        \
  SYMNET_REGISTER_OP(Name)                                                                 \
      .describe(Doc)                                                                       \
      .set_num_inputs(3)                                                                   \
      .set_num_outputs(2)                                                                  \
      .set_attr_parser(ProposalParser)                                                     \
      .add_argument("cls_prob", "NDArray-or-Symbol",                                       \
                    "Scores, shape (batch, 2 * anchors, height, width): background, then " \
                    "foreground.")                                                         \
      .add_argument("bbox_pred", "NDArray-or-Symbol",                                      \
                    "Box offsets, shape (batch, 4 * anchors, height, width).")             \
      .add_argument("im_info", "NDArray-or-Symbol",                                        \
                    "Per image (height, width, scale), shape (batch, 3).")                 \
      .add_arguments(ParamDocs<ProposalParam>())                                           \
      .set_attr<FListInputNames>("FListInputNames", ProposalInputs)                        \
      .set_attr<FListOutputNames>("FListOutputNames", ProposalOutputs)                     \
      .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", ProposalVisible)                 \
      .set_attr<FInferShape>("FInferShape", ProposalShape<kMulti>)                         \
      .set_attr<FInferType>("FInferType", ProposalType<kMulti>)                            \
      .set_attr<FTempSpace>("FTempSpace", ProposalTemp)                                    \
      .set_attr<FGradient>("FGradient", NoInputGradients)                                  \
      .set_attr<FCompute>("FCompute<cpu>", ProposalForward<cpu>)

SYMNET_REGISTER_PROPOSAL(_contrib_Proposal, false,
                         "Faster R-CNN region proposals for one image: anchors (ratios x scales "
                         "at every cell) decoded with bbox_pred, clipped to the image, small "
                         "ones scored -1, the rpn_pre_nms_top_n best through NMS, the "
                         "rpn_post_nms_top_n kept ones (repeated when fewer) as rows (0, x1, y1, "
                         "x2, y2); pixel extents count x2 - x1 + 1.");
SYMNET_REGISTER_PROPOSAL(_contrib_MultiProposal, true,
                         "_contrib_Proposal for a batch: rpn_post_nms_top_n rows per image, "
                         "column 0 the image's index.");

}  // namespace ops
}  // namespace symnet
