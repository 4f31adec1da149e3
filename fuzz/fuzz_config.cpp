// libFuzzer harness: config.json bytes through ModelConfig::fromJsonBytes (types, limits, domains such as
// rope_theta > 0) in the family unit of its model_type (core/model/families/). A bad config must give
// ModelError, nothing else; a good one must be self-consistent.

#include "model/modelconfig.h"
#include "model/modelerror.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope;
    try {
        const ModelConfig c = ModelConfig::fromJsonBytes(
            QByteArray(reinterpret_cast<const char*>(data), qsizetype(size)), QStringLiteral("config.json"));
        // What the runtime relies on once a config is accepted.
        const bool sane = c.layers >= 1 && c.layers <= kMaxLayers && c.heads >= 1 && c.kvHeads >= 1 &&
                          c.heads % c.kvHeads == 0 && c.headDim >= 1 && c.hidden >= 1 && c.vocabSize >= 1 &&
                          c.maxPositions >= 1 && c.normEps >= 0 && c.ropeTheta >= 0 &&
                          std::isfinite(c.ropeTheta) && c.architecture != nullptr;
        if (!sane) std::abort();
    } catch (const ModelError&) {
    }
    return 0;
}
