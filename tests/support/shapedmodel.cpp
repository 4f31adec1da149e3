#include "support/shapedmodel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>
#include <utility>
#include <vector>

namespace attnscope::testing {

bool writeShapedLlama(const QString& folder, const LlamaShape& s)
{
    if (!QDir().mkpath(folder)) return false;
    const int headDim = s.hidden / s.heads;
    const QJsonObject config{
        {QStringLiteral("architectures"), QJsonArray{QStringLiteral("LlamaForCausalLM")}},
        {QStringLiteral("model_type"), QStringLiteral("llama")},
        {QStringLiteral("vocab_size"), s.vocab},
        {QStringLiteral("hidden_size"), s.hidden},
        {QStringLiteral("intermediate_size"), s.intermediate},
        {QStringLiteral("num_hidden_layers"), s.layers},
        {QStringLiteral("num_attention_heads"), s.heads},
        {QStringLiteral("num_key_value_heads"), s.kvHeads},
        {QStringLiteral("head_dim"), headDim},
        {QStringLiteral("hidden_act"), QStringLiteral("silu")},
        {QStringLiteral("max_position_embeddings"), s.maxPositions},
        {QStringLiteral("rms_norm_eps"), 1e-5},
        {QStringLiteral("rope_theta"), 500000.0},
        {QStringLiteral("rope_scaling"),
         QJsonObject{{QStringLiteral("rope_type"), QStringLiteral("llama3")},
                     {QStringLiteral("factor"), 32.0},
                     {QStringLiteral("low_freq_factor"), 1.0},
                     {QStringLiteral("high_freq_factor"), 4.0},
                     {QStringLiteral("original_max_position_embeddings"), 8192}}},
        {QStringLiteral("tie_word_embeddings"), s.tied},
        {QStringLiteral("torch_dtype"), QStringLiteral("bfloat16")},
    };
    QFile configFile(folder + QStringLiteral("/config.json"));
    if (!configFile.open(QIODevice::WriteOnly)) return false;
    configFile.write(QJsonDocument(config).toJson());
    configFile.close();

    std::vector<std::pair<QString, std::vector<qint64>>> tensors;
    const qint64 h = s.hidden, kv = qint64(s.kvHeads) * headDim, I = s.intermediate;
    tensors.push_back({QStringLiteral("model.embed_tokens.weight"), {s.vocab, h}});
    for (int l = 0; l < s.layers; ++l) {
        const QString p = QStringLiteral("model.layers.%1.").arg(l);
        tensors.push_back({p + QStringLiteral("input_layernorm.weight"), {h}});
        tensors.push_back({p + QStringLiteral("self_attn.q_proj.weight"), {h, h}});
        tensors.push_back({p + QStringLiteral("self_attn.k_proj.weight"), {kv, h}});
        tensors.push_back({p + QStringLiteral("self_attn.v_proj.weight"), {kv, h}});
        tensors.push_back({p + QStringLiteral("self_attn.o_proj.weight"), {h, h}});
        tensors.push_back({p + QStringLiteral("post_attention_layernorm.weight"), {h}});
        tensors.push_back({p + QStringLiteral("mlp.gate_proj.weight"), {I, h}});
        tensors.push_back({p + QStringLiteral("mlp.up_proj.weight"), {I, h}});
        tensors.push_back({p + QStringLiteral("mlp.down_proj.weight"), {h, I}});
    }
    tensors.push_back({QStringLiteral("model.norm.weight"), {h}});
    if (!s.tied) tensors.push_back({QStringLiteral("lm_head.weight"), {s.vocab, h}});

    QJsonObject header;
    qint64 offset = 0;
    for (const auto& [name, shape] : tensors) {
        qint64 elements = 1;
        QJsonArray dims;
        for (const qint64 d : shape) {
            elements *= d;
            dims.append(double(d));
        }
        header.insert(name, QJsonObject{{QStringLiteral("dtype"), QStringLiteral("BF16")},
                                        {QStringLiteral("shape"), dims},
                                        {QStringLiteral("data_offsets"),
                                         QJsonArray{double(offset), double(offset + 2 * elements)}}});
        offset += 2 * elements;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json.append(' ');
    QFile weights(folder + QStringLiteral("/model.safetensors"));
    if (!weights.open(QIODevice::WriteOnly)) return false;
    const quint64 length = qToLittleEndian(quint64(json.size()));
    weights.write(reinterpret_cast<const char*>(&length), 8);
    weights.write(json);
    return weights.resize(8 + json.size() + offset); // the data: a hole
}

} // namespace attnscope::testing
