/*!
 * \brief _FusedBatchNormReLU: BatchNorm -> ReLU as one node, made by the bind-time pass
 *  FuseBatchNormReLU for CPU training binds. On the CPU it runs one oneDNN batch normalization
 *  with the ReLU fused (normalization_flags::fuse_norm_relu): the forward writes the ReLU's mask
 *  (1 bit per element) into a workspace, and the backward masks the output gradient with it
 *  while it computes BatchNorm's gradient, so neither the ReLU nor its gradient makes a pass
 *  over the activations. Everything oneDNN does not run that way (float64, float16, bfloat16
 *  without native kernels, an axis other than 1, a kernel whose mask is 1 byte per element) runs
 *  BatchNorm's and the ReLU's own kernels in turn, so the node means exactly what the two nodes
 *  it replaced meant, moving statistics included.
 *
 *  Inputs and parameters: BatchNorm's. Outputs: (output, mean, 1 / sqrt(var + eps) as
 *  BatchNorm's, workspace); only the output is visible (the pass fuses only where nothing reads
 *  mean and var). MXNet's _contrib_BatchNormWithReLU is the same node under its own name, whose
 *  mean and var are visible with output_mean_var, as BatchNorm's.
 */
#include "batch_norm_relu.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "../dnnl/dnnl_batch_norm.h"
#include "../scratch_output.h"
#include "activation.h"
#include "batch_norm.h"
#include "batch_norm_ref.h"
#include "symnet/storage.h"

