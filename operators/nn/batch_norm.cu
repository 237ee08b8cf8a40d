/*!
 * \brief BatchNorm on a GPU with exactly the CPU's semantics (biased batch variance in the
 *  moving average, fix_gamma, use_global_stats, any channel axis): a grid of (channel, part)
 *  blocks -- (32-channel tile, part) for channels-last data -- reduces the statistics in double
 *  (about 1024 blocks in all, combined with double atomics), element-wise kernels normalize and
 *  form the gradients.
 *  SyncBatchNorm runs the same kernels with its per-channel sums summed over the ranks between
 *  the partial sums and their use.
 *  (cuDNN's batch norm keeps an unbiased running variance, which would make GPU and CPU
 *  checkpoints differ, so it is not used.)
 */
#include <vector>

#include "batch_norm.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

constexpr int kBNThreads = 256;

/*! \brief Block-wide sum of two doubles; the result is valid in thread 0. */
__device__ void BlockSum2(double* a, double* b) {
  __shared__ double sa[kBNThreads], sb[kBNThreads];
  sa[threadIdx.x] = *a;
  sb[threadIdx.x] = *b;
  __syncthreads();
  for (int step = kBNThreads / 2; step > 0; step >>= 1) {
    if (threadIdx.x < step) {
      sa[threadIdx.x] += sa[threadIdx.x + step];
      sb[threadIdx.x] += sb[threadIdx.x + step];
    }
    __syncthreads();
  }
  *a = sa[0];
  *b = sb[0];
}

/*!
 * \brief The two per-channel sums one thread accumulates: v and v^2 (v = x) for the statistics,
 *  or dy and dy * xhat for the gradient.
 */
template <bool grad, typename T, typename P>
struct StatTerms {
  const T* x;
  const T* dy;
  double m = 0, invstd = 0, a = 0, b = 0;
  __device__ StatTerms(const T* x_, const T* dy_, const P* mean, const P* var, double eps,
                       int64_t c)
      : x(x_), dy(dy_) {
    if (grad) {
      m = static_cast<double>(mean[c]);
      invstd = 1.0 / sqrt(static_cast<double>(var[c]) + eps);
    }
  }
  __device__ void Add(int64_t k) {
    const double v = static_cast<AccType<T>>(x[k]);
    if (grad) {
      const double d = static_cast<AccType<T>>(dy[k]);
      a += d;
      b += d * (v - m) * invstd;
    } else {
      a += v;
      b += v * v;
    }
  }
};

/*!
 * \brief Partial per-channel sums (StatTerms) of channels-first data: block (c, part) sums its
 *  share of channel c (VisitChannelPart) and adds its total to sums[2c], sums[2c+1] (double
 *  atomics; zeroed before).
 */
template <bool grad, typename T, typename P>
__global__ void PartialSumsKernel(const T* x, const T* dy, int64_t outer, int64_t C, int64_t inner,
                                  const P* mean, const P* var, double eps, double* sums) {
  const int64_t c = blockIdx.x;
  StatTerms<grad, T, P> t(x, dy, mean, var, eps, c);
  VisitChannelPart(c, blockIdx.y, gridDim.y, threadIdx.x, kBNThreads, outer, C, inner,
                   [&](int64_t k) { t.Add(k); });
  BlockSum2(&t.a, &t.b);
  if (threadIdx.x == 0) {
    atomicAdd(&sums[2 * c], t.a);
    atomicAdd(&sums[2 * c + 1], t.b);
  }
}

/*! \brief Channels-last tiles: 32 neighbouring channels (one coalesced read per row) x 8 rows. */
constexpr int kCLChannels = 32, kCLRows = 8;

/*!
 * \brief Partial per-channel sums of (rows, C) channels-last data: block (tile, part) covers
 *  channels tile*32 ... +31 and rows part*8 + y, stepping by parts*8; its 8 row sums per channel
 *  are combined in shared memory and added to sums with double atomics.
 */
template <bool grad, typename T, typename P>
__global__ void ChannelsLastSumsKernel(const T* x, const T* dy, int64_t rows, int64_t C,
                                       const P* mean, const P* var, double eps, double* sums) {
  __shared__ double sa[kCLRows][kCLChannels], sb[kCLRows][kCLChannels];
  const int64_t c = static_cast<int64_t>(blockIdx.x) * kCLChannels + threadIdx.x;
  double a = 0, b = 0;
  if (c < C) {
    StatTerms<grad, T, P> t(x, dy, mean, var, eps, c);
    VisitChannelsLastRows(c, blockIdx.y, gridDim.y, threadIdx.y, kCLRows, rows, C,
                          [&](int64_t k) { t.Add(k); });
    a = t.a;
    b = t.b;
  }
  sa[threadIdx.y][threadIdx.x] = a;
  sb[threadIdx.y][threadIdx.x] = b;
  __syncthreads();
  if (threadIdx.y == 0 && c < C) {
    for (int i = 1; i < kCLRows; ++i) {
      a += sa[i][threadIdx.x];
      b += sb[i][threadIdx.x];
    }
    atomicAdd(&sums[2 * c], a);
    atomicAdd(&sums[2 * c + 1], b);
  }
}

