/*! \brief Shape: a small vector of int64 dimensions that may be unknown (ndim or a dim). */
#ifndef SYMNET_SHAPE_H_
#define SYMNET_SHAPE_H_

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "symnet/base.h"

namespace symnet {

/*!
 * \brief Tensor shape. A default-constructed Shape has unknown ndim; a dimension of -1 is unknown.
 *  Shape{} (empty braces) is also unknown; use Shape::Scalar() for a known 0-d shape.
 */
class Shape {
 public:
  /*!
   * \brief The dims: up to kInline of them in place (no allocation when a shape is copied,
   *  which happens on every op call), more in a vector. Written here rather than taken from
   *  Boost so that the public headers need nothing beyond the standard library.
   */
  class Storage {
   public:
    static constexpr size_t kInline = 6;
    Storage() = default;
    Storage(std::initializer_list<int64_t> v) : Storage(v.begin(), v.end()) {}
    template <typename It>
    Storage(It begin, It end) {
      for (; begin != end; ++begin) push_back(static_cast<int64_t>(*begin));
    }
    size_t size() const { return size_; }
    const int64_t* data() const { return size_ > kInline ? more_.data() : inline_; }
    int64_t* data() { return size_ > kInline ? more_.data() : inline_; }
    const int64_t* begin() const { return data(); }
    const int64_t* end() const { return data() + size_; }
    int64_t operator[](size_t i) const { return data()[i]; }
    int64_t& operator[](size_t i) { return data()[i]; }
    int64_t back() const { return data()[size_ - 1]; }
    void push_back(int64_t d) {
      if (size_ < kInline) {
        inline_[size_] = d;
      } else {
        if (size_ == kInline) more_.assign(inline_, inline_ + kInline);
        more_.push_back(d);
      }
      ++size_;
    }
    void assign(size_t n, int64_t d) {
      size_ = 0;
      more_.clear();
      for (size_t i = 0; i < n; ++i) push_back(d);
    }
    bool operator==(const Storage& o) const {
      return size_ == o.size_ && std::equal(begin(), end(), o.begin());
    }

   private:
    int64_t inline_[kInline] = {};
    std::vector<int64_t> more_;  // all the dims once there are more than kInline
    size_t size_ = 0;
  };

  Shape() = default;
  Shape(std::initializer_list<int64_t> dims) : dims_(dims), ndim_(static_cast<int>(dims.size())) {
    if (ndim_ == 0) ndim_ = -1;
  }
  template <typename It>
  Shape(It begin, It end) : dims_(begin, end), ndim_(static_cast<int>(dims_.size())) {}
  explicit Shape(const std::vector<int64_t>& v) : Shape(v.begin(), v.end()) {}
  /*! \brief A known shape of `ndim` unknown dims. */
  static Shape Unknown(int ndim) {
    Shape s;
    s.dims_.assign(ndim, -1);
    s.ndim_ = ndim;
    return s;
  }
  static Shape Scalar() {
    Shape s;
    s.ndim_ = 0;
    return s;
  }

  /*! \brief Number of dims; -1 when even that is unknown. */
  int ndim() const { return ndim_; }
  bool ndim_known() const { return ndim_ >= 0; }
  /*! \brief ndim known and every dim known. */
  bool is_known() const {
    if (ndim_ < 0) return false;
    for (auto d : dims_)
      if (d < 0) return false;
    return true;
  }
  int64_t operator[](int i) const { return dims_[i]; }
  int64_t& operator[](int i) { return dims_[i]; }
  /*! \brief Negative indices count from the back, like Python. */
  int64_t at(int i) const;
  const int64_t* begin() const { return dims_.data(); }
  const int64_t* end() const { return dims_.data() + dims_.size(); }
  int64_t* begin() { return dims_.data(); }
  int64_t* end() { return dims_.data() + dims_.size(); }
  int64_t back() const { return dims_.back(); }
  void push_back(int64_t d) {
    if (ndim_ < 0) ndim_ = 0;
    dims_.push_back(d);
    ++ndim_;
  }

  /*! \brief Product of dims (1 for a scalar); the shape must be known. Throws when the product
   *  exceeds kMaxElements instead of wrapping around. */
  int64_t Size() const;
  /*! \brief Product of dims [begin, end), checked like Size(). */
  int64_t ProdRange(int begin, int end) const;
  /*! \brief The most elements one array may have: byte counts (elements times a dtype size of
   *  at most 8) must fit int64 too, so 2^60. */
  static constexpr int64_t kMaxElements = int64_t{1} << 60;
  /*! \brief a * b for element counts (both >= 0); throws naming `of` (the shape being sized)
   *  when the product would exceed kMaxElements. No string is built unless it throws: Size()
   *  runs on every op call. */
  static int64_t MulElements(int64_t a, int64_t b, const Shape& of);
  std::vector<int64_t> ToVector() const { return std::vector<int64_t>(dims_.begin(), dims_.end()); }
  /*! \brief MXNet's text form: "(2, 3)", "(5,)", "()", "None" for unknown ndim; dims as numbers. */
  std::string ToString() const;
  /*! \brief Parses "(2, 3)", "[2,3]", "2", "(5,)", "()"; "None" dims become -1. Throws on junk. */
  static Shape FromString(const std::string& text);

  bool operator==(const Shape& o) const { return ndim_ == o.ndim_ && dims_ == o.dims_; }
  bool operator!=(const Shape& o) const { return !(*this == o); }

 private:
  Storage dims_;
  int ndim_ = -1;
};

std::ostream& operator<<(std::ostream& os, const Shape& s);
std::istream& operator>>(std::istream& is, Shape& s);

/*!
 * \brief Reads MXNet's tuple text, "(2, None, -1)", "[2,3]", "2", "(5,)", "()", Python 2's "3L"
 *  included, into its entries (None as nullopt). False on anything else. Shapes (None = unknown
 *  dim) and index tuples such as slice's begin/end/step (None = the dim's default) share it.
 */
bool ParseOptionalIntTuple(const std::string& text, std::vector<std::optional<int64_t>>* out);

/*!
 * \brief Merges what is known of `b` into `a`: unknown ndim/dims take b's values.
 * \return false when both know a dim (or ndim) and they differ.
 */
bool ShapeAssign(Shape* a, const Shape& b);

}  // namespace symnet

#endif  // SYMNET_SHAPE_H_
