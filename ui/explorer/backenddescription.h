#pragma once

#include <QString>

namespace attnscope {

// For the status bar: "CPU · <processor name>" (the explorer computes on the CPU core today; the GPU
// backends plug in through RunOptions::backend).
QString cpuBackendDescription();

} // namespace attnscope
