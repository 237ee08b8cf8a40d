# Finds the libraries symnet builds on and collects them into the interface target symnet_deps.
find_package(OpenMP REQUIRED)
find_package(dmlc CONFIG REQUIRED)
find_package(dnnl CONFIG REQUIRED)
find_package(Boost 1.70 REQUIRED)
find_package(JPEG REQUIRED)

add_library(symnet_deps INTERFACE)
target_link_libraries(symnet_deps INTERFACE OpenMP::OpenMP_CXX dmlc::dmlc DNNL::dnnl Boost::boost
                      JPEG::JPEG)
# No floating-point traps are ever enabled, so the compiler may compute both sides of a
# conditional and blend: without this GCC keeps branches in element loops (relu's gradient
# mispredicted every other element and ran 8x slower than with it).
target_compile_options(symnet_deps INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-fno-trapping-math>)
include(CheckCXXCompilerFlag)
if(SYMNET_NATIVE_ARCH)
  set(SYMNET_MARCH native)
elseif(CMAKE_SYSTEM_PROCESSOR MATCHES "x86_64|AMD64")
  set(SYMNET_MARCH ${SYMNET_CPU_BASELINE})
endif()
if(SYMNET_MARCH)
  string(MAKE_C_IDENTIFIER "SYMNET_HAS_MARCH_${SYMNET_MARCH}" has_march)  # cached per value
  check_cxx_compiler_flag("-march=${SYMNET_MARCH}" ${has_march})
  if(${has_march})
    target_compile_options(symnet_deps INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=${SYMNET_MARCH}>)
  else()
    message(WARNING "the compiler does not take -march=${SYMNET_MARCH}: building for its default CPU")
  endif()
  message(STATUS "symnet CPU target: -march=${SYMNET_MARCH}")
endif()
