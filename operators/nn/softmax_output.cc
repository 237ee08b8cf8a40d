/*!
 * \brief SoftmaxOutput: softmax in forward, cross-entropy gradient (y - onehot(label)) in
 *  backward, with MXNet's grad_scale, ignore_label, normalization, multi_output, smoothing.
 */
#include "softmax.h"

namespace symnet {
namespace ops {

enum SoftmaxNorm { kNormNull, kNormBatch, kNormValid };

struct SoftmaxOutputParam : public dmlc::Parameter<SoftmaxOutputParam> {
  float grad_scale;
  float ignore_label;
  bool multi_output;
  bool use_ignore;
  bool preserve_shape;
  int normalization;
  bool out_grad;
  float smooth_alpha;
  DMLC_DECLARE_PARAMETER(SoftmaxOutputParam) {
    DMLC_DECLARE_FIELD(grad_scale).set_default(1.0f).describe("Scales the gradient.");
    DMLC_DECLARE_FIELD(ignore_label).set_default(-1.0f).describe(
        "Label whose gradient is zero (with use_ignore).");
    DMLC_DECLARE_FIELD(multi_output).set_default(false).describe(
        "Softmax over axis 1 of (n, k, x1, ..., xn), one label per (n, x1, ..., xn).");
    DMLC_DECLARE_FIELD(use_ignore).set_default(false).describe("Honour ignore_label.");
    DMLC_DECLARE_FIELD(preserve_shape).set_default(false).describe(
        "Softmax over the last axis, keeping the input shape.");
    DMLC_DECLARE_FIELD(normalization)
        .add_enum("null", kNormNull)
        .add_enum("batch", kNormBatch)
        .add_enum("valid", kNormValid)
        .set_default(kNormNull)
        .describe("Divide the gradient by nothing, the batch size, or the number of valid labels.");
    DMLC_DECLARE_FIELD(out_grad).set_default(false).describe(
        "Multiply the gradient by the head gradient (otherwise it is ignored).");
    DMLC_DECLARE_FIELD(smooth_alpha).set_default(0.0f).set_range(0.0f, 1.0f).describe(
        "Label smoothing: the target puts 1-alpha on the label and spreads alpha over the rest.");
  }
};
DMLC_REGISTER_PARAMETER(SoftmaxOutputParam);

namespace {

/*! \brief (outer, classes, inner) view of the data, by mode. */
AxisSplit ClassSplit(const SoftmaxOutputParam& p, const Shape& d) {
  if (p.multi_output) return SplitAtAxis(d, 1);
  if (p.preserve_shape) return SplitAtAxis(d, -1);
  return AxisSplit{d[0], d.ProdRange(1, d.ndim()), 1};
}

Shape LabelShape(const SoftmaxOutputParam& p, const Shape& d) {
  Shape l = Shape::Scalar();
  if (p.multi_output) {
    l.push_back(d[0]);
    for (int i = 2; i < d.ndim(); ++i) l.push_back(d[i]);
  } else if (p.preserve_shape) {
    for (int i = 0; i + 1 < d.ndim(); ++i) l.push_back(d[i]);
  } else {
    l.push_back(d[0]);
  }
  return l;
}

bool SoftmaxOutputShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 2 || (d.ndim() == 1 && Param<SoftmaxOutputParam>(attrs).preserve_shape))
      << "SoftmaxOutput expects data with a batch axis and a class axis, got " << d;
  const Shape l = LabelShape(Param<SoftmaxOutputParam>(attrs), d);
  // a label with the data's shape holds class probabilities (soft labels)
  if (!((*in)[1] == d)) AssignInShape(in, 1, l);
  AssignOutShape(out, 0, d);
  return true;
}

void SoftmaxOutputCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  const AxisSplit sp = ClassSplit(Param<SoftmaxOutputParam>(attrs), in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SoftmaxForward<false>(in[0].dptr<T>(), out[0].dptr<T>(), sp, 1.0, req[0]);
  });
}

