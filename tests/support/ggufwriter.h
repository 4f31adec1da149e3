#pragma once

// Test-only: writes GGUF files (v2/v3) so the reader can be tested on files made here, and quantizes floats
// into ggml's block formats with simple (not llama.cpp's optimising) choices of scales.

#include "model/ggmlquants.h"
#include "model/safetensorswriter.h"

#include <QByteArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace attnscope::testing {

class GgufWriter
{
public:
    explicit GgufWriter(std::uint32_t version = 3) : m_version(version) {}

    void addString(const QString& key, const QString& value);
    void addU32(const QString& key, std::uint32_t value);
    void addI32(const QString& key, std::int32_t value);
    void addU64(const QString& key, std::uint64_t value);
    void addF32(const QString& key, float value);
    void addBool(const QString& key, bool value);
    void addStringArray(const QString& key, const QStringList& values);
    void addF32Array(const QString& key, const std::vector<float>& values);
    void addI32Array(const QString& key, const std::vector<std::int32_t>& values);
    // A key with a raw value type and encoded bytes, for damaged files.
    void addRaw(const QString& key, std::uint32_t valueType, const QByteArray& encodedValue);

    // ne in ggml order (ne[0] = row length); data already encoded in `type`.
    void addTensor(const QString& name, const std::vector<std::int64_t>& ne, std::uint32_t type,
                   const QByteArray& data);
    // A PyTorch-shaped fp32 tensor ([rows, cols] or [n]) stored as `type` (quantized row by row).
    void addFloatTensor(const QString& name, const std::vector<qint64>& torchShape,
                        const std::vector<float>& values, GgmlType type);

    QByteArray build(std::uint32_t alignment = 32) const;
    void write(const QString& path, std::uint32_t alignment = 32) const; // qFatal on failure (test helper)

    static QByteArray encodeString(const QString& s);

private:
    struct Tensor
    {
        QString name;
        std::vector<std::int64_t> ne;
        std::uint32_t type;
        QByteArray data;
    };
    std::uint32_t m_version;
    QByteArray m_kv;
    std::uint64_t m_kvCount = 0;
    std::vector<Tensor> m_tensors;
};

// `count` floats (a multiple of the type's block) in ggml's layout for `type`.
QByteArray quantize(GgmlType type, const float* values, std::int64_t count);

// fp32 values of a safetensors tensor (F32/F16/BF16).
std::vector<float> floatsOf(const TensorToWrite& tensor);

// tokenizer.ggml.* from a byte-level BPE tokenizer.json, as llama.cpp's _set_vocab_gpt2 writes them: tokens,
// token types (3 for special added tokens, 4 for the other added ones), merges, and `pre`.
void addGpt2Vocabulary(GgufWriter& w, const QJsonObject& tokenizerJson, const QString& pre);

// A GGUF file of a Hugging Face Llama or GPT-2 folder (config.json, model.safetensors, tokenizer.json), as
// llama.cpp's convert_hf_to_gguf.py makes it: llama's q_proj/k_proj rows permuted for its RoPE, GPT-2's
// Conv1D weights transposed; 2-D tensors stored as `type`, vectors as F32.
void writeGgufFromFolder(const QString& folder, const QString& path, GgmlType type);

// The small random Llama of the K-quant tests, rows of 256 and more so that every K-quant applies: 2 layers,
// hidden 256, 4 query heads and 2 key/value heads of 64, MLP 512, vocabulary 64. Its llama.* metadata goes to
// `metadata` (a GgufWriter, or anything with its addU32 and addF32); its tensors, llama.cpp's names in
// GGUF's [rows, cols] order, to matrix(name, rows, cols, scale) (normal values times scale) and norm(name, n)
// (ones), in a fixed order, so that a seeded generator gives the same model each time.
struct SmallLlamaShape
{
    int layers = 2, hidden = 256, heads = 4, kvHeads = 2, headDim = 64, inner = 512, vocab = 64;
};
template <class Metadata, class Matrix, class Norm>
void writeSmallLlama(Metadata& metadata, Matrix matrix, Norm norm, const SmallLlamaShape& s = {})
{
    metadata.addU32(QStringLiteral("llama.block_count"), std::uint32_t(s.layers));
    metadata.addU32(QStringLiteral("llama.context_length"), 128);
    metadata.addU32(QStringLiteral("llama.embedding_length"), std::uint32_t(s.hidden));
    metadata.addU32(QStringLiteral("llama.feed_forward_length"), std::uint32_t(s.inner));
    metadata.addU32(QStringLiteral("llama.attention.head_count"), std::uint32_t(s.heads));
    metadata.addU32(QStringLiteral("llama.attention.head_count_kv"), std::uint32_t(s.kvHeads));
    metadata.addF32(QStringLiteral("llama.rope.freq_base"), 10000.0f);
    metadata.addF32(QStringLiteral("llama.attention.layer_norm_rms_epsilon"), 1e-5f);
    matrix(QStringLiteral("token_embd.weight"), s.vocab, s.hidden, 1.0f);
    norm(QStringLiteral("output_norm.weight"), s.hidden);
    const int q = s.heads * s.headDim, kv = s.kvHeads * s.headDim;
    for (int l = 0; l < s.layers; ++l) {
        auto name = [&](const char* rest) { return QStringLiteral("blk.%1.").arg(l) + QLatin1String(rest); };
        norm(name("attn_norm.weight"), s.hidden);
        norm(name("ffn_norm.weight"), s.hidden);
        matrix(name("attn_q.weight"), q, s.hidden, 0.08f);
        matrix(name("attn_k.weight"), kv, s.hidden, 0.08f);
        matrix(name("attn_v.weight"), kv, s.hidden, 0.06f);
        matrix(name("attn_output.weight"), s.hidden, q, 0.06f);
        matrix(name("ffn_gate.weight"), s.inner, s.hidden, 0.06f);
        matrix(name("ffn_up.weight"), s.inner, s.hidden, 0.06f);
        matrix(name("ffn_down.weight"), s.hidden, s.inner, 0.04f);
    }
}

} // namespace attnscope::testing
