/*!
 * \brief The fused RNN op through oneDNN's RNN primitives (vanilla ReLU/tanh, LSTM,
 *  linear-before-reset GRU), one primitive per layer (both directions concatenated), in float32
 *  or, where oneDNN runs it natively, bfloat16; with dropout between the layers in training.
 *  The op's packed parameters (MXNet's layout and gate orders) are rearranged into oneDNN's on
 *  every call, since the weights change between calls; gradients go back the same way.
 */
#ifndef SYMNET_OPERATORS_DNNL_DNNL_RNN_H_
#define SYMNET_OPERATORS_DNNL_DNNL_RNN_H_

#include <memory>
#include <string>
#include <vector>

#include "dnnl_common.h"
#include "dnnl_operand.h"
#include "symnet/tensor.h"

namespace symnet {
namespace dnnl_util {

/*! \brief Cell kinds, numbered as the op's `mode`. */
enum class RnnCell { kRelu = 0, kTanh = 1, kLstm = 2, kGru = 3 };

/*!
 * \brief One RNN call: L layers, D directions, sequence (T, N, C), H units, and where each
 *  (layer, direction)'s weights and biases sit in the packed parameter vector (index l*D + d):
 *  W_x (G*H, I_l), W_h (G*H, H), b_x and b_h (G*H each), gates in MXNet's order.
 */
struct RnnConfig {
  RnnCell cell = RnnCell::kLstm;
  int64_t L = 1, D = 1, T = 0, N = 0, C = 0, H = 0;
  DType dtype = DType::kFloat32;
  /*! \brief Dropout rate on every layer's output but the last's (training only). */
  float p = 0.f;
  std::vector<int64_t> wx, wh, bx, bh;
  int64_t Gates() const { return cell == RnnCell::kLstm ? 4 : cell == RnnCell::kGru ? 3 : 1; }
  int64_t In(int64_t l) const { return l == 0 ? C : D * H; }
  bool Dropout() const { return p > 0.f && L > 1; }
  bool operator==(const RnnConfig& o) const {
    return cell == o.cell && L == o.L && D == o.D && T == o.T && N == o.N && C == o.C && H == o.H &&
           dtype == o.dtype && p == o.p && wx == o.wx && wh == o.wh && bx == o.bx && bh == o.bh;
  }
};

/*! \brief Whether oneDNN runs this call: a non-empty sequence and batch, in float32, or in
 *  bfloat16 where oneDNN has native bfloat16 kernels for this CPU and creates the primitives. */
bool RnnSupported(const RnnConfig& cfg);

/*!
 * \brief Bytes of the op's reserve this path uses (training): per layer the primitive's
 *  workspace, the layer's output (the next layer's input) and its final states; with dropout
 *  the mask and the dropped-out output of every layer but the last. 0 where unsupported.
 *  Depends on the shapes, dtype and dropout only (the answer is cached per geometry).
 */
size_t RnnReserveBytes(const RnnConfig& cfg);

/*! \brief The primitives of one call site; `training` adds the workspace and the backward. */
class DnnlRnn {
 public:
  DnnlRnn(const RnnConfig& cfg, bool training, bool backward);
  ~DnnlRnn();
  DnnlRnn(const DnnlRnn&) = delete;
  DnnlRnn& operator=(const DnnlRnn&) = delete;

  /*! \brief Forward from x, the packed parameters w, h0 and (LSTM) c0, all of the config's
   *  dtype; writes y, hy, cy per their requests and the reserve (RnnReserveBytes). Training with
   *  dropout draws one mask per layer but the last from the global random streams, in the order
   *  the op's other CPU path draws them. */
  void Forward(const void* x, const void* w, const void* h0, const void* c0, void* reserve, void* y,
               OpReqType y_req, void* hy, OpReqType hy_req, void* cy, OpReqType cy_req);

  /*! \brief Gradients of the forward whose reserve is given; req: data, parameters, state,
   *  state_cell. */
  void Backward(const void* dy, const void* dhy, const void* dcy, const void* x, const void* w,
                const void* h0, const void* c0, const void* reserve, void* dx, void* dw, void* dh0,
                void* dc0, const std::vector<OpReqType>& req);

  const RnnConfig& config() const { return cfg_; }
  bool training() const { return training_; }

 private:
  struct Layer;
  void PackWeights(Layer& ly, int64_t l, const float* w);
  /*! \brief The packed parameters as float32 (w itself in float32, else a converted copy). */
  const float* ParamsF32(const void* w);
  RnnConfig cfg_;
  bool training_;
  std::vector<std::unique_ptr<Layer>> layers_;
  // float32 staging: the gradient buffers (oneDNN's diff tensors are float32 for bfloat16 too),
  // the cell states and, for bfloat16, the converted parameters and head gradients
  std::vector<float> dbuf_[2], dx_buf_, state_buf_, state_c_buf_, c_in_, w32_, dy32_, dhy32_,
      dcy32_;
};

}  // namespace dnnl_util
}  // namespace symnet

#endif  // SYMNET_OPERATORS_DNNL_DNNL_RNN_H_
