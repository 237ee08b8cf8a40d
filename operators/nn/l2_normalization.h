/*!
 * \brief L2Normalization's parameter and kernels (shared by the CPU and the GPU). Each mode
 *  divides x by sqrt(sum x^2 + eps) over a group of elements: all of one sample (instance), the
 *  channels at one position (channel), or the positions of one channel (spatial). One kernel
 *  thread handles one group, summing in double.
 */
#ifndef SYMNET_OPERATORS_NN_L2_NORMALIZATION_H_
#define SYMNET_OPERATORS_NN_L2_NORMALIZATION_H_

#include <cmath>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

enum L2NormMode { kL2Instance, kL2Channel, kL2Spatial };

struct L2NormalizationParam : public dmlc::Parameter<L2NormalizationParam> {
  float eps;
  int mode;
  DMLC_DECLARE_PARAMETER(L2NormalizationParam) {
    DMLC_DECLARE_FIELD(eps).set_default(1e-10f).describe("Added to the sum of squares.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("instance", kL2Instance)
        .add_enum("channel", kL2Channel)
        .add_enum("spatial", kL2Spatial)
        .set_default(kL2Instance)
        .describe("Which elements share a norm: a sample, a position's channels, a channel.");
  }
};

/*! \brief Group g's elements are base(g) + j * stride, j < count. */
struct L2Groups {
  int64_t groups, count, stride, ginner, outer_stride;
  double eps;
  SYMNET_XINLINE int64_t base(int64_t g) const { return (g / ginner) * outer_stride + g % ginner; }
};

inline L2Groups MakeL2Groups(const L2NormalizationParam& p, const Shape& s) {
  const int64_t n = s[0], size = s.Size();
  const double eps = p.eps;
  if (p.mode == kL2Instance) {
    const int64_t per = n > 0 ? size / n : 0;
    return {n, per, 1, 1, per, eps};
  }
  const int64_t c = s[1], inner = s.ProdRange(2, s.ndim());
  if (p.mode == kL2Channel) return {n * inner, c, inner, inner, c * inner, eps};
  return {n * c, inner, 1, 1, inner, eps};
}

template <int req>
struct L2NormForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t g, const T* x, T* y, L2Groups v) {
    const int64_t b = v.base(g);
    double s = 0;
    for (int64_t j = 0; j < v.count; ++j) {
      const double a = static_cast<AccType<T>>(x[b + j * v.stride]);
      s += a * a;
    }
    const double inv = 1.0 / sqrt(s + v.eps);
    for (int64_t j = 0; j < v.count; ++j) {
      const int64_t k = b + j * v.stride;
      AssignReq<req>(&y[k], static_cast<AccType<T>>(static_cast<AccType<T>>(x[k]) * inv));
    }
  }
};

/*! \brief dx = dy / n - x * sum(dy * x) / n^3 with n = sqrt(sum x^2 + eps) of the group. */
template <int req>
struct L2NormBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t g, const T* dy, const T* x, T* dx, L2Groups v) {
    const int64_t b = v.base(g);
    double s = 0, d = 0;
    for (int64_t j = 0; j < v.count; ++j) {
      const int64_t k = b + j * v.stride;
      const double a = static_cast<AccType<T>>(x[k]);
      s += a * a;
      d += a * static_cast<AccType<T>>(dy[k]);
    }
    const double inv = 1.0 / sqrt(s + v.eps);
    const double c = d * inv * inv * inv;
    for (int64_t j = 0; j < v.count; ++j) {
      const int64_t k = b + j * v.stride;
      const double val = static_cast<AccType<T>>(dy[k]) * inv - static_cast<AccType<T>>(x[k]) * c;
      AssignReq<req>(&dx[k], static_cast<AccType<T>>(val));
    }
  }
};

template <typename xpu>
void L2NormForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const L2Groups v = MakeL2Groups(Param<L2NormalizationParam>(attrs), in[0].shape_);
  if (in[0].Size() == 0) return;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<L2NormForwardKernel<Req>, xpu>::LaunchCost(v.groups, v.count, in[0].dptr<T>(),
                                                        out[0].dptr<T>(), v);
    });
  });
}

/*! \brief Inputs (dy, x); output dx. */
template <typename xpu>
void L2NormBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const L2Groups v = MakeL2Groups(Param<L2NormalizationParam>(attrs), in[1].shape_);
  if (in[1].Size() == 0) return;
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<L2NormBackwardKernel<Req>, xpu>::LaunchCost(v.groups, v.count, in[0].dptr<T>(),
                                                         in[1].dptr<T>(), out[0].dptr<T>(), v);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_L2_NORMALIZATION_H_
