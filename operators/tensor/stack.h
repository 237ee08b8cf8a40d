/*!
 * \brief stack: joins equal-shaped inputs along a new axis. Seen as rows, the output is Concat's:
 *  each of the `outer` rows (the dims before the new axis) holds one `inner`-long run of every
 *  input in turn, so Concat's row copy (ConcatCopyKernel) moves the data both ways, on the CPU
 *  and a GPU.
 */
#ifndef SYMNET_OPERATORS_TENSOR_STACK_H_
#define SYMNET_OPERATORS_TENSOR_STACK_H_

#include <vector>

#include "concat.h"

namespace symnet {
namespace ops {

struct StackParam : public dmlc::Parameter<StackParam> {
  int axis;
  int num_args;
  DMLC_DECLARE_PARAMETER(StackParam) {
    DMLC_DECLARE_FIELD(axis).set_default(0).describe(
        "Where the new axis goes in the output, -(ndim+1) to ndim for ndim-D inputs; negative "
        "values count from the back.");
    DMLC_DECLARE_FIELD(num_args).set_lower_bound(1).describe("The number of inputs.");
  }
};

/*! \brief The new axis in [0, ndim] for ndim-D inputs, checked. */
int StackAxis(const StackParam& p, const Shape& in);

/*!
 * \brief Copies between the parts (each of shape `part`) and the stacked whole: to_whole for the
 *  forward (req[0] for all), else for the gradient (req[k] for part k).
 */
template <typename xpu, bool to_whole>
void StackCopy(const StackParam& p, const TBlob& whole, const std::vector<TBlob>& parts,
               const std::vector<OpReqType>& req) {
  const Shape& s = parts[0].shape_;
  const int a = StackAxis(p, s);
  const int64_t outer = s.ProdRange(0, a), inner = s.ProdRange(a, s.ndim());
  const int64_t total = inner * static_cast<int64_t>(parts.size());
  for (size_t k = 0; k < parts.size(); ++k) {
    const OpReqType q = req[to_whole ? 0 : k];
    const int64_t off = inner * static_cast<int64_t>(k);
    SYMNET_TYPE_SWITCH(whole.dtype_, T, {
      SYMNET_REQ_SWITCH(q, Req, {
        Kernel<ConcatCopyKernel<Req, to_whole>, xpu>::Launch(outer * inner, whole.dptr<T>(),
                                                             parts[k].dptr<T>(), inner, total, off);
      });
    });
  }
}

template <typename xpu>
void StackCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  StackCopy<xpu, true>(Param<StackParam>(attrs), out[0], in, req);
}

/*! \brief Input dy; output k is the gradient of input k, its slice of dy. */
template <typename xpu>
void StackGradCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  StackCopy<xpu, false>(Param<StackParam>(attrs), in[0], out, req);
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_STACK_H_
