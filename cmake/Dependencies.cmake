# Finds the libraries symnet builds on and collects them into the interface target symnet_deps.
find_package(OpenMP REQUIRED)
find_package(dmlc CONFIG REQUIRED)
find_package(dnnl CONFIG REQUIRED)
find_package(Boost 1.70 REQUIRED)
find_package(JPEG REQUIRED)

add_library(symnet_deps INTERFACE)
target_link_libraries(symnet_deps INTERFACE OpenMP::OpenMP_CXX dmlc::dmlc DNNL::dnnl Boost::boost
                      JPEG::JPEG)
if(SYMNET_NATIVE_ARCH)
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag("-march=native" SYMNET_HAS_MARCH_NATIVE)
  if(SYMNET_HAS_MARCH_NATIVE)
    target_compile_options(symnet_deps INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
  endif()
endif()
