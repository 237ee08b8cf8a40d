/*!
 * \brief LeakyReLU on a GPU (channels-first data): the CPU's activation math per element; prelu's
 *  gamma gradient is one thread per channel summing in double.
 */
#include "leaky_relu.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

ChannelOf GpuChannels(const TBlob& x, const TBlob* gamma) {
  return gamma ? MakeChannelOf(x, gamma->shape_) : ChannelOf{1, 1, true};
}

void LeakyGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  const TBlob* gamma = p.act_type == kPReLU ? &in[1] : nullptr;
  const ChannelOf ch = GpuChannels(in[0], gamma);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    using A = AccType<T>;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<LeakyForwardKernel<Req>, gpu>::Launch(
          in[0].Size(), in[0].dptr<T>(), gamma ? static_cast<const T*>(gamma->dptr<T>()) : nullptr,
          out[0].dptr<T>(), p.act_type, static_cast<A>(p.slope), ch);
    });
  });
}

/*! \brief Inputs (dy, x[, gamma]); outputs (dx[, dgamma]). */
void LeakyGradGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const LeakyReLUParam& p = Param<LeakyReLUParam>(attrs);
  const bool prelu = p.act_type == kPReLU;
  const TBlob* gamma = prelu ? &in[2] : nullptr;
  const ChannelOf ch = GpuChannels(in[1], gamma);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    using A = AccType<T>;
    const T* g = gamma ? static_cast<const T*>(gamma->dptr<T>()) : nullptr;
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<LeakyBackwardKernel<Req>, gpu>::Launch(in[1].Size(), in[0].dptr<T>(), in[1].dptr<T>(),
                                                    g, out[0].dptr<T>(), p.act_type,
                                                    static_cast<A>(p.slope), ch);
    });
    if (prelu) {
      SYMNET_REQ_SWITCH(req[1], Req, {
        Kernel<PReluGammaGradKernel<Req>, gpu>::Launch(
            gamma->Size(), in[0].dptr<T>(), in[1].dptr<T>(), out[1].dptr<T>(), in[1].Size(), ch);
      });
    }
  });
}

}  // namespace

SYMNET_REGISTER_OP(LeakyReLU).set_attr<FCompute>("FCompute<gpu>", LeakyGPU);
SYMNET_REGISTER_OP(_backward_LeakyReLU).set_attr<FCompute>("FCompute<gpu>", LeakyGradGPU);

}  // namespace ops
}  // namespace symnet
