/*! \brief MXNet symbol JSON: writing, and reading 1.x files including older layouts. */
#include <algorithm>
#include <unordered_map>

#include "json.h"
#include "symbol_util.h"
#include "symnet/file_io.h"
#include "symnet/op_attr_types.h"
#include "symnet/symbol.h"

namespace symnet {

namespace {

/*! \brief The version symnet stamps into files: MXNet 1.9.1's, so MXNet 1.x reads them as its own.
 */
constexpr int kMXNetVersion = 10901;

json::Value EntryJSON(uint32_t nid, uint32_t index, uint32_t version) {
  json::Value e = json::Value::Array();
  e.array.push_back(json::Value::Number(nid));
  e.array.push_back(json::Value::Number(index));
  e.array.push_back(json::Value::Number(version));
  return e;
}

[[noreturn]] void BadFile(const std::string& what) {
  SYMNET_THROW << "invalid symbol JSON: " << what;
}

const json::Value& Member(const json::Value& obj, const std::string& key, json::Value::Kind kind,
                          const std::string& where) {
  const json::Value* v = obj.Find(key);
  if (!v) BadFile(where + " has no \"" + key + "\"");
  if (v->kind != kind)
    BadFile(where + ": \"" + key + "\" should be a " + json::KindName(kind) + ", not a " +
            json::KindName(v->kind));
  return *v;
}

/*!
 * \brief Reads a string->string object. Files before MXNet 0.9 stored user attributes such as
 *  ctx_group or lr_mult without the "__" wrapping that later versions (and symnet) use.
 */
void ReadAttrObject(const json::Value& v, const std::string& where,
                    std::map<std::string, std::string>* dict) {
  static const char* kLegacyUserAttrs[] = {"ctx_group", "lr_mult", "wd_mult", "force_mirroring",
                                           "mirror_stage"};
  if (v.kind != json::Value::kObject) BadFile(where + ": attributes should be an object");
  for (const auto& kv : v.object) {
    std::string value;
    if (kv.second.kind == json::Value::kString) {
      value = kv.second.str;
    } else if (kv.second.kind == json::Value::kNumber) {
      value = FormatScalar(kv.second.number);
    } else if (kv.second.kind == json::Value::kBool) {
      value = kv.second.boolean ? "True" : "False";
    } else {
      BadFile(where + ": attribute \"" + kv.first + "\" should be a string");
    }
    std::string key = kv.first;
    for (const char* legacy : kLegacyUserAttrs)
      if (key == legacy) key = DunderKey(key);
    (*dict)[key] = value;
  }
}

}  // namespace

std::string Symbol::ToJSON() const {
  std::vector<NodePtr> order;
  std::unordered_map<const Node*, uint32_t> ids;
  DFSVisit(outputs, [&](const NodePtr& n) {
    ids[n.get()] = static_cast<uint32_t>(order.size());
    order.push_back(n);
  });
  json::Value nodes = json::Value::Array(), arg_nodes = json::Value::Array(),
              row_ptr = json::Value::Array(), heads = json::Value::Array();
  uint32_t row = 0;
  std::unordered_map<const Node*, uint32_t> var_version;
  row_ptr.array.push_back(json::Value::Number(0));
  for (uint32_t i = 0; i < order.size(); ++i) {
    const Node& n = *order[i];
    json::Value jn = json::Value::Object();
    jn.Set("op", json::Value::String(n.is_variable() ? "null" : n.op()->name));
    jn.Set("name", json::Value::String(n.attrs.name));
    if (!n.attrs.dict.empty()) {
      json::Value attrs = json::Value::Object();
      for (const auto& kv : n.attrs.dict) attrs.Set(kv.first, json::Value::String(kv.second));
      jn.Set("attrs", attrs);
    }
    json::Value inputs = json::Value::Array();
    std::vector<uint32_t> mutated;
    if (!n.is_variable())
      if (auto* f = n.op()->attr<FMutateInputs>("FMutateInputs")) mutated = (*f)(n.attrs);
    for (uint32_t k = 0; k < n.inputs.size(); ++k) {
      const NodeEntry& e = n.inputs[k];
      // a variable's version counts the ops that mutated it so far (MXNet writes it; BatchNorm's
      // moving statistics read [id, 0, 1])
      uint32_t version = e.version;
      if (e.node->is_variable()) {
        uint32_t& v = var_version[e.node.get()];
        if (std::find(mutated.begin(), mutated.end(), k) != mutated.end()) ++v;
        version = v;
      }
      inputs.array.push_back(EntryJSON(ids.at(e.node.get()), e.index, version));
    }
    jn.Set("inputs", inputs);
    if (!n.control_deps.empty()) {
      json::Value deps = json::Value::Array();
      for (const auto& d : n.control_deps)
        deps.array.push_back(json::Value::Number(ids.at(d.get())));
      jn.Set("control_deps", deps);
    }
    nodes.array.push_back(jn);
    if (n.is_variable()) arg_nodes.array.push_back(json::Value::Number(i));
    row += n.num_outputs();
    row_ptr.array.push_back(json::Value::Number(row));
  }
  for (const auto& e : outputs)
    heads.array.push_back(EntryJSON(ids.at(e.node.get()), e.index,
                                    e.node->is_variable() ? var_version[e.node.get()] : e.version));
  json::Value version = json::Value::Array();
  version.array.push_back(json::Value::String("int"));
  version.array.push_back(json::Value::Number(kMXNetVersion));
  json::Value attrs = json::Value::Object();
  attrs.Set("mxnet_version", version);
  json::Value doc = json::Value::Object();
  doc.Set("nodes", nodes);
  doc.Set("arg_nodes", arg_nodes);
  doc.Set("node_row_ptr", row_ptr);
  doc.Set("heads", heads);
  doc.Set("attrs", attrs);
  return json::Write(doc);
}

Symbol Symbol::FromJSON(const std::string& text) {
  const json::Value doc = json::Parse(text);
  if (doc.kind != json::Value::kObject) BadFile("the document should be an object");
  const json::Value& jnodes = Member(doc, "nodes", json::Value::kArray, "the document");
  std::vector<NodePtr> nodes;
  nodes.reserve(jnodes.array.size());
  for (size_t i = 0; i < jnodes.array.size(); ++i) {
    const json::Value& jn = jnodes.array[i];
    const std::string where = "node " + std::to_string(i);
    if (jn.kind != json::Value::kObject) BadFile(where + " should be an object");
    const std::string op_name = Member(jn, "op", json::Value::kString, where).str;
    const std::string name = Member(jn, "name", json::Value::kString, where).str;
    const std::string here = where + " ('" + name + "')";
    std::map<std::string, std::string> dict;
    // 1.x writes "attrs"; 0.9-1.0 wrote "attr"; 0.8 split op parameters ("param") from "attr"
    for (const char* key : {"attrs", "attr", "param"})
      if (const json::Value* a = jn.Find(key)) ReadAttrObject(*a, here, &dict);
    std::vector<NodeEntry> inputs;
    if (const json::Value* jin = jn.Find("inputs")) {
      if (jin->kind != json::Value::kArray) BadFile(here + ": \"inputs\" should be an array");
      for (const auto& je : jin->array) {
        if (je.kind != json::Value::kArray || je.array.size() < 2 || je.array.size() > 3 ||
            je.array[0].kind != json::Value::kNumber || je.array[1].kind != json::Value::kNumber)
          BadFile(here + ": an input should be [node_id, output_index(, version)]");
        const double src = je.array[0].number, idx = je.array[1].number;
        if (!json::IsIndexBelow(src, static_cast<double>(i)))
          BadFile(here + ": input refers to node " + FormatScalar(src) +
                  ", which is not an earlier node");
        const NodePtr& sn = nodes[static_cast<size_t>(src)];
        if (!json::IsIndexBelow(idx, sn->num_outputs()))
          BadFile(here + ": input refers to output " + FormatScalar(idx) + " of node '" +
                  sn->attrs.name + "', which has " + std::to_string(sn->num_outputs()) +
                  " outputs");
        inputs.push_back(NodeEntry{sn, static_cast<uint32_t>(idx), 0});
      }
    }
    NodePtr n;
    if (op_name == "null") {
      if (!inputs.empty()) BadFile(here + ": a variable cannot have inputs");
      n = Node::Variable(name);
      n->attrs.dict = dict;
    } else {
      const Op* op = nullptr;
      try {
        op = Op::Get(op_name);
      } catch (const Error& e) {
        SYMNET_THROW << "cannot load " << here << ": " << e.what();
      }
      n = CreateOpNode(op, name, dict, std::move(inputs));
      const uint32_t expect = n->num_inputs();
      if (n->inputs.size() != expect)
        BadFile(here + " (operator " + op->name + ") has " + std::to_string(n->inputs.size()) +
                " inputs but the operator takes " + std::to_string(expect));
    }
    if (const json::Value* deps = jn.Find("control_deps")) {
      for (const auto& d : deps->array) {
        if (d.kind != json::Value::kNumber || !json::IsIndexBelow(d.number, static_cast<double>(i)))
          BadFile(here + ": bad control dependency");
        n->control_deps.push_back(nodes[static_cast<size_t>(d.number)]);
      }
    }
    nodes.push_back(n);
  }
  const json::Value& jheads = Member(doc, "heads", json::Value::kArray, "the document");
  Symbol s;
  for (const auto& je : jheads.array) {
    if (je.kind != json::Value::kArray || je.array.size() < 2 ||
        je.array[0].kind != json::Value::kNumber || je.array[1].kind != json::Value::kNumber)
      BadFile("a head should be [node_id, output_index(, version)]");
    const double nid = je.array[0].number, idx = je.array[1].number;
    if (!json::IsIndexBelow(nid, static_cast<double>(nodes.size())))
      BadFile("a head refers to node " + FormatScalar(nid) + " of " + std::to_string(nodes.size()));
    const NodePtr& n = nodes[static_cast<size_t>(nid)];
    if (!json::IsIndexBelow(idx, n->num_outputs()))
      BadFile("a head refers to output " + FormatScalar(idx) + " of node '" + n->attrs.name + "'");
    s.outputs.push_back(NodeEntry{n, static_cast<uint32_t>(idx), 0});
  }
  if (s.outputs.empty()) BadFile("there are no heads");
  return s;
}

void Symbol::Save(const std::string& path) const {
  WriteFileAtomically(path, ToJSON());  // never a torn -symbol.json, even when killed
}

Symbol Symbol::Load(const std::string& path) {
  const std::string text = ReadFile(path, "symbol file");
  try {
    return FromJSON(text);
  } catch (const Error& e) {
    SYMNET_THROW << path << ": " << e.what();
  }
}

}  // namespace symnet
