/*! \brief batch_take (batch_take.h): shape and type rules, and the registration. */
#include "batch_take.h"

namespace symnet {
namespace ops {

namespace {

bool BatchTakeShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& a = (*in)[0];
  if (!a.ndim_known()) return false;
  SYMNET_CHECK(a.ndim() == 2) << "batch_take: the input must be 2-D (rows, columns), not "
                              << a.ToString();
  AssignInShape(in, 1, Shape{a[0]});
  AssignOutShape(out, 0, Shape{a[0]});
  return a.is_known();
}

/*! \brief The output has the data's dtype; the indices are int32, as MXNet requires. */
bool BatchTakeType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(in, 1, DType::kInt32, true);
  if ((*in)[0] == DType::kUnknown) return false;
  AssignType(out, 0, (*in)[0], false);
  return true;
}

std::vector<std::string> BatchTakeInputs(const NodeAttrs&) { return {"a", "indices"}; }

}  // namespace

SYMNET_REGISTER_OP(batch_take)
    .describe(
        "Takes one element per row: out[i] = a[i, indices[i]] for 2-D `a` and int32 indices of "
        "one per row; indices outside the row are clipped to it. Deprecated in MXNet: use pick.")
    .set_num_inputs(2)
    .add_argument("a", "NDArray-or-Symbol", "The input array, 2-D.")
    .add_argument("indices", "NDArray-or-Symbol", "The column of each row (int32).")
    .set_attr<FListInputNames>("FListInputNames", BatchTakeInputs)
    .set_attr<FInferShape>("FInferShape", BatchTakeShape)
    .set_attr<FInferType>("FInferType", BatchTakeType)
    .set_attr<FCompute>("FCompute<cpu>", BatchTakeForward<cpu>);

}  // namespace ops
}  // namespace symnet
