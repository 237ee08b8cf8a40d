/*!
 * \brief box_iou, box_nms and bipartite_matching on a GPU. box_iou runs one thread per box pair
 *  and bipartite_matching the CPU's greedy pass, one thread per batch item. box_nms runs MXNet's
 *  greedy suppression in parallel steps, per batch item:
 *   1. rank: each valid box's place in the descending order of the scores, ties in input order,
 *      by counting the valid boxes before it. That is exactly the CPU's stable sort's order,
 *      with no device-wide sort and no scratch beyond the order itself; its n^2 comparisons are
 *      a few instructions each, cheap next to step 2's IoUs.
 *   2. mask: for the first nk = min(valid boxes, topk) of that order, in tiles of 64 x 64
 *      boxes, one 64-bit word per (box, column tile) whose bit j says that the box suppresses
 *      box j of the tile (a later box only). Every IoU of the greedy pass, in parallel.
 *   3. scan: one warp per item walks the nk boxes in order; a box not yet removed is kept and
 *      its mask words are ORed into the removed set. That is the greedy pass itself (a removed
 *      box removes nothing), with only bit operations left in the sequential part.
 *   4. write: one thread per output row copies its kept row (or -1s) and its record, and
 *      converts the box format.
 *  Validity, suppression and format conversion are bounding_box.h's helpers, shared with the
 *  CPU kernel, so both decide in the same arithmetic. The backward (a scatter by the record)
 *  is the CPU's kernel, one thread per row.
 */
#include <algorithm>

#include "bounding_box.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

constexpr int kRankThreads = 256;
constexpr int64_t kTile = 64;  // boxes per mask word
constexpr int kScanThreads = 32;
/*! \brief Scratch one round of box_nms may take: larger batches run in rounds of items. */
constexpr size_t kNmsScratchBudget = size_t(256) << 20;

template <typename T>
__global__ void NmsRankKernel(const T* data, int64_t n, int64_t width, NMSParams p, int32_t* order,
                              int32_t* num_valid) {
  using A = AccType<T>;
  __shared__ A keys[kRankThreads];
  __shared__ bool valid[kRankThreads];
  const int64_t b = blockIdx.y;
  const T* rows = data + b * n * width;
  const int64_t i = static_cast<int64_t>(blockIdx.x) * kRankThreads + threadIdx.x;
  const bool vi = i < n && NMSIsValid(rows + i * width, p);
  const A ki = vi ? static_cast<A>(rows[i * width + p.score_index]) : A(0);
  int64_t rank = 0, nv = 0;
  for (int64_t base = 0; base < n; base += kRankThreads) {
    const int64_t j = base + threadIdx.x;
    const bool vj = j < n && NMSIsValid(rows + j * width, p);
    valid[threadIdx.x] = vj;
    keys[threadIdx.x] = vj ? static_cast<A>(rows[j * width + p.score_index]) : A(0);
    __syncthreads();
    const int64_t m = n - base < kRankThreads ? n - base : kRankThreads;
    for (int64_t t = 0; t < m; ++t) {
      if (!valid[t]) continue;
      ++nv;
      const A kj = keys[t];
      // before box i: a higher score, or an equal one earlier in the input (a stable sort)
      rank += (kj > ki || (kj == ki && base + t < i)) ? 1 : 0;
    }
    __syncthreads();
  }
  if (vi) order[b * n + rank] = static_cast<int32_t>(i);
  if (i == 0) num_valid[b] = static_cast<int32_t>(nv);
}

template <typename T>
__global__ void NmsMaskKernel(const T* data, int64_t n, int64_t width, NMSParams p,
                              const int32_t* order, const int32_t* num_valid, int64_t k_limit,
                              int64_t words, uint64_t* mask) {
  const int64_t b = blockIdx.z;
  const int64_t nv = num_valid[b];
  const int64_t nk = nv < k_limit ? nv : k_limit;
  const int64_t row_tile = blockIdx.y, col_tile = blockIdx.x;
  const int64_t row0 = row_tile * kTile, col0 = col_tile * kTile;
  // a box suppresses only boxes after it: tiles left of the diagonal stay unwritten, and the
  // scan never reads them
  if (col_tile < row_tile || row0 >= nk || col0 >= nk) return;
  __shared__ int32_t cols[kTile];
  const T* rows = data + b * n * width;
  const int32_t* ord = order + b * n;
  if (col0 + threadIdx.x < nk) cols[threadIdx.x] = ord[col0 + threadIdx.x];
  __syncthreads();
  const int64_t i = row0 + threadIdx.x;
  if (i >= nk) return;
  const T* ri = rows + static_cast<int64_t>(ord[i]) * width;
  const int64_t m = nk - col0 < kTile ? nk - col0 : kTile;
  uint64_t bits = 0;
  for (int64_t c = col_tile == row_tile ? threadIdx.x + 1 : 0; c < m; ++c)
    if (NMSSuppresses(ri, rows + static_cast<int64_t>(cols[c]) * width, p))
      bits |= uint64_t(1) << c;
  mask[(b * k_limit + i) * words + col_tile] = bits;
}

