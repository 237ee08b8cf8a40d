/*! \brief cuDNN convolution (cudnn_convolution.h), with cuDNN 9's (legacy) convolution API. */
#include <cstdlib>
#include <string>
#include <tuple>

#include "cudnn_convolution.h"
#include "src/device/cuda_common.h"

namespace symnet {
namespace ops {
namespace cudnn {

namespace {

cudnnDataType_t DataType(DType t) {
  switch (t) {
    case DType::kFloat32:
      return CUDNN_DATA_FLOAT;
    case DType::kFloat64:
      return CUDNN_DATA_DOUBLE;
    case DType::kFloat16:
      return CUDNN_DATA_HALF;
    case DType::kBFloat16:
      return CUDNN_DATA_BFLOAT16;
    default:
      SYMNET_THROW << "GPU convolution supports float32, float64, float16 and bfloat16, not " << t;
  }
}

/*! \brief dims of (N, C, spatial...) with 1-D data given a unit height (cuDNN wants >= 4 dims). */
std::vector<int> Dims(int64_t n, int64_t c, const std::vector<int64_t>& sp) {
  std::vector<int> d{static_cast<int>(n), static_cast<int>(c)};
  if (sp.size() == 1) d.push_back(1);
  for (int64_t v : sp) d.push_back(static_cast<int>(v));
  return d;
}

std::vector<int> Spatial(const std::vector<int64_t>& v, int unit) {
  std::vector<int> d;
  if (v.size() == 1) d.push_back(unit);
  for (int64_t x : v) d.push_back(static_cast<int>(x));
  return d;
}

void SetTensor(cudnnTensorDescriptor_t desc, cudnnDataType_t t, const std::vector<int>& dims,
               bool channels_last = false) {
  const std::vector<int> strides = PackedStrides(dims, channels_last);
  SYMNET_CUDNN_CALL(cudnnSetTensorNdDescriptor(desc, t, static_cast<int>(dims.size()), dims.data(),
                                               strides.data()));
}

/*! \brief The first algorithm (cuDNN's heuristic order) that works within the workspace limit. */
template <typename Algo, typename Perf>
std::pair<Algo, size_t> Pick(const std::vector<Perf>& perfs, int count, size_t limit,
                             const char* what) {
  for (int i = 0; i < count; ++i)
    if (perfs[i].status == CUDNN_STATUS_SUCCESS && perfs[i].memory <= limit)
      return {perfs[i].algo, perfs[i].memory};
  SYMNET_THROW << "cuDNN has no " << what
               << " algorithm for this convolution within the workspace limit of " << (limit >> 20)
               << " MiB (raise the Convolution's workspace attribute, or the bind "
                  "option workspace_mb / SYMNET_CUDNN_WORKSPACE_MB, to allow more)";
}

/*! \brief alpha = 1 and beta = 0 or 1 (accumulate): double for double data, else float. */
struct Scalars {
  explicit Scalars(DType t) : dbl(t == DType::kFloat64) {}
  const void* one() const {
    return dbl ? static_cast<const void*>(&d1) : static_cast<const void*>(&f1);
  }
  const void* beta(OpReqType r) const {
    const bool add = r == kAddTo;
    if (dbl) return add ? static_cast<const void*>(&d1) : static_cast<const void*>(&d0);
    return add ? static_cast<const void*>(&f1) : static_cast<const void*>(&f0);
  }
  bool dbl;
  float f0 = 0.f, f1 = 1.f;
  double d0 = 0.0, d1 = 1.0;
};

}  // namespace

struct Convolution::Impl {
  int dev = 0;
  ConvGeometry g;
  DType dtype = DType::kFloat32;
  ConvLayouts layouts;
  size_t workspace_limit = 0;  // bytes (ConvWorkspaceLimit)
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnTensorDescriptor_t in_bias = nullptr;  // (1, c, 1...): AddInputBias, InputBiasGrad
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t fwd_algo{};
  cudnnConvolutionBwdDataAlgo_t bwd_data_algo{};
  cudnnConvolutionBwdFilterAlgo_t bwd_filter_algo{};
  size_t fwd_ws = 0, bwd_data_ws = 0, bwd_filter_ws = 0;
  bool have_backward = false;

