#pragma once

#include <atomic>
#include <stdexcept>

namespace attnscope {

// Thrown by long computations when the caller's cancel flag turns true; not an error to report.
class OperationCancelled : public std::runtime_error
{
public:
    OperationCancelled() : std::runtime_error("operation cancelled") {}
};

inline void throwIfCancelled(const std::atomic<bool>* cancel)
{
    if (cancel && cancel->load(std::memory_order_relaxed)) throw OperationCancelled();
}

} // namespace attnscope
