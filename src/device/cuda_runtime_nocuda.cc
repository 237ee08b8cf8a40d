/*! \brief CUDA queries in a build without CUDA: no GPUs. (Replaced by cuda_runtime.cu.) */
#include "symnet/runtime.h"

namespace symnet {

bool BuiltWithCUDA() { return false; }
int NumGPUs() { return 0; }

namespace cuda {
std::map<std::string, std::string> Versions() { return {}; }
bool SelfTest(int, std::string* why) {
  *why = "symnet was built without CUDA";
  return false;
}
}  // namespace cuda
}  // namespace symnet
