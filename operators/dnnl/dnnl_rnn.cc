/*!
 * \brief oneDNN RNN primitives for the fused RNN op. One primitive per layer keeps every layer's
 *  input size legal for oneDNN (a stacked primitive needs equal input and state sizes) and lets
 *  the layer outputs live in the op's reserve, where the next layer and the backward read them.
 *
 *  Gate orders: oneDNN's LSTM (i, f, c~, o) is MXNet's (i, f, g, o); oneDNN's GRU is (u, r, o)
 *  against MXNet's (r, z, n) with u = z, so the first two gate blocks swap. The linear-before-
 *  reset GRU takes a fourth bias, the recurrent candidate bias b_hn that MXNet keeps inside
 *  r * (W_hn h + b_hn); the other gates take b_x + b_h, whose gradients are therefore equal.
 *
 *  bfloat16: layer inputs and outputs, hidden states and weights are bfloat16, the biases and the
 *  LSTM cell states float32 (oneDNN's bfloat16 configuration; a float32 cell state keeps the
 *  long-range memory from being rounded at every step), every gradient float32 (oneDNN's
 *  backward takes float32 diff tensors), converted at the op's boundary.
 *
 *  Dropout (training, p > 0, more than one layer): layer l's output y_l is multiplied by a mask
 *  (1/(1-p) kept, 0 dropped) into a buffer that layer l+1 reads; the backward multiplies layer
 *  l+1's input gradient by the same mask. The mask is drawn as the op's GEMM path draws it (one
 *  random stream per layer boundary, bottom up, element i from UniformAt), so both paths drop the
 *  same units under one seed.
 *
 *  Reserve layout, per layer, each part 64-byte aligned: the forward's workspace, the layer's
 *  output (T, N, D*H), its final hidden states (D, N, H) and cell states (D, N, H, float32),
 *  then, with dropout and for every layer but the last, the mask (T, N, D*H, float32) and the
 *  dropped-out output (T, N, D*H).
 */
#include "dnnl_rnn.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

#include "symnet/random.h"

