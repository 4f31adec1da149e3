#pragma once

// The block after attention that the post-LN encoders share (BERT, RoBERTa, XLM-R, DistilBERT; transformers'
// BertSelfOutput + BertIntermediate + BertOutput): with a = W_O's output,
//   x = LN_attention(x + a);  x = LN_output(x + W_2 · act(W_1 · x + b_1) + b_2)
// Each family names the tensors.

#include "model/activation.h"

#include <QString>
#include <vector>

namespace attnscope {

class LayerStep;

struct PostNormEncoderTensors
{
    QString attentionNormWeight, attentionNormBias; // LN_attention
    QString innerWeight, innerBias;                 // W_1, b_1 [intermediate, hidden]
    QString outerWeight, outerBias;                 // W_2, b_2 [hidden, intermediate]
    QString outputNormWeight, outputNormBias;       // LN_output
};

// Adds `attentionOutput` to the stream and, unless the rest of the layer is unused
// (LayerStep::restOfLayerUnused), runs the block above on it.
void postNormEncoderBlock(LayerStep& s, const std::vector<float>& attentionOutput,
                          const PostNormEncoderTensors& t, double eps, Activation activation);

} // namespace attnscope
