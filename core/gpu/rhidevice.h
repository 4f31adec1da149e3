#pragma once

// A QRhi living on a thread of its own, so that GPU work never runs on (or blocks) the GUI thread.
//
// Created on the GUI thread: the Vulkan instance and, for OpenGL, the fallback QOffscreenSurface need
// the platform plugin there. The QRhi itself is created, used and destroyed on the device thread;
// run() hands it a job and waits for the result.

#include <QString>
#include <functional>
#include <memory>
#include <stdexcept>

QT_BEGIN_NAMESPACE
class QRhi;
QT_END_NAMESPACE

namespace attnscope {

enum class RhiApi { Vulkan, OpenGL };

// A GPU operation that did not complete: the caller falls back to the CPU.
class GpuError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

class RhiDevice
{
public:
    // Null with *error set when the API cannot start here (no QGuiApplication, no Vulkan loader or
    // device, no OpenGL 4.3 / ES 3.1 context, no compute support). Call on the GUI thread.
    static std::unique_ptr<RhiDevice> create(RhiApi api, QString* error);
    ~RhiDevice();

    RhiApi api() const { return m_api; }
    QString deviceName() const { return m_deviceName; }
    // Most loop iterations one shader invocation may run, 0 = no limit. Mesa's software rasterisers
    // (llvmpipe, lavapipe) end an invocation silently after 65535 iterations of all its loops together.
    int loopIterationLimit() const { return m_loopIterationLimit; }

    // Runs job(rhi) on the device thread and waits; an exception thrown by the job is rethrown here.
    void run(const std::function<void(QRhi&)>& job);

    struct State;

private:
    explicit RhiDevice(RhiApi api);
    RhiApi m_api;
    QString m_deviceName;
    int m_loopIterationLimit = 0;
    std::unique_ptr<State> m_state;
};

} // namespace attnscope
