/*!
 * \brief The creation ops with no inputs (MXNet 1.x's _zeros, _ones, _full and _arange, behind
 *  mx.sym.zeros/ones/full/arange and mx.nd.arange). Fills store the value's bits (any dtype);
 *  _arange computes start + (i / repeat) * step in the output's type (float for the 16-bit
 *  ones). Templated on the device: init_ops.cc registers the CPU kernels, init_ops.cu the GPU
 *  ones.
 */
#ifndef SYMNET_OPERATORS_TENSOR_INIT_OPS_H_
#define SYMNET_OPERATORS_TENSOR_INIT_OPS_H_

#include <dmlc/optional.h>

#include <string>
#include <vector>

#include "bits_util.h"

namespace symnet {
namespace ops {

#define SYMNET_INIT_SHAPE_FIELD(shape)                                                            \
  DMLC_DECLARE_FIELD(shape)                                                                       \
      .set_default(Shape::Scalar())                                                               \
      .describe(                                                                                  \
          "The output's shape. () and 0 dims are unknown, to be inferred from how the output is " \
          "used (MXNet 1.x's convention, e.g. an RNN's begin state of shape (0, hidden)); a 0 "   \
          "dim "                                                                                  \
          "that nothing decides is 0, an empty dim.")
#define SYMNET_INIT_CTX_FIELD(ctx)                                                            \
  DMLC_DECLARE_FIELD(ctx).set_default("").describe(                                           \
      "The device of an imperative call's output, as 'cpu(0)' or 'gpu(1)' (default cpu(0)); " \
      "in a graph the executor's device is used.")

#define SYMNET_INIT_DTYPE_FIELD(dtype)                \
  DMLC_DECLARE_FIELD(dtype)                           \
      .SYMNET_DTYPE_ENUM(dtype)                       \
      .set_default(static_cast<int>(DType::kFloat32)) \
      .describe("The output's dtype.")

struct InitParam : public dmlc::Parameter<InitParam> {
  Shape shape;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(InitParam) {
    SYMNET_INIT_SHAPE_FIELD(shape);
    SYMNET_INIT_CTX_FIELD(ctx);
    SYMNET_INIT_DTYPE_FIELD(dtype);
  }
};

struct FullParam : public dmlc::Parameter<FullParam> {
  Shape shape;
  std::string ctx;
  int dtype;
  double value;
  DMLC_DECLARE_PARAMETER(FullParam) {
    SYMNET_INIT_SHAPE_FIELD(shape);
    SYMNET_INIT_CTX_FIELD(ctx);
    SYMNET_INIT_DTYPE_FIELD(dtype);
    DMLC_DECLARE_FIELD(value).describe(
        "The value of every element (converted to dtype; integers truncate).");
  }
};

struct RangeParam : public dmlc::Parameter<RangeParam> {
  double start;
  dmlc::optional<double> stop;
  double step;
  int repeat;
  bool infer_range;
  std::string ctx;
  int dtype;
  DMLC_DECLARE_PARAMETER(RangeParam) {
    DMLC_DECLARE_FIELD(start).describe(
        "The first value; with stop None (and infer_range off) the range is [0, start).");
    DMLC_DECLARE_FIELD(stop)
        .set_default(dmlc::optional<double>())
        .describe("Where the range ends (exclusive); None: see start and infer_range.");
    DMLC_DECLARE_FIELD(step).set_default(1.0).describe("The difference of consecutive values.");
    DMLC_DECLARE_FIELD(repeat).set_default(1).describe("How many times each value is repeated.");
    DMLC_DECLARE_FIELD(infer_range)
        .set_default(false)
        .describe(
            "With stop None: the length comes from how the output is used (shape inference), "
            "counting from start.");
    SYMNET_INIT_CTX_FIELD(ctx);
    DMLC_DECLARE_FIELD(dtype)
        .SYMNET_DTYPE_ENUM_NO_BOOL(dtype)
        .set_default(static_cast<int>(DType::kFloat32))
        .describe("The output's dtype.");
  }
};

template <int req>
struct FillKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, T v) {
    AssignReq<req>(&out[i], static_cast<AccType<T>>(v));
  }
};

/*! \brief out[i] = start + (i / repeat) * step, in A (the output's AccType): in the integer types
 *  start and step are integers first, as MXNet converts them. */
template <int req>
struct ArangeKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* out, A start, A step, int64_t repeat) {
    AssignReq<req>(&out[i], start + static_cast<A>(i / repeat) * step);
  }
};

/*! \brief Fills the output with `value` converted to its dtype. */
template <typename xpu>
void FillBlob(const TBlob& out, OpReqType req, double value) {
  if (out.Size() == 0) return;
  SYMNET_COPY_REQ_SWITCH(out.dtype_, req, T, Req, {
    const T v = CopyValue<Req, T>(value, out.dtype_);
    Kernel<FillKernel<Req>, xpu>::Launch(out.Size(), out.dptr<T>(), v);
  });
}

/*! \brief The fill values of _zeros, _ones and _full. */
inline double Zero(const NodeAttrs&) { return 0.0; }
inline double One(const NodeAttrs&) { return 1.0; }
inline double FullValue(const NodeAttrs& attrs) { return Param<FullParam>(attrs).value; }

/*! \brief _zeros, _ones, _full: the value comes from the node (ValueOf). */
template <typename xpu, double (*ValueOf)(const NodeAttrs&)>
void FillForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  FillBlob<xpu>(out[0], req[0], ValueOf(attrs));
}

template <typename xpu>
void ArangeForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>&,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].Size() == 0) return;
  const RangeParam& p = Param<RangeParam>(attrs);
  SYMNET_TYPE_SWITCH(out[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ArangeKernel<Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), CastValue<A>(p.start),
                                             CastValue<A>(p.step), static_cast<int64_t>(p.repeat));
    });
  });
}

/*!
 * \brief The shape attribute as inference sees it: () says nothing (unknown ndim) and a 0 dim is
 *  unknown, as in MXNet 1.x, so a begin state of shape (0, hidden) takes its batch from the
 *  graph. What inference still leaves open is settled by InitShapeFallback.
 *  The random samplers (operators/random) share these rules.
 */
template <typename P>
bool InitShape(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const Shape& given = Param<P>(attrs).shape;
  if (given.ndim() > 0) {
    Shape s = given;
    for (auto& d : s)
      if (d == 0) d = -1;
    AssignOutShape(out, 0, s);
  }
  return (*out)[0].is_known();
}

/*! \brief FInferShapeFallback: the 0 dims nothing else decided are 0 (an empty array), so
 *  _zeros(shape=(0, 3)) alone is an empty (0, 3) array. */
template <typename P>
bool InitShapeFallback(const NodeAttrs& attrs, std::vector<Shape>*, std::vector<Shape>* out) {
  const Shape& given = Param<P>(attrs).shape;
  Shape& s = (*out)[0];
  if (given.ndim() == 0 || s.ndim() != given.ndim()) return false;
  for (int d = 0; d < s.ndim(); ++d)
    if (s[d] < 0 && given[d] == 0) s[d] = 0;
  return s.is_known();
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_INIT_OPS_H_
