// libFuzzer harness: .npy bytes through parseNpy (magic, version, header dict, shape, data length).
// A bad file must give NpyError, nothing else.

#include "io/npy.h"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope;
    try {
        const NpyArray array = parseNpy(QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)),
                                        QStringLiteral("fuzz.npy"));
        (void)array.toFloat();
    } catch (const NpyError&) {
    }
    return 0;
}