namespace symnet {
namespace dnnl_util {

namespace {

using md = dnnl::memory::desc;
using tag = dnnl::memory::format_tag;
using dt = dnnl::memory::data_type;

size_t Align(size_t b) { return (b + 63) / 64 * 64; }

/*! \brief oneDNN gate index -> MXNet gate index. */
int64_t MxGate(RnnCell cell, int64_t g) {
  if (cell == RnnCell::kGru && g < 2) return 1 - g;
  return g;
}

int64_t BiasGates(const RnnConfig& c) { return c.Gates() + (c.cell == RnnCell::kGru ? 1 : 0); }

bool Bf16(const RnnConfig& c) { return c.dtype == DType::kBFloat16; }
size_t ElemBytes(const RnnConfig& c) { return Bf16(c) ? 2 : 4; }

/*! \brief Forward tensors in the call's dtype (cell states float32), and the float32 diff_*
 *  tensors of the backward. */
struct Descs {
  md src_layer, iter, iter_c, wl, wi, bias, dst_layer;
  md diff_src_layer, diff_iter, diff_wl, diff_wi, diff_dst_layer;
};

/*! \brief Weights in `any` format for training and for bfloat16 (`plain`: ldigo); float32
 *  inference gets plain ldigo, since oneDNN 2.6 would pick its packed format there, which it
 *  cannot reorder into from MXNet's ldgoi (bfloat16 inference mostly picks a blocked format it
 *  can reorder into; in ldigo it would run its reference kernel). */
Descs MakeDescs(const RnnConfig& c, int64_t l, bool training = true, bool plain = false) {
  const int64_t I = c.In(l), G = c.Gates(), D = c.D, H = c.H;
  const dt t = Bf16(c) ? dt::bf16 : dt::f32;
  const tag wtag = plain || !(training || Bf16(c)) ? tag::ldigo : tag::any;
  Descs d;
  d.src_layer = md({c.T, c.N, I}, t, tag::tnc);
  d.iter = md({1, D, c.N, H}, t, tag::ldnc);
  d.iter_c = md({1, D, c.N, H}, dt::f32, tag::ldnc);
  d.wl = md({1, D, I, G, H}, t, wtag);
  d.wi = md({1, D, H, G, H}, t, wtag);
  d.bias = md({1, D, BiasGates(c), H}, dt::f32, tag::ldgo);
  d.dst_layer = md({c.T, c.N, D * H}, t, tag::tnc);
  d.diff_src_layer = md({c.T, c.N, I}, dt::f32, tag::tnc);
  d.diff_iter = d.iter_c;
  d.diff_wl = md({1, D, I, G, H}, dt::f32, tag::any);
  d.diff_wi = md({1, D, H, G, H}, dt::f32, tag::any);
  d.diff_dst_layer = md({c.T, c.N, D * H}, dt::f32, tag::tnc);
  return d;
}

struct Pds {
  dnnl::rnn_primitive_desc_base fwd, bwd;
};

/*! \brief The forward primitive descriptor of layer l and, with `backward`, the backward's. */
Pds MakePds(const RnnConfig& c, int64_t l, bool training, bool backward, bool plain = false) {
  const Descs d = MakeDescs(c, l, training, plain);
  const auto prop =
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const auto dir = c.D == 2 ? dnnl::rnn_direction::bidirectional_concat
                            : dnnl::rnn_direction::unidirectional_left2right;
  const auto bprop = dnnl::prop_kind::backward;
  Pds p;
  switch (c.cell) {
    case RnnCell::kLstm: {
      dnnl::lstm_forward::primitive_desc f({prop, dir, d.src_layer, d.iter, d.iter_c, d.wl, d.wi,
                                            d.bias, d.dst_layer, d.iter, d.iter_c},
                                           Engine());
      p.fwd = f;
      if (backward)
        p.bwd = dnnl::lstm_backward::primitive_desc(
            {bprop,       dir,         d.src_layer, d.iter,    d.iter_c, d.wl,
             d.wi,        d.bias,      d.dst_layer, d.iter,    d.iter_c, d.diff_src_layer,
             d.diff_iter, d.diff_iter, d.diff_wl,   d.diff_wi, d.bias,   d.diff_dst_layer,
             d.diff_iter, d.diff_iter},
            Engine(), f);
      break;
    }
    case RnnCell::kGru: {
      dnnl::lbr_gru_forward::primitive_desc f(
          {prop, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter}, Engine());
      p.fwd = f;
      if (backward)
        p.bwd = dnnl::lbr_gru_backward::primitive_desc(
            {bprop, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter,
             d.diff_src_layer, d.diff_iter, d.diff_wl, d.diff_wi, d.bias, d.diff_dst_layer,
             d.diff_iter},
            Engine(), f);
      break;
    }
    default: {
      const auto act =
          c.cell == RnnCell::kRelu ? dnnl::algorithm::eltwise_relu : dnnl::algorithm::eltwise_tanh;
      dnnl::vanilla_rnn_forward::primitive_desc f(
          {prop, act, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter}, Engine());
      p.fwd = f;
      if (backward)
        p.bwd = dnnl::vanilla_rnn_backward::primitive_desc(
            {bprop, act, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter,
             d.diff_src_layer, d.diff_iter, d.diff_wl, d.diff_wi, d.bias, d.diff_dst_layer,
             d.diff_iter},
            Engine(), f);
      break;
    }
  }
  return p;
}

/*! \brief Workspace bytes of every layer's training forward; throws where oneDNN cannot. */
std::vector<size_t> LayerWorkspaces(const RnnConfig& c) {
  std::vector<size_t> ws;
  for (int64_t l = 0; l < c.L; ++l) {
    const Pds p = MakePds(c, l, true, Bf16(c));
    ws.push_back(p.fwd.workspace_desc().get_size());
    if (Bf16(c)) {
      // the weights must reorder from MXNet's layout into the formats oneDNN picked (it cannot
      // into some of its bfloat16 ones): a throw here sends the call to the GEMM path
      const int64_t I = c.In(l), G = c.Gates();
      const md wl({1, c.D, I, G, c.H}, dt::f32, tag::ldgoi),
          wi({1, c.D, c.H, G, c.H}, dt::f32, tag::ldgoi);
      for (const auto* pd : {&p.fwd, &p.bwd}) {
        dnnl::reorder::primitive_desc(Engine(), wl, Engine(), pd->weights_layer_desc());
        dnnl::reorder::primitive_desc(Engine(), wi, Engine(), pd->weights_iter_desc());
      }
    }
  }
  return ws;
}

/*! \brief Workspace bytes of every layer's training forward, cached per geometry; empty where
 *  oneDNN cannot run it (cached too: the op asks on every call). */
std::vector<size_t> WorkspaceBytes(const RnnConfig& c) {
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, int>;
  static std::mutex mu;
  static std::map<Key, std::vector<size_t>> cache;
  const Key key{static_cast<int>(c.cell), c.L, c.D, c.T, c.N, c.C, c.H, static_cast<int>(c.dtype)};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<size_t> ws;
  try {
    ws = LayerWorkspaces(c);
  } catch (const dnnl::error&) {
    ws.clear();
  }
  cache[key] = ws;
  return ws;
}

/*! \brief Byte offsets of one layer's parts in the reserve. */
struct Slots {
  size_t ws, y, hy, cy, mask, drop, end;
};

std::vector<Slots> ReserveSlots(const RnnConfig& c) {
  const std::vector<size_t> ws = WorkspaceBytes(c);
  SYMNET_CHECK(ws.size() == static_cast<size_t>(c.L)) << "oneDNN cannot run this RNN";
  const size_t e = ElemBytes(c), f = sizeof(float), n = c.D * c.N * c.H, seq = c.T * n;
  std::vector<Slots> s;
  size_t at = 0;
  for (int64_t l = 0; l < c.L; ++l) {
    Slots x;
    x.ws = at;
    x.y = x.ws + Align(ws[l]);
    x.hy = x.y + Align(seq * e);
    x.cy = x.hy + Align(n * e);
    x.mask = x.drop = x.end = x.cy + Align(n * f);
    if (c.Dropout() && l + 1 < c.L) {
      x.drop = x.mask + Align(seq * f);
      x.end = x.drop + Align(seq * e);
    }
    at = x.end;
    s.push_back(x);
  }
  return s;
}

/*! \brief dst (dtype t) = or += n float32 values, as req says. */
void StoreReq(const float* src, void* dst, DType t, int64_t n, OpReqType req) {
  if (req == kNullOp || n == 0) return;
  if (t == DType::kBFloat16) {
    auto* d = static_cast<bf16_t*>(dst);
    if (req == kAddTo) {
      for (int64_t i = 0; i < n; ++i) d[i] = bf16_t(static_cast<float>(d[i]) + src[i]);
    } else {
      ConvertElements(src, DType::kFloat32, dst, t, n);
    }
    return;
  }
  float* d = static_cast<float*>(dst);
  if (req == kAddTo) {
    for (int64_t i = 0; i < n; ++i) d[i] += src[i];
  } else if (src != d) {
    std::memcpy(d, src, n * sizeof(float));
  }
}

/*! \brief dst = or += src, both of dtype t. */
void CopyReq(const void* src, void* dst, DType t, int64_t n, OpReqType req) {
  if (req == kNullOp || n == 0) return;
  if (t == DType::kBFloat16 && req == kAddTo) {
    const auto* s = static_cast<const bf16_t*>(src);
    auto* d = static_cast<bf16_t*>(dst);
    for (int64_t i = 0; i < n; ++i)
      d[i] = bf16_t(static_cast<float>(d[i]) + static_cast<float>(s[i]));
  } else if (t == DType::kBFloat16) {
    if (src != dst) std::memcpy(dst, src, n * 2);
  } else {
    StoreReq(static_cast<const float*>(src), dst, t, n, req);
  }
}

/*! \brief n values of dtype t as float32: p itself for float32, else converted into buf. */
const float* AsF32(const void* p, DType t, int64_t n, std::vector<float>* buf) {
  if (t == DType::kFloat32) return static_cast<const float*>(p);
  buf->resize(n);
  ConvertElements(p, t, buf->data(), DType::kFloat32, n);
  return buf->data();
}

dnnl::memory Mem(const md& d, const void* p) {
  return dnnl::memory(d, Engine(), const_cast<void*>(p));
}

char* At(void* base, size_t off) { return static_cast<char*>(base) + off; }
const char* At(const void* base, size_t off) { return static_cast<const char*>(base) + off; }

}  // namespace

bool RnnSupported(const RnnConfig& cfg) {
  if (cfg.T <= 0 || cfg.N <= 0 || cfg.L <= 0 || cfg.H <= 0 || cfg.C <= 0) return false;
  // bfloat16 only where oneDNN has native kernels (elsewhere it would emulate them slowly; the
  // op's GEMM path then runs); either dtype only where oneDNN creates the primitives
  if (cfg.dtype == DType::kBFloat16 && !NativeSupport(cfg.dtype)) return false;
  if (cfg.dtype != DType::kFloat32 && cfg.dtype != DType::kBFloat16) return false;
  return !WorkspaceBytes(cfg).empty();
}

size_t RnnReserveBytes(const RnnConfig& cfg) {
  if (!RnnSupported(cfg)) return 0;
  return ReserveSlots(cfg).back().end;
}

struct DnnlRnn::Layer {
  int64_t I = 0;
  Descs d;
  md wl_user, wi_user;
  Pds pds;
  dnnl::primitive fwd, bwd;
  DnnlOperand wl_f, wi_f, wl_b, wi_b, dwl, dwi;
  std::vector<float> wl, wi, bias, dwl_user, dwi_user, dbias;
  Slots slot{};
};

DnnlRnn::DnnlRnn(const RnnConfig& cfg, bool training, bool backward)
    : cfg_(cfg), training_(training || backward) {
  const std::vector<Slots> slots = ReserveSlots(cfg);
  const int64_t G = cfg.Gates(), D = cfg.D, H = cfg.H;
  for (int64_t l = 0; l < cfg.L; ++l) {
    auto ly = std::make_unique<Layer>();
    ly->I = cfg.In(l);
    ly->d = MakeDescs(cfg, l);
    ly->slot = slots[l];
    // MXNet's W (G*H, I) per direction is oneDNN's ldgoi once the gate blocks are in its order;
    // packed in float32, the reorder into the primitive's format also rounds to bfloat16
    ly->wl_user = md({1, D, ly->I, G, H}, dt::f32, tag::ldgoi);
    ly->wi_user = md({1, D, H, G, H}, dt::f32, tag::ldgoi);
    ly->pds = MakePds(cfg, l, training_, backward);
    try {
      ly->wl_f.Init(ly->wl_user, ly->pds.fwd.weights_layer_desc(), false);
      ly->wi_f.Init(ly->wi_user, ly->pds.fwd.weights_iter_desc(), false);
    } catch (const dnnl::error&) {
      // bfloat16 inference in a format MXNet's layout does not reorder into (training checked
      // its formats in RnnSupported): plain weights, which need no workspace either way
      if (training_) throw;
      ly->pds = MakePds(cfg, l, false, false, true);
      ly->wl_f.Init(ly->wl_user, ly->pds.fwd.weights_layer_desc(), false);
      ly->wi_f.Init(ly->wi_user, ly->pds.fwd.weights_iter_desc(), false);
    }
    ly->fwd =
        dnnl::primitive(Noted(training_ ? "rnn forward training" : "rnn forward", ly->pds.fwd));
    ly->wl.resize(D * G * H * ly->I);
    ly->wi.resize(D * G * H * H);
    ly->bias.resize(D * BiasGates(cfg) * H);
    if (backward) {
      ly->bwd = dnnl::primitive(Noted("rnn backward", ly->pds.bwd));
      ly->wl_b.Init(ly->wl_user, ly->pds.bwd.weights_layer_desc(), false);
      ly->wi_b.Init(ly->wi_user, ly->pds.bwd.weights_iter_desc(), false);
      ly->dwl.Init(ly->wl_user, ly->pds.bwd.diff_weights_layer_desc(), true);
      ly->dwi.Init(ly->wi_user, ly->pds.bwd.diff_weights_iter_desc(), true);
      ly->dwl_user.resize(ly->wl.size());
      ly->dwi_user.resize(ly->wi.size());
      ly->dbias.resize(ly->bias.size());
    }
    layers_.push_back(std::move(ly));
  }
  c_in_.resize(D * cfg.N * H);
  if (backward) {
    const size_t seq = cfg.T * cfg.N * D * H;
    dbuf_[0].resize(seq);
    dbuf_[1].resize(seq);
    dx_buf_.resize(cfg.T * cfg.N * cfg.C);
    state_buf_.resize(D * cfg.N * H);
    state_c_buf_.resize(D * cfg.N * H);
  }
}

DnnlRnn::~DnnlRnn() = default;

const float* DnnlRnn::ParamsF32(const void* w) {
  if (cfg_.dtype == DType::kFloat32) return static_cast<const float*>(w);
  const int64_t n = cfg_.bh.back() + cfg_.Gates() * cfg_.H;  // the last bias block ends them
  return AsF32(w, cfg_.dtype, n, &w32_);
}

void DnnlRnn::PackWeights(Layer& ly, int64_t l, const float* w) {
  const int64_t G = cfg_.Gates(), H = cfg_.H, I = ly.I, Gb = BiasGates(cfg_);
  const bool gru = cfg_.cell == RnnCell::kGru;
  for (int64_t d = 0; d < cfg_.D; ++d) {
    const int64_t k = l * cfg_.D + d;
    const float* bx = w + cfg_.bx[k];
    const float* bh = w + cfg_.bh[k];
    float* b = ly.bias.data() + d * Gb * H;
    for (int64_t g = 0; g < G; ++g) {
      const int64_t m = MxGate(cfg_.cell, g);
      std::memcpy(ly.wl.data() + (d * G + g) * H * I, w + cfg_.wx[k] + m * H * I,
                  H * I * sizeof(float));
      std::memcpy(ly.wi.data() + (d * G + g) * H * H, w + cfg_.wh[k] + m * H * H,
                  H * H * sizeof(float));
      // the GRU candidate's recurrent bias goes to the extra fourth gate, not into the sum
      const bool split = gru && g == 2;
      for (int64_t j = 0; j < H; ++j) b[g * H + j] = bx[m * H + j] + (split ? 0.f : bh[m * H + j]);
    }
    if (gru) std::memcpy(b + 3 * H, bh + 2 * H, H * sizeof(float));
  }
}

void DnnlRnn::Forward(const void* x, const void* w, const void* h0, const void* c0, void* reserve,
                      void* y, OpReqType y_req, void* hy, OpReqType hy_req, void* cy,
                      OpReqType cy_req) {
  const bool lstm = cfg_.cell == RnnCell::kLstm;
  const bool drop = training_ && cfg_.Dropout();
  const DType t = cfg_.dtype;
  const size_t e = ElemBytes(cfg_);
  const int64_t states = cfg_.D * cfg_.N * cfg_.H, seq = cfg_.T * states;
  const float* wf = ParamsF32(w);
  for (int64_t l = 0; l < cfg_.L; ++l) {
    Layer& ly = *layers_[l];
    PackWeights(ly, l, wf);
    const void* src = x;
    if (l > 0) src = At(reserve, drop ? layers_[l - 1]->slot.drop : layers_[l - 1]->slot.y);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, Mem(ly.d.src_layer, src)},
        {DNNL_ARG_SRC_ITER, Mem(ly.d.iter, At(h0, l * states * e))},
        {DNNL_ARG_WEIGHTS_LAYER, ly.wl_f.Input(ly.wl.data())},
        {DNNL_ARG_WEIGHTS_ITER, ly.wi_f.Input(ly.wi.data())},
        {DNNL_ARG_BIAS, Mem(ly.d.bias, ly.bias.data())},
        {DNNL_ARG_DST_LAYER, Mem(ly.d.dst_layer, At(reserve, ly.slot.y))},
        {DNNL_ARG_DST_ITER, Mem(ly.d.iter, At(reserve, ly.slot.hy))}};
    if (lstm) {
      const float* c_in = AsF32(At(c0, l * states * e), t, states, &c_in_);
      args[DNNL_ARG_SRC_ITER_C] = Mem(ly.d.iter_c, c_in);
      args[DNNL_ARG_DST_ITER_C] = Mem(ly.d.iter_c, At(reserve, ly.slot.cy));
    }
    if (training_)
      args[DNNL_ARG_WORKSPACE] = Mem(ly.pds.fwd.workspace_desc(), At(reserve, ly.slot.ws));
    ly.fwd.execute(Stream(), args);
    Stream().wait();
    CopyReq(At(reserve, ly.slot.hy), At(hy, l * states * e), t, states, hy_req);
    if (lstm && cy)
      StoreReq(reinterpret_cast<const float*>(At(reserve, ly.slot.cy)), At(cy, l * states * e), t,
               states, cy_req);
    if (drop && l + 1 < cfg_.L) {
      // the mask the next layer's input goes through, drawn as the GEMM path draws it
      const uint64_t key = NextRandomStream();
      const float p = cfg_.p, keep = 1.f / (1.f - p);
      float* mask = reinterpret_cast<float*>(At(reserve, ly.slot.mask));
      const void* out = At(reserve, ly.slot.y);
      void* dropped = At(reserve, ly.slot.drop);
      const bool bf = t == DType::kBFloat16;
#pragma omp parallel for
      for (int64_t i = 0; i < seq; ++i) {
        const float m = UniformAt(key, static_cast<uint64_t>(i)) >= p ? keep : 0.f;
        mask[i] = m;
        if (bf)
          static_cast<bf16_t*>(dropped)[i] =
              bf16_t(static_cast<float>(static_cast<const bf16_t*>(out)[i]) * m);
        else
          static_cast<float*>(dropped)[i] = static_cast<const float*>(out)[i] * m;
      }
    }
  }
  CopyReq(At(reserve, layers_.back()->slot.y), y, t, seq, y_req);
}

