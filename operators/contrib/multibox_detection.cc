/*!
 * \brief _contrib_MultiBoxDetection with MXNet 1.9.1's attributes and output layout: rows
 *  (class id, score, xmin, ymin, xmax, ymax), best score first, -1 rows and ids for what was
 *  dropped or suppressed. A decoder of predictions, so its inputs get zero gradients (as in
 *  MXNet).
 */
#include "multibox_detection.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(MultiBoxDetectionParam);

namespace {

void MultiBoxDetectionParser(NodeAttrs* attrs) {
  ParamParser<MultiBoxDetectionParam>(attrs);
  const auto& p = Param<MultiBoxDetectionParam>(*attrs);
  if (p.variances.values.size() != 4) {
    std::ostringstream os;
    os << "variances must hold 4 values, got " << p.variances;
    throw dmlc::ParamError(os.str());
  }
}

bool MultiBoxDetectionShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& c = (*in)[0];
  if (!c.is_known()) return false;
  SYMNET_CHECK(c.ndim() == 3) << "_contrib_MultiBoxDetection: input 'cls_prob' must have shape "
                              << "(batch, num_classes, num_anchors), got " << c;
  AssignInShape(in, 1, Shape({c[0], c[2] * 4}));
  AssignInShape(in, 2, Shape({1, c[2], 4}));
  AssignOutShape(out, 0, Shape({c[0], c[2], 6}));
  return true;
}

bool MultiBoxDetectionType(const NodeAttrs& attrs, std::vector<DType>* in,
                           std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0])) << "_contrib_MultiBoxDetection: inputs must be "
                                      << "floating-point, got " << DTypeName((*in)[0]);
  return true;
}

size_t MultiBoxDetectionTemp(const NodeAttrs&, const std::vector<Shape>& s,
                             const std::vector<DType>&) {
  return static_cast<size_t>(s[0][0] * MBDetectBytesPerImage(s[0][2]));
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_MultiBoxDetection)
    .describe(
        "Decodes SSD predictions: per anchor the best class other than 0 (the background) and "
        "its box, dropped below `threshold`; rows sorted by score, greedy NMS per class (or "
        "across classes with force_suppress). Output (batch, num_anchors, 6), rows (id, score, "
        "xmin, ymin, xmax, ymax); id -1 marks suppressed rows, all -1 the unused ones.")
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(MultiBoxDetectionParser)
    .add_argument("cls_prob", "NDArray-or-Symbol",
                  "Class probabilities, shape (batch, num_classes, num_anchors).")
    .add_argument("loc_pred", "NDArray-or-Symbol", "Box offsets, shape (batch, num_anchors * 4).")
    .add_argument("anchor", "NDArray-or-Symbol", "Anchors, shape (1, num_anchors, 4).")
    .add_arguments(ParamDocs<MultiBoxDetectionParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"cls_prob", "loc_pred", "anchor"};
                               })
    .set_attr<FInferShape>("FInferShape", MultiBoxDetectionShape)
    .set_attr<FInferType>("FInferType", MultiBoxDetectionType)
    .set_attr<FTempSpace>("FTempSpace", MultiBoxDetectionTemp)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", MultiBoxDetectionForward<cpu>);

}  // namespace ops
}  // namespace symnet
