/*!
 * \brief The fused RNN op (MXNet's `RNN`): vanilla ReLU/tanh RNN, LSTM and GRU, stacked and
 *  bidirectional, with MXNet's packed parameter vector. One algorithm serves every device and
 *  dtype: per layer and direction, one GEMM projects the whole sequence's input, then each time
 *  step runs one recurrent GEMM and one fused element-wise kernel; the backward pass runs the
 *  steps in reverse and gets the weight gradients from three GEMMs over the whole sequence. The
 *  GEMMs come from the device's GEMM (oneDNN matmul / cuBLAS) through an `RnnGemmFn`.
 */
#ifndef SYMNET_OPERATORS_NN_RNN_H_
#define SYMNET_OPERATORS_NN_RNN_H_

#include <cmath>
#include <functional>
#include <utility>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

enum RNNMode { kRnnRelu = 0, kRnnTanh = 1, kLstm = 2, kGru = 3 };

struct RNNParam : public dmlc::Parameter<RNNParam> {
  int state_size;
  int num_layers;
  bool bidirectional;
  int mode;
  float p;
  bool state_outputs;
  dmlc::optional<int> projection_size;
  dmlc::optional<double> lstm_state_clip_min;
  dmlc::optional<double> lstm_state_clip_max;
  bool lstm_state_clip_nan;
  bool use_sequence_length;
  DMLC_DECLARE_PARAMETER(RNNParam) {
    DMLC_DECLARE_FIELD(state_size).set_lower_bound(0).describe("Size of each layer's state.");
    DMLC_DECLARE_FIELD(num_layers).set_lower_bound(0).describe("Number of stacked layers.");
    DMLC_DECLARE_FIELD(bidirectional)
        .set_default(false)
        .describe("Run each layer in both directions and concatenate the two outputs.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("rnn_relu", kRnnRelu)
        .add_enum("rnn_tanh", kRnnTanh)
        .add_enum("lstm", kLstm)
        .add_enum("gru", kGru)
        .describe("The recurrent cell.");
    DMLC_DECLARE_FIELD(p).set_default(0.f).set_range(0.f, 1.f).describe(
        "Dropout rate on the outputs of every layer but the last (training only).");
    DMLC_DECLARE_FIELD(state_outputs)
        .set_default(false)
        .describe("Also output the final states (hidden, and cell for LSTM).");
    DMLC_DECLARE_FIELD(projection_size)
        .set_default(dmlc::optional<int>())
        .describe("LSTM projection size (not supported).");
    DMLC_DECLARE_FIELD(lstm_state_clip_min)
        .set_default(dmlc::optional<double>())
        .describe("Lower clip of LSTM cell states (not supported).");
    DMLC_DECLARE_FIELD(lstm_state_clip_max)
        .set_default(dmlc::optional<double>())
        .describe("Upper clip of LSTM cell states (not supported).");
    DMLC_DECLARE_FIELD(lstm_state_clip_nan)
        .set_default(false)
        .describe("Clip NaN cell states to the clip range (only with a clip range).");
    DMLC_DECLARE_FIELD(use_sequence_length)
        .set_default(false)
        .describe("Take a sequence_length input for variable-length batches (not supported).");
  }
};

/*!
 * \brief Sizes and offsets of one RNN call. `G` gates of `H` units per layer and direction;
 *  the parameter vector holds, as MXNet packs it, every (layer, direction)'s input weights
 *  (G*H, I_l) and recurrent weights (G*H, H), then every (layer, direction)'s input and
 *  recurrent biases (G*H each). Gate order: LSTM (i, f, g, o), GRU (r, z, n).
 *
 *  The reserve (a hidden output) keeps what the backward pass needs, per (layer, direction):
 *  the gate activations (T, N, G*H), the hidden states (T, N, H), for LSTM the cell states
 *  (T, N, H) and for GRU the recurrent part of the n gate, W_hn h + b_hn (T, N, H); then, with
 *  dropout, one mask (T, N, D*H) per layer but the last.
 */
struct RnnGeom {
  int mode = kLstm;
  int64_t L = 0, D = 1, T = 0, N = 0, C = 0, H = 0, G = 1;
  float p = 0.f;

