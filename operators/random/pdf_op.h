/*!
 * \brief The probability density (mass) functions MXNet 1.9.1 registers as _random_pdf_<dist>
 *  (aliases random_pdf_<dist>): uniform, normal, gamma, exponential, poisson, negative_binomial,
 *  generalized_negative_binomial and dirichlet. Inputs (sample, parameter arrays...); the
 *  parameters share one shape P and sample has shape P + T: parameter i applies to the prod(T)
 *  samples sample[i, ...], as the _sample_<dist> ops lay their draws out. The output has the
 *  sample's shape (dirichlet: P[:-1] + T, each sample a vector of P[-1] entries).
 *  is_log gives the log density.
 *
 *  Gradients w.r.t. the sample and the parameters; a parameter's sums over its prod(T) samples
 *  in one thread (deterministic, no atomics). The discrete ones give the sample (a count) a zero
 *  gradient, as MXNet does. Everything is computed
 *  in double; one functor call per parameter index, one thread each on a GPU.
 */
#ifndef SYMNET_OPERATORS_RANDOM_PDF_OP_H_
#define SYMNET_OPERATORS_RANDOM_PDF_OP_H_

#include <cmath>
#include <vector>

#include "../math_functors.h"
#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct PdfParam : public dmlc::Parameter<PdfParam> {
  bool is_log;
  DMLC_DECLARE_PARAMETER(PdfParam) {
    DMLC_DECLARE_FIELD(is_log).set_default(false).describe(
        "Compute the log of the density instead of the density.");
  }
};

// Each scalar distribution: LogPdf(x, a, b) and Grad(x, a, b, &dx, &da, &db), the partial
// derivatives of the log density (b unused by one-parameter distributions).

/*! \brief uniform(low a, high b): 1/(b - a), the sample unchecked against [a, b] (MXNet's). */
struct PdfUniform {
  static constexpr int kParams = 2;
  SYMNET_XINLINE static double LogPdf(double, double a, double b) { return -log(b - a); }
  SYMNET_XINLINE static void Grad(double, double a, double b, double* dx, double* da, double* db) {
    *dx = 0;
    *da = 1 / (b - a);
    *db = -1 / (b - a);
  }
};

/*! \brief normal(mu a, sigma b). */
struct PdfNormal {
  static constexpr int kParams = 2;
  SYMNET_XINLINE static double LogPdf(double x, double a, double b) {
    const double z = (x - a) / b;
    return -0.5 * z * z - log(b) - 0.91893853320467274178;  // log sqrt(2 pi)
  }
  SYMNET_XINLINE static void Grad(double x, double a, double b, double* dx, double* da,
                                  double* db) {
    const double z = (x - a) / b;
    *dx = -z / b;
    *da = z / b;
    *db = (z * z - 1) / b;
  }
};

/*! \brief gamma(shape alpha a, rate beta b): b^a x^(a-1) e^(-b x) / Gamma(a). */
struct PdfGamma {
  static constexpr int kParams = 2;
  SYMNET_XINLINE static double LogPdf(double x, double a, double b) {
    return a * log(b) + (a - 1) * log(x) - b * x - lgamma(a);
  }
  SYMNET_XINLINE static void Grad(double x, double a, double b, double* dx, double* da,
                                  double* db) {
    *dx = (a - 1) / x - b;
    *da = log(b) + log(x) - mathf::digamma::Map(a);
    *db = a / b - x;
  }
};

/*! \brief exponential(lam a): a e^(-a x). */
struct PdfExponential {
  static constexpr int kParams = 1;
  SYMNET_XINLINE static double LogPdf(double x, double a, double) { return log(a) - a * x; }
  SYMNET_XINLINE static void Grad(double x, double a, double, double* dx, double* da, double*) {
    *dx = -a;
    *da = 1 / a - x;
  }
};

/*! \brief poisson(lam a): a^x e^(-a) / x!. */
struct PdfPoisson {
  static constexpr int kParams = 1;
  SYMNET_XINLINE static double LogPdf(double x, double a, double) {
    return x * log(a) - a - lgamma(x + 1);
  }
  SYMNET_XINLINE static void Grad(double x, double a, double, double* dx, double* da, double*) {
    *dx = 0;  // a count: no gradient (MXNet's)
    *da = x / a - 1;
  }
};

/*! \brief negative_binomial(k, p): failures x before the k-th success of probability p,
 *  Gamma(x + k) / (x! Gamma(k)) p^k (1 - p)^x. */
