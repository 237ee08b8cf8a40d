/*!
 * \brief _contrib_MultiBoxTarget with MXNet 1.9.1's attributes, outputs and matching rule. The
 *  targets are labels, not functions of the inputs, so every input gets a zero gradient (as in
 *  MXNet). minimum_negative_samples is accepted and, as in MXNet 1.9.1, has no effect.
 */
#include "multibox_target.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(MultiBoxTargetParam);

namespace {

void MultiBoxTargetParser(NodeAttrs* attrs) {
  ParamParser<MultiBoxTargetParam>(attrs);
  const MultiBoxTargetParam& p = Param<MultiBoxTargetParam>(*attrs);
  std::ostringstream os;
  if (p.variances.values.size() != 4) {
    os << "variances must hold 4 values, got " << p.variances;
  } else if (p.negative_mining_ratio > 0 && !(p.negative_mining_thresh > 0)) {
    os << "negative_mining_thresh must be positive when negative mining is on "
       << "(negative_mining_ratio=" << p.negative_mining_ratio << "), got "
       << p.negative_mining_thresh;
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

bool MultiBoxTargetShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &a = (*in)[0], &l = (*in)[1], &p = (*in)[2];
  if (!a.is_known() || !l.is_known() || !p.is_known()) return false;
  SYMNET_CHECK(a.ndim() == 3 && a[0] == 1 && a[1] > 0 && a[2] == 4)
      << "_contrib_MultiBoxTarget: input 'anchor' must have shape (1, num_anchors > 0, 4), got "
      << a;
  SYMNET_CHECK(l.ndim() == 3 && l[1] > 0 && l[2] >= 5)
      << "_contrib_MultiBoxTarget: input 'label' must have shape (batch, num_labels > 0, width "
      << ">= 5) with rows (class, xmin, ymin, xmax, ymax, ...), got " << l;
  SYMNET_CHECK(p.ndim() == 3 && p[0] == l[0] && p[2] == a[1])
      << "_contrib_MultiBoxTarget: input 'cls_pred' must have shape (batch " << l[0]
      << ", num_classes, num_anchors " << a[1] << "), got " << p;
  AssignOutShape(out, 0, Shape({l[0], a[1] * 4}));
  AssignOutShape(out, 1, Shape({l[0], a[1] * 4}));
  AssignOutShape(out, 2, Shape({l[0], a[1]}));
  return true;
}

bool DetectionFloatType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0]))
      << "_contrib_MultiBoxTarget: inputs must be floating-point, got " << DTypeName((*in)[0]);
  return true;
}

size_t MultiBoxTargetTemp(const NodeAttrs& attrs, const std::vector<Shape>& s,
                          const std::vector<DType>&) {
  const MBTargetPlan v = MakeMBTargetPlan(Param<MultiBoxTargetParam>(attrs), s[0], s[1], s[2]);
  return MBTargetWork<double>::Bytes(s[1][0], v);
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_MultiBoxTarget)
    .describe(
        "SSD training targets. Each ground truth first takes the free anchor it overlaps most "
        "(best pair first), then every other anchor takes its best ground truth when the IoU "
        "exceeds overlap_threshold. Positives get class + 1 and encoded box offsets; negatives "
        "(all others, or with negative_mining_ratio > 0 the ones with the lowest background "
        "probability, at most ratio x positives) get class 0; the rest get ignore_label. "
        "Label rows are (class, xmin, ymin, xmax, ymax, ...), padded with -1 rows.")
    .set_num_inputs(3)
    .set_num_outputs(3)
    .set_attr_parser(MultiBoxTargetParser)
    .add_argument("anchor", "NDArray-or-Symbol", "Anchors, shape (1, num_anchors, 4).")
    .add_argument("label", "NDArray-or-Symbol", "Ground truths, shape (batch, num_labels, >=5).")
    .add_argument("cls_pred", "NDArray-or-Symbol",
                  "Class scores, shape (batch, num_classes, num_anchors).")
    .add_arguments(ParamDocs<MultiBoxTargetParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"anchor", "label", "cls_pred"};
                               })
    .set_attr<FListOutputNames>(
        "FListOutputNames",
        [](const NodeAttrs&) {
          return std::vector<std::string>{"loc_target", "loc_mask", "cls_target"};
        })
    .set_attr<FInferShape>("FInferShape", MultiBoxTargetShape)
    .set_attr<FInferType>("FInferType", DetectionFloatType)
    .set_attr<FTempSpace>("FTempSpace", MultiBoxTargetTemp)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", MultiBoxTargetForward<cpu>);

}  // namespace ops
}  // namespace symnet
