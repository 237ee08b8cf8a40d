/*!
 * \brief The Custom op (MXNet's user-defined operators): a node whose names, shape and type
 *  rules and kernels come from the CustomOpProp registered under its `op_type`
 *  (symnet/custom_op.h; the Python side is symnet.operator). The op itself only routes calls.
 */
#include <dmlc/parameter.h>

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "operators/operator_common.h"
#include "symnet/custom_op.h"

namespace symnet {

namespace {

/*! \brief The registered creators; never destroyed, because they may hold Python objects that
 *  cannot be released after the interpreter has finalised. */
struct CustomRegistry {
  std::mutex mu;
  std::map<std::string, CustomOpCreator> creators;
  static CustomRegistry& Get() {
    static CustomRegistry* r = new CustomRegistry();
    return *r;
  }
};

}  // namespace

void RegisterCustomOp(const std::string& name, CustomOpCreator creator) {
  CustomRegistry& r = CustomRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mu);
  r.creators[name] = std::move(creator);
}

std::vector<std::string> ListCustomOps() {
  CustomRegistry& r = CustomRegistry::Get();
  std::lock_guard<std::mutex> lock(r.mu);
  std::vector<std::string> names;
  for (const auto& kv : r.creators) names.push_back(kv.first);
  return names;
}

namespace ops {

namespace {

/*! \brief A Custom node's parsed state: its operator and the counts its interface gives. The
 *  backward node shares it with the forward node, so that one user operator serves both (as in
 *  MXNet, where a CustomOp may keep what forward computed for backward). */
struct CustomNodeInfo {
  std::string op_type;
  std::shared_ptr<CustomOpProp> prop;
  std::vector<std::string> arguments, outputs, aux;
};
using CustomInfoPtr = std::shared_ptr<const CustomNodeInfo>;

const CustomNodeInfo& Info(const NodeAttrs& attrs) {
  return *std::any_cast<const CustomInfoPtr&>(attrs.parsed);
}

void CustomParser(NodeAttrs* attrs) {
  auto it = attrs->dict.find("op_type");
  if (it == attrs->dict.end() || it->second.empty())
    throw dmlc::ParamError(
        "op_type is required: the name a CustomOpProp was registered under with "
        "@mx.operator.register(name)");
  CustomOpCreator creator;
  {
    CustomRegistry& r = CustomRegistry::Get();
    std::lock_guard<std::mutex> lock(r.mu);
    auto c = r.creators.find(it->second);
    if (c == r.creators.end()) {
      std::string known;
      for (const auto& kv : r.creators) known += (known.empty() ? "" : ", ") + kv.first;
      throw dmlc::ParamError("op_type '" + it->second +
                             "' is not registered; register its CustomOpProp with "
                             "@mx.operator.register('" +
                             it->second + "') before creating or loading the symbol (registered: " +
                             (known.empty() ? "none" : known) + ")");
    }
    creator = c->second;
  }
  // the user's CustomOpProp gets every parameter except op_type and "__x__" user attributes
  std::map<std::string, std::string> kwargs;
  for (const auto& kv : attrs->dict)
    if (kv.first != "op_type" && kv.first.compare(0, 2, "__") != 0) kwargs.insert(kv);
  auto info = std::make_shared<CustomNodeInfo>();
  info->op_type = it->second;
  info->prop = creator(kwargs);
  info->arguments = info->prop->ListArguments();
  info->outputs = info->prop->ListOutputs();
  info->aux = info->prop->ListAuxiliaryStates();
  if (info->outputs.empty())
    throw dmlc::ParamError("op_type '" + it->second + "': list_outputs() returned no outputs");
  attrs->parsed = CustomInfoPtr(info);
}

uint32_t NumArgs(const NodeAttrs& a) { return static_cast<uint32_t>(Info(a).arguments.size()); }
uint32_t NumOuts(const NodeAttrs& a) { return static_cast<uint32_t>(Info(a).outputs.size()); }
uint32_t NumAux(const NodeAttrs& a) { return static_cast<uint32_t>(Info(a).aux.size()); }

std::vector<std::string> CustomInputNames(const NodeAttrs& a) {
  std::vector<std::string> names = Info(a).arguments;
  names.insert(names.end(), Info(a).aux.begin(), Info(a).aux.end());
  return names;
}

std::vector<uint32_t> CustomAuxInputs(const NodeAttrs& a) {
  std::vector<uint32_t> idx;
  for (uint32_t i = 0; i < NumAux(a); ++i) idx.push_back(NumArgs(a) + i);
  return idx;
}

/*! \brief An NDArray over a kernel argument's memory, for the user's Python code. It borrows the
 *  memory: the executor owns it, as MXNet's custom ops see the executor's arrays. */
NDArray Borrow(const TBlob& b) {
  return NDArray(BorrowStorage(b.dptr_, b.Bytes(), b.dev_), 0, b.shape_, b.dtype_);
}

std::vector<NDArray> BorrowRange(const std::vector<TBlob>& blobs, size_t begin, size_t n) {
  std::vector<NDArray> out;
  for (size_t i = begin; i < begin + n; ++i) out.push_back(Borrow(blobs[i]));
  return out;
}

void CustomForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
  const CustomNodeInfo& info = Info(attrs);
  const size_t na = info.arguments.size();
  info.prop->Forward(ctx.is_train, req, BorrowRange(inputs, 0, na),
                     BorrowRange(outputs, 0, outputs.size()),
                     BorrowRange(inputs, na, info.aux.size()));
}

/*! \brief _backward_Custom's inputs: (output gradients, arguments, outputs, aux states); its
 *  outputs: the arguments' gradients. */
void CustomBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& outputs) {
  const CustomNodeInfo& info = Info(attrs);
  const size_t na = info.arguments.size(), no = info.outputs.size();
  info.prop->Backward(req, BorrowRange(inputs, 0, no), BorrowRange(inputs, no, na),
                      BorrowRange(inputs, no + na, no), BorrowRange(outputs, 0, na),
                      BorrowRange(inputs, no + na + no, info.aux.size()), ctx.loss_scale);
}