struct PdfNegativeBinomial {
  static constexpr int kParams = 2;
  SYMNET_XINLINE static double LogPdf(double x, double k, double p) {
    return lgamma(x + k) - lgamma(x + 1) - lgamma(k) + k * log(p) + x * log(1 - p);
  }
  SYMNET_XINLINE static void Grad(double x, double k, double p, double* dx, double* dk,
                                  double* dp) {
    *dx = 0;  // a count: no gradient (MXNet's)
    *dk = mathf::digamma::Map(x + k) - mathf::digamma::Map(k) + log(p);
    *dp = k / p - x / (1 - p);
  }
};

/*! \brief generalized_negative_binomial(mu, alpha): negative_binomial(k = 1/alpha,
 *  p = 1/(1 + mu alpha)), mean mu and variance mu + alpha mu^2. */
struct PdfGeneralizedNegativeBinomial {
  static constexpr int kParams = 2;
  SYMNET_XINLINE static double LogPdf(double x, double mu, double alpha) {
    return PdfNegativeBinomial::LogPdf(x, 1 / alpha, 1 / (1 + mu * alpha));
  }
  SYMNET_XINLINE static void Grad(double x, double mu, double alpha, double* dx, double* dmu,
                                  double* dalpha) {
    const double k = 1 / alpha, q = 1 + mu * alpha;
    double dk, dp;
    PdfNegativeBinomial::Grad(x, k, 1 / q, dx, &dk, &dp);
    *dmu = dp * (-alpha / (q * q));                  // dp/dmu
    *dalpha = dk * (-k * k) + dp * (-mu / (q * q));  // dk/dalpha, dp/dalpha
  }
};

/*! \brief An element as double (16-bit types convert through their AccType). */
template <typename T>
SYMNET_XINLINE double PdfIn(T v) {
  return static_cast<double>(static_cast<AccType<T>>(v));
}
/*! \brief A double as an element. */
template <typename T>
SYMNET_XINLINE T PdfOut(double v) {
  return T(static_cast<AccType<T>>(v));
}

/*! \brief Writes or adds v per a runtime request (one kernel serves every mix of requests). */
template <typename T>
SYMNET_XINLINE void PutReq(T* p, double v, int req) {
  if (req == kAddTo) {
    *p = PdfOut<T>(PdfIn(*p) + v);
  } else if (req != kNullOp) {
    *p = PdfOut<T>(v);
  }
}

/*! \brief Parameter index i: the log density (or density) of its `tail` samples. */
template <typename D, bool is_log>
struct PdfForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* x, const T* p0, const T* p1,
                                 int64_t tail) {
    const double a = PdfIn(p0[i]), b = PdfIn(p1[i]);
    for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
      const double lp = D::LogPdf(PdfIn(x[j]), a, b);
      out[j] = PdfOut<T>(is_log ? lp : exp(lp));
    }
  }
};

/*! \brief Parameter index i: the gradients of its samples and its parameters from og (the
 *  output's gradient); req_x and req_p are the requests of the sample's and the parameters'. */
template <typename D, bool is_log>
struct PdfBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* og, const T* x, const T* p0, const T* p1,
                                 T* dx, T* dp0, T* dp1, int64_t tail, int req_x, int req_p0,
                                 int req_p1) {
    const double a = PdfIn(p0[i]), b = PdfIn(p1[i]);
    double sa = 0, sb = 0;
    for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
      const double xj = PdfIn(x[j]);
      double gx, ga, gb = 0;
      D::Grad(xj, a, b, &gx, &ga, &gb);
      const double s = PdfIn(og[j]) * (is_log ? 1.0 : exp(D::LogPdf(xj, a, b)));
      PutReq(&dx[j], s * gx, req_x);
      sa += s * ga;
      sb += s * gb;
    }
    PutReq(&dp0[i], sa, req_p0);
    if (D::kParams > 1) PutReq(&dp1[i], sb, req_p1);
  }
};

/*! \brief dirichlet(alpha, k entries): the log density of the `tail` sample vectors of
 *  parameter vector i, sum (a_c - 1) log x_c + lgamma(sum a) - sum lgamma(a_c). */
template <bool is_log>
struct DirichletForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* x, const T* alpha, int64_t tail,
                                 int64_t k) {
    const T* a = alpha + i * k;
    double sum = 0, norm = 0;
    for (int64_t c = 0; c < k; ++c) {
      sum += PdfIn(a[c]);
      norm -= lgamma(PdfIn(a[c]));
    }
    norm += lgamma(sum);
    for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
      double lp = norm;
      for (int64_t c = 0; c < k; ++c) lp += (PdfIn(a[c]) - 1) * log(PdfIn(x[j * k + c]));
      out[j] = PdfOut<T>(is_log ? lp : exp(lp));
    }
  }
};

/*! \brief Its gradient: d/dx_c = (a_c - 1)/x_c, d/da_c = log x_c + digamma(sum a) -
 *  digamma(a_c), times the density when not is_log. */
