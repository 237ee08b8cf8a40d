/*! \brief oneDNN layer normalization primitives (statistics and scale/shift in float32). */
#include "dnnl_layer_norm.h"

#include <cmath>
#include <unordered_map>

namespace symnet {
namespace dnnl_util {

namespace {

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;

md DataDesc(const LayerNormConfig& c) { return md({c.rows, c.c}, ToDnnl(c.dtype), tag::ab); }
md StatDesc(const LayerNormConfig& c) { return md({c.rows}, dnnl::memory::data_type::f32, tag::a); }
// the combined (2, C) scale-shift tensor, as the BatchNorm wrapper uses (oneDNN 2.6's backward
// of the separate use_scale/use_shift flags is the less exercised path)
md ScaleShiftDesc(const LayerNormConfig& c) {
  return md({2, c.c}, dnnl::memory::data_type::f32, tag::nc);
}
constexpr auto kFlags = dnnl::normalization_flags::use_scale_shift;

dnnl::layer_normalization_forward::primitive_desc ForwardPD(const LayerNormConfig& c) {
  return {dnnl::layer_normalization_forward::desc(dnnl::prop_kind::forward_training, DataDesc(c),
                                                  StatDesc(c), c.eps, kFlags),
          Engine()};
}

dnnl::memory Mem(const md& d, const void* p) {
  return dnnl::memory(d, Engine(), const_cast<void*>(p));
}

void Put(float* dst, const float* src, int64_t n, OpReqType req) {
  if (req == kNullOp) return;
  for (int64_t i = 0; i < n; ++i) dst[i] = req == kAddTo ? dst[i] + src[i] : src[i];
}

}  // namespace

bool LayerNormSupported(const Shape& shape, DType dtype, Layout layout, int axis) {
  return dtype == DType::kFloat32 && layout == Layout::kDefault && shape.ndim() >= 1 &&
         axis == shape.ndim() - 1 && shape.Size() > 0;
}

DnnlLayerNormForward::DnnlLayerNormForward(const LayerNormConfig& cfg)
    : cfg_(cfg),
      pd_(Noted("layer normalization forward", ForwardPD(cfg))),
      prim_(pd_),
      scale_shift_(2 * cfg.c) {}

void DnnlLayerNormForward::Run(const void* x, const float* gamma, const float* beta, void* y,
                               float* mean, float* std) {
  const md data = DataDesc(cfg_), stat = StatDesc(cfg_);
  std::copy(gamma, gamma + cfg_.c, scale_shift_.begin());
  std::copy(beta, beta + cfg_.c, scale_shift_.begin() + cfg_.c);
  // the variance goes into the std output and becomes sqrt(var + eps) in place
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, Mem(data, x)},
      {DNNL_ARG_DST, Mem(data, y)},
      {DNNL_ARG_SCALE_SHIFT, Mem(ScaleShiftDesc(cfg_), scale_shift_.data())},
      {DNNL_ARG_MEAN, Mem(stat, mean)},
      {DNNL_ARG_VARIANCE, Mem(stat, std)}};
  prim_.execute(Stream(), args);
  Stream().wait();
  for (int64_t i = 0; i < cfg_.rows; ++i) std[i] = std::sqrt(std[i] + cfg_.eps);
}

DnnlLayerNormBackward::DnnlLayerNormBackward(const LayerNormConfig& cfg)
    : cfg_(cfg), scale_shift_(2 * cfg.c), diff_scale_shift_(2 * cfg.c), var_(cfg.rows) {
  const md data = DataDesc(cfg);
  pd_ = dnnl::layer_normalization_backward::primitive_desc(
      dnnl::layer_normalization_backward::desc(dnnl::prop_kind::backward, data, data, StatDesc(cfg),
                                               cfg.eps, kFlags),
      Engine(), ForwardPD(cfg));
  prim_ = dnnl::layer_normalization_backward(Noted("layer normalization backward", pd_));
}

void DnnlLayerNormBackward::Run(const void* dy, const void* x, const float* gamma,
                                const float* mean, const float* std, void* dx, float* dgamma,
                                float* dbeta, OpReqType req_gamma, OpReqType req_beta) {
  const md data = DataDesc(cfg_), stat = StatDesc(cfg_), ss = ScaleShiftDesc(cfg_);
  // oneDNN takes the variance back: std^2 - eps gives 1 / sqrt(var + eps) == 1 / std again
  for (int64_t i = 0; i < cfg_.rows; ++i) var_[i] = std[i] * std[i] - cfg_.eps;
  std::copy(gamma, gamma + cfg_.c, scale_shift_.begin());
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, Mem(data, x)},
      {DNNL_ARG_DIFF_DST, Mem(data, dy)},
      {DNNL_ARG_MEAN, Mem(stat, mean)},
      {DNNL_ARG_VARIANCE, Mem(stat, var_.data())},
      {DNNL_ARG_SCALE_SHIFT, Mem(ss, scale_shift_.data())},
      {DNNL_ARG_DIFF_SRC, Mem(data, dx)},
      {DNNL_ARG_DIFF_SCALE_SHIFT, Mem(ss, diff_scale_shift_.data())}};
  prim_.execute(Stream(), args);
  Stream().wait();
  Put(dgamma, diff_scale_shift_.data(), cfg_.c, req_gamma);
  Put(dbeta, diff_scale_shift_.data() + cfg_.c, cfg_.c, req_beta);
}

}  // namespace dnnl_util
}  // namespace symnet
