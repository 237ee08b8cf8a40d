/*! \brief DnnlOperand: reorders between user layouts and primitive layouts. */
#include "dnnl_operand.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace symnet {
namespace dnnl_util {

namespace {
std::atomic<uint64_t> g_reordered{0}, g_reused{0};
}  // namespace

WeightReorderCounts WeightReorderStats() {
  WeightReorderCounts c;
  c.reordered = g_reordered.load(std::memory_order_relaxed);
  c.reused = g_reused.load(std::memory_order_relaxed);
  return c;
}

void CountWeightReorder(bool reused) {
  (reused ? g_reused : g_reordered).fetch_add(1, std::memory_order_relaxed);
}

namespace {
std::atomic<bool>& CacheSwitch() {
  static std::atomic<bool> on{[] {
    const char* v = std::getenv("SYMNET_WEIGHT_CACHE");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }()};
  return on;
}
}  // namespace

bool WeightCacheEnabled() { return CacheSwitch().load(std::memory_order_relaxed); }

void SetWeightCacheEnabled(bool on) { CacheSwitch().store(on, std::memory_order_relaxed); }

void DnnlOperand::Init(const dnnl::memory::desc& user, const dnnl::memory::desc& prim,
                       bool is_output) {
  user_md_ = user;
  prim_md_ = prim;
  same_ = user == prim;
  const dnnl::engine& eng = Engine();
  user_mem_ = dnnl::memory(user_md_, eng, DNNL_MEMORY_NONE);
  if (!same_) {
    EnsureBuffer();
    to_prim_ = dnnl::reorder(
        Noted("reorder", dnnl::reorder::primitive_desc(eng, user_md_, eng, prim_md_)));
    to_user_ = dnnl::reorder(
        Noted("reorder", dnnl::reorder::primitive_desc(eng, prim_md_, eng, user_md_)));
  }
  if (is_output) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(po);
    add_to_user_ = dnnl::reorder(
        Noted("reorder (sum)", dnnl::reorder::primitive_desc(eng, prim_md_, eng, user_md_, attr)));
  }
}

const dnnl::memory& DnnlOperand::Input(const void* user_ptr) {
  user_mem_.set_data_handle(const_cast<void*>(user_ptr));
  if (same_) return user_mem_;
  EnsureBuffer();
  cached_stamp_ = 0;  // the owned copy is overwritten
  to_prim_.execute(Stream(), user_mem_, prim_mem_);
  return prim_mem_;
}

const dnnl::memory& DnnlOperand::CachedInput(const void* user_ptr, const ContentVersion* version) {
  if (same_) return Input(user_ptr);
  // read the stamp before the reorder: a write racing with it leaves a newer stamp behind
  const uint64_t stamp = version && WeightCacheEnabled() ? version->stamp() : 0;
  if (stamp != 0 && stamp == cached_stamp_ && user_ptr == cached_ptr_) {
    CountWeightReorder(true);
    return prim_mem_;
  }
  CountWeightReorder(false);
  const dnnl::memory& m = Input(user_ptr);
  cached_ptr_ = user_ptr;
  cached_stamp_ = stamp;
  return m;
}

void DnnlOperand::EnsureBuffer() {
  if (buf_) return;
  buf_ = AllocStorage(prim_md_.get_size(), Device::CPU());
  prim_mem_ = dnnl::memory(prim_md_, Engine(), buf_->ptr());
}

void DnnlOperand::ReleaseLargeBuffer(size_t keep) {
  if (!buf_ || buf_->bytes() <= keep) return;
  buf_.reset();
  prim_mem_ = dnnl::memory();
  cached_ptr_ = nullptr;
  cached_stamp_ = 0;
}

const dnnl::memory& DnnlOperand::Output(void* user_ptr, OpReqType req) {
  user_mem_.set_data_handle(user_ptr);
  if (same_ && req != kAddTo && req != kNullOp) return user_mem_;
  // accumulating (or discarding) goes through the owned buffer, allocated on first need
  EnsureBuffer();
  cached_stamp_ = 0;
  return prim_mem_;
}

void DnnlOperand::Commit(void* user_ptr, OpReqType req) {
  if (req == kNullOp) return;
  user_mem_.set_data_handle(user_ptr);
  if (req == kAddTo) {
    add_to_user_.execute(Stream(), prim_mem_, user_mem_);
  } else if (!same_) {
    to_user_.execute(Stream(), prim_mem_, user_mem_);
  }
}

dnnl::memory::format_tag ActivationTag(int nsp, Layout layout) {
  using tag = dnnl::memory::format_tag;
  const bool last = layout == Layout::kChannelsLast, b16 = layout == Layout::kBlocked16,
             b8 = layout == Layout::kBlocked8;
  switch (nsp) {
    case 0:
      return tag::nc;
    case 1:
      return b16 ? tag::nCw16c : b8 ? tag::nCw8c : (last ? tag::nwc : tag::ncw);
    case 2:
      return b16 ? tag::nChw16c : b8 ? tag::nChw8c : (last ? tag::nhwc : tag::nchw);
    case 3:
      return b16 ? tag::nCdhw16c : b8 ? tag::nCdhw8c : (last ? tag::ndhwc : tag::ncdhw);
    default:
      SYMNET_THROW << "oneDNN activations have 0 to 3 spatial dims, not " << nsp;
  }
}

dnnl::memory::format_tag WeightTag(int nsp, bool grouped, bool channels_last) {
  using tag = dnnl::memory::format_tag;
  // grouped weights (G, O/G, I/G, spatial...) are (O, I/G, spatial...) split on O, so the
  // channels-last order keeps G and O/G in front: gohwi
  switch (nsp) {
    case 1:
      return channels_last ? (grouped ? tag::gowi : tag::owi) : (grouped ? tag::goiw : tag::oiw);
    case 2:
      return channels_last ? (grouped ? tag::gohwi : tag::ohwi)
                           : (grouped ? tag::goihw : tag::oihw);
    case 3:
      return channels_last ? (grouped ? tag::godhwi : tag::odhwi)
                           : (grouped ? tag::goidhw : tag::oidhw);
    default:
      SYMNET_THROW << "oneDNN convolution weights have 1 to 3 spatial dims, not " << nsp;
  }
}

}  // namespace dnnl_util
}  // namespace symnet
