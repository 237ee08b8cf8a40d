/*!
 * \brief Bounding-box helpers shared by the detection ops (box_iou, box_nms, bipartite_matching,
 *  MultiBox*, Proposal): overlap of two boxes, conversion between the corner (xmin, ymin, xmax,
 *  ymax) and center (x, y, w, h) encodings. Written once for host and device (SYMNET_XINLINE).
 */
#ifndef SYMNET_OPERATORS_CONTRIB_BOX_UTILS_H_
#define SYMNET_OPERATORS_CONTRIB_BOX_UTILS_H_

#include "symnet/base.h"

namespace symnet {
namespace ops {

/*! \brief Box encodings, in MXNet's enum order: "corner" = 0, "center" = 1. */
enum BoxFormat { kBoxCorner = 0, kBoxCenter = 1 };

/*!
 * \brief Length of the overlap of [a0, a1] and [b0, b1]; 0 when they are disjoint, so that a box
 *  with a negative extent (an invalid box) overlaps nothing.
 */
template <typename T>
SYMNET_XINLINE T BoxOverlap1D(T a0, T a1, T b0, T b1) {
  const T lo = a0 > b0 ? a0 : b0;
  const T hi = a1 < b1 ? a1 : b1;
  return hi > lo ? hi - lo : T(0);
}

/*! \brief Area of a corner box; 0 for a box with a negative width or height. */
template <typename T>
SYMNET_XINLINE T BoxArea(T xmin, T ymin, T xmax, T ymax) {
  const T w = xmax - xmin, h = ymax - ymin;
  return (w < T(0) || h < T(0)) ? T(0) : w * h;
}

/*!
 * \brief Intersection over union of two corner-format boxes a = (a[0], a[1], a[2], a[3]) and
 *  b likewise. 0 when the union is empty (two degenerate boxes), never NaN.
 */
template <typename T>
SYMNET_XINLINE T BoxIoU(const T* a, const T* b) {
  const T iw = BoxOverlap1D(a[0], a[2], b[0], b[2]);
  const T ih = BoxOverlap1D(a[1], a[3], b[1], b[3]);
  const T inter = iw * ih;
  const T uni = BoxArea(a[0], a[1], a[2], a[3]) + BoxArea(b[0], b[1], b[2], b[3]) - inter;
  return uni > T(0) ? inter / uni : T(0);
}

/*! \brief Writes the corner encoding of box `b` (in `format`) to out[0..3]. */
template <typename T>
SYMNET_XINLINE void BoxToCorner(const T* b, int format, T* out) {
  if (format == kBoxCenter) {
    const T hw = b[2] / T(2), hh = b[3] / T(2);
    out[0] = b[0] - hw;
    out[1] = b[1] - hh;
    out[2] = b[0] + hw;
    out[3] = b[1] + hh;
  } else {
    out[0] = b[0];
    out[1] = b[1];
    out[2] = b[2];
    out[3] = b[3];
  }
}

/*! \brief Writes the center encoding of the corner box `c` to out[0..3]. */
template <typename T>
SYMNET_XINLINE void CornerToCenter(const T* c, T* out) {
  const T w = c[2] - c[0], h = c[3] - c[1];
  out[0] = c[0] + w / T(2);
  out[1] = c[1] + h / T(2);
  out[2] = w;
  out[3] = h;
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_BOX_UTILS_H_
