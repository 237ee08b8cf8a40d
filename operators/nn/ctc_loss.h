/*!
 * \brief CTCLoss's parameter and kernels (shared by the CPU and the GPU). The forward pass runs
 *  the log-space forward-backward recursion of Graves et al. over the label with blanks woven in
 *  (extended label position s holds the blank for even s and label (s-1)/2 for odd s), one
 *  kernel call per batch element, and stores the gradient with respect to the activations as a
 *  hidden second output, as MXNet does; the backward op scales it by the head gradient.
 */
#ifndef SYMNET_OPERATORS_NN_CTC_LOSS_H_
#define SYMNET_OPERATORS_NN_CTC_LOSS_H_

#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "../operator_common.h"
#include "src/device/device_ops.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum CTCBlank { kCTCBlankFirst, kCTCBlankLast };

struct CTCLossParam : public dmlc::Parameter<CTCLossParam> {
  bool use_data_lengths;
  bool use_label_lengths;
  int blank_label;
  DMLC_DECLARE_PARAMETER(CTCLossParam) {
    DMLC_DECLARE_FIELD(use_data_lengths)
        .set_default(false)
        .describe(
            "Take each sequence's length from the data_lengths input; otherwise every "
            "sequence is sequence_length steps long.");
    DMLC_DECLARE_FIELD(use_label_lengths)
        .set_default(false)
        .describe(
            "Take each label's length from the label_lengths input; otherwise a label ends "
            "at the first padding value (0 with blank_label 'first', -1 with 'last').");
    DMLC_DECLARE_FIELD(blank_label)
        .add_enum("first", kCTCBlankFirst)
        .add_enum("last", kCTCBlankLast)
        .set_default(kCTCBlankFirst)
        .describe(
            "Which channel is the blank: 'first' (channel 0; labels 1..alphabet_size-1, "
            "padding 0) or 'last' (channel alphabet_size-1; labels 0..alphabet_size-2, "
            "padding -1).");
  }
};

/*! \brief Why a batch element could not be evaluated (the host turns it into an error). */
enum CTCStatus {
  kCTCOk = 0,
  kCTCBadDataLength = 1,
  kCTCBadLabelLength = 2,
  kCTCLabelOutOfRange = 3
};

/*! \brief The sizes of one call: data (T, N, C), label (N, W). */
struct CTCDims {
  int64_t T, N, C, W;
  int blank, pad;
  bool use_dl, use_ll, want_grad;
  SYMNET_XINLINE int64_t S() const { return 2 * W + 1; }
  /*! \brief Accumulator elements per batch element: alpha (T x S), two beta rows, the
   *  log-normalizer of every step, and a per-symbol sum. */
  SYMNET_XINLINE int64_t PerElement() const { return T * S() + 2 * S() + T + C; }
};

/*! \brief Bytes of temporary space: the accumulators, then the labels and lengths as ints and a
 *  status per element. */
inline size_t CTCTempBytes(const CTCDims& d, size_t acc_bytes) {
  const size_t acc = static_cast<size_t>(d.N * d.PerElement()) * acc_bytes;
  const size_t ints = static_cast<size_t>(d.N * d.W + 3 * d.N);
  return ((acc + 7) / 8) * 8 + ints * sizeof(int);
}

/*!
 * \brief Rounds an index (label, length) to the nearest integer, halves away from zero, as MXNet
 *  reads them. NaN and huge values land far outside every valid range, so they fail the checks.
 */
template <typename I>
struct CTCIndexKernel {
  SYMNET_XINLINE static void Map(int64_t i, int* out, const I* in) {
    const double v = static_cast<double>(static_cast<AccType<I>>(in[i]));
    if (!(v > -1e9)) {
      out[i] = -1000000000;
    } else if (v > 1e9) {
      out[i] = 1000000000;
    } else {
      out[i] = static_cast<int>(std::round(v));
    }
  }
};

