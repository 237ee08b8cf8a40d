/*! \brief cuDNN RNN (cudnn_rnn.h), with cuDNN 9's v8 RNN API. */
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <utility>

#include "cudnn_rnn.h"
#include "src/device/cuda_common.h"
#include "symnet/random.h"
#include "symnet/runtime.h"

namespace symnet {
namespace ops {
namespace cudnn {

namespace {

bool CudnnDType(DType t) { return t == DType::kFloat32 || t == DType::kFloat16; }

cudnnDataType_t DataType(DType t) {
  SYMNET_CHECK(CudnnDType(t)) << "the cuDNN RNN path runs float32 and float16, not " << t;
  return t == DType::kFloat16 ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
}

cudnnRNNMode_t Cell(int mode) {
  switch (mode) {
    case kRnnRelu:
      return CUDNN_RNN_RELU;
    case kRnnTanh:
      return CUDNN_RNN_TANH;
    case kGru:
      return CUDNN_GRU;
    default:
      return CUDNN_LSTM;
  }
}

size_t Align256(size_t b) { return (b + 255) / 256 * 256; }

bool SameGeom(const RnnGeom& a, const RnnGeom& b) {
  return a.mode == b.mode && a.L == b.L && a.D == b.D && a.T == b.T && a.N == b.N && a.C == b.C &&
         a.H == b.H && a.G == b.G && a.p == b.p;
}

/*!
 * \brief The descriptors and sizes of one geometry and dtype on one device. Init may throw
 *  halfway; the destructor releases whatever was made.
 */
struct Descs {
  int dev = 0;
  cudnnRNNDescriptor_t rnn = nullptr;
  cudnnRNNDataDescriptor_t x = nullptr, y = nullptr;
  cudnnTensorDescriptor_t h = nullptr;  // (L*D, N, H): hx, hy, cx, cy and their gradients
  cudnnDropoutDescriptor_t drop = nullptr;
  void* drop_states = nullptr;
  size_t drop_bytes = 0;
  size_t weight_bytes = 0, work_train = 0, work_infer = 0, reserve = 0;

