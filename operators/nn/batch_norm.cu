/*!
 * \brief BatchNorm on a GPU with exactly the CPU's semantics (biased batch variance in the
 *  moving average, fix_gamma, use_global_stats, any channel axis): a grid of (channel, part)
 *  blocks reduces the statistics in double (about 1024 blocks in all, combined with double
 *  atomics), element-wise kernels normalize and form the gradients.
 *  (cuDNN's batch norm keeps an unbiased running variance, which would make GPU and CPU
 *  checkpoints differ, so it is not used.)
 */
#include "../kernel_launch.cuh"
#include "batch_norm.h"

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
 * \brief Partial per-channel sums of v and v^2 (v = x, or for the gradient dy and dy * xhat):
 *  block (c, part) sums rows part, part + parts, ... of channel c and adds its total to
 *  sums[2c], sums[2c+1] (double atomics; zeroed before). Rows are contiguous runs of `inner`
 *  elements, read without divisions when they are long enough.
 */
template <bool grad, typename T, typename P>
__global__ void PartialSumsKernel(const T* x, const T* dy, int64_t outer, int64_t C, int64_t inner,
                                  const P* mean, const P* var, double eps, double* sums) {
  const int64_t c = blockIdx.x, part = blockIdx.y, parts = gridDim.y;
  double m = 0, invstd = 0;
  if (grad) {
    m = static_cast<double>(mean[c]);
    invstd = 1.0 / sqrt(static_cast<double>(var[c]) + eps);
  }
  double a = 0, b = 0;
  auto add = [&](int64_t k) {
    const double v = static_cast<AccType<T>>(x[k]);
    if (grad) {
      const double d = static_cast<AccType<T>>(dy[k]);
      a += d;
      b += d * (v - m) * invstd;
    } else {
      a += v;
      b += v * v;
    }
  };
  if (inner >= 32) {
    for (int64_t o = part; o < outer; o += parts) {
      const int64_t base = (o * C + c) * inner;
      for (int64_t i = threadIdx.x; i < inner; i += kBNThreads) add(base + i);
    }
  } else {
    const int64_t count = outer * inner;
    for (int64_t j = part * kBNThreads + threadIdx.x; j < count; j += parts * kBNThreads)
      add(((j / inner) * C + c) * inner + j % inner);
  }
  BlockSum2(&a, &b);
  if (threadIdx.x == 0) {
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

/*! \brief Channel c: batch mean and biased variance from the sums; then the moving averages. */
struct FinishStats {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, const double* sums, double count, P* mean, P* var, P* moving_mean,
                                 P* moving_var, P momentum) {
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
  SYMNET_XINLINE static void Map(int64_t k, const T* x, T* y, const P* gamma, const P* beta, const P* mean,
                                 const P* var, BNView v) {
    const int64_t c = (k / v.inner) % v.C;
    const double g = v.fix_gamma ? 1.0 : static_cast<double>(gamma[c]);
    const double scale = g / sqrt(static_cast<double>(var[c]) + v.eps);
    const double val = (static_cast<AccType<T>>(x[k]) - static_cast<double>(mean[c])) * scale +
                       static_cast<double>(beta[c]);
    AssignReq<req>(&y[k], static_cast<AccType<T>>(val));
  }
};

template <typename D>
SYMNET_XINLINE void Put(D* dst, OpReqType r, double v) {
  if (r == kAddTo) {
    AssignReq<kAddTo>(dst, static_cast<AccType<D>>(v));
  } else if (r != kNullOp) {
    AssignReq<kWriteTo>(dst, static_cast<AccType<D>>(v));
  }
}

/*! \brief Channel c: dbeta = sum(dy), dgamma = sum(dy * xhat) (0 with fix_gamma). */
struct FinishGradStats {
  template <typename P>
  SYMNET_XINLINE static void Map(int64_t c, const double* sums, bool fix_gamma, P* dgamma, P* dbeta,
                                 OpReqType req_gamma, OpReqType req_beta) {
    Put(&dgamma[c], req_gamma, fix_gamma ? 0.0 : sums[2 * c + 1]);
    Put(&dbeta[c], req_beta, sums[2 * c]);
  }
};

template <int req>
struct GradDataKernel {
  template <typename T, typename P>
  SYMNET_XINLINE static void Map(int64_t k, const T* dy, const T* x, T* dx, const P* gamma, const P* mean,
                                 const P* var, const double* sums, BNView v, double count, bool batch_stats) {
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

struct ChannelDims {
  int64_t outer, c, inner;
};

/*! \brief x seen as (outer, C, inner) in memory order; channels-last data (the GPU layout plan)
 *  is (N * spatial, C, 1). */
ChannelDims Dims(const BatchNormParam& p, const TBlob& x) {
  const Shape& s = x.shape_;
  const int a = ChannelAxis(p, s.ndim());
  if (x.channels_last()) {
    SYMNET_CHECK_EQ(a, 1) << "channels-last BatchNorm data must normalize axis 1";
    return {s.Size() / s[1], s[1], 1};
  }
  SYMNET_CHECK(!x.blocked16()) << "GPU BatchNorm: no nChw16c layout";
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

void BNForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob& x = in[kData];
  const bool batch_stats = ctx.is_train && !p.use_global_stats;
  const ChannelDims d = Dims(p, x);
  const BNView v{d.c, d.inner, p.eps, p.fix_gamma};
  if (!batch_stats) {  // normalize with the moving statistics, reported as mean/var outputs
    cuda::CopyBytes(out[1].dptr_, out[1].dev_, in[kMovingMean].dptr_, in[kMovingMean].dev_, out[1].Bytes());
    cuda::CopyBytes(out[2].dptr_, out[2].dev_, in[kMovingVar].dptr_, in[kMovingVar].dev_, out[2].Bytes());
  }
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    using P = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    if (batch_stats && d.c > 0) {
      double* sums = static_cast<double*>(cuda::Workspace(ctx.dev.id, static_cast<size_t>(2 * d.c) * sizeof(double)));
      cuda::Memset(sums, 0, static_cast<size_t>(2 * d.c) * sizeof(double), ctx.dev.id);
      const dim3 grid(static_cast<unsigned>(d.c), PartsPerChannel(d.c, d.outer));
      PartialSumsKernel<false, T, P><<<grid, kBNThreads, 0, cuda::CurrentStream()>>>(
          x.dptr<T>(), static_cast<const T*>(nullptr), d.outer, d.c, d.inner, static_cast<const P*>(nullptr),
          static_cast<const P*>(nullptr), 0.0, sums);
      cuda::CheckLaunch("BatchNorm statistics");
      Kernel<FinishStats, gpu>::Launch(d.c, static_cast<const double*>(sums), static_cast<double>(d.outer * d.inner),
                                       out[1].dptr<P>(), out[2].dptr<P>(), in[kMovingMean].dptr<P>(),
                                       in[kMovingVar].dptr<P>(), static_cast<P>(p.momentum));
    }
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<NormalizeKernel<Req>, gpu>::Launch(x.Size(), x.dptr<T>(), out[0].dptr<T>(), in[kGamma].dptr<P>(),
                                                in[kBeta].dptr<P>(), out[1].dptr<P>(), out[2].dptr<P>(), v);
    });
  });
}

