/*!
 * \brief diag (MXNet 1.x): a vector's diagonal matrix, or the k-th diagonal of every
 *  (axis1, axis2) matrix of an N-D array (NumPy's diagonal: the other axes first, the diagonal
 *  last). A diagonal is a strided box of the array (slice.h's SliceBox), so diag is box copies:
 *  extraction copies the box out (its gradient writes dy back, zeros elsewhere); a vector is
 *  written into the box of a zero matrix (its gradient copies the box out).
 */
#ifndef SYMNET_OPERATORS_TENSOR_DIAG_H_
#define SYMNET_OPERATORS_TENSOR_DIAG_H_

#include <vector>

#include "slice.h"

namespace symnet {
namespace ops {

struct DiagParam : public dmlc::Parameter<DiagParam> {
  int k, axis1, axis2;
  DMLC_DECLARE_PARAMETER(DiagParam) {
    DMLC_DECLARE_FIELD(k).set_default(0).describe(
        "Which diagonal: 0 the main one, k > 0 above it, k < 0 below it.");
    DMLC_DECLARE_FIELD(axis1).set_default(0).describe(
        "The matrices' row axis (ignored for a 1-D input); negative values count from the back.");
    DMLC_DECLARE_FIELD(axis2).set_default(1).describe(
        "The matrices' column axis (ignored for a 1-D input); negative values count from the "
        "back.");
  }
};

/*! \brief The diagonal of the square matrix `whole` that holds the vector `part`. */
SliceBox DiagVectorBox(const NodeAttrs& attrs, const Shape& whole, const Shape& part);
/*! \brief The k-th diagonals of the N-D array `whole` (part: the output, unused). */
SliceBox DiagMatrixBox(const NodeAttrs& attrs, const Shape& whole, const Shape& part);

template <typename xpu>
void DiagForward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (in[0].ndim() == 1) {  // the vector into a zero matrix: slice's gradient, in effect
    BoxBackward<xpu, DiagVectorBox>(attrs, ctx, in, req, out);
  } else {
    BoxForward<xpu, DiagMatrixBox>(attrs, ctx, in, req, out);
  }
}

/*! \brief Input dy, output dx (the forward input's shape). */
template <typename xpu>
void DiagBackward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].ndim() == 1) {
    BoxForward<xpu, DiagVectorBox>(attrs, ctx, in, req, out);
  } else {
    BoxBackward<xpu, DiagMatrixBox>(attrs, ctx, in, req, out);
  }
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_DIAG_H_
