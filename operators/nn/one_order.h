/*!
 * \brief OneOrderT: brings a GPU convolution's operands into one memory order (cuDNN runs with
 *  every operand in the output's order in forward, the incoming gradient's in backward, NCHW
 *  for float64). Operands stored otherwise -- NCHW filters of an NHWC convolution in the GPU
 *  layout plan, the NCHW data of the first convolution of an NHWC region -- are copied into
 *  scratch memory, and gradients computed there are copied back with the caller's request.
 *
 *  Ops supplies `static void* Scratch(int dev, size_t bytes)` and `static void Copy(src,
 *  src_last, dst, dst_last, dtype, ChannelDims3, req)`: the GPU's LayoutScratch and copy kernel
 *  in convolution_cuda.cc, host memory and the same kernel on the CPU in the tests.
 */
#ifndef SYMNET_OPERATORS_NN_ONE_ORDER_H_
#define SYMNET_OPERATORS_NN_ONE_ORDER_H_

#include <vector>

#include "../tensor/channel_copy.h"

namespace symnet {
namespace ops {

template <typename Ops>
class OneOrderT {
 public:
  OneOrderT(int dev, bool channels_last) : dev_(dev), last_(channels_last) {}
  /*! \brief Operand k (in call order): reserves scratch for `b` when it is stored in the other
   * order. */
  void Plan(const TBlob& b) {
    offsets_.push_back(b.channels_last() != last_ ? total_ : kNone);
    if (b.channels_last() != last_) total_ += (b.Bytes() + 255) / 256 * 256;
  }
  /*! \brief After every Plan: where operand k lives in the common order (copied there if needed).
   */
  const void* Input(size_t k, const TBlob& b) {
    if (offsets_[k] == kNone) return b.dptr_;
    void* dst = Base() + offsets_[k];
    Ops::Copy(b.dptr_, b.channels_last(), dst, last_, b.dtype_, ChannelDimsOf(b.shape_), kWriteTo);
    return dst;
  }
  /*! \brief Where to compute output operand k. */
  void* Output(size_t k, const TBlob& b) {
    return offsets_[k] == kNone ? b.dptr_ : Base() + offsets_[k];
  }
  /*! \brief The request the library gets for output k: a scratch result is written, then committed.
   */
  OpReqType Req(size_t k, OpReqType r) const {
    return offsets_[k] == kNone || r == kNullOp ? r : kWriteTo;
  }
  /*! \brief Copies a scratch result of output k into `b` with the caller's request. */
  void Commit(size_t k, const TBlob& b, OpReqType r) {
    if (offsets_[k] == kNone || r == kNullOp) return;
    Ops::Copy(Base() + offsets_[k], last_, b.dptr_, b.channels_last(), b.dtype_,
              ChannelDimsOf(b.shape_), r);
  }

 private:
  static constexpr size_t kNone = ~size_t(0);
  char* Base() {
    if (!base_) base_ = static_cast<char*>(Ops::Scratch(dev_, total_));
    return base_;
  }
  int dev_;
  bool last_;
  size_t total_ = 0;
  std::vector<size_t> offsets_;
  char* base_ = nullptr;
};

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_ONE_ORDER_H_
