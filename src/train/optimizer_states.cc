/*!
 * \brief The optimizer-state file (prefix-%04d.states): one codec for the C++ Trainer and the
 *  Python Module, so either front end resumes the other's run. MXNet's .params container holds
 *  "state:<index>:<part>" arrays and a "meta" uint8 array of JSON:
 *    {"num_update": N, "index_update_count": {"<index>": n}, "layout": {"<index>": [present...,
 *     is_tuple]}, "loss_scaler": {...} or null}
 */
#include <string>

#include "src/core/json.h"
#include "src/train/loss_scaler_json.h"
#include "symnet/base.h"
#include "symnet/file_io.h"
#include "symnet/ndarray_io.h"
#include "symnet/train.h"

namespace symnet {
namespace train {

namespace {

std::string PartName(int64_t index, size_t part) {
  return "state:" + std::to_string(index) + ":" + std::to_string(part);
}

int64_t IndexKey(const std::string& key, const std::string& path) {
  size_t used = 0;
  int64_t v = -1;
  try {
    v = std::stoll(key, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  SYMNET_CHECK(used == key.size() && v >= 0)
      << "optimizer state '" << path << "': '" << key << "' is not a parameter index";
  return v;
}

const json::Value& Field(const json::Value& obj, const char* key, json::Value::Kind kind,
                         const std::string& path) {
  const json::Value* f = obj.Find(key);
  SYMNET_CHECK(f) << "optimizer state '" << path << "': the meta record has no '" << key << "'";
  SYMNET_CHECK(f->kind == kind) << "optimizer state '" << path << "': '" << key << "' is a "
                                << json::KindName(f->kind) << ", expected a "
                                << json::KindName(kind);
  return *f;
}

}  // namespace

void SaveOptimizerStates(const std::string& path, const OptimizerStates& st) {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  json::Value counts = json::Value::Object(), layout = json::Value::Object();
  for (const auto& kv : st.index_update_count)
    counts.Set(std::to_string(kv.first), json::Value::Number(static_cast<double>(kv.second)));
  for (const auto& kv : st.states) {
    json::Value present = json::Value::Array();
    for (size_t j = 0; j < kv.second.parts.size(); ++j) {
      const NDArray& a = kv.second.parts[j];
      present.array.push_back(json::Value::Bool(!a.is_none()));
      if (a.is_none()) continue;
      arrays.push_back(a);
      names.push_back(PartName(kv.first, j));
    }
    present.array.push_back(json::Value::Bool(kv.second.is_tuple));
    layout.Set(std::to_string(kv.first), std::move(present));
  }
  json::Value meta = json::Value::Object();
  meta.Set("num_update", json::Value::Number(static_cast<double>(st.num_update)));
  meta.Set("index_update_count", std::move(counts));
  meta.Set("layout", std::move(layout));
  meta.Set("loss_scaler", st.has_loss_scaler ? LossScalerToValue(st.loss_scaler) : json::Value());
  const std::string text = json::Write(meta);
  arrays.push_back(NDArray::FromBuffer(text.data(), Shape{static_cast<int64_t>(text.size())},
                                       DType::kUint8, DType::kUint8));
  names.push_back("meta");
  SaveNDArrays(path, arrays, names);
}

OptimizerStates LoadOptimizerStates(const std::string& path) {
  return ParseOptimizerStates(ReadFile(path, "optimizer state file"), path);
}

OptimizerStates ParseOptimizerStates(const std::string& bytes, const std::string& path) {
  std::vector<NDArray> arrays;
  std::vector<std::string> names;
  LoadNDArrayList(bytes, &arrays, &names, path);
  std::map<std::string, NDArray> by_name;
  std::string text;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] != "meta") {
      by_name[names[i]] = arrays[i];
      continue;
    }
    SYMNET_CHECK(arrays[i].dtype() == DType::kUint8 && arrays[i].shape().ndim() == 1)
        << "optimizer state '" << path << "': 'meta' must be a 1-D uint8 array, got "
        << DTypeName(arrays[i].dtype()) << " " << arrays[i].shape();
    text.resize(static_cast<size_t>(arrays[i].Size()));
    if (!text.empty()) arrays[i].CopyToBuffer(&text[0], DType::kUint8);
  }
  SYMNET_CHECK(!text.empty()) << "optimizer state '" << path << "' has no meta record";
  json::Value meta;
  try {
    meta = json::Parse(text);
  } catch (const Error& e) {
    SYMNET_THROW << "optimizer state '" << path
                 << "': the meta record is not valid JSON: " << e.what();
  }
  SYMNET_CHECK(meta.kind == json::Value::kObject)
      << "optimizer state '" << path << "': meta is not a JSON object";
  OptimizerStates st;
  const std::string where = "optimizer state '" + path + "': ";
  st.num_update = json::ToInt64(Field(meta, "num_update", json::Value::kNumber, path).number,
                                where + "num_update");
  for (const auto& kv : Field(meta, "index_update_count", json::Value::kObject, path).object) {
    SYMNET_CHECK(kv.second.kind == json::Value::kNumber)
        << "optimizer state '" << path << "': the update count of '" << kv.first
        << "' is not a number";
    st.index_update_count[IndexKey(kv.first, path)] =
        json::ToInt64(kv.second.number, where + "the update count of '" + kv.first + "'");
  }
  for (const auto& kv : Field(meta, "layout", json::Value::kObject, path).object) {
    const int64_t index = IndexKey(kv.first, path);
    const json::Value& present = kv.second;
    SYMNET_CHECK(present.kind == json::Value::kArray && !present.array.empty())
        << "optimizer state '" << path << "': the layout of '" << kv.first
        << "' must be a non-empty array";
    for (const auto& p : present.array)
      SYMNET_CHECK(p.kind == json::Value::kBool)
          << "optimizer state '" << path << "': the layout of '" << kv.first << "' holds a "
          << json::KindName(p.kind) << ", expected true or false";
    OptimizerStates::Entry e;
    e.is_tuple = present.array.back().boolean;
    for (size_t j = 0; j + 1 < present.array.size(); ++j) {
      if (!present.array[j].boolean) {
        e.parts.emplace_back();
        continue;
      }
      auto it = by_name.find(PartName(index, j));
      SYMNET_CHECK(it != by_name.end()) << "optimizer state '" << path << "' has no array '"
                                        << PartName(index, j) << "' although its layout lists it";
      e.parts.push_back(it->second);
    }
    st.states[index] = std::move(e);
  }
  const json::Value* ls = meta.Find("loss_scaler");
  if (ls && ls->kind != json::Value::kNull) {
    st.has_loss_scaler = true;
    try {
      LossScalerFromValue(*ls, &st.loss_scaler);
    } catch (const Error& e) {
      SYMNET_THROW << "optimizer state '" << path << "': " << e.what();
    }
  }
  return st;
}

}  // namespace train
}  // namespace symnet
