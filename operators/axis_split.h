/*! \brief A shape seen as (outer, n, inner) around one axis: what ops along an axis (softmax,
 *  take, pick, sort) iterate over. */
#ifndef SYMNET_OPERATORS_AXIS_SPLIT_H_
#define SYMNET_OPERATORS_AXIS_SPLIT_H_

#include "operator_common.h"

namespace symnet {
namespace ops {

struct AxisSplit {
  int64_t outer, n, inner;
};

/*! \brief The split of `s` at `axis` (negative counts from the back; checked). */
inline AxisSplit SplitAtAxis(const Shape& s, int axis) {
  const int a = axis < 0 ? axis + s.ndim() : axis;
  SYMNET_CHECK(a >= 0 && a < s.ndim()) << "axis " << axis << " is out of range for shape " << s;
  return {s.ProdRange(0, a), s[a], s.ProdRange(a + 1, s.ndim())};
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_AXIS_SPLIT_H_
