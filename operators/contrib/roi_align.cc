/*!
 * \brief Registration of _contrib_ROIAlign (MXNet 1.9.1: inputs data (N, C, H, W) and rois
 *  (R, 5) rows [batch_index, x1, y1, x2, y2]; output (R, C, PH, PW), or (R, C / (PH * PW), PH,
 *  PW) when position-sensitive). A ROI whose batch index is negative (or past the batch) gives
 *  zeros: MXNet's docs say so, though its kernel clears only one element of such a ROI.
 */
#include "roi_align.h"

#include <sstream>
#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ROIAlignParam);

namespace {

/*! \brief MXNet's parse-time rule: pooled_size is two positive sizes. */
void ROIAlignParser(NodeAttrs* attrs) {
  ParamParser<ROIAlignParam>(attrs);
  const Shape& s = Param<ROIAlignParam>(*attrs).pooled_size;
  if (s.ndim() != 2 || s[0] <= 0 || s[1] <= 0) {
    std::ostringstream os;
    os << "pooled_size must be 2 positive sizes (h, w), got " << s;
    throw dmlc::ParamError(os.str());
  }
}

bool ROIAlignShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &r = (*in)[1];
  if (!d.is_known() || !r.is_known()) return false;
  const ROIAlignParam& p = Param<ROIAlignParam>(attrs);
  SYMNET_CHECK(d.ndim() == 4) << "ROIAlign expects data of shape (N, C, H, W), got " << d;
  SYMNET_CHECK(r.ndim() == 2 && r[1] == 5)
      << "ROIAlign expects rois of shape (num_rois, 5) [batch_index, x1, y1, x2, y2], got " << r;
  int64_t c = d[1];
  if (p.position_sensitive) {
    const int64_t cells = p.pooled_size[0] * p.pooled_size[1];
    SYMNET_CHECK(c % cells == 0) << "ROIAlign with position_sensitive expects the data's "
                                 << "channels to be a multiple of pooled_size[0] * "
                                    "pooled_size[1] = "
                                 << cells << ", got data of shape " << d;
    c /= cells;
  }
  AssignOutShape(out, 0, Shape{r[0], c, p.pooled_size[0], p.pooled_size[1]});
  return true;
}

bool ROIAlignType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0]))
      << "ROIAlign expects floating-point data and rois, got " << DTypeName((*in)[0]);
  return true;
}

std::vector<NodeEntry> ROIAlignGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_ROIAlign", n, {ograds[0], n->inputs[1]}, ParamsOf(n));
  return {g[0], NoGradient()};
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_ROIAlign)
    .describe(
        "RoIAlign (Mask R-CNN): each ROI [batch_index, x1, y1, x2, y2] (scaled by spatial_scale) "
        "is cut into pooled_size bins, and each bin averages bilinearly interpolated samples "
        "on a regular grid (sample_ratio per axis, or ceil(bin size)); no coordinate is "
        "rounded. ROIs with a negative batch index give zeros. The rois get a zero gradient.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ROIAlignParser)
    .add_argument("data", "NDArray-or-Symbol", "Feature maps (N, C, H, W).")
    .add_argument("rois", "NDArray-or-Symbol",
                  "ROIs (num_rois, 5): [batch_index, x1, y1, x2, y2]; a negative batch index "
                  "marks a ROI to ignore.")
    .add_arguments(ParamDocs<ROIAlignParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "rois"};
                               })
    .set_attr<FInferShape>("FInferShape", ROIAlignShape)
    .set_attr<FInferType>("FInferType", ROIAlignType)
    .set_attr<FGradient>("FGradient", ROIAlignGradient)
    .set_attr<FCompute>("FCompute<cpu>", ROIAlignForward<cpu>);

SYMNET_REGISTER_OP(_backward_ROIAlign)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<ROIAlignParam>)
    .add_arguments(ParamDocs<ROIAlignParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", ROIAlignBackward<cpu>);

}  // namespace ops
}  // namespace symnet
