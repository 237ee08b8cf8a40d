/*! \brief Shape text form (MXNet's tuple syntax), size and merging. */
#include "symnet/shape.h"

#include <dmlc/logging.h>

#include <cctype>
#include <istream>
#include <ostream>

namespace symnet {

int64_t Shape::at(int i) const {
  const int n = ndim_;
  const int j = i < 0 ? i + n : i;
  SYMNET_CHECK(j >= 0 && j < n) << "axis " << i << " is out of range for shape " << ToString();
  return dims_[j];
}

int64_t Shape::MulElements(int64_t a, int64_t b, const Shape& of) {
  int64_t p = 0;
  // a hostile or mistyped shape must not wrap around to a small (or zero) element count
  SYMNET_CHECK(!__builtin_mul_overflow(a, b, &p) && p <= kMaxElements)
      << "shape " << of << " has more than 2^60 elements (" << a << " x " << b
      << " overflows); no array can be that large";
  return p;
}

int64_t Shape::Size() const {
  SYMNET_CHECK(is_known()) << "the size of shape " << ToString() << " is not known";
  return ProdRange(0, ndim());
}

int64_t Shape::ProdRange(int begin, int end) const {
  bool zero = false;
  for (int i = begin; i < end; ++i) {
    if (dims_[i] < 0) return -1;  // unknown dims: no size yet (Size() refuses them earlier)
    zero = zero || dims_[i] == 0;
  }
  if (zero) return 0;  // (0, 2^40, 2^40) is a valid empty array, whatever the other dims
  int64_t s = 1;
  for (int i = begin; i < end; ++i) s = MulElements(s, dims_[i], *this);
  return s;
}

std::string Shape::ToString() const {
  if (ndim_ < 0) return "None";
  std::string s = "(";
  for (int i = 0; i < ndim_; ++i) {
    if (i) s += ", ";
    s += std::to_string(dims_[i]);  // -1 (unknown) prints as -1: shapes double as op parameters
  }
  if (ndim_ == 1) s += ",";
  return s + ")";
}

bool ParseOptionalIntTuple(const std::string& text, std::vector<std::optional<int64_t>>* out) {
  out->clear();
  size_t i = 0;
  auto skip = [&] {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  };
  skip();
  char close = 0;
  if (i < text.size() && (text[i] == '(' || text[i] == '[')) {
    close = text[i] == '(' ? ')' : ']';
    ++i;
  }
  while (true) {
    skip();
    if (i == text.size()) break;
    if (close && text[i] == close) {
      ++i;
      close = 0;
      break;
    }
    if (text.compare(i, 4, "None") == 0) {
      out->emplace_back();
      i += 4;
    } else {
      size_t used = 0;
      long long v = 0;  // NOLINT(runtime/int): stoll's type
      try {
        v = std::stoll(text.substr(i), &used);
      } catch (const std::exception&) {
        return false;
      }
      out->emplace_back(static_cast<int64_t>(v));
      i += used;
      // "3L" appears in tuples written by Python 2 era MXNet
      if (i < text.size() && (text[i] == 'L' || text[i] == 'l')) ++i;
    }
    skip();
    if (i < text.size() && text[i] == ',') ++i;
  }
  skip();
  return !close && i == text.size();
}

Shape Shape::FromString(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t\n");
  if (first != std::string::npos && text.compare(first, 4, "None") == 0 &&
      text.find_first_not_of(" \t\n", first + 4) == std::string::npos)
    return Shape();  // unknown ndim
  std::vector<std::optional<int64_t>> entries;
  if (!ParseOptionalIntTuple(text, &entries))
    SYMNET_THROW << "cannot parse '" << text
                 << "' as a shape; expected a tuple like (3, 3) or [3, 3]";
  Shape s = Shape::Scalar();
  for (const auto& e : entries) s.push_back(e ? *e : -1);  // a None dim is unknown
  return s;
}

std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

std::istream& operator>>(std::istream& is, Shape& s) {
  // dmlc::Parameter reads a field by operator>>: take the whole remaining text
  std::string text, chunk;
  while (is >> chunk) text += chunk + " ";
  try {
    s = Shape::FromString(text);
    is.clear(std::ios::eofbit);
  } catch (const Error&) {
    is.setstate(std::ios::failbit);
  }
  return is;
}

bool ShapeAssign(Shape* a, const Shape& b) {
  if (!b.ndim_known()) return true;
  if (!a->ndim_known()) {
    *a = b;
    return true;
  }
  if (a->ndim() != b.ndim()) return false;
  for (int i = 0; i < a->ndim(); ++i) {
    if (b[i] < 0) continue;
    if ((*a)[i] < 0) {
      (*a)[i] = b[i];
    } else if ((*a)[i] != b[i]) {
      return false;
    }
  }
  return true;
}

}  // namespace symnet
