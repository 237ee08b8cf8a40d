# Sanitizer and fuzzing builds (issue 14): tools/run_sanitized.sh makes one (clang, -O0, no CUDA)
# and runs the C++ tests and the fuzz targets in it. Sanitizers instrument every C++ file of the
# build (library, tests, fuzz targets), never CUDA sources.
#   -DSYMNET_SANITIZE=address,undefined   ASan + UBSan; any report aborts the program
#   -DSYMNET_BUILD_FUZZERS=ON             libFuzzer targets under tests/fuzz (clang only)
set(SYMNET_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address,undefined (empty: none)")
option(SYMNET_BUILD_FUZZERS "Build the libFuzzer targets of tests/fuzz (needs clang)" OFF)

if(SYMNET_SANITIZE)
  # -fno-sanitize-recover: a UBSan finding fails the test instead of scrolling past in a log
  set(san_flags -fsanitize=${SYMNET_SANITIZE} -fno-sanitize-recover=all -fno-omit-frame-pointer)
  add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:${san_flags}>")
  add_link_options(-fsanitize=${SYMNET_SANITIZE})
  message(STATUS "symnet sanitizers: ${SYMNET_SANITIZE}")
endif()

if(SYMNET_BUILD_FUZZERS)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SYMNET_BUILD_FUZZERS needs clang (libFuzzer): "
                        "CXX=clang++ cmake -DSYMNET_BUILD_FUZZERS=ON ...")
  endif()
  if(NOT SYMNET_SANITIZE)
    message(FATAL_ERROR "SYMNET_BUILD_FUZZERS needs a sanitizer: -DSYMNET_SANITIZE=address,undefined")
  endif()
endif()

# Coverage feedback for libFuzzer from the library's src/ (the readers, the graph passes, the
# executor) besides the fuzz targets themselves. operators/ is left uninstrumented: it is half the
# build, and instrumenting it would double its compile time for little guidance.
function(symnet_fuzz_coverage)
  if(SYMNET_BUILD_FUZZERS)
    # (clang refuses a precompiled header made without the coverage flag)
    set_source_files_properties(${ARGN} PROPERTIES COMPILE_OPTIONS -fsanitize=fuzzer-no-link
                                SKIP_PRECOMPILE_HEADERS ON)
  endif()
endfunction()
