/*! \brief The global op table: registration, aliases and lookup with "did you mean" hints. */
#include <algorithm>
#include <memory>
#include <mutex>

#include "symnet/op.h"

namespace symnet {

namespace {
struct OpTable {
  std::unordered_map<std::string, std::unique_ptr<Op>> ops;
  std::unordered_map<std::string, Op*> by_name;  // names and aliases
  std::mutex mutex;
};

OpTable& Table() {
  static OpTable* table = new OpTable();  // never destroyed: ops outlive static destructors
  return *table;
}

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(a[i - 1]) == std::tolower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}
}  // namespace

Op& Op::Register(const std::string& name) {
  OpTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  auto it = t.ops.find(name);
  if (it != t.ops.end()) return *it->second;
  auto op = std::make_unique<Op>();
  op->name = name;
  Op* raw = op.get();
  t.ops[name] = std::move(op);
  t.by_name[name] = raw;
  return *raw;
}

Op& Op::add_alias(const std::string& alias) {
  OpTable& t = Table();
  std::lock_guard<std::mutex> lock(t.mutex);
  t.by_name[alias] = this;
  return *this;
}

const Op* Op::Find(const std::string& name) {
  OpTable& t = Table();
  auto it = t.by_name.find(name);
  return it == t.by_name.end() ? nullptr : it->second;
}

const Op* Op::Get(const std::string& name) {
  if (const Op* op = Find(name)) return op;
  std::vector<std::pair<size_t, std::string>> close;
  for (const auto& kv : Table().by_name) {
    const size_t d = EditDistance(name, kv.first);
    if (d <= std::max<size_t>(2, name.size() / 3)) close.emplace_back(d, kv.first);
  }
  std::sort(close.begin(), close.end());
  detail::MessageStream msg;
  msg << "unknown operator '" << name << "'";
  if (!close.empty()) {
    msg << "; did you mean ";
    for (size_t i = 0; i < close.size() && i < 5; ++i) msg << (i ? ", " : "") << close[i].second;
    msg << "?";
  }
  detail::ErrorThrower() = msg;
}

std::vector<std::string> Op::ListNames() {
  std::vector<std::string> names;
  for (const auto& kv : Table().ops) names.push_back(kv.first);
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Op::ListAliases(const std::string& name) {
  std::vector<std::string> aliases;
  for (const auto& kv : Table().by_name)
    if (kv.first != name && kv.second->name == name) aliases.push_back(kv.first);
  std::sort(aliases.begin(), aliases.end());
  return aliases;
}

}  // namespace symnet
