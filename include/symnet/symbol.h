/*! \brief Symbol: a list of graph outputs, the user-facing handle on a network definition. */
#ifndef SYMNET_SYMBOL_H_
#define SYMNET_SYMBOL_H_

#include <map>
#include <string>
#include <vector>

#include "symnet/dtype.h"
#include "symnet/node.h"
#include "symnet/shape.h"

namespace symnet {

/*! \brief Attributes of a node: ordered key -> value text. */
using AttrMap = std::map<std::string, std::string>;

/*!
 * \brief A network (or part of one) as the list of its output entries. Copying a Symbol copies
 *  the handle, not the graph (like MXNet); Copy() duplicates the graph.
 */
class Symbol {
 public:
  std::vector<NodeEntry> outputs;

  Symbol() = default;
  explicit Symbol(std::vector<NodeEntry> outs) : outputs(std::move(outs)) {}

  /*!
   * \brief A variable (network input, parameter or auxiliary state).
   * \param attrs user attributes; "shape", "dtype", "lr_mult", "wd_mult", "init" are stored
   *  in MXNet's "__shape__"-style form.
   */
  static Symbol Variable(const std::string& name, const AttrMap& attrs = {});
  /*! \brief A variable with a declared shape (0 or -1 dims are unknown, as in MXNet). */
  static Symbol Variable(const std::string& name, const Shape& shape);

  /*!
   * \brief Applies an op with MXNet's calling conventions: positional inputs fill the op's
   *  inputs in order, keyword inputs by name, missing ones become variables "<name>_<input>"
   *  (e.g. fc1_weight); an empty name becomes "<op in lower case><counter>".
   * \param params the op's parameters as text (e.g. {"kernel", "(3, 3)"}); keys of the form
   *  "__x__" are user attributes.
   */
  static Symbol Create(const std::string& op_name, const std::string& name, const AttrMap& params,
                       const std::vector<Symbol>& args,
                       const std::map<std::string, Symbol>& kwargs = {});
  /*! \brief One symbol whose outputs are the outputs of all `symbols`. */
  static Symbol Group(const std::vector<Symbol>& symbols);

  std::vector<std::string> ListArguments() const;
  std::vector<std::string> ListOutputs() const;
  std::vector<std::string> ListAuxiliaryStates() const;
  /*! \brief Arguments and auxiliary states, in graph order. */
  std::vector<std::string> ListInputs() const;
  /*! \brief Every output of every node (variables included), in topological order. */
  Symbol GetInternals() const;
  /*! \brief The inputs of this symbol's node(s); an empty symbol for a variable. */
  Symbol GetChildren() const;
  /*! \brief Output `i`. */
  Symbol operator[](size_t i) const;
  /*! \brief The output named `name` (as in ListOutputs()); throws listing names when absent. */
  Symbol operator[](const std::string& name) const;
  size_t NumOutputs() const { return outputs.size(); }
  /*! \brief The node's name (single-output symbols). */
  std::string name() const;
  /*! \brief Attribute `key` of the node (single-output symbols); empty when not set. */
  std::string Attr(const std::string& key) const;
  /*! \brief Sets user attributes on the node(s) (keys get MXNet's "__key__" form). */
  void SetAttr(const AttrMap& attrs);
  /*! \brief node name -> its attributes (parameters and user attributes), for every node. */
  std::map<std::string, AttrMap> AttrDict() const;
  /*! \brief Deep copy of the graph. */
  Symbol Copy() const;

  /*!
   * \brief Infers shapes of arguments, outputs and auxiliary states from the known ones.
   * \param known argument or auxiliary name -> shape
   * \param partial when false, throws unless every shape is found
   * \return true when every shape is known
   */
  bool InferShape(const std::map<std::string, Shape>& known, std::vector<Shape>* arg_shapes,
                  std::vector<Shape>* out_shapes, std::vector<Shape>* aux_shapes,
                  bool partial = false) const;
  /*! \brief Same as InferShape, for dtypes. */
  bool InferType(const std::map<std::string, DType>& known, std::vector<DType>* arg_types,
                 std::vector<DType>* out_types, std::vector<DType>* aux_types,
                 bool partial = false) const;

  /*! \brief MXNet's symbol JSON (nodes, arg_nodes, node_row_ptr, heads, attrs). */
  std::string ToJSON() const;
  /*! \brief Reads MXNet 1.x symbol JSON, including legacy keys; errors name node and problem. */
  static Symbol FromJSON(const std::string& json);
  void Save(const std::string& path) const;
  static Symbol Load(const std::string& path);

  /*! \brief Variable nodes of the graph, arguments and auxiliary states separately. */
  std::vector<NodePtr> ArgumentNodes() const;
  std::vector<NodePtr> AuxiliaryNodes() const;
};

/*! \brief Automatic node names: "fullyconnected0", "fullyconnected1", ... per hint. */
class NameManager {
 public:
  /*! \brief `name` if not empty, else `hint` in lower case followed by a per-hint counter. */
  static std::string Get(const std::string& name, const std::string& hint);
  /*! \brief Restarts all counters (tests, or a fresh model definition). */
  static void Reset();
};

// Arithmetic like Python's operators on symbols (elemwise_* and _*_scalar ops).
Symbol operator+(const Symbol& a, const Symbol& b);
Symbol operator-(const Symbol& a, const Symbol& b);
Symbol operator*(const Symbol& a, const Symbol& b);
Symbol operator/(const Symbol& a, const Symbol& b);
Symbol operator+(const Symbol& a, double s);
Symbol operator-(const Symbol& a, double s);
Symbol operator*(const Symbol& a, double s);
Symbol operator/(const Symbol& a, double s);
Symbol operator+(double s, const Symbol& a);
Symbol operator-(double s, const Symbol& a);
Symbol operator*(double s, const Symbol& a);
Symbol operator/(double s, const Symbol& a);
Symbol operator-(const Symbol& a);

/*! \brief A variable's "__shape__" attribute text as a Shape, MXNet's 0 (unknown) read as -1. */
Shape ParseVariableShape(const std::string& text);

}  // namespace symnet

#endif  // SYMNET_SYMBOL_H_
