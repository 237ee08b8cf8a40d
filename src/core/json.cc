/*! \brief JSON parsing and writing. */
#include "json.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "symnet/base.h"

namespace symnet {
namespace json {

const Value* Value::Find(const std::string& key) const {
  for (const auto& kv : object)
    if (kv.first == key) return &kv.second;
  return nullptr;
}

const char* KindName(Value::Kind k) {
  switch (k) {
    case Value::kNull:
      return "null";
    case Value::kBool:
      return "bool";
    case Value::kNumber:
      return "number";
    case Value::kString:
      return "string";
    case Value::kArray:
      return "array";
    case Value::kObject:
      return "object";
  }
  return "?";
}

int64_t ToInt64(double d, const std::string& what) {
  // 2^63 is exact as a double; every double below it and >= -2^63 converts
  SYMNET_CHECK(d >= -9223372036854775808.0 && d < 9223372036854775808.0 && d == std::floor(d))
      << what << " is " << d << ", expected a whole number";
  return static_cast<int64_t>(d);
}

namespace {

class Parser {
 public:
  explicit Parser(const std::string& t) : text_(t) {}

  Value ParseDocument() {
    // JSON text is UTF-8; other bytes would reach Python as names it cannot decode
    const size_t bad = FindInvalidUtf8(text_);
    if (bad != std::string::npos) {
      pos_ = bad;
      Fail("invalid UTF-8 byte 0x" + Hex(static_cast<unsigned char>(text_[bad])));
    }
    Value v = ParseValue(0);
    SkipSpace();
    if (pos_ != text_.size()) Fail("unexpected text after the end of the document");
    return v;
  }

 private:
  static std::string Hex(unsigned v) {
    const char* digits = "0123456789abcdef";
    return std::string{digits[v >> 4], digits[v & 15]};
  }
  [[noreturn]] void Fail(const std::string& what) const {
    size_t line = 1, col = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        col = 1;
      } else {
        ++col;
      }
    }
    SYMNET_THROW << "JSON parse error at line " << line << ", column " << col << ": " << what;
  }
  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool Consume(const char* word) {
    size_t n = std::char_traits<char>::length(word);
    if (text_.compare(pos_, n, word) == 0) {
      pos_ += n;
      return true;
    }
    return false;
  }
  Value ParseValue(int depth) {
    if (depth > 256) Fail("nesting is too deep");
    SkipSpace();
    if (pos_ >= text_.size()) Fail("unexpected end of text");
    const char c = text_[pos_];
    Value v;
    if (c == '{') {
      v.kind = Value::kObject;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == '}') {
        ++pos_;
        return v;
      }
      while (true) {
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != '"') Fail("expected a string key");
        std::string key = ParseString();
        SkipSpace();
        if (pos_ >= text_.size() || text_[pos_] != ':') Fail("expected ':' after a key");
        ++pos_;
        v.object.emplace_back(std::move(key), ParseValue(depth + 1));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == '}') {
          ++pos_;
          return v;
        }
        Fail("expected ',' or '}' in an object");
      }
    }
    if (c == '[') {
      v.kind = Value::kArray;
      ++pos_;
      SkipSpace();
      if (pos_ < text_.size() && text_[pos_] == ']') {
        ++pos_;
        return v;
      }
      while (true) {
        v.array.push_back(ParseValue(depth + 1));
        SkipSpace();
        if (pos_ < text_.size() && text_[pos_] == ',') {
          ++pos_;
          continue;
        }
        if (pos_ < text_.size() && text_[pos_] == ']') {
          ++pos_;
          return v;
        }
        Fail("expected ',' or ']' in an array");
      }
    }
    if (c == '"') return Value::String(ParseString());
    if (Consume("true")) {
      v.kind = Value::kBool;
      v.boolean = true;
      return v;
    }
    if (Consume("false")) {
      v.kind = Value::kBool;
      return v;
    }
    if (Consume("null")) return v;
    if (c == '-' || (c >= '0' && c <= '9')) {
      const char* begin = text_.c_str() + pos_;
      char* end = nullptr;
      const double d = std::strtod(begin, &end);
      if (end == begin) Fail("malformed number");
      pos_ += static_cast<size_t>(end - begin);
      return Value::Number(d);
    }
    Fail(std::string("unexpected character '") + c + "'");
  }
  std::string ParseString() {
    ++pos_;  // opening quote
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) Fail("unterminated string");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) Fail("unterminated escape");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          if (pos_ + 4 > text_.size()) Fail("short \\u escape");
          const unsigned cp =
              static_cast<unsigned>(std::strtoul(text_.substr(pos_, 4).c_str(), nullptr, 16));
          pos_ += 4;
          // UTF-8 encode (surrogate pairs are not expected in symbol files)
          if (cp < 0x80) {
            out += static_cast<char>(cp);
          } else if (cp < 0x800) {
            out += static_cast<char>(0xc0 | (cp >> 6));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          } else {
            out += static_cast<char>(0xe0 | (cp >> 12));
            out += static_cast<char>(0x80 | ((cp >> 6) & 0x3f));
            out += static_cast<char>(0x80 | (cp & 0x3f));
          }
          break;
        }
        default:
          Fail(std::string("unknown escape \\") + e);
      }
    }
  }

  const std::string& text_;
  size_t pos_ = 0;
};

