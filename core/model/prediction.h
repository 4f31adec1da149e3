#pragma once

#include <QString>
#include <QVector>

namespace attnscope {

// One vocabulary entry the model's own output head scored.
struct PredictedToken
{
    int id = 0;
    QString text; // the vocabulary entry (e.g. "##ing", "Ġthe"); "#<id>" when the folder has no vocabulary
    QString decoded; // the tokenizer's decoding of the id alone ("ing", " the"); empty without a tokenizer
    float probability = 0;
};

// The top-k of the LM head at one position.
struct Prediction
{
    int position = 0; // encoder: the [MASK] position; decoder: the last position (predicting the next token)
    QVector<PredictedToken> top; // most probable first
};

// Why a forward pass has no predictions (RunOptions::predictTopK > 0 but nothing was scored).
enum class PredictionGap {
    None,           // predictions were scored
    NoMaskedLmHead, // a BERT checkpoint without cls.predictions.* (e.g. saved as BertModel)
    NoLmHead,       // a decoder without lm_head.weight and with untied embeddings
    NoMaskToken,    // an encoder input without [MASK]
};

// The one-line English message for a gap ("the input has no [MASK] token to predict"); "" for None.
QString predictionGapMessage(PredictionGap gap);

} // namespace attnscope
