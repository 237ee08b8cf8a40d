/*!
 * \brief Element kernels written for the GPU path, run on the CPU through Kernel<OP, cpu> and
 *  compared with the CPU operator: their indexing is checked on every machine, GPU or not.
 */
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "operators/cudnn/cudnn_convolution.h"
#include "operators/nn/batch_norm.h"
#include "operators/nn/leaky_relu.h"
#include "operators/nn/one_order.h"
#include "operators/nn/pooling_kernels.h"
#include "operators/optimizer/multi_sgd.h"
#include "operators/tensor/channel_copy.h"
#include "symnet/imperative.h"
#include "symnet/ndarray.h"
#include "symnet/op.h"
#include "symnet/runtime.h"

namespace symnet {
namespace ops {
namespace {

NDArray Ramp(const Shape& s, float scale) {
  std::vector<float> v(static_cast<size_t>(s.Size()));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = std::sin(0.7f * static_cast<float>(i) + scale) * scale;
  return NDArray::FromBuffer(v.data(), s, DType::kFloat32, DType::kFloat32);
}

TEST(GPUFunctors, PReluGradientsMatchAPlainLoop) {
  for (bool shared : {false, true}) {
    const Shape xs{2, 3, 4, 5};
    NDArray x = Ramp(xs, 1.5f), dy = Ramp(xs, 0.8f), gamma = Ramp(Shape{shared ? 1 : 3}, 0.3f);
    // the reference: dx = dy * (x > 0 ? 1 : gamma[c]); dgamma[c] = sum over x <= 0 of dy * x
    std::vector<double> ref_dx(static_cast<size_t>(x.Size())),
        ref_dg(static_cast<size_t>(gamma.Size()), 0.0);
    for (int64_t i = 0; i < x.Size(); ++i) {
      const int64_t c = shared ? 0 : (i / 20) % 3;
      const double xv = x.GetDouble(i), d = dy.GetDouble(i);
      ref_dx[i] = d * (xv > 0 ? 1.0 : gamma.GetDouble(c));
      if (xv <= 0) ref_dg[c] += d * xv;
    }
    NDArray dx({xs}), dg({gamma.shape()});
    const ChannelOf ch = MakeChannelOf(x.data(), gamma.shape());
    Kernel<LeakyBackwardKernel<kWriteTo>, cpu>::Launch(
        x.Size(), static_cast<const float*>(dy.dptr()), static_cast<const float*>(x.dptr()),
        static_cast<const float*>(gamma.dptr()), static_cast<float*>(dx.dptr()),
        static_cast<int>(kPReLU), 0.25f, ch);
    Kernel<PReluGammaGradKernel<kWriteTo>, cpu>::Launch(
        gamma.Size(), static_cast<const float*>(dy.dptr()), static_cast<const float*>(x.dptr()),
        static_cast<float*>(dg.dptr()), x.Size(), ch);
    for (int64_t i = 0; i < x.Size(); ++i) EXPECT_NEAR(dx.GetDouble(i), ref_dx[i], 1e-6) << i;
    for (int64_t c = 0; c < gamma.Size(); ++c) EXPECT_NEAR(dg.GetDouble(c), ref_dg[c], 1e-5) << c;
  }
}

TEST(GPUFunctors, LeakyForwardMatchesTheCPUOperator) {
  for (const char* type : {"leaky", "elu", "selu", "gelu"}) {
    NDArray x = Ramp(Shape{4, 6}, 2.f);
    const NDArray ref = Invoke("LeakyReLU", {{"act_type", type}, {"slope", "0.1"}}, {x})[0];
    NDArray y({4, 6});
    const int t = std::string(type) == "leaky"  ? kLeaky
                  : std::string(type) == "elu"  ? kELU
                  : std::string(type) == "selu" ? kSELU
                                                : kGELU;
    Kernel<LeakyForwardKernel<kWriteTo>, cpu>::Launch(
        x.Size(), static_cast<const float*>(x.dptr()), static_cast<const float*>(nullptr),
        static_cast<float*>(y.dptr()), t, 0.1f, ChannelOf{1, 1, true});
    for (int64_t i = 0; i < x.Size(); ++i)
      EXPECT_NEAR(y.GetDouble(i), ref.GetDouble(i), 1e-6) << type << " " << i;
  }
}

TEST(GPUFunctors, BatchedMultiSGDMatchesOneWeightAtATime) {
  // three weights of different sizes in one batch (the GPU's single launch), against SGDStep
  const std::vector<int64_t> sizes{7, 1, 20};
  std::vector<std::vector<float>> w(3), g(3), m(3), w_ref, m_ref;
  for (int t = 0; t < 3; ++t)
    for (int64_t i = 0; i < sizes[t]; ++i) {
      w[t].push_back(std::sin(0.3f * i + t));
      g[t].push_back(std::cos(0.7f * i - t));
      m[t].push_back(0.1f * std::sin(1.1f * i));
    }
  w_ref = w;
  m_ref = m;
  MultiSGDBatch<float, float> b;
  int64_t total = 0;
  for (int t = 0; t < 3; ++t) {
    total += sizes[t];
    b.end[t] = total;
    b.weight[t] = w[t].data();
    b.grad[t] = g[t].data();
    b.mom[t] = m[t].data();
    b.w32[t] = nullptr;
    b.out[t] = w[t].data();
    b.lr[t] = 0.1f * (t + 1);
    b.wd[t] = 0.01f * t;
  }
  b.count = 3;
  Kernel<MultiSGDKernel, cpu>::Launch(total, b, 0.9f, 0.5f, 1.0f);
  for (int t = 0; t < 3; ++t) {
    SGDStep<cpu, float, float>(sizes[t], w_ref[t].data(), g[t].data(), m_ref[t].data(), nullptr,
                               w_ref[t].data(),
                               SGDHyper{0.1f * (t + 1), 0.01f * t, 0.9f, 0.5f, 1.0f});
    for (int64_t i = 0; i < sizes[t]; ++i) {
      EXPECT_NEAR(w[t][i], w_ref[t][i], 1e-6) << t << " " << i;
      EXPECT_NEAR(m[t][i], m_ref[t][i], 1e-6) << t << " " << i;
    }
  }
}

TEST(GPUFunctors, PoolingKernelsMatchTheCPUOperatorInBothLayouts) {
  const std::vector<std::map<std::string, std::string>> cases{
      {{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "max"}},
      {{"kernel", "(3, 3)"},
       {"stride", "(2, 2)"},
       {"pad", "(1, 1)"},
       {"pool_type", "avg"},
       {"count_include_pad", "False"}},
      {{"kernel", "(2, 3)"},
       {"stride", "(2, 1)"},
       {"pool_type", "sum"},
       {"pooling_convention", "full"}},
      {{"kernel", "(1, 1)"}, {"global_pool", "True"}, {"pool_type", "avg"}},
      {{"kernel", "(2, 3)"}, {"stride", "(1, 2)"}, {"pool_type", "lp"}, {"p_value", "2"}},
      {{"kernel", "(3, 2)"},
       {"stride", "(2, 2)"},
       {"pad", "(1, 1)"},
       {"pool_type", "lp"},
       {"p_value", "3"}},
      {{"kernel", "(3, 3)"},
       {"stride", "(2, 4)"},
       {"pool_type", "max"},
       {"pooling_convention", "same"}},
      {{"kernel", "(2, 4)"},
       {"stride", "(3, 2)"},
       {"pool_type", "avg"},
       {"pooling_convention", "same"}}};
  const Shape first{2, 3, 7, 6}, last{2, 7, 6, 3};  // one tensor, channels-first or channels-last
  for (const auto& base : cases) {
    for (bool cl : {false, true}) {
      auto params = base;
      params["layout"] = cl ? "NHWC" : "NCHW";
      PoolingParam p;
      p.Init(params);
      NDArray x = Ramp(cl ? last : first, 1.3f);
      const NDArray y = Invoke("Pooling", params, {x})[0];
      NDArray dy = Ramp(y.shape(), 0.6f);
      NDArray dx({x.shape()});
      NodeAttrs attrs;  // the CPU backward called directly (backward ops have no shape rule)
      attrs.op = Op::Get("_backward_Pooling");
      attrs.dict = params;
      ParamParser<PoolingParam>(&attrs);
      (*attrs.op->attr<FCompute>("FCompute<cpu>"))(
          attrs, OpContext(), {dy.data(), x.data(), y.data()}, {kWriteTo}, {dx.data()});
      const PoolGeo g = MakeGeo(p, first);
      NDArray y2({y.shape()}), dx2({x.shape()});
      Kernel<PoolForwardKernel<kWriteTo>, cpu>::Launch(
          y.Size(), static_cast<const float*>(x.dptr()), static_cast<float*>(y2.dptr()), g,
          p.pool_type, IncludePad(p), cl, LpP(p));
      Kernel<PoolBackwardKernel<kWriteTo>, cpu>::Launch(
          x.Size(), static_cast<const float*>(dy.dptr()), static_cast<const float*>(x.dptr()),
          static_cast<const float*>(y.dptr()), static_cast<float*>(dx2.dptr()), g, p.pool_type,
          IncludePad(p), cl, LpP(p));
      for (int64_t i = 0; i < y.Size(); ++i)
        ASSERT_NEAR(y2.GetDouble(i), y.GetDouble(i), 1e-6)
            << params["pool_type"] << cl << " y " << i;
      for (int64_t i = 0; i < x.Size(); ++i)
        ASSERT_NEAR(dx2.GetDouble(i), dx.GetDouble(i), 1e-6)
            << params["pool_type"] << cl << " dx " << i;
    }
  }
}

TEST(GPUFunctors, ChannelCopyMatchesTheCPULayoutConversion) {
  // the CPU's _convert_layout (its transposing loops, on float64) is the reference
  const Shape s{2, 5, 3, 4};
  const int64_t n = s.Size();
  std::vector<double> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[i] = std::sin(0.37 * static_cast<double>(i));
  NDArray x = NDArray::FromBuffer(v.data(), s, DType::kFloat64, DType::kFloat64);
  NodeAttrs attrs;
  attrs.op = Op::Get("_convert_layout");
  const FCompute convert = *attrs.op->attr<FCompute>("FCompute<cpu>");
  for (bool to_last : {true, false}) {
    NDArray src(s, Device::CPU(), DType::kFloat64), ref(s, Device::CPU(), DType::kFloat64),
        got(s, Device::CPU(), DType::kFloat64);
    TBlob sb = src.data(), rb = ref.data();
    // the source: x in the layout converted from
    if (to_last) {
      std::copy(v.begin(), v.end(), static_cast<double*>(src.dptr()));
    } else {
      TBlob xb = x.data(), cl = sb;
      cl.layout_ = Layout::kChannelsLast;
      convert(attrs, OpContext(), {xb}, {kWriteTo}, {cl});
    }
    sb.layout_ = to_last ? Layout::kDefault : Layout::kChannelsLast;
    rb.layout_ = to_last ? Layout::kChannelsLast : Layout::kDefault;
    convert(attrs, OpContext(), {sb}, {kWriteTo}, {rb});
    CopyChannels<cpu>(src.dptr(), !to_last, got.dptr(), to_last, DType::kFloat64,
                      ChannelDims3{2, 5, 12}, kWriteTo);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got.GetDouble(i), ref.GetDouble(i)) << to_last << " " << i;
    // kAddTo accumulates
    CopyChannels<cpu>(src.dptr(), !to_last, got.dptr(), to_last, DType::kFloat64,
                      ChannelDims3{2, 5, 12}, kAddTo);
    for (int64_t i = 0; i < n; ++i)
      ASSERT_EQ(got.GetDouble(i), 2 * ref.GetDouble(i)) << to_last << " " << i;
  }
}

TEST(GPUFunctors, BatchNormStatisticsVisitEveryElementOnceByItsChannel) {
  // every (channel, block, thread) of the GPU grid, run here one after another
  struct Case {
    int64_t outer, C, inner, parts, threads;
  };
  for (const Case& k : {Case{3, 5, 7, 2, 8}, Case{2, 3, 40, 3, 16}, Case{5, 4, 1, 4, 4},
                        Case{1, 2, 33, 1, 256}, Case{7, 3, 2, 16, 8}, Case{4, 2, 64, 8, 32}}) {
    std::vector<int> hits(static_cast<size_t>(k.outer * k.C * k.inner), 0);
    for (int64_t c = 0; c < k.C; ++c)
      for (int64_t part = 0; part < k.parts; ++part)
        for (int64_t tid = 0; tid < k.threads; ++tid)
          VisitChannelPart(c, part, k.parts, tid, k.threads, k.outer, k.C, k.inner,
                           [&](int64_t off) {
                             EXPECT_EQ((off / k.inner) % k.C, c) << off;
                             ++hits[static_cast<size_t>(off)];
                           });
    for (size_t i = 0; i < hits.size(); ++i)
      ASSERT_EQ(hits[i], 1) << "channels-first element " << i << " inner " << k.inner;
  }
  struct LastCase {
    int64_t rows, C, parts, block_rows;
  };
  for (const LastCase& k : {LastCase{10, 5, 2, 8}, LastCase{3, 40, 1, 8}, LastCase{100, 3, 5, 8},
                            LastCase{17, 33, 64, 8}}) {
    std::vector<int> hits(static_cast<size_t>(k.rows * k.C), 0);
    for (int64_t c = 0; c < k.C; ++c)
      for (int64_t part = 0; part < k.parts; ++part)
        for (int64_t ty = 0; ty < k.block_rows; ++ty)
          VisitChannelsLastRows(c, part, k.parts, ty, k.block_rows, k.rows, k.C, [&](int64_t off) {
            EXPECT_EQ(off % k.C, c) << off;
            ++hits[static_cast<size_t>(off)];
          });
    for (size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i], 1) << "channels-last element " << i;
  }
}

TEST(GPUFunctors, CudnnTensorStridesForBothLayouts) {
  using cudnn::PackedStrides;
  EXPECT_EQ(PackedStrides({2, 3, 4, 5}, false), (std::vector<int>{60, 20, 5, 1}));
  EXPECT_EQ(PackedStrides({2, 3, 4, 5}, true), (std::vector<int>{60, 1, 15, 3}));          // NHWC
  EXPECT_EQ(PackedStrides({2, 3, 4, 5, 6}, true), (std::vector<int>{360, 1, 90, 18, 3}));  // NDHWC
  EXPECT_EQ(PackedStrides({2, 3, 1, 7}, true),
            (std::vector<int>{21, 1, 21, 3}));  // NWC with a unit height
  EXPECT_EQ(PackedStrides({1, 8, 1, 1}, false), (std::vector<int>{8, 1, 1, 1}));  // a bias
}

/*! \brief OneOrderT's operations on the host: a growing buffer and CopyChannels<cpu>. */
struct HostOrderOps {
  static std::vector<char>& Buffer() {
    static std::vector<char> b;
    return b;
  }
  static void* Scratch(int, size_t bytes) {
    Buffer().assign(bytes, 0);
    return Buffer().data();
  }
  static void Copy(const void* src, bool src_last, void* dst, bool dst_last, DType t,
                   const ChannelDims3& d, OpReqType req) {
    CopyChannels<cpu>(src, src_last, dst, dst_last, t, d, req);
  }
};

TEST(GPUFunctors, ConvolutionOperandsAreBroughtIntoOneOrderAndBack) {
  // an NHWC convolution's view of NCHW filters (copied in) and of an NCHW gradient (computed in
  // scratch, then added to what the caller's buffer holds); a channels-last operand is used in
  // place
  const Shape s{2, 3, 2, 2};  // (O, C, kh, kw) or (N, C, H, W): 24 elements
  auto fill = [&](double scale) {
    NDArray a(s, Device::CPU(), DType::kFloat64);
    for (int64_t i = 0; i < a.Size(); ++i)
      static_cast<double*>(a.dptr())[i] = scale * static_cast<double>(i + 1);
    return a;
  };
  NDArray w = fill(1.0), dx = fill(100.0), x_last = fill(0.5);
  TBlob wb = w.data(), dxb = dx.data(), xb = x_last.data();
  xb.layout_ = Layout::kChannelsLast;
  OneOrderT<HostOrderOps> order(0, /*channels_last=*/true);
  order.Plan(wb);   // 0: NCHW -> copied
  order.Plan(xb);   // 1: already channels-last -> in place
  order.Plan(dxb);  // 2: NCHW output -> scratch, committed
  EXPECT_EQ(order.Input(1, xb), xb.dptr_);
  const double* w_last = static_cast<const double*>(order.Input(0, wb));
  ASSERT_NE(static_cast<const void*>(w_last), wb.dptr_);
  // element (o, c, k) of the NCHW filters sits at (o, k, c) in the copy
  for (int64_t o = 0; o < 2; ++o)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t k = 0; k < 4; ++k)
        EXPECT_EQ(w_last[(o * 4 + k) * 3 + c], w.GetDouble((o * 3 + c) * 4 + k));
  EXPECT_EQ(order.Req(2, kAddTo), kWriteTo);
  EXPECT_EQ(order.Req(1, kAddTo), kAddTo);
  EXPECT_EQ(order.Req(2, kNullOp), kNullOp);
  double* g = static_cast<double*>(order.Output(2, dxb));
  ASSERT_NE(static_cast<void*>(g), dxb.dptr_);
  for (int64_t i = 0; i < 24; ++i)
    g[i] = static_cast<double>(i);  // "the library's result", channels-last
  order.Commit(2, dxb, kAddTo);
  for (int64_t n = 0; n < 2; ++n)
    for (int64_t c = 0; c < 3; ++c)
      for (int64_t p = 0; p < 4; ++p) {
        const int64_t i = (n * 3 + c) * 4 + p;
        EXPECT_EQ(dx.GetDouble(i), 100.0 * (i + 1) + static_cast<double>((n * 4 + p) * 3 + c)) << i;
      }
}

}  // namespace
}  // namespace ops
}  // namespace symnet

namespace symnet {
namespace {

TEST(GPUKernels, EveryOpWithACPUKernelHasAGPUKernelInACUDABuild) {
  if (!BuiltWithCUDA()) GTEST_SKIP() << "built without CUDA";
  std::vector<std::string> missing;
  for (const auto& name : Op::ListNames()) {
    const Op* op = Op::Get(name);
    if (op->attr<FCompute>("FCompute<cpu>") && !op->attr<FCompute>("FCompute<gpu>"))
      missing.push_back(name);
  }
  EXPECT_TRUE(missing.empty()) << "ops without a GPU kernel (update docs/gpu.md): "
                               << ::testing::PrintToString(missing);
}

}  // namespace
}  // namespace symnet
