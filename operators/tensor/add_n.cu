/*! \brief GPU kernel of add_n (the CPU's is in add_n.cc). */
#include "elemwise_kernels.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

/*! \brief add_n on a GPU: out = in[0] + in[1], then out += in[k] (the CPU's pointer table would
 *  have to be copied to the device first; a few passes over the data cost less here). */
void AddNComputeGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& inputs,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  // an input that is also the output (in place) must be read first: it goes to the front
  std::vector<TBlob> in(inputs);
  for (size_t k = 1; k < in.size(); ++k)
    if (in[k].dptr_ == out[0].dptr_) std::swap(in[0], in[k]);
  for (size_t k = 2; k < in.size(); ++k)
    SYMNET_CHECK(in[k].dptr_ != out[0].dptr_)
        << "add_n on a GPU: the output may alias one input only";
  size_t k = 0;
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    const int64_t n = out[0].Size();
    if (req[0] != kAddTo) {
      if (in.size() == 1) {
        CopyCompute(attrs, ctx, {in[0]}, {req[0]}, {out[0]});
        k = 1;
      } else {
        Kernel<BinaryKernel<mathf::plus, kWriteTo>, gpu>::Launch(n, out[0].dptr<T>(),
                                                                 in[0].dptr<T>(), in[1].dptr<T>());
        k = 2;
      }
    }
    for (; k < in.size(); ++k)
      Kernel<UnaryKernel<mathf::identity, kAddTo>, gpu>::Launch(n, out[0].dptr<T>(),
                                                                in[k].dptr<T>());
  });
}

}  // namespace

SYMNET_REGISTER_OP(add_n).set_attr<FCompute>("FCompute<gpu>", AddNComputeGPU);

}  // namespace ops
}  // namespace symnet
