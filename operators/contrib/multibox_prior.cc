/*!
 * \brief _contrib_MultiBoxPrior with MXNet 1.9.1's attributes and anchor order. The anchors
 *  depend only on the data's spatial shape, so the data gets a zero gradient (as in MXNet).
 */
#include "multibox_prior.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(MultiBoxPriorParam);

namespace {

void MultiBoxPriorParser(NodeAttrs* attrs) {
  ParamParser<MultiBoxPriorParam>(attrs);
  const MultiBoxPriorParam& p = Param<MultiBoxPriorParam>(*attrs);
  std::ostringstream os;
  if (p.sizes.values.empty() || p.ratios.values.empty()) {
    os << "sizes and ratios must each hold at least one value, got sizes=" << p.sizes
       << " ratios=" << p.ratios;
  } else if (p.steps.values.size() != 2 || p.offsets.values.size() != 2) {
    os << "steps and offsets must each hold 2 values (y, x), got steps=" << p.steps
       << " offsets=" << p.offsets;
  } else if (p.sizes.values.size() + p.ratios.values.size() - 1 > PriorPlan::kMaxAnchors) {
    os << "at most " << PriorPlan::kMaxAnchors << " anchors per position (sizes + ratios - 1), "
       << "got " << p.sizes.values.size() + p.ratios.values.size() - 1;
  } else {
    for (float r : p.ratios.values) {
      if (!(r > 0)) {
        os << "ratios must be positive, got ratios=" << p.ratios;
        break;
      }
    }
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
}

bool MultiBoxPriorShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 4) << "_contrib_MultiBoxPrior: input 'data' must be 4-D (batch, "
                              << "channel, y, x), got shape " << d;
  const auto& p = Param<MultiBoxPriorParam>(attrs);
  const int64_t a = static_cast<int64_t>(p.sizes.values.size() + p.ratios.values.size() - 1);
  AssignOutShape(out, 0, Shape({1, d[2] * d[3] * a, 4}));
  return true;
}

bool MultiBoxPriorType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0];
  if (t == DType::kUnknown) return false;
  SYMNET_CHECK(IsFloatType(t)) << "_contrib_MultiBoxPrior: input 'data' must be floating-point, "
                               << "got " << DTypeName(t);
  AssignType(out, 0, t, false);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_MultiBoxPrior)
    .describe(
        "SSD anchor boxes for every position of a feature map: shape (1, y * x * (sizes + ratios "
        "- 1), 4), rows (xmin, ymin, xmax, ymax) in [0, 1] units. At each position, each size "
        "with the first ratio, then the first size with each further ratio.")
    .set_num_inputs(1)
    .set_num_outputs(1)
    .set_attr_parser(MultiBoxPriorParser)
    .add_argument("data", "NDArray-or-Symbol", "The feature map (only its shape is used).")
    .add_arguments(ParamDocs<MultiBoxPriorParam>())
    .set_attr<FInferShape>("FInferShape", MultiBoxPriorShape)
    .set_attr<FInferType>("FInferType", MultiBoxPriorType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", MultiBoxPriorForward<cpu>);

}  // namespace ops
}  // namespace symnet
