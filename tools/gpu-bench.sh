#!/usr/bin/env bash
# GPU attention benchmark for a machine with a real GPU, in well under 5 minutes: builds bench_gpu in
# release (only that target) if needed, then prints JSON lines, one per (impl, backend, n, causal):
#   {"impl":"tiled","backend":"vulkan","device":"NVIDIA H200",...,"n":8192,"heads":12,"head_dim":64,
#    "causal":false,"seconds":0.0123,"gflops":...,"extra_memory_mib":...}
# The CPU core runs in the same process for the comparison. Usage: tools/gpu-bench.sh [extra bench_gpu args]
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=build/release
if [ ! -x "$BUILD/bench/bench_gpu" ]; then
  cmake --preset release -DATTNSCOPE_BUILD_BENCH=ON >/dev/null
  cmake --build "$BUILD" --target bench_gpu -j "$(nproc 2>/dev/null || echo 4)" >&2
fi

ARGS=(--json --n 1024,2048,4096,8192 --reps 5 --backends cpu,vulkan,opengl --overview-max 8192 "$@")
# The GPU backends need a Qt platform plugin: the display when there is one, else a virtual X server,
# else Vulkan straight on the display hardware (no OpenGL there).
if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec timeout 270 "$BUILD/bench/bench_gpu" "${ARGS[@]}"
elif command -v xvfb-run >/dev/null; then
  exec timeout 270 xvfb-run -a "$BUILD/bench/bench_gpu" "${ARGS[@]}"
else
  QT_QPA_PLATFORM=vkkhrdisplay exec timeout 270 "$BUILD/bench/bench_gpu" "${ARGS[@]}"
fi
