/*!
 * \brief ROIPooling (Fast R-CNN, MXNet 1.9.1): each ROI [batch_index, x1, y1, x2, y2] is scaled by
 *  spatial_scale and rounded to whole pixels (half away from zero, C's round), made at least
 *  1x1, cut into pooled_size bins (floor/ceil of the fractional bin edges, clipped to the feature
 *  map), and each bin takes its maximum. The position of the maximum (first one on ties; -1 for
 *  an empty bin, whose output is 0) is kept in a hidden int32 output for the gradient.
 *
 *  The bin geometry is computed in float32 for every dtype, as MXNet does for float32 data: in
 *  float64, 3 * (7 / 3.0) rounds up past 7 and a bin would take one more row.
 *
 *  The backward runs one thread per input plane, which adds the gradients of the cells whose
 *  maximum lies in it: no atomics, the same sums on every device.
 */
#ifndef SYMNET_OPERATORS_NN_ROI_POOLING_H_
#define SYMNET_OPERATORS_NN_ROI_POOLING_H_

#include <cfloat>
#include <cmath>
#include <sstream>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct ROIPoolingParam : public dmlc::Parameter<ROIPoolingParam> {
  Shape pooled_size;
  float spatial_scale;
  DMLC_DECLARE_PARAMETER(ROIPoolingParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("Output height and width of each ROI: (h, w).");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.f, 1.f)
        .describe("Feature-map size over image size (1 / the total stride) for the ROI corners.");
  }
};

/*! \brief MXNet's parse-time rule for a ROI op's pooled_size: two positive sizes. */
inline void CheckPooledSize(const Shape& s) {
  if (s.ndim() != 2 || s[0] <= 0 || s[1] <= 0) {
    std::ostringstream os;
    os << "pooled_size must be 2 positive sizes (h, w), got " << s;
    throw dmlc::ParamError(os.str());
  }
}

struct ROIPoolGeom {
  int64_t batch, channels, height, width, rois, ph, pw;
  float scale;
};

inline ROIPoolGeom MakeROIPoolGeom(const ROIPoolingParam& p, const Shape& data, const Shape& out) {
  return {data[0], data[1], data[2], data[3], out[0], out[2], out[3], p.spatial_scale};
}

/*! \brief The pixel window [h0, h1) x [w0, w1) of cell (ph, pw) of a ROI; image -1: none. */
struct ROIPoolWindow {
  int64_t image, h0, h1, w0, w1;

  template <typename T>
  SYMNET_XINLINE ROIPoolWindow(const T* roi, int64_t ph, int64_t pw, const ROIPoolGeom& g) {
    image = static_cast<int64_t>(static_cast<float>(roi[0]));
    if (image < 0 || image >= g.batch) image = -1;
    const int x_start = static_cast<int>(roundf(static_cast<float>(roi[1]) * g.scale));
    const int y_start = static_cast<int>(roundf(static_cast<float>(roi[2]) * g.scale));
    const int x_end = static_cast<int>(roundf(static_cast<float>(roi[3]) * g.scale));
    const int y_end = static_cast<int>(roundf(static_cast<float>(roi[4]) * g.scale));
    const int rh = y_end - y_start + 1 > 1 ? y_end - y_start + 1 : 1;
    const int rw = x_end - x_start + 1 > 1 ? x_end - x_start + 1 : 1;
    const float bh = static_cast<float>(rh) / static_cast<float>(g.ph);
    const float bw = static_cast<float>(rw) / static_cast<float>(g.pw);
    h0 = Clip(static_cast<int64_t>(floorf(static_cast<float>(ph) * bh)) + y_start, g.height);
    h1 = Clip(static_cast<int64_t>(ceilf(static_cast<float>(ph + 1) * bh)) + y_start, g.height);
    w0 = Clip(static_cast<int64_t>(floorf(static_cast<float>(pw) * bw)) + x_start, g.width);
    w1 = Clip(static_cast<int64_t>(ceilf(static_cast<float>(pw + 1) * bw)) + x_start, g.width);
  }
  SYMNET_XINLINE static int64_t Clip(int64_t v, int64_t hi) {
    return v < 0 ? 0 : (v > hi ? hi : v);
  }
  SYMNET_XINLINE bool empty() const { return image < 0 || h1 <= h0 || w1 <= w0; }
};

