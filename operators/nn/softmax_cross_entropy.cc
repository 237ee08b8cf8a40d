/*!
 * \brief softmax_cross_entropy(data, label): sum over the batch of -log softmax(data)[label],
 *  shape (1,). Gradient: (softmax(data) - onehot(label)) times the head gradient.
 */
#include "softmax.h"

namespace symnet {
namespace ops {

namespace {

bool SCEShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK_EQ(d.ndim(), 2) << "softmax_cross_entropy expects data (batch, classes), got " << d;
  AssignInShape(in, 1, Shape{d[0]});
  AssignOutShape(out, 0, Shape{1});
  return true;
}

template <typename T>
double CrossEntropy(const T* x, const T* label, int64_t n, int64_t k, T* grad_or_null, double og,
                    OpReqType req) {
  using A = AccType<T>;
  double total = 0;
  for (int64_t i = 0; i < n; ++i) {
    const T* row = x + i * k;
    double mx = -INFINITY;
    for (int64_t j = 0; j < k; ++j) mx = std::max(mx, static_cast<double>(static_cast<A>(row[j])));
    double sum = 0;
    for (int64_t j = 0; j < k; ++j) sum += std::exp(static_cast<A>(row[j]) - mx);
    const A lab = static_cast<A>(label[i]);
    SYMNET_CHECK(IsClassIndex(lab, k))
        << "softmax_cross_entropy: " << BadLabelMessage(lab, k, "of sample " + std::to_string(i));
    const int64_t cls = static_cast<int64_t>(lab);
    total += std::log(sum) + mx - static_cast<A>(row[cls]);
    if (grad_or_null) {
      for (int64_t j = 0; j < k; ++j) {
        const double g =
            (std::exp(static_cast<A>(row[j]) - mx) / sum - (j == cls ? 1.0 : 0.0)) * og;
        if (req == kAddTo) {
          AssignReq<kAddTo>(&grad_or_null[i * k + j], static_cast<A>(g));
        } else {
          AssignReq<kWriteTo>(&grad_or_null[i * k + j], static_cast<A>(g));
        }
      }
    }
  }
  return total;
}

void SCECompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    const double v = CrossEntropy<T>(in[0].dptr<T>(), in[1].dptr<T>(), in[0].shape_[0],
                                     in[0].shape_[1], nullptr, 0, kNullOp);
    T* o = out[0].dptr<T>();
    if (req[0] == kAddTo) {
      AssignReq<kAddTo>(o, static_cast<AccType<T>>(v));
    } else {
      AssignReq<kWriteTo>(o, static_cast<AccType<T>>(v));
    }
  });
}

/*! \brief Inputs (dy (1,), data, label); outputs (ddata, dlabel = 0). */
void SCEGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    const double og = static_cast<AccType<T>>(in[0].dptr<T>()[0]);
    if (req[0] != kNullOp)
      CrossEntropy<T>(in[1].dptr<T>(), in[2].dptr<T>(), in[1].shape_[0], in[1].shape_[1],
                      out[0].dptr<T>(), og, req[0]);
  });
  if (req[1] == kWriteTo || req[1] == kWriteInplace) std::memset(out[1].dptr_, 0, out[1].Bytes());
}

}  // namespace

SYMNET_REGISTER_OP(softmax_cross_entropy)
    .describe(
        "Cross-entropy of softmax(data) against integer labels, summed over the batch: "
        "sum_i -log softmax(data_i)[label_i]. Output shape (1,).")
    .set_num_inputs(2)
    .add_argument("data", "NDArray-or-Symbol", "Scores (batch, classes).")
    .add_argument("label", "NDArray-or-Symbol", "Class indices (batch,).")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "label"};
                               })
    .set_attr<FInferShape>("FInferShape", SCEShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           auto g = MakeGradNode("_backward_softmax_cross_entropy", n,
                                                 {ograds[0], n->inputs[0], n->inputs[1]});
                           return std::vector<NodeEntry>{g[0], NoGradient()};
                         })
    .set_attr<FCompute>("FCompute<cpu>", SCECompute);

SYMNET_REGISTER_OP(_backward_softmax_cross_entropy)
    .set_num_inputs(3)
    .set_num_outputs(2)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", SCEGradCompute);

}  // namespace ops
}  // namespace symnet