  RnnGeom() = default;
  RnnGeom(const RNNParam& prm, const Shape& data) {
    mode = prm.mode;
    L = prm.num_layers;
    D = prm.bidirectional ? 2 : 1;
    T = data[0], N = data[1], C = data[2];
    H = prm.state_size;
    G = mode == kLstm ? 4 : mode == kGru ? 3 : 1;
    p = prm.p;
  }
  int64_t In(int64_t l) const { return l == 0 ? C : D * H; }
  int64_t GH() const { return G * H; }
  int64_t NumWeights() const {
    int64_t n = 0;
    for (int64_t l = 0; l < L; ++l) n += D * GH() * (In(l) + H);
    return n;
  }
  int64_t NumParams() const { return NumWeights() + L * D * 2 * GH(); }
  int64_t Wx(int64_t l, int64_t d) const {
    int64_t o = 0;
    for (int64_t k = 0; k < l; ++k) o += D * GH() * (In(k) + H);
    return o + d * GH() * (In(l) + H);
  }
  int64_t Wh(int64_t l, int64_t d) const { return Wx(l, d) + GH() * In(l); }
  int64_t Bx(int64_t l, int64_t d) const { return NumWeights() + (l * D + d) * 2 * GH(); }
  int64_t Bh(int64_t l, int64_t d) const { return Bx(l, d) + GH(); }

  bool HasExtra() const { return mode == kLstm || mode == kGru; }
  int64_t Step() const { return N * H; }
  /*! \brief Reserve elements of one (layer, direction). */
  int64_t PerDir() const { return T * N * (GH() + H + (HasExtra() ? H : 0)); }
  bool Dropout() const { return p > 0.f && L > 1; }
  int64_t MaskSize() const { return T * N * D * H; }
  int64_t ReserveSize() const { return L * D * PerDir() + (Dropout() ? (L - 1) * MaskSize() : 0); }
  int64_t Gates(int64_t l, int64_t d) const { return (l * D + d) * PerDir(); }
  int64_t Hidden(int64_t l, int64_t d) const { return Gates(l, d) + T * N * GH(); }
  /*! \brief LSTM cell states or GRU's W_hn h + b_hn. */
  int64_t Extra(int64_t l, int64_t d) const { return Hidden(l, d) + T * N * H; }
  int64_t Mask(int64_t l) const { return L * D * PerDir() + l * MaskSize(); }

  /*! \brief Time index of processing step s in direction d (the reverse direction runs back). */
  int64_t TimeAt(int64_t d, int64_t s) const { return d == 0 ? s : T - 1 - s; }

  /*! \brief Temporary elements: forward (layer input, recurrent product) and backward. */
  int64_t ForwardTemp() const { return T * N * D * H + N * GH(); }
  int64_t BackwardTemp() const {
    const int64_t seq = T * N * D * H;
    // two input-gradient buffers (layers alternate), the layer input, dGates, GRU's recurrent
    // dGates, dH of one direction, dh, dc
    // ... and a column of ones that turns the bias gradients' column sums into GEMMs
    return 3 * seq + 2 * T * N * GH() + T * N * H + 2 * N * H + T * N;
  }
};

/*! \brief C[m, n] (+)= op(A) op(B), row-major, in the call's dtype, on the call's device. */
struct RnnGemm {
  int64_t m, n, k;
  bool trans_a, trans_b, accumulate;
};
using RnnGemmFn = std::function<void(const RnnGemm&, const void* a, const void* b, void* c)>;

namespace rnn_kernel {

template <typename A>
SYMNET_XINLINE A Sigmoid(A x) {
  return A(1) / (A(1) + std::exp(-x));
}

/*! \brief Adds the biases to the projected input of every step: rows of G*H. GRU's n gate
 *  takes only its input bias here (its recurrent bias sits inside r * (W_hn h + b_hn)). */
struct AddBias {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* g, const T* bx, const T* bh, int64_t gh,
                                 int64_t n_gate_start) {
    using A = AccType<T>;
    const int64_t j = i % gh;
    A v = A(g[i]) + A(bx[j]);
    if (j < n_gate_start) v += A(bh[j]);
    g[i] = T(v);
  }
};

/*! \brief One LSTM step on pre-activations g (N, 4H): activates them in place and writes c, h. */
struct LstmStep {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* g, const T* c_prev, T* c, T* h, int64_t H) {
    using A = AccType<T>;
    const int64_t n = i / H, j = i % H;
    T* row = g + n * 4 * H;
    const A ig = Sigmoid(A(row[j])), fg = Sigmoid(A(row[H + j]));
    const A gg = std::tanh(A(row[2 * H + j])), og = Sigmoid(A(row[3 * H + j]));
    row[j] = T(ig), row[H + j] = T(fg), row[2 * H + j] = T(gg), row[3 * H + j] = T(og);
    const A cv = fg * A(c_prev[i]) + ig * gg;
    c[i] = T(cv);
    h[i] = T(og * std::tanh(cv));
  }
};

