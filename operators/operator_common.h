/*! \brief Helpers every op file uses: parameter parsing, shape/type rules, gradient nodes. */
#ifndef SYMNET_OPERATORS_OPERATOR_COMMON_H_
#define SYMNET_OPERATORS_OPERATOR_COMMON_H_

#include <dmlc/parameter.h>

#include <map>
#include <string>
#include <vector>

#include "symnet/op_attr_types.h"

/*!
 * \brief Registers a device-generic FCompute (one that checks the blobs' device itself, such as
 *  CopyCompute) as the GPU kernel too, in a CUDA build: `.set_attr<FCompute>("FCompute<cpu>", F)
 *  SYMNET_ALSO_GPU(F)`.
 */
#ifdef SYMNET_USE_CUDA
#define SYMNET_ALSO_GPU(F) .set_attr<::symnet::FCompute>("FCompute<gpu>", F)
#else
#define SYMNET_ALSO_GPU(F)
#endif

namespace symnet {
namespace ops {

/*!
 * \brief attr parser for a dmlc::Parameter struct: "__x__" user attributes are skipped.
 *  The result is a function of the dict alone, and dmlc's field-by-field string parsing costs
 *  more than the rest of an imperative call of a small op (every call makes a node, and its
 *  backward another), so each thread keeps the last few parses per struct and copies a match.
 */
template <typename P>
void ParamParser(NodeAttrs* attrs) {
  struct Parsed {
    std::map<std::string, std::string> dict;
    P param;
  };
  constexpr size_t kRecent = 8;
  thread_local std::vector<Parsed> recent;  // oldest first
  for (size_t i = recent.size(); i-- > 0;) {
    if (recent[i].dict == attrs->dict) {
      attrs->parsed = recent[i].param;
      return;
    }
  }
  P p;
  p.Init(attrs->dict, dmlc::parameter::kAllowHidden);  // throws on a bad dict: nothing kept
  if (recent.size() == kRecent) recent.erase(recent.begin());
  recent.push_back(Parsed{attrs->dict, p});
  attrs->parsed = std::move(p);
}

/*! \brief The parameter documentation of P, for Op::add_arguments. */
template <typename P>
std::vector<ArgumentInfo> ParamDocs() {
  std::vector<ArgumentInfo> out;
  for (const auto& f : P::__FIELDS__()) out.push_back({f.name, f.type_info_str, f.description});
  return out;
}

template <typename P>
const P& Param(const NodeAttrs& attrs) {
  return std::any_cast<const P&>(attrs.parsed);
}

/*! \brief Merges `s` into in/out slot i or throws InferError (the pass names node and input). */
inline void AssignShape(std::vector<Shape>* v, size_t i, const Shape& s, bool is_input) {
  if (!ShapeAssign(&(*v)[i], s))
    throw InferError{is_input, static_cast<int>(i), s.ToString(), (*v)[i].ToString()};
}
inline void AssignInShape(std::vector<Shape>* in, size_t i, const Shape& s) {
  AssignShape(in, i, s, true);
}
inline void AssignOutShape(std::vector<Shape>* out, size_t i, const Shape& s) {
  AssignShape(out, i, s, false);
}
inline void AssignType(std::vector<DType>* v, size_t i, DType t, bool is_input) {
  if (t == DType::kUnknown) return;
  DType& slot = (*v)[i];
  if (slot == DType::kUnknown) {
    slot = t;
  } else if (slot != t) {
    throw InferError{is_input, static_cast<int>(i), DTypeName(t), DTypeName(slot)};
  }
}

/*! \brief Shape rule: all inputs and outputs have one shape. */
bool ElemwiseShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out);
/*! \brief Type rule: all inputs and outputs have one dtype. */
bool ElemwiseType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out);

/*!
 * \brief FLayoutSlots of an op that works element by element (or per channel) on its
 *  activations: the listed input and output slots share one layout, whichever it is.
 */
