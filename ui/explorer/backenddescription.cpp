#include "explorer/backenddescription.h"

#include "backend/cpubackend.h"

namespace attnscope {

QString cpuBackendDescription()
{
    static const QString description = QStringLiteral("CPU · ") + CpuBackend().deviceName();
    return description;
}

} // namespace attnscope