/*! \brief One GRU step: g (N, 3H) input part with biases, hh (N, 3H) = W_h h_prev (no bias). */
struct GruStep {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* g, const T* hh, const T* bh, const T* h_prev,
                                 T* hn_out, T* h, int64_t H) {
    using A = AccType<T>;
    const int64_t n = i / H, j = i % H;
    T* row = g + n * 3 * H;
    const T* hrow = hh + n * 3 * H;
    const A r = Sigmoid(A(row[j]) + A(hrow[j]));
    const A z = Sigmoid(A(row[H + j]) + A(hrow[H + j]));
    const A hn = A(hrow[2 * H + j]) + A(bh[2 * H + j]);
    const A nn = std::tanh(A(row[2 * H + j]) + r * hn);
    row[j] = T(r), row[H + j] = T(z), row[2 * H + j] = T(nn);
    hn_out[i] = T(hn);
    h[i] = T((A(1) - z) * nn + z * A(h_prev[i]));
  }
};

/*! \brief One vanilla RNN step: activates g (N, H) in place and copies it to h. */
struct RnnStep {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* g, T* h, bool relu) {
    using A = AccType<T>;
    const A a = A(g[i]);
    const A v = relu ? (a > A(0) ? a : A(0)) : std::tanh(a);
    g[i] = T(v);
    h[i] = T(v);
  }
};

/*! \brief dst[t, n, d*H + j] = src[t, n, j] (* mask): one direction into a layer's output. */
struct Interleave {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* src, T* dst, const T* mask, int64_t H,
                                 int64_t DH, int64_t d) {
    const int64_t row = i / H, j = i % H;
    const int64_t o = row * DH + d * H + j;
    dst[o] = mask ? T(AccType<T>(src[i]) * AccType<T>(mask[o])) : src[i];
  }
};

/*! \brief dst[t, n, j] = src[t, n, d*H + j]: one direction's part of an output gradient. */
struct Deinterleave {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* src, T* dst, int64_t H, int64_t DH,
                                 int64_t d) {
    dst[i] = src[(i / H) * DH + d * H + (i % H)];
  }
};

template <int req>
struct CopyReq {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* src, T* dst) {
    AssignReq<req>(&dst[i], src[i]);
  }
};

struct Scale {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* x, const T* mask) {
    x[i] = T(AccType<T>(x[i]) * AccType<T>(mask[i]));
  }
};

struct Fill {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* x, float v) {
    x[i] = T(v);
  }
};

/*! \brief Dropout mask between layers: 1/(1-p) kept, 0 dropped, from a counter-based stream. */
struct DropMask {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* mask, uint64_t key, float p) {
    mask[i] = T(UniformAt(key, static_cast<uint64_t>(i)) >= p ? 1.f / (1.f - p) : 0.f);
  }
};

/*!
 * \brief LSTM step backward. dh (N, H) holds the gradient reaching h_t from step t+1 and leaves
 *  nothing useful (the recurrent GEMM overwrites it); dc carries the cell gradient from step to
 *  step. Writes dG = the pre-activation gradients (N, 4H).
 */
