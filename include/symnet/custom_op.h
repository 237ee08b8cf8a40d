/*!
 * \brief User-defined operators (MXNet's `Custom` op): an operator whose shape rules and kernels
 *  are written by the user, in Python, through symnet.operator (CustomOpProp / CustomOp). The
 *  C++ side sees one CustomOpProp per graph node, created by the creator registered under the
 *  node's `op_type`; the Python bindings implement it.
 */
#ifndef SYMNET_CUSTOM_OP_H_
#define SYMNET_CUSTOM_OP_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "symnet/ndarray.h"

namespace symnet {

/*!
 * \brief One Custom node's operator: its interface (names, shape and type rules) and its
 *  kernels. Every method may throw symnet::Error (a Python exception becomes one).
 */
class CustomOpProp {
 public:
  virtual ~CustomOpProp() = default;
  virtual std::vector<std::string> ListArguments() = 0;
  virtual std::vector<std::string> ListOutputs() = 0;
  virtual std::vector<std::string> ListAuxiliaryStates() = 0;
  /*! \brief False for a loss: its backward ignores the output gradient (MXNet's need_top_grad).
   */
  virtual bool NeedTopGrad() = 0;
  /*!
   * \brief `in` holds the arguments then the auxiliary states (unknown ones have an unknown
   *  ndim); fills in what the user's infer_shape says. Returns false when the rule cannot tell
   *  yet because inputs are unknown; throws when it fails with every argument known.
   */
  virtual bool InferShape(std::vector<Shape>* in, std::vector<Shape>* out) = 0;
  /*! \brief Like InferShape with DType::kUnknown as "unknown". */
  virtual bool InferType(std::vector<DType>* in, std::vector<DType>* out) = 0;
  /*! \brief Runs the user's forward: writes `out_data` as `req` says. */
  virtual void Forward(bool is_train, const std::vector<OpReqType>& req,
                       const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                       const std::vector<NDArray>& aux) = 0;
  /*!
   * \brief Runs the user's backward: writes `in_grad` as `req` says. `loss_scale` is the
   *  dynamic loss scale; a loss (NeedTopGrad() false) ignores its output gradient, so its input
   *  gradients are multiplied by the scale here, as the built-in loss heads do.
   */
  virtual void Backward(const std::vector<OpReqType>& req, const std::vector<NDArray>& out_grad,
                        const std::vector<NDArray>& in_data, const std::vector<NDArray>& out_data,
                        const std::vector<NDArray>& in_grad, const std::vector<NDArray>& aux,
                        float loss_scale) = 0;
};

/*! \brief Makes the operator of one node from the node's parameters (all but op_type). */
using CustomOpCreator =
    std::function<std::shared_ptr<CustomOpProp>(const std::map<std::string, std::string>& kwargs)>;

/*! \brief Registers (or replaces) the creator of op_type `name`. */
void RegisterCustomOp(const std::string& name, CustomOpCreator creator);
/*! \brief The registered op_types, sorted. */
std::vector<std::string> ListCustomOps();

}  // namespace symnet

#endif  // SYMNET_CUSTOM_OP_H_
