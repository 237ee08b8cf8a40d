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
 *  Reserve layout, per layer, each part 64-byte aligned: the forward's workspace, the layer's
 *  output (T, N, D*H), its final hidden states (D, N, H) and cell states (D, N, H).
 */
#include "dnnl_rnn.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <mutex>
#include <tuple>
#include <unordered_map>

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

struct Descs {
  md src_layer, iter, wl, wi, bias, dst_layer, none;
};

/*! \brief Weights in `any` format for training; inference gets plain ldigo, since oneDNN 2.6
 *  would pick its packed format there, which it cannot reorder into from MXNet's ldgoi. */
Descs MakeDescs(const RnnConfig& c, int64_t l, bool training = true) {
  const int64_t I = c.In(l), G = c.Gates(), D = c.D, H = c.H;
  const tag wtag = training ? tag::any : tag::ldigo;
  Descs d;
  d.src_layer = md({c.T, c.N, I}, dt::f32, tag::tnc);
  d.iter = md({1, D, c.N, H}, dt::f32, tag::ldnc);
  d.wl = md({1, D, I, G, H}, dt::f32, wtag);
  d.wi = md({1, D, H, G, H}, dt::f32, wtag);
  d.bias = md({1, D, BiasGates(c), H}, dt::f32, tag::ldgo);
  d.dst_layer = md({c.T, c.N, D * H}, dt::f32, tag::tnc);
  return d;
}

struct Pds {
  dnnl::rnn_primitive_desc_base fwd, bwd;
};

/*! \brief The forward primitive descriptor of layer l and, with `backward`, the backward's. */
Pds MakePds(const RnnConfig& c, int64_t l, bool training, bool backward) {
  const Descs d = MakeDescs(c, l, training);
  const auto prop =
      training ? dnnl::prop_kind::forward_training : dnnl::prop_kind::forward_inference;
  const auto dir = c.D == 2 ? dnnl::rnn_direction::bidirectional_concat
                            : dnnl::rnn_direction::unidirectional_left2right;
  const auto bprop = dnnl::prop_kind::backward;
  Pds p;
  switch (c.cell) {
    case RnnCell::kLstm: {
      dnnl::lstm_forward::primitive_desc f(
          {prop, dir, d.src_layer, d.iter, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter, d.iter},
          Engine());
      p.fwd = f;
      if (backward)
        p.bwd = dnnl::lstm_backward::primitive_desc(
            {bprop,  dir,         d.src_layer, d.iter,      d.iter,      d.wl,   d.wi,
             d.bias, d.dst_layer, d.iter,      d.iter,      d.src_layer, d.iter, d.iter,
             d.wl,   d.wi,        d.bias,      d.dst_layer, d.iter,      d.iter},
            Engine(), f);
      break;
    }
    case RnnCell::kGru: {
      dnnl::lbr_gru_forward::primitive_desc f(
          {prop, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter}, Engine());
      p.fwd = f;
      if (backward)
        p.bwd = dnnl::lbr_gru_backward::primitive_desc(
            {bprop, dir, d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter, d.src_layer,
             d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter},
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
             d.src_layer, d.iter, d.wl, d.wi, d.bias, d.dst_layer, d.iter},
            Engine(), f);
      break;
    }
  }
  return p;
}

/*! \brief Workspace bytes of every layer's training forward, cached per geometry. */
std::vector<size_t> WorkspaceBytes(const RnnConfig& c) {
  using Key = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t>;
  static std::mutex mu;
  static std::map<Key, std::vector<size_t>> cache;
  const Key key{static_cast<int>(c.cell), c.L, c.D, c.T, c.N, c.C, c.H};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  std::vector<size_t> ws;
  for (int64_t l = 0; l < c.L; ++l)
    ws.push_back(MakePds(c, l, true, false).fwd.workspace_desc().get_size());
  cache[key] = ws;
  return ws;
}

/*! \brief Byte offsets of one layer's parts in the reserve. */
struct Slots {
  size_t ws, y, hy, cy, end;
};

std::vector<Slots> ReserveSlots(const RnnConfig& c) {
  const std::vector<size_t> ws = WorkspaceBytes(c);
  const size_t f = sizeof(float), states = Align(c.D * c.N * c.H * f);
  std::vector<Slots> s;
  size_t at = 0;
  for (int64_t l = 0; l < c.L; ++l) {
    Slots x;
    x.ws = at;
    x.y = x.ws + Align(ws[l]);
    x.hy = x.y + Align(c.T * c.N * c.D * c.H * f);
    x.cy = x.hy + states;
    x.end = at = x.cy + states;
    s.push_back(x);
  }
  return s;
}

void CopyReq(const float* src, float* dst, int64_t n, OpReqType req) {
  if (req == kNullOp || n == 0) return;
  if (req == kAddTo) {
    for (int64_t i = 0; i < n; ++i) dst[i] += src[i];
  } else if (src != dst) {
    std::memcpy(dst, src, n * sizeof(float));
  }
}

