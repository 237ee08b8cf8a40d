/*! \brief CUDA graph capture and replay of a device's stream (executor steps). */
#include "cuda_common.h"

namespace symnet {
namespace cuda {

void BeginCapture(int dev) {
  SetDevice(dev);
  SYMNET_CUDA_CALL(cudaStreamBeginCapture(Resources(dev).stream, cudaStreamCaptureModeThreadLocal));
}

void* EndCapture(int dev) {
  cudaGraph_t graph = nullptr;
  cudaError_t e = cudaStreamEndCapture(Resources(dev).stream, &graph);
  cudaGraphExec_t exec = nullptr;
  if (e == cudaSuccess && graph != nullptr) e = cudaGraphInstantiate(&exec, graph, 0);
  if (graph != nullptr) cudaGraphDestroy(graph);
  if (e != cudaSuccess) {
    cudaGetLastError();  // a failed capture leaves a sticky error otherwise
    return nullptr;
  }
  return exec;
}

void LaunchGraph(int dev, void* graph) {
  SetDevice(dev);
  SYMNET_CUDA_CALL(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), Resources(dev).stream));
}

void DestroyGraph(void* graph) noexcept {
  if (graph != nullptr) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
}

}  // namespace cuda
}  // namespace symnet
