/*!
 * \brief clip (MXNet's): y = min(max(x, a_min), a_max); the gradient passes where
 *  a_min <= x <= a_max and is 0 outside. Templated on the device: clip.cc registers the op with
 *  xpu = cpu, clip.cu adds the GPU kernels with xpu = gpu.
 */
#ifndef SYMNET_OPERATORS_TENSOR_CLIP_H_
#define SYMNET_OPERATORS_TENSOR_CLIP_H_

#include <vector>

#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

struct ClipParam : public dmlc::Parameter<ClipParam> {
  double a_min, a_max;
  DMLC_DECLARE_PARAMETER(ClipParam) {
    DMLC_DECLARE_FIELD(a_min).describe("Minimum value.");
    DMLC_DECLARE_FIELD(a_max).describe("Maximum value.");
  }
};

/*! \brief y = x clamped to [lo, hi]; a NaN stays NaN (neither comparison holds). */
template <int req>
struct ClipKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* y, const T* x, A lo, A hi) {
    const A v = static_cast<A>(x[i]);
    AssignReq<req>(&y[i], v < lo ? lo : (v > hi ? hi : v));
  }
};

/*! \brief Inputs (dy, x): dx = dy where lo <= x <= hi, else 0. */
template <int req>
struct ClipGradKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* dy, const T* x, A lo, A hi) {
    const A v = static_cast<A>(x[i]);
    AssignReq<req>(&dx[i], (v >= lo && v <= hi) ? static_cast<A>(dy[i]) : A(0));
  }
};

template <typename xpu = cpu>
void ClipCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& p = Param<ClipParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ClipKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                           static_cast<A>(p.a_min), static_cast<A>(p.a_max));
    });
  });
}

template <typename xpu = cpu>
void ClipGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ClipParam& p = Param<ClipParam>(attrs);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ClipGradKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                               in[1].dptr<T>(), static_cast<A>(p.a_min),
                                               static_cast<A>(p.a_max));
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_CLIP_H_
