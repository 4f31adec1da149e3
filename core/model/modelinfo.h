#pragma once

#include <QString>

namespace attnscope {

// What a model list shows about a model, and what `attnscope models --json` prints.
struct ModelInfo
{
    QString name;         // what --model accepts: a built-in name, a cache id "org/name", or the folder path
    QString path;         // the model folder
    QString architecture; // model_type: "bert", "gpt2", "llama", "mistral", "qwen2"
    QString kind;         // "encoder" or "decoder"
    QString description;  // built-ins: attnscope.json "description"; else ""
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int hidden = 0;
    int vocabSize = 0;
    int maxPositions = 0;
    qint64 fileBytes = 0; // total size of the safetensors files
    bool builtin = false;
};

} // namespace attnscope
