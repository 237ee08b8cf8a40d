/*! \brief GPU kernels of softmax_cross_entropy: one thread per row computes the row's loss (or
 *  gradient) in double, then one sums the losses. */
#include "softmax.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

/*! \brief Max and sum of exp(x - max) of one row of k values, in double. */
template <typename T>
SYMNET_XINLINE void RowMaxExpSum(const T* row, int64_t k, double* mx, double* sum) {
  *mx = -INFINITY;
  *sum = 0;
  for (int64_t j = 0; j < k; ++j)
    *mx = fmax(*mx, static_cast<double>(static_cast<AccType<T>>(row[j])));
  for (int64_t j = 0; j < k; ++j)
    *sum += exp(static_cast<double>(static_cast<AccType<T>>(row[j])) - *mx);
}

/*! \brief loss[i] = -log softmax(x_i)[label_i] (NaN for a label outside [0, k): a kernel cannot
 *  raise the CPU's error, so the loss shows it). */
struct SCERowLoss {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* x, const T* label, int64_t k, double* loss) {
    using A = AccType<T>;
    const T* row = x + i * k;
    double mx, sum;
    RowMaxExpSum(row, k, &mx, &sum);
    const A lab = static_cast<A>(label[i]);
    const int64_t cls = static_cast<int64_t>(lab);
    loss[i] =
        IsClassIndex(lab, k) ? log(sum) + mx - static_cast<double>(static_cast<A>(row[cls])) : NAN;
  }
};

template <int req>
struct SumLosses {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t, const double* loss, int64_t n, T* out) {
    double total = 0;
    for (int64_t i = 0; i < n; ++i) total += loss[i];
    AssignReq<req>(out, static_cast<AccType<T>>(total));
  }
};

/*! \brief Row i of the gradient: (softmax(x_i) - onehot(label_i)) * dy[0]. */
template <int req>
struct SCERowGrad {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* dy, const T* x, const T* label, int64_t k,
                                 T* dx) {
    using A = AccType<T>;
    const T* row = x + i * k;
    const double og = static_cast<A>(dy[0]);
    double mx, sum;
    RowMaxExpSum(row, k, &mx, &sum);
    const int64_t cls = static_cast<int64_t>(static_cast<A>(label[i]));
    for (int64_t j = 0; j < k; ++j) {
      const double g =
          (exp(static_cast<double>(static_cast<A>(row[j])) - mx) / sum - (j == cls ? 1.0 : 0.0)) *
          og;
      AssignReq<req>(&dx[i * k + j], static_cast<A>(g));
    }
  }
};

void SCEGPU(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
            const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = in[0].shape_[0], k = in[0].shape_[1];
  double* loss =
      static_cast<double*>(cuda::Workspace(ctx.dev.id, static_cast<size_t>(n) * sizeof(double)));
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    Kernel<SCERowLoss, gpu>::Launch(n, in[0].dptr<T>(), in[1].dptr<T>(), k, loss);
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SumLosses<Req>, gpu>::Launch(1, static_cast<const double*>(loss), n, out[0].dptr<T>());
    });
  });
}

/*! \brief Inputs (dy (1,), data, label); outputs (ddata, dlabel = 0). */
void SCEGradGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = in[1].shape_[0], k = in[1].shape_[1];
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<SCERowGrad<Req>, gpu>::Launch(n, in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(), k,
                                           out[0].dptr<T>());
    });
  });
  ZerosCompute(attrs, ctx, {}, {req[1]}, {out[1]});
}

}  // namespace

SYMNET_REGISTER_OP(softmax_cross_entropy).set_attr<FCompute>("FCompute<gpu>", SCEGPU);
SYMNET_REGISTER_OP(_backward_softmax_cross_entropy).set_attr<FCompute>("FCompute<gpu>", SCEGradGPU);

}  // namespace ops
}  // namespace symnet