  /*! \brief Backward algorithms, chosen on the first backward call (inference never needs them). */
  void ChooseBackward() {
    if (have_backward) return;
    cudnnHandle_t h = cuda::Resources(dev).dnn;
    int n = 0;
    std::vector<cudnnConvolutionBwdDataAlgoPerf_t> dp(CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT);
    SYMNET_CUDNN_CALL(cudnnGetConvolutionBackwardDataAlgorithm_v7(
        h, w, y, conv, x, static_cast<int>(dp.size()), &n, dp.data()));
    std::tie(bwd_data_algo, bwd_data_ws) =
        Pick<cudnnConvolutionBwdDataAlgo_t>(dp, n, workspace_limit, "backward-data");
    std::vector<cudnnConvolutionBwdFilterAlgoPerf_t> fp(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT);
    SYMNET_CUDNN_CALL(cudnnGetConvolutionBackwardFilterAlgorithm_v7(
        h, x, y, conv, w, static_cast<int>(fp.size()), &n, fp.data()));
    std::tie(bwd_filter_algo, bwd_filter_ws) =
        Pick<cudnnConvolutionBwdFilterAlgo_t>(fp, n, workspace_limit, "backward-filter");
    have_backward = true;
  }
};

Convolution::Convolution(int dev, const ConvGeometry& g, DType dtype, ConvLayouts layouts,
                         size_t workspace_limit)
    : impl_(new Impl()) {
  Impl& m = *impl_;
  m.dev = dev;
  m.workspace_limit = workspace_limit;
  m.g = g;
  m.dtype = dtype;
  m.layouts = layouts;
  cuda::SetDevice(dev);
  const cudnnDataType_t t = DataType(dtype);
  SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&m.x));
  SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&m.y));
  SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&m.bias));
  SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&m.in_bias));
  SYMNET_CUDNN_CALL(cudnnCreateFilterDescriptor(&m.w));
  SYMNET_CUDNN_CALL(cudnnCreateConvolutionDescriptor(&m.conv));
  SetTensor(m.x, t, Dims(g.n, g.c, g.in), layouts.x);
  SetTensor(m.y, t, Dims(g.n, g.o, g.out), layouts.y);
  SetTensor(m.bias, t, Dims(1, g.o, std::vector<int64_t>(g.in.size(), 1)));
  SetTensor(m.in_bias, t, Dims(1, g.c, std::vector<int64_t>(g.in.size(), 1)));
  const std::vector<int> wd = Dims(g.o, g.c / g.groups, g.kernel);
  // filter dims are always given as (K, C, spatial...); the format names the storage order
  SYMNET_CUDNN_CALL(cudnnSetFilterNdDescriptor(m.w, t,
                                               layouts.w ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                               static_cast<int>(wd.size()), wd.data()));
  const std::vector<int> pad = Spatial(g.pad, 0), stride = Spatial(g.stride, 1),
                         dilate = Spatial(g.dilate, 1);
  const cudnnDataType_t compute = dtype == DType::kFloat64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  SYMNET_CUDNN_CALL(cudnnSetConvolutionNdDescriptor(m.conv, static_cast<int>(pad.size()),
                                                    pad.data(), stride.data(), dilate.data(),
                                                    CUDNN_CROSS_CORRELATION, compute));
  SYMNET_CUDNN_CALL(cudnnSetConvolutionGroupCount(m.conv, static_cast<int>(g.groups)));
  const bool low = dtype == DType::kFloat16 || dtype == DType::kBFloat16;
  SYMNET_CUDNN_CALL(cudnnSetConvolutionMathType(
      m.conv, low ? CUDNN_TENSOR_OP_MATH
                  : (dtype == DType::kFloat32 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH)));
  int n = 0;
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(CUDNN_CONVOLUTION_FWD_ALGO_COUNT);
  SYMNET_CUDNN_CALL(
      cudnnGetConvolutionForwardAlgorithm_v7(cuda::Resources(dev).dnn, m.x, m.w, m.conv, m.y,
                                             static_cast<int>(perf.size()), &n, perf.data()));
  std::tie(m.fwd_algo, m.fwd_ws) =
      Pick<cudnnConvolutionFwdAlgo_t>(perf, n, m.workspace_limit, "forward");
}