struct LstmStepBack {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* g, const T* c, const T* c_prev, const T* dy,
                                 const T* dh, T* dc, T* dg, int64_t H) {
    using A = AccType<T>;
    const int64_t n = i / H, j = i % H;
    const T* row = g + n * 4 * H;
    T* drow = dg + n * 4 * H;
    const A ig = A(row[j]), fg = A(row[H + j]), gg = A(row[2 * H + j]), og = A(row[3 * H + j]);
    const A tc = std::tanh(A(c[i]));
    const A dht = A(dy[i]) + A(dh[i]);
    const A dct = A(dc[i]) + dht * og * (A(1) - tc * tc);
    drow[j] = T(dct * gg * ig * (A(1) - ig));
    drow[H + j] = T(dct * A(c_prev[i]) * fg * (A(1) - fg));
    drow[2 * H + j] = T(dct * ig * (A(1) - gg * gg));
    drow[3 * H + j] = T(dht * tc * og * (A(1) - og));
    dc[i] = T(dct * fg);
  }
};

/*! \brief GRU step backward: dG (input side) and dGh (recurrent side, differs in the n gate);
 *  dh becomes the direct part z * dh_t, to which the GEMM with W_h then adds. */
struct GruStepBack {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* g, const T* hn, const T* h_prev, const T* dy,
                                 T* dh, T* dg, T* dgh, int64_t H) {
    using A = AccType<T>;
    const int64_t n = i / H, j = i % H;
    const T* row = g + n * 3 * H;
    const A r = A(row[j]), z = A(row[H + j]), nn = A(row[2 * H + j]);
    const A dht = A(dy[i]) + A(dh[i]);
    const A dn = dht * (A(1) - z) * (A(1) - nn * nn);
    const A dz = dht * (A(h_prev[i]) - nn) * z * (A(1) - z);
    const A dr = dn * A(hn[i]) * r * (A(1) - r);
    T* drow = dg + n * 3 * H;
    T* dhrow = dgh + n * 3 * H;
    drow[j] = dhrow[j] = T(dr);
    drow[H + j] = dhrow[H + j] = T(dz);
    drow[2 * H + j] = T(dn);
    dhrow[2 * H + j] = T(dn * r);
    dh[i] = T(dht * z);
  }
};

struct RnnStepBack {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* g, const T* dy, const T* dh, T* dg,
                                 bool relu) {
    using A = AccType<T>;
    const A v = A(g[i]);
    const A dht = A(dy[i]) + A(dh[i]);
    dg[i] = T(relu ? (v > A(0) ? dht : A(0)) : dht * (A(1) - v * v));
  }
};

}  // namespace rnn_kernel

/*! \brief Buffers of one call; 16-bit and float64 alike (T is the call's dtype). */
template <typename T>
struct RnnBlobs {
  const T *x = nullptr, *w = nullptr, *h0 = nullptr, *c0 = nullptr;
  T *y = nullptr, *hy = nullptr, *cy = nullptr, *reserve = nullptr, *temp = nullptr;
};

/*! \brief Work of one unit's step kernel, in elements: its gates' transcendental functions
 *  cost tens of additions each, so a step of a few thousand units is worth two threads. */
constexpr int64_t kUnitCost = 32;