dnnl::memory Mem(const md& d, const void* p) {
  return dnnl::memory(d, Engine(), const_cast<void*>(p));
}

char* At(void* base, size_t off) { return static_cast<char*>(base) + off; }
const char* At(const void* base, size_t off) { return static_cast<const char*>(base) + off; }

}  // namespace

bool RnnSupported(const RnnConfig& cfg) {
  return cfg.dtype == DType::kFloat32 && cfg.T > 0 && cfg.N > 0 && cfg.L > 0 && cfg.H > 0 &&
         cfg.C > 0;
}

size_t RnnReserveBytes(const RnnConfig& cfg) {
  if (!RnnSupported(cfg)) return 0;
  try {
    return ReserveSlots(cfg).back().end;
  } catch (const dnnl::error&) {
    return 0;
  }
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
    // MXNet's W (G*H, I) per direction is oneDNN's ldgoi once the gate blocks are in its order
    ly->wl_user = md({1, D, ly->I, G, H}, dt::f32, tag::ldgoi);
    ly->wi_user = md({1, D, H, G, H}, dt::f32, tag::ldgoi);
    ly->pds = MakePds(cfg, l, training_, backward);
    ly->fwd =
        dnnl::primitive(Noted(training_ ? "rnn forward training" : "rnn forward", ly->pds.fwd));
    ly->wl_f.Init(ly->wl_user, ly->pds.fwd.weights_layer_desc(), false);
    ly->wi_f.Init(ly->wi_user, ly->pds.fwd.weights_iter_desc(), false);
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
  const int64_t states = cfg_.D * cfg_.N * cfg_.H;
  for (int64_t l = 0; l < cfg_.L; ++l) {
    Layer& ly = *layers_[l];
    PackWeights(ly, l, static_cast<const float*>(w));
    const void* src = l == 0 ? x : At(reserve, layers_[l - 1]->slot.y);
    const float* h_in = static_cast<const float*>(h0) + l * states;
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, Mem(ly.d.src_layer, src)},
        {DNNL_ARG_SRC_ITER, Mem(ly.d.iter, h_in)},
        {DNNL_ARG_WEIGHTS_LAYER, ly.wl_f.Input(ly.wl.data())},
        {DNNL_ARG_WEIGHTS_ITER, ly.wi_f.Input(ly.wi.data())},
        {DNNL_ARG_BIAS, Mem(ly.d.bias, ly.bias.data())},
        {DNNL_ARG_DST_LAYER, Mem(ly.d.dst_layer, At(reserve, ly.slot.y))},
        {DNNL_ARG_DST_ITER, Mem(ly.d.iter, At(reserve, ly.slot.hy))}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = Mem(ly.d.iter, static_cast<const float*>(c0) + l * states);
      args[DNNL_ARG_DST_ITER_C] = Mem(ly.d.iter, At(reserve, ly.slot.cy));
    }
    if (training_)
      args[DNNL_ARG_WORKSPACE] = Mem(ly.pds.fwd.workspace_desc(), At(reserve, ly.slot.ws));
    ly.fwd.execute(Stream(), args);
    Stream().wait();
    CopyReq(reinterpret_cast<const float*>(At(reserve, ly.slot.hy)),
            static_cast<float*>(hy) + l * states, states, hy_req);
    if (lstm && cy)
      CopyReq(reinterpret_cast<const float*>(At(reserve, ly.slot.cy)),
              static_cast<float*>(cy) + l * states, states, cy_req);
  }
  const Layer& top = *layers_.back();
  CopyReq(reinterpret_cast<const float*>(At(reserve, top.slot.y)), static_cast<float*>(y),
          cfg_.T * cfg_.N * cfg_.D * cfg_.H, y_req);
}

