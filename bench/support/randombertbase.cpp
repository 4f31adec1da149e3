#include "support/randombertbase.h"

#include "model/safetensorswriter.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <cstdint>
#include <vector>

namespace attnscope::bench {

namespace {

struct Spec
{
    QString name;
    std::vector<qint64> shape;
    float scale; // uniform in [-scale, scale]; 0 = ones (LayerNorm gamma)
};

std::vector<Spec> bertBaseTensors()
{
    const qint64 h = kBertHidden, I = kBertIntermediate;
    std::vector<Spec> specs = {
        {QStringLiteral("bert.embeddings.word_embeddings.weight"), {kBertVocab, h}, 0.05f},
        {QStringLiteral("bert.embeddings.position_embeddings.weight"), {kBertPositions, h}, 0.05f},
        {QStringLiteral("bert.embeddings.token_type_embeddings.weight"), {2, h}, 0.05f},
        {QStringLiteral("bert.embeddings.LayerNorm.weight"), {h}, 0.0f},
        {QStringLiteral("bert.embeddings.LayerNorm.bias"), {h}, 0.01f},
    };
    for (int l = 0; l < kBertLayers; ++l) {
        const QString p = QStringLiteral("bert.encoder.layer.%1.").arg(l);
        for (const char* m : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                              "attention.output.dense."}) {
            specs.push_back({p + QLatin1String(m) + QLatin1String("weight"), {h, h}, 0.06f});
            specs.push_back({p + QLatin1String(m) + QLatin1String("bias"), {h}, 0.01f});
        }
        specs.push_back({p + QStringLiteral("attention.output.LayerNorm.weight"), {h}, 0.0f});
        specs.push_back({p + QStringLiteral("attention.output.LayerNorm.bias"), {h}, 0.01f});
        specs.push_back({p + QStringLiteral("intermediate.dense.weight"), {I, h}, 0.06f});
        specs.push_back({p + QStringLiteral("intermediate.dense.bias"), {I}, 0.01f});
        specs.push_back({p + QStringLiteral("output.dense.weight"), {h, I}, 0.03f});
        specs.push_back({p + QStringLiteral("output.dense.bias"), {h}, 0.01f});
        specs.push_back({p + QStringLiteral("output.LayerNorm.weight"), {h}, 0.0f});
        specs.push_back({p + QStringLiteral("output.LayerNorm.bias"), {h}, 0.01f});
    }
    return specs;
}

// Streams the file tensor by tensor so the bench itself never holds the 420 MiB of weights.
} // namespace

qint64 writeRandomBertBase(const QString& folder)
{
    QDir().mkpath(folder);
    const std::vector<Spec> specs = bertBaseTensors();
    std::vector<TensorHeaderEntry> entries;
    qint64 weightBytes = 0;
    for (const Spec& s : specs) {
        entries.push_back({s.name, TensorDtype::F32, s.shape});
        qint64 count = 1;
        for (qint64 d : s.shape)
            count *= d;
        weightBytes += 4 * count;
    }
    QFile file(folder + QStringLiteral("/model.safetensors"));
    if (!file.open(QIODevice::WriteOnly)) return -1;
    file.write(safetensorsHeader(entries));
    std::uint64_t state = 0x9E3779B97F4A7C15ull;
    std::vector<float> buffer;
    for (const Spec& s : specs) {
        qint64 count = 1;
        for (qint64 d : s.shape)
            count *= d;
        buffer.resize(size_t(count));
        for (float& x : buffer) {
            state ^= state << 13; // xorshift64: fast, and random enough for timing
            state ^= state >> 7;
            state ^= state << 17;
            const float u = float(state >> 40) / float(1 << 24); // [0, 1)
            x = s.scale == 0.0f ? 1.0f : (2.0f * u - 1.0f) * s.scale;
        }
        file.write(reinterpret_cast<const char*>(buffer.data()), qint64(buffer.size() * sizeof(float)));
    }
    file.close();
    writeBertBaseConfig(folder, QStringLiteral("BertModel"));
    return weightBytes;
}

bool writeBertBaseConfig(const QString& folder, const QString& architecture)
{
    const QJsonObject config{
        {QStringLiteral("architectures"), QJsonArray{architecture}},
        {QStringLiteral("model_type"), QStringLiteral("bert")},
        {QStringLiteral("hidden_size"), kBertHidden},
        {QStringLiteral("num_hidden_layers"), kBertLayers},
        {QStringLiteral("num_attention_heads"), kBertHeads},
        {QStringLiteral("intermediate_size"), kBertIntermediate},
        {QStringLiteral("vocab_size"), kBertVocab},
        {QStringLiteral("max_position_embeddings"), kBertPositions},
        {QStringLiteral("type_vocab_size"), 2},
        {QStringLiteral("layer_norm_eps"), 1e-12},
        {QStringLiteral("hidden_act"), QStringLiteral("gelu")},
    };
    QFile configFile(folder + QStringLiteral("/config.json"));
    return configFile.open(QIODevice::WriteOnly) && configFile.write(QJsonDocument(config).toJson()) > 0;
}

} // namespace attnscope::bench