template <typename xpu, typename T>
void RnnForwardImpl(const RnnGeom& g, const RnnBlobs<T>& b, bool is_train, OpReqType y_req,
                    OpReqType hy_req, OpReqType cy_req, const RnnGemmFn& gemm) {
  using namespace rnn_kernel;
  const int64_t GH = g.GH(), H = g.H, N = g.N, T_ = g.T, DH = g.D * H, step = g.Step();
  T* xbuf = b.temp;              // a layer's input (layers after the first)
  T* hh = b.temp + T_ * N * DH;  // GRU: W_h h_prev of one step
  const bool drop = g.Dropout() && is_train;
  const T* layer_in = b.x;
  for (int64_t l = 0; l < g.L; ++l) {
    if (l > 0) {
      // the previous layer's directions side by side, through its dropout mask in training
      const T* mask = drop ? b.reserve + g.Mask(l - 1) : nullptr;
      if (drop)
        Kernel<DropMask, xpu>::Launch(g.MaskSize(), b.reserve + g.Mask(l - 1), NextRandomStream(),
                                      g.p);
      for (int64_t d = 0; d < g.D; ++d)
        Kernel<Interleave, xpu>::Launch(T_ * N * H, b.reserve + g.Hidden(l - 1, d), xbuf, mask, H,
                                        DH, d);
      layer_in = xbuf;
    }
    for (int64_t d = 0; d < g.D; ++d) {
      T* gates = b.reserve + g.Gates(l, d);
      T* hid = b.reserve + g.Hidden(l, d);
      T* extra = b.reserve + g.Extra(l, d);
      const T* wh = b.w + g.Wh(l, d);
      const T* bx = b.w + g.Bx(l, d);
      const T* bh = b.w + g.Bh(l, d);
      // every step's input projection in one GEMM, then the biases
      gemm({T_ * N, GH, g.In(l), false, true, false}, layer_in, b.w + g.Wx(l, d), gates);
      Kernel<AddBias, xpu>::Launch(T_ * N * GH, gates, bx, bh, GH, g.mode == kGru ? 2 * H : GH);
      const T* h_prev = b.h0 + (l * g.D + d) * step;
      const T* c_prev = b.c0 ? b.c0 + (l * g.D + d) * step : nullptr;
      for (int64_t s = 0; s < T_; ++s) {
        const int64_t t = g.TimeAt(d, s);
        T* gt = gates + t * N * GH;
        T* ht = hid + t * step;
        if (g.mode == kGru) {
          gemm({N, GH, H, false, true, false}, h_prev, wh, hh);
          Kernel<GruStep, xpu>::LaunchCost(step, kUnitCost, gt, hh, bh, h_prev, extra + t * step,
                                           ht, H);
        } else {
          gemm({N, GH, H, false, true, true}, h_prev, wh, gt);
          if (g.mode == kLstm) {
            Kernel<LstmStep, xpu>::LaunchCost(step, kUnitCost, gt, c_prev, extra + t * step, ht, H);
            c_prev = extra + t * step;
          } else {
            Kernel<RnnStep, xpu>::LaunchCost(step, kUnitCost, gt, ht, g.mode == kRnnRelu);
          }
        }
        h_prev = ht;
      }
      // final states (the initial ones for an empty sequence)
      const int64_t so = (l * g.D + d) * step;
      SYMNET_REQ_SWITCH(hy_req, Req,
                        { Kernel<CopyReq<Req>, xpu>::Launch(step, h_prev, b.hy + so); });
      if (b.cy) {
        SYMNET_REQ_SWITCH(cy_req, Req,
                          { Kernel<CopyReq<Req>, xpu>::Launch(step, c_prev, b.cy + so); });
      }
    }
  }
  // the last layer's directions side by side are the output
  if (y_req == kNullOp || g.L == 0) return;
  T* y = y_req == kAddTo ? xbuf : b.y;
  for (int64_t d = 0; d < g.D; ++d)
    Kernel<Interleave, xpu>::Launch(T_ * N * H, b.reserve + g.Hidden(g.L - 1, d), y,
                                    static_cast<const T*>(nullptr), H, DH, d);
  if (y_req == kAddTo) Kernel<CopyReq<kAddTo>, xpu>::Launch(T_ * N * DH, xbuf, b.y);
}

/*! \brief Gradients of one call. */
template <typename T>
struct RnnGradBlobs {
  const T *dy = nullptr, *dhy = nullptr, *dcy = nullptr;
  const T *x = nullptr, *w = nullptr, *h0 = nullptr, *c0 = nullptr, *reserve = nullptr;
  T *dx = nullptr, *dw = nullptr, *dh0 = nullptr, *dc0 = nullptr, *temp = nullptr;
};

