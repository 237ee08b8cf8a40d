/*!
 * \brief Shape, type and mutation rules shared by the update ops of rmsprop.cc, ftrl.cc,
 *  signum.cc, adamw.cc and lamb.cc, and the small per-element helpers of their kernels.
 *
 *  An op's inputs are described by a string with one letter per input:
 *    'w'  the weight's dtype and shape (weight, grad, and the states of a non-mp op);
 *    'f'  float32, the weight's shape (states and master weight of an mp_ op);
 *    's'  a one-element array (1,) (a norm, or a rescale factor computed on the device), of
 *         float32 or of the weight's dtype; float32 when nothing says otherwise.
 *  Upper case ('W', 'F') marks a state the op updates in place. The output has the weight's
 *  shape and the weight's dtype ('w') or float32 ('f').
 */
#ifndef SYMNET_OPERATORS_OPTIMIZER_UPDATE_RULES_H_
#define SYMNET_OPERATORS_OPTIMIZER_UPDATE_RULES_H_

#include <cstring>
#include <string>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

/*! \brief The inputs an op updates in place: the upper-case letters of `kinds`. */
inline std::vector<uint32_t> MutatedSlots(const char* kinds) {
  std::vector<uint32_t> v;
  for (uint32_t i = 0; kinds[i] != '\0'; ++i)
    if (kinds[i] == 'W' || kinds[i] == 'F') v.push_back(i);
  return v;
}

/*! \brief The letter of input i, lower case. */
inline char KindOf(const char* kinds, size_t i) {
  return kinds[i] == 'W' ? 'w' : (kinds[i] == 'F' ? 'f' : kinds[i]);
}

/*! \brief Shape rule: 'w' and 'f' inputs and the output share one shape; 's' inputs are (1,). */
inline bool UpdateShape(const char* kinds, std::vector<Shape>* in, std::vector<Shape>* out) {
  Shape s = (*out)[0];
  for (size_t i = 0; i < in->size(); ++i)
    if (KindOf(kinds, i) != 's') ShapeAssign(&s, (*in)[i]);
  for (size_t i = 0; i < in->size(); ++i) {
    if (KindOf(kinds, i) == 's') {
      AssignInShape(in, i, Shape{1});
    } else if (s.ndim_known()) {
      AssignInShape(in, i, s);
    }
  }
  if (!s.ndim_known()) return false;
  AssignOutShape(out, 0, s);
  return s.is_known();
}

/*! \brief Type rule (see the file comment); `out_kind` is 'w' or 'f'. */
inline bool UpdateType(const char* kinds, char out_kind, std::vector<DType>* in,
                       std::vector<DType>* out) {
  DType w = (*in)[0];
  if (w == DType::kUnknown && out_kind == 'w') w = (*out)[0];
  if (w == DType::kUnknown) return false;
  for (size_t i = 0; i < in->size(); ++i) {
    const char k = KindOf(kinds, i);
    if (k == 'w') {
      AssignType(in, i, w, true);
    } else if (k == 'f') {
      AssignType(in, i, DType::kFloat32, true);
    } else if ((*in)[i] == DType::kUnknown) {
      (*in)[i] = DType::kFloat32;
    } else if ((*in)[i] != DType::kFloat32 && (*in)[i] != w) {
      throw InferError{true, static_cast<int>(i),
                       std::string(DTypeName(DType::kFloat32)) + " or " + DTypeName(w),
                       DTypeName((*in)[i])};
    }
  }
  AssignType(out, 0, out_kind == 'w' ? w : DType::kFloat32, false);
  return true;
}

/*! \brief v clipped to [-bound, bound] when bound >= 0 (MXNet clips with a bound of 0 too). */
template <typename A>
SYMNET_XINLINE A ClipAbs(A v, A bound) {
  if (bound >= A(0)) v = v > bound ? bound : (v < -bound ? -bound : v);
  return v;
}

/*! \brief -1, 0 or 1. */
template <typename A>
SYMNET_XINLINE A SignOf(A v) {
  return v > A(0) ? A(1) : (v < A(0) ? A(-1) : A(0));
}

/*! \brief An element of a weight-typed array in the accumulation type. */
template <typename A, typename T>
SYMNET_XINLINE A Load(const T* p, int64_t i) {
  return static_cast<A>(static_cast<AccType<T>>(p[i]));
}

}  // namespace ops
}  // namespace symnet

/*!
 * \brief The registration every update op shares, chained after SYMNET_REGISTER_OP(name):
 *  its parameter struct, the kinds string of its inputs (see update_rules.h), the kind of its
 *  output ('w' or 'f') and its input names.
 */
#define SYMNET_UPDATE_OP(PARAM, KINDS, OUT_KIND, ...)                                       \
  set_num_inputs(static_cast<uint32_t>(std::strlen(KINDS)))                                 \
      .set_attr_parser(::symnet::ops::ParamParser<PARAM>)                                   \
      .add_arguments(::symnet::ops::ParamDocs<PARAM>())                                     \
      .set_attr<::symnet::FListInputNames>(                                                 \
          "FListInputNames",                                                                \
          [](const ::symnet::NodeAttrs&) { return std::vector<std::string>{__VA_ARGS__}; }) \
      .set_attr<::symnet::FMutateInputs>(                                                   \
          "FMutateInputs",                                                                  \
          [](const ::symnet::NodeAttrs&) { return ::symnet::ops::MutatedSlots(KINDS); })    \
      .set_attr<::symnet::FInferShape>(                                                     \
          "FInferShape",                                                                    \
          [](const ::symnet::NodeAttrs&, std::vector<::symnet::Shape>* in,                  \
             std::vector<::symnet::Shape>* out) {                                           \
            return ::symnet::ops::UpdateShape(KINDS, in, out);                              \
          })                                                                                \
      .set_attr<::symnet::FInferType>(                                                      \
          "FInferType", [](const ::symnet::NodeAttrs&, std::vector<::symnet::DType>* in,    \
                           std::vector<::symnet::DType>* out) {                             \
            return ::symnet::ops::UpdateType(KINDS, OUT_KIND, in, out);                     \
          })

#endif  // SYMNET_OPERATORS_OPTIMIZER_UPDATE_RULES_H_
