/*! \brief Cast: converts the element type; its gradient converts back. */
#include "elemwise_kernels.h"
#include "src/device/device_ops.h"

namespace symnet {
namespace ops {

struct CastParam : public dmlc::Parameter<CastParam> {
  int dtype;
  DMLC_DECLARE_PARAMETER(CastParam) {
    DMLC_DECLARE_FIELD(dtype).SYMNET_DTYPE_ENUM(dtype).describe("Output data type.");
  }
};
DMLC_REGISTER_PARAMETER(CastParam);

namespace {

bool CastType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  AssignType(out, 0, static_cast<DType>(Param<CastParam>(attrs).dtype), false);
  return (*in)[0] != DType::kUnknown;
}

}  // namespace

void ConvertBlob(const TBlob& in, const TBlob& out, OpReqType req) {
  if (req == kNullOp) return;
  const size_t n = static_cast<size_t>(out.Size());
  if (out.dev_.type == Device::kGPU) {
    if (req == kAddTo) {
      cuda::ConvertAdd(in.dptr_, in.dtype_, out.dptr_, out.dtype_, n, out.dev_.id);
    } else if (in.dptr_ != out.dptr_ || in.dtype_ != out.dtype_) {
      cuda::Convert(in.dptr_, in.dtype_, out.dptr_, out.dtype_, n, out.dev_.id);
    }
    return;
  }
  if (req != kAddTo) {
    if (in.dptr_ == out.dptr_ && in.dtype_ == out.dtype_) return;
    ConvertElements(in.dptr_, in.dtype_, out.dptr_, out.dtype_, static_cast<size_t>(out.Size()));
    return;
  }
  SYMNET_FLOAT_TYPE_SWITCH(in.dtype_, S, {
    SYMNET_FLOAT_TYPE_SWITCH(out.dtype_, D, {
      const S* s = in.dptr<S>();
      D* d = out.dptr<D>();
      const int64_t n = out.Size();
      for (int64_t i = 0; i < n; ++i)
        AssignReq<kAddTo>(&d[i], static_cast<AccType<D>>(static_cast<AccType<S>>(s[i])));
    });
  });
}

void ConvertCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  for (size_t i = 0; i < out.size(); ++i) ConvertBlob(in[i], out[i], req[i]);
}

SYMNET_REGISTER_OP(Cast)
    .add_alias("cast")
    .describe("Casts all elements of the input to a new type.")
    .set_attr_parser(ParamParser<CastParam>)
    .add_arguments(ParamDocs<CastParam>())
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", CastType)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_Cast"))
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

SYMNET_REGISTER_OP(_backward_Cast)
    .set_attr_parser(ParamParser<CastParam>)
    .add_arguments(ParamDocs<CastParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", AllSlotsUniform)
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", OutputTypeKnown)
    .set_attr<FCompute>("FCompute<cpu>", ConvertCompute) SYMNET_ALSO_GPU(ConvertCompute);

}  // namespace ops
}  // namespace symnet
