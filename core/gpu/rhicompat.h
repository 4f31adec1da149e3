#pragma once

// QRhi across Qt versions. Qt 6.4/6.5 ship it as private API (QtGui/private/qrhi_p.h, target
// Qt6::GuiPrivate); Qt 6.6 made it public as <rhi/qrhi.h>. What changed for compute:
//   - the buffer readback result type (QRhiBufferReadbackResult -> QRhiReadbackResult);
//   - buffer sizes and offsets (int -> quint32).
// Everything else used here (compute pipelines and passes, dispatch, offscreen frames, init params,
// QShader::fromSerialized) is the same. Include this header only from core/ .cpp files: it needs
// the private include paths, which core links PRIVATE.

#include <QtGlobal>

#if QT_VERSION >= QT_VERSION_CHECK(6, 6, 0)
#include <rhi/qrhi.h>
#include <rhi/qshader.h>
#else
#include <QtGui/private/qrhi_p.h>
#include <QtGui/private/qrhigles2_p.h>
#include <QtGui/private/qshader_p.h>
#if QT_CONFIG(vulkan)
#include <QtGui/private/qrhivulkan_p.h>
#endif
#endif

#if QT_CONFIG(vulkan)
#include <QVulkanInstance>
#endif

namespace attnscope::rhicompat {

#if QT_VERSION >= QT_VERSION_CHECK(6, 6, 0)
using BufferReadback = QRhiReadbackResult;
using BufferSize = quint32;
#else
using BufferReadback = QRhiBufferReadbackResult;
using BufferSize = int;
#endif

inline BufferSize bufferSize(size_t bytes)
{
    return static_cast<BufferSize>(bytes);
}

} // namespace attnscope::rhicompat
