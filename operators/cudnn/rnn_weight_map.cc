/*!
 * \brief The host-side parts of the cuDNN RNN path (cudnn_rnn.h): the packed-parameter to
 *  weight-space map, the reserve layout and the SYMNET_CUDNN_RNN switch. Plain C++, so every
 *  build compiles them and the CPU tests check them.
 */
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <utility>

#include "cudnn_rnn.h"

namespace symnet {
namespace ops {
namespace cudnn {

std::vector<RnnCopy> RnnWeightCopies(const RnnGeom& g, const std::vector<RnnParamSlot>& slots) {
  const int64_t G = g.G, H = g.H, P = g.L * g.D;
  std::map<std::pair<int64_t, int64_t>, const RnnParamSlot*> by_id;
  for (const RnnParamSlot& s : slots) {
    SYMNET_CHECK(s.pseudo_layer >= 0 && s.pseudo_layer < P && s.lin_id >= 0 && s.lin_id < 2 * G)
        << "cuDNN RNN weight map: unexpected slot (pseudo-layer " << s.pseudo_layer
        << ", linear layer " << s.lin_id << ") for " << P << " pseudo-layers of " << 2 * G
        << " linear layers";
    SYMNET_CHECK(by_id.emplace(std::make_pair(s.pseudo_layer, s.lin_id), &s).second)
        << "cuDNN RNN weight map: slot (" << s.pseudo_layer << ", " << s.lin_id << ") twice";
  }
  std::vector<RnnCopy> raw;
  for (int64_t l = 0; l < g.L; ++l)
    for (int64_t d = 0; d < g.D; ++d) {
      const int64_t pl = l * g.D + d, I = g.In(l);
      for (int64_t lin = 0; lin < 2 * G; ++lin) {
        auto it = by_id.find({pl, lin});
        SYMNET_CHECK(it != by_id.end())
            << "cuDNN RNN weight map: no slot for pseudo-layer " << pl << ", linear layer " << lin;
        const RnnParamSlot& s = *it->second;
        // the gate index is the same on both sides (module comment of cudnn_rnn.h)
        const bool rec = lin >= G;
        const int64_t gate = rec ? lin - G : lin;
        const int64_t cols = rec ? H : I;
        SYMNET_CHECK(s.matrix_count == H * cols && s.bias_count == H)
            << "cuDNN RNN weight map: pseudo-layer " << pl << ", linear layer " << lin << " has a "
            << s.matrix_count << "-element matrix and a " << s.bias_count
            << "-element bias; MXNet's layout has " << H * cols << " and " << H;
        const int64_t w0 = (rec ? g.Wh(l, d) : g.Wx(l, d)) + gate * H * cols;
        const int64_t b0 = (rec ? g.Bh(l, d) : g.Bx(l, d)) + gate * H;
        raw.push_back({w0, s.matrix, H * cols});
        raw.push_back({b0, s.bias, H});
      }
    }
  // every destination once: two blocks on one place would make cuDNN read the wrong weights
  std::vector<RnnCopy> by_dst = raw;
  std::sort(by_dst.begin(), by_dst.end(),
            [](const RnnCopy& a, const RnnCopy& b) { return a.dst < b.dst; });
  for (size_t i = 0; i + 1 < by_dst.size(); ++i)
    SYMNET_CHECK(by_dst[i].dst >= 0 && by_dst[i].dst + by_dst[i].count <= by_dst[i + 1].dst)
        << "cuDNN RNN weight map: blocks at weight-space elements " << by_dst[i].dst << " and "
        << by_dst[i + 1].dst << " overlap";
  std::sort(raw.begin(), raw.end(),
            [](const RnnCopy& a, const RnnCopy& b) { return a.src < b.src; });
  std::vector<RnnCopy> merged;
  for (const RnnCopy& c : raw) {
    if (!merged.empty() && merged.back().src + merged.back().count == c.src &&
        merged.back().dst + merged.back().count == c.dst) {
      merged.back().count += c.count;
    } else {
      merged.push_back(c);
    }
  }
  return merged;
}

bool RnnCopiesAreIdentity(const std::vector<RnnCopy>& copies, int64_t n) {
  return copies.size() == 1 && copies[0].src == 0 && copies[0].dst == 0 && copies[0].count == n;
}

namespace {
size_t Align256(size_t b) { return (b + 255) / 256 * 256; }
}  // namespace

RnnReserveLayout MakeRnnReserveLayout(const RnnGeom& g, size_t elem_bytes,
                                      size_t cudnn_reserve_bytes) {
  RnnReserveLayout r;
  r.seq_lengths = 0;
  r.y = Align256(static_cast<size_t>(g.N) * sizeof(int32_t));
  r.cudnn = r.y + Align256(static_cast<size_t>(g.T * g.N * g.D * g.H) * elem_bytes);
  r.end = r.cudnn + cudnn_reserve_bytes;
  return r;
}

bool RnnEnabled() {
  const char* env = std::getenv("SYMNET_CUDNN_RNN");
  return !(env && std::strcmp(env, "0") == 0);
}

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
