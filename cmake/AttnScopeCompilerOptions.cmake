# Compiler settings shared by every AttnScope target, applied through attnscope_apply_options().
add_library(attnscope_options INTERFACE)
target_compile_features(attnscope_options INTERFACE cxx_std_17)
target_compile_definitions(attnscope_options INTERFACE
  QT_NO_CAST_FROM_ASCII QT_NO_CAST_TO_ASCII QT_NO_FOREACH QT_NO_URL_CAST_FROM_STRING
  QT_DISABLE_DEPRECATED_BEFORE=0x060400
  EIGEN_MPL2_ONLY)
if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang")
  # -Wshadow=local is GCC's spelling; clang (the fuzz preset) has no such option.
  target_compile_options(attnscope_options INTERFACE -Wall -Wextra -Wpedantic $<$<CXX_COMPILER_ID:GNU>:-Wshadow=local>
    -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual -Wno-unknown-pragmas
)
  # GCC 12's own AVX-512 intrinsics (_mm512_undefined_*, reached through Eigen) trip its uninitialized
  # warnings: GCC bug 105593, fixed in GCC 13.
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
    target_compile_options(attnscope_options INTERFACE -Wno-uninitialized -Wno-maybe-uninitialized)
  endif()
  if(ATTNSCOPE_WERROR)
    target_compile_options(attnscope_options INTERFACE -Werror)
  endif()
  # Debug info compressed (zlib) in every object, library and binary. Each of the ~110 test programs links the
  # static core and ui libraries, so the dev build held ~8 GB of mostly uncompressed DWARF (150 MB per ui test)
  # and the asan build as much again: CI's run of 2026-12-05 stopped with "No space left on device" while
  # linking the dev build. Compressed, a test program is ~2.6x smaller; gdb, addr2line, llvm-symbolizer and the
  # sanitizers' stack traces read the compressed sections as they are.
  include(CheckCXXCompilerFlag)
  check_cxx_compiler_flag(-gz ATTNSCOPE_HAS_COMPRESSED_DEBUG)
  if(ATTNSCOPE_HAS_COMPRESSED_DEBUG)
    target_compile_options(attnscope_options INTERFACE -gz)
    target_link_options(attnscope_options INTERFACE -gz)
  endif()
  if(ATTNSCOPE_NATIVE)
    check_cxx_compiler_flag(-march=native ATTNSCOPE_HAS_MARCH_NATIVE)
    if(ATTNSCOPE_HAS_MARCH_NATIVE)
      target_compile_options(attnscope_options INTERFACE -march=native)
    endif()
  endif()
  # ASan + UBSan, float-to-int conversions that overflow included (not part of "undefined"), and any
  # finding fatal: a sanitizer report fails the test that triggered it.
  set(ATTNSCOPE_SANITIZERS address,undefined,float-cast-overflow)
  if(ATTNSCOPE_BUILD_FUZZERS)
    if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
      message(FATAL_ERROR "ATTNSCOPE_BUILD_FUZZERS needs clang (libFuzzer); use the fuzz preset")
    endif()
    # The code under test is instrumented for coverage; the harnesses link libFuzzer's main (fuzz/).
    target_compile_options(attnscope_options INTERFACE -fsanitize=fuzzer-no-link,${ATTNSCOPE_SANITIZERS}
      -fno-omit-frame-pointer -fno-sanitize-recover=all)
    target_link_options(attnscope_options INTERFACE -fsanitize=${ATTNSCOPE_SANITIZERS})
  elseif(ATTNSCOPE_SANITIZE)
    target_compile_options(attnscope_options INTERFACE -fsanitize=${ATTNSCOPE_SANITIZERS} -fno-omit-frame-pointer
      -fno-sanitize-recover=all)
    target_link_options(attnscope_options INTERFACE -fsanitize=${ATTNSCOPE_SANITIZERS})
  endif()
elseif(MSVC)
  target_compile_options(attnscope_options INTERFACE /W4 /permissive- /utf-8 /bigobj)
  # MSVC has no -march=native; AVX2 is the closest. Without it: x64's SSE2 baseline (no run-time kernels).
  if(ATTNSCOPE_NATIVE)
    target_compile_options(attnscope_options INTERFACE /arch:AVX2)
  endif()
  if(ATTNSCOPE_WERROR)
    target_compile_options(attnscope_options INTERFACE /WX)
  endif()
endif()
