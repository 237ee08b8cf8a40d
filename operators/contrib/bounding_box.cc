/*!
 * \brief Registration of _contrib_box_iou, _contrib_box_nms (alias
 *  _contrib_box_non_maximum_suppression) and _contrib_bipartite_matching with MXNet 1.9.1's
 *  names, attributes, defaults and output counts. box_nms's second, hidden output records which
 *  input row each output row came from (int32 here, so 16-bit data loses no index); its
 *  gradient sends each output row's gradient back to that row. MXNet gives box_iou and
 *  bipartite_matching zero gradients, and so do we.
 */
#include "bounding_box.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(BoxIoUParam);
DMLC_REGISTER_PARAMETER(BoxNMSParam);
DMLC_REGISTER_PARAMETER(BipartiteMatchingParam);

namespace {

bool BoxIoUShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape &l = (*in)[0], &r = (*in)[1];
  if (!l.is_known() || !r.is_known()) return false;
  const char* names[2] = {"lhs", "rhs"};
  for (int i = 0; i < 2; ++i) {
    const Shape& s = (*in)[i];
    SYMNET_CHECK(s.ndim() >= 2 && s[s.ndim() - 1] == 4)
        << "box_iou expects " << names[i] << " of shape (..., 4), got " << s;
  }
  std::vector<int64_t> o;
  for (int i = 0; i + 1 < l.ndim(); ++i) o.push_back(l[i]);
  for (int i = 0; i + 1 < r.ndim(); ++i) o.push_back(r[i]);
  AssignOutShape(out, 0, Shape(o));
  return true;
}

bool FloatElemwiseType(const char* op, const NodeAttrs& attrs, std::vector<DType>* in,
                       std::vector<DType>* out) {
  if (!ElemwiseType(attrs, in, out)) return false;
  SYMNET_CHECK(IsFloatType((*in)[0]))
      << op << " expects floating-point inputs, got " << DTypeName((*in)[0]);
  return true;
}

bool BoxNMSShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  const BoxNMSParam& p = Param<BoxNMSParam>(attrs);
  SYMNET_CHECK(d.ndim() >= 2) << "box_nms expects data of shape (..., num_boxes, box_width), got "
                              << d;
  const int64_t width = d[d.ndim() - 1];
  const int64_t need = p.id_index >= 0 ? 6 : 5;
  SYMNET_CHECK(width >= need) << "box_nms expects box rows of at least " << need
                              << " values (score, 4 coordinates" << (need == 6 ? ", class id" : "")
                              << "), got data of shape " << d;
  const int cs = p.coord_start, ce = p.coord_start + 3;
  SYMNET_CHECK(p.score_index >= 0 && p.score_index < width)
      << "box_nms: score_index " << p.score_index << " is outside the box width " << width;
  SYMNET_CHECK(cs >= 0 && ce < width)
      << "box_nms: coordinates " << cs << ".." << ce << " (coord_start " << cs
      << ") are outside the box width " << width;
  SYMNET_CHECK(p.score_index < cs || p.score_index > ce)
      << "box_nms: score_index " << p.score_index << " overlaps the coordinates " << cs << ".."
      << ce;
  if (p.id_index >= 0) {
    SYMNET_CHECK(p.id_index < width)
        << "box_nms: id_index " << p.id_index << " is outside the box width " << width;
    SYMNET_CHECK(p.id_index < cs || p.id_index > ce)
        << "box_nms: id_index " << p.id_index << " overlaps the coordinates " << cs << ".." << ce;
    SYMNET_CHECK(p.id_index != p.score_index)
        << "box_nms: id_index and score_index are both " << p.id_index;
  }
  Shape rec = d;
  rec[d.ndim() - 1] = 1;
  AssignOutShape(out, 0, d);
  AssignOutShape(out, 1, rec);
  return true;
}

bool BoxNMSType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  const DType t = (*in)[0] != DType::kUnknown ? (*in)[0] : (*out)[0];
  if (t == DType::kUnknown) return false;
  SYMNET_CHECK(IsFloatType(t)) << "box_nms expects floating-point data, got " << DTypeName(t);
  AssignType(in, 0, t, true);
  AssignType(out, 0, t, false);
  AssignType(out, 1, DType::kInt32, false);
  return true;
}