Convolution::~Convolution() {
  Impl& m = *impl_;
  cudnnDestroyTensorDescriptor(m.x);
  cudnnDestroyTensorDescriptor(m.y);
  cudnnDestroyTensorDescriptor(m.bias);
  cudnnDestroyTensorDescriptor(m.in_bias);
  cudnnDestroyFilterDescriptor(m.w);
  cudnnDestroyConvolutionDescriptor(m.conv);
}

void Convolution::PrepareBackward() {
  cuda::SetDevice(impl_->dev);
  impl_->ChooseBackward();
}

bool Convolution::Matches(int dev, const ConvGeometry& g, DType dtype, ConvLayouts layouts) const {
  return impl_->dev == dev && impl_->g == g && impl_->dtype == dtype && impl_->layouts == layouts;
}

void Convolution::Forward(const void* x, const void* w, const void* b, void* y, OpReqType req) {
  if (req == kNullOp) return;
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  cudnnHandle_t h = cuda::Resources(m.dev).dnn;
  const Scalars s(m.dtype);
  void* ws = m.fwd_ws ? cuda::Workspace(m.dev, m.fwd_ws) : nullptr;
  SYMNET_CUDNN_CALL(cudnnConvolutionForward(h, s.one(), m.x, x, m.w, w, m.conv, m.fwd_algo, ws,
                                            m.fwd_ws, s.beta(req), m.y, y));
  if (b) SYMNET_CUDNN_CALL(cudnnAddTensor(h, s.one(), m.bias, b, s.one(), m.y, y));
}

void Convolution::Backward(const void* dy, const void* x, const void* w, void* dx, void* dw,
                           void* db, const std::vector<OpReqType>& req) {
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  m.ChooseBackward();
  cudnnHandle_t h = cuda::Resources(m.dev).dnn;
  const Scalars s(m.dtype);
  if (req[0] != kNullOp) {
    void* ws = m.bwd_data_ws ? cuda::Workspace(m.dev, m.bwd_data_ws) : nullptr;
    SYMNET_CUDNN_CALL(cudnnConvolutionBackwardData(h, s.one(), m.w, w, m.y, dy, m.conv,
                                                   m.bwd_data_algo, ws, m.bwd_data_ws,
                                                   s.beta(req[0]), m.x, dx));
  }
  if (req[1] != kNullOp) {
    void* ws = m.bwd_filter_ws ? cuda::Workspace(m.dev, m.bwd_filter_ws) : nullptr;
    SYMNET_CUDNN_CALL(cudnnConvolutionBackwardFilter(h, s.one(), m.x, x, m.y, dy, m.conv,
                                                     m.bwd_filter_algo, ws, m.bwd_filter_ws,
                                                     s.beta(req[1]), m.w, dw));
  }
  if (db && req.size() > 2 && req[2] != kNullOp)
    SYMNET_CUDNN_CALL(
        cudnnConvolutionBackwardBias(h, s.one(), m.y, dy, s.beta(req[2]), m.bias, db));
}

void Convolution::AddInputBias(const void* b, void* x) {
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  const Scalars s(m.dtype);
  SYMNET_CUDNN_CALL(
      cudnnAddTensor(cuda::Resources(m.dev).dnn, s.one(), m.in_bias, b, s.one(), m.x, x));
}

void Convolution::InputBiasGrad(const void* dx, void* db, OpReqType req) {
  if (req == kNullOp) return;
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  const Scalars s(m.dtype);
  SYMNET_CUDNN_CALL(cudnnConvolutionBackwardBias(cuda::Resources(m.dev).dnn, s.one(), m.x, dx,
                                                 s.beta(req), m.in_bias, db));
}

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