/*! \brief Blocks per channel: enough blocks in all to fill a large GPU, at most one per row. */
unsigned PartsPerChannel(int64_t C, int64_t outer) {
  int64_t parts = (1024 + C - 1) / C;
  if (parts > outer) parts = outer;
  if (parts > 65535) parts = 65535;
  return static_cast<unsigned>(parts < 1 ? 1 : parts);
}

/*!
 * \brief Zeroes sums[2C] and enqueues the partial-sum kernel that suits the data: channels-last
 *  (inner == 1) reads rows of neighbouring channels, channels-first reads runs of one channel.
 */
template <bool grad, typename T, typename P>
void LaunchPartialSums(int dev, const T* x, const T* dy, int64_t outer, int64_t C, int64_t inner,
                       const P* mean, const P* var, double eps, double* sums) {
  cuda::Memset(sums, 0, static_cast<size_t>(2 * C) * sizeof(double), dev);
  if (inner == 1 && C > 1) {
    const int64_t tiles = (C + kCLChannels - 1) / kCLChannels;
    int64_t parts = (1024 + tiles - 1) / tiles;
    const int64_t row_groups = (outer + kCLRows - 1) / kCLRows;
    if (parts > row_groups) parts = row_groups;
    if (parts > 65535) parts = 65535;
    const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(parts < 1 ? 1 : parts));
    ChannelsLastSumsKernel<grad, T, P>
        <<<grid, dim3(kCLChannels, kCLRows), 0, cuda::CurrentStream()>>>(x, dy, outer, C, mean, var,
                                                                         eps, sums);
  } else {
    const dim3 grid(static_cast<unsigned>(C), PartsPerChannel(C, outer));
    PartialSumsKernel<grad, T, P><<<grid, kBNThreads, 0, cuda::CurrentStream()>>>(
        x, dy, outer, C, inner, mean, var, eps, sums);
  }
  cuda::CheckLaunch(grad ? "BatchNorm gradient statistics" : "BatchNorm statistics");
}

/*! \brief Channel c: batch mean and biased variance from the sums; then the moving averages. */
struct FinishStats {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, const double* sums, double count, P* mean, P* var,
                                 P* moving_mean, P* moving_var, P momentum) {
    const double m = sums[2 * c] / count;
    const double v = fmax(sums[2 * c + 1] / count - m * m, 0.0);
    mean[c] = static_cast<P>(m);
    var[c] = static_cast<P>(v);
    if (moving_mean) {  // in P with the rounded statistics, exactly as the CPU
      moving_mean[c] = momentum * moving_mean[c] + (P(1) - momentum) * mean[c];
      moving_var[c] = momentum * moving_var[c] + (P(1) - momentum) * var[c];
    }
  }
};

struct BNView {
  int64_t C, inner;
  double eps;
  bool fix_gamma;
};

template <int req>
struct NormalizeKernel {
  template <typename T, typename P>
  SYMNET_XINLINE static void Map(int64_t k, const T* x, T* y, const P* gamma, const P* beta,
                                 const P* mean, const P* var, BNView v) {
    const int64_t c = (k / v.inner) % v.C;
    const double g = v.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    const double scale = g / sqrt(static_cast<double>(var[c]) + v.eps);
    const double val = (static_cast<AccType<T>>(x[k]) - static_cast<double>(mean[c])) * scale +
                       static_cast<double>(beta[c]);
    AssignReq<req>(&y[k], static_cast<AccType<T>>(val));
  }
};

/*! \brief Channel c: dbeta = sum(dy), dgamma = sum(dy * xhat) (0 with fix_gamma). */
struct FinishGradStats {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, const double* sums, bool fix_gamma, P* dgamma, P* dbeta,
                                 OpReqType req_gamma, OpReqType req_beta) {
    PutReq(&dgamma[c], req_gamma, fix_gamma ? 0.0 : sums[2 * c + 1]);
    PutReq(&dbeta[c], req_beta, sums[2 * c]);
  }
};

