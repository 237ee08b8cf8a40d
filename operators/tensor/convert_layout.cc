/*!
 * \brief _convert_layout: copies an activation between memory orders (default NCHW, NHWC,
 *  nChw16c). The executor inserts it where a region in a oneDNN layout meets an op that reads
 *  or writes the logical order; each blob carries its layout.
 */
#include <cstring>

#include "../dnnl/dnnl_operand.h"
#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

namespace {

/*! \brief dst[n][j][i] = src[n][i][j] for (rows x cols) planes, in cache-sized tiles. */
template <typename E>
void TransposePlanes(const E* src, E* dst, int64_t planes, int64_t rows, int64_t cols) {
  constexpr int64_t kTile = 32;
#pragma omp parallel for collapse(2) if (planes * rows * cols >= kOmpMinWork)
  for (int64_t p = 0; p < planes; ++p) {
    for (int64_t r0 = 0; r0 < rows; r0 += kTile) {
      const E* s = src + p * rows * cols;
      E* d = dst + p * rows * cols;
      for (int64_t c0 = 0; c0 < cols; c0 += kTile)
        for (int64_t r = r0; r < std::min(rows, r0 + kTile); ++r)
          for (int64_t c = c0; c < std::min(cols, c0 + kTile); ++c)
            d[c * rows + r] = s[r * cols + c];
    }
  }
}

/*! \brief A oneDNN reorder between the two blobs' formats, built on first use. */
struct ReorderState : public OpState {
  Layout from, to;
  Shape shape;
  DType dtype;
  dnnl::memory src, dst;
  dnnl::reorder prim;
};

bool DnnlReorders(DType t) {
  return t == DType::kFloat32 || t == DType::kBFloat16 || t == DType::kFloat16;
}

void ConvertLayoutCompute(const NodeAttrs&, const OpContext& ctx, const std::vector<TBlob>& in,
                          const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (req[0] == kNullOp) return;
  SYMNET_CHECK(req[0] != kAddTo) << "_convert_layout cannot accumulate";
  const TBlob &x = in[0], &y = out[0];
  if (x.layout_ == y.layout_) {
    if (x.dptr_ != y.dptr_) std::memcpy(y.dptr_, x.dptr_, y.Bytes());
    return;
  }
  const Shape& s = x.shape_;
  if (DnnlReorders(x.dtype_)) {
    auto& st = ctx.GetState<ReorderState>(
        [&] {
          auto* r = new ReorderState();
          r->from = x.layout_;
          r->to = y.layout_;
          r->shape = s;
          r->dtype = x.dtype_;
          const dnnl::memory::dims d(s.begin(), s.end());
          const auto dt = dnnl_util::ToDnnl(x.dtype_);
          const int nsp = s.ndim() - 2;
          r->src = dnnl::memory({d, dt, dnnl_util::ActivationTag(nsp, x.layout_)},
                                dnnl_util::Engine(), DNNL_MEMORY_NONE);
          r->dst = dnnl::memory({d, dt, dnnl_util::ActivationTag(nsp, y.layout_)},
                                dnnl_util::Engine(), DNNL_MEMORY_NONE);
          r->prim = dnnl::reorder(
              dnnl_util::Noted("reorder", dnnl::reorder::primitive_desc(r->src, r->dst)));
          return r;
        },
        [&](const ReorderState& r) {
          return r.from == x.layout_ && r.to == y.layout_ && r.shape == s && r.dtype == x.dtype_;
        });
    st.src.set_data_handle(x.dptr_);
    st.dst.set_data_handle(y.dptr_);
    st.prim.execute(dnnl_util::Stream(), st.src, st.dst);
    dnnl_util::Stream().wait();
    return;
  }
  SYMNET_CHECK(!x.blocked() && !y.blocked())
      << "_convert_layout: no blocked layout for " << x.dtype_;
  const int64_t n = s[0], c = s[1], sp = s.ProdRange(2, s.ndim());
  // channels-last -> default reads (sp, c) planes; default -> channels-last reads (c, sp)
  const int64_t rows = x.channels_last() ? sp : c, cols = x.channels_last() ? c : sp;
  switch (DTypeSize(x.dtype_)) {
    case 1:
      TransposePlanes(x.dptr<uint8_t>(), y.dptr<uint8_t>(), n, rows, cols);
      break;
    case 2:
      TransposePlanes(x.dptr<uint16_t>(), y.dptr<uint16_t>(), n, rows, cols);
      break;
    case 4:
      TransposePlanes(x.dptr<uint32_t>(), y.dptr<uint32_t>(), n, rows, cols);
      break;
    case 8:
      TransposePlanes(x.dptr<uint64_t>(), y.dptr<uint64_t>(), n, rows, cols);
      break;
    default:
      SYMNET_THROW << "_convert_layout: unsupported dtype " << x.dtype_;
  }
}

}  // namespace

SYMNET_REGISTER_OP(_convert_layout)
    .describe(
        "Copies an activation between memory orders (default, channels-last, nChw16c); "
        "inserted by the executor's layout plan.")
    .add_argument("data", "NDArray-or-Symbol", "The input.")
    .set_attr<FInferShape>("FInferShape", ElemwiseShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    // input and output each take whatever layout their neighbours decide
    .set_attr<FLayoutSlots>("FLayoutSlots",
                            [](const NodeAttrs&) {
                              LayoutSlots s;
                              s.groups = {{{false, 0}}, {{true, 0}}};
                              return s;
                            })
    .set_attr<FCompute>("FCompute<cpu>", ConvertLayoutCompute);

}  // namespace ops
}  // namespace symnet
