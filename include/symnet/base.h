/*! \brief Errors and check macros: every failure becomes a symnet::Error with a readable message.
 */
#ifndef SYMNET_BASE_H_
#define SYMNET_BASE_H_

#include <cstdint>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace symnet {

/*!
 * \brief How an op stores a result: skip it, overwrite, overwrite a buffer that is also one of
 *  its inputs (so a copy may be skipped), or accumulate into what is there (gradient summing).
 *  Here, in the base layer, because kernels of the device layer honour it too.
 */
enum OpReqType { kNullOp = 0, kWriteTo = 1, kWriteInplace = 2, kAddTo = 3 };

/*!
 * \brief The one exception type symnet throws. A std::runtime_error, so that the public headers
 *  need no third-party header: programs built against an installed symnet see only the
 *  standard library (dmlc, oneDNN and Boost stay inside libsymnet).
 */
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg) : std::runtime_error(msg) {}
};

namespace detail {
/*! \brief Collects a message with operator<<; ErrorThrower turns it into an Error. */
class MessageStream {
 public:
  template <typename T>
  MessageStream& operator<<(const T& v) {
    os_ << v;
    return *this;
  }
  std::string str() const { return os_.str(); }

 private:
  std::ostringstream os_;
};

/*! \brief `ErrorThrower() = stream` throws; `=` binds looser than `<<`, so the message is complete.
 */
struct ErrorThrower {
  [[noreturn]] void operator=(const MessageStream& s) const { throw Error(s.str()); }
};
}  // namespace detail

/*!
 * \brief The offset of the first byte of `s` that is not well-formed UTF-8, or npos. Names and
 *  texts read from files must pass before they reach Python, whose str cannot hold other bytes.
 */
size_t FindInvalidUtf8(const std::string& s);

}  // namespace symnet

/*! \brief Throws symnet::Error with the streamed message: `SYMNET_THROW << "bad " << x;` */
#define SYMNET_THROW ::symnet::detail::ErrorThrower() = ::symnet::detail::MessageStream()

/*! \brief Throws symnet::Error with the streamed message when `cond` is false. */
#define SYMNET_CHECK(cond) \
  if (cond) {              \
  } else                   \
    SYMNET_THROW

#define SYMNET_CHECK_EQ(a, b) \
  SYMNET_CHECK((a) == (b)) << "expected " #a " == " #b ": " << (a) << " vs " << (b) << ". "
#define SYMNET_CHECK_LT(a, b) \
  SYMNET_CHECK((a) < (b)) << "expected " #a " < " #b ": " << (a) << " vs " << (b) << ". "
#define SYMNET_CHECK_LE(a, b) \
  SYMNET_CHECK((a) <= (b)) << "expected " #a " <= " #b ": " << (a) << " vs " << (b) << ". "
#define SYMNET_CHECK_GE(a, b) \
  SYMNET_CHECK((a) >= (b)) << "expected " #a " >= " #b ": " << (a) << " vs " << (b) << ". "
#define SYMNET_CHECK_GT(a, b) \
  SYMNET_CHECK((a) > (b)) << "expected " #a " > " #b ": " << (a) << " vs " << (b) << ". "

/*! \brief Marks a function usable on host and device (CUDA) alike. */
#if defined(__CUDACC__)
#define SYMNET_XINLINE __device__ __host__ __forceinline__
#else
#define SYMNET_XINLINE inline
#endif

#endif  // SYMNET_BASE_H_