/*! \brief log(exp(a) + exp(b)) without overflow; -inf stands for probability 0. */
template <typename A>
SYMNET_XINLINE A CTCLogAdd(A a, A b) {
  if (a == A(-INFINITY)) return b;
  if (b == A(-INFINITY)) return a;
  const A hi = a > b ? a : b, lo = a > b ? b : a;
  return hi + std::log1p(std::exp(lo - hi));
}

/*!
 * \brief One batch element b: checks its lengths and labels, then the loss -log p(label | x)
 *  and (want_grad) d loss / d x = softmax(x) - sum over extended positions s with symbol k of
 *  alpha_t(s) beta_t(s) / p. Steps past the element's length get a zero gradient. A label that
 *  no alignment fits (label length plus its repeats, which need a blank between them, longer
 *  than the sequence) gets loss 0 and a zero gradient, as MXNet 1.9.1 returns.
 */
template <int req>
struct CTCLossKernel {
  template <typename D, typename A>
  SYMNET_XINLINE static void Map(int64_t b, const D* x, const int* lab, const int* dlen,
                                 const int* llen, D* loss, D* grad, A* work, int* status,
                                 CTCDims d) {
    const int64_t T = d.T, N = d.N, C = d.C, W = d.W, SW = d.S();
    // x[t, b, c] lives at (t * N + b) * C + c
    auto at = [&](int64_t t, int64_t c) { return (t * N + b) * C + c; };
    auto zero_grad = [&](int64_t from) {
      if (!d.want_grad) return;
      for (int64_t t = from; t < T; ++t)
        for (int64_t c = 0; c < C; ++c) grad[at(t, c)] = D(A(0));
    };
    // lengths and labels
    const int64_t Tb = d.use_dl ? dlen[b] : T;
    int st = kCTCOk;
    int64_t L = 0;
    const int* l = lab + b * W;
    if (Tb < 0 || Tb > T) st = kCTCBadDataLength;
    if (d.use_ll) {
      L = llen[b];
      if (L < 0 || L > W) st = kCTCBadLabelLength;
    } else {
      while (L < W && l[L] != d.pad) ++L;
    }
    if (st == kCTCOk) {
      for (int64_t j = 0; j < L; ++j) {
        if (l[j] < 0 || l[j] >= C) {
          st = kCTCLabelOutOfRange;
          break;
        }
      }
    }
    status[b] = st;
    if (st != kCTCOk) {
      AssignReq<req>(&loss[b], A(NAN));
      zero_grad(0);
      return;
    }
    int64_t repeats = 0;
    for (int64_t j = 1; j < L; ++j) repeats += l[j] == l[j - 1];
    if (L + repeats > Tb) {
      AssignReq<req>(&loss[b], A(0));
      zero_grad(0);
      return;
    }
    const int64_t S = 2 * L + 1;
    A* alpha = work + b * d.PerElement();  // alpha[t * SW + s]
    A* beta = alpha + T * SW;              // two rows of SW
    A* lse = beta + 2 * SW;                // log sum_c exp(x[t, b, c])
    A* acc = lse + T;                      // per-symbol log sums at one step
    auto sym = [&](int64_t s) { return (s & 1) ? l[(s - 1) / 2] : d.blank; };
    // May position s be reached from s - 2 (skipping a blank)? Only between different labels.
    // A label value equal to the blank is a symbol too, as in MXNet 1.9.1 (warp-ctc), whose two
    // passes test the blank differently: forward, no skip lands on such a label; backward, no
    // skip leaves one. The gradient follows MXNet's numbers, quirk included.
    auto skip_in = [&](int64_t s) {
      return (s & 1) && s >= 3 && sym(s) != d.blank && sym(s) != sym(s - 2);
    };
    auto skip_out = [&](int64_t s) {  // from s to s + 2
      return (s & 1) && s + 2 < S && sym(s) != d.blank && sym(s) != sym(s + 2);
    };
    for (int64_t t = 0; t < Tb; ++t) {
      A mx = A(-INFINITY);
      for (int64_t c = 0; c < C; ++c) {
        const A v = static_cast<A>(x[at(t, c)]);
        mx = v > mx ? v : mx;
      }
      A sum = 0;
      for (int64_t c = 0; c < C; ++c) sum += std::exp(static_cast<A>(x[at(t, c)]) - mx);
      lse[t] = mx + std::log(sum);
    }
    auto logp = [&](int64_t t, int64_t s) { return static_cast<A>(x[at(t, sym(s))]) - lse[t]; };
    if (Tb == 0) {  // the empty label on an empty sequence: probability 1
      AssignReq<req>(&loss[b], A(0));
      zero_grad(0);
      return;
    }
    for (int64_t s = 0; s < S; ++s) alpha[s] = s < 2 ? logp(0, s) : A(-INFINITY);
    for (int64_t t = 1; t < Tb; ++t) {
      const A* prev = alpha + (t - 1) * SW;
      A* cur = alpha + t * SW;
      for (int64_t s = 0; s < S; ++s) {
        A a = prev[s];
        if (s >= 1) a = CTCLogAdd(a, prev[s - 1]);
        if (skip_in(s)) a = CTCLogAdd(a, prev[s - 2]);
        cur[s] = a == A(-INFINITY) ? a : a + logp(t, s);
      }
    }
    const A* last = alpha + (Tb - 1) * SW;
    const A ll = S >= 2 ? CTCLogAdd(last[S - 1], last[S - 2]) : last[S - 1];
    AssignReq<req>(&loss[b], -ll);
    if (!d.want_grad) return;
    zero_grad(Tb);
    // beta_t(s): log probability of the rest of the path after step t, given position s at t
    A* bcur = beta;
    A* bnext = beta + SW;
    for (int64_t s = 0; s < S; ++s) bcur[s] = s >= S - 2 ? A(0) : A(-INFINITY);
    for (int64_t t = Tb - 1; t >= 0; --t) {
      if (t < Tb - 1) {
        // bnext holds beta_{t+1}; combine it with the emissions at t + 1
        for (int64_t s = 0; s < S; ++s) {
          A v = bnext[s] == A(-INFINITY) ? bnext[s] : bnext[s] + logp(t + 1, s);
          if (s + 1 < S && bnext[s + 1] != A(-INFINITY))
            v = CTCLogAdd(v, bnext[s + 1] + logp(t + 1, s + 1));
          if (skip_out(s) && bnext[s + 2] != A(-INFINITY))
            v = CTCLogAdd(v, bnext[s + 2] + logp(t + 1, s + 2));
          bcur[s] = v;
        }
      }
      for (int64_t c = 0; c < C; ++c) acc[c] = A(-INFINITY);
      const A* a = alpha + t * SW;
      for (int64_t s = 0; s < S; ++s) {
        if (a[s] == A(-INFINITY) || bcur[s] == A(-INFINITY)) continue;
        const int k = sym(s);
        acc[k] = CTCLogAdd(acc[k], a[s] + bcur[s]);
      }
      for (int64_t c = 0; c < C; ++c) {
        const A p = std::exp(static_cast<A>(x[at(t, c)]) - lse[t]);
        const A post = acc[c] == A(-INFINITY) ? A(0) : std::exp(acc[c] - ll);
        grad[at(t, c)] = D(p - post);
      }
      A* tmp = bcur;
      bcur = bnext;
      bnext = tmp;
    }
  }
};

