/*! \brief sum/mean parameter, shapes and kernels, templated on the device. */
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

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_REDUCE_H_
