/*! \brief _zeros, _ones, _full and _arange (init_ops.h): parameters, shape and type rules, and
 *  the registrations. */
#include "init_ops.h"

#include <cmath>
#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(InitParam);
DMLC_REGISTER_PARAMETER(FullParam);
DMLC_REGISTER_PARAMETER(RangeParam);

namespace {

template <typename P>
bool InitType(const NodeAttrs& attrs, std::vector<DType>*, std::vector<DType>* out) {
  AssignType(out, 0, static_cast<DType>(Param<P>(attrs).dtype), false);
  return true;
}

/*!
 * \brief MXNet's rules, checked when the node is made: step is not 0, repeat is positive, and
 *  the step goes from start toward stop. With stop None (and infer_range off) the range is
 *  [0, start): the parsed values are rewritten so; the attributes stay as given. Unlike MXNet,
 *  start == stop is an empty range rather than an error (zero-size arrays are supported).
 */
void RangeParser(NodeAttrs* attrs) {
  ParamParser<RangeParam>(attrs);
  RangeParam p = Param<RangeParam>(*attrs);
  std::ostringstream os;
  if (!std::isfinite(p.start) || !std::isfinite(p.step) ||
      (p.stop.has_value() && !std::isfinite(p.stop.value()))) {
    os << "start " << p.start << ", stop " << p.stop << " and step " << p.step << " must be finite";
  } else if (p.step == 0) {
    os << "step must not be 0";
  } else if (p.repeat <= 0) {
    os << "repeat " << p.repeat << " must be positive";
  } else {
    if (!p.stop.has_value() && !p.infer_range) {
      p.stop = p.start;
      p.start = 0;
    }
    if (p.stop.has_value() && (p.stop.value() - p.start) * p.step < 0) {
      os << "the range from start " << p.start << " to stop " << p.stop.value() << " by step "
         << p.step << " is invalid: the step goes away from stop";
    }
  }
  if (!os.str().empty()) throw dmlc::ParamError(os.str());
  attrs->parsed = p;
}

/*! \brief ceil((stop - start) / step) * repeat values, or (infer_range with stop None) a 1-D
 *  output whose length inference finds from the output's use. */
bool RangeShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const RangeParam& p = Param<RangeParam>(attrs);
  if (!p.stop.has_value()) {
    AssignOutShape(out, 0, Shape::Unknown(1));
    return (*out)[0].is_known();
  }
  const double n = std::ceil((p.stop.value() - p.start) / p.step) * p.repeat;
  SYMNET_CHECK(n < static_cast<double>(Shape::kMaxElements))
      << "_arange: start " << p.start << ", stop " << p.stop.value() << ", step " << p.step
      << " and repeat " << p.repeat << " give " << n << " values, too many";
  AssignOutShape(out, 0, Shape{static_cast<int64_t>(n)});
  return true;
}

}  // namespace

// The attribute "FInferShapeFallback" (an FInferShape) is asked, after inference has done all
// it can, to settle the output dims left unknown (src/pass/infer_attr.cc, Invoke).

// a fill op: PARAM's shape (0 dims settled by the graph, then by the fallback), ctx and dtype
#define SYMNET_REGISTER_FILL(NAME, PARAM, FILL, DOC)                          \
  SYMNET_REGISTER_OP(NAME)                                                    \
      .describe(DOC)                                                          \
      .set_num_inputs(0)                                                      \
      .set_attr_parser(ParamParser<PARAM>)                                    \
      .add_arguments(ParamDocs<PARAM>())                                      \
      .set_attr<FInferShape>("FInferShape", InitShape<PARAM>)                 \
      .set_attr<FInferShape>("FInferShapeFallback", InitShapeFallback<PARAM>) \
      .set_attr<FInferType>("FInferType", InitType<PARAM>)                    \
      .set_attr<FGradient>("FGradient", NoInputGradients)                     \
      .set_attr<FCompute>("FCompute<cpu>", FillForward<cpu, FILL>)

SYMNET_REGISTER_FILL(_zeros, InitParam, Zero,
                     "An array of zeros of the given shape and dtype (mx.sym.zeros, mx.nd.zeros).");
SYMNET_REGISTER_FILL(_ones, InitParam, One,
                     "An array of ones of the given shape and dtype (mx.sym.ones, mx.nd.ones).");
SYMNET_REGISTER_FILL(_full, FullParam, FullValue,
                     "An array of the given shape and dtype filled with `value` (mx.sym.full, "
                     "mx.nd.full).");

SYMNET_REGISTER_OP(_arange)
    .describe(
        "Evenly spaced values start, start + step, ... before stop, each repeated `repeat` times "
        "(mx.sym.arange, mx.nd.arange); computed in dtype, so an integer dtype truncates start "
        "and step first, as MXNet does.")
    .set_num_inputs(0)
    .set_attr_parser(RangeParser)
    .add_arguments(ParamDocs<RangeParam>())
    .set_attr<FInferShape>("FInferShape", RangeShape)
    .set_attr<FInferType>("FInferType", InitType<RangeParam>)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ArangeForward<cpu>);

}  // namespace ops
}  // namespace symnet