/*! \brief dx[t, b, c] = dy[b] * g[t, b, c] (g: the gradient the forward stored). */
template <int req>
struct CTCLossGradKernel {
  template <typename D, typename G>
  SYMNET_XINLINE static void Map(int64_t i, const G* dy, const D* g, D* dx, int64_t N, int64_t C) {
    using A = AccType<D>;
    const int64_t b = (i / C) % N;
    AssignReq<req>(&dx[i], static_cast<A>(static_cast<AccType<G>>(dy[b])) * static_cast<A>(g[i]));
  }
};

inline CTCDims MakeCTCDims(const CTCLossParam& p, const Shape& data, const Shape& label) {
  CTCDims d;
  d.T = data[0];
  d.N = data[1];
  d.C = data[2];
  d.W = label[1];
  d.blank = p.blank_label == kCTCBlankFirst ? 0 : static_cast<int>(d.C - 1);
  d.pad = p.blank_label == kCTCBlankFirst ? 0 : -1;
  d.use_dl = p.use_data_lengths;
  d.use_ll = p.use_label_lengths;
  d.want_grad = true;
  return d;
}

/*! \brief The error for a batch element's status (thrown on the host after the kernel ran). */
void CTCThrow(const NodeAttrs& attrs, int status, int64_t b, const CTCDims& d);

