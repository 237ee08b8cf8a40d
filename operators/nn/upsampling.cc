/*! \brief UpSampling (upsampling.h): registration and the CPU kernels. */
#include "upsampling.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(UpSamplingParam);

DeconvolutionParam BilinearDeconvParam(const UpSamplingParam& p, int64_t channels) {
  static const DeconvolutionParam defaults = [] {
    DeconvolutionParam d;
    d.Init(std::map<std::string, std::string>{{"kernel", "(1, 1)"}, {"num_filter", "1"}});
    return d;
  }();
  DeconvolutionParam d = defaults;
  const int64_t s = p.scale, k = 2 * s - s % 2, pad = (s - 1 + 1) / 2;  // ceil((s-1)/2)
  d.kernel = Shape{k, k};
  d.stride = Shape{s, s};
  d.pad = Shape{pad, pad};
  d.num_filter = static_cast<int>(channels);
  d.num_group = static_cast<int>(channels);
  d.workspace = p.workspace;
  return d;
}

namespace {

uint32_t NumInputs(const NodeAttrs& a) {
  const UpSamplingParam& p = Param<UpSamplingParam>(a);
  return p.sample_type == kUpNearest ? static_cast<uint32_t>(p.num_args) : 2;
}

std::vector<std::string> UpInputs(const NodeAttrs& a) {
  const UpSamplingParam& p = Param<UpSamplingParam>(a);
  if (p.sample_type == kUpBilinear) return {"data", "weight"};
  std::vector<std::string> names;
  for (int i = 0; i < p.num_args; ++i) names.push_back("arg" + std::to_string(i));
  return names;
}

bool UpShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  const Shape& d = (*in)[0];
  if (p.sample_type == kUpBilinear) {
    // always (data, weight), whatever num_args says: MXNet writes num_args=1 when the weight
    // variable is made for the user
    if (!d.is_known()) return false;
    SYMNET_CHECK_EQ(d.ndim(), 4) << "UpSampling needs data of 4 dims (N, C, H, W), got " << d;
    SYMNET_CHECK(d[2] > 0 && d[3] > 0) << "UpSampling needs a non-empty image, got " << d;
    SYMNET_CHECK_EQ(p.num_filter, d[1]) << "bilinear UpSampling's num_filter (" << p.num_filter
                                        << ") must equal the data's channels (data " << d << ")";
    const int64_t k = 2 * p.scale - p.scale % 2;
    AssignInShape(in, 1, Shape{d[1], 1, k, k});
    AssignOutShape(out, 0, Shape{d[0], d[1], d[2] * p.scale, d[3] * p.scale});
    return true;
  }
  for (const Shape& s : *in)
    if (!s.is_known()) return false;
  const int64_t oh = d[2] * p.scale, ow = d[3] * p.scale;
  int64_t channels = 0;
  for (size_t i = 0; i < in->size(); ++i) {
    const Shape& s = (*in)[i];
    SYMNET_CHECK_EQ(s.ndim(), 4) << "UpSampling needs inputs of 4 dims (N, C, H, W); input " << i
                                 << " is " << s;
    SYMNET_CHECK(s[2] > 0 && s[3] > 0 && oh % s[2] == 0 && ow % s[3] == 0 && s[0] == d[0])
        << "UpSampling input " << i << " " << s << " must have the batch size of input 0 " << d
        << " and a non-empty height and width dividing the output's (" << oh << ", " << ow << ")";
    if (p.multi_input_mode == kUpSum) {
      SYMNET_CHECK(i == 0 || s[1] == channels)
          << "UpSampling with multi_input_mode=sum needs inputs of equal channels; input " << i
          << " is " << s << ", input 0 " << d;
      channels = s[1];
    } else {
      channels += s[1];
    }
  }
  AssignOutShape(out, 0, Shape{d[0], channels, oh, ow});
  return true;
}

void UpForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
               const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == kUpBilinear)
    return DeconvForwardCPU(BilinearDeconvParam(p, in[0].shape_[1]), attrs, ctx, in, req, out);
  UpNearestForward<cpu>(p, in, req[0], out[0]);
}

/*! \brief Inputs dy (nearest) or (dy, data, weight) (bilinear). */
void UpBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const UpSamplingParam& p = Param<UpSamplingParam>(attrs);
  if (p.sample_type == kUpBilinear)
    return DeconvBackwardCPU(BilinearDeconvParam(p, in[1].shape_[1]), attrs, ctx, in, req, out);
  UpNearestBackward<cpu>(p, in[0], req, out);
}

}  // namespace

SYMNET_REGISTER_OP(UpSampling)
    .describe(
        "Upsamples NCHW data by an integer scale: nearest neighbour (one or several inputs, "
        "each brought to scale times the first's size, then concatenated along channels or "
        "summed), or bilinear, a depthwise Deconvolution with kernel 2*scale - scale%2, stride "
        "scale and pad ceil((scale-1)/2) whose (C, 1, k, k) weight is an input (initialized "
        "bilinear).")
    .set_key_var_num_args("num_args")
    .set_num_inputs(NumInputs)
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The inputs to upsample; for bilinear, the data and the weight.")
    .add_arguments(ParamDocs<UpSamplingParam>())
    .set_attr<FListInputNames>("FListInputNames", UpInputs)
    .set_attr<FInputVarAttrs>("FInputVarAttrs",
                              [](const NodeAttrs& a,
                                 uint32_t index) -> std::map<std::string, std::string> {
                                if (Param<UpSamplingParam>(a).sample_type == kUpBilinear &&
                                    index == 1)
                                  return {{"__init__", "[\"bilinear\", {}]"}};
                                return {};
                              })
    .set_attr<FInferShape>("FInferShape", UpShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           std::vector<NodeEntry> heads(ograds.begin(), ograds.end());
                           if (Param<UpSamplingParam>(n->attrs).sample_type == kUpBilinear) {
                             heads.push_back(n->inputs[0]);
                             heads.push_back(n->inputs[1]);
                           }
                           return MakeGradNode("_backward_UpSampling", n, heads, ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", UpForward);

SYMNET_REGISTER_OP(_backward_UpSampling)
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t {
      return Param<UpSamplingParam>(a).sample_type == kUpBilinear ? 3 : 1;
    })
    .set_num_outputs(NumInputs)
    .set_attr_parser(ParamParser<UpSamplingParam>)
    .add_arguments(ParamDocs<UpSamplingParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", UpBackward);

}  // namespace ops
}  // namespace symnet
