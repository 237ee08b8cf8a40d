/*! \brief oneDNN batch normalization primitives (statistics and scale/shift in float32). */
#include "dnnl_batch_norm.h"

#include "dnnl_operand.h"

namespace symnet {
namespace dnnl_util {

namespace {

using md = dnnl::memory::desc;
using flags = dnnl::normalization_flags;

md DataDesc(const BatchNormConfig& c) {
  dnnl::memory::dims d(c.shape.begin(), c.shape.end());
  return md(d, ToDnnl(c.dtype), ActivationTag(c.shape.ndim() - 2, c.layout));
}

md ChannelDesc(const BatchNormConfig& c) {
  return md({c.shape[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::x);
}

// oneDNN 2.6's backward fails to execute with the separate use_scale/use_shift flags, so the
// combined (2, C) scale-shift tensor is used: [gamma (ones when fixed); beta].
flags Flags(const BatchNormConfig& c) {
  flags f = flags::use_scale_shift;
  if (c.global_stats) f = f | flags::use_global_stats;
  if (c.fuse_relu) f = f | flags::fuse_norm_relu;
  return f;
}

md ScaleShiftDesc(const BatchNormConfig& c) {
  return md({2, c.shape[1]}, dnnl::memory::data_type::f32, dnnl::memory::format_tag::nc);
}

void PackScaleShift(const BatchNormConfig& c, const float* gamma, const float* beta, float* ss) {
  const int64_t n = c.shape[1];
  for (int64_t i = 0; i < n; ++i) {
    ss[i] = c.use_scale ? gamma[i] : 1.0f;
    ss[n + i] = beta[i];
  }
}

dnnl::batch_normalization_forward::primitive_desc ForwardPD(const BatchNormConfig& c) {
  return {dnnl::batch_normalization_forward::desc(dnnl::prop_kind::forward_training, DataDesc(c),
                                                  c.eps, Flags(c)),
          Engine()};
}

dnnl::memory Mem(const md& d, const void* p) {
  return dnnl::memory(d, Engine(), const_cast<void*>(p));
}

}  // namespace

bool BatchNormSupported(const Shape& shape, DType dtype, int axis) {
  return (axis == 1 || axis == 1 - shape.ndim()) && shape.ndim() >= 2 && shape.ndim() <= 5 &&
         (dtype == DType::kFloat32 || (dtype == DType::kBFloat16 && NativeSupport(dtype)));
}

DnnlBatchNormForward::DnnlBatchNormForward(const BatchNormConfig& cfg)
    : cfg_(cfg),
      pd_(Noted(cfg.fuse_relu ? "batch normalization forward (ReLU fused)"
                              : "batch normalization forward",
                ForwardPD(cfg))),
      prim_(pd_),
      scale_shift_(2 * cfg.shape[1]) {}

size_t DnnlBatchNormForward::workspace_bytes() const {
  return cfg_.fuse_relu ? pd_.workspace_desc().get_size() : 0;
}

size_t DnnlBatchNormBackward::workspace_bytes() const {
  return cfg_.fuse_relu ? pd_.workspace_desc().get_size() : 0;
}

void DnnlBatchNormForward::Run(const void* x, const float* gamma, const float* beta, float* mean,
                               float* var, void* y, void* ws) {
  const md data = DataDesc(cfg_), ch = ChannelDesc(cfg_);
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, Mem(data, x)},
      {DNNL_ARG_DST, Mem(data, y)},
      {DNNL_ARG_SCALE_SHIFT, Mem(ScaleShiftDesc(cfg_), scale_shift_.data())},
      {DNNL_ARG_MEAN, Mem(ch, mean)},
      {DNNL_ARG_VARIANCE, Mem(ch, var)}};
  if (cfg_.fuse_relu) args[DNNL_ARG_WORKSPACE] = Mem(pd_.workspace_desc(), ws);
  PackScaleShift(cfg_, gamma, beta, scale_shift_.data());
  prim_.execute(Stream(), args);
  Stream().wait();
}

DnnlBatchNormBackward::DnnlBatchNormBackward(const BatchNormConfig& cfg)
    : cfg_(cfg), scale_shift_(2 * cfg.shape[1]), diff_scale_shift_(2 * cfg.shape[1]) {
  const md data = DataDesc(cfg);
  pd_ = dnnl::batch_normalization_backward::primitive_desc(
      dnnl::batch_normalization_backward::desc(dnnl::prop_kind::backward, data, data, cfg.eps,
                                               Flags(cfg)),
      Engine(), ForwardPD(cfg));
  prim_ = dnnl::batch_normalization_backward(Noted(
      cfg.fuse_relu ? "batch normalization backward (ReLU fused)" : "batch normalization backward",
      pd_));
}

void DnnlBatchNormBackward::Run(const void* dy, const void* x, const float* gamma,
                                const float* mean, const float* var, void* dx, float* dgamma,
                                float* dbeta, OpReqType req_gamma, OpReqType req_beta,
                                const void* ws) {
  const md data = DataDesc(cfg_), ch = ChannelDesc(cfg_);
  std::unordered_map<int, dnnl::memory> args{{DNNL_ARG_SRC, Mem(data, x)},
                                             {DNNL_ARG_DIFF_DST, Mem(data, dy)},
                                             {DNNL_ARG_MEAN, Mem(ch, mean)},
                                             {DNNL_ARG_VARIANCE, Mem(ch, var)},
                                             {DNNL_ARG_DIFF_SRC, Mem(data, dx)}};
  const md ss = ScaleShiftDesc(cfg_);
  args[DNNL_ARG_SCALE_SHIFT] = Mem(ss, scale_shift_.data());
  args[DNNL_ARG_DIFF_SCALE_SHIFT] = Mem(ss, diff_scale_shift_.data());
  if (cfg_.fuse_relu) args[DNNL_ARG_WORKSPACE] = Mem(pd_.workspace_desc(), ws);
  const int64_t n = cfg_.shape[1];
  for (int64_t i = 0; i < n; ++i) scale_shift_[i] = cfg_.use_scale ? gamma[i] : 1.0f;
  prim_.execute(Stream(), args);
  Stream().wait();
  auto put = [](float* dst, const float* src, int64_t len, OpReqType req) {
    for (int64_t i = 0; i < len && req != kNullOp; ++i)
      dst[i] = req == kAddTo ? dst[i] + src[i] : src[i];
  };
  put(dgamma, diff_scale_shift_.data(), n, req_gamma);
  put(dbeta, diff_scale_shift_.data() + n, n, req_beta);
}

}  // namespace dnnl_util
}  // namespace symnet