/*! \brief Requests: data, parameters, state, state_cell. */
template <typename xpu, typename T>
void RnnBackwardImpl(const RnnGeom& g, const RnnGradBlobs<T>& b, const std::vector<OpReqType>& req,
                     const RnnGemmFn& gemm) {
  using namespace rnn_kernel;
  const int64_t GH = g.GH(), H = g.H, N = g.N, T_ = g.T, DH = g.D * H, step = g.Step();
  const int64_t seq = T_ * N * DH;
  // the gradient of the current layer's output: the op's for the top layer, then the layer
  // above's input gradient, which alternates between two buffers
  const T* dy_layer = b.dy;
  T* dx_buf = b.temp;  // gradient of the layer's input (layers after the first)
  T* dx_other = dx_buf + seq;
  T* xbuf = dx_other + seq;            // its input, rebuilt from the layer below
  T* dgates = xbuf + seq;              // (T, N, G*H)
  T* dgates_h = dgates + T_ * N * GH;  // GRU: the recurrent side's (T, N, G*H)
  T* dhd = dgates_h + T_ * N * GH;     // one direction's output gradient (T, N, H)
  T* dh = dhd + T_ * N * H;
  T* dc = dh + step;
  T* ones = dc + step;  // (T*N): bias gradients are dG^T ones
  const OpReqType w_req = req[1];
  Kernel<Fill, xpu>::Launch(T_ * N, ones, 1.f);
  for (int64_t l = g.L - 1; l >= 0; --l) {
    const T* layer_in = b.x;
    if (l > 0) {
      const T* mask = g.Dropout() ? b.reserve + g.Mask(l - 1) : nullptr;
      for (int64_t d = 0; d < g.D; ++d)
        Kernel<Interleave, xpu>::Launch(T_ * N * H, b.reserve + g.Hidden(l - 1, d), xbuf, mask, H,
                                        DH, d);
      layer_in = xbuf;
    }
    const int64_t I = g.In(l);
    for (int64_t d = 0; d < g.D; ++d) {
      const T* gates = b.reserve + g.Gates(l, d);
      const T* hid = b.reserve + g.Hidden(l, d);
      const T* extra = b.reserve + g.Extra(l, d);
      const T* wh = b.w + g.Wh(l, d);
      const int64_t so = (l * g.D + d) * step;
      const T* h0 = b.h0 + so;
      const T* c0 = b.c0 ? b.c0 + so : nullptr;
      Kernel<Deinterleave, xpu>::Launch(T_ * N * H, dy_layer, dhd, H, DH, d);
      Kernel<CopyReq<kWriteTo>, xpu>::Launch(step, b.dhy + so, dh);
      if (g.mode == kLstm) Kernel<CopyReq<kWriteTo>, xpu>::Launch(step, b.dcy + so, dc);
      T* dg_rec = g.mode == kGru ? dgates_h : dgates;  // what multiplies W_h
      for (int64_t s = T_ - 1; s >= 0; --s) {
        const int64_t t = g.TimeAt(d, s);
        const int64_t tp = s > 0 ? g.TimeAt(d, s - 1) : -1;
        const T* h_prev = tp >= 0 ? hid + tp * step : h0;
        const T* gt = gates + t * N * GH;
        T* dgt = dgates + t * N * GH;
        if (g.mode == kLstm) {
          const T* c_prev = tp >= 0 ? extra + tp * step : c0;
          Kernel<LstmStepBack, xpu>::LaunchCost(step, kUnitCost, gt, extra + t * step, c_prev,
                                                static_cast<const T*>(dhd + t * step),
                                                static_cast<const T*>(dh), dc, dgt, H);
          gemm({N, H, GH, false, false, false}, dgt, wh, dh);
        } else if (g.mode == kGru) {
          T* dght = dgates_h + t * N * GH;
          Kernel<GruStepBack, xpu>::LaunchCost(step, kUnitCost, gt, extra + t * step, h_prev,
                                               static_cast<const T*>(dhd + t * step), dh, dgt, dght,
                                               H);
          gemm({N, H, GH, false, false, true}, dght, wh, dh);
        } else {
          Kernel<RnnStepBack, xpu>::LaunchCost(step, kUnitCost, gt,
                                               static_cast<const T*>(dhd + t * step),
                                               static_cast<const T*>(dh), dgt, g.mode == kRnnRelu);
          gemm({N, H, GH, false, false, false}, dgt, wh, dh);
        }
      }
      SYMNET_REQ_SWITCH(req[2], Req, { Kernel<CopyReq<Req>, xpu>::Launch(step, dh, b.dh0 + so); });
      if (b.dc0) {
        SYMNET_REQ_SWITCH(req[3], Req,
                          { Kernel<CopyReq<Req>, xpu>::Launch(step, dc, b.dc0 + so); });
      }
      if (w_req != kNullOp && T_ > 0) {
        const bool acc = w_req == kAddTo;
        // dW_x = dG^T X over all steps
        gemm({GH, I, T_ * N, true, false, acc}, dgates, layer_in, b.dw + g.Wx(l, d));
        // dW_h = sum over steps of dG_t^T h_prev(t): the first processed step's h_prev is h0,
        // the others' are the hidden states one step back, contiguous in time
        T* dwh = b.dw + g.Wh(l, d);
        const int64_t first = g.TimeAt(d, 0);
        gemm({GH, H, N, true, false, acc}, dg_rec + first * N * GH, h0, dwh);
        if (T_ > 1) {
          const T* dg_rest = d == 0 ? dg_rec + N * GH : dg_rec;
          const T* h_rest = d == 0 ? hid : hid + step;
          gemm({GH, H, (T_ - 1) * N, true, false, true}, dg_rest, h_rest, dwh);
        }
        gemm({GH, 1, T_ * N, true, false, acc}, dgates, ones, b.dw + g.Bx(l, d));
        gemm({GH, 1, T_ * N, true, false, acc}, dg_rec, ones, b.dw + g.Bh(l, d));
      } else if (w_req != kNullOp && w_req != kAddTo) {
        // an empty sequence: the weights get no gradient
        const int64_t n_w = g.Wh(l, d) + GH * H - g.Wx(l, d);
        Kernel<Fill, xpu>::Launch(n_w, b.dw + g.Wx(l, d), 0.f);
        Kernel<Fill, xpu>::Launch(2 * GH, b.dw + g.Bx(l, d), 0.f);
      }
      // the input's gradient, summed over the directions
      T* dx = l > 0 ? dx_buf : b.dx;
      const OpReqType x_req = l > 0 ? kWriteTo : req[0];
      if (x_req != kNullOp) {
        const bool acc = d > 0 || x_req == kAddTo;
        if (T_ * N > 0) gemm({T_ * N, I, GH, false, false, acc}, dgates, b.w + g.Wx(l, d), dx);
      }
    }
    if (l > 0) {
      // through the dropout mask to the layer below's output
      if (g.Dropout()) Kernel<Scale, xpu>::Launch(seq, dx_buf, b.reserve + g.Mask(l - 1));
      dy_layer = dx_buf;
      std::swap(dx_buf, dx_other);
    }
  }
}