void DnnlRnn::Backward(const void* dy, const void* dhy, const void* dcy, const void* x,
                       const void* w, const void* h0, const void* c0, const void* reserve, void* dx,
                       void* dw, void* dh0, void* dc0, const std::vector<OpReqType>& req) {
  const bool lstm = cfg_.cell == RnnCell::kLstm, gru = cfg_.cell == RnnCell::kGru;
  const bool drop = cfg_.Dropout();
  const DType t = cfg_.dtype;
  const size_t e = ElemBytes(cfg_);
  const int64_t states = cfg_.D * cfg_.N * cfg_.H, G = cfg_.Gates(), H = cfg_.H,
                Gb = BiasGates(cfg_), seq = cfg_.T * states;
  const float* wf = ParamsF32(w);
  const float* dhy_f = AsF32(dhy, t, cfg_.L * states, &dhy32_);
  const float* dcy_f = lstm ? AsF32(dcy, t, cfg_.L * states, &dcy32_) : nullptr;
  const float* diff_dst = AsF32(dy, t, seq, &dy32_);
  for (int64_t l = cfg_.L - 1; l >= 0; --l) {
    Layer& ly = *layers_[l];
    PackWeights(ly, l, wf);
    const void* src = x;
    if (l > 0) src = At(reserve, drop ? layers_[l - 1]->slot.drop : layers_[l - 1]->slot.y);
    // the bottom layer writes a float32 dx directly when it may; otherwise through a buffer
    const bool direct =
        l == 0 && t == DType::kFloat32 && (req[0] == kWriteTo || req[0] == kWriteInplace);
    float* diff_src = l > 0    ? dbuf_[l % 2].data()
                      : direct ? static_cast<float*>(dx)
                               : dx_buf_.data();
    // oneDNN adds into the weight and bias gradients
    const dnnl::memory& dwl = ly.dwl.Output(ly.dwl_user.data(), kWriteTo);
    const dnnl::memory& dwi = ly.dwi.Output(ly.dwi_user.data(), kWriteTo);
    std::memset(dwl.get_data_handle(), 0, dwl.get_desc().get_size());
    std::memset(dwi.get_data_handle(), 0, dwi.get_desc().get_size());
    std::fill(ly.dbias.begin(), ly.dbias.end(), 0.f);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, Mem(ly.d.src_layer, src)},
        {DNNL_ARG_SRC_ITER, Mem(ly.d.iter, At(h0, l * states * e))},
        {DNNL_ARG_WEIGHTS_LAYER, ly.wl_b.Input(ly.wl.data())},
        {DNNL_ARG_WEIGHTS_ITER, ly.wi_b.Input(ly.wi.data())},
        {DNNL_ARG_BIAS, Mem(ly.d.bias, ly.bias.data())},
        {DNNL_ARG_DST_LAYER, Mem(ly.d.dst_layer, At(reserve, ly.slot.y))},
        {DNNL_ARG_DST_ITER, Mem(ly.d.iter, At(reserve, ly.slot.hy))},
        {DNNL_ARG_WORKSPACE, Mem(ly.pds.fwd.workspace_desc(), At(reserve, ly.slot.ws))},
        {DNNL_ARG_DIFF_SRC_LAYER, Mem(ly.d.diff_src_layer, diff_src)},
        {DNNL_ARG_DIFF_SRC_ITER, Mem(ly.d.diff_iter, state_buf_.data())},
        {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
        {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi},
        {DNNL_ARG_DIFF_BIAS, Mem(ly.d.bias, ly.dbias.data())},
        {DNNL_ARG_DIFF_DST_LAYER, Mem(ly.d.diff_dst_layer, diff_dst)},
        {DNNL_ARG_DIFF_DST_ITER, Mem(ly.d.diff_iter, dhy_f + l * states)}};
    if (lstm) {
      const float* c_in = AsF32(At(c0, l * states * e), t, states, &c_in_);
      args[DNNL_ARG_SRC_ITER_C] = Mem(ly.d.iter_c, c_in);
      args[DNNL_ARG_DST_ITER_C] = Mem(ly.d.iter_c, At(reserve, ly.slot.cy));
      args[DNNL_ARG_DIFF_SRC_ITER_C] = Mem(ly.d.diff_iter, state_c_buf_.data());
      args[DNNL_ARG_DIFF_DST_ITER_C] = Mem(ly.d.diff_iter, dcy_f + l * states);
    }
    ly.bwd.execute(Stream(), args);
    ly.dwl.Commit(ly.dwl_user.data(), kWriteTo);
    ly.dwi.Commit(ly.dwi_user.data(), kWriteTo);
    Stream().wait();
    StoreReq(state_buf_.data(), At(dh0, l * states * e), t, states, req[2]);
    if (lstm && dc0) StoreReq(state_c_buf_.data(), At(dc0, l * states * e), t, states, req[3]);
    // back into MXNet's packed layout and gate order
    const OpReqType wr = req[1];
    for (int64_t d = 0; d < cfg_.D && wr != kNullOp; ++d) {
      const int64_t k = l * cfg_.D + d;
      const float* db = ly.dbias.data() + d * Gb * H;
      for (int64_t g = 0; g < G; ++g) {
        const int64_t m = MxGate(cfg_.cell, g);
        StoreReq(ly.dwl_user.data() + (d * G + g) * H * ly.I,
                 At(dw, (cfg_.wx[k] + m * H * ly.I) * e), t, H * ly.I, wr);
        StoreReq(ly.dwi_user.data() + (d * G + g) * H * H, At(dw, (cfg_.wh[k] + m * H * H) * e), t,
                 H * H, wr);
        StoreReq(db + g * H, At(dw, (cfg_.bx[k] + m * H) * e), t, H, wr);
        StoreReq(db + (gru && g == 2 ? 3 : g) * H, At(dw, (cfg_.bh[k] + m * H) * e), t, H, wr);
      }
    }
    if (l > 0 && drop) {
      // through the dropout mask to the layer below's output
      const float* mask = reinterpret_cast<const float*>(At(reserve, layers_[l - 1]->slot.mask));
#pragma omp parallel for
      for (int64_t i = 0; i < seq; ++i) diff_src[i] *= mask[i];
    }
    diff_dst = diff_src;
  }
  if (req[0] != kNullOp && diff_dst != dx)
    StoreReq(dx_buf_.data(), dx, t, cfg_.T * cfg_.N * cfg_.C, req[0]);
}

}  // namespace dnnl_util
}  // namespace symnet
