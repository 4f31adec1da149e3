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

} // namespace attnscope