bool MatchingShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& d = (*in)[0];
  if (!d.is_known()) return false;
  SYMNET_CHECK(d.ndim() >= 2)
      << "bipartite_matching expects a score matrix of shape (..., rows, columns), got " << d;
  std::vector<int64_t> rows(d.begin(), d.end() - 1);
  std::vector<int64_t> cols = rows;
  cols.back() = d[d.ndim() - 1];
  AssignOutShape(out, 0, Shape(rows));
  AssignOutShape(out, 1, Shape(cols));
  return true;
}

std::vector<NodeEntry> BoxNMSGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  return MakeGradNode("_backward_contrib_box_nms", n, {ograds[0], NodeEntry{n, 1, 0}}, ParamsOf(n));
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_box_iou)
    .describe(
        "The IoU (intersection over union) of every box of lhs (..., 4) with every box of rhs "
        "(..., 4): output shape lhs.shape[:-1] + rhs.shape[:-1]. Boxes without overlap give 0. "
        "The inputs get a zero gradient.")
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BoxIoUParam>)
    .add_argument("lhs", "NDArray-or-Symbol", "The first boxes, shape (..., 4).")
    .add_argument("rhs", "NDArray-or-Symbol", "The second boxes, shape (..., 4).")
    .add_arguments(ParamDocs<BoxIoUParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) {
                                 return std::vector<std::string>{"lhs", "rhs"};
                               })
    .set_attr<FInferShape>("FInferShape", BoxIoUShape)
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
                            return FloatElemwiseType("box_iou", a, in, out);
                          })
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", BoxIoUForward<cpu>);

SYMNET_REGISTER_OP(_contrib_box_nms)
    .add_alias("_contrib_box_non_maximum_suppression")
    .describe(
        "Non-maximum suppression per batch item of data (..., num_boxes, box_width): boxes with "
        "score > valid_thresh (and, with id_index, not of background_id) are sorted by score "
        "(ties keep their order); among the first topk, a box whose IoU with a kept "
        "higher-scored box (of its class, unless force_suppress) exceeds overlap_thresh is "
        "dropped. The kept rows come first in score order; the other rows are -1. The gradient "
        "of each kept row goes back to its input row.")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<BoxNMSParam>)
    .add_argument("data", "NDArray-or-Symbol", "The boxes, shape (..., num_boxes, box_width).")
    .add_arguments(ParamDocs<BoxNMSParam>())
    .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                  [](const NodeAttrs&) -> uint32_t { return 1; })
    .set_attr<FInferShape>("FInferShape", BoxNMSShape)
    .set_attr<FInferType>("FInferType", BoxNMSType)
    .set_attr<FTempSpace>("FTempSpace", NMSTempBytes)
    .set_attr<FGradient>("FGradient", BoxNMSGradient)
    .set_attr<FCompute>("FCompute<cpu>", BoxNMSForward<cpu>);

SYMNET_REGISTER_OP(_backward_contrib_box_nms)
    .set_num_inputs(2)
    .set_num_outputs(1)
    .set_attr_parser(ParamParser<BoxNMSParam>)
    .add_arguments(ParamDocs<BoxNMSParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BoxNMSBackward<cpu>);

SYMNET_REGISTER_OP(_contrib_bipartite_matching)
    .describe(
        "Greedy bipartite matching of a score matrix (..., rows, columns): pairs are visited by "
        "score (descending, or ascending with is_ascend; ties in input order) and matched while "
        "both are free, until a free pair's score fails the threshold. Outputs the column "
        "matched to each row and the row matched to each column (-1: none). As in MXNet, "
        "topk = k stops after k + 1 matches. The input gets a zero gradient.")
    .set_num_inputs(1)
    .set_num_outputs(2)
    .set_attr_parser(ParamParser<BipartiteMatchingParam>)
    .add_argument("data", "NDArray-or-Symbol", "The score matrix, shape (..., rows, columns).")
    .add_arguments(ParamDocs<BipartiteMatchingParam>())
    .set_attr<FInferShape>("FInferShape", MatchingShape)
    .set_attr<FInferType>("FInferType",
                          [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
                            return FloatElemwiseType("bipartite_matching", a, in, out);
                          })
    .set_attr<FTempSpace>("FTempSpace", MatchingTempBytes)
    .set_attr<FGradient>("FGradient", NoInputGradients)
    .set_attr<FCompute>("FCompute<cpu>", BipartiteMatchingForward<cpu>);

}  // namespace ops
}  // namespace symnet
