/*!
 * \brief The fused RNN op's oneDNN path: it creates oneDNN RNN primitives (forward training and
 *  backward) and gives the GEMM path's outputs and gradients, for a stacked bidirectional LSTM
 *  and GRU in float32.
 */
#include <gtest/gtest.h>

#include <cmath>
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

RnnRun RunRnn(const std::string& impl, const std::string& mode) {
  SetRnnCpuImpl(impl);
  Symbol data = Symbol::Variable("data");
  Symbol net = Symbol::Create("RNN", "rnn",
                              {{"state_size", "5"},
                               {"num_layers", "2"},
                               {"bidirectional", "True"},
                               {"mode", mode},
                               {"state_outputs", "True"}},
                              {data});
  ClearDnnlPrimitivesCreated();
  auto exe =
      Executor::SimpleBind(net, Device::CPU(), {{"data", Shape{6, 3, 4}}}, {}, {}, GradReq::kWrite);
  for (const NDArray& a : exe->arg_arrays()) {
    std::vector<float> v(a.Size());
    for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5f * std::sin(0.37f * i + 0.1f * v.size());
    a.CopyFromBuffer(v.data(), DType::kFloat32);
  }
  exe->Forward(true);
  std::vector<NDArray> heads;
  for (const NDArray& o : exe->outputs()) {
    NDArray h(o.shape(), Device::CPU(), DType::kFloat32);
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

TEST_P(DnnlRnnOp, MatchesGemmPathAndCreatesRnnPrimitives) {
  const RnnRun gemm = RunRnn("gemm", GetParam());
  const RnnRun dnnl = RunRnn("dnnl", GetParam());
  bool fwd = false, bwd = false;
  std::string all;
  for (const auto& p : dnnl.prims) {
    fwd |= p.rfind("rnn forward training:", 0) == 0;
    bwd |= p.rfind("rnn backward:", 0) == 0;
    all += "  " + p + "\n";
  }
  EXPECT_TRUE(fwd && bwd) << "no oneDNN RNN primitives:\n" << all;
  for (const auto& p : gemm.prims) EXPECT_EQ(p.rfind("rnn ", 0), std::string::npos) << p;
  ASSERT_EQ(gemm.values.size(), dnnl.values.size());
  for (size_t k = 0; k < gemm.values.size(); ++k) {
    ASSERT_EQ(gemm.values[k].size(), dnnl.values[k].size());
    for (size_t i = 0; i < gemm.values[k].size(); ++i)
      EXPECT_NEAR(dnnl.values[k][i], gemm.values[k][i],
                  1e-5f + 1e-5f * std::fabs(gemm.values[k][i]))
          << "array " << k << " element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Cells, DnnlRnnOp,
                         ::testing::Values("lstm", "gru", "rnn_tanh", "rnn_relu"));

}  // namespace
}  // namespace symnet
