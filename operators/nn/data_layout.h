/*!
 * \brief The `layout` parameter of Convolution and Pooling (MXNet's names): channels-first
 *  (NCW, NCHW, NCDHW, the default) or channels-last (NWC, NHWC, NDHWC).
 *
 *  A channels-last tensor of shape (N, spatial..., C) holds exactly the bytes of the
 *  channels-first tensor (N, C, spatial...) stored channels-last, which is what the executor's
 *  layout plan calls Layout::kChannelsLast. So the kernels take a channels-last argument as a
 *  channels-first view flagged kChannelsLast (ChannelsFirstView) and need no second code path.
 */
#ifndef SYMNET_OPERATORS_NN_DATA_LAYOUT_H_
#define SYMNET_OPERATORS_NN_DATA_LAYOUT_H_

#include <dmlc/optional.h>

#include "symnet/tensor.h"

namespace symnet {
namespace ops {

enum DataLayout { kNCW = 0, kNCHW = 1, kNCDHW = 2, kNWC = 3, kNHWC = 4, kNDHWC = 5 };

/*! \brief Adds the layout names to a dmlc parameter field (default: channels-first). */
template <typename Field>
Field& DeclareDataLayout(Field& f) {
  return f.add_enum("NCW", kNCW)
      .add_enum("NCHW", kNCHW)
      .add_enum("NCDHW", kNCDHW)
      .add_enum("NWC", kNWC)
      .add_enum("NHWC", kNHWC)
      .add_enum("NDHWC", kNDHWC)
      .set_default(dmlc::optional<int>());
}

inline bool IsChannelsLast(const dmlc::optional<int>& layout) {
  return layout.has_value() && layout.value() >= kNWC;
}

/*! \brief Spatial dims the layout names (1 to 3); 0 when it is unset. */
inline int LayoutSpatialDims(const dmlc::optional<int>& layout) {
  return layout.has_value() ? layout.value() % 3 + 1 : 0;
}

inline const char* LayoutName(int layout) {
  static const char* names[] = {"NCW", "NCHW", "NCDHW", "NWC", "NHWC", "NDHWC"};
  return names[layout];
}

/*! \brief (N, spatial..., C) -> (N, C, spatial...). */
inline Shape ToChannelsFirst(const Shape& s) {
  Shape r{s[0], s[s.ndim() - 1]};
  for (int i = 1; i + 1 < s.ndim(); ++i) r.push_back(s[i]);
  return r;
}

/*! \brief (N, C, spatial...) -> (N, spatial..., C). */
inline Shape ToChannelsLast(const Shape& s) {
  Shape r{s[0]};
  for (int i = 2; i < s.ndim(); ++i) r.push_back(s[i]);
  r.push_back(s[1]);
  return r;
}

/*!
 * \brief The channels-first view of a blob: a channels-last argument (shape (N, spatial..., C))
 *  becomes (N, C, spatial...) flagged kChannelsLast; anything else is returned unchanged.
 */
inline TBlob ChannelsFirstView(const TBlob& b, bool channels_last) {
  if (!channels_last) return b;
  TBlob v(b.dptr_, ToChannelsFirst(b.shape_), b.dtype_, b.dev_);
  v.layout_ = Layout::kChannelsLast;
  v.version_ = b.version_;  // the same memory
  return v;
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_DATA_LAYOUT_H_
