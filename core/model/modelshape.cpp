#include "model/modelshape.h"

#include "model/modelconfig.h"
#include "model/modelinfo.h"

namespace attnscope {

void describeModelShape(const ModelConfig& config, ModelInfo& info)
{
    info.architecture = config.modelType;
    info.kind = config.isDecoder() ? QStringLiteral("decoder") : QStringLiteral("encoder");
    info.layers = config.layers;
    info.heads = config.heads;
    info.kvHeads = config.kvHeads;
    info.hidden = config.hidden;
    info.vocabSize = config.vocabSize;
    info.maxPositions = config.maxPositions;
    info.headDim = config.headDim;
}

} // namespace attnscope
