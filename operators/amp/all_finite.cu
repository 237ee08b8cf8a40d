/*!
 * \brief all_finite / multi_all_finite on a GPU. The flag stays on the device: a kernel lowers it
 *  to 0 where it meets inf or nan (every writer writes the same value), and the host reads it
 *  once per step, when it decides between skipping and updating.
 */
#include "all_finite.h"
#include "src/device/kernel_launch.cuh"

namespace symnet {
namespace ops {

namespace {

struct LowerFlagIfNotFinite {
  template <typename T>
  SYMNET_XINLINE static void Map(int64_t i, float* flag, const T* p) {
    if (!isfinite(static_cast<AccType<T>>(p[i]))) *flag = 0.0f;
  }
};

void LowerFlag(const TBlob& b, float* flag) {
  if (!IsFloatType(b.dtype_)) return;
  SYMNET_FLOAT_TYPE_SWITCH(
      b.dtype_, T, { Kernel<LowerFlagIfNotFinite, gpu>::Launch(b.Size(), flag, b.dptr<T>()); });
}

void Start(bool init, const TBlob& out) {
  if (init) cuda::Fill(out.dptr_, DType::kFloat32, 1, 1.0, out.dev_.id);
}

void AllFiniteGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                  const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  Start(Param<AllFiniteParam>(attrs).init_output, out[0]);
  LowerFlag(in[0], out[0].dptr<float>());
}

void MultiAllFiniteGPU(const NodeAttrs& attrs, const OpContext&, const std::vector<TBlob>& in,
                       const std::vector<OpReqType>&, const std::vector<TBlob>& out) {
  Start(Param<MultiAllFiniteParam>(attrs).init_output, out[0]);
  for (const auto& b : in) LowerFlag(b, out[0].dptr<float>());
}

}  // namespace

SYMNET_REGISTER_OP(all_finite).set_attr<FCompute>("FCompute<gpu>", AllFiniteGPU);
SYMNET_REGISTER_OP(multi_all_finite).set_attr<FCompute>("FCompute<gpu>", MultiAllFiniteGPU);

}  // namespace ops
}  // namespace symnet
