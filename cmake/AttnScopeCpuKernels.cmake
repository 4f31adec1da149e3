# The CPU kernels (core/kernels/cpukernelvariant.cpp), one build per instruction-set level; cpukernels.h
# explains the design. Included from core/CMakeLists.txt once attnscope_core exists.
#
#   attnscope_core           the baseline copy (plain x86-64; this CPU's code with ATTNSCOPE_NATIVE)
#   attnscope_cpu_avx2.so    -march=x86-64-v3  } modules in <build>/lib/attnscope and <prefix>/lib/attnscope,
#   attnscope_cpu_avx512.so  -march=x86-64-v4  } bin/../lib/attnscope from every executable in both
#
# Modules are built for x86-64 Linux with GCC or Clang, unless ATTNSCOPE_NATIVE is on (then the one
# built-in copy is already this CPU's best). Elsewhere the built-in copy is all there is.
set(ATTNSCOPE_CPU_KERNEL_SOURCE "${CMAKE_CURRENT_SOURCE_DIR}/kernels/cpukernelvariant.cpp")
set(ATTNSCOPE_CPU_KERNEL_MAP "${CMAKE_CURRENT_SOURCE_DIR}/kernels/cpukernelmodule.map")
set(ATTNSCOPE_CPU_KERNEL_DIR "lib/attnscope")

if(ATTNSCOPE_NATIVE)
  target_compile_definitions(attnscope_core PRIVATE ATTNSCOPE_CPU_KERNEL_VARIANT="native" ATTNSCOPE_CPU_KERNELS_NATIVE)
  return()
endif()
target_compile_definitions(attnscope_core PRIVATE ATTNSCOPE_CPU_KERNEL_VARIANT="baseline")

include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-march=x86-64-v4 ATTNSCOPE_HAS_MARCH_X86_64_V4)
if(NOT (CMAKE_SYSTEM_NAME STREQUAL "Linux" AND CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$"
        AND CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND ATTNSCOPE_HAS_MARCH_X86_64_V4))
  message(STATUS "AttnScope: CPU kernels for plain ${CMAKE_SYSTEM_PROCESSOR} only (no per-ISA modules here)")
  return()
endif()

set(variants)
foreach(pair "avx2;x86-64-v3" "avx512;x86-64-v4")
  list(GET pair 0 variant)
  list(GET pair 1 march)
  set(target attnscope_cpu_${variant})
  add_library(${target} MODULE ${ATTNSCOPE_CPU_KERNEL_SOURCE})
  target_include_directories(${target} PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
  target_link_libraries(${target} PRIVATE attnscope_options Eigen3::Eigen)
  target_compile_definitions(${target} PRIVATE ATTNSCOPE_CPU_KERNEL_MODULE ATTNSCOPE_CPU_KERNEL_VARIANT="${variant}")
  target_compile_options(${target} PRIVATE -march=${march})
  # Every symbol but the entry point local, resolved inside the module: see cpukernels.h.
  target_link_options(${target} PRIVATE "LINKER:--version-script=${ATTNSCOPE_CPU_KERNEL_MAP}" "LINKER:--no-undefined")
  set_target_properties(${target} PROPERTIES
    PREFIX ""
    AUTOMOC OFF
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    LINK_DEPENDS ${ATTNSCOPE_CPU_KERNEL_MAP}
    LIBRARY_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}/${ATTNSCOPE_CPU_KERNEL_DIR}")
  install(TARGETS ${target} LIBRARY DESTINATION ${ATTNSCOPE_CPU_KERNEL_DIR})
  # Whatever links attnscope_core may pick a module at run time: build them first.
  add_dependencies(attnscope_core ${target})
  list(APPEND variants ${variant})
endforeach()
string(REPLACE ";" "," variants "${variants}")
# Every executable (app/, tests/, bench/ in the build tree; bin/ installed) sits one folder below the root.
target_compile_definitions(attnscope_core PRIVATE ATTNSCOPE_CPU_KERNEL_MODULES="${variants}"
                                                  ATTNSCOPE_CPU_KERNEL_DIR="../${ATTNSCOPE_CPU_KERNEL_DIR}")
message(STATUS "AttnScope: CPU kernels baseline (built in) + ${variants} (modules, chosen at run time)")