  void Init(int device, const RnnGeom& g, DType t, uint64_t seed) {
    dev = device;
    cuda::SetDevice(dev);
    cudnnHandle_t hd = cuda::Resources(dev).dnn;
    const cudnnDataType_t dt = DataType(t);
    SYMNET_CUDNN_CALL(cudnnCreateDropoutDescriptor(&drop));
    if (g.Dropout()) {
      // cuDNN keeps its random generator's state in device memory of its own, initialised here
      SYMNET_CUDNN_CALL(cudnnDropoutGetStatesSize(hd, &drop_bytes));
      drop_states = cuda::DeviceAlloc(drop_bytes, dev);
      SYMNET_CUDNN_CALL(cudnnSetDropoutDescriptor(drop, hd, g.p, drop_states, drop_bytes, seed));
    } else {
      SYMNET_CUDNN_CALL(cudnnSetDropoutDescriptor(drop, hd, 0.f, nullptr, 0, 0));
    }
    SYMNET_CUDNN_CALL(cudnnCreateRNNDescriptor(&rnn));
    // float32 without TF32 (FMA only) so that the GPU's float32 matches the CPU's, as the
    // convolutions do; float16 on tensor cores accumulating in float32. The later choices are
    // fallbacks for a cuDNN that refuses a combination.
    const bool half = t == DType::kFloat16;
    const std::pair<cudnnDataType_t, cudnnMathType_t> choices[] = {
        {CUDNN_DATA_FLOAT, half ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH},
        {half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT,
         half ? CUDNN_TENSOR_OP_MATH : CUDNN_DEFAULT_MATH},
        {half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT, CUDNN_DEFAULT_MATH}};
    cudnnStatus_t s = CUDNN_STATUS_NOT_SUPPORTED;
    for (const auto& c : choices) {
      s = cudnnSetRNNDescriptor_v8(
          rnn, CUDNN_RNN_ALGO_STANDARD, Cell(g.mode), CUDNN_RNN_DOUBLE_BIAS,
          g.D == 2 ? CUDNN_BIDIRECTIONAL : CUDNN_UNIDIRECTIONAL, CUDNN_LINEAR_INPUT, dt, c.first,
          c.second, static_cast<int32_t>(g.C), static_cast<int32_t>(g.H), static_cast<int32_t>(g.H),
          static_cast<int32_t>(g.L), drop, CUDNN_RNN_PADDED_IO_DISABLED);
      if (s == CUDNN_STATUS_SUCCESS) break;
    }
    SYMNET_CHECK(s == CUDNN_STATUS_SUCCESS)
        << "cudnnSetRNNDescriptor_v8 failed: " << cudnnGetErrorString(s);
    // every sequence has the full length: the packed layout is then MXNet's (T, N, features)
    const std::vector<int> lens(static_cast<size_t>(g.N), static_cast<int>(g.T));
    SYMNET_CUDNN_CALL(cudnnCreateRNNDataDescriptor(&x));
    SYMNET_CUDNN_CALL(cudnnCreateRNNDataDescriptor(&y));
    SYMNET_CUDNN_CALL(cudnnSetRNNDataDescriptor(x, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                                static_cast<int>(g.T), static_cast<int>(g.N),
                                                static_cast<int>(g.C), lens.data(), nullptr));
    SYMNET_CUDNN_CALL(cudnnSetRNNDataDescriptor(y, dt, CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_PACKED,
                                                static_cast<int>(g.T), static_cast<int>(g.N),
                                                static_cast<int>(g.D * g.H), lens.data(), nullptr));
    SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&h));
    const int dims[3] = {static_cast<int>(g.L * g.D), static_cast<int>(g.N), static_cast<int>(g.H)};
    const int strides[3] = {dims[1] * dims[2], dims[2], 1};
    SYMNET_CUDNN_CALL(cudnnSetTensorNdDescriptor(h, dt, 3, dims, strides));
    SYMNET_CUDNN_CALL(cudnnGetRNNWeightSpaceSize(hd, rnn, &weight_bytes));
    SYMNET_CUDNN_CALL(
        cudnnGetRNNTempSpaceSizes(hd, rnn, CUDNN_FWD_MODE_TRAINING, x, &work_train, &reserve));
    size_t unused = 0;
    SYMNET_CUDNN_CALL(
        cudnnGetRNNTempSpaceSizes(hd, rnn, CUDNN_FWD_MODE_INFERENCE, x, &work_infer, &unused));
  }