FLayoutSlots UniformLayout(std::vector<int> inputs, std::vector<int> outputs);
/*! \brief UniformLayout over every input and output slot of the node. */
LayoutSlots AllSlotsUniform(const NodeAttrs& attrs);

/*! \brief FInplaceOption "output 0 may take input 0's buffer". */
std::vector<std::pair<int, int>> InplaceIn0Out0(const NodeAttrs&);

/*! \brief Creates a gradient node of op `op_name` named "<fwd name>_<suffix>" and returns its
 * outputs. */
std::vector<NodeEntry> MakeGradNode(const char* op_name, const NodePtr& fwd,
                                    std::vector<NodeEntry> inputs,
                                    const std::map<std::string, std::string>& dict = {},
                                    const char* suffix = "backward");
/*! \brief The op parameters of a node (its dict without "__x__" user attributes). */
std::map<std::string, std::string> ParamsOf(const NodePtr& n);
/*! \brief FGradient: backward op gets (ograds..., forward inputs...). */
FGradient ElemwiseGradUseIn(const char* backward_op);
/*! \brief FGradient: backward op gets (ograds..., forward outputs...). */
FGradient ElemwiseGradUseOut(const char* backward_op);
/*! \brief The backward op gets (ograds..., the forward inputs..., the forward outputs...). */
FGradient ElemwiseGradUseInOut(const char* backward_op);
/*! \brief FGradient: backward op gets (ograds...). */
FGradient ElemwiseGradUseNone(const char* backward_op);
/*! \brief An entry that means "no gradient flows here" for FGradient results. */
inline NodeEntry NoGradient() { return NodeEntry{}; }
/*! \brief FGradient of ops whose inputs get no gradient (constants, BlockGrad). */
inline std::vector<NodeEntry> NoInputGradients(const NodePtr& n, const std::vector<NodeEntry>&) {
  return std::vector<NodeEntry>(n->inputs.size(), NoGradient());
}

}  // namespace ops
}  // namespace symnet

/*! \brief A dtype parameter written as its name ("float16"), as MXNet does; the _NO_BOOL form
 *  for the ops whose MXNet 1.9.1 enum lacks bool (one_hot, _arange). */
#define SYMNET_DTYPE_ENUM_NO_BOOL(field)                        \
  add_enum("float32", static_cast<int>(DType::kFloat32))        \
      .add_enum("float64", static_cast<int>(DType::kFloat64))   \
      .add_enum("float16", static_cast<int>(DType::kFloat16))   \
      .add_enum("bfloat16", static_cast<int>(DType::kBFloat16)) \
      .add_enum("uint8", static_cast<int>(DType::kUint8))       \
      .add_enum("int8", static_cast<int>(DType::kInt8))         \
      .add_enum("int32", static_cast<int>(DType::kInt32))       \
      .add_enum("int64", static_cast<int>(DType::kInt64))
#define SYMNET_DTYPE_ENUM(field) \
  SYMNET_DTYPE_ENUM_NO_BOOL(field).add_enum("bool", static_cast<int>(DType::kBool))

namespace symnet {
namespace ops {
/*! \brief A tuple of floats parameter, written "(0.1, 0.2)" (e.g. per-weight learning rates). */
struct FloatTuple {
  std::vector<float> values;
  bool operator==(const FloatTuple& o) const { return values == o.values; }
};
std::ostream& operator<<(std::ostream& os, const FloatTuple& t);
std::istream& operator>>(std::istream& is, FloatTuple& t);
}  // namespace ops
}  // namespace symnet

/*! \brief Lets dmlc::Parameter hold Shape fields, written as MXNet's tuples: kernel="(3, 3)". */
namespace dmlc {
DMLC_DECLARE_TYPE_NAME(symnet::Shape, "Shape(tuple)");
DMLC_DECLARE_TYPE_NAME(symnet::ops::FloatTuple, "tuple of float");
}  // namespace dmlc

#endif  // SYMNET_OPERATORS_OPERATOR_COMMON_H_
