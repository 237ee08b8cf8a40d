/*! \brief _linalg_gelqf and its gradient (linalg_gelqf.h): shape and type rules, registration. */
#include "linalg_gelqf.h"

namespace symnet {
namespace ops {

namespace {

bool GelqfShape(const NodeAttrs&, std::vector<Shape>* in, std::vector<Shape>* out) {
  if (!(*in)[0].ndim_known() && (*out)[0].ndim_known()) AssignInShape(in, 0, (*out)[0]);
  const Shape& a = (*in)[0];
  if (!a.is_known()) return false;
  const int nd = a.ndim();
  SYMNET_CHECK(nd >= 2) << "gelqf: the input must have at least 2 dims, got shape " << a;
  SYMNET_CHECK(a[nd - 2] <= a[nd - 1])
      << "gelqf: the input's matrices must have no more rows than columns, got shape " << a;
  Shape l = a;
  l[nd - 1] = a[nd - 2];
  AssignOutShape(out, 0, a);
  AssignOutShape(out, 1, l);
  return true;
}

bool GelqfType(const NodeAttrs&, std::vector<DType>* in, std::vector<DType>* out) {
  DType t = (*in)[0];
  if (t == DType::kUnknown) t = (*out)[0] != DType::kUnknown ? (*out)[0] : (*out)[1];
  if (t == DType::kUnknown) return false;
  SYMNET_CHECK(t == DType::kFloat32 || t == DType::kFloat64)
      << "gelqf supports float32 and float64 only, got " << t;
  AssignType(in, 0, t, true);
  AssignType(out, 0, t, false);
  AssignType(out, 1, t, false);
  return true;
}

}  // namespace

SYMNET_REGISTER_OP(_linalg_gelqf)
    .add_alias("linalg_gelqf")
    .describe(
        "LQ factorisation of each matrix of the trailing two dims: A (m x n, m <= n, full rank) "
        "= L * Q, Q (m x n) with orthonormal rows, L (m x m) lower triangular; outputs (Q, L), "
        "with LAPACK's signs (gelqf + orglq). float32 and float64.")
    .set_num_outputs(2)
    .add_argument("A", "NDArray-or-Symbol", "The matrices to factorise.")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) { return std::vector<std::string>{"A"}; })
    .set_attr<FListOutputNames>("FListOutputNames",
                                [](const NodeAttrs&) {
                                  return std::vector<std::string>{"Q", "L"};
                                })
    .set_attr<FInferShape>("FInferShape", GelqfShape)
    .set_attr<FInferType>("FInferType", GelqfType)
    .set_attr<FTempSpace>("FTempSpace",
                          [](const NodeAttrs&, const std::vector<Shape>& in,
                             const std::vector<DType>&) { return GelqfTempBytes(in[0]); })
    .set_attr<FGradient>("FGradient", ElemwiseGradUseOut("_backward_linalg_gelqf"))
    .set_attr<FCompute>("FCompute<cpu>", GelqfForward<cpu>);

SYMNET_REGISTER_OP(_backward_linalg_gelqf)
    .set_num_inputs(4)
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FTempSpace>("FTempSpace",
                          [](const NodeAttrs&, const std::vector<Shape>& in,
                             const std::vector<DType>&) { return GelqfBackwardTempBytes(in[0]); })
    .set_attr<FCompute>("FCompute<cpu>", GelqfBackward<cpu>);

}  // namespace ops
}  // namespace symnet
