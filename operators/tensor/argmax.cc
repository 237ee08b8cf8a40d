/*! \brief argmax, argmin (axis or flattened, keepdims) and argmax_channel. Their outputs are
 *  indices, so they have no gradient (zero, as MXNet). */
#include "argmax.h"

#include <sstream>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ArgReduceParam);

namespace {

/*! \brief The output shape; the searched axis must exist and must not be empty (an index of
 *  nothing has no value). */
bool SearchShape(const dmlc::optional<int>& axis, bool keepdims, std::vector<Shape>* in,
                 std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  if (axis.has_value()) {
    const int a = axis.value() < 0 ? axis.value() + x.ndim() : axis.value();
    SYMNET_CHECK(a >= 0 && a < x.ndim())
        << "axis " << axis.value() << " is out of range for an input of shape " << x;
    Shape kd = x;
    kd[a] = 1;
    SYMNET_CHECK(x[a] > 0 || kd.Size() == 0) << "cannot search axis " << axis.value()
                                             << " of an input of shape " << x << ": it is empty";
    Shape o = Shape::Scalar();
    for (int i = 0; i < x.ndim(); ++i)
      if (i != a || keepdims) o.push_back(i == a ? 1 : x[i]);
    if (o.ndim() == 0) o.push_back(1);  // MXNet 1.x gives (1,) for a 1-D input
    AssignOutShape(out, 0, o);
  } else {
    SYMNET_CHECK(x.Size() > 0) << "cannot search an empty input of shape " << x;
    Shape o = Shape::Scalar();
    for (int i = 0; i < (keepdims ? x.ndim() : 1); ++i) o.push_back(1);
    AssignOutShape(out, 0, o);
  }
  return true;
}

bool ArgReduceShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const ArgReduceParam& p = Param<ArgReduceParam>(attrs);
  return SearchShape(p.axis, p.keepdims, in, out);
}

bool ArgmaxChannelShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  if ((*in)[0].is_known()) {
    SYMNET_CHECK((*in)[0].ndim() >= 2)
        << "argmax_channel needs an input of at least 2 dims (N, C, ...), not " << (*in)[0];
  }
  return SearchShape(dmlc::optional<int>(1), false, in, out);
}

}  // namespace

#define SYMNET_REGISTER_ARG_REDUCE(NAME, IS_MAX, DOC)          \
  SYMNET_REGISTER_OP(NAME)                                     \
      .describe(DOC)                                           \
      .set_attr_parser(ParamParser<ArgReduceParam>)            \
      .add_arguments(ParamDocs<ArgReduceParam>())              \
      .add_argument("data", "NDArray-or-Symbol", "The input.") \
      .set_attr<FInferShape>("FInferShape", ArgReduceShape)    \
      .set_attr<FInferType>("FInferType", ElemwiseType)        \
      .set_attr<FGradient>("FGradient", NoInputGradients)      \
      .set_attr<FCompute>("FCompute<cpu>", ArgReduceCompute<IS_MAX>)

SYMNET_REGISTER_ARG_REDUCE(argmax, true,
                           "The index of the largest value along an axis (the first on ties).");
SYMNET_REGISTER_ARG_REDUCE(argmin, false,
                           "The index of the smallest value along an axis (the first on ties).");

SYMNET_REGISTER_OP(argmax_channel)
    .describe("The index of the largest value along axis 1 (the channels).")
    .add_argument("data", "NDArray-or-Symbol", "The input, (N, C, ...).")
    .set_attr<FInferShape>("FInferShape", ArgmaxChannelShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ArgmaxChannelCompute<cpu>);

}  // namespace ops
}  // namespace symnet
