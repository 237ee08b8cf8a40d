/*!
 * \brief Crop (MXNet's legacy op): an (h, w) window of the last two axes of 4-D data, at
 *  `offset` or centred, with (h, w) from h_w or from the shape of a second input, crop_like. The
 *  window is a box of the input (slice.h), so its kernels are slice's box copies; crop_like
 *  gets a zero gradient.
 */
#include "crop.h"

#include <string>
#include <vector>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(CropParam);

namespace {

void CropParser(NodeAttrs* attrs) {
  ParamParser<CropParam>(attrs);
  const CropParam& p = Param<CropParam>(*attrs);
  if (p.num_args != 1 && p.num_args != 2)
    throw dmlc::ParamError("num_args " + std::to_string(p.num_args) +
                           " must be 1 (data) or 2 (data, crop_like)");
  if (!p.offset.ndim_known() || p.offset.ndim() != 2)
    throw dmlc::ParamError("offset " + p.offset.ToString() + " must be (y, x)");
  if (!p.h_w.ndim_known() || p.h_w.ndim() != 2)
    throw dmlc::ParamError("h_w " + p.h_w.ToString() + " must be (height, width)");
}

/*! \brief The window's top-left corner in data of shape x for an output (h, w), checked. */
void CropCorner(const CropParam& p, const Shape& x, int64_t h, int64_t w, int64_t* y0,
                int64_t* x0) {
  SYMNET_CHECK(h <= x[2] && w <= x[3]) << "Crop: the window (" << h << ", " << w
                                       << ") is larger than the data " << x << " in its last "
                                       << "two axes";
  if (p.center_crop) {
    *y0 = (x[2] - h) / 2;
    *x0 = (x[3] - w) / 2;
    return;
  }
  *y0 = p.offset[0];
  *x0 = p.offset[1];
  SYMNET_CHECK(*y0 >= 0 && *x0 >= 0 && *y0 <= x[2] - h && *x0 <= x[3] - w)
      << "Crop: offset " << p.offset << " puts the window (" << h << ", " << w
      << ") outside the data " << x << "; expected 0 <= offset <= (" << x[2] - h << ", " << x[3] - w
      << ")";
}

bool CropShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const CropParam& p = Param<CropParam>(attrs);
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return false;
  SYMNET_CHECK(x.ndim() == 4) << "Crop expects 4-D data (N, C, H, W), got shape " << x;
  int64_t h = p.h_w[0], w = p.h_w[1];
  if (p.num_args == 2) {
    const Shape& like = (*in)[1];
    if (!like.ndim_known()) return false;
    SYMNET_CHECK(like.ndim() == 4) << "Crop expects a 4-D crop_like (its last two axes give the "
                                   << "window), got shape " << like;
    h = like[2];
    w = like[3];
  } else {
    SYMNET_CHECK(h >= 1 && w >= 1)
        << "Crop with one input needs h_w of at least (1, 1), got " << p.h_w;
  }
  if (!x.is_known() || h < 0 || w < 0) return false;
  int64_t y0, x0;
  CropCorner(p, x, h, w, &y0, &x0);
  AssignOutShape(out, 0, Shape{x[0], x[1], h, w});
  return true;
}

/*! \brief The output has data's dtype; crop_like's is free. */
bool CropType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> data{(*in)[0]};
  const bool known = ElemwiseType(attrs, &data, out);
  AssignType(in, 0, data[0], true);
  return known;
}

std::vector<NodeEntry> CropGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_Crop", n, {ograds[0]}, ParamsOf(n));
  std::vector<NodeEntry> grads{g[0]};
  if (n->inputs.size() > 1) grads.push_back(NoGradient());  // crop_like: zeros, as in MXNet
  return grads;
}

uint32_t CropNumInputs(const NodeAttrs& a) {
  return static_cast<uint32_t>(Param<CropParam>(a).num_args);
}

}  // namespace

SliceBox CropBoxOf(const NodeAttrs& attrs, const Shape& whole, const Shape& part) {
  int64_t y0, x0;
  CropCorner(Param<CropParam>(attrs), whole, part[2], part[3], &y0, &x0);
  return MakeBox(whole, {DimRange{0, 1, whole[0]}, DimRange{0, 1, whole[1]},
                         DimRange{y0, 1, part[2]}, DimRange{x0, 1, part[3]}});
}

SYMNET_REGISTER_OP(Crop)
    .describe(
        "Crops the last two axes of 4-D data (N, C, H, W) to (h, w): h_w with one input, the "
        "last two axes of crop_like with two. The window starts at offset (y, x), or is "
        "centred with center_crop (offsets rounded down). The gradient puts dy in the window "
        "and zeros elsewhere; crop_like gets zeros.")
    .set_key_var_num_args("num_args")
    .set_num_inputs(CropNumInputs)
    .set_attr_parser(CropParser)
    .add_argument("data", "NDArray-or-Symbol[]",
                  "The data, then optionally crop_like, whose shape gives the window's size.")
    .add_arguments(ParamDocs<CropParam>())
    .set_attr<FInferShape>("FInferShape", CropShape)
    .set_attr<FInferType>("FInferType", CropType)
    .set_attr<FGradient>("FGradient", CropGradient)
    .set_attr<FCompute>("FCompute<cpu>", BoxForward<cpu, CropBoxOf>);

SYMNET_REGISTER_OP(_backward_Crop)
    .set_attr_parser(CropParser)
    .add_arguments(ParamDocs<CropParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BoxBackward<cpu, CropBoxOf>);

}  // namespace ops
}  // namespace symnet
