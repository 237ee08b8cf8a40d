# Resolves SYMNET_USE_CUDA (AUTO|ON|OFF) into SYMNET_CUDA_ENABLED and the target symnet_cuda_deps
# (cudart, cuBLAS, cuDNN). The CUDA toolkit lives in /usr/local/cuda on this project's machines.
set(SYMNET_CUDA_ENABLED OFF)
if(NOT SYMNET_USE_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    set(SYMNET_CUDA_ENABLED ON)
  elseif(SYMNET_USE_CUDA STREQUAL "ON")
    message(FATAL_ERROR "SYMNET_USE_CUDA=ON but no CUDA compiler (nvcc) was found")
  endif()
endif()

if(SYMNET_CUDA_ENABLED)
  set(CMAKE_CUDA_ARCHITECTURES ${SYMNET_CUDA_ARCHS})
  enable_language(CUDA)
  set(CMAKE_CUDA_STANDARD 17)
  # The host-side optimization of the .cu files (their kernel launch stubs and registrations),
  # e.g. -O1 where the build only has to prove that the CUDA path compiles and links (CI has no
  # GPU): about a fifth less nvcc time. Device code is optimized as always.
  set(SYMNET_CUDA_HOST_OPT "" CACHE STRING "host-code optimization flag of .cu files (default: the build type's)")
  if(SYMNET_CUDA_HOST_OPT)
    foreach(config RELEASE RELWITHDEBINFO MINSIZEREL)
      string(REGEX REPLACE "-O[0-9s]" "${SYMNET_CUDA_HOST_OPT}" CMAKE_CUDA_FLAGS_${config}
             "${CMAKE_CUDA_FLAGS_${config}}")
    endforeach()
  endif()
  find_package(CUDAToolkit REQUIRED)
  find_library(SYMNET_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib
               /usr/local/cuda/lib64 /usr/local/cuda/lib REQUIRED)
  find_path(SYMNET_CUDNN_INCLUDE cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
  add_library(symnet_cuda_deps INTERFACE)
  target_link_libraries(symnet_cuda_deps INTERFACE CUDA::cudart CUDA::cublas CUDA::cublasLt
                        ${SYMNET_CUDNN_LIBRARY})
  target_include_directories(symnet_cuda_deps INTERFACE ${SYMNET_CUDNN_INCLUDE})
  # NCCL (multi-GPU all-reduce) is optional: without it, multi-GPU training reports the reason
  find_library(SYMNET_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} /usr/local/cuda/lib64 /usr/local/cuda/lib)
  find_path(SYMNET_NCCL_INCLUDE nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} /usr/local/cuda/include)
  if(SYMNET_NCCL_LIBRARY AND SYMNET_NCCL_INCLUDE)
    target_link_libraries(symnet_cuda_deps INTERFACE ${SYMNET_NCCL_LIBRARY})
    target_include_directories(symnet_cuda_deps INTERFACE ${SYMNET_NCCL_INCLUDE})
    target_compile_definitions(symnet_cuda_deps INTERFACE SYMNET_HAVE_NCCL=1)
    message(STATUS "symnet: NCCL found (${SYMNET_NCCL_LIBRARY})")
  endif()
  message(STATUS "symnet: CUDA ${CUDAToolkit_VERSION} enabled for architectures ${SYMNET_CUDA_ARCHS}")
else()
  message(STATUS "symnet: CUDA disabled")
endif()
