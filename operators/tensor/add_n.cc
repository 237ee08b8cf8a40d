/*! \brief add_n / ElementWiseSum: the sum of any number of same-shaped arrays. */
#include "elemwise_kernels.h"

namespace symnet {
namespace ops {

struct AddNParam : public dmlc::Parameter<AddNParam> {
  int num_args;
  DMLC_DECLARE_PARAMETER(AddNParam) {
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("Number of inputs to be summed.");
  }
};
DMLC_REGISTER_PARAMETER(AddNParam);

namespace {

template <int req>
struct AddNKernel {
  template <typename T>
  static void Map(int64_t i, T* out, const T* const* in, int n) {
    AccType<T> s = static_cast<AccType<T>>(in[0][i]);
    for (int k = 1; k < n; ++k) s += static_cast<AccType<T>>(in[k][i]);
    AssignReq<req>(&out[i], s);
  }
};

void AddNCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    std::vector<const T*> ptrs;
    for (const auto& b : in) ptrs.push_back(b.dptr<T>());
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<AddNKernel<Req>, cpu>::Launch(out[0].Size(), out[0].dptr<T>(), ptrs.data(),
                                           static_cast<int>(ptrs.size()));
    });
  });
}

}  // namespace

SYMNET_REGISTER_OP(add_n)
    .add_alias("ElementWiseSum")
    .describe("Adds all input arguments element-wise: out = in[0] + in[1] + ... + in[n-1].")
    .set_key_var_num_args("num_args")
    .set_num_inputs([](const NodeAttrs& a) {
      return static_cast<uint32_t>(Param<AddNParam>(a).num_args);
    })
    .set_attr_parser(ParamParser<AddNParam>)
    .add_arguments(ParamDocs<AddNParam>())
    .add_argument("args", "NDArray-or-Symbol[]", "Positional input arguments.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return std::vector<NodeEntry>(n->inputs.size(), ograds[0]);
                         })
    .set_attr<FCompute>("FCompute<cpu>", AddNCompute);

}  // namespace ops
}  // namespace symnet