  ~Descs() {
    if (rnn) cudnnDestroyRNNDescriptor(rnn);
    if (x) cudnnDestroyRNNDataDescriptor(x);
    if (y) cudnnDestroyRNNDataDescriptor(y);
    if (h) cudnnDestroyTensorDescriptor(h);
    if (drop) cudnnDestroyDropoutDescriptor(drop);
    if (drop_states) cuda::DeviceFree(drop_states, drop_bytes, dev);
  }
};

int64_t Count(cudnnTensorDescriptor_t desc) {
  cudnnDataType_t dt;
  int nd = 0, dims[8] = {0}, strides[8] = {0};
  SYMNET_CUDNN_CALL(cudnnGetTensorNdDescriptor(desc, 8, &dt, &nd, dims, strides));
  int64_t n = 1;
  for (int i = 0; i < nd; ++i) n *= dims[i];
  return n;
}

/*! \brief Where cuDNN puts every matrix and bias of `d`'s weight space, in elements. */
std::vector<RnnParamSlot> Slots(const Descs& d, const RnnGeom& g, DType t) {
  cudnnHandle_t hd = cuda::Resources(d.dev).dnn;
  struct TensorDesc {
    cudnnTensorDescriptor_t v = nullptr;
    TensorDesc() { SYMNET_CUDNN_CALL(cudnnCreateTensorDescriptor(&v)); }
    ~TensorDesc() { cudnnDestroyTensorDescriptor(v); }
  } m, b;
  // a real device buffer as the base: cuDNN computes addresses from it and reads nothing
  char* base = static_cast<char*>(cuda::Workspace(d.dev, d.weight_bytes));
  const int64_t es = static_cast<int64_t>(DTypeSize(t));
  std::vector<RnnParamSlot> slots;
  for (int64_t pl = 0; pl < g.L * g.D; ++pl)
    for (int64_t lin = 0; lin < 2 * g.G; ++lin) {
      void *ma = nullptr, *ba = nullptr;
      SYMNET_CUDNN_CALL(cudnnGetRNNWeightParams(hd, d.rnn, static_cast<int32_t>(pl), d.weight_bytes,
                                                base, static_cast<int32_t>(lin), m.v, &ma, b.v,
                                                &ba));
      SYMNET_CHECK(ma != nullptr && ba != nullptr)
          << "cuDNN gave no weight matrix or bias for pseudo-layer " << pl << ", linear layer "
          << lin;
      RnnParamSlot s;
      s.pseudo_layer = pl, s.lin_id = lin;
      s.matrix = (static_cast<char*>(ma) - base) / es;
      s.matrix_count = Count(m.v);
      s.bias = (static_cast<char*>(ba) - base) / es;
      s.bias_count = Count(b.v);
      slots.push_back(s);
    }
  return slots;
}

}  // namespace

size_t RnnReserveBytes(int dev, const RnnGeom& g, DType t) {
  if (!CudnnDType(t) || g.T < 1 || g.N < 1 || g.C < 1 || g.L < 1 || g.H < 1) return 0;
  using Key =
      std::tuple<int, int, int64_t, int64_t, int64_t, int64_t, int64_t, int64_t, float, int>;
  static std::mutex mu;
  static std::map<Key, size_t> cache;
  const Key key{dev, g.mode, g.L, g.D, g.T, g.N, g.C, g.H, g.p, static_cast<int>(t)};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it != cache.end()) return it->second;
  size_t bytes = 0;
  try {
    auto d = std::make_unique<Descs>();
    d->Init(dev, g, t, 0);
    RnnWeightCopies(g, Slots(*d, g, t));  // throws on a layout the map does not understand
    bytes = MakeRnnReserveLayout(g, DTypeSize(t), d->reserve).end;
  } catch (const std::exception& e) {
    LOG(WARNING) << "symnet: cuDNN does not run this RNN (" << e.what()
                 << "); it runs as cuBLAS GEMMs and step kernels";
    bytes = 0;
  }
  cache[key] = bytes;
  return bytes;
}

int64_t RnnReserveElems(const RnnGeom& g) {
  if (NumGPUs() == 0) return 0;
  const int dev = cuda::CurrentDevice();
  const int64_t f32 = static_cast<int64_t>((RnnReserveBytes(dev, g, DType::kFloat32) + 3) / 4);
  const int64_t f16 = static_cast<int64_t>((RnnReserveBytes(dev, g, DType::kFloat16) + 1) / 2);
  return std::max(f32, f16);
}

struct Rnn::Impl {
  int dev = 0;
  RnnGeom g;
  DType dtype = DType::kFloat32;
  size_t es = 4;
  std::unique_ptr<Descs> d;
  std::vector<RnnCopy> copies;
  bool identity = false;  // the packed vector is cuDNN's weight space as it is
  RnnReserveLayout lay;

  cudaStream_t Stream() const { return cuda::Resources(dev).stream; }
  cudnnHandle_t Handle() const { return cuda::Resources(dev).dnn; }