/*! \brief Inputs (dy, x, gamma, mean, var); outputs (dx, dgamma, dbeta). */
void BNBackwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob &dy = in[0], &x = in[1];
  const bool batch_stats = !p.use_global_stats;
  const ChannelDims d = Dims(p, x);
  const BNView v{d.c, d.inner, p.eps, p.fix_gamma};
  double* sums = static_cast<double*>(cuda::Workspace(ctx.dev.id, static_cast<size_t>(2 * d.c) * sizeof(double)));
  SYMNET_FLOAT_TYPE_SWITCH(x.dtype_, T, {
    using P = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
    if (d.c > 0) {
      cuda::Memset(sums, 0, static_cast<size_t>(2 * d.c) * sizeof(double), ctx.dev.id);
      const dim3 grid(static_cast<unsigned>(d.c), PartsPerChannel(d.c, d.outer));
      PartialSumsKernel<true, T, P><<<grid, kBNThreads, 0, cuda::CurrentStream()>>>(
          x.dptr<T>(), dy.dptr<T>(), d.outer, d.c, d.inner, in[3].dptr<P>(), in[4].dptr<P>(), p.eps, sums);
      cuda::CheckLaunch("BatchNorm gradient statistics");
      Kernel<FinishGradStats, gpu>::Launch(d.c, static_cast<const double*>(sums), p.fix_gamma, out[1].dptr<P>(),
                                           out[2].dptr<P>(), req[1], req[2]);
    }
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<GradDataKernel<Req>, gpu>::Launch(x.Size(), dy.dptr<T>(), x.dptr<T>(), out[0].dptr<T>(),
                                               in[2].dptr<P>(), in[3].dptr<P>(), in[4].dptr<P>(),
                                               static_cast<const double*>(sums), v,
                                               static_cast<double>(d.outer * d.inner), batch_stats);
    });
  });
}

}  // namespace

SYMNET_REGISTER_OP(BatchNorm).set_attr<FCompute>("FCompute<gpu>", BNForwardGPU);
SYMNET_REGISTER_OP(_backward_BatchNorm).set_attr<FCompute>("FCompute<gpu>", BNBackwardGPU);

}  // namespace ops
}  // namespace symnet
