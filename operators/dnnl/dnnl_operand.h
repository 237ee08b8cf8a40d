/*!
 * \brief DnnlOperand: connects a user buffer in a plain layout to the memory format a oneDNN
 *  primitive chose, reordering through a buffer it owns only when the two differ.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_OPERAND_H_
#define SYMNET_OPERATORS_DNNL_DNNL_OPERAND_H_

#include "dnnl_common.h"
#include "dnnl_weight_stats.h"
#include "symnet/storage.h"
#include "symnet/tensor.h"

namespace symnet {
namespace dnnl_util {

class DnnlOperand {
 public:
  /*!
   * \param user the layout of the caller's buffer
   * \param prim the layout the primitive reads or writes
   * \param is_output outputs may also accumulate (kAddTo) through the owned buffer
   */
  void Init(const dnnl::memory::desc& user, const dnnl::memory::desc& prim, bool is_output);
  /*! \brief Memory holding the input in the primitive's format (reorders when needed). */
  const dnnl::memory& Input(const void* user_ptr);
  /*!
   * \brief Input() for contents that seldom change (weights): the reorder is skipped when the
   *  owned copy was made from the same memory at the same write version (see ContentVersion;
   *  null or stamp 0: reorders as Input()). Counted in WeightReorderStats().
   */
  const dnnl::memory& CachedInput(const void* user_ptr, const ContentVersion* version);
  /*!
   * \brief Memory the primitive writes for an output with request `req`: the user buffer when
   *  formats agree and req writes, else the owned buffer (kNullOp: written and dropped).
   */
  const dnnl::memory& Output(void* user_ptr, OpReqType req);
  /*! \brief After the primitive ran: moves the result into the user buffer (write or add). */
  void Commit(void* user_ptr, OpReqType req);
  bool reorders() const { return !same_; }
  /*!
   * \brief Frees the owned buffer when it is larger than `keep` bytes (the next call allocates
   *  it again). A primitive's state outlives its call (the imperative state cache, an executor),
   *  so without this a huge activation's staging copy would stay allocated beside it.
   */
  void ReleaseLargeBuffer(size_t keep);

 private:
  void EnsureBuffer();

  dnnl::memory::desc user_md_, prim_md_;
  bool same_ = true;
  // what the owned buffer holds for CachedInput: a copy of cached_ptr_ at write version
  // cached_stamp_ (0: nothing trustworthy)
  const void* cached_ptr_ = nullptr;
  uint64_t cached_stamp_ = 0;
  StoragePtr buf_;
  dnnl::memory user_mem_, prim_mem_;
  dnnl::reorder to_prim_, to_user_, add_to_user_;
};

/*! \brief oneDNN format tag of an activation with `nsp` spatial dims in `layout`. */
dnnl::memory::format_tag ActivationTag(int nsp, Layout layout);

/*! \brief Staging buffers larger than this are freed after each call (ReleaseLargeBuffer):
 *  far above a training step's activations, where reusing them saves an allocation per call. */
constexpr size_t kStagingKeepBytes = size_t(256) << 20;
/*!
 * \brief oneDNN format tag of plain (O, I/G, spatial...) weights with or without groups, or of
 *  channels-last ones stored (O, spatial..., I/G).
 */
dnnl::memory::format_tag WeightTag(int nsp, bool grouped, bool channels_last = false);

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_OPERAND_H_