template <int req>
struct GradDataKernel {
  template <typename T, typename P>
  SYMNET_XINLINE static void Map(int64_t k, const T* dy, const T* x, T* dx, const P* gamma,
                                 const P* mean, const P* var, const double* sums, BNView v,
                                 double count, bool batch_stats) {
    const int64_t c = (k / v.inner) % v.C;
    const double invstd = 1.0 / sqrt(static_cast<double>(var[c]) + v.eps);
    const double g = v.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    const double d = static_cast<AccType<T>>(dy[k]);
    double val = d * g * invstd;
    if (batch_stats) {
      const double xhat = (static_cast<AccType<T>>(x[k]) - static_cast<double>(mean[c])) * invstd;
      val = g * invstd * (d - sums[2 * c] / count - xhat * sums[2 * c + 1] / count);
    }
    AssignReq<req>(&dx[k], static_cast<AccType<T>>(val));
  }
};

/*! \brief BatchNorm's third output: the variance it used, as 1 / sqrt(var + eps) (batch_norm.h). */
struct ToInvStdKernel {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, P* var, double eps) {
    var[c] = VarianceToInvStd(var[c], eps);
  }
};

/*! \brief And back: the variance from BatchNorm's third output, for the backward. */
struct FromInvStdKernel {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, const P* invstd, P* var, double eps) {
    var[c] = InvStdToVariance(invstd[c], eps);
  }
};

/*! \brief What the kernels need of BatchNorm's and SyncBatchNorm's parameters. */
struct BNSettings {
  double eps;
  float momentum;
  bool fix_gamma, use_global_stats;
  int axis;
  bool sync;           // SyncBatchNorm: the per-channel sums are summed over the ranks of the job
  bool invstd_output;  // BatchNorm: the third output is 1 / sqrt(var + eps), as in MXNet
};

BNSettings BatchNormSettings(const NodeAttrs& attrs) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  return {p.eps, p.momentum, p.fix_gamma, p.use_global_stats, p.axis, false, true};
}

BNSettings SyncBatchNormSettings(const NodeAttrs& attrs) {
  const SyncBatchNormParam& p = Param<SyncBatchNormParam>(attrs);
  return {p.eps, p.momentum, p.fix_gamma, p.use_global_stats, 1, true, false};
}

/*! \brief x as (outer, C, inner) (ChannelViewOf); blocked layouts never reach the GPU. */
ChannelView Dims(int axis, const TBlob& x) {
  SYMNET_CHECK(!x.blocked()) << "GPU BatchNorm: no blocked (nChw8c/nChw16c) layout";
  return ChannelViewOf(x, axis);
}

/*!
 * \brief SyncBatchNorm: the 2C per-channel sums on the device and this rank's element count are
 *  summed over the ranks (through host memory: two small copies per call); returns the job's
 *  element count. BatchNorm: returns `count` as it is.
 */
double SumOverRanks(const NodeAttrs& attrs, const BNSettings& s, const char* part, double* dev_sums,
                    int64_t C, double count, int dev) {
  if (!s.sync) return count;
  std::vector<double> host(static_cast<size_t>(2 * C + 1));
  const size_t bytes = static_cast<size_t>(2 * C) * sizeof(double);
  if (C > 0) cuda::CopyBytes(host.data(), Device::CPU(), dev_sums, Device::GPU(dev), bytes);
  host[2 * C] = count;
  SyncBatchNormSumOverRanks(attrs, part, host.data(), host.size());
  if (C > 0) cuda::CopyBytes(dev_sums, Device::GPU(dev), host.data(), Device::CPU(), bytes);
  return host[2 * C];
}