__global__ void NmsScanKernel(const int32_t* num_valid, int64_t k_limit, int64_t words,
                              const uint64_t* mask, uint64_t* removed, int32_t* kept,
                              int32_t* num_kept) {
  const int64_t b = blockIdx.x;
  const int64_t nv = num_valid[b];
  const int64_t nk = nv < k_limit ? nv : k_limit;
  const int64_t used = (nk + kTile - 1) / kTile;
  // lanes write words that other lanes read in the next step: volatile, ordered by __syncwarp
  volatile uint64_t* rem = removed + b * words;
  const int lane = threadIdx.x;
  for (int64_t w = lane; w < used; w += kScanThreads) rem[w] = 0;
  __syncwarp();
  int64_t count = 0;
  for (int64_t i = 0; i < nk; ++i) {
    const int64_t w = i / kTile;
    int gone = 0;
    if (lane == 0) gone = static_cast<int>((rem[w] >> (i % kTile)) & 1);
    gone = __shfl_sync(0xffffffffu, gone, 0);
    if (!gone) {
      if (lane == 0) kept[b * k_limit + count] = static_cast<int32_t>(i);
      ++count;
      const uint64_t* mi = mask + (b * k_limit + i) * words;
      for (int64_t x = w + lane; x < used; x += kScanThreads) rem[x] |= mi[x];
    }
    __syncwarp();
  }
  if (lane == 0) num_kept[b] = static_cast<int32_t>(count);
}

/*! \brief Output row r of a round: its kept input row or -1s, the record, the format. */
struct NmsWriteRows {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t r, T* out, int32_t* record, const T* data,
                                 const int32_t* order, const int32_t* kept, const int32_t* num_kept,
                                 int64_t n, int64_t width, int64_t k_limit, int64_t b0,
                                 NMSParams p) {
    using A = AccType<T>;
    const int64_t b = r / n, i = r % n;
    T* o = out + r * width;
    if (i < num_kept[b]) {
      const int64_t src = order[b * n + kept[b * k_limit + i]];
      const T* s = data + (b * n + src) * width;
      for (int64_t k = 0; k < width; ++k) o[k] = s[k];
      record[r] = static_cast<int32_t>((b0 + b) * n + src);
    } else {
      for (int64_t k = 0; k < width; ++k) o[k] = T(A(-1));
      record[r] = -1;
    }
    if (p.in_format != p.out_format) NMSConvertRow(o + p.coord_start, p);
  }
};

/*! \brief topk = 0: MXNet passes the input through. */
struct NmsPassThrough {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t r, T* out, int32_t* record, const T* data, int64_t width) {
    for (int64_t k = 0; k < width; ++k) out[r * width + k] = data[r * width + k];
    record[r] = static_cast<int32_t>(r);
  }
};

size_t Align256(size_t b) { return (b + 255) / 256 * 256; }

/*! \brief Scratch of one round of `items` batch items. */
struct NmsScratch {
  int32_t *order, *num_valid, *kept, *num_kept;
  uint64_t *mask, *removed;
  static size_t Bytes(int64_t items, int64_t n, int64_t k, int64_t words) {
    const size_t it = static_cast<size_t>(items);
    return Align256(it * n * sizeof(int32_t)) + Align256(it * sizeof(int32_t)) +
           Align256(it * k * words * sizeof(uint64_t)) + Align256(it * words * sizeof(uint64_t)) +
           Align256(it * k * sizeof(int32_t)) + Align256(it * sizeof(int32_t));
  }
  NmsScratch(void* base, int64_t items, int64_t n, int64_t k, int64_t words) {
    const size_t it = static_cast<size_t>(items);
    char* at = static_cast<char*>(base);
    auto take = [&at](size_t bytes) {
      char* p = at;
      at += Align256(bytes);
      return p;
    };
    order = reinterpret_cast<int32_t*>(take(it * n * sizeof(int32_t)));
    num_valid = reinterpret_cast<int32_t*>(take(it * sizeof(int32_t)));
    mask = reinterpret_cast<uint64_t*>(take(it * k * words * sizeof(uint64_t)));
    removed = reinterpret_cast<uint64_t*>(take(it * words * sizeof(uint64_t)));
    kept = reinterpret_cast<int32_t*>(take(it * k * sizeof(int32_t)));
    num_kept = reinterpret_cast<int32_t*>(take(it * sizeof(int32_t)));
  }
};

