/*! \brief Convolution parameters (MXNet's names and defaults) and the geometry derived from them. */
#ifndef SYMNET_OPERATORS_NN_CONVOLUTION_H_
#define SYMNET_OPERATORS_NN_CONVOLUTION_H_

#include <vector>

#include "../operator_common.h"

namespace symnet {
namespace ops {

struct ConvolutionParam : public dmlc::Parameter<ConvolutionParam> {
  Shape kernel, stride, dilate, pad;
  int num_filter;
  int num_group;
  uint64_t workspace;
  bool no_bias;
  dmlc::optional<int> cudnn_tune;
  bool cudnn_off;
  dmlc::optional<int> layout;
  DMLC_DECLARE_PARAMETER(ConvolutionParam) {
    DMLC_DECLARE_FIELD(kernel).describe("Convolution kernel size: (w,), (h, w) or (d, h, w).");
    DMLC_DECLARE_FIELD(stride).set_default(Shape()).describe("Stride per spatial dim; default 1.");
    DMLC_DECLARE_FIELD(dilate).set_default(Shape()).describe("Dilation per spatial dim; default 1.");
    DMLC_DECLARE_FIELD(pad).set_default(Shape()).describe("Zero padding per spatial dim; default 0.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(
        "Number of groups: input and output channels split into this many independent convolutions.");
    DMLC_DECLARE_FIELD(workspace).set_default(1024).describe(
        "Accepted for MXNet compatibility (workspace is planned by symnet).");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable the bias.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0)
        .add_enum("limited_workspace", 1)
        .add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe("Accepted for MXNet compatibility.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Accepted for MXNet compatibility.");
    DMLC_DECLARE_FIELD(layout)
        .add_enum("NCW", 0)
        .add_enum("NCHW", 1)
        .add_enum("NCDHW", 2)
        .set_default(dmlc::optional<int>())
        .describe("Data layout; channels-first (the default) is supported.");
  }
};

/*! \brief Everything a kernel needs, with defaults filled in; spatial dims are 1 to 3. */
struct ConvGeometry {
  int64_t n = 0, c = 0, o = 0, groups = 1;
  std::vector<int64_t> in, out, kernel, stride, dilate, pad;  // per spatial dim
  int nsp() const { return static_cast<int>(in.size()); }
  bool operator==(const ConvGeometry& g) const {
    return n == g.n && c == g.c && o == g.o && groups == g.groups && in == g.in &&
           kernel == g.kernel && stride == g.stride && dilate == g.dilate && pad == g.pad;
  }
};

/*! \brief The geometry of a convolution of `data` (N, C, spatial...) under `p`; validates it. */
ConvGeometry MakeConvGeometry(const ConvolutionParam& p, const Shape& data);

/*! \brief Reference loops (any float dtype, channels-first), used for float64 and as the oracle. */
void ConvForwardRef(const ConvGeometry& g, const TBlob& x, const TBlob& w, const TBlob* b,
                    const TBlob& y, OpReqType req);
void ConvBackwardRef(const ConvGeometry& g, const TBlob& dy, const TBlob& x, const TBlob& w,
                     const TBlob& dx, const TBlob& dw, const TBlob* db,
                     const std::vector<OpReqType>& req);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_CONVOLUTION_H_