  void CopyDev(void* dst, const void* src, size_t bytes) const {
    if (bytes == 0 || dst == src) return;
    SYMNET_CUDA_CALL(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, Stream()));
  }
  /*! \brief dst (+)= src, n elements, per the request (src == dst: written in place). */
  void Commit(const void* src, void* dst, int64_t n, OpReqType req) const {
    if (req == kNullOp || n == 0 || src == dst) return;
    if (req == kAddTo) {
      cuda::ConvertAdd(src, dtype, dst, dtype, static_cast<size_t>(n), dev);
    } else {
      CopyDev(dst, src, static_cast<size_t>(n) * es);
    }
  }
  void PackWeights(const void* w, void* space) const {
    // padding cuDNN may keep between blocks is zeroed, never left to chance
    if (d->weight_bytes != static_cast<size_t>(g.NumParams()) * es)
      cuda::Memset(space, 0, d->weight_bytes, dev);
    for (const RnnCopy& c : copies)
      CopyDev(static_cast<char*>(space) + c.dst * es, static_cast<const char*>(w) + c.src * es,
              c.count * es);
  }
  void UnpackGrads(const void* space, void* dw, OpReqType req) const {
    for (const RnnCopy& c : copies)
      Commit(static_cast<const char*>(space) + c.dst * es, static_cast<char*>(dw) + c.src * es,
             c.count, req);
  }
  /*! \brief The reserve's sequence lengths (every one T), which cuDNN reads from the device. */
  int32_t* SeqLengths(void* reserve) const {
    int32_t* seq = reinterpret_cast<int32_t*>(static_cast<char*>(reserve) + lay.seq_lengths);
    cuda::Fill(seq, DType::kInt32, static_cast<size_t>(g.N), static_cast<double>(g.T), dev);
    return seq;
  }
  int64_t States() const { return g.L * g.D * g.N * g.H; }
};

Rnn::Rnn(int dev, const RnnGeom& g, DType dtype) : impl_(new Impl()) {
  Impl& m = *impl_;
  m.dev = dev;
  m.g = g;
  m.dtype = dtype;
  m.es = DTypeSize(dtype);
  m.d = std::make_unique<Descs>();
  // cuDNN's dropout masks come from its own generator, seeded from symnet's random streams so
  // that a seed reproduces them
  m.d->Init(dev, g, dtype, NextRandomStream());
  m.copies = RnnWeightCopies(g, Slots(*m.d, g, dtype));
  m.identity = RnnCopiesAreIdentity(m.copies, g.NumParams()) &&
               m.d->weight_bytes == static_cast<size_t>(g.NumParams()) * m.es;
  m.lay = MakeRnnReserveLayout(g, m.es, m.d->reserve);
}

Rnn::~Rnn() = default;

bool Rnn::Matches(int dev, const RnnGeom& g, DType dtype) const {
  return impl_->dev == dev && impl_->dtype == dtype && SameGeom(impl_->g, g);
}

size_t Rnn::ReserveBytes() const { return impl_->lay.end; }

namespace {
bool Direct(OpReqType r) { return r == kWriteTo || r == kWriteInplace; }
}  // namespace

void Rnn::Forward(bool training, const void* x, const void* w, const void* hx, const void* cx,
                  void* reserve, void* y, OpReqType y_req, void* hy, OpReqType hy_req, void* cy,
                  OpReqType cy_req) {
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  const RnnGeom& g = m.g;
  const bool lstm = g.mode == kLstm;
  char* res = static_cast<char*>(reserve);
  const int32_t* seq = m.SeqLengths(reserve);
  const size_t w_bytes = m.identity ? 0 : Align256(m.d->weight_bytes);
  const size_t s_bytes = Align256(static_cast<size_t>(m.States()) * m.es);
  char* scratch = static_cast<char*>(cuda::LayoutScratch(m.dev, w_bytes + 2 * s_bytes));
  const void* space = w;
  if (!m.identity) {
    m.PackWeights(w, scratch);
    space = scratch;
  }
  // final states straight into the outputs when written, else through scratch (kAddTo)
  void* hy_out = hy_req == kNullOp ? nullptr : Direct(hy_req) ? hy : scratch + w_bytes;
  void* cy_out = !lstm || cy_req == kNullOp ? nullptr
                 : Direct(cy_req)           ? cy
                                            : scratch + w_bytes + s_bytes;
  // y goes to the reserve, where the backward finds it
  void* y_slot = res + m.lay.y;
  const size_t work = training ? m.d->work_train : m.d->work_infer;
  void* ws = work ? cuda::Workspace(m.dev, work) : nullptr;
  SYMNET_CUDNN_CALL(cudnnRNNForward(
      m.Handle(), m.d->rnn, training ? CUDNN_FWD_MODE_TRAINING : CUDNN_FWD_MODE_INFERENCE, seq,
      m.d->x, x, m.d->y, y_slot, m.d->h, hx, hy_out, m.d->h, lstm ? cx : nullptr, cy_out,
      m.d->weight_bytes, space, work, ws, training ? m.d->reserve : 0,
      training ? res + m.lay.cudnn : nullptr));
  m.Commit(y_slot, y, g.T * g.N * g.D * g.H, y_req);
  if (hy_out) m.Commit(hy_out, hy, m.States(), hy_req);
  if (cy_out) m.Commit(cy_out, cy, m.States(), cy_req);
}

