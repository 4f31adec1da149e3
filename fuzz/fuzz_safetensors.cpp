// libFuzzer harness: a whole .safetensors file (u64 header length, JSON header, data) through the header
// rules (parseSafetensorsHeader: lengths, duplicate keys, dtypes, shapes, offsets, holes), then every float
// tensor converted to fp32 the way the model loader reads it. A bad file must give ModelError, nothing else.

#include "model/modelerror.h"
#include "model/safetensorsfile.h"

#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope;
    try {
        const SafetensorsHeader header =
            parseSafetensorsHeader(data, qint64(size), QStringLiteral("fuzz.safetensors"));
        for (const TensorInfo& tensor : header.tensors) {
            std::vector<float> values(size_t(tensor.elementCount()));
            convertTensorRange(tensor, data + header.dataStart, 0, tensor.elementCount(), values.data());
        }
    } catch (const ModelError&) {
    }
    return 0;
}
