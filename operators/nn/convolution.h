/*! \brief Convolution parameters (MXNet's names and defaults) and the geometry derived from them.
 */
#ifndef SYMNET_OPERATORS_NN_CONVOLUTION_H_
#define SYMNET_OPERATORS_NN_CONVOLUTION_H_

#include <vector>

#include "../operator_common.h"
#include "data_layout.h"

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
    DMLC_DECLARE_FIELD(dilate).set_default(Shape()).describe(
        "Dilation per spatial dim; default 1.");
    DMLC_DECLARE_FIELD(pad).set_default(Shape()).describe(
        "Zero padding per spatial dim; default 0.");
    DMLC_DECLARE_FIELD(num_filter).set_lower_bound(1).describe("Number of output channels.");
    DMLC_DECLARE_FIELD(num_group).set_default(1).set_lower_bound(1).describe(
        "Number of groups: input and output channels split into this many independent "
        "convolutions.");
    DMLC_DECLARE_FIELD(workspace).set_default(1024).describe(
        "The most temporary memory (MiB) a GPU convolution may use for its cuDNN algorithms, "
        "within the bind's workspace_mb option. The CPU ignores it (oneDNN plans its scratchpad).");
    DMLC_DECLARE_FIELD(no_bias).set_default(false).describe("Whether to disable the bias.");
    DMLC_DECLARE_FIELD(cudnn_tune)
        .add_enum("off", 0)
        .add_enum("limited_workspace", 1)
        .add_enum("fastest", 2)
        .set_default(dmlc::optional<int>())
        .describe(
            "GPU algorithm choice: off and limited_workspace (and unset) take cuDNN's first "
            "algorithm within `workspace`; fastest takes it within the bind's workspace_mb "
            "only, ignoring `workspace`.");
    DMLC_DECLARE_FIELD(cudnn_off).set_default(false).describe("Accepted for MXNet compatibility.");
    DeclareDataLayout(DMLC_DECLARE_FIELD(layout))
        .describe(
            "Data layout: channels-first NCW/NCHW/NCDHW (the default) or channels-last "
            "NWC/NHWC/NDHWC, whose weights are (num_filter, kernel..., C/num_group).");
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

/*!
 * \brief The geometry of a convolution of `data` under `p`; validates it. `data` is
 *  (N, C, spatial...), or (N, spatial..., C) when p.layout is channels-last.
 */
ConvGeometry MakeConvGeometry(const ConvolutionParam& p, const Shape& data);

/*!
 * \brief The blobs as channels-first views (data_layout.h): with a channels-last `layout` the
 *  kernels see (N, C, spatial...) data and (O, C/g, kernel...) weights flagged kChannelsLast.
 */
inline std::vector<TBlob> ConvViews(const ConvolutionParam& p, std::vector<TBlob> blobs) {
  for (auto& b : blobs)
    if (b.ndim() >= 3) b = ChannelsFirstView(b, IsChannelsLast(p.layout));
  return blobs;
}

/*!
 * \brief Reference loops (any float dtype), used for float64 and as the oracle. The blobs are
 *  channels-first views (ChannelsFirstView), each stored channels-first or channels-last.
 */
void ConvForwardRef(const ConvGeometry& g, const TBlob& x, const TBlob& w, const TBlob* b,
                    const TBlob& y, OpReqType req);
void ConvBackwardRef(const ConvGeometry& g, const TBlob& dy, const TBlob& x, const TBlob& w,
                     const TBlob& dx, const TBlob& dw, const TBlob* db,
                     const std::vector<OpReqType>& req);

/*!
 * \brief The most temporary memory, in bytes, a GPU convolution with these attributes may use
 *  for its algorithms under a bind whose cap is `bind_cap_bytes` (BindOptions::workspace_mb):
 *  `workspace` MiB (MXNet's meaning) but never above the cap; cudnn_tune='fastest' uses the cap.
 */
size_t ConvWorkspaceLimit(const ConvolutionParam& p, size_t bind_cap_bytes);
/*! \brief The same rule for any op with `workspace` (MiB) and `cudnn_tune` attributes. */
size_t CudnnWorkspaceLimit(uint64_t workspace_mb, const dmlc::optional<int>& cudnn_tune,
                           size_t bind_cap_bytes);

// ---- shared by Convolution and Deconvolution (P: their parameter struct) --------------------

/*! \brief Input names: the bias only without no_bias. */
template <typename P>
std::vector<std::string> ConvLikeInputs(const NodeAttrs& attrs) {
  if (Param<P>(attrs).no_bias) return {"data", "weight"};
  return {"data", "weight", "bias"};
}

/*! \brief Layout plan slots: none for a channels-last `layout` (its tensors are not NCHW). */
template <typename P>
FLayoutSlots ConvLikeLayoutSlots(std::vector<std::vector<std::pair<bool, int>>> groups) {
  return [groups](const NodeAttrs& attrs) {
    LayoutSlots s;
    if (IsChannelsLast(Param<P>(attrs).layout)) return s;
    s.groups = groups;
    s.prefer = true;
    return s;
  };
}

/*! \brief Whether oneDNN's convolution runs dtype t natively (float32; bfloat16 on CPUs with
 *  it); other 16-bit data is staged through float32 and float64 takes the reference loop. */
bool ConvUsesDnnl(DType t);

/*!
 * \brief The layouts (source, destination) oneDNN's convolution `g` runs fastest with on this
 *  CPU, in the dtype it really runs in for data of dtype t; empty for float64 (the loop).
 */
std::vector<Layout> DnnlConvLayouts(const ConvGeometry& g, DType t);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_CONVOLUTION_H_