namespace symnet {
namespace ops {

namespace {

enum { kOut, kMean, kVar, kWorkspace };

/*!
 * \brief The workspace: 1 bit per element of the data, its channels padded to a block of 16
 *  (oneDNN's jit kernels, in any blocked or channels-last layout). Kernels that need more
 *  (plain-layout ones take a byte per element) make the node run unfused instead.
 */
Shape WorkspaceShape(const Shape& data, int axis) {
  const int64_t c = data[ChannelAxis(axis, data.ndim())];
  const int64_t rest = c > 0 ? data.Size() / c : 0;
  const int64_t bits = rest * ((c + 15) / 16 * 16);
  return Shape{std::max<int64_t>(1, (bits + 7) / 8)};
}

/*! \brief The ReLU's attributes, for calling Activation's kernels on the unfused route. */
const NodeAttrs& ReLUAttrs() {
  static const NodeAttrs attrs = [] {
    NodeAttrs a;
    a.op = Op::Get("Activation");
    a.name = "relu";
    a.dict = {{"act_type", "relu"}};
    ParseNodeAttrs(&a);
    return a;
  }();
  return attrs;
}

/*! \brief The kernel of `op` for the call's device (the unfused route runs anywhere). */
const FCompute& DevKernel(const char* op, Device dev) {
  const FCompute* f = Op::Get(op)->attr<FCompute>(FComputeKey(dev));
  SYMNET_CHECK(f != nullptr) << op << " has no kernel for " << dev;
  return *f;
}

dnnl_util::BatchNormConfig Config(const BatchNormParam& p, const TBlob& x, bool global) {
  dnnl_util::BatchNormConfig c;
  c.shape = x.shape_;
  c.dtype = x.dtype_;
  c.layout = x.layout_;
  c.eps = static_cast<float>(p.eps);
  c.use_scale = !p.fix_gamma;
  c.global_stats = global;
  c.fuse_relu = true;
  return c;
}

/*!
 * \brief Whether oneDNN runs this call fused. Forward and backward decide alike for one node
 *  (same shapes, dtype, layout and workspace size), so a mask the backward reads was written.
 */
bool Fusable(const BatchNormParam& p, const OpContext& ctx, const TBlob& x,
             const std::vector<OpReqType>& req) {
  return ctx.dev.type == Device::kCPU && x.Size() > 0 && req[0] != kAddTo &&
         dnnl_util::BatchNormSupported(x.shape_, x.dtype_, 1) && ChannelAxis(p, x.ndim()) == 1;
}

struct ForwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlBatchNormForward> bn;
  std::unique_ptr<OpState> bn_slot, relu_slot;  // the unfused route's kernels
};

struct BackwardState : public OpState {
  std::unique_ptr<dnnl_util::DnnlBatchNormBackward> bn;
  std::unique_ptr<OpState> bn_slot, relu_slot;
  StoragePtr scratch;
};

}  // namespace

void FusedBatchNormReLUForward(const NodeAttrs& attrs, const OpContext& ctx,
                               const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                               const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  SYMNET_CHECK(req[kOut] != kAddTo) << "_FusedBatchNormReLU (node '" << attrs.name
                                    << "') writes its output; it does not accumulate";
  const TBlob& x = in[kData];
  const bool batch_stats = ctx.is_train && !p.use_global_stats && x.Size() > 0;
  auto& st = ctx.GetState<ForwardState>([] { return new ForwardState(); },
                                        [](const ForwardState&) { return true; });
  if (Fusable(p, ctx, x, req)) {
    const auto cfg = Config(p, x, !batch_stats);
    if (!st.bn || !(st.bn->config() == cfg))
      st.bn = std::make_unique<dnnl_util::DnnlBatchNormForward>(cfg);
    if (st.bn->workspace_bytes() <= out[kWorkspace].Bytes()) {
      const size_t cbytes = static_cast<size_t>(in[kGamma].Size()) * sizeof(float);
      if (!batch_stats) {  // normalize with the moving statistics, reported as mean/var
        std::memcpy(out[kMean].dptr_, in[kMovingMean].dptr_, cbytes);
        std::memcpy(out[kVar].dptr_, in[kMovingVar].dptr_, cbytes);
      }
      st.bn->Run(x.dptr_, in[kGamma].dptr<float>(), in[kBeta].dptr<float>(),
                 out[kMean].dptr<float>(), out[kVar].dptr<float>(), out[kOut].dptr_,
                 out[kWorkspace].dptr_);
      if (batch_stats)  // moving = momentum * moving + (1 - momentum) * batch, as BatchNorm
        bn_ref::UpdateMoving(in[kGamma].Size(), p.momentum, out[kMean].dptr<float>(),
                             out[kVar].dptr<float>(), in[kMovingMean].dptr<float>(),
                             in[kMovingVar].dptr<float>());
      VarianceToInvStdInPlace(out[kVar], p.eps);  // BatchNorm's third output, as its kernel
      return;
    }
  }
  // BatchNorm's kernel (its parameters are this node's), then the ReLU in place
  OpContext sub = ctx;
  sub.state = &st.bn_slot;
  DevKernel("BatchNorm", ctx.dev)(attrs, sub, in, {req[kOut], req[kMean], req[kVar]},
                                  {out[kOut], out[kMean], out[kVar]});
  sub.state = &st.relu_slot;
  DevKernel("Activation", ctx.dev)(ReLUAttrs(), sub, {out[kOut]}, {kWriteInplace}, {out[kOut]});
}

void FusedBatchNormReLUBackward(const NodeAttrs& attrs, const OpContext& ctx,
                                const std::vector<TBlob>& in, const std::vector<OpReqType>& req,
                                const std::vector<TBlob>& out) {
  const BatchNormParam& p = Param<BatchNormParam>(attrs);
  const TBlob &dy = in[0], &y = in[1], &x = in[2];
  auto& st = ctx.GetState<BackwardState>([] { return new BackwardState(); },
                                         [](const BackwardState&) { return true; });
  if (Fusable(p, ctx, x, {kWriteTo})) {
    const auto cfg = Config(p, x, p.use_global_stats);
    if (!st.bn || !(st.bn->config() == cfg))
      st.bn = std::make_unique<dnnl_util::DnnlBatchNormBackward>(cfg);
    if (st.bn->workspace_bytes() <= in[6].Bytes()) {
      void* dx = ScratchFor(&st.scratch, out[0], req[0]);
      std::vector<double> var_buf;  // in[5] is 1 / sqrt(var + eps), as BatchNorm's backward reads
      const TBlob var = VarianceFromInvStd(in[5], p.eps, &var_buf);
      st.bn->Run(dy.dptr_, x.dptr_, in[3].dptr<float>(), in[4].dptr<float>(), var.dptr<float>(), dx,
                 out[1].dptr<float>(), out[2].dptr<float>(), p.fix_gamma ? kNullOp : req[1], req[2],
                 in[6].dptr_);
      AddScratch(dx, out[0], req[0]);
      if (p.fix_gamma && (req[1] == kWriteTo || req[1] == kWriteInplace))
        std::memset(out[1].dptr_, 0, out[1].Bytes());
      return;
    }
  }
  // the ReLU's gradient, then BatchNorm's. The masked gradient goes where dx goes when dx is
  // written (BatchNorm's backward reads each element before it writes it), else aside.
  TBlob masked = out[0];
  if (req[0] != kWriteTo && req[0] != kWriteInplace) {
    if (!st.scratch || st.scratch->bytes() < dy.Bytes()) {
      st.scratch.reset();
      st.scratch = AllocStorage(dy.Bytes(), ctx.dev);
    }
    masked.dptr_ = st.scratch->ptr();
  }
  OpContext sub = ctx;
  sub.state = &st.relu_slot;
  DevKernel("_backward_Activation", ctx.dev)(ReLUAttrs(), sub, {dy, y}, {kWriteTo}, {masked});
  sub.state = &st.bn_slot;
  DevKernel("_backward_BatchNorm", ctx.dev)(attrs, sub, {masked, x, in[3], in[4], in[5]}, req, out);
}

namespace {

/*! \brief As BatchNorm: channels-last works when the channel axis is axis 1. */
FLayoutSlots BNReLULayout(std::vector<int> ins, std::vector<int> outs) {
  const FLayoutSlots uniform = UniformLayout(ins, outs);
  return [uniform](const NodeAttrs& a) {
    return Param<BatchNormParam>(a).axis == 1 ? uniform(a) : LayoutSlots();
  };
}

/*! \brief The attributes _FusedBatchNormReLU and _contrib_BatchNormWithReLU share (all but
 *  their descriptions and visible outputs), then BatchNorm's inputs. */
Op& BatchNormReLUOp(Op& op) {
  return BatchNormInputs(
      op.set_num_outputs(4)
          .set_attr_parser(ParamParser<BatchNormParam>)
          .add_arguments(ParamDocs<BatchNormParam>())
          .set_attr<FListOutputNames>(
              "FListOutputNames",
              [](const NodeAttrs&) {
                return std::vector<std::string>{"output", "mean", "var", "workspace"};
              })
          .set_attr<FMutateInputs>("FMutateInputs",
                                   [](const NodeAttrs&) {
                                     return std::vector<uint32_t>{kMovingMean, kMovingVar};
                                   })
          .set_attr<FInferShape>(
              "FInferShape",
              [](const NodeAttrs& a, std::vector<Shape>* in, std::vector<Shape>* out) {
                const int axis = Param<BatchNormParam>(a).axis;
                std::vector<Shape> bn_out(out->begin(), out->begin() + 3);
                if (!BatchNormShape(axis, in, &bn_out)) return false;
                std::copy(bn_out.begin(), bn_out.end(), out->begin());
                AssignOutShape(out, kWorkspace, WorkspaceShape((*in)[kData], axis));
                return true;
              })
          .set_attr<FInferType>(
              "FInferType",
              [](const NodeAttrs& a, std::vector<DType>* in, std::vector<DType>* out) {
                std::vector<DType> bn_out(out->begin(), out->begin() + 3);
                if (!BatchNormType(a, in, &bn_out)) return false;
                std::copy(bn_out.begin(), bn_out.end(), out->begin());
                AssignType(out, kWorkspace, DType::kUint8, false);
                return true;
              })
          .set_attr<FLayoutSlots>("FLayoutSlots", BNReLULayout({kData}, {kOut}))
          .set_attr<FGradient>(
              "FGradient",
              [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                auto g = MakeGradNode(
                    "_backward_FusedBatchNormReLU", n,
                    {ograds[kOut], NodeEntry{n, kOut, 0}, n->inputs[0], n->inputs[1],
                     NodeEntry{n, kMean, 0}, NodeEntry{n, kVar, 0}, NodeEntry{n, kWorkspace, 0}},
                    ParamsOf(n));
                return std::vector<NodeEntry>{g[0], g[1], g[2], NoGradient(), NoGradient()};
              })
          .set_attr<FCompute>("FCompute<cpu>", FusedBatchNormReLUForward));
}

}  // namespace

static Op& fused_bn_relu [[maybe_unused]] =
    BatchNormReLUOp(
        Op::Register("_FusedBatchNormReLU")
            .describe("Internal: BatchNorm followed by a ReLU as one node, made at bind time "
                      "for CPU training executors (BindOptions::fuse); oneDNN fuses the ReLU "
                      "into the normalization."))
        .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs",
                                      [](const NodeAttrs&) -> uint32_t { return 1; });

