#include "gpu/rhidevice.h"

#include "gpu/rhicompat.h"

#include <QCoreApplication>
#include <QGuiApplication>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QThread>
#include <exception>

namespace attnscope {

struct RhiDevice::State
{
    QThread thread;
    std::unique_ptr<QObject> context; // lives on `thread`: jobs are queued to it
    std::unique_ptr<QOffscreenSurface> surface;
    QRhi* rhi = nullptr;
};

#if QT_CONFIG(vulkan)
namespace {

// One Vulkan instance for the whole process, made on first use and kept: with one instance per
// device, destroying a second instance broke the device functions of the first (seen on Qt 6.4 with
// lavapipe). Null with *error when Vulkan cannot start here; the attempt is not repeated.
QVulkanInstance* sharedVulkanInstance(QString* error)
{
    static QVulkanInstance* instance = nullptr;
    static QString failure;
    static bool tried = false;
    if (!tried) {
        tried = true;
        auto* candidate = new QVulkanInstance;
        candidate->setExtensions(QRhiVulkanInitParams::preferredInstanceExtensions());
        // create() returns false with errorCode() 0 when the platform plugin has no Vulkan (offscreen):
        // the result is what counts.
        if (candidate->create()) {
            instance = candidate;
        } else {
            failure = QStringLiteral("no Vulkan instance (Vulkan loader or driver missing, or the platform "
                                     "plugin has no Vulkan; VkResult %1)")
                          .arg(int(candidate->errorCode()));
            delete candidate;
        }
    }
    if (!instance && error) *error = failure;
    return instance;
}

} // namespace
#endif

RhiDevice::RhiDevice(RhiApi api) : m_api(api), m_state(std::make_unique<State>()) {}

std::unique_ptr<RhiDevice> RhiDevice::create(RhiApi api, QString* error)
{
    auto fail = [error](const QString& why) {
        if (error) *error = why;
        return std::unique_ptr<RhiDevice>();
    };
    if (!qobject_cast<QGuiApplication*>(QCoreApplication::instance()))
        return fail(QStringLiteral("the GPU needs a QGuiApplication (a platform plugin)"));
    if (qEnvironmentVariable("ATTNSCOPE_GPU_FAULT") == QLatin1String("start"))
        return fail(QStringLiteral("start failure injected by ATTNSCOPE_GPU_FAULT"));

    std::unique_ptr<RhiDevice> device(new RhiDevice(api));
    State& state = *device->m_state;
    QRhiInitParams* params = nullptr;
#if QT_CONFIG(vulkan)
    QRhiVulkanInitParams vulkanParams;
#endif
    QRhiGles2InitParams glParams;
    QRhi::Implementation implementation = QRhi::Vulkan;

    if (api == RhiApi::Vulkan) {
#if QT_CONFIG(vulkan)
        if (QThread::currentThread() != QCoreApplication::instance()->thread())
            return fail(QStringLiteral("the Vulkan backend must be created on the GUI thread"));
        QString instanceError;
        vulkanParams.inst = sharedVulkanInstance(&instanceError);
        if (!vulkanParams.inst) return fail(instanceError);
        params = &vulkanParams;
#else
        return fail(QStringLiteral("this Qt was built without Vulkan"));
#endif
    } else {
        if (QThread::currentThread() != QCoreApplication::instance()->thread())
            return fail(QStringLiteral("the OpenGL backend must be created on the GUI thread"));
        // Compute needs OpenGL 4.3 or ES 3.1: without asking, QRhi may get a 2.0 context and no compute.
        QSurfaceFormat format;
        if (QOpenGLContext::openGLModuleType() == QOpenGLContext::LibGLES) {
            format.setRenderableType(QSurfaceFormat::OpenGLES);
            format.setVersion(3, 1);
        } else {
            format.setVersion(4, 3);
            format.setProfile(QSurfaceFormat::CoreProfile);
        }
        state.surface.reset(QRhiGles2InitParams::newFallbackSurface(format));
        if (!state.surface || !state.surface->isValid())
            return fail(QStringLiteral("no OpenGL offscreen surface"));
        glParams.format = format;
        glParams.fallbackSurface = state.surface.get();
        params = &glParams;
        implementation = QRhi::OpenGLES2;
    }

    state.thread.setObjectName(QStringLiteral("attnscope-gpu"));
    state.thread.start();
    state.context = std::make_unique<QObject>();
    state.context->moveToThread(&state.thread);

    QString createError;
    QMetaObject::invokeMethod(
        state.context.get(),
        [&] {
            state.rhi = QRhi::create(implementation, params);
            if (!state.rhi) {
                createError = QStringLiteral("QRhi::create failed");
                return;
            }
            if (!state.rhi->isFeatureSupported(QRhi::Compute)) {
                createError = QStringLiteral("the device has no compute shader support");
                delete state.rhi;
                state.rhi = nullptr;
                return;
            }
            const QRhiDriverInfo info = state.rhi->driverInfo();
            device->m_deviceName = QString::fromUtf8(info.deviceName);
            const QString lower = device->m_deviceName.toLower();
            if (info.deviceType == QRhiDriverInfo::CpuDevice || lower.contains(QLatin1String("llvmpipe")) ||
                lower.contains(QLatin1String("lavapipe")) || lower.contains(QLatin1String("softpipe")))
                device->m_loopIterationLimit = 60000; // gallivm's LP_MAX_TGSI_LOOP_ITERATIONS is 65535
        },
        Qt::BlockingQueuedConnection);
    if (!state.rhi) return fail(createError);
    return device;
}

RhiDevice::~RhiDevice()
{
    State& state = *m_state;
    if (state.thread.isRunning()) {
        if (state.rhi)
            QMetaObject::invokeMethod(
                state.context.get(),
                [&] {
                    delete state.rhi;
                    state.rhi = nullptr;
                },
                Qt::BlockingQueuedConnection);
        state.thread.quit();
        state.thread.wait();
    }
    // The context object belonged to the device thread, which has finished: nothing can reach it now.
    state.context.reset();
    // The surface outlives the QRhi that used it.
    state.surface.reset();
}

void RhiDevice::run(const std::function<void(QRhi&)>& job)
{
    State& state = *m_state;
    std::exception_ptr failure;
    auto body = [&] {
        try {
            if (!state.rhi) throw GpuError("the GPU device is gone");
            job(*state.rhi);
        } catch (...) {
            failure = std::current_exception();
        }
    };
    if (QThread::currentThread() == &state.thread)
        body();
    else
        QMetaObject::invokeMethod(state.context.get(), body, Qt::BlockingQueuedConnection);
    if (failure) std::rethrow_exception(failure);
}

} // namespace attnscope
