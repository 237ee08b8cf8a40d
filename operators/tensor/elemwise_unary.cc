/*! \brief Copies and constants: _copy/identity, BlockGrad, zeros_like, ones_like, negative. */
#include <cstring>

#include "elemwise_kernels.h"
#include "src/device/device_ops.h"

namespace symnet {
namespace ops {

void CopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  if (out[0].dev_.type == Device::kGPU) return ConvertBlob(in[0], out[0], req[0]);
  if (req[0] == kAddTo) {
    SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
      Kernel<UnaryKernel<mathf::identity, kAddTo>, cpu>::Launch(out[0].Size(), out[0].dptr<T>(),
                                                                in[0].dptr<T>());
    });
    return;
  }
  if (in[0].dptr_ == out[0].dptr_) return;
  std::memcpy(out[0].dptr_, in[0].dptr_, out[0].Bytes());
}

void ZeroBlob(const TBlob& b) {
  if (b.dev_.type == Device::kGPU) {
    cuda::Memset(b.dptr_, 0, b.Bytes(), b.dev_.id);
  } else {
    std::memset(b.dptr_, 0, b.Bytes());
  }
}

void ZerosCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < out.size(); ++i) {
    if (req[i] == kWriteTo || req[i] == kWriteInplace) ZeroBlob(out[i]);
  }
}

namespace {
void OnesCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>&,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].dev_.type == Device::kGPU) {
    if (req[0] == kAddTo) {
      cuda::AddScalar(out[0].dptr_, out[0].dtype_, out[0].Size(), 1.0, out[0].dev_.id);
    } else if (req[0] != kNullOp) {
      cuda::Fill(out[0].dptr_, out[0].dtype_, out[0].Size(), 1.0, out[0].dev_.id);
    }
    return;
  }
  SYMNET_TYPE_SWITCH(out[0].dtype_, T, {  // every dtype, integers too (as MXNet's ones_like)
    T* p = out[0].dptr<T>();
    const int64_t n = out[0].Size();
    SYMNET_REQ_SWITCH(req[0], Req, {
      for (int64_t i = 0; i < n; ++i) AssignReq<Req>(&p[i], static_cast<T>(1.0f));
    });
  });
}

std::vector<NodeEntry> CopyGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  return MakeGradNode("_copy", n, {ograds[0]});
}
}  // namespace

SYMNET_REGISTER_OP(_copy)
    .add_alias("identity")
    .describe("Returns a copy of the input.")
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", CopyGradient)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(BlockGrad)
    .add_alias("stop_gradient")
    .describe("Passes the input through in forward and stops gradients from flowing back to it.")
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", CopyCompute) SYMNET_ALSO_GPU(CopyCompute);

SYMNET_REGISTER_OP(zeros_like)
    .describe("An array of zeros with the shape and dtype of the input.")
    .add_argument("data", "NDArray-or-Symbol", "The input (only its shape and dtype are used).")
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)  // MXNet's take any, unused
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", ZerosCompute) SYMNET_ALSO_GPU(ZerosCompute);

SYMNET_REGISTER_OP(ones_like)
    .describe("An array of ones with the shape and dtype of the input.")
    .add_argument("data", "NDArray-or-Symbol", "The input (only its shape and dtype are used).")
    .set_attr<TAcceptAnyParams>("TAcceptAnyParams", true)  // MXNet's take any, unused
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", OnesCompute) SYMNET_ALSO_GPU(OnesCompute);

SYMNET_REGISTER_OP(negative)
    .describe("Numerical negative: y = -x.")
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInplaceOption>("FInplaceOption", InplaceIn0Out0)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("negative", n, {ograds[0]});
                         })
    .set_attr<FCompute>("FCompute<cpu>", UnaryCompute<mathf::negation>);

}  // namespace ops
}  // namespace symnet
