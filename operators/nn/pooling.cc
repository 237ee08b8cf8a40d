/*!
 * \brief Pooling (max, avg, sum, lp) over 1-3 spatial dims: kernel, stride, pad, global_pool,
 *  pooling_convention valid/full/same, count_include_pad. Written as plain loops over windows for
 *  channels-first and channels-last data; max-pooling's gradient goes to the first maximum.
 */
#include "pooling.h"

#include <cmath>
#include <limits>

#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

DMLC_REGISTER_PARAMETER(PoolingParam);

namespace {

bool PoolShape(const NodeAttrs& attrs, std::vector<Shape>* in, std::vector<Shape>* out) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const Shape& given = (*in)[0];
  if (!given.is_known()) return false;
  const bool last = IsChannelsLast(p.layout);
  SYMNET_CHECK(!last || given.ndim() >= 3)
      << "Pooling with a channels-last layout expects (N, spatial..., C), got " << given;
  const Shape x = last ? ToChannelsFirst(given) : given;
  const PoolGeo g = MakeGeo(p, x);
  Shape y{x[0], x[1]};
  for (int i = 5 - x.ndim(); i < 3; ++i) y.push_back(g.out[i]);
  AssignOutShape(out, 0, last ? ToChannelsLast(y) : y);
  return true;
}

/*! \brief Layout plan slots: none for a channels-last `layout` (its tensors are not NCHW). */
LayoutSlots PoolLayoutSlots(const NodeAttrs& attrs) {
  if (IsChannelsLast(Param<PoolingParam>(attrs).layout)) return LayoutSlots();
  return AllSlotsUniform(attrs);
}

/*! \brief Element strides for (n, c, spatial index) in either layout. */
struct Strides {
  int64_t n, c, sp;  // sp: between consecutive spatial positions
};
Strides MakeStrides(const PoolGeo& g, bool channels_last, bool output) {
  const int64_t sz = output ? g.out_size() : g.in_size();
  if (channels_last) return {sz * g.c, 1, g.c};
  return {g.c * sz, sz, 1};
}

template <typename F>
void ForEachInWindow(const PoolGeo& g, const Window& w, F f) {
  for (int64_t d = w.lo[0]; d < w.hi[0]; ++d)
    for (int64_t h = w.lo[1]; h < w.hi[1]; ++h)
      for (int64_t x = w.lo[2]; x < w.hi[2]; ++x) f((d * g.in[1] + h) * g.in[2] + x);
}

template <typename T>
void PoolForward(const PoolingParam& p, const PoolGeo& g, const TBlob& xb, const TBlob& yb,
                 OpReqType req) {
  using A = AccType<T>;
  const T* x = xb.dptr<T>();
  T* y = yb.dptr<T>();
  const Strides si = MakeStrides(g, xb.channels_last(), false),
                so = MakeStrides(g, yb.channels_last(), true);
  const int64_t osz = g.out_size();
  const int lp = LpP(p);
#pragma omp parallel for collapse(2)
  for (int64_t n = 0; n < g.n; ++n) {
    for (int64_t oi = 0; oi < osz; ++oi) {
      const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1], oi % g.out[2]};
      const Window w = MakeWindow(g, p, o);
      for (int64_t c = 0; c < g.c; ++c) {
        const T* xc = x + n * si.n + c * si.c;
        A v;
        if (p.pool_type == kMaxPool) {
          v = -std::numeric_limits<A>::infinity();
          ForEachInWindow(g, w, [&](int64_t i) { v = std::max(v, static_cast<A>(xc[i * si.sp])); });
        } else if (p.pool_type == kLpPool) {
          A s = 0;
          ForEachInWindow(g, w, [&](int64_t i) {
            s += static_cast<A>(LpTerm(static_cast<A>(xc[i * si.sp]), lp));
          });
          v = static_cast<A>(LpRoot(s, lp));
        } else {
          A s = 0;
          ForEachInWindow(g, w, [&](int64_t i) { s += static_cast<A>(xc[i * si.sp]); });
          v = static_cast<A>(s / w.divisor);
        }
        T* dst = y + n * so.n + c * so.c + oi * so.sp;
        if (req == kAddTo) {
          AssignReq<kAddTo>(dst, v);
        } else {
          AssignReq<kWriteTo>(dst, v);
        }
      }
    }
  }
}