void Rnn::Backward(const void* dy, const void* dhy, const void* dcy, const void* x, const void* w,
                   const void* hx, const void* cx, void* reserve, void* dx, void* dw, void* dhx,
                   void* dcx, const std::vector<OpReqType>& req) {
  Impl& m = *impl_;
  cuda::SetDevice(m.dev);
  const RnnGeom& g = m.g;
  const bool lstm = g.mode == kLstm;
  char* res = static_cast<char*>(reserve);
  const int32_t* seq = m.SeqLengths(reserve);
  const size_t w_bytes = m.identity ? 0 : Align256(m.d->weight_bytes);
  const size_t s_bytes = Align256(static_cast<size_t>(m.States()) * m.es);
  const size_t x_bytes = Align256(static_cast<size_t>(g.T * g.N * g.C) * m.es);
  char* scratch =
      static_cast<char*>(cuda::LayoutScratch(m.dev, 2 * w_bytes + x_bytes + 2 * s_bytes));
  const void* space = w;
  if (!m.identity) {
    m.PackWeights(w, scratch);
    space = scratch;
  }
  // cuDNN computes every data gradient; those not written straight go through scratch
  char* sx = scratch + 2 * w_bytes;
  void* dx_out = Direct(req[0]) ? dx : sx;
  void* dhx_out = Direct(req[2]) ? dhx : sx + x_bytes;
  void* dcx_out = !lstm ? nullptr : Direct(req[3]) ? dcx : sx + x_bytes + s_bytes;
  void* y_slot = res + m.lay.y;
  void* cudnn_res = res + m.lay.cudnn;
  const size_t work = m.d->work_train;
  void* ws = work ? cuda::Workspace(m.dev, work) : nullptr;
  SYMNET_CUDNN_CALL(cudnnRNNBackwardData_v8(
      m.Handle(), m.d->rnn, seq, m.d->y, y_slot, dy, m.d->x, dx_out, m.d->h, hx, dhy, dhx_out,
      m.d->h, lstm ? cx : nullptr, lstm ? dcy : nullptr, dcx_out, m.d->weight_bytes, space, work,
      ws, m.d->reserve, cudnn_res));
  if (req[1] != kNullOp) {
    // cuDNN adds into the weight gradients: straight into dw only when it accumulates anyway
    void* dspace = m.identity ? dw : scratch + w_bytes;
    if (!m.identity || req[1] != kAddTo) cuda::Memset(dspace, 0, m.d->weight_bytes, m.dev);
    SYMNET_CUDNN_CALL(cudnnRNNBackwardWeights_v8(
        m.Handle(), m.d->rnn, CUDNN_WGRAD_MODE_ADD, seq, m.d->x, x, m.d->h, hx, m.d->y, y_slot,
        m.d->weight_bytes, dspace, work, ws, m.d->reserve, cudnn_res));
    if (!m.identity) m.UnpackGrads(dspace, dw, req[1]);
  }
  m.Commit(dx_out, dx, g.T * g.N * g.C, req[0]);
  m.Commit(dhx_out, dhx, m.States(), req[2]);
  if (dcx_out) m.Commit(dcx_out, dcx, m.States(), req[3]);
}

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet
