#pragma once

// A llama.cpp .gguf file presented as a Hugging Face model folder: its metadata as the config.json that
// the model was converted from, and its tensors under their Hugging Face names, undoing what llama.cpp's
// converter (convert_hf_to_gguf.py) did to them:
//
//   - llama: q_proj / k_proj rows (and biases) were permuted per head from rotate-half order (i, i + d/2)
//     to interleaved pairs (2i, 2i + 1) for llama.cpp's RoPE; read back, GGUF row h·d + 2i + j is HF row
//     h·d + j·d/2 + i.
//   - gpt2: Conv1D weights [in, out] were transposed to [out, in]; read back transposed.
//   - gemma: RMSNorm weights were stored as 1 + w; read back minus 1.
//
// Each supported architecture is one entry of a table in ggufmodel.cpp (its config keys, its tensor names,
// its quirks); an architecture that is not there is refused naming the ones that are.

#include "model/gguffile.h"

#include <QHash>
#include <QJsonObject>
#include <memory>
#include <vector>

namespace attnscope {

struct GgufVocabulary;

// How one Hugging Face tensor is read from the file.
struct GgufTensorMapping
{
    enum class Layout {
        AsStored,            // HF shape = ne reversed
        InterleavedRopeRows, // rows (or elements, for a bias) permuted per head as above
        Transposed,          // 2-D, HF [ne0, ne1]
    };
    QString hfName;
    std::vector<qint64> hfShape;
    const GgufTensor* source = nullptr;
    Layout layout = Layout::AsStored;
    int ropeHeads = 0;   // InterleavedRopeRows: heads the rows are grouped in
    float addend = 0.0f; // added to every value read (gemma norms: −1)
};

struct GgufModelDescription
{
    QString architecture; // general.architecture
    QJsonObject config;   // the equivalent config.json
    std::vector<GgufTensorMapping> tensors;
    // Every Hugging Face name looked for -> its GGUF name, found or not: messages about a tensor name the
    // one the file has (or lacks), not a name the user never saw.
    QHash<QString, QString> ggufNames;
};

// Throws ModelError "<file>: <problem>" for an architecture that is not supported, missing metadata or a
// tensor whose type AttnScope does not convert.
GgufModelDescription describeGgufModel(const GgufFile& file);
QStringList supportedGgufArchitectures();

// The tokenizer metadata (tokenizer.ggml.*), or nullopt-like empty model when the file has none.
GgufVocabulary readGgufVocabulary(const GgufFile& file);

} // namespace attnscope
