/*! \brief A small JSON document model with positioned parse errors (symbol files, configs). */
#ifndef SYMNET_SRC_CORE_JSON_H_
#define SYMNET_SRC_CORE_JSON_H_

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace symnet {
namespace json {

/*! \brief One JSON value. Objects keep their key order. */
struct Value {
  enum Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = kNull;
  bool boolean = false;
  double number = 0;
  std::string str;
  std::vector<Value> array;
  std::vector<std::pair<std::string, Value>> object;

  static Value String(std::string s) {
    Value v;
    v.kind = kString;
    v.str = std::move(s);
    return v;
  }
  static Value Number(double d) {
    Value v;
    v.kind = kNumber;
    v.number = d;
    return v;
  }
  static Value Bool(bool b) {
    Value v;
    v.kind = kBool;
    v.boolean = b;
    return v;
  }
  static Value Array() {
    Value v;
    v.kind = kArray;
    return v;
  }
  static Value Object() {
    Value v;
    v.kind = kObject;
    return v;
  }
  /*! \brief Member `key` of an object, or nullptr. */
  const Value* Find(const std::string& key) const;
  void Set(const std::string& key, Value v) { object.emplace_back(key, std::move(v)); }
};

/*! \brief Parses a document; throws symnet::Error with line and column on malformed text. */
Value Parse(const std::string& text);
/*! \brief Writes with 2-space indentation (arrays of numbers stay on one line). */
std::string Write(const Value& v);
/*! \brief Whether `d` is a whole number in [0, n): an index into n things (false for NaN). */
inline bool IsIndexBelow(double d, double n) { return d >= 0 && d < n && d == std::floor(d); }
/*!
 * \brief A number member as int64; throws naming `what` when it is not a whole number in int64's
 *  range (casting such a double is undefined behaviour, and a hostile file may hold 1e300 or NaN).
 */
int64_t ToInt64(double d, const std::string& what);
/*! \brief Short name of a kind, for error messages ("string", "array"...). */
const char* KindName(Value::Kind k);

}  // namespace json
}  // namespace symnet

#endif  // SYMNET_SRC_CORE_JSON_H_
