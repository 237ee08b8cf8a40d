/*!
 * \brief Kernel<OP, cpu>::Launch(n, args...) calls OP::Map(i, args...) for i in [0, n):
 *  element-wise math is written once as a SYMNET_XINLINE functor; the CPU runs it in an OpenMP
 *  loop and the GPU (kernel_launch.cuh) in a grid-stride kernel.
 */
#ifndef SYMNET_SRC_DEVICE_KERNEL_LAUNCH_H_
#define SYMNET_SRC_DEVICE_KERNEL_LAUNCH_H_

#include <cstdint>

#include "symnet/base.h"
#include "symnet/dtype.h"

namespace symnet {
namespace ops {

/*! \brief Device tags. */
struct cpu {};
struct gpu {};

/*! \brief Below this many elements a loop runs on one thread (thread start-up costs more). */
constexpr int64_t kOmpMinWork = 16384;

template <typename OP, typename xpu>
struct Kernel;

template <typename OP>
struct Kernel<OP, cpu> {
  template <typename... Args>
  static void Launch(int64_t n, Args... args) {
#pragma omp parallel for schedule(static) if (n >= kOmpMinWork)
    for (int64_t i = 0; i < n; ++i) OP::Map(i, args...);
  }
  /*!
   * \brief Launch for items that each cost about `cost` elements of work (a softmax row, the
   *  gates of one RNN unit): threads start when the total work pays for them, not the count.
   */
  template <typename... Args>
  static void LaunchCost(int64_t n, int64_t cost, Args... args) {
#pragma omp parallel for schedule(static) if (n > 1 && n * cost >= kOmpMinWork)
    for (int64_t i = 0; i < n; ++i) OP::Map(i, args...);
  }
};

/*! \brief Writes `v` to `out` according to the request (kAddTo accumulates in AccType). */
template <int req, typename T, typename V>
SYMNET_XINLINE void AssignReq(T* out, V v) {
  if constexpr (req == kAddTo) {
    *out = T(static_cast<AccType<T>>(*out) + static_cast<AccType<T>>(v));
  } else if constexpr (req != kNullOp) {
    *out = T(static_cast<AccType<T>>(v));
  }
}

}  // namespace ops
}  // namespace symnet

/*! \brief Binds the compile-time constant NAME to `req` (kNullOp skips the body). */
#define SYMNET_REQ_SWITCH(req, NAME, ...)      \
  switch (req) {                               \
    case ::symnet::kNullOp:                    \
      break;                                   \
    case ::symnet::kWriteTo:                   \
    case ::symnet::kWriteInplace: {            \
      constexpr int NAME = ::symnet::kWriteTo; \
      { __VA_ARGS__ }                          \
    } break;                                   \
    case ::symnet::kAddTo: {                   \
      constexpr int NAME = ::symnet::kAddTo;   \
      { __VA_ARGS__ }                          \
    } break;                                   \
  }

#endif  // SYMNET_SRC_DEVICE_KERNEL_LAUNCH_H_
