#include "model/postnormencoder.h"

#include "model/layerstep.h"

namespace attnscope {

void postNormEncoderBlock(LayerStep& s, const std::vector<float>& attentionOutput,
                          const PostNormEncoderTensors& t, double eps, Activation activation)
{
    s.addToResidual(attentionOutput);
    if (s.restOfLayerUnused()) return; // RunOptions::attentionOnly, the last layer
    s.residual() = s.layerNorm(s.residual(), t.attentionNormWeight, t.attentionNormBias, eps);
    const std::vector<float> inner = s.linear(s.residual(), t.innerWeight, t.innerBias, activation);
    s.addToResidual(s.linear(inner, t.outerWeight, t.outerBias));
    s.residual() = s.layerNorm(s.residual(), t.outputNormWeight, t.outputNormBias, eps);
}

} // namespace attnscope
