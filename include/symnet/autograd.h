/*!
 * \brief Imperative automatic differentiation (MXNet's mx.autograd): while recording, every
 *  imperative op call whose inputs autograd tracks is kept as a graph node with its output
 *  values; Backward differentiates that graph with the ops' FGradient (the same Gradient pass
 *  the executor uses) and runs the gradient nodes imperatively.
 */
#ifndef SYMNET_AUTOGRAD_H_
#define SYMNET_AUTOGRAD_H_

#include <functional>
#include <vector>

#include "symnet/ndarray.h"
#include "symnet/node.h"
#include "symnet/symbol.h"
#include "symnet/tensor.h"

namespace symnet {

/*! \brief What autograd keeps on a recorded node (Node::ag). */
struct AutogradRecord {
  /*! \brief Every output's value, hidden ones included, detached (no node: no cycles). */
  std::vector<NDArray> outputs;
  /*! \brief attach_grad's variables (`marked`): the gradient buffer and how backward writes
   *  it (no buffer with grad_req kNullOp). A marked variable outlives every backward. */
  bool marked = false;
  NDArray grad;
  OpReqType grad_req = kNullOp;
  /*! \brief Set when a backward wrote `grad`; Gluon's Trainer reads and clears it (stale). */
  bool fresh = false;
  /*!
   * \brief A function recorded as a whole (RecordFunction): given its outputs' gradients,
   *  returns one gradient per input (a none entry: zero).
   */
  std::function<std::vector<NDArray>(const std::vector<NDArray>& ograds)> backward;
  /*! \brief Set when a backward without retain_graph freed the values. */
  bool released = false;
};

namespace autograd {

/*! \brief Whether imperative calls on this thread are recorded; Set* return the old value. */
bool IsRecording();
bool SetRecording(bool on);
/*! \brief Whether imperative calls on this thread run in training mode (Dropout drops, ...). */
bool IsTraining();
bool SetTraining(bool on);

/*!
 * \brief Makes `var` a leaf autograd differentiates for (attach_grad): backward writes (req
 *  kWriteTo) or adds (kAddTo) its gradient into `grad`; kNullOp tracks it without a gradient.
 */
void MarkVariable(NDArray* var, const NDArray& grad, OpReqType req);

/*! \brief Whether autograd tracks `a`: attach_grad marked it, or it was recorded and no
 *  backward without retain_graph has freed its graph since. */
bool IsTracked(const NDArray& a);

/*! \brief The gradient buffer of an array attach_grad marked; the none array otherwise. */
NDArray GradOf(const NDArray& var);

/*!
 * \brief Records op node `n` (attributes parsed) called on `inputs` when recording is on and
 *  some input is tracked; sets the autograd entry of every array in `outputs` (all outputs,
 *  hidden ones included).
 */
void Record(const NodePtr& n, const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs);

/*!
 * \brief Records a computation autograd did not see op by op (mx.autograd.Function, a Gluon
 *  block run by its executor): `outputs` were computed from `inputs`, and `backward` maps the
 *  outputs' gradients to the inputs'. Does nothing unless recording and some input is tracked;
 *  sets the autograd entries of `outputs`.
 */
void RecordFunction(const std::vector<NDArray>& inputs, std::vector<NDArray>* outputs,
                    std::function<std::vector<NDArray>(const std::vector<NDArray>&)> backward);

/*!
 * \brief Differentiates `heads` (each computed under recording) with head gradients
 *  `head_grads` (a none entry or an empty list: ones). With `variables` empty the gradients
 *  go into every reachable attach_grad buffer per its grad_req and nothing is returned;
 *  otherwise the gradients of `variables` are returned and no buffer is touched. Without
 *  `retain_graph` the recorded values are freed afterwards. `is_train` is the mode the
 *  gradient ops run in. With `create_graph` the gradient ops are recorded too, so the
 *  gradients returned can be differentiated again (ops whose backward has a gradient).
 */
std::vector<NDArray> Backward(const std::vector<NDArray>& heads,
                              const std::vector<NDArray>& head_grads,
                              const std::vector<NDArray>& variables, bool retain_graph,
                              bool is_train, bool create_graph = false);

/*!
 * \brief The graph autograd recorded for `heads` as a symbol (MXNet's autograd.get_symbol):
 *  attach_grad's arrays become variables var0, var1, ..., untracked inputs null0, null1, ...
 */
Symbol GetSymbol(const std::vector<NDArray>& heads);

}  // namespace autograd
}  // namespace symnet

#endif  // SYMNET_AUTOGRAD_H_