/*! \brief FCompute bodies shared by the devices, given the device's GEMM. */
template <typename xpu>
void RNNForwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                       const RnnGemmFn& gemm) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const RnnGeom g(p, in[0].shape_);
  const bool lstm = g.mode == kLstm;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    RnnBlobs<T> b;
    b.x = in[0].dptr<T>(), b.w = in[1].dptr<T>(), b.h0 = in[2].dptr<T>();
    b.c0 = lstm ? in[3].dptr<T>() : nullptr;
    b.y = out[0].dptr<T>(), b.hy = out[1].dptr<T>(), b.cy = lstm ? out[2].dptr<T>() : nullptr;
    b.reserve = out.back().dptr<T>();
    b.temp = static_cast<T*>(ctx.temp);
    RnnForwardImpl<xpu, T>(g, b, ctx.is_train, req[0], req[1], lstm ? req[2] : kNullOp, gemm);
  });
}

template <typename xpu>
void RNNBackwardCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out,
                        const RnnGemmFn& gemm) {
  const RNNParam& p = Param<RNNParam>(attrs);
  const bool lstm = p.mode == kLstm;
  // inputs: dy, dhy, (dcy), data, parameters, state, (state_cell), reserve
  const size_t xi = lstm ? 3 : 2;
  const RnnGeom g(p, in[xi].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[xi].dtype_, T, {
    RnnGradBlobs<T> b;
    b.dy = in[0].dptr<T>(), b.dhy = in[1].dptr<T>(), b.dcy = lstm ? in[2].dptr<T>() : nullptr;
    b.x = in[xi].dptr<T>(), b.w = in[xi + 1].dptr<T>(), b.h0 = in[xi + 2].dptr<T>();
    b.c0 = lstm ? in[xi + 3].dptr<T>() : nullptr;
    b.reserve = in.back().dptr<T>();
    b.dx = out[0].dptr<T>(), b.dw = out[1].dptr<T>(), b.dh0 = out[2].dptr<T>();
    b.dc0 = lstm ? out[3].dptr<T>() : nullptr;
    b.temp = static_cast<T*>(ctx.temp);
    std::vector<OpReqType> r(req.begin(), req.end());
    r.resize(4, kNullOp);
    RnnBackwardImpl<xpu, T>(g, b, r, gemm);
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_RNN_H_
