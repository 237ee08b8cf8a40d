/*!
 * \brief GPU kernels of the element-wise ops: the same functors and FCompute templates as the
 *  CPU (elemwise_kernels.h), instantiated with xpu = gpu. The ops themselves are registered in
 *  the .cc files; this file only adds FCompute<gpu>.
 */
#include "src/device/kernel_launch.cuh"
#include "../nn/activation.h"
#include "elemwise_kernels.h"
#include "elemwise_math_ops.h"
#include "elemwise_scalar.h"

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
    SYMNET_CHECK(in[k].dptr_ != out[0].dptr_) << "add_n on a GPU: the output may alias one input only";
  size_t k = 0;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    const int64_t n = out[0].Size();
    if (req[0] != kAddTo) {
      if (in.size() == 1) {
        CopyCompute(attrs, ctx, {in[0]}, {req[0]}, {out[0]});
        k = 1;
      } else {
        Kernel<BinaryKernel<mathf::plus, kWriteTo>, gpu>::Launch(n, out[0].dptr<T>(), in[0].dptr<T>(),
                                                                 in[1].dptr<T>());
        k = 2;
      }
    }
    for (; k < in.size(); ++k)
      Kernel<UnaryKernel<mathf::identity, kAddTo>, gpu>::Launch(n, out[0].dptr<T>(), in[k].dptr<T>());
  });
}

}  // namespace

#define SYMNET_GPU_UNARY_MATH(NAME, FWD, GRAD, GRAD_USE, DOC)                                 \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", UnaryCompute<mathf::FWD, gpu>); \
  SYMNET_REGISTER_OP(_backward_##NAME)                                                        \
      .set_attr<FCompute>("FCompute<gpu>", UnaryGradCompute<mathf::GRAD, gpu>);
SYMNET_ELEMWISE_MATH_OPS(SYMNET_GPU_UNARY_MATH)

#define SYMNET_GPU_SCALAR(NAME, FUNCTOR) \
  SYMNET_REGISTER_OP(NAME).set_attr<FCompute>("FCompute<gpu>", ScalarCompute<mathf::FUNCTOR, gpu>);
SYMNET_SCALAR_OPS(SYMNET_GPU_SCALAR)
SYMNET_REGISTER_OP(_backward_rdiv_scalar)
    .set_attr<FCompute>("FCompute<gpu>", ScalarGradCompute<mathf::rdiv_grad, gpu>);

SYMNET_REGISTER_OP(negative).set_attr<FCompute>("FCompute<gpu>", UnaryCompute<mathf::negation, gpu>);
SYMNET_REGISTER_OP(elemwise_add).set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::plus, gpu>);
SYMNET_REGISTER_OP(elemwise_sub).set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::minus, gpu>);
SYMNET_REGISTER_OP(elemwise_mul).set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::mul, gpu>);
SYMNET_REGISTER_OP(elemwise_div).set_attr<FCompute>("FCompute<gpu>", BinaryCompute<mathf::div, gpu>);
SYMNET_REGISTER_OP(_backward_mul).set_attr<FCompute>("FCompute<gpu>", MulDivGradCompute<false, gpu>);
SYMNET_REGISTER_OP(_backward_div).set_attr<FCompute>("FCompute<gpu>", MulDivGradCompute<true, gpu>);
SYMNET_REGISTER_OP(add_n).set_attr<FCompute>("FCompute<gpu>", AddNComputeGPU);

SYMNET_REGISTER_OP(Activation).set_attr<FCompute>("FCompute<gpu>", ActivationCompute<gpu>);
SYMNET_REGISTER_OP(_backward_Activation).set_attr<FCompute>("FCompute<gpu>", ActivationGradCompute<gpu>);

}  // namespace ops
}  // namespace symnet
