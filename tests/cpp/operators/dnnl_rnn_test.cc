/*!
 * \brief The fused RNN op's oneDNN path: it creates oneDNN RNN primitives (forward training and
 *  backward) and gives the GEMM path's outputs and gradients, for a stacked bidirectional LSTM,
 *  GRU and vanilla RNN in float32, with dropout between the layers (the same masks under one
 *  seed), and in bfloat16 where oneDNN runs it natively.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "symnet/symnet.h"

namespace symnet {
namespace {

struct RnnRun {
  std::vector<std::vector<float>> values;  // outputs, then gradients
  std::vector<std::string> prims;
};

std::vector<float> Host(const NDArray& a) {
  std::vector<float> v(a.Size());
  a.CopyToBuffer(v.data(), DType::kFloat32);
  return v;
}

RnnRun RunRnn(const std::string& impl, const std::string& mode, const std::string& p = "0",
              DType dtype = DType::kFloat32) {
  SetRnnCpuImpl(impl);
  Symbol data = Symbol::Variable("data");
  Symbol net = Symbol::Create("RNN", "rnn",
                              {{"state_size", "5"},
                               {"num_layers", "2"},
                               {"bidirectional", "True"},
                               {"mode", mode},
                               {"p", p},
                               {"state_outputs", "True"}},
                              {data});
  ClearDnnlPrimitivesCreated();
  std::map<std::string, DType> types;
  for (const auto& name : net.ListArguments()) types[name] = dtype;
  auto exe = Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{6, 3, 4}}}, types, {},
                                  GradReq::kWrite);
  SeedRandom(5);
  for (const NDArray& a : exe->arg_arrays()) {
    std::vector<float> v(a.Size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * std::sin(0.37f * i + 0.1f * v.size());
    a.CopyFromBuffer(v.data(), DType::kFloat32);
  }
  exe->Forward(true);
  std::vector<NDArray> heads;
  for (const NDArray& o : exe->outputs()) {
    NDArray h(o.shape(), Device::CPU(), dtype);
    std::vector<float> v(h.Size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(0.23f * i);
    h.CopyFromBuffer(v.data(), DType::kFloat32);
    heads.push_back(h);
  }
  exe->Backward(heads);
  RnnRun r;
  for (const NDArray& o : exe->outputs()) r.values.push_back(Host(o));
  for (const NDArray& g : exe->grad_arrays()) r.values.push_back(Host(g));
  r.prims = DnnlPrimitivesCreated();
  return r;
}

class DnnlRnnOp : public ::testing::TestWithParam<std::string> {
 protected:
  void TearDown() override { SetRnnCpuImpl("auto"); }
};

void ExpectRnnPrimitives(const RnnRun& dnnl, const RnnRun& gemm) {
  bool fwd = false, bwd = false;
  std::string all;
  for (const auto& p : dnnl.prims) {
    fwd |= p.rfind("rnn forward training:", 0) == 0;
    bwd |= p.rfind("rnn backward:", 0) == 0;
    all += "  " + p + "\n";
  }
  EXPECT_TRUE(fwd && bwd) << "no oneDNN RNN primitives:\n" << all;
  for (const auto& p : gemm.prims) EXPECT_EQ(p.rfind("rnn ", 0), std::string::npos) << p;
}

/*! \brief |a - b| <= tol * (1 + |b|) element-wise, or tol times each array's largest |b|. */
void ExpectClose(const RnnRun& got, const RnnRun& want, float tol, bool scaled) {
  ASSERT_EQ(want.values.size(), got.values.size());
  for (size_t k = 0; k < want.values.size(); ++k) {
    ASSERT_EQ(want.values[k].size(), got.values[k].size());
    float scale = 0.f;
    for (float v : want.values[k]) scale = std::max(scale, std::fabs(v));
    for (size_t i = 0; i < want.values[k].size(); ++i) {
      const float w = want.values[k][i];
      EXPECT_NEAR(got.values[k][i], w, scaled ? tol * scale + 1e-6f : tol + tol * std::fabs(w))
          << "array " << k << " element " << i;
    }
  }
}

TEST_P(DnnlRnnOp, MatchesGemmPathAndCreatesRnnPrimitives) {
  const RnnRun gemm = RunRnn("gemm", GetParam());
  const RnnRun dnnl = RunRnn("dnnl", GetParam());
  ExpectRnnPrimitives(dnnl, gemm);
  ExpectClose(dnnl, gemm, 1e-5f, false);
}

INSTANTIATE_TEST_SUITE_P(Cells, DnnlRnnOp,
                         ::testing::Values("lstm", "gru", "rnn_tanh", "rnn_relu"));

// the other cells' dropout and bfloat16 are in tests/python/test_operator_rnn.py
TEST(DnnlRnnPath, DropoutBetweenLayersMatchesGemmPath) {
  // both paths draw the masks alike, so under one seed they drop the same units
  const RnnRun gemm = RunRnn("gemm", "lstm", "0.4");
  const RnnRun dnnl = RunRnn("dnnl", "lstm", "0.4");
  SetRnnCpuImpl("auto");
  ExpectRnnPrimitives(dnnl, gemm);
  ExpectClose(dnnl, gemm, 1e-5f, false);
  // and the masks do something: without dropout the outputs differ
  const RnnRun plain = RunRnn("dnnl", "lstm");
  SetRnnCpuImpl("auto");
  float diff = 0.f;
  for (size_t i = 0; i < plain.values[0].size(); ++i)
    diff = std::max(diff, std::fabs(plain.values[0][i] - dnnl.values[0][i]));
  EXPECT_GT(diff, 1e-3f);
}

TEST(DnnlRnnPath, Bfloat16RunsNativelyNearFloat32) {
  if (!DnnlNativeBF16()) GTEST_SKIP() << "CPU lacks AVX512_CORE_BF16 (no native bfloat16)";
  for (const char* mode : {"lstm", "gru"}) {
    const RnnRun f32 = RunRnn("gemm", mode, "0.4");
    const RnnRun bf16 = RunRnn("dnnl", mode, "0.4", DType::kBFloat16);
    SetRnnCpuImpl("auto");
    ExpectRnnPrimitives(bf16, f32);
    // inputs, weights and states rounded to 8 significant bits: a few percent of each array's
    // largest value (observed below 1.5e-2)
    ExpectClose(bf16, f32, 4e-2f, true);
  }
}

}  // namespace
}  // namespace symnet