void DnnlRnn::Backward(const void* dy, const void* dhy, const void* dcy, const void* x,
                       const void* w, const void* h0, const void* c0, const void* reserve, void* dx,
                       void* dw, void* dh0, void* dc0, const std::vector<OpReqType>& req) {
  const bool lstm = cfg_.cell == RnnCell::kLstm, gru = cfg_.cell == RnnCell::kGru;
  const int64_t states = cfg_.D * cfg_.N * cfg_.H, G = cfg_.Gates(), H = cfg_.H,
                Gb = BiasGates(cfg_);
  const void* diff_dst = dy;
  for (int64_t l = cfg_.L - 1; l >= 0; --l) {
    Layer& ly = *layers_[l];
    PackWeights(ly, l, static_cast<const float*>(w));
    const void* src = l == 0 ? x : At(reserve, layers_[l - 1]->slot.y);
    // the bottom layer writes dx directly when it may; otherwise through a buffer
    const bool direct = l == 0 && (req[0] == kWriteTo || req[0] == kWriteInplace);
    void* diff_src = l > 0 ? dbuf_[l % 2].data() : direct ? dx : dx_buf_.data();
    // oneDNN adds into the weight and bias gradients
    const dnnl::memory& dwl = ly.dwl.Output(ly.dwl_user.data(), kWriteTo);
    const dnnl::memory& dwi = ly.dwi.Output(ly.dwi_user.data(), kWriteTo);
    std::memset(dwl.get_data_handle(), 0, dwl.get_desc().get_size());
    std::memset(dwi.get_data_handle(), 0, dwi.get_desc().get_size());
    std::fill(ly.dbias.begin(), ly.dbias.end(), 0.f);
    std::unordered_map<int, dnnl::memory> args{
        {DNNL_ARG_SRC_LAYER, Mem(ly.d.src_layer, src)},
        {DNNL_ARG_SRC_ITER, Mem(ly.d.iter, static_cast<const float*>(h0) + l * states)},
        {DNNL_ARG_WEIGHTS_LAYER, ly.wl_b.Input(ly.wl.data())},
        {DNNL_ARG_WEIGHTS_ITER, ly.wi_b.Input(ly.wi.data())},
        {DNNL_ARG_BIAS, Mem(ly.d.bias, ly.bias.data())},
        {DNNL_ARG_DST_LAYER, Mem(ly.d.dst_layer, At(reserve, ly.slot.y))},
        {DNNL_ARG_DST_ITER, Mem(ly.d.iter, At(reserve, ly.slot.hy))},
        {DNNL_ARG_WORKSPACE, Mem(ly.pds.fwd.workspace_desc(), At(reserve, ly.slot.ws))},
        {DNNL_ARG_DIFF_SRC_LAYER, Mem(ly.d.src_layer, diff_src)},
        {DNNL_ARG_DIFF_SRC_ITER, Mem(ly.d.iter, state_buf_.data())},
        {DNNL_ARG_DIFF_WEIGHTS_LAYER, dwl},
        {DNNL_ARG_DIFF_WEIGHTS_ITER, dwi},
        {DNNL_ARG_DIFF_BIAS, Mem(ly.d.bias, ly.dbias.data())},
        {DNNL_ARG_DIFF_DST_LAYER, Mem(ly.d.dst_layer, diff_dst)},
        {DNNL_ARG_DIFF_DST_ITER, Mem(ly.d.iter, static_cast<const float*>(dhy) + l * states)}};
    if (lstm) {
      args[DNNL_ARG_SRC_ITER_C] = Mem(ly.d.iter, static_cast<const float*>(c0) + l * states);
      args[DNNL_ARG_DST_ITER_C] = Mem(ly.d.iter, At(reserve, ly.slot.cy));
      args[DNNL_ARG_DIFF_SRC_ITER_C] = Mem(ly.d.iter, state_c_buf_.data());
      args[DNNL_ARG_DIFF_DST_ITER_C] = Mem(ly.d.iter, static_cast<const float*>(dcy) + l * states);
    }
    ly.bwd.execute(Stream(), args);
    ly.dwl.Commit(ly.dwl_user.data(), kWriteTo);
    ly.dwi.Commit(ly.dwi_user.data(), kWriteTo);
    Stream().wait();
    CopyReq(state_buf_.data(), static_cast<float*>(dh0) + l * states, states, req[2]);
    if (lstm && dc0)
      CopyReq(state_c_buf_.data(), static_cast<float*>(dc0) + l * states, states, req[3]);
    // back into MXNet's packed layout and gate order
    float* dwp = static_cast<float*>(dw);
    const OpReqType wr = req[1];
    for (int64_t d = 0; d < cfg_.D && wr != kNullOp; ++d) {
      const int64_t k = l * cfg_.D + d;
      const float* db = ly.dbias.data() + d * Gb * H;
      for (int64_t g = 0; g < G; ++g) {
        const int64_t m = MxGate(cfg_.cell, g);
        CopyReq(ly.dwl_user.data() + (d * G + g) * H * ly.I, dwp + cfg_.wx[k] + m * H * ly.I,
                H * ly.I, wr);
        CopyReq(ly.dwi_user.data() + (d * G + g) * H * H, dwp + cfg_.wh[k] + m * H * H, H * H, wr);
        CopyReq(db + g * H, dwp + cfg_.bx[k] + m * H, H, wr);
        CopyReq(db + (gru && g == 2 ? 3 : g) * H, dwp + cfg_.bh[k] + m * H, H, wr);
      }
    }
    diff_dst = diff_src;
  }
  if (req[0] != kNullOp && diff_dst != dx)
    CopyReq(dx_buf_.data(), static_cast<float*>(dx), cfg_.T * cfg_.N * cfg_.C, req[0]);
}

}  // namespace dnnl_util
}  // namespace symnet
