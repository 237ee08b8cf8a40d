/*!
 * \brief _contrib_ROIAlign (Mask R-CNN's RoIAlign, MXNet 1.9.1's attributes): each output cell
 *  averages bilinear samples of its bin on a grid of sample_ratio^2 points (adaptive: ceil(bin
 *  size) per axis). Coordinates are not rounded; `aligned` shifts them by half a pixel, and
 *  without it a ROI is at least 1x1. position_sensitive takes cell (ph, pw) of output channel c
 *  from input channel (c * PH + ph) * PW + pw (R-FCN).
 *
 *  The forward runs one thread per output element. The backward runs one thread per input plane
 *  (image, channel), which walks the ROIs of its image and adds their cells' samples into its
 *  own plane: no two threads write one element, so there are no atomics and the sums come out
 *  in the same order on every run and device.
 */
#ifndef SYMNET_OPERATORS_CONTRIB_ROI_ALIGN_H_
#define SYMNET_OPERATORS_CONTRIB_ROI_ALIGN_H_

#include <cmath>
#include <vector>

#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

struct ROIAlignParam : public dmlc::Parameter<ROIAlignParam> {
  Shape pooled_size;
  float spatial_scale;
  int sample_ratio;
  bool position_sensitive;
  bool aligned;
  DMLC_DECLARE_PARAMETER(ROIAlignParam) {
    DMLC_DECLARE_FIELD(pooled_size).describe("Output height and width of each ROI: (h, w).");
    DMLC_DECLARE_FIELD(spatial_scale)
        .set_range(0.f, 1.f)
        .describe("Feature-map size over image size (1 / the total stride) for the ROI corners.");
    DMLC_DECLARE_FIELD(sample_ratio)
        .set_default(-1)
        .describe("Sample points per bin along each axis; <= 0: ceil(bin size).");
    DMLC_DECLARE_FIELD(position_sensitive)
        .set_default(false)
        .describe("Position-sensitive pooling (R-FCN): the channels are split over the cells.");
    DMLC_DECLARE_FIELD(aligned).set_default(false).describe(
        "Shift the ROI by -0.5 pixel (pixel centres, Detectron2); no minimum 1x1 size.");
  }
};

/*! \brief The sizes a ROIAlign call works with. */
struct ROIAlignGeom {
  int64_t batch, in_channels, height, width;  // data
  int64_t rois, channels, ph, pw;             // output
  float scale;
  int sample_ratio;
  bool position_sensitive, aligned;
};

inline ROIAlignGeom MakeROIAlignGeom(const ROIAlignParam& p, const Shape& data, const Shape& out) {
  return {data[0],
          data[1],
          data[2],
          data[3],
          out[0],
          out[1],
          out[2],
          out[3],
          p.spatial_scale,
          p.sample_ratio,
          p.position_sensitive,
          p.aligned};
}

/*! \brief One ROI's bins in feature-map coordinates, and its image (-1: the ROI is ignored). */
template <typename A>
struct ROIBins {
  int64_t image;
  A y0, x0, bin_h, bin_w;
  int grid_h, grid_w;

  template <typename T>
  SYMNET_XINLINE ROIBins(const T* roi, const ROIAlignGeom& g) {
    // the batch index truncates toward zero, as MXNet's int conversion does
    image = static_cast<int64_t>(static_cast<A>(roi[0]));
    if (image < 0 || image >= g.batch || g.height == 0 || g.width == 0) image = -1;
    const A off = g.aligned ? A(0.5) : A(0);
    const A s = A(g.scale);
    x0 = static_cast<A>(roi[1]) * s - off;
    y0 = static_cast<A>(roi[2]) * s - off;
    A w = static_cast<A>(roi[3]) * s - off - x0;
    A h = static_cast<A>(roi[4]) * s - off - y0;
    if (!g.aligned) {  // MXNet's older behaviour: malformed ROIs become 1x1
      w = w > A(1) ? w : A(1);
      h = h > A(1) ? h : A(1);
    }
    bin_h = h / A(g.ph);
    bin_w = w / A(g.pw);
    grid_h = g.sample_ratio > 0 ? g.sample_ratio : static_cast<int>(ceil(h / A(g.ph)));
    grid_w = g.sample_ratio > 0 ? g.sample_ratio : static_cast<int>(ceil(w / A(g.pw)));
    // an empty aligned ROI has no samples (MXNet stops with an error there)
    if (grid_h < 0) grid_h = 0;
    if (grid_w < 0) grid_w = 0;
  }
  SYMNET_XINLINE A SampleY(int64_t ph, int iy) const {
    return y0 + A(ph) * bin_h + A(iy + 0.5f) * bin_h / A(grid_h);
  }
  SYMNET_XINLINE A SampleX(int64_t pw, int ix) const {
    return x0 + A(pw) * bin_w + A(ix + 0.5f) * bin_w / A(grid_w);
  }
};

/*!
 * \brief The 4 neighbours and weights of point (y, x) in an h x w plane; false for points more
 *  than one pixel outside it (they contribute nothing).
 */