/*! \brief dx from (dy, x, y). Parallel over (n, c) so windows never race on dx. */
template <typename T>
void PoolBackward(const PoolingParam& p, const PoolGeo& g, const TBlob& dyb, const TBlob& xb,
                  const TBlob& yb, const TBlob& dxb, OpReqType req) {
  using A = AccType<T>;
  const T* dy = dyb.dptr<T>();
  const T* x = xb.dptr<T>();
  const T* y = yb.dptr<T>();
  T* dx = dxb.dptr<T>();
  const Strides si = MakeStrides(g, xb.channels_last(), false),
                so = MakeStrides(g, yb.channels_last(), true);
  const int64_t osz = g.out_size(), isz = g.in_size();
  const int lp = LpP(p);
#pragma omp parallel
  {
    std::vector<A> plane(static_cast<size_t>(isz));  // one (n, c) plane, per thread
#pragma omp for collapse(2)
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t c = 0; c < g.c; ++c) {
        const T* xc = x + n * si.n + c * si.c;
        std::fill(plane.begin(), plane.end(), A(0));
        for (int64_t oi = 0; oi < osz; ++oi) {
          const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1],
                                oi % g.out[2]};
          const Window w = MakeWindow(g, p, o);
          const A grad = static_cast<A>(dy[n * so.n + c * so.c + oi * so.sp]);
          if (p.pool_type == kMaxPool) {
            const A target = static_cast<A>(y[n * so.n + c * so.c + oi * so.sp]);
            int64_t arg = -1;
            ForEachInWindow(g, w, [&](int64_t i) {
              if (arg < 0 && static_cast<A>(xc[i * si.sp]) == target) arg = i;
            });
            if (arg >= 0) plane[arg] += grad;
          } else if (p.pool_type == kLpPool) {
            const A out = static_cast<A>(y[n * so.n + c * so.c + oi * so.sp]);
            ForEachInWindow(g, w, [&](int64_t i) {
              plane[i] += static_cast<A>(grad * LpGrad(static_cast<A>(xc[i * si.sp]), out, lp));
            });
          } else {
            const A share = static_cast<A>(grad / w.divisor);
            ForEachInWindow(g, w, [&](int64_t i) { plane[i] += share; });
          }
        }
        for (int64_t i = 0; i < isz; ++i) {
          T* dst = dx + n * si.n + c * si.c + i * si.sp;
          if (req == kAddTo) {
            AssignReq<kAddTo>(dst, plane[i]);
          } else if (req != kNullOp) {
            AssignReq<kWriteTo>(dst, plane[i]);
          }
        }
      }
    }
  }
}

/*!
 * \brief Channels-last forward: channels are contiguous, so every window visit is a vector
 *  operation over C. Parallel over (n, output position).
 */
template <typename T>
void PoolForwardNHWC(const PoolingParam& p, const PoolGeo& g, const T* x, T* y, OpReqType req) {
  using A = AccType<T>;
  const int64_t osz = g.out_size(), isz = g.in_size(), C = g.c;
  const int lp = LpP(p);
#pragma omp parallel
  {
    std::vector<A> acc(static_cast<size_t>(C));
#pragma omp for collapse(2)
    for (int64_t n = 0; n < g.n; ++n) {
      for (int64_t oi = 0; oi < osz; ++oi) {
        const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1],
                              oi % g.out[2]};
        const Window w = MakeWindow(g, p, o);
        const bool is_max = p.pool_type == kMaxPool, is_lp = p.pool_type == kLpPool;
        std::fill(acc.begin(), acc.end(), is_max ? -std::numeric_limits<A>::infinity() : A(0));
        const T* xn = x + n * isz * C;
        ForEachInWindow(g, w, [&](int64_t i) {
          const T* px = xn + i * C;
          if (is_max) {
            for (int64_t c = 0; c < C; ++c) acc[c] = std::max(acc[c], static_cast<A>(px[c]));
          } else if (is_lp) {
            for (int64_t c = 0; c < C; ++c)
              acc[c] += static_cast<A>(LpTerm(static_cast<A>(px[c]), lp));
          } else {
            for (int64_t c = 0; c < C; ++c) acc[c] += static_cast<A>(px[c]);
          }
        });
        if (is_lp)
          for (int64_t c = 0; c < C; ++c) acc[c] = static_cast<A>(LpRoot(acc[c], lp));
        const A inv = is_max || is_lp ? A(1) : static_cast<A>(1.0 / w.divisor);
        T* py = y + (n * osz + oi) * C;
        for (int64_t c = 0; c < C; ++c) {
          if (req == kAddTo) {
            AssignReq<kAddTo>(&py[c], acc[c] * inv);
          } else {
            AssignReq<kWriteTo>(&py[c], acc[c] * inv);
          }
        }
      }
    }
  }
}

