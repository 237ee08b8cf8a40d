/*! \brief GemmPlan: oneDNN matmul with strided (transposed) operands, staging and a loop fallback.
 */
#include "dnnl_gemm.h"

#include <cstring>
#include <unordered_map>

#include "dnnl_common.h"

namespace symnet {
namespace dnnl_util {

struct GemmPlan::Impl {
  // kEmpty: a dimension is 0 (an empty batch), which oneDNN's matmul does not take
  enum Mode { kNative, kStaged, kLoop, kEmpty } mode = kLoop;
  dnnl::matmul prim;
  dnnl::memory::desc a_md, b_md, c_md, bias_md;
  std::string impl_name;
  // float32 copies of the operands when staging a 16-bit GEMM
  std::vector<float> a32, b32, c32, bias32;
  // the execute arguments, made once: a run only points them at its operands (creating four
  // oneDNN memory objects and a map per run cost as much as a small GEMM's whole execution)
  std::unordered_map<int, dnnl::memory> args;
};

namespace {

dnnl::memory::desc Matrix(int64_t batch, int64_t rows, int64_t cols, bool transposed,
                          dnnl::memory::data_type t) {
  // logical [rows, cols]; a transposed operand is stored [cols, rows] row-major
  const dnnl::memory::dims strides =
      transposed ? dnnl::memory::dims{1, rows} : dnnl::memory::dims{cols, 1};
  if (batch == 1) return dnnl::memory::desc({rows, cols}, t, strides);
  // batched: matrices stored one after another
  return dnnl::memory::desc({batch, rows, cols}, t, {rows * cols, strides[0], strides[1]});
}

template <typename T>
void LoopGemm(const GemmConfig& c, const T* a, const T* b, T* out, const T* bias) {
  const int64_t M = c.m, N = c.n, K = c.k;
#pragma omp parallel for collapse(2) if (c.batch * M * N * K >= 32768)
  for (int64_t g = 0; g < c.batch; ++g) {
    for (int64_t i = 0; i < M; ++i) {
      const T* ag = a + g * M * K;
      const T* bg = b + g * K * N;
      T* og = out + g * M * N;
      for (int64_t j = 0; j < N; ++j) {
        T s = bias ? bias[j] : T(0);
        for (int64_t p = 0; p < K; ++p) {
          const T av = c.trans_a ? ag[p * M + i] : ag[i * K + p];
          const T bv = c.trans_b ? bg[j * K + p] : bg[p * N + j];
          s += av * bv;
        }
        og[i * N + j] = c.accumulate ? og[i * N + j] + s : s;
      }
    }
  }
}

}  // namespace

GemmPlan::GemmPlan(const GemmConfig& cfg) : cfg_(cfg), impl_(std::make_unique<Impl>()) {
  SYMNET_CHECK(IsFloatType(cfg.dtype)) << "GEMM supports floating types, not " << cfg.dtype;
  SYMNET_CHECK(cfg.batch == 1 || !cfg.bias) << "a batched GEMM takes no bias";
  if (cfg.batch == 0 || cfg.m == 0 || cfg.n == 0 || cfg.k == 0) {
    impl_->mode = Impl::kEmpty;
    return;
  }
  if (cfg.dtype == DType::kFloat64) {
    impl_->mode = Impl::kLoop;
    return;
  }
  const DType run_type = NativeSupport(cfg.dtype) ? cfg.dtype : DType::kFloat32;
  impl_->mode = run_type == cfg.dtype ? Impl::kNative : Impl::kStaged;
  const auto dt = ToDnnl(run_type);
  impl_->a_md = Matrix(cfg.batch, cfg.m, cfg.k, cfg.trans_a, dt);
  impl_->b_md = Matrix(cfg.batch, cfg.k, cfg.n, cfg.trans_b, dt);
  impl_->c_md = Matrix(cfg.batch, cfg.m, cfg.n, false, dt);
  dnnl::primitive_attr attr;
  if (cfg.accumulate) {
    dnnl::post_ops po;
    po.append_sum(1.0f);
    attr.set_post_ops(po);
  }
  std::unique_ptr<dnnl::matmul::desc> desc;
  if (cfg.bias) {
    impl_->bias_md = dnnl::memory::desc({1, cfg.n}, dt, dnnl::memory::format_tag::ab);
    desc =
        std::make_unique<dnnl::matmul::desc>(impl_->a_md, impl_->b_md, impl_->bias_md, impl_->c_md);
  } else {
    desc = std::make_unique<dnnl::matmul::desc>(impl_->a_md, impl_->b_md, impl_->c_md);
  }
  dnnl::matmul::primitive_desc pd(*desc, attr, Engine());
  impl_->impl_name = pd.impl_info_str();
  impl_->prim = dnnl::matmul(Noted("matmul", pd));
  const dnnl::engine& eng = Engine();
  impl_->args[DNNL_ARG_SRC] = dnnl::memory(impl_->a_md, eng, DNNL_MEMORY_NONE);
  impl_->args[DNNL_ARG_WEIGHTS] = dnnl::memory(impl_->b_md, eng, DNNL_MEMORY_NONE);
  impl_->args[DNNL_ARG_DST] = dnnl::memory(impl_->c_md, eng, DNNL_MEMORY_NONE);
  if (cfg.bias) impl_->args[DNNL_ARG_BIAS] = dnnl::memory(impl_->bias_md, eng, DNNL_MEMORY_NONE);
  if (impl_->mode == Impl::kStaged) {
    impl_->a32.resize(cfg.batch * cfg.m * cfg.k);
    impl_->b32.resize(cfg.batch * cfg.k * cfg.n);
    impl_->c32.resize(cfg.batch * cfg.m * cfg.n);
    if (cfg.bias) impl_->bias32.resize(cfg.n);
  }
}

GemmPlan::~GemmPlan() = default;

std::string GemmPlan::Describe() const {
  switch (impl_->mode) {
    case Impl::kNative:
      return "dnnl:" + impl_->impl_name;
    case Impl::kStaged:
      return "staged-f32:" + impl_->impl_name;
    case Impl::kEmpty:
      return "empty";
    default:
      return "loop";
  }
}

void GemmPlan::Run(const void* a, const void* b, void* c, const void* bias) {
  const GemmConfig& cfg = cfg_;
  if (impl_->mode == Impl::kEmpty) return RunEmpty(c, bias);
  if (impl_->mode == Impl::kLoop) {
    LoopGemm(cfg, static_cast<const double*>(a), static_cast<const double*>(b),
             static_cast<double*>(c), static_cast<const double*>(bias));
    return;
  }
  const void *pa = a, *pb = b, *pbias = bias;
  void* pc = c;
  if (impl_->mode == Impl::kStaged) {
    ConvertElements(a, cfg.dtype, impl_->a32.data(), DType::kFloat32, impl_->a32.size());
    ConvertElements(b, cfg.dtype, impl_->b32.data(), DType::kFloat32, impl_->b32.size());
    if (cfg.accumulate)
      ConvertElements(c, cfg.dtype, impl_->c32.data(), DType::kFloat32, impl_->c32.size());
    if (cfg.bias) ConvertElements(bias, cfg.dtype, impl_->bias32.data(), DType::kFloat32, cfg.n);
    pa = impl_->a32.data();
    pb = impl_->b32.data();
    pc = impl_->c32.data();
    pbias = impl_->bias32.data();
  }
  auto& args = impl_->args;
  args.at(DNNL_ARG_SRC).set_data_handle(const_cast<void*>(pa));
  args.at(DNNL_ARG_WEIGHTS).set_data_handle(const_cast<void*>(pb));
  args.at(DNNL_ARG_DST).set_data_handle(pc);
  if (cfg.bias) args.at(DNNL_ARG_BIAS).set_data_handle(const_cast<void*>(pbias));
  impl_->prim.execute(Stream(), args);
  Stream().wait();
  if (impl_->mode == Impl::kStaged)
    ConvertElements(impl_->c32.data(), DType::kFloat32, c, cfg.dtype, impl_->c32.size());
}

void GemmPlan::RunEmpty(void* c, const void* bias) const {
  const GemmConfig& cfg = cfg_;
  const int64_t size = cfg.batch * cfg.m * cfg.n;
  if (size == 0) return;
  // k == 0: the product is a sum of nothing, so C = bias (or 0), added to C when accumulating;
  // a weight gradient of an empty batch is thus zero, not what the buffer held
  std::vector<double> out(static_cast<size_t>(size), 0.0);  // exact for every float dtype
  if (cfg.accumulate) ConvertElements(c, cfg.dtype, out.data(), DType::kFloat64, size);
  if (cfg.bias) {
    std::vector<double> b(static_cast<size_t>(cfg.n));
    ConvertElements(bias, cfg.dtype, b.data(), DType::kFloat64, cfg.n);
    for (int64_t i = 0; i < size; ++i) out[i] += b[i % cfg.n];
  }
  ConvertElements(out.data(), DType::kFloat64, c, cfg.dtype, size);
}

}  // namespace dnnl_util
}  // namespace symnet