template <typename A>
SYMNET_XINLINE bool BilinearTaps(A y, A x, int64_t h, int64_t w, int64_t pos[4], A wt[4]) {
  if (y < A(-1) || y > A(h) || x < A(-1) || x > A(w)) return false;
  if (y <= A(0)) y = A(0);
  if (x <= A(0)) x = A(0);
  int64_t y_lo = static_cast<int64_t>(y), x_lo = static_cast<int64_t>(x), y_hi, x_hi;
  if (y_lo >= h - 1) {
    y_hi = y_lo = h - 1;
    y = A(y_lo);
  } else {
    y_hi = y_lo + 1;
  }
  if (x_lo >= w - 1) {
    x_hi = x_lo = w - 1;
    x = A(x_lo);
  } else {
    x_hi = x_lo + 1;
  }
  const A ly = y - A(y_lo), lx = x - A(x_lo), hy = A(1) - ly, hx = A(1) - lx;
  pos[0] = y_lo * w + x_lo;
  pos[1] = y_lo * w + x_hi;
  pos[2] = y_hi * w + x_lo;
  pos[3] = y_hi * w + x_hi;
  wt[0] = hy * hx;
  wt[1] = hy * lx;
  wt[2] = ly * hx;
  wt[3] = ly * lx;
  return true;
}

template <int req>
struct ROIAlignForwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* data, const T* rois, ROIAlignGeom g) {
    using A = AccType<T>;
    const int64_t pw = i % g.pw, ph = (i / g.pw) % g.ph, c = (i / (g.pw * g.ph)) % g.channels;
    const int64_t n = i / (g.pw * g.ph * g.channels);
    const ROIBins<A> r(rois + n * 5, g);
    A sum = A(0);
    if (r.image >= 0) {
      const int64_t cin = g.position_sensitive ? (c * g.ph + ph) * g.pw + pw : c;
      const T* plane = data + (r.image * g.in_channels + cin) * g.height * g.width;
      for (int iy = 0; iy < r.grid_h; ++iy) {
        const A y = r.SampleY(ph, iy);
        for (int ix = 0; ix < r.grid_w; ++ix) {
          int64_t pos[4];
          A wt[4];
          if (!BilinearTaps(y, r.SampleX(pw, ix), g.height, g.width, pos, wt)) continue;
          for (int k = 0; k < 4; ++k) sum += wt[k] * static_cast<A>(plane[pos[k]]);
        }
      }
      const int count = r.grid_h * r.grid_w;
      if (count > 0) sum /= A(count);
    }
    AssignReq<req>(&out[i], sum);
  }
};

/*! \brief One thread per input plane (image b, input channel cin): dx of that plane. */
template <int req>
struct ROIAlignBackwardKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t plane, T* dx, const T* dy, const T* rois, ROIAlignGeom g) {
    using A = AccType<T>;
    const int64_t b = plane / g.in_channels, cin = plane % g.in_channels;
    const int64_t hw = g.height * g.width;
    T* d = dx + plane * hw;
    if (req != kAddTo)
      for (int64_t k = 0; k < hw; ++k) d[k] = T(A(0));
    const int64_t cells = g.ph * g.pw;
    // the output channel and the cells that read this input channel
    const int64_t c = g.position_sensitive ? cin / cells : cin;
    const int64_t cell_lo = g.position_sensitive ? cin % cells : 0;
    const int64_t cell_hi = g.position_sensitive ? cell_lo + 1 : cells;
    for (int64_t n = 0; n < g.rois; ++n) {
      const ROIBins<A> r(rois + n * 5, g);
      if (r.image != b) continue;
      const int count = r.grid_h * r.grid_w;
      if (count == 0) continue;
      for (int64_t cell = cell_lo; cell < cell_hi; ++cell) {
        const int64_t ph = cell / g.pw, pw = cell % g.pw;
        const A gy = static_cast<A>(dy[((n * g.channels + c) * g.ph + ph) * g.pw + pw]) / A(count);
        for (int iy = 0; iy < r.grid_h; ++iy) {
          const A y = r.SampleY(ph, iy);
          for (int ix = 0; ix < r.grid_w; ++ix) {
            int64_t pos[4];
            A wt[4];
            if (!BilinearTaps(y, r.SampleX(pw, ix), g.height, g.width, pos, wt)) continue;
            for (int k = 0; k < 4; ++k) d[pos[k]] = T(static_cast<A>(d[pos[k]]) + gy * wt[k]);
          }
        }
      }
    }
  }
};

template <typename xpu>
void ROIAlignForward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                     const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  if (out[0].Size() == 0) return;
  const ROIAlignGeom g = MakeROIAlignGeom(Param<ROIAlignParam>(attrs), in[0].shape_, out[0].shape_);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ROIAlignForwardKernel<Req>, xpu>::LaunchCost(out[0].Size(), 16, out[0].dptr<T>(),
                                                          in[0].dptr<T>(), in[1].dptr<T>(), g);
    });
  });
}

/*! \brief Inputs (dy, rois); output d data (the ROIs get no gradient: zeros, as in MXNet). */
template <typename xpu>
void ROIAlignBackward(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  const ROIAlignGeom g = MakeROIAlignGeom(Param<ROIAlignParam>(attrs), out[0].shape_, in[0].shape_);
  if (out[0].Size() == 0) return;
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<ROIAlignBackwardKernel<Req>, xpu>::LaunchCost(
          g.batch * g.in_channels, g.height * g.width + in[0].Size() / (g.batch * g.in_channels),
          out[0].dptr<T>(), in[0].dptr<T>(), in[1].dptr<T>(), g);
    });
  });
}

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_CONTRIB_ROI_ALIGN_H_
