/*! \brief Embedding (embedding.h): parameters, shape and type rules, and the registrations. */
#include "embedding.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(EmbeddingParam);

namespace {

void EmbeddingParser(NodeAttrs* attrs) {
  ParamParser<EmbeddingParam>(attrs);
  const EmbeddingParam& p = Param<EmbeddingParam>(*attrs);
  // symnet computes only dense gradients; a row_sparse one would be silently dense otherwise
  if (p.sparse_grad)
    throw dmlc::ParamError(
        "sparse_grad=True (a row_sparse weight gradient) is not supported; use sparse_grad=False, "
        "the weight gradient is dense");
  // clipping needs at least one row to clip to
  if (p.input_dim < 1)
    throw dmlc::ParamError("input_dim " + std::to_string(p.input_dim) + " must be at least 1");
  if (p.output_dim < 0)
    throw dmlc::ParamError("output_dim " + std::to_string(p.output_dim) + " must not be negative");
}

/*! \brief weight is (input_dim, output_dim); the output is data's shape plus output_dim. */
bool EmbeddingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const EmbeddingParam& p = Param<EmbeddingParam>(attrs);
  AssignInShape(in, 1, Shape{p.input_dim, p.output_dim});
  const Shape& o = (*out)[0];
  if (!(*in)[0].ndim_known() && o.ndim_known() && o.ndim() >= 1)
    AssignInShape(in, 0, Shape(o.begin(), o.end() - 1));
  const Shape& data = (*in)[0];
  if (!data.ndim_known()) return false;
  Shape s = data;
  s.push_back(p.output_dim);
  AssignOutShape(out, 0, s);
  return s.is_known();
}

/*! \brief As MXNet: the weight's dtype when known, else the dtype parameter; the indices' dtype
 *  is free (float32 by default, any integer type works). */
bool EmbeddingType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[1];
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) t = static_cast<DType>(Param<EmbeddingParam>(attrs).dtype);
  AssignType(in, 1, t, true);
  AssignType(out, 0, t, false);
  return true;
}

size_t EmbeddingTemp(const NodeAttrs&, const std::vector<Shape>& in, const std::vector<DType>&) {
  return IndexTempBytes(in[0]);
}

/*! \brief The backward op takes (dy, data) and returns the weight's gradient; the indices get
 *  none (MXNet gives them zeros). */
std::vector<NodeEntry> EmbeddingGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_Embedding", n, {ograds[0], n->inputs[0]}, ParamsOf(n));
  return {NoGradient(), g[0]};
}

std::vector<std::string> EmbeddingInputs(const NodeAttrs&) { return {"data", "weight"}; }

}  // namespace

SYMNET_REGISTER_OP(Embedding)
    .describe(
        "Maps integer indices to rows of a weight matrix: out[..., :] = weight[data[...], :], "
        "the output having data's shape plus output_dim. Indices outside [0, input_dim) are "
        "clipped to the first or last row (float indices truncate). The weight's gradient adds "
        "the output gradient's rows at each index (deterministically); the indices get none.")
    .set_num_inputs(2)
    .set_attr_parser(EmbeddingParser)
    .add_argument("data", "NDArray-or-Symbol", "The indices (any dtype; floats truncate).")
    .add_argument("weight", "NDArray-or-Symbol", "The embedding matrix (input_dim, output_dim).")
    .add_arguments(ParamDocs<EmbeddingParam>())
    .set_attr<FListInputNames>("FListInputNames", EmbeddingInputs)
    .set_attr<FInferShape>("FInferShape", EmbeddingShape)
    .set_attr<FInferType>("FInferType", EmbeddingType)
    .set_attr<FTempSpace>("FTempSpace", EmbeddingTemp)
    .set_attr<FGradient>("FGradient", EmbeddingGradient)
    .set_attr<FCompute>("FCompute<cpu>", EmbeddingForward<cpu>);

SYMNET_REGISTER_OP(_backward_Embedding)
    .set_num_inputs(2)
    .set_attr_parser(EmbeddingParser)
    .add_arguments(ParamDocs<EmbeddingParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace",
                          [](const NodeAttrs&, const std::vector<Shape>& in,
                             const std::vector<DType>&) { return IndexTempBytes(in[1]); })
    .set_attr<FCompute>("FCompute<cpu>", EmbeddingBackward<cpu>);

}  // namespace ops
}  // namespace symnet
