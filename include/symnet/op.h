/*! \brief Operator registry: an op is a name plus an open map of typed attributes. */
#ifndef SYMNET_OP_H_
#define SYMNET_OP_H_

#include <any>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "symnet/base.h"

namespace symnet {

class Op;

/*!
 * \brief The attributes of one graph node: the op, the node's name, the attribute strings
 *  exactly as the user or the JSON file gave them, and the parsed parameter struct.
 */
struct NodeAttrs {
  const Op* op = nullptr;
  std::string name;
  /*! \brief Ordered so that JSON output is deterministic. Keys "__x__" are user attributes. */
  std::map<std::string, std::string> dict;
  /*! \brief The op's parameter struct, filled by the op's attr parser. */
  std::any parsed;
};

/*! \brief Documentation of one parameter or input, for help texts and generated Python docs. */
struct ArgumentInfo {
  std::string name;
  std::string type_info;  // e.g. "int (non-negative), required" or "NDArray-or-Symbol"
  std::string description;
};

/*! \brief A registered operator. Built with chained setters inside SYMNET_REGISTER_OP. */
class Op {
 public:
  std::string name;
  std::string description;
  /*! \brief Fixed input/output counts, used unless the function forms are set. */
  uint32_t num_inputs = 1;
  uint32_t num_outputs = 1;
  std::function<uint32_t(const NodeAttrs&)> get_num_inputs;
  std::function<uint32_t(const NodeAttrs&)> get_num_outputs;
  /*! \brief For variadic ops: the parameter giving the number of inputs ("num_args"). */
  std::string key_var_num_args;
  /*! \brief Fills NodeAttrs::parsed from NodeAttrs::dict; throws dmlc::ParamError on bad input. */
  std::function<void(NodeAttrs*)> attr_parser;
  /*! \brief Parameter documentation, from the dmlc::Parameter struct. */
  std::vector<ArgumentInfo> params;
  /*! \brief Input documentation (name, type, description). */
  std::vector<ArgumentInfo> inputs;

  Op& describe(const std::string& text) {
    description = text;
    return *this;
  }
  Op& set_num_inputs(uint32_t n) {
    num_inputs = n;
    return *this;
  }
  Op& set_num_inputs(std::function<uint32_t(const NodeAttrs&)> f) {
    get_num_inputs = std::move(f);
    return *this;
  }
  Op& set_num_outputs(uint32_t n) {
    num_outputs = n;
    return *this;
  }
  Op& set_num_outputs(std::function<uint32_t(const NodeAttrs&)> f) {
    get_num_outputs = std::move(f);
    return *this;
  }
  Op& set_key_var_num_args(const std::string& key) {
    key_var_num_args = key;
    return *this;
  }
  Op& set_attr_parser(std::function<void(NodeAttrs*)> f) {
    attr_parser = std::move(f);
    return *this;
  }
  Op& add_argument(const std::string& arg, const std::string& type, const std::string& doc) {
    inputs.push_back({arg, type, doc});
    return *this;
  }
  Op& add_arguments(const std::vector<ArgumentInfo>& docs) {
    params.insert(params.end(), docs.begin(), docs.end());
    return *this;
  }
  /*! \brief Another name by which the op can be looked up (MXNet aliases such as _Plus). */
  Op& add_alias(const std::string& alias);

  /*! \brief Sets a typed attribute; setting it again replaces it (so a .cu file can add to an op).
   */
  template <typename T>
  Op& set_attr(const std::string& key, const T& value) {
    attrs_[key] = value;
    return *this;
  }
  /*! \brief The attribute, or nullptr when the op does not have it. */
  template <typename T>
  const T* attr(const std::string& key) const {
    auto it = attrs_.find(key);
    if (it == attrs_.end()) return nullptr;
    const T* v = std::any_cast<T>(&it->second);
    SYMNET_CHECK(v != nullptr) << "attribute " << key << " of op " << name
                               << " was registered with another type";
    return v;
  }
  bool has_attr(const std::string& key) const { return attrs_.count(key) != 0; }

  uint32_t NumInputs(const NodeAttrs& a) const {
    return get_num_inputs ? get_num_inputs(a) : num_inputs;
  }
  uint32_t NumOutputs(const NodeAttrs& a) const {
    return get_num_outputs ? get_num_outputs(a) : num_outputs;
  }

  /*! \brief Looks an op up by name or alias; throws an error listing close names when unknown. */
  static const Op* Get(const std::string& name);
  /*! \brief Looks an op up by name or alias; nullptr when unknown. */
  static const Op* Find(const std::string& name);
  /*! \brief Names of all registered ops (not aliases), sorted. */
  static std::vector<std::string> ListNames();
  /*! \brief Aliases registered for op `name`. */
  static std::vector<std::string> ListAliases(const std::string& name);
  /*! \brief Registers or reopens op `name` (used by SYMNET_REGISTER_OP). */
  static Op& Register(const std::string& name);

 private:
  std::unordered_map<std::string, std::any> attrs_;
};

}  // namespace symnet

#define SYMNET_OP_CAT_(a, b) a##b
#define SYMNET_OP_CAT(a, b) SYMNET_OP_CAT_(a, b)
/*! \brief Registers (or reopens, e.g. from a .cu file) the op `Name`; chain setters after it. */
#define SYMNET_REGISTER_OP(Name)                                                              \
  static ::symnet::Op& SYMNET_OP_CAT(symnet_op_reg_##Name##_, __COUNTER__) [[maybe_unused]] = \
      ::symnet::Op::Register(#Name)

#endif  // SYMNET_OP_H_
