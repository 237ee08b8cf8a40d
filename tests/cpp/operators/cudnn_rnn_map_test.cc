/*!
 * \brief The cuDNN RNN path's host-side logic (operators/cudnn/cudnn_rnn.h), checked on every
 *  machine: the map from MXNet's packed parameters to a cuDNN weight space described slot by
 *  slot, as cudnnGetRNNWeightParams would describe it, and the reserve's layout.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "operators/cudnn/cudnn_rnn.h"

namespace symnet {
namespace ops {
namespace cudnn {
namespace {

RnnGeom Geom(int mode, int64_t L, int64_t D, int64_t C, int64_t H) {
  RnnGeom g;
  g.mode = mode;
  g.L = L, g.D = D, g.T = 3, g.N = 2, g.C = C, g.H = H;
  g.G = mode == kLstm ? 4 : mode == kGru ? 3 : 1;
  return g;
}

/*! \brief Slots laid out as MXNet packs: every matrix first, then every bias. */
std::vector<RnnParamSlot> PackedSlots(const RnnGeom& g) {
  std::vector<RnnParamSlot> s;
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < g.D; ++d)
      for (int64_t lin = 0; lin < 2 * g.G; ++lin) {
        const bool rec = lin >= g.G;
        const int64_t gate = rec ? lin - g.G : lin, cols = rec ? g.H : g.In(l);
        RnnParamSlot x;
        x.pseudo_layer = l * g.D + d, x.lin_id = lin;
        x.matrix = (rec ? g.Wh(l, d) : g.Wx(l, d)) + gate * g.H * cols;
        x.matrix_count = g.H * cols;
        x.bias = (rec ? g.Bh(l, d) : g.Bx(l, d)) + gate * g.H;
        x.bias_count = g.H;
        s.push_back(x);
      }
  return s;
}

/*! \brief Slots laid out per pseudo-layer (its matrices, then its biases), with `pad` unused
 *  elements after every block: another layout cuDNN could describe. */
std::vector<RnnParamSlot> PerLayerSlots(const RnnGeom& g, int64_t pad, int64_t* total) {
  std::vector<RnnParamSlot> s;
  int64_t at = 0;
  for (int64_t pl = 0; pl < g.L * g.D; ++pl) {
    const int64_t I = g.In(pl / g.D);
    std::vector<RnnParamSlot> layer(2 * g.G);
    for (int64_t lin = 0; lin < 2 * g.G; ++lin) {
      layer[lin].pseudo_layer = pl, layer[lin].lin_id = lin;
      layer[lin].matrix = at;
      layer[lin].matrix_count = g.H * (lin < g.G ? I : g.H);
      at += layer[lin].matrix_count + pad;
    }
    for (int64_t lin = 0; lin < 2 * g.G; ++lin) {
      layer[lin].bias = at;
      layer[lin].bias_count = g.H;
      at += g.H + pad;
    }
    s.insert(s.end(), layer.begin(), layer.end());
  }
  *total = at;
  return s;
}

std::vector<float> Apply(const std::vector<RnnCopy>& copies, const std::vector<float>& packed,
                         int64_t space_size) {
  std::vector<float> space(static_cast<size_t>(space_size), -1.f);
  for (const RnnCopy& c : copies)
    for (int64_t k = 0; k < c.count; ++k) space[c.dst + k] = packed[c.src + k];
  return space;
}

TEST(CudnnRnnMap, MxnetsOwnLayoutIsTheIdentity) {
  for (int mode : {kRnnRelu, kRnnTanh, kLstm, kGru}) {
    const RnnGeom g = Geom(mode, 2, 2, 5, 3);
    const auto copies = RnnWeightCopies(g, PackedSlots(g));
    EXPECT_TRUE(RnnCopiesAreIdentity(copies, g.NumParams())) << "mode " << mode;
    ASSERT_EQ(copies.size(), 1u);
    EXPECT_EQ(copies[0], (RnnCopy{0, 0, g.NumParams()}));
  }
}

