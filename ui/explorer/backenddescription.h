#pragma once

#include <QString>

namespace attnscope {

class AttentionBackend;

// For the status bar: "CPU · <processor name>" (the CPU core, for engines that do not take a backend).
QString cpuBackendDescription();
// "Vulkan · llvmpipe (LLVM 15.0.6, 256 bits)", "OpenGL · ...", "CPU · <processor name>": the
// implementation in use now (a GPU backend that failed mid-way reports the CPU).
QString backendDescription(const AttentionBackend& backend);
// What the head scan says when a GPU backend is chosen: "on the CPU: the head scan does not use Vulkan · ..."
// (the scan's batched passes run on the CPU core); empty for the CPU or no backend.
QString scanBackendNote(const AttentionBackend* chosen);

} // namespace attnscope
