#pragma once

// What the model picker says about a model before it is loaded: its parameter count and the memory a pass
// needs (model/memoryestimate.h), and the refusal when that does not fit, in the user's language.

#include "model/memoryestimate.h"
#include "model/modelinfo.h"

#include <QString>
#include <optional>

namespace attnscope {

// "1.24 B parameters · needs ≈ 3.41 GB at 512 tokens"; "" when the headers could not be read.
QString modelDetailsText(const ModelInfo& info);
// "" when it fits (or MemAvailable is unknown); else one line with the numbers.
QString memoryRefusalText(const ModelInfo& info, std::optional<qint64> available);

} // namespace attnscope