void BNForwardGPU(const BNSettings& p, const NodeAttrs& attrs, const OpContext& ctx,
                  const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                  const std::vector<TBlob>& out) {
  const TBlob& x = in[kData];
  // an empty batch leaves the moving averages as they were (as on the CPU); SyncBatchNorm
  // decides on the job's batch, every rank taking part in the sums
  bool batch_stats = ctx.is_train && !p.use_global_stats && (p.sync || x.Size() > 0);
  const ChannelView d = Dims(p.axis, x);
  const BNView v{d.c, d.inner, p.eps, p.fix_gamma};
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    using P = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    if (batch_stats) {
      double* sums = static_cast<double*>(
          cuda::Workspace(ctx.dev.id, static_cast<size_t>(2 * d.c + 1) * sizeof(double)));
      if (d.c > 0)
        LaunchPartialSums<false, T, P>(ctx.dev.id, x.dptr<T>(), static_cast<const T*>(nullptr),
                                       d.outer, d.c, d.inner, static_cast<const P*>(nullptr),
                                       static_cast<const P*>(nullptr), 0.0, sums);
      const double count = SumOverRanks(attrs, p, "statistics", sums, d.c,
                                        static_cast<double>(d.outer * d.inner), ctx.dev.id);
      batch_stats = count > 0;
      if (batch_stats && d.c > 0)
        Kernel<FinishStats, gpu>::Launch(
            d.c, static_cast<const double*>(sums), count, out[1].dptr<P>(), out[2].dptr<P>(),
            in[kMovingMean].dptr<P>(), in[kMovingVar].dptr<P>(), static_cast<P>(p.momentum));
    }
    if (!batch_stats) {  // normalize with the moving statistics, reported as mean/var outputs
      cuda::CopyBytes(out[1].dptr_, out[1].dev_, in[kMovingMean].dptr_, in[kMovingMean].dev_,
                      out[1].Bytes());
      cuda::CopyBytes(out[2].dptr_, out[2].dev_, in[kMovingVar].dptr_, in[kMovingVar].dev_,
                      out[2].Bytes());
    }
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<NormalizeKernel<Req>, gpu>::Launch(x.Size(), x.dptr<T>(), out[0].dptr<T>(),
                                                in[kGamma].dptr<P>(), in[kBeta].dptr<P>(),
                                                out[1].dptr<P>(), out[2].dptr<P>(), v);
    });
    if (p.invstd_output && d.c > 0)
      Kernel<ToInvStdKernel, gpu>::Launch(d.c, out[2].dptr<P>(), p.eps);
  });
}

/*!
 * \brief Inputs (dy, x, gamma, mean, var; BatchNorm: 1 / sqrt(var + eps)); outputs (dx, dgamma,
 *  dbeta). dgamma and dbeta are this
 *  rank's sums (the gradient all-reduce completes them); dx uses the job's sums with SyncBatchNorm.
 */
void BNBackwardGPU(const BNSettings& p, const NodeAttrs& attrs, const OpContext& ctx,
                   const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                   const std::vector<TBlob>& out) {
  const TBlob &dy = in[0], &x = in[1];
  const bool batch_stats = !p.use_global_stats;
  const ChannelView d = Dims(p.axis, x);
  const BNView v{d.c, d.inner, p.eps, p.fix_gamma};
  // the sums (2C + 1 doubles), then room for C variances
  double* sums = static_cast<double*>(
      cuda::Workspace(ctx.dev.id, static_cast<size_t>(3 * d.c + 1) * sizeof(double)));
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    using P = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    const P* var = in[4].dptr<P>();
    if (p.invstd_output && d.c > 0) {
      P* v = reinterpret_cast<P*>(sums + 2 * d.c + 1);
      Kernel<FromInvStdKernel, gpu>::Launch(d.c, in[4].dptr<P>(), v, p.eps);
      var = v;
    }
    if (d.c > 0) {
      LaunchPartialSums<true, T, P>(ctx.dev.id, x.dptr<T>(), dy.dptr<T>(), d.outer, d.c, d.inner,
                                    in[3].dptr<P>(), var, p.eps, sums);
      Kernel<FinishGradStats, gpu>::Launch(d.c, static_cast<const double*>(sums), p.fix_gamma,
                                           out[1].dptr<P>(), out[2].dptr<P>(), req[1], req[2]);
    }
    double count = static_cast<double>(d.outer * d.inner);
    if (batch_stats) count = SumOverRanks(attrs, p, "gradients", sums, d.c, count, ctx.dev.id);
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<GradDataKernel<Req>, gpu>::Launch(
          x.Size(), dy.dptr<T>(), x.dptr<T>(), out[0].dptr<T>(), in[2].dptr<P>(), in[3].dptr<P>(),
          var, static_cast<const double*>(sums), v, count, batch_stats);
    });
  });
}

template <BNSettings (*settings)(const NodeAttrs&)>
void ForwardOf(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BNForwardGPU(settings(attrs), attrs, ctx, in, req, out);
}

template <BNSettings (*settings)(const NodeAttrs&)>
void BackwardOf(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  BNBackwardGPU(settings(attrs), attrs, ctx, in, req, out);
}

}  // namespace

SYMNET_REGISTER_OP(BatchNorm).set_attr<FCompute>("FCompute<gpu>", ForwardOf<BatchNormSettings>);
SYMNET_REGISTER_OP(_backward_BatchNorm)
    .set_attr<FCompute>("FCompute<gpu>", BackwardOf<BatchNormSettings>);
SYMNET_REGISTER_OP(_contrib_SyncBatchNorm)
    .set_attr<FCompute>("FCompute<gpu>", ForwardOf<SyncBatchNormSettings>);
SYMNET_REGISTER_OP(_backward_contrib_SyncBatchNorm)
    .set_attr<FCompute>("FCompute<gpu>", BackwardOf<SyncBatchNormSettings>);

}  // namespace ops
}  // namespace symnet
