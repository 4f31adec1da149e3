#pragma once

#include "backend/attentionbackend.h"

#include <QString>
#include <memory>
#include <mutex>

namespace attnscope {

// The compute backend the explorer's real models run on, shared by the window (which creates it on the
// GUI thread, as GPU backends need) and the engines (which read it on worker threads). A worker keeps
// the backend it started with alive until its run ends, so switching never pulls it from under a run.
class ExplorerBackend
{
public:
    void set(std::shared_ptr<AttentionBackend> backend)
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        m_backend = std::move(backend);
    }
    // Null until set: the engines then compute on the CPU core directly.
    std::shared_ptr<AttentionBackend> current() const
    {
        std::lock_guard<std::mutex> lock(m_mutex);
        return m_backend;
    }

private:
    mutable std::mutex m_mutex;
    std::shared_ptr<AttentionBackend> m_backend;
};

} // namespace attnscope
