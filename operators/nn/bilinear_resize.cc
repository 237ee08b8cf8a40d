/*!
 * \brief _contrib_BilinearResize2D (python: mx.sym.contrib.BilinearResize2D): registration and
 *  MXNet 1.9.1's output-size rules per mode (bilinear_resize.h has the kernels).
 */
#include "bilinear_resize.h"

#include <string>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(BilinearResize2DParam);

namespace {

bool IsLike(const NodeAttrs& a) { return Param<BilinearResize2DParam>(a).mode == kResizeLike; }

/*! \brief MXNet truncates a float product (the scale is a float32 parameter). */
int64_t Scaled(float scale, int64_t n) {
  return static_cast<int64_t>(scale * static_cast<float>(n));
}

int64_t ToParity(int64_t n, bool even, bool up) {
  if ((n % 2 == 0) == even) return n;
  return up ? n + 1 : n - 1;
}

bool ResizeShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const BilinearResize2DParam& p = Param<BilinearResize2DParam>(attrs);
  const Shape& x = (*in)[0];
  if (!x.ndim_known()) return false;
  SYMNET_CHECK(x.ndim() == 4) << "BilinearResize2D expects 4-D data (N, C, H, W), got shape " << x;
  if (!x.is_known()) return false;
  const int64_t H = x[2], W = x[3];
  int64_t h = 0, w = 0;
  switch (p.mode) {
    case kResizeSize:
      // MXNet's rule: scale_height decides for both axes (scale_width alone is ignored)
      if (p.scale_height.has_value()) {
        SYMNET_CHECK(p.scale_width.has_value())
            << "BilinearResize2D: mode 'size' with scale_height needs scale_width too";
        h = Scaled(p.scale_height.value(), H);
        w = Scaled(p.scale_width.value(), W);
      } else {
        h = p.height;
        w = p.width;
      }
      break;
    case kResizeOddScale:
      SYMNET_CHECK(p.scale_height.has_value() && p.scale_width.has_value())
          << "BilinearResize2D: mode 'odd_scale' needs scale_height and scale_width";
      h = H % 2 == 0 ? Scaled(p.scale_height.value(), H)
                     : Scaled(p.scale_height.value(), H - 1) + 1;
      w = W % 2 == 0 ? Scaled(p.scale_width.value(), W) : Scaled(p.scale_width.value(), W - 1) + 1;
      break;
    case kResizeLike: {
      const Shape& like = (*in)[1];
      if (!like.ndim_known()) return false;
      SYMNET_CHECK(like.ndim() == 4) << "BilinearResize2D: mode 'like' expects a 4-D like input "
                                     << "(its last two axes give the size), got shape " << like;
      if (like[2] < 0 || like[3] < 0) return false;
      h = like[2];
      w = like[3];
      break;
    }
    case kResizeToEvenDown:
    case kResizeToEvenUp:
    case kResizeToOddDown:
    case kResizeToOddUp: {
      const bool even = p.mode == kResizeToEvenDown || p.mode == kResizeToEvenUp;
      const bool up = p.mode == kResizeToEvenUp || p.mode == kResizeToOddUp;
      h = ToParity(H, even, up);
      w = ToParity(W, even, up);
      break;
    }
    default:
      SYMNET_THROW << "BilinearResize2D: unknown mode " << p.mode;
  }
  SYMNET_CHECK(h >= 0 && w >= 0) << "BilinearResize2D: the output size (" << h << ", " << w
                                 << ") of data " << x << " is negative (a negative scale?)";
  SYMNET_CHECK((H > 0 || h == 0) && (W > 0 || w == 0))
      << "BilinearResize2D cannot resize the empty data " << x << " to (" << h << ", " << w << ")";
  AssignOutShape(out, 0, Shape{x[0], x[1], h, w});
  return true;
}

/*! \brief The output has data's dtype; like's is free. */
bool ResizeType(const NodeAttrs& attrs, std::vector<DType>* in, std::vector<DType>* out) {
  std::vector<DType> data{(*in)[0]};
  const bool known = ElemwiseType(attrs, &data, out);
  AssignType(in, 0, data[0], true);
  return known;
}

std::vector<NodeEntry> ResizeGradient(const NodePtr& n, const std::vector<NodeEntry>& ograds) {
  auto g = MakeGradNode("_backward_contrib_BilinearResize2D", n, {ograds[0]}, ParamsOf(n));
  std::vector<NodeEntry> grads{g[0]};
  if (n->inputs.size() > 1) grads.push_back(NoGradient());  // like gives only its shape
  return grads;
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_BilinearResize2D)
    .describe(
        "Resizes the last two axes of (N, C, H, W) data by bilinear interpolation, to a size "
        "set by `mode` (see its values). align_corners=True (the default) maps the corner "
        "pixels onto each other; False maps pixel centres, clamping at the first pixel. With "
        "mode 'like' the second input gives the size and gets a zero gradient.")
    .set_num_inputs([](const NodeAttrs& a) -> uint32_t { return IsLike(a) ? 2 : 1; })
    .set_attr_parser(ParamParser<BilinearResize2DParam>)
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, H, W).")
    .add_argument("like", "NDArray-or-Symbol", "With mode 'like': the data to take H, W from.")
    .add_arguments(ParamDocs<BilinearResize2DParam>())
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs& a) {
                                 return IsLike(a) ? std::vector<std::string>{"data", "like"}
                                                  : std::vector<std::string>{"data"};
                               })
    .set_attr<FInferShape>("FInferShape", ResizeShape)
    .set_attr<FInferType>("FInferType", ResizeType)
    .set_attr<FGradient>("FGradient", ResizeGradient)
    .set_attr<FCompute>("FCompute<cpu>", BilinearResizeForward<cpu>);

SYMNET_REGISTER_OP(_backward_contrib_BilinearResize2D)
    .set_attr_parser(ParamParser<BilinearResize2DParam>)
    .add_arguments(ParamDocs<BilinearResize2DParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", BilinearResizeBackward<cpu>);

}  // namespace ops
}  // namespace symnet