/*! \brief Channels-last backward: one thread per sample scatters into that sample's dx. */
template <typename T>
void PoolBackwardNHWC(const PoolingParam& p, const PoolGeo& g, const T* dy, const T* x, const T* y,
                      T* dx, OpReqType req) {
  using A = AccType<T>;
  const int64_t osz = g.out_size(), isz = g.in_size(), C = g.c;
  const int lp = LpP(p);
#pragma omp parallel
  {
    std::vector<A> plane(static_cast<size_t>(isz * C));
    // per channel: the gradient not yet handed to a window element (it goes to the first maximum)
    std::vector<A> left(static_cast<size_t>(C));
#pragma omp for
    for (int64_t n = 0; n < g.n; ++n) {
      std::fill(plane.begin(), plane.end(), A(0));
      const T* xn = x + n * isz * C;
      for (int64_t oi = 0; oi < osz; ++oi) {
        const int64_t o[3] = {oi / (g.out[1] * g.out[2]), (oi / g.out[2]) % g.out[1],
                              oi % g.out[2]};
        const Window w = MakeWindow(g, p, o);
        const T* pdy = dy + (n * osz + oi) * C;
        if (p.pool_type == kMaxPool) {
          const T* py = y + (n * osz + oi) * C;
          for (int64_t c = 0; c < C; ++c) left[c] = static_cast<A>(pdy[c]);
          // branch-free (a select per channel) so the channel loop vectorizes: the first element
          // equal to the maximum takes what is left, which is then zero for the rest
          ForEachInWindow(g, w, [&](int64_t i) {
            const T* px = xn + i * C;
            A* pp = &plane[i * C];
            A* lc = left.data();
            for (int64_t c = 0; c < C; ++c) {
              const bool hit = static_cast<A>(px[c]) == static_cast<A>(py[c]);
              pp[c] += hit ? lc[c] : A(0);
              lc[c] = hit ? A(0) : lc[c];
            }
          });
        } else if (p.pool_type == kLpPool) {
          const T* py = y + (n * osz + oi) * C;
          ForEachInWindow(g, w, [&](int64_t i) {
            const T* px = xn + i * C;
            A* pp = &plane[i * C];
            for (int64_t c = 0; c < C; ++c)
              pp[c] += static_cast<A>(static_cast<A>(pdy[c]) *
                                      LpGrad(static_cast<A>(px[c]), static_cast<A>(py[c]), lp));
          });
        } else {
          const A inv = static_cast<A>(1.0 / w.divisor);
          ForEachInWindow(g, w, [&](int64_t i) {
            A* pp = &plane[i * C];
            for (int64_t c = 0; c < C; ++c) pp[c] += static_cast<A>(pdy[c]) * inv;
          });
        }
      }
      T* dxn = dx + n * isz * C;
      for (int64_t i = 0; i < isz * C; ++i) {
        if (req == kAddTo) {
          AssignReq<kAddTo>(&dxn[i], plane[i]);
        } else if (req != kNullOp) {
          AssignReq<kWriteTo>(&dxn[i], plane[i]);
        }
      }
    }
  }
}

/*!
 * \brief nChw16c (nChw8c) data is channels-last data of N*C/16 (N*C/8) samples with 16 (8)
 *  channels each: the same kernels serve it with this geometry.
 */
PoolGeo AsBlocks(PoolGeo g, int block) {
  SYMNET_CHECK(g.c % block == 0) << "blocked layout needs channels in multiples of " << block;
  g.n *= g.c / block;
  g.c = block;
  return g;
}