/*!
 * \brief Inputs (data, label[, data_lengths][, label_lengths]); outputs (loss, gradient). The
 *  labels and lengths are rounded to ints in the temporary space first, so the main kernel is
 *  instantiated per data dtype only. Invalid labels or lengths are an error naming the first
 *  bad element; on a GPU that check waits for the device (MXNet copies the labels to the host
 *  for every call).
 */
template <typename xpu>
void CTCLossForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const CTCLossParam& p = Param<CTCLossParam>(attrs);
  CTCDims d = MakeCTCDims(p, in[0].shape_, in[1].shape_);
  d.want_grad = req[1] != kNullOp;
  if (d.N == 0) return;
  const size_t acc_bytes = in[0].dtype_ == DType::kFloat64 ? 8 : 4;
  SYMNET_CHECK(ctx.temp != nullptr && ctx.temp_bytes >= CTCTempBytes(d, acc_bytes))
      << "internal error: CTCLoss got no temporary space";
  char* base = static_cast<char*>(ctx.temp);
  const size_t acc = static_cast<size_t>(d.N * d.PerElement()) * acc_bytes;
  int* lab = reinterpret_cast<int*>(base + ((acc + 7) / 8) * 8);
  int* dlen = lab + d.N * d.W;
  int* llen = dlen + d.N;
  int* status = llen + d.N;
  SYMNET_TYPE_SWITCH(in[1].dtype_, I,
                     { Kernel<CTCIndexKernel<I>, xpu>::Launch(d.N * d.W, lab, in[1].dptr<I>()); });
  size_t next = 2;
  if (d.use_dl) {
    const TBlob& dl = in[next++];
    SYMNET_TYPE_SWITCH(dl.dtype_, I,
                       { Kernel<CTCIndexKernel<I>, xpu>::Launch(d.N, dlen, dl.dptr<I>()); });
  }
  if (d.use_ll) {
    const TBlob& ll = in[next++];
    SYMNET_TYPE_SWITCH(ll.dtype_, I,
                       { Kernel<CTCIndexKernel<I>, xpu>::Launch(d.N, llen, ll.dptr<I>()); });
  }
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, D, {
    using A = AccType<D>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<CTCLossKernel<Req>, xpu>::LaunchCost(
          d.N, d.T * (d.C + 4 * d.S()), in[0].dptr<D>(), lab, dlen, llen, out[0].dptr<D>(),
          out[1].dptr<D>(), reinterpret_cast<A*>(base), status, d);
    });
  });
  std::vector<int> host(static_cast<size_t>(d.N));
  if constexpr (std::is_same<xpu, cpu>::value) {
    std::copy(status, status + d.N, host.begin());
  } else {
    cuda::CopyBytes(host.data(), Device::CPU(), status, ctx.dev, host.size() * sizeof(int));
  }
  for (int64_t b = 0; b < d.N; ++b)
    if (host[b] != kCTCOk) CTCThrow(attrs, host[b], b, d);
}

/*! \brief Inputs (dloss, the stored gradient); output ddata. */
template <typename xpu>
void CTCLossBackward(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const TBlob& g = in[1];
  if (g.Size() == 0) return;
  const int64_t N = g.shape_[1], C = g.shape_[2];
  SYMNET_FLOAT_TYPE_SWITCH(g.dtype_, D, {
    SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, G, {
      SYMNET_REQ_SWITCH(req[0], Req, {
        Kernel<CTCLossGradKernel<Req>, xpu>::Launch(g.Size(), in[0].dptr<G>(), g.dptr<D>(),
                                                    out[0].dptr<D>(), N, C);
      });
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_CTC_LOSS_H_