template <int req>
struct ROIPoolForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, int32_t* argmax, const T* data, const T* rois,
                                 ROIPoolGeom g) {
    using A = AccType<T>;
    const int64_t pw = i % g.pw, ph = (i / g.pw) % g.ph, c = (i / (g.pw * g.ph)) % g.channels;
    const int64_t n = i / (g.pw * g.ph * g.channels);
    const ROIPoolWindow win(rois + n * 5, ph, pw, g);
    if (win.empty()) {
      AssignReq<req>(&out[i], A(0));
      argmax[i] = -1;
      return;
    }
    const T* plane = data + (win.image * g.channels + c) * g.height * g.width;
    // MXNet starts from -FLT_MAX and takes strictly greater values: the first maximum wins
    A best = A(-FLT_MAX);
    int32_t at = -1;
    for (int64_t h = win.h0; h < win.h1; ++h) {
      for (int64_t w = win.w0; w < win.w1; ++w) {
        const A v = static_cast<A>(plane[h * g.width + w]);
        if (v > best) {
          best = v;
          at = static_cast<int32_t>(h * g.width + w);
        }
      }
    }
    AssignReq<req>(&out[i], best);
    argmax[i] = at;
  }
};

/*! \brief One thread per input plane (image b, channel c): dx of that plane. */
template <int req>
struct ROIPoolBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t plane, T* dx, const T* dy, const int32_t* argmax,
                                 const T* rois, ROIPoolGeom g) {
    using A = AccType<T>;
    const int64_t b = plane / g.channels, c = plane % g.channels;
    const int64_t hw = g.height * g.width, cells = g.ph * g.pw;
    T* d = dx + plane * hw;
    if (req != kAddTo)
      for (int64_t k = 0; k < hw; ++k) d[k] = T(A(0));
    for (int64_t n = 0; n < g.rois; ++n) {
      int64_t image = static_cast<int64_t>(static_cast<float>(rois[n * 5]));
      if (image != b) continue;
      const int64_t base = (n * g.channels + c) * cells;
      for (int64_t k = 0; k < cells; ++k) {
        const int32_t at = argmax[base + k];
        if (at >= 0) d[at] = T(static_cast<A>(d[at]) + static_cast<A>(dy[base + k]));
      }
    }
  }
};

/*! \brief Outputs (out, argmax). */
template <typename xpu>
void ROIPoolingForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].Size() == 0) return;
  const ROIPoolGeom g = MakeROIPoolGeom(Param<ROIPoolingParam>(attrs), in[0].shape_, out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ROIPoolForwardKernel<Req>, xpu>::LaunchCost(out[0].Size(), 16, out[0].dptr<T>(),
                                                         out[1].dptr<int32_t>(), in[0].dptr<T>(),
                                                         in[1].dptr<T>(), g);
    });
  });
}

/*! \brief Inputs (dy, rois, argmax); output d data (the ROIs get no gradient). */
template <typename xpu>
void ROIPoolingBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                        const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].Size() == 0) return;
  const ROIPoolGeom g = MakeROIPoolGeom(Param<ROIPoolingParam>(attrs), out[0].shape_, in[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ROIPoolBackwardKernel<Req>, xpu>::LaunchCost(
          g.batch * g.channels, g.height * g.width + g.rois * g.ph * g.pw, out[0].dptr<T>(),
          in[0].dptr<T>(), in[2].dptr<int32_t>(), in[1].dptr<T>(), g);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_NN_ROI_POOLING_H_