template <bool is_log>
struct DirichletBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, const T* og, const T* x, const T* alpha, T* dx,
                                 T* dalpha, int64_t tail, int64_t k, int req_x, int req_a) {
    const T* a = alpha + i * k;
    double sum = 0, norm = 0;
    for (int64_t c = 0; c < k; ++c) {
      sum += PdfIn(a[c]);
      norm -= lgamma(PdfIn(a[c]));
    }
    norm += lgamma(sum);
    const double psi_sum = mathf::digamma::Map(sum);
    for (int64_t c = 0; c < k; ++c) {
      double g = 0;
      for (int64_t j = i * tail; j < (i + 1) * tail; ++j) {
        double s = PdfIn(og[j]);
        if (!is_log) {
          double lp = norm;
          for (int64_t e = 0; e < k; ++e) lp += (PdfIn(a[e]) - 1) * log(PdfIn(x[j * k + e]));
          s *= exp(lp);
        }
        const double xc = PdfIn(x[j * k + c]);
        PutReq(&dx[j * k + c], s * (PdfIn(a[c]) - 1) / xc, req_x);
        g += s * (log(xc) + psi_sum - mathf::digamma::Map(PdfIn(a[c])));
      }
      PutReq(&dalpha[i * k + c], g, req_a);
    }
  }
};

/*! \brief (parameter count, samples per parameter, vector length k) of a call: k = 1 for the
 *  scalar distributions; dirichlet's parameters (P, k) and samples (P, T, k). */
inline void PdfDims(const Shape& sample, const Shape& param, bool vector, int64_t* n, int64_t* tail,
                    int64_t* k) {
  const int pd = param.ndim() - (vector ? 1 : 0);
  *k = vector ? param[param.ndim() - 1] : 1;
  *n = param.ProdRange(0, pd);
  *tail = sample.ProdRange(pd, sample.ndim() - (vector ? 1 : 0));
}

template <typename xpu, typename D>
void PdfForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  int64_t n, tail, k;
  PdfDims(in[0].shape_, in[1].shape_, false, &n, &tail, &k);
  const TBlob& p1 = in[D::kParams > 1 ? 2 : 1];
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    if (Param<PdfParam>(attrs).is_log) {
      Kernel<PdfForwardKernel<D, true>, xpu>::LaunchCost(n, tail, out[0].dptr<T>(), in[0].dptr<T>(),
                                                         in[1].dptr<T>(), p1.dptr<T>(), tail);
    } else {
      Kernel<PdfForwardKernel<D, false>, xpu>::LaunchCost(
          n, tail, out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(), p1.dptr<T>(), tail);
    }
  });
}

/*! \brief Inputs (ograd, sample, parameters...); outputs (dsample, dparameters...). */
template <typename xpu, typename D>
void PdfBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int64_t n, tail, k;
  PdfDims(in[1].shape_, in[2].shape_, false, &n, &tail, &k);
  const int two = D::kParams > 1 ? 2 : 1;
  const TBlob& p1 = in[1 + two];
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    auto launch = [&](auto kernel) {
      using K = decltype(kernel);
      Kernel<K, xpu>::LaunchCost(n, tail, in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
                                 p1.dptr<T>(), out[0].dptr<T>(), out[1].dptr<T>(),
                                 out[two].dptr<T>(), tail, static_cast<int>(req[0]),
                                 static_cast<int>(req[1]), static_cast<int>(req[two]));
    };
    if (Param<PdfParam>(attrs).is_log) {
      launch(PdfBackwardKernel<D, true>());
    } else {
      launch(PdfBackwardKernel<D, false>());
    }
  });
}

template <typename xpu>
void DirichletPdfForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                         const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  int64_t n, tail, k;
  PdfDims(in[0].shape_, in[1].shape_, true, &n, &tail, &k);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    if (Param<PdfParam>(attrs).is_log) {
      Kernel<DirichletForwardKernel<true>, xpu>::LaunchCost(
          n, tail * k, out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(), tail, k);
    } else {
      Kernel<DirichletForwardKernel<false>, xpu>::LaunchCost(
          n, tail * k, out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(), tail, k);
    }
  });
}

template <typename xpu>
void DirichletPdfBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  int64_t n, tail, k;
  PdfDims(in[1].shape_, in[2].shape_, true, &n, &tail, &k);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    auto launch = [&](auto kernel) {
      using K = decltype(kernel);
      Kernel<K, xpu>::LaunchCost(n, tail * k * k, in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
                                 out[0].dptr<T>(), out[1].dptr<T>(), tail, k,
                                 static_cast<int>(req[0]), static_cast<int>(req[1]));
    };
    if (Param<PdfParam>(attrs).is_log) {
      launch(DirichletBackwardKernel<true>());
    } else {
      launch(DirichletBackwardKernel<false>());
    }
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_RANDOM_PDF_OP_H_
