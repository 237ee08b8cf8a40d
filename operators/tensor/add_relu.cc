/*!
 * \brief The element-wise ReLU fusions the CPU bind makes in training graphs (FuseAddReLU,
 *  FuseGradSumReLU): a residual sum and its ReLU in one loop (_FusedAddReLU), and in backward a
 *  gradient sum and the ReLU's mask in one loop (_backward_FusedAddNReLU). Each saves a pass
 *  over the activations that memory bandwidth bounds. The sums run in AccType and round once, as
 *  the unfused add then ReLU did (the ReLU and its mask commute with rounding), so the results
 *  are bit-equal to the unfused graph's.
 */
#include "add_relu.h"

#include <map>
#include <string>

#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief max(a + b, 0): Activation's relu of elemwise_add. */
struct add_relu {
  template <typename T>
  SYMNET_XINLINE static T Map(T a, T b) {
    const T s = a + b;
    return s > T(0) ? s : T(0);
  }
};

struct FusedAddNReLUParam : public dmlc::Parameter<FusedAddNReLUParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(FusedAddNReLUParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of gradients summed.");
  }
};

/*! \brief dx = (g0 + g1) * (y > 0): the common two-way sum, a loop the compiler vectorizes. */
template <int req>
struct SumTwoReLUGrad {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* y, const T* g0, const T* g1) {
    using A = AccType<T>;
    // a product with the 0/1 mask rather than a branch: the sign of y is random, and with
    // -fno-trapping-math this compiles to a blend (docs/performance.md)
    const A s = static_cast<A>(g0[i]) + static_cast<A>(g1[i]);
    AssignReq<req>(&dx[i], s * A(static_cast<A>(y[i]) > A(0)));
  }
};

template <int req>
struct SumReLUGrad {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* dx, const T* y, const T* const* g, int n) {
    using A = AccType<T>;
    A s = static_cast<A>(g[0][i]);
    for (int k = 1; k < n; ++k) s += static_cast<A>(g[k][i]);
    AssignReq<req>(&dx[i], s * A(static_cast<A>(y[i]) > A(0)));
  }
};

/*! \brief Inputs (y, g0, g1, ...): the ReLU's output, then the gradients to sum. */
void SumReLUGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const int64_t n = out[0].Size();
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      if (in.size() == 3) {
        Kernel<SumTwoReLUGrad<Req>, cpu>::Launch(n, out[0].dptr<T>(), in[0].dptr<T>(),
                                                 in[1].dptr<T>(), in[2].dptr<T>());
      } else {
        std::vector<const T*> g;
        for (size_t k = 1; k < in.size(); ++k) g.push_back(in[k].dptr<T>());
        Kernel<SumReLUGrad<Req>, cpu>::Launch(n, out[0].dptr<T>(), in[0].dptr<T>(), g.data(),
                                              static_cast<int>(g.size()));
      }
    });
  });
}

NodeAttrs Attrs(const char* op, std::map<std::string, std::string> dict) {
  NodeAttrs a;
  a.op = Op::Get(op);
  a.name = op;
  a.dict = std::move(dict);
  ParseNodeAttrs(&a);
  return a;
}

const FCompute& DevKernel(const char* op, Device dev) {
  const FCompute* f = Op::Get(op)->attr<FCompute>(FComputeKey(dev));
  SYMNET_CHECK(f != nullptr) << op << " has no kernel for " << dev;
  return *f;
}

}  // namespace

void AddReLUByParts(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_CHECK(req[0] != kAddTo) << attrs.op->name << " (node '" << attrs.name
                                 << "') writes its output; it does not accumulate";
  static const NodeAttrs add = Attrs("elemwise_add", {});
  static const NodeAttrs relu = Attrs("Activation", {{"act_type", "relu"}});
  DevKernel("elemwise_add", ctx.dev)(add, ctx, in, req, out);
  DevKernel("Activation", ctx.dev)(relu, ctx, out, {kWriteInplace}, out);
}

void SumReLUGradByParts(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_CHECK(req[0] != kAddTo) << attrs.op->name << " (node '" << attrs.name
                                 << "') writes its output; it does not accumulate";
  static const NodeAttrs relu = Attrs("_backward_Activation", {{"act_type", "relu"}});
  const std::vector<TBlob> grads(in.begin() + 1, in.end());
  const NodeAttrs sum = Attrs("add_n", {{"num_args", std::to_string(grads.size())}});
  DevKernel("add_n", ctx.dev)(sum, ctx, grads, req, out);
  DevKernel("_backward_Activation", ctx.dev)(relu, ctx, {out[0], in[0]}, {kWriteInplace}, out);
}

DMLC_REGISTER_PARAMETER(FusedAddNReLUParam);

SYMNET_REGISTER_OP(_FusedAddReLU)
    .describe(
        "Internal: elemwise_add followed by a ReLU as one loop, made at bind time for CPU "
        "training executors (BindOptions::fuse).")
    .set_num_inputs(2)
    .add_argument("lhs", "NDArray-or-Symbol", "First addend.")
    .add_argument("rhs", "NDArray-or-Symbol", "Second addend.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"lhs", "rhs"};
                               })
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    // the ReLU's own backward, whose output is the gradient of both addends
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           const NodeEntry g = MakeGradNode("_backward_Activation", n,
                                                            {ograds[0], NodeEntry{n, 0, 0}},
                                                            {{"act_type", "relu"}})[0];
                           return std::vector<NodeEntry>{g, g};
                         })
    .set_attr<FCompute>("FCompute<cpu>", BinaryCompute<add_relu, cpu>);

SYMNET_REGISTER_OP(_backward_FusedAddNReLU)
    .describe(
        "Internal: a gradient sum and the ReLU backward that reads it as one loop, made at bind "
        "time for CPU executors (BindOptions::fuse). Inputs: the ReLU's output, then the "
        "gradients.")
    .set_num_inputs([](const NodeAttrs& a) {
      return static_cast<uint32_t>(Param<FusedAddNReLUParam>(a).num_args) + 1;
    })
    .set_attr_parser(ParamParser<FusedAddNReLUParam>)
    .add_arguments(ParamDocs<FusedAddNReLUParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    // as add_n: the sum may take the first gradient's buffer
    .set_attr<FInplaceOption>("FInplaceOption",
                              [](const NodeAttrs&) {
                                return std::vector<std::pair<int, int>>{{1, 0}};
                              })
    .set_attr<FCompute>("FCompute<cpu>", SumReLUGradCompute);

}  // namespace ops
}  // namespace symnet