/*! \brief The channel block (8, 16) shared by every blob, or 0 when they are not all blocked alike.
 */
int CommonBlock(const std::vector<TBlob>& in, const std::vector<TBlob>& out) {
  const int b = in[0].channel_block();
  for (const auto* v : {&in, &out})
    for (const TBlob& t : *v)
      if (t.channel_block() != b) return 0;
  return b;
}

void PoolingCompute(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& given_in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& given_out) {
  if (req[0] == kNullOp) return;
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const std::vector<TBlob> in = PoolViews(p, given_in), out = PoolViews(p, given_out);
  const PoolGeo g = MakeGeo(p, in[0].shape_);
  const bool nhwc = in[0].channels_last() && out[0].channels_last();
  const int block = CommonBlock(in, out);
  SYMNET_FLOAT_TYPE_SWITCH(in[0].dtype_, T, {
    if (nhwc || block) {
      PoolForwardNHWC<T>(p, block ? AsBlocks(g, block) : g, in[0].dptr<T>(), out[0].dptr<T>(),
                         req[0]);
    } else {
      PoolForward<T>(p, g, in[0], out[0], req[0]);
    }
  });
}

/*! \brief Inputs (dy, x, y); output dx. */
void PoolingGradCompute(const NodeAttrs& attrs, const OpContext&,
                        const std::vector<TBlob>& given_in, const std::vector<OpReqType>& req,
                        const std::vector<TBlob>& given_out) {
  const PoolingParam& p = Param<PoolingParam>(attrs);
  const std::vector<TBlob> in = PoolViews(p, given_in), out = PoolViews(p, given_out);
  const PoolGeo g = MakeGeo(p, in[1].shape_);
  const bool nhwc = in[0].channels_last() && in[1].channels_last() && in[2].channels_last() &&
                    out[0].channels_last();
  const int block = CommonBlock(in, out);
  SYMNET_FLOAT_TYPE_SWITCH(in[1].dtype_, T, {
    if (nhwc || block) {
      PoolBackwardNHWC<T>(p, block ? AsBlocks(g, block) : g, in[0].dptr<T>(), in[1].dptr<T>(),
                          in[2].dptr<T>(), out[0].dptr<T>(), req[0]);
    } else {
      PoolBackward<T>(p, g, in[0], in[1], in[2], out[0], req[0]);
    }
  });
}

}  // namespace

SYMNET_REGISTER_OP(Pooling)
    .describe(
        "Pooling (max, avg, sum, or lp: (sum x^p)^(1/p) with p_value 1, 2 or 3) over the spatial "
        "dims of (N, C, ...) data, or of (N, ..., C) data with a channels-last layout.")
    .set_attr_parser(ParamParser<PoolingParam>)
    .add_arguments(ParamDocs<PoolingParam>())
    .add_argument("data", "NDArray-or-Symbol", "Input data (N, C, spatial...).")
    // named as MXNet's (a monitor with monitor_all reports "<node>_data")
    .set_attr<FListInputNames>("FListInputNames",
                               [](const NodeAttrs&) { return std::vector<std::string>{"data"}; })
    .set_attr<FInferShape>("FInferShape", PoolShape)
    .set_attr<FInferType>("FInferType", ElemwiseType)
    .set_attr<FLayoutSlots>("FLayoutSlots", PoolLayoutSlots)
    .set_attr<FGradient>("FGradient",
                         [](const NodePtr& n, const std::vector<NodeEntry>& ograds) {
                           return MakeGradNode("_backward_Pooling", n,
                                               {ograds[0], n->inputs[0], NodeEntry{n, 0, 0}},
                                               ParamsOf(n));
                         })
    .set_attr<FCompute>("FCompute<cpu>", PoolingCompute);

SYMNET_REGISTER_OP(_backward_Pooling)
    .set_num_inputs(3)
    .set_attr_parser(ParamParser<PoolingParam>)
    .add_arguments(ParamDocs<PoolingParam>())
    .set_attr<TIsBackward>("TIsBackward", true)
    .set_attr<FLayoutSlots>("FLayoutSlots", PoolLayoutSlots)
    .set_attr<FCompute>("FCompute<cpu>", PoolingGradCompute);

}  // namespace ops
}  // namespace symnet