template <typename T>
void BoxNMSRun(int dev, const NMSGeom& g, const NMSParams& p, const T* data, T* out,
               int32_t* record) {
  const int64_t n = g.num, width = g.width;
  const int64_t k_limit = p.topk < 0 ? n : std::min<int64_t>(p.topk, n);
  if (k_limit < 1) {
    Kernel<NmsPassThrough, gpu>::Launch(g.batch * n, out, record, data, width);
    return;
  }
  const int64_t words = (k_limit + kTile - 1) / kTile;
  SYMNET_CHECK(words <= 65535) << "box_nms on a GPU takes at most " << 65535 * kTile
                               << " boxes per batch item into suppression (topk), got " << k_limit;
  const size_t per_item = NmsScratch::Bytes(1, n, k_limit, words);
  const int64_t items = std::max<int64_t>(
      1, std::min<int64_t>({g.batch, 65535, static_cast<int64_t>(kNmsScratchBudget / per_item)}));
  void* base = cuda::Workspace(dev, NmsScratch::Bytes(items, n, k_limit, words));
  const NmsScratch s(base, items, n, k_limit, words);
  cudaStream_t stream = cuda::CurrentStream();
  for (int64_t b0 = 0; b0 < g.batch; b0 += items) {
    const int64_t nb = std::min(items, g.batch - b0);
    const T* d = data + b0 * n * width;
    const dim3 rank_grid(static_cast<unsigned>((n + kRankThreads - 1) / kRankThreads),
                         static_cast<unsigned>(nb));
    NmsRankKernel<T><<<rank_grid, kRankThreads, 0, stream>>>(d, n, width, p, s.order, s.num_valid);
    cuda::CheckLaunch("box_nms (rank)");
    const dim3 mask_grid(static_cast<unsigned>(words), static_cast<unsigned>(words),
                         static_cast<unsigned>(nb));
    NmsMaskKernel<T><<<mask_grid, static_cast<unsigned>(kTile), 0, stream>>>(
        d, n, width, p, s.order, s.num_valid, k_limit, words, s.mask);
    cuda::CheckLaunch("box_nms (mask)");
    NmsScanKernel<<<static_cast<unsigned>(nb), kScanThreads, 0, stream>>>(
        s.num_valid, k_limit, words, s.mask, s.removed, s.kept, s.num_kept);
    cuda::CheckLaunch("box_nms (scan)");
    Kernel<NmsWriteRows, gpu>::LaunchOn(
        stream, nb * n, out + b0 * n * width, record + b0 * n, d,
        static_cast<const int32_t*>(s.order), static_cast<const int32_t*>(s.kept),
        static_cast<const int32_t*>(s.num_kept), n, width, k_limit, b0, p);
  }
}

/*! \brief Outputs (out, record). */
void BoxNMSForwardGPU(const NodeAttrs& attrs, const OpContext& ctx, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (in[0].Size() == 0) return;
  const NMSGeom g = MakeNMSGeom(in[0].shape_);
  const NMSParams p = ToNMSParams(Param<BoxNMSParam>(attrs));
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    BoxNMSRun<T>(ctx.dev.id, g, p, in[0].dptr<T>(), out[0].dptr<T>(), out[1].dptr<int32_t>());
  });
}

}  // namespace

SYMNET_REGISTER_OP(_contrib_box_iou).set_attr<FCompute>("FCompute<gpu>", BoxIoUForward<gpu>);
SYMNET_REGISTER_OP(_contrib_box_nms).set_attr<FCompute>("FCompute<gpu>", BoxNMSForwardGPU);
SYMNET_REGISTER_OP(_backward_contrib_box_nms)
    .set_attr<FCompute>("FCompute<gpu>", BoxNMSBackward<gpu>);
SYMNET_REGISTER_OP(_contrib_bipartite_matching)
    .set_attr<FCompute>("FCompute<gpu>", BipartiteMatchingForward<gpu>);

}  // namespace ops
}  // namespace symnet
