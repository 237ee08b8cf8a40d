/*! \brief diag (diag.h): its geometry (shape rule and boxes) and the registrations. */
#include "diag.h"

#include <algorithm>
#include <cstdlib>

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(DiagParam);

namespace {

/*! \brief (axis1, axis2) in [0, ndim), checked. */
void DiagAxes(const DiagParam& p, const Shape& s, int* a1, int* a2) {
  const int nd = s.ndim();
  for (int a : {p.axis1, p.axis2}) {
    SYMNET_CHECK(a >= -nd && a < nd)
        << "diag: axis " << a << " is out of range for an input of "
        << "shape " << s << " (expected " << -nd << " to " << nd - 1 << ")";
  }
  *a1 = p.axis1 < 0 ? p.axis1 + nd : p.axis1;
  *a2 = p.axis2 < 0 ? p.axis2 + nd : p.axis2;
  SYMNET_CHECK(*a1 != *a2) << "diag: axis1 (" << p.axis1 << ") and axis2 (" << p.axis2
                           << ") are the same axis of the input of shape " << s;
}

/*! \brief Length of the k-th diagonal of a (rows, cols) matrix; k may go at most to the edge
 *  (an empty diagonal), as MXNet allows, not past it. */
int64_t DiagLength(int64_t rows, int64_t cols, int k, const Shape& s) {
  SYMNET_CHECK(k <= cols && -k <= rows)
      << "diag: there is no diagonal k=" << k << " in (" << rows << ", " << cols
      << ") matrices (input of shape " << s << "; expected " << -rows << " <= k <= " << cols << ")";
  return k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols);
}

bool DiagShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const Shape& s = (*in)[0];
  if (!s.ndim_known()) return false;
  const DiagParam& p = Param<DiagParam>(attrs);
  SYMNET_CHECK(s.ndim() >= 1) << "diag needs an input of at least one dim, got shape " << s;
  Shape o = Shape::Scalar();
  if (s.ndim() == 1) {
    const int64_t n = s[0] < 0 ? -1 : s[0] + std::abs(p.k);
    o = Shape{n, n};
  } else {
    int a1, a2;
    DiagAxes(p, s, &a1, &a2);
    for (int d = 0; d < s.ndim(); ++d)
      if (d != a1 && d != a2) o.push_back(s[d]);
    o.push_back(s[a1] < 0 || s[a2] < 0 ? -1 : DiagLength(s[a1], s[a2], p.k, s));
  }
  AssignOutShape(out, 0, o);
  return o.is_known();
}

}  // namespace

SliceBox DiagVectorBox(const NodeAttrs& attrs, const Shape& whole, const Shape& part) {
  const int k = Param<DiagParam>(attrs).k;
  const int64_t n = whole[1];
  SliceBox b;
  b.ndim = 1;
  b.shape[0] = part[0];
  b.stride[0] = n + 1;
  b.offset = k >= 0 ? k : -int64_t{k} * n;  // the first element: (0, k) or (-k, 0)
  b.size = part[0];
  return b;
}

SliceBox DiagMatrixBox(const NodeAttrs& attrs, const Shape& whole, const Shape&) {
  const DiagParam& p = Param<DiagParam>(attrs);
  int a1, a2;
  DiagAxes(p, whole, &a1, &a2);
  const int nd = whole.ndim();
  SYMNET_CHECK(nd - 1 <= kMaxSliceDim)
      << "diag supports inputs of at most " << kMaxSliceDim + 1 << " dims, got shape " << whole;
  std::vector<int64_t> stride(nd, 1);
  for (int d = nd - 2; d >= 0; --d) stride[d] = stride[d + 1] * whole[d + 1];
  SliceBox b;
  b.size = 1;
  for (int d = 0; d < nd; ++d) {
    if (d == a1 || d == a2) continue;
    b.shape[b.ndim] = whole[d];
    b.stride[b.ndim++] = stride[d];
    b.size *= whole[d];
  }
  // the diagonal, last: one step along both axes; it starts k columns right (or -k rows down)
  const int64_t len = DiagLength(whole[a1], whole[a2], p.k, whole);
  b.shape[b.ndim] = len;
  b.stride[b.ndim++] = stride[a1] + stride[a2];
  b.size *= len;
  b.offset = p.k >= 0 ? p.k * stride[a2] : -int64_t{p.k} * stride[a1];
  return b;
}

SYMNET_REGISTER_OP(diag)
    .describe(
        "For a 1-D input, the square matrix with the input on its k-th diagonal; otherwise the "
        "k-th diagonal of each (axis1, axis2) matrix, as a last axis after the other axes "
        "(NumPy's diagonal). k > 0 is above the main diagonal, k < 0 below it.")
    .set_attr_parser(ParamParser<DiagParam>)
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .add_arguments(ParamDocs<DiagParam>())
    .set_attr<FInferShape>("FInferShape", DiagShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FGradient>("FGradient", ElemwiseGradUseNone("_backward_diag"))
    .set_attr<FCompute>("FCompute<cpu>", DiagForward<cpu>);

SYMNET_REGISTER_OP(_backward_diag)
    .set_attr_parser(ParamParser<DiagParam>)
    .add_arguments(ParamDocs<DiagParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", DiagBackward<cpu>);

}  // namespace ops
}  // namespace symnet
