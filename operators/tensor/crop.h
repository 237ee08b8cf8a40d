/*! \brief Crop's parameter and its window as a box of the input (slice.h's copies serve it). */
#ifndef SYMNET_OPERATORS_TENSOR_CROP_H_
#define SYMNET_OPERATORS_TENSOR_CROP_H_

#include "slice.h"

namespace symnet {
namespace ops {

struct CropParam : public dmlc::Parameter<CropParam> {
  int num_args;
  Shape offset;
  Shape h_w;
  bool center_crop;
  DMLC_DECLARE_PARAMETER(CropParam) {
    DMLC_DECLARE_FIELD(num_args).describe(
        "1: crop to h_w; 2: crop to the height and width of the second input, crop_like.");
    DMLC_DECLARE_FIELD(offset)
        .set_default(Shape{0, 0})
        .describe("The window's top-left corner (y, x); ignored with center_crop.");
    DMLC_DECLARE_FIELD(h_w)
        .set_default(Shape{0, 0})
        .describe("The window's (height, width) when num_args is 1.");
    DMLC_DECLARE_FIELD(center_crop)
        .set_default(false)
        .describe("Centre the window (offsets rounded down) instead of placing it at offset.");
  }
};

/*! \brief The crop window of data `whole` whose size is the output `part`'s last two axes. */
SliceBox CropBoxOf(const NodeAttrs& attrs, const Shape& whole, const Shape& part);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_CROP_H_
