/*!
 * \brief Element-wise kernels (unary, binary, with scalar, unary gradient) and their FComputes,
 *  templated on the device: the .cc files register FCompute<cpu> with xpu = cpu, the .cu files
 *  FCompute<gpu> with xpu = gpu, from the same code.
 */
#ifndef SYMNET_OPERATORS_TENSOR_ELEMWISE_KERNELS_H_
#define SYMNET_OPERATORS_TENSOR_ELEMWISE_KERNELS_H_

#include <vector>

#include "../math_functors.h"
#include "../numeric_type_switch.h"
#include "../operator_common.h"
#include "src/device/kernel_launch.h"

namespace symnet {
namespace ops {

template <typename OP, int req>
struct UnaryKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* in) {
    AssignReq<req>(&out[i], OP::Map(static_cast<MathType<OP, T>>(in[i])));
  }
};

template <typename OP, int req>
struct BinaryKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* a, const T* b) {
    using A = MathType<OP, T>;
    AssignReq<req>(&out[i], OP::Map(static_cast<A>(a[i]), static_cast<A>(b[i])));
  }
};

template <typename OP, int req>
struct ScalarKernel {
  template <typename T, typename A>
  SYMNET_XINLINE static void Map(int64_t i, T* out, const T* a, A s) {
    AssignReq<req>(&out[i], OP::Map(static_cast<A>(a[i]), s));
  }
};

/*! \brief igrad = ograd * GRAD(x) where x is the forward input or output the gradient needs. */
template <typename GRAD, int req>
struct UnaryGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* igrad, const T* ograd, const T* x) {
    using A = AccType<T>;
    AssignReq<req>(&igrad[i], static_cast<A>(ograd[i]) * GRAD::Map(static_cast<A>(x[i])));
  }
};

/*! \brief FCompute for y = OP(x) on the float and integer dtypes (integers: MathType). */
template <typename OP, typename xpu = cpu>
void UnaryCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<UnaryKernel<OP, Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>());
    });
  });
}

/*! \brief FCompute for y = OP(a, b), same shapes, any float or integer dtype. */
template <typename OP, typename xpu = cpu>
void BinaryCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                   const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<BinaryKernel<OP, Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(), in[0].dptr<T>(),
                                                 in[1].dptr<T>());
    });
  });
}

/*! \brief FCompute for dx = dy * GRAD(in[1]) with inputs (dy, x-or-y). */
template <typename GRAD, typename xpu = cpu>
void UnaryGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                      const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  SYMNET_FLOAT_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(req[0], Req, {
      Kernel<UnaryGradKernel<GRAD, Req>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(),
                                                      in[0].dptr<T>(), in[1].dptr<T>());
    });
  });
}

/*! \brief (da, db) = (dy * df/da, dy * df/db) for f = OP with partials GRAD. Inputs (dy, a, b). */
template <typename GRAD, int req_a, int req_b>
struct BinaryGradKernel {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, T* ga, T* gb, const T* dy, const T* a, const T* b) {
    using A = MathType<GRAD, T>;
    const A g = static_cast<A>(dy[i]), x = static_cast<A>(a[i]), y = static_cast<A>(b[i]);
    AssignReq<req_a>(&ga[i], g * GRAD::Left(x, y));
    AssignReq<req_b>(&gb[i], g * GRAD::Right(x, y));
  }
};

/*! \brief Integers too (MathType: mod's gradient is 0 on them, as MXNet's). */
template <typename GRAD, typename xpu = cpu>
void BinaryGradCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>& req, const std::vector<TBlob>& out) {
  // a null request on one side still computes the other into its (planned) buffer
  auto r = [](OpReqType q) { return q == kNullOp ? kWriteTo : q; };
  SYMNET_NUMERIC_TYPE_SWITCH(out[0].dtype_, T, {
    SYMNET_REQ_SWITCH(r(req[0]), RA, {
      SYMNET_REQ_SWITCH(r(req[1]), RB, {
        Kernel<BinaryGradKernel<GRAD, RA, RB>, xpu>::Launch(out[0].Size(), out[0].dptr<T>(),
                                                            out[1].dptr<T>(), in[0].dptr<T>(),
                                                            in[1].dptr<T>(), in[2].dptr<T>());
      });
    });
  });
}

/*! \brief Copies (or accumulates) in into out; a no-op when written in place. Any device. */
void CopyCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                 const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

/*! \brief out = in converted to out's dtype (written or accumulated per req); in place is fine.
 *  Any device. */
void ConvertBlob(const TBlob& in, const TBlob& out, OpReqType req);
/*! \brief FInferType of a cast's gradient: its output dtype is set from the forward input. */
inline bool OutputTypeKnown(const NodeAttrs&, std::vector<DType>*, std::vector<DType>* out) {
  return (*out)[0] != DType::kUnknown;
}
/*! \brief FCompute converting each input i into output i (Cast, amp_cast and their gradients). */
void ConvertCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                    const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

/*! \brief Sets every byte of the blob to zero, on its device (a GPU's on its stream). */
void ZeroBlob(const TBlob& b);
/*! \brief Writes zeros to out[i] for every output (kAddTo leaves it as is). Any device. */
void ZerosCompute(const NodeAttrs&, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>& req, const std::vector<TBlob>& out);

}  // namespace ops
}  // namespace symnet

#endif  // SYMNET_OPERATORS_TENSOR_ELEMWISE_KERNELS_H_