void WriteString(const std::string& s, std::string* out) {
  *out += '"';
  for (char c : s) {
    switch (c) {
      case '"':
        *out += "\\\"";
        break;
      case '\\':
        *out += "\\\\";
        break;
      case '\n':
        *out += "\\n";
        break;
      case '\t':
        *out += "\\t";
        break;
      case '\r':
        *out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof(buf), "\\u%04x", c);
          *out += buf;
        } else {
          *out += c;
        }
    }
  }
  *out += '"';
}

bool IsFlat(const Value& v) {
  for (const auto& x : v.array)
    if (x.kind == Value::kArray || x.kind == Value::kObject) return false;
  return true;
}

void WriteValue(const Value& v, int indent, std::string* out) {
  const std::string pad(indent * 2, ' '), pad_in((indent + 1) * 2, ' ');
  switch (v.kind) {
    case Value::kNull:
      *out += "null";
      break;
    case Value::kBool:
      *out += v.boolean ? "true" : "false";
      break;
    case Value::kNumber: {
      char buf[32];
      if (std::floor(v.number) == v.number && std::fabs(v.number) < 1e15) {
        std::snprintf(buf, sizeof(buf), "%lld", static_cast<long long>(v.number));  // NOLINT
      } else {
        std::snprintf(buf, sizeof(buf), "%.17g", v.number);
      }
      *out += buf;
      break;
    }
    case Value::kString:
      WriteString(v.str, out);
      break;
    case Value::kArray:
      if (v.array.empty()) {
        *out += "[]";
      } else if (IsFlat(v)) {
        *out += '[';
        for (size_t i = 0; i < v.array.size(); ++i) {
          if (i) *out += ", ";
          WriteValue(v.array[i], indent + 1, out);
        }
        *out += ']';
      } else {
        *out += "[\n";
        for (size_t i = 0; i < v.array.size(); ++i) {
          *out += pad_in;
          WriteValue(v.array[i], indent + 1, out);
          *out += i + 1 < v.array.size() ? ",\n" : "\n";
        }
        *out += pad + "]";
      }
      break;
    case Value::kObject:
      if (v.object.empty()) {
        *out += "{}";
        break;
      }
      *out += "{\n";
      for (size_t i = 0; i < v.object.size(); ++i) {
        *out += pad_in;
        WriteString(v.object[i].first, out);
        *out += ": ";
        WriteValue(v.object[i].second, indent + 1, out);
        *out += i + 1 < v.object.size() ? ",\n" : "\n";
      }
      *out += pad + "}";
      break;
  }
}

}  // namespace

Value Parse(const std::string& text) { return Parser(text).ParseDocument(); }

std::string Write(const Value& v) {
  std::string out;
  WriteValue(v, 0, &out);
  return out;
}

}  // namespace json
}  // namespace symnet
