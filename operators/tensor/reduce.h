/*! \brief The reductions over axes (sum, mean, max, min, prod, nansum, nanprod, norm): parameter,
 *  shapes and kernels, templated on the device. */
#ifndef SYMNET_OPERATORS_TENSOR_REDUCE_H_
#define SYMNET_OPERATORS_TENSOR_REDUCE_H_

#include <vector>

#include "broadcast_util.h"

namespace symnet {
namespace ops {

struct ReduceParam : public dmlc::Parameter<ReduceParam> {
  Shape axis;
  bool keepdims;
  bool exclude;
  DMLC_DECLARE_PARAMETER(ReduceParam) {
    DMLC_DECLARE_FIELD(axis).set_default(Shape()).describe(
        "The axis or axes to reduce; None (the default) reduces all axes. Negative values count "
        "from the back.");
    DMLC_DECLARE_FIELD(keepdims).set_default(false).describe(
        "Keep the reduced axes in the result as dimensions of size 1.");
    DMLC_DECLARE_FIELD(exclude).set_default(false).describe(
        "Reduce over all axes except those in axis.");
  }
};
/*! \brief Which axes of an ndim-dimensional input are reduced. */
inline std::vector<bool> ReducedAxes(const ReduceParam& p, const Shape& in) {
  std::vector<bool> reduce(in.ndim(), !p.axis.ndim_known());
  if (p.axis.ndim_known()) {
    for (auto a : p.axis) {
      const int64_t ax = a < 0 ? a + in.ndim() : a;
      SYMNET_CHECK(ax >= 0 && ax < in.ndim())
          << "axis " << a << " is out of range for an input of shape " << in;
      reduce[ax] = true;
    }
    if (p.exclude) reduce.flip();
  }
  return reduce;
}

/*! \brief The input shape with reduced axes set to 1 (the keepdims shape). */
inline Shape KeepDimsShape(const ReduceParam& p, const Shape& in) {
  const std::vector<bool> reduce = ReducedAxes(p, in);
  Shape out = in;
  for (int i = 0; i < in.ndim(); ++i)
    if (reduce[i]) out[i] = 1;
  return out;
}

inline Shape OutputShape(const ReduceParam& p, const Shape& in) {
  if (p.keepdims) return KeepDimsShape(p, in);
  const std::vector<bool> reduce = ReducedAxes(p, in);
  Shape out = Shape::Scalar();
  for (int i = 0; i < in.ndim(); ++i)
    if (!reduce[i]) out.push_back(in[i]);
  if (out.ndim() == 0) out.push_back(1);  // MXNet gives shape (1,) for a full reduction
  return out;
}

template <bool is_mean, typename xpu = cpu>
void ReduceCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Shape kd = KeepDimsShape(Param<ReduceParam>(attrs), in[0].shape_);
  const double scale = is_mean ? static_cast<double>(kd.Size()) / in[0].Size() : 1.0;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    ReduceToShape<xpu>(in[0].dptr<T>(), in[0].shape_, out[0].dptr<T>(), kd, req[0], scale);
  });
}

/*! \brief Inputs (dy); output dx of the forward input's shape: dy broadcast (over the count for
 * mean). */
template <bool is_mean, typename xpu = cpu>
void ReduceGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const Shape kd = KeepDimsShape(Param<ReduceParam>(attrs), out[0].shape_);
  const double scale = is_mean ? static_cast<double>(kd.Size()) / out[0].Size() : 1.0;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    BroadcastToShape<xpu>(in[0].dptr<T>(), kd, out[0].dptr<T>(), out[0].shape_, req[0], scale);
  });
}

// ---- max, min, prod, nansum, nanprod, norm: reducers for broadcast_util.h's ReduceAxesKernel ----

