/*!
 * \brief _contrib_SyncBatchNorm (MXNet's contrib.SyncBatchNorm): BatchNorm whose training
 *  statistics are those of the whole batch of a distributed job, not of this rank's part.
 *
 *  Forward sums each channel's sum and sum of squares (and the element count) over the ranks,
 *  so mean and variance are those of the global batch; the moving statistics, updated from them,
 *  stay the same on every rank. Backward sums each channel's sum(dy) and sum(dy * xhat) over the
 *  ranks the same way for dx. gamma's and beta's gradients stay this rank's own sums: the
 *  kvstore (or gluon.Trainer) sums gradients over the ranks afterwards, which completes them
 *  exactly once. Two small all-reduces per layer per step, in float64 (the sums of squares of
 *  a large batch lose digits in float32). In one process it computes what BatchNorm does.
 *
 *  Every rank must run the same SyncBatchNorm layers in the same order (the executor runs ops
 *  in one fixed order, so a network does); MXNet's `ndev` (devices of one process) and `key`
 *  are accepted for compatibility: here the group is always the ranks of the job.
 */
#include <cstring>
#include <string>
#include <vector>

#include "../stage_f32.h"
#include "batch_norm.h"
#include "batch_norm_ref.h"
#include "symnet/collectives.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(SyncBatchNormParam);

void SyncBatchNormSumOverRanks(const NodeAttrs& attrs, const char* part, double* sums, size_t n) {
  const auto& p = Param<SyncBatchNormParam>(attrs);
  dist::AllReduceSum(
      sums, n, std::string("SyncBatchNorm '") + (p.key.empty() ? attrs.name : p.key) + "' " + part);
}

namespace {

constexpr int kAxis = 1;  // MXNet's SyncBatchNorm normalizes over axis 1 only

void Forward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
             const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (Has16Bit(in)) return StagedF32Compute(Forward, attrs, ctx, in, req, out);
  const auto& p = Param<SyncBatchNormParam>(attrs);
  const TBlob& x = in[kData];
  const ChannelView v = ChannelViewOf(x, kAxis);
  bool batch_stats = ctx.is_train && !p.use_global_stats;
  std::vector<double> sums;
  if (batch_stats) {  // every rank takes part, even with an empty part of the batch
    sums.assign(2 * v.c + 1, 0.0);
    SYMNET_REAL_TYPE_SWITCH(
        x.dtype_, T, { bn_ref::ChannelSums(v, x.dptr<T>(), sums.data(), sums.data() + v.c); });
    sums[2 * v.c] = static_cast<double>(v.outer * v.inner);
    SyncBatchNormSumOverRanks(attrs, "statistics", sums.data(), sums.size());
    // an empty global batch has no statistics: normalize like inference, moving ones untouched
    batch_stats = sums[2 * v.c] > 0;
  }
  SYMNET_REAL_TYPE_SWITCH(x.dtype_, T, {
    using P = T;  // float32 statistics for float32 (and staged 16-bit) data, float64 for float64
    P *mean = out[1].dptr<P>(), *var = out[2].dptr<P>();
    if (batch_stats) {
      bn_ref::MomentsFromSums(v.c, sums.data(), sums.data() + v.c, sums[2 * v.c], mean, var);
    } else {
      std::memcpy(mean, in[kMovingMean].dptr_, out[1].Bytes());
      std::memcpy(var, in[kMovingVar].dptr_, out[2].Bytes());
    }
    bn_ref::Normalize(v, x.dptr<T>(), p.fix_gamma ? nullptr : in[kGamma].dptr<P>(),
                      in[kBeta].dptr<P>(), mean, var, p.eps, out[0].dptr<T>(), req[0]);
    if (batch_stats)
      bn_ref::UpdateMoving(v.c, p.momentum, mean, var, in[kMovingMean].dptr<P>(),
                           in[kMovingVar].dptr<P>());
  });
}

/*! \brief Inputs (dy, x, gamma, mean, var); outputs (dx, dgamma, dbeta). */
void Backward(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
              const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (Has16Bit(in)) return StagedF32Compute(Backward, attrs, ctx, in, req, out);
  const auto& p = Param<SyncBatchNormParam>(attrs);
  const TBlob &dy = in[0], &x = in[1];
  const ChannelView v = ChannelViewOf(x, kAxis);
  const bool batch_stats = !p.use_global_stats;
  SYMNET_REAL_TYPE_SWITCH(x.dtype_, T, {
    using P = T;
    const P *gamma = p.fix_gamma ? nullptr : in[2].dptr<P>(), *mean = in[3].dptr<P>(),
            *var = in[4].dptr<P>();
    // this rank's sums (for dgamma, dbeta), then the job's (for dx) and its element count
    std::vector<double> local(2 * v.c), global(2 * v.c + 1);
    bn_ref::GradSums(v, dy.dptr<T>(), x.dptr<T>(), mean, var, p.eps, local.data(),
                     local.data() + v.c);
    std::copy(local.begin(), local.end(), global.begin());
    global[2 * v.c] = static_cast<double>(v.outer * v.inner);
    if (batch_stats) SyncBatchNormSumOverRanks(attrs, "gradients", global.data(), global.size());
    bn_ref::GradData(v, dy.dptr<T>(), x.dptr<T>(), gamma, mean, var, p.eps, batch_stats,
                     global[2 * v.c], global.data(), global.data() + v.c, out[0].dptr<T>(), req[0]);
    P *dgamma = out[1].dptr<P>(), *dbeta = out[2].dptr<P>();
    for (int64_t c = 0; c < v.c; ++c) {
      PutReq(&dgamma[c], req[1], p.fix_gamma ? 0.0 : local[v.c + c]);
      PutReq(&dbeta[c], req[2], local[c]);
    }
  });
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_SyncBatchNorm)
    .describe(
        "BatchNorm over axis 1 with the statistics of the whole batch of a distributed job "
        "(per-channel sums all-reduced over the ranks in forward and backward); gamma's and "
        "beta's gradients stay per rank, for the kvstore to sum.")
    .set_attr_parser(ParamParser<SyncBatchNormParam>)
    .add_arguments(ParamDocs<SyncBatchNormParam>())
    .set_attr<FCompute>("FCompute<cpu>", Forward);
static Op& sync_batch_norm_attrs [[maybe_unused]] = BatchNormLikeOp(
    Op::Register("_contrib_SyncBatchNorm"), "_backward_contrib_SyncBatchNorm",
    [](const NodeAttrs&) { return kAxis; },
    [](const NodeAttrs& a) { return Param<SyncBatchNormParam>(a).output_mean_var; });

SYMNET_REGISTER_OP(_backward_contrib_SyncBatchNorm)
    .set_num_inputs(5)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<SyncBatchNormParam>)
    .add_arguments(ParamDocs<SyncBatchNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FCompute>("FCompute<cpu>", Backward);

}  // namespace ops
}  // namespace symnet
