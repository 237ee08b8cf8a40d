/*!
 * \brief oneDNN LRN primitives. oneDNN 2.6 divides alpha by local_size for lrn_across_channels,
 *  as MXNet's formula does, so alpha passes through unchanged. Only implementations that are not
 *  oneDNN's reference loops are used (and recorded with NotePrimitive).
 */
#include "dnnl_lrn.h"

#include <string>
#include <unordered_map>

namespace symnet {
namespace dnnl_util {

namespace {

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;

md DataDesc(const LRNConfig& c, tag t) {
  dnnl::memory::dims d(c.shape.begin(), c.shape.end());
  return md(d, ToDnnl(c.dtype), t);
}

dnnl::lrn_forward::primitive_desc ForwardPD(const LRNConfig& c, const md& data) {
  return {dnnl::lrn_forward::desc(dnnl::prop_kind::forward_training,
                                  dnnl::algorithm::lrn_across_channels, data, c.local_size, c.alpha,
                                  c.beta, c.k),
          Engine()};
}

dnnl::memory Mem(const md& d, const void* p) {
  return dnnl::memory(d, Engine(), const_cast<void*>(p));
}

}  // namespace

bool LRNSupported(const Shape& shape, DType dtype, Layout layout, int64_t nsize) {
  return shape.ndim() == 4 && shape.Size() > 0 && layout == Layout::kDefault && nsize % 2 == 1 &&
         (dtype == DType::kFloat32 || (dtype == DType::kBFloat16 && NativeSupport(dtype)));
}

DnnlLRNForward::DnnlLRNForward(const LRNConfig& cfg, tag t)
    : cfg_(cfg), data_(DataDesc(cfg, t)), pd_(ForwardPD(cfg, data_)), usable_(!IsReference(pd_)) {
  if (usable_) prim_ = dnnl::lrn_forward(Noted("lrn forward", pd_));
}

void DnnlLRNForward::Run(const void* x, void* y, void* workspace) {
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, Mem(data_, x)},
                                             {DNNL_ARG_DST, Mem(data_, y)}};
  if (workspace_bytes() > 0) args[DNNL_ARG_WORKSPACE] = Mem(pd_.workspace_desc(), workspace);
  prim_.execute(Stream(), args);
  Stream().wait();
}

DnnlLRNBackward::DnnlLRNBackward(const LRNConfig& cfg) : cfg_(cfg) {
  const int64_t c = cfg.shape[1];
  for (const auto& [t, block] : {std::pair{tag::nchw, 1}, {tag::nChw8c, 8}, {tag::nChw16c, 16}}) {
    if (c % block != 0) continue;
    const md data = DataDesc(cfg, t);
    auto fwd_pd = ForwardPD(cfg, data);
    dnnl::lrn_backward::primitive_desc pd(
        dnnl::lrn_backward::desc(dnnl::algorithm::lrn_across_channels, data, data, cfg.local_size,
                                 cfg.alpha, cfg.beta, cfg.k),
        Engine(), fwd_pd);
    if (IsReference(pd) || IsReference(fwd_pd)) continue;
    fwd_ = std::make_unique<DnnlLRNForward>(cfg, t);
    pd_ = pd;
    prim_ = dnnl::lrn_backward(Noted("lrn backward", pd_));
    const md user = DataDesc(cfg, tag::nchw);
    x_.Init(user, data, false);
    dy_.Init(user, data, false);
    dx_.Init(user, data, true);
    y_.resize(data.get_size());
    workspace_.resize(fwd_->workspace_bytes());
    return;
  }
}

void DnnlLRNBackward::Run(const void* dy, const void* x, void* dx, OpReqType req) {
  const dnnl::memory& xm = x_.Input(x);
  fwd_->Run(xm.get_data_handle(), y_.data(), workspace_.data());
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, xm},
                                             {DNNL_ARG_DIFF_DST, dy_.Input(dy)},
                                             {DNNL_ARG_DIFF_SRC, dx_.Output(dx, req)}};
  if (!workspace_.empty()) args[DNNL_ARG_WORKSPACE] = Mem(pd_.workspace_desc(), workspace_.data());
  prim_.execute(Stream(), args);
  Stream().wait();
  dx_.Commit(dx, req);
}

}  // namespace dnnl_util
}  // namespace symnet
