/*!
 * \brief The fused RNN op through cuDNN 9's RNN API (cudnnRNNForward, cudnnRNNBackwardData_v8,
 *  cudnnRNNBackwardWeights_v8), float32 and float16, with MXNet's packed parameter vector.
 *
 *  MXNet's gate orders are cuDNN's (LSTM: i, f, g, o = cuDNN's input, forget, new memory and
 *  output gates; GRU: r, z, n = reset, update and new memory gates, the candidate's recurrent
 *  bias inside r * (R h + b_R) in both), and cuDNN's matrices are (H, I) row-major like MXNet's.
 *  Only where the blocks sit differs: MXNet packs every weight first, then every bias, while
 *  cuDNN's weight space is its own. The map between the two is asked from cuDNN
 *  (cudnnGetRNNWeightParams) once per geometry and turned into a list of copies on the host
 *  (RnnWeightCopies, plain C++, tested without a GPU); when it is the identity the packed vector
 *  is handed to cuDNN as it is.
 *
 *  The op's reserve output holds, on this path: the sequence lengths cuDNN reads from device
 *  memory, the output sequence (the backward calls need y, which the op does not keep), and
 *  cuDNN's reserve space. RNNShape sizes it with RnnReserveElems; a call whose reserve is too
 *  small for cuDNN (e.g. a GPU other than the one shapes were inferred on) takes the cuBLAS step
 *  loop of rnn.h, and its backward decides alike from the same sizes.
 */
#ifndef SYMNET_OPERATORS_CUDNN_CUDNN_RNN_H_
#define SYMNET_OPERATORS_CUDNN_CUDNN_RNN_H_

#include <memory>
#include <vector>

#include "../nn/rnn.h"

namespace symnet {
namespace ops {
namespace cudnn {

/*!
 * \brief Where cuDNN keeps one linear layer's matrix and bias in its weight space, in elements:
 *  pseudo-layer l * D + d; lin_id 0..G-1 the input side's gates, G..2G-1 the recurrent side's.
 */
struct RnnParamSlot {
  int64_t pseudo_layer = 0, lin_id = 0;
  int64_t matrix = 0, matrix_count = 0;
  int64_t bias = 0, bias_count = 0;
};

/*! \brief `count` elements at `src` of the packed vector are `dst` of cuDNN's weight space. */
struct RnnCopy {
  int64_t src = 0, dst = 0, count = 0;
  bool operator==(const RnnCopy& o) const {
    return src == o.src && dst == o.dst && count == o.count;
  }
};

/*!
 * \brief The copies from MXNet's packed parameters of `g` to cuDNN's weight space described by
 *  `slots` (one per pseudo-layer and linear layer), in packed order, neighbours merged. Throws
 *  when a slot is missing, repeated or of another size than MXNet's block, or when two blocks
 *  would land on one place: a cuDNN layout this mapping does not understand.
 */
std::vector<RnnCopy> RnnWeightCopies(const RnnGeom& g, const std::vector<RnnParamSlot>& slots);

/*! \brief Whether `copies` move every one of `n` elements to where it already is. */
bool RnnCopiesAreIdentity(const std::vector<RnnCopy>& copies, int64_t n);

/*! \brief Byte offsets of the parts of the op's reserve on the cuDNN path (256-byte aligned). */
struct RnnReserveLayout {
  size_t seq_lengths = 0, y = 0, cudnn = 0, end = 0;
};
RnnReserveLayout MakeRnnReserveLayout(const RnnGeom& g, size_t elem_bytes,
                                      size_t cudnn_reserve_bytes);

/*! \brief Whether the GPU runs RNN through cuDNN at all: SYMNET_CUDNN_RNN=0 keeps the cuBLAS
 *  step loop (read at every call: change it between whole forward/backward passes only). */
bool RnnEnabled();

/*!
 * \brief Bytes of the op's reserve the cuDNN path needs for `g` in `dtype` on GPU `dev`; 0 where
 *  it does not run (no CUDA build, a dtype other than float32/float16, an empty sequence or
 *  batch, cuDNN refusing the configuration). Cached per (device, geometry, dtype).
 */
size_t RnnReserveBytes(int dev, const RnnGeom& g, DType dtype);

/*!
 * \brief Elements of the op's reserve the cuDNN path needs for `g` in float32 and in float16
 *  alike, on the current GPU; 0 without a CUDA build or a GPU. RNNShape takes it into the
 *  reserve's size (shape inference knows neither the device nor the dtype).
 */
int64_t RnnReserveElems(const RnnGeom& g);

/*! \brief One call site's cuDNN RNN (CUDA builds only): descriptors, weight map, dropout. */
class Rnn {
 public:
  /*! \brief Throws when cuDNN cannot run `g` in `dtype`. */
  Rnn(int dev, const RnnGeom& g, DType dtype);
  ~Rnn();
  Rnn(const Rnn&) = delete;
  Rnn& operator=(const Rnn&) = delete;

  bool Matches(int dev, const RnnGeom& g, DType dtype) const;
  /*! \brief What the op's reserve must hold (RnnReserveBytes). */
  size_t ReserveBytes() const;

  /*! \brief y, hy, cy (cy: LSTM only, else null) per their requests; in training the reserve
   *  keeps what Backward needs (and, with dropout between layers, cuDNN's masks). */
  void Forward(bool training, const void* x, const void* w, const void* hx, const void* cx,
               void* reserve, void* y, OpReqType y_req, void* hy, OpReqType hy_req, void* cy,
               OpReqType cy_req);
  /*! \brief Gradients of the training forward that wrote `reserve`; req: data, parameters,
   *  state, state_cell. cuDNN writes its intermediate gradients into the reserve. */
  void Backward(const void* dy, const void* dhy, const void* dcy, const void* x, const void* w,
                const void* hx, const void* cx, void* reserve, void* dx, void* dw, void* dhx,
                void* dcx, const std::vector<OpReqType>& req);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cudnn
}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CUDNN_CUDNN_RNN_H_