// MXNet's contrib.BatchNormWithReLU: the same node, whose mean and 1 / sqrt(var + eps) are
// visible with output_mean_var, as BatchNorm's
static Op& contrib_bn_relu [[maybe_unused]] =
    BatchNormReLUOp(
        Op::Register("_contrib_BatchNormWithReLU")
            .describe("BatchNorm followed by a ReLU (MXNet's contrib.BatchNormWithReLU): "
                      "BatchNorm's inputs, parameters and outputs, the ReLU applied to the "
                      "output."))
        .set_attr<FNumVisibleOutputs>("FNumVisibleOutputs", [](const NodeAttrs& a) -> uint32_t {
          return Param<BatchNormParam>(a).output_mean_var ? 3 : 1;
        });

SYMNET_REGISTER_OP(_backward_FusedBatchNormReLU)
    .set_num_inputs(7)
    .set_num_outputs(3)
    .set_attr_parser(ParamParser<BatchNormParam>)
    .add_arguments(ParamDocs<BatchNormParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    // dy, y, x and dx share a layout; the workspace is bytes
    .set_attr<FLayoutSlots>("FLayoutSlots", BNReLULayout({0, 1, 2}, {0}))
    .set_attr<FCompute>("FCompute<cpu>", FusedBatchNormReLUBackward);

}  // namespace ops
}  // namespace symnet
