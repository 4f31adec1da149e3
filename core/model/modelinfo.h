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
    QString paragraphs;   // attnscope.json "paragraphs": "eos", "space" or "" (generation/paragraphinput.h)
    int layers = 0;
    int heads = 0;
    int kvHeads = 0;
    int hidden = 0;
    int vocabSize = 0;
    int maxPositions = 0;
    int headDim = 0;      // per head (hidden / heads unless config.json says otherwise)
    int intermediate = 0; // the MLP's width (intermediate_size, n_inner, ...; 4 × hidden when unsaid)
    qint64 fileBytes = 0; // total size of the safetensors files
    // From the weight files' headers (memoryestimate.h), without reading the weights; 0 when unreadable.
    qint64 parameters = 0;
    qint64 weightBytes = 0;           // the float tensors' bytes as stored
    qint64 largestTensorElements = 0; // the largest tensor converted whole (vocabulary tables go by rows)
    bool storedAsF32 = true;
    bool builtin = false;
};

} // namespace attnscope