TEST(CudnnRnnMap, EveryBlockLandsInItsCudnnSlot) {
  for (int mode : {kRnnRelu, kRnnTanh, kLstm, kGru})
    for (int64_t D : {1, 2})
      for (int64_t pad : {0, 3}) {
        const RnnGeom g = Geom(mode, 2, D, 5, 3);
        int64_t total = 0;
        std::vector<RnnParamSlot> slots = PerLayerSlots(g, pad, &total);
        // cuDNN's answers may come in any order
        std::shuffle(slots.begin(), slots.end(), std::mt19937(7));
        const auto copies = RnnWeightCopies(g, slots);
        const bool one_layer = g.L * g.D == 1 && pad == 0;
        EXPECT_EQ(RnnCopiesAreIdentity(copies, g.NumParams()), one_layer);
        std::vector<float> packed(static_cast<size_t>(g.NumParams()));
        for (size_t i = 0; i < packed.size(); ++i) packed[i] = static_cast<float>(i);
        const std::vector<float> space = Apply(copies, packed, total);
        for (const RnnParamSlot& s : slots) {
          const int64_t l = s.pseudo_layer / g.D, d = s.pseudo_layer % g.D;
          const bool rec = s.lin_id >= g.G;
          const int64_t gate = rec ? s.lin_id - g.G : s.lin_id, cols = rec ? g.H : g.In(l);
          const int64_t w0 = (rec ? g.Wh(l, d) : g.Wx(l, d)) + gate * g.H * cols;
          const int64_t b0 = (rec ? g.Bh(l, d) : g.Bx(l, d)) + gate * g.H;
          for (int64_t k = 0; k < s.matrix_count; ++k)
            ASSERT_EQ(space[s.matrix + k], packed[w0 + k])
                << "mode " << mode << " slot " << s.pseudo_layer << "/" << s.lin_id;
          for (int64_t k = 0; k < s.bias_count; ++k) ASSERT_EQ(space[s.bias + k], packed[b0 + k]);
        }
        // every parameter is copied exactly once, so gradients map back completely
        int64_t moved = 0;
        for (const RnnCopy& c : copies) moved += c.count;
        EXPECT_EQ(moved, g.NumParams());
        EXPECT_EQ(std::count(space.begin(), space.end(), -1.f), total - g.NumParams());
        std::vector<float> back(packed.size(), -2.f);
        for (const RnnCopy& c : copies)
          for (int64_t k = 0; k < c.count; ++k) back[c.src + k] = space[c.dst + k];
        EXPECT_EQ(back, packed);
      }
}

TEST(CudnnRnnMap, NeighbouringBlocksMerge) {
  // per-pseudo-layer blocks without padding: each (layer, direction)'s W_x and W_h are
  // neighbours on both sides, and so are its b_x and b_h
  const RnnGeom g = Geom(kLstm, 2, 2, 5, 3);
  int64_t total = 0;
  const auto copies = RnnWeightCopies(g, PerLayerSlots(g, 0, &total));
  EXPECT_EQ(copies.size(), static_cast<size_t>(2 * g.L * g.D));
  for (size_t i = 1; i < copies.size(); ++i) EXPECT_LT(copies[i - 1].src, copies[i].src);
}

TEST(CudnnRnnMap, UnexpectedLayoutsAreRefused) {
  const RnnGeom g = Geom(kGru, 2, 1, 4, 3);
  std::vector<RnnParamSlot> s = PackedSlots(g);
  auto missing = s;
  missing.pop_back();
  EXPECT_THROW(RnnWeightCopies(g, missing), std::exception);
  auto twice = s;
  twice.push_back(s.front());
  EXPECT_THROW(RnnWeightCopies(g, twice), std::exception);
  auto wrong_size = s;
  wrong_size[1].matrix_count += 1;
  EXPECT_THROW(RnnWeightCopies(g, wrong_size), std::exception);
  auto overlap = s;
  overlap[2].bias = overlap[3].bias;
  EXPECT_THROW(RnnWeightCopies(g, overlap), std::exception);
  auto bad_id = s;
  bad_id[0].lin_id = 2 * g.G;
  EXPECT_THROW(RnnWeightCopies(g, bad_id), std::exception);
}

TEST(CudnnRnnMap, ReserveLayoutKeepsItsPartsAlignedAndApart) {
  RnnGeom g = Geom(kLstm, 2, 2, 5, 3);
  g.T = 7, g.N = 5;
  const RnnReserveLayout r = MakeRnnReserveLayout(g, 2, 1000);
  EXPECT_EQ(r.seq_lengths, 0u);
  EXPECT_GE(r.y, g.N * sizeof(int32_t));
  EXPECT_EQ(r.y % 256, 0u);
  EXPECT_EQ(r.cudnn % 256, 0u);
  EXPECT_GE(r.cudnn, r.y + static_cast<size_t>(g.T * g.N * g.D * g.H) * 2);
  EXPECT_EQ(r.end, r.cudnn + 1000);
}

TEST(CudnnRnnMap, EnvironmentSwitchesThePathOff) {
  const char* old = std::getenv("SYMNET_CUDNN_RNN");
  const std::string saved = old ? old : "";
  setenv("SYMNET_CUDNN_RNN", "0", 1);
  EXPECT_FALSE(RnnEnabled());
  setenv("SYMNET_CUDNN_RNN", "1", 1);
  EXPECT_TRUE(RnnEnabled());
  unsetenv("SYMNET_CUDNN_RNN");
  EXPECT_TRUE(RnnEnabled());
  if (old) setenv("SYMNET_CUDNN_RNN", saved.c_str(), 1);
}

TEST(CudnnRnnMap, NoReserveWhereCudnnDoesNotRun) {
  // without a GPU (or a CUDA build) the cuDNN path asks for nothing; with one, float64 and
  // empty sequences stay on the cuBLAS loop
  RnnGeom g = Geom(kLstm, 1, 1, 4, 3);
  EXPECT_EQ(RnnReserveBytes(0, g, DType::kFloat64), 0u);
  g.T = 0;
  EXPECT_EQ(RnnReserveBytes(0, g, DType::kFloat32), 0u);
}

}  // namespace
}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
