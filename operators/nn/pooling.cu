/*! \brief Pooling on a GPU: the kernels of pooling_kernels.h, channels-first or channels-last. */
#include "pooling_kernels.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

/*! \brief Whether every blob is stored channels-last (mixed storage is refused). */
bool AllChannelsLast(const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  const bool cl = in[0].channels_last();
  for (const auto* v : {&in, &out})
    for (const TBlob& b : *v)
      SYMNET_CHECK(b.channels_last() == cl && !b.blocked())
          << "GPU pooling needs all its tensors in one layout, channels-first or channels-last";
  return cl;
}

void PoolingGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& given_in,
                const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const std::vector<TBlob> in = PoolViews(p, given_in), out = PoolViews(p, given_out);
  const PoolGeo g = MakeGeo(p, in[0].shape_);
  const bool cl = AllChannelsLast(in, out);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PoolForwardKernel<Req>, gpu>::Launch(g.n * g.c * g.out_size(), in[0].dptr<T>(),
                                                  out[0].dptr<T>(), g, p.pool_type, IncludePad(p),
                                                  cl, LpP(p));
    });
  });
}

/*! \brief Inputs (dy, x, y); output dx. */
void PoolingGradGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& given_in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const std::vector<TBlob> in = PoolViews(p, given_in), out = PoolViews(p, given_out);
  const PoolGeo g = MakeGeo(p, in[1].shape_);
  const bool cl = AllChannelsLast(in, out);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<PoolBackwardKernel<Req>, gpu>::Launch(
          g.n * g.c * g.in_size(), in[0].dptr<T>(), in[1].dptr<T>(), in[2].dptr<T>(),
          out[0].dptr<T>(), g, p.pool_type, IncludePad(p), cl, LpP(p));
    });
  });
}

}  // namespace

SYMNET_REGISTER_OP(Pooling).set_attr<FCompute>("FCompute<gpu>", PoolingGPU);
SYMNET_REGISTER_OP(_backward_Pooling).set_attr<FCompute>("FCompute<gpu>", PoolingGradGPU);

}  // namespace ops
}  // namespace symnet