/*! \brief max: NaN wins (as NumPy and MXNet), and an empty reduction gives -inf. */
struct MaxReducer {
  SYMNET_XINLINE static double Init() { return -INFINITY; }
  SYMNET_XINLINE static void Add(double* acc, double v) {
    if (v > *acc || v != v) *acc = *acc != *acc ? *acc : v;
  }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
/*! \brief min: NaN wins, and an empty reduction gives +inf. */
struct MinReducer {
  SYMNET_XINLINE static double Init() { return INFINITY; }
  SYMNET_XINLINE static void Add(double* acc, double v) {
    if (v < *acc || v != v) *acc = *acc != *acc ? *acc : v;
  }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
struct ProdReducer {
  SYMNET_XINLINE static double Init() { return 1.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) { *acc *= v; }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
/*! \brief nansum: NaN terms count as 0. */
struct NanSumReducer {
  SYMNET_XINLINE static double Init() { return 0.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) {
    if (v == v) *acc += v;
  }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
/*! \brief nanprod: NaN terms count as 1. */
struct NanProdReducer {
  SYMNET_XINLINE static double Init() { return 1.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) {
    if (v == v) *acc *= v;
  }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
struct L1Reducer {
  SYMNET_XINLINE static double Init() { return 0.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) { *acc += v < 0 ? -v : v; }
  SYMNET_XINLINE static double Finish(double acc) { return acc; }
};
struct L2Reducer {
  SYMNET_XINLINE static double Init() { return 0.0; }
  SYMNET_XINLINE static void Add(double* acc, double v) { *acc += v * v; }
  SYMNET_XINLINE static double Finish(double acc) { return sqrt(acc); }
};

/*! \brief out (the keepdims shape `kd`, any layout of the same size) = R over src's other axes. */
template <typename R, typename xpu = cpu>
void ReduceAxes(const TBlob& src, const Shape& kd, const TBlob& out, OpReqType req) {
  const ReduceDims r = MakeReduceDims(src.shape_, kd);
  SYMNET_FLOAT_TYPE_SWITCH(src.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<ReduceAxesKernel<R, Req>, xpu>::LaunchCost(kd.Size(), r.num_reduced, src.dptr<T>(),
                                                        out.dptr<T>(), r, 1.0);
    });
  });
}

// The gradients as dx = dy * G(x, y), with y the reduced output broadcast back to x's shape.
/*! \brief max/min: every term equal to the result gets dy (ties share it, as MXNet). */
struct EqualsResultGrad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return A(x == y);
  }
};
/*! \brief prod: the product of the other terms, y / x (as MXNet; a zero term gives NaN). */
struct ProdGrad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return y / x;
  }
};
struct NanSumGrad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return A(x == x);
  }
};
struct NanProdGrad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return x == x ? y / x : A(0);
  }
};
struct L1Grad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return A(x > A(0)) - A(x < A(0));
  }
};
/*! \brief d|x|_2 = x / |x|_2, and 0 at the origin (MXNet 1.9.1 gives NaN there). */
struct L2Grad {
  template <typename A>
  SYMNET_XINLINE static A Map(A x, A y) {
    return y > A(0) ? x / y : A(0);
  }
};

template <typename G, int req>
struct ReduceAxesGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* dy, const T* x, const T* y,
                                 BroadcastMap m) {
    using A = AccType<T>;
    const int64_t k = m.InOffset(i);
    AssignReq<req>(&dx[i],
                   static_cast<A>(dy[k]) * G::Map(static_cast<A>(x[i]), static_cast<A>(y[k])));
  }
};

/*! \brief Inputs (dy, x, y) with dy and y in the keepdims shape `kd`; output dx. */
template <typename G, typename xpu = cpu>
void ReduceAxesGrad(const std::vector<TBlob>& in, const Shape& kd, const TBlob& dx, OpReqType req) {
  const BroadcastMap m(kd, dx.shape_);
  SYMNET_FLOAT_TYPE_SWITCH(dx.dtype_, T, {
    SYMNET_REQ_SWITCH(req, Req, {
      Kernel<ReduceAxesGradKernel<G, Req>, xpu>::Launch(dx.Size(), dx.dptr<T>(), in[0].dptr<T>(),
                                                        in[1].dptr<T>(), in[2].dptr<T>(), m);
    });
  });
}

template <typename R, typename xpu = cpu>
void ReduceAxesCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ReduceAxes<R, xpu>(in[0], KeepDimsShape(Param<ReduceParam>(attrs), in[0].shape_), out[0], req[0]);
}

template <typename G, typename xpu = cpu>
void ReduceAxesGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                           const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  ReduceAxesGrad<G, xpu>(in, KeepDimsShape(Param<ReduceParam>(attrs), out[0].shape_), out[0],
                         req[0]);
}

/*! \brief The reductions with a ReduceParam as X(NAME, reducer, gradient, doc). */
#define SYMNET_REDUCE_AXES_OPS(X)                                                    \
  X(max, MaxReducer, EqualsResultGrad, "Maximum over the given axes (NaN wins).")    \
  X(min, MinReducer, EqualsResultGrad, "Minimum over the given axes (NaN wins).")    \
  X(prod, ProdReducer, ProdGrad, "Product over the given axes.")                     \
  X(nansum, NanSumReducer, NanSumGrad, "Sum over the given axes, NaN counted as 0.") \
  X(nanprod, NanProdReducer, NanProdGrad, "Product over the given axes, NaN counted as 1.")

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_REDUCE_H_
