/*!
 * \brief Dropout: in training (or mode='always') zeroes each element with probability p and
 *  scales the rest by 1/(1-p); identity otherwise. The mask (second, hidden output) holds 0 or
 *  1/(1-p) and is shared along `axes` (variational dropout). Masks come from counter-based
 *  streams, so a run is reproducible after symnet.random.seed().
 */
#include <cstring>

#include "../kernel_launch.h"
#include "../operator_common.h"
#include "../tensor/broadcast_util.h"
#include "symnet/random.h"

namespace symnet {
namespace ops {

enum DropoutMode { kTraining, kAlways };

struct DropoutParam : public dmlc::Parameter<DropoutParam> {
  float p;
  int mode;
  Shape axes;
  dmlc::optional<bool> cudnn_off;
  DMLC_DECLARE_PARAMETER(DropoutParam) {
    DMLC_DECLARE_FIELD(p).set_default(0.5f).set_range(0.0f, 1.0f).describe(
        "Fraction of the input that gets dropped out during training.");
    DMLC_DECLARE_FIELD(mode)
        .add_enum("training", kTraining)
        .add_enum("always", kAlways)
        .set_default(kTraining)
        .describe("Whether to drop only in training or always.");
    DMLC_DECLARE_FIELD(axes).set_default(Shape()).describe("Axes along which the mask is shared.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(dmlc::optional<bool>()).describe(
        "Accepted for MXNet compatibility.");
  }
};
DMLC_REGISTER_PARAMETER(DropoutParam);

namespace {

bool DropoutShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& x = (*in)[0];
  if (!x.is_known()) return false;
  AssignOutShape(out, 0, x);
  AssignOutShape(out, 1, x);
  return true;
}

template <typename T>
void DropoutForward(const DropoutParam& p, bool active, const TBlob& xb, const TBlob& yb,
                    const TBlob& mb, OpReqType req) {
  using A = AccType<T>;
  const int64_t n = xb.Size();
  const T* x = xb.dptr<T>();
  T* y = yb.dptr<T>();
  T* mask = mb.dptr<T>();
  if (!active || p.p == 0.0f) {
    for (int64_t i = 0; i < n; ++i) mask[i] = T(A(1));
  } else if (p.p >= 1.0f) {
    for (int64_t i = 0; i < n; ++i) mask[i] = T(A(0));
  } else {
    const uint64_t key = NextRandomStream();
    const A keep = static_cast<A>(1.0 / (1.0 - p.p));
    // the mask varies only over axes not in `axes`: draw it for the reduced shape, broadcast
    Shape reduced = xb.shape_;
    if (p.axes.ndim_known())
      for (auto a : p.axes) reduced[a < 0 ? a + reduced.ndim() : a] = 1;
    const BroadcastMap map(reduced, xb.shape_);
#pragma omp parallel for if (n >= kOmpMinWork)
    for (int64_t i = 0; i < n; ++i)
      mask[i] = T(UniformAt(key, static_cast<uint64_t>(map.InOffset(i))) >= p.p ? keep : A(0));
  }
#pragma omp parallel for if (n >= kOmpMinWork)
  for (int64_t i = 0; i < n; ++i) {
    const A v = static_cast<A>(x[i]) * static_cast<A>(mask[i]);
    if (req == kAddTo) {
      AssignReq<kAddTo>(&y[i], v);
    } else {
      AssignReq<kWriteTo>(&y[i], v);
    }
  }
}

void DropoutCompute(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const DropoutParam& p = Param<DropoutParam>(attrs);
  const bool active = ctx.is_train || p.mode == kAlways;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, { DropoutForward<T>(p, active, in[0], out[0], out[1], req[0]); });
}

}  // namespace

SYMNET_REGISTER_OP(Dropout)
    .describe("Randomly zeroes elements with probability p during training, scaling the kept "
              "ones by 1/(1-p); identity in inference (unless mode='always').")
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<DropoutParam>)
    .add_arguments(ParamDocs<DropoutParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input array.")
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "mask"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", DropoutShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            [](const NodeAttrs& a) {
                              // a mask shared along logical axes needs the logical order
                              const Shape& axes = Param<DropoutParam>(a).axes;
                              const bool shared = axes.ndim_known() && axes.ndim() > 0;
                              return shared ? LayoutSlots() : AllSlotsUniform(a);
                            })
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           // dx = dy * mask
                           return MakeGradNode("elemwise_mul", n, {ograds[0], NodeEntry{n, 1, 0}});
                         })
    .set_attr<FCompute>("FCompute<cpu>", DropoutCompute);

}  // namespace ops
}  // namespace symnet
