/*!
 * \brief Registration of ROIPooling with MXNet 1.9.1's name, inputs (data, rois) and attributes.
 *  Its node has MXNet's two outputs, the second (the argmax) hidden; that one is int32 here, so
 *  16-bit data keeps exact positions. A ROI whose batch index is negative or past the batch
 *  gives zeros (MXNet only asserts it in debug builds).
 */
#include "roi_pooling.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(ROIPoolingParam);

namespace {

bool ROIPoolingShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &d = (*in)[0], &r = (*in)[1];
  if (!d.is_known() || !r.is_known()) return false;
  const Shape& ps = Param<ROIPoolingParam>(attrs).pooled_size;
  SYMNET_CHECK(d.ndim() == 4) << "ROIPooling expects data of shape (N, C, H, W), got " << d;
  SYMNET_CHECK(r.ndim() == 2 && r[1] == 5)
      << "ROIPooling expects rois of shape (num_rois, 5) [batch_index, x1, y1, x2, y2], got " << r;
  const Shape o{r[0], d[1], ps[0], ps[1]};
  AssignOutShape(out, 0, o);
  AssignOutShape(out, 1, o);
  return true;
}

bool ROIPoolingType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[0];
  if (t == DType::kUnknown) t = (*in)[1];
  if (t == DType::kUnknown) t = (*out)[0];
  if (t == DType::kUnknown) return false;
  SYMNET_CHECK(IsFloatType(t)) << "ROIPooling expects floating-point data, got " << DTypeName(t);
  AssignType(in, 0, t, true);
  AssignType(in, 1, t, true);
  AssignType(out, 0, t, false);
  AssignType(out, 1, DType::kInt32, false);
  return true;
}

void ROIPoolingParser(NodeAttrs* attrs) {
  ParamParser<ROIPoolingParam>(attrs);
  CheckPooledSize(Param<ROIPoolingParam>(*attrs).pooled_size);
}

std::vector<NodeEntry> ROIPoolingGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_ROIPooling", n, {ograds[0], n->inputs[1], NodeEntry{n, 1, 0}},
                        ParamsOf(n));
  return {g[0], NoGradient()};
}

}  // namespace

SYMNET_REGISTER_OP(ROIPooling)
    .describe(
        "Max pooling of regions of interest (Fast R-CNN): each ROI [batch_index, x1, y1, x2, y2] "
        "is scaled by spatial_scale, rounded to pixels, and cut into pooled_size bins whose "
        "maxima form the (num_rois, C, h, w) output; empty bins give 0. The gradient goes to "
        "each bin's (first) maximum; the rois get a zero gradient.")
    .set_num_inputs(2)
    .set_num_outputs(2)
    .set_attr_parser(ROIPoolingParser)
    .add_argument("data", "NDArray-or-Symbol", "Feature maps (N, C, H, W).")
    .add_argument("rois", "NDArray-or-Symbol",
                  "ROIs (num_rois, 5): [batch_index, x1, y1, x2, y2], corners in image pixels.")
    .add_arguments(ParamDocs<ROIPoolingParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"data", "rois"};
                               })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"output", "maxidx"};
                                })
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", ROIPoolingShape)
    .set_attr<FInferType>("FInferType", ROIPoolingType)
    .set_attr<FGradient>("FGradient", ROIPoolingGradient)
    .set_attr<FCompute>("FCompute<cpu>", ROIPoolingForward<cpu>);

SYMNET_REGISTER_OP(_backward_ROIPooling)
    .set_num_inputs(3)
    .set_num_outputs(1)
    .set_attr_parser(ROIPoolingParser)
    .add_arguments(ParamDocs<ROIPoolingParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", ROIPoolingBackward<cpu>);

}  // namespace ops
}  // namespace symnet