template <typename T>
void SoftmaxOutputBackward(const SoftmaxOutputParam& p, const TBlob& label, const TBlob& y,
                           const T* gp, OpReqType req, T* dx, float loss_scale) {
  using A = AccType<T>;
  const AxisSplit sp = ClassSplit(p, y.shape_);
  const bool soft_labels = label.shape_ == y.shape_;
  const int64_t rows = sp.outer * sp.inner;
  const T* yp = y.dptr<T>();
  const T* lp = label.dptr<T>();
  int64_t valid = rows;
  if (!soft_labels && p.use_ignore) {
    valid = 0;
    for (int64_t r = 0; r < rows; ++r)
      valid += static_cast<A>(lp[r]) != static_cast<A>(p.ignore_label);
  }
  double norm = 1.0;
  if (p.normalization == kNormBatch) norm = static_cast<double>(y.shape_[0]);
  if (p.normalization == kNormValid) norm = static_cast<double>(std::max<int64_t>(valid, 1));
  const A scale = static_cast<A>(p.grad_scale * loss_scale / norm);
  const A off = sp.n > 1 ? static_cast<A>(p.smooth_alpha / (sp.n - 1)) : A(0);
  const A on = static_cast<A>(1.0f - p.smooth_alpha);
  const bool add = req == kAddTo;
#pragma omp parallel for if (rows * sp.n >= kOmpMinWork)
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t base = (r / sp.inner) * sp.n * sp.inner + r % sp.inner;
    const A lab = soft_labels ? A(0) : static_cast<A>(lp[r]);
    const bool ignored = !soft_labels && p.use_ignore && lab == static_cast<A>(p.ignore_label);
    const int64_t cls = static_cast<int64_t>(lab);
    for (int64_t k = 0; k < sp.n; ++k) {
      const int64_t i = base + k * sp.inner;
      const A target = soft_labels ? static_cast<A>(lp[i]) : (k == cls ? on : off);
      A g = ignored ? A(0) : (static_cast<A>(yp[i]) - target) * scale;
      if (gp) g *= static_cast<A>(gp[i]);
      if (add) {
        AssignReq<kAddTo>(&dx[i], g);
      } else {
        AssignReq<kWriteTo>(&dx[i], g);
      }
    }
  }
}

/*! \brief Inputs (label, y[, dy with out_grad]); outputs (ddata, dlabel = 0). */
void SoftmaxOutputGradCompute(const NodeAttrs& attrs, const OpContext& ctx,
                              const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                              const std::vector<TBlob>& out) {
  const SoftmaxOutputParam& p = Param<SoftmaxOutputParam>(attrs);
  if (req[0] != kNullOp) {
    SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
      SoftmaxOutputBackward<T>(p, in[0], in[1], p.out_grad ? in[2].dptr<T>() : nullptr, req[0],
                               out[0].dptr<T>(), ctx.loss_scale);
    });
  }
  if (req[1] == kWriteTo || req[1] == kWriteInplace) std::memset(out[1].dptr_, 0, out[1].Bytes());
}

}  // namespace

SYMNET_REGISTER_OP(SoftmaxOutput)
    .add_alias("Softmax")
    .describe("Softmax in forward; in backward the gradient of cross-entropy loss with respect to "
              "the softmax input, (softmax(x) - onehot(label)) * grad_scale / normalization.")
    .set_num_inputs(2)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_arguments(ParamDocs<SoftmaxOutputParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input scores.")
    .add_argument("label", "NDArray-or-Symbol", "Class indices (as floats) or class probabilities.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "label"};
                               })
    .set_attr<FInferShape>("FInferShape", SoftmaxOutputShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<TIsLoss>("TIsLoss", true)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           // the head gradient is read only with out_grad=True
                           std::vector<NodeEntry> in{n->inputs[1], NodeEntry{n, 0, 0}};
                           if (Param<SoftmaxOutputParam>(n->attrs).out_grad) in.push_back(ograds[0]);
                           auto g = MakeGradNode("_backward_SoftmaxOutput", n, in, ParamsOf(n));
                           return std::vector<NodeEntry>{g[0], NoGradient()};
                         })
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputCompute);

SYMNET_REGISTER_OP(_backward_SoftmaxOutput)
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<SoftmaxOutputParam>(a).out_grad ? 3 : 2;
    })
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<SoftmaxOutputParam>)
    .add_arguments(ParamDocs<SoftmaxOutputParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SoftmaxOutputGradCompute);

}  // namespace ops
}  // namespace symnet