std::vector<NodeEntry> CustomGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  std::vector<NodeEntry> in = ograds;
  const uint32_t na = NumArgs(n->attrs), no = NumOuts(n->attrs);
  in.insert(in.end(), n->inputs.begin(), n->inputs.begin() + na);
  for (uint32_t i = 0; i < no; ++i) in.push_back(NodeEntry{n, i, 0});
  in.insert(in.end(), n->inputs.begin() + na, n->inputs.end());
  std::vector<NodeEntry> g = MakeGradNode("_backward_Custom", n, in, ParamsOf(n));
  // one user operator for both directions (parsing made the backward node its own)
  if (!g.empty()) g[0].node->attrs.parsed = n->attrs.parsed;
  g.resize(n->inputs.size(), NoGradient());  // auxiliary states get no gradient
  return g;
}

}  // namespace

SYMNET_REGISTER_OP(Custom)
    .describe(
        "A user-defined operator: its inputs, outputs, shape and type rules and its forward and "
        "backward come from the CustomOpProp registered under op_type with "
        "@mx.operator.register (Python). Every other parameter is passed to the CustomOpProp's "
        "constructor as a string.")
    .set_num_inputs([](const NodeAttrs& a) { return NumArgs(a) + NumAux(a); })
    .set_num_outputs(NumOuts)
    .set_attr_parser(CustomParser)
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The inputs the CustomOpProp lists (list_arguments, then "
                  "list_auxiliary_states).")
    .add_arguments({{"op_type", "string, required", "The registered name of the CustomOpProp."}})
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)
    .set_attr<FListInputNames>("FListInputNames", CustomInputNames)
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs& a) { return Info(a).outputs; })
    .set_attr<FMutateInputs>("FMutateInputs", CustomAuxInputs)
    .set_attr<FInferShape>("FInferShape",
                           [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
                             return Info(a).prop->InferShape(in, out);
                           })
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
                            return Info(a).prop->InferType(in, out);
                          })
    .set_attr<FGradient>("FGradient", CustomGradient)
    .set_attr<THostCallback>("THostCallback", true)
    .set_attr<FCompute>("FCompute<cpu>", CustomForward) SYMNET_ALSO_GPU(CustomForward);

SYMNET_REGISTER_OP(_backward_Custom)
    .set_num_inputs([](const NodeAttrs& a) { return 2 * NumOuts(a) + NumArgs(a) + NumAux(a); })
    .set_num_outputs(NumArgs)
    .set_attr_parser(CustomParser)
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<THostCallback>("THostCallback", true)
    .set_attr<FCompute>("FCompute<cpu>", CustomBackward) SYMNET_ALSO_GPU(CustomBackward);

}  // namespace ops
}  // namespace symnet
