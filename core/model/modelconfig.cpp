#include "model/modelconfig.h"

#include "io/inputfile.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace attnscope {

namespace {

class ConfigReader
{
public:
    ConfigReader(const QJsonObject& json, const QString& file) : m_json(json), m_file(file) {}

    [[noreturn]] void fail(const QString& problem) const { throw ModelError(m_file, problem); }

    bool has(const char* key) const
    {
        const QJsonValue v = m_json.value(QLatin1String(key));
        return !v.isUndefined() && !v.isNull();
    }

    // The first of `keys` that is present, as a positive integer of at most `limit`; `fallback` when none is
    // and fallback > 0. The limits keep every size derived from config.json far inside int and qint64.
    int positive(std::initializer_list<const char*> keys, int limit, int fallback = 0) const
    {
        for (const char* key : keys) {
            if (!has(key)) continue;
            const QJsonValue v = m_json.value(QLatin1String(key));
            const double d = v.toDouble(-1);
            if (!v.isDouble() || !(d >= 1) || std::floor(d) != d)
                fail(QStringLiteral("%1 must be a positive integer").arg(QLatin1String(key)));
            if (d > limit)
                fail(QStringLiteral("%1 %2 is more than AttnScope supports (at most %3)")
                         .arg(QLatin1String(key))
                         .arg(d, 0, 'f', 0)
                         .arg(limit));
            return int(d);
        }
        if (fallback > 0) return fallback;
        fail(QStringLiteral("missing %1").arg(QLatin1String(*keys.begin())));
    }

    double number(const char* key, double fallback) const
    {
        if (!has(key)) return fallback;
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            fail(QStringLiteral("%1 must be a number").arg(QLatin1String(key)));
        return v.toDouble();
    }

    // An epsilon added to a variance before its square root: 0 or more.
    double epsilon(const char* key, double fallback) const
    {
        const double eps = number(key, fallback);
        if (eps < 0)
            fail(QStringLiteral("%1 is %2, but a normalisation epsilon cannot be negative")
                     .arg(QLatin1String(key))
                     .arg(eps));
        return eps;
    }

    bool flag(const char* key, bool fallback) const
    {
        if (!has(key)) return fallback;
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (!v.isBool()) fail(QStringLiteral("%1 must be true or false").arg(QLatin1String(key)));
        return v.toBool();
    }

    QString string(const char* key, const QString& fallback) const
    {
        if (!has(key)) return fallback;
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (!v.isString())
            fail(QStringLiteral("%1 must be a string, not %2").arg(QLatin1String(key), jsonText(v)));
        return v.toString();
    }

    Activation activation(const char* key, const QString& fallback) const
    {
        const QString name = string(key, fallback);
        if (name == QLatin1String("gelu")) return Activation::GeluErf;
        if (name == QLatin1String("gelu_new") || name == QLatin1String("gelu_pytorch_tanh") ||
            name == QLatin1String("gelu_fast"))
            return Activation::GeluTanh;
        if (name == QLatin1String("relu")) return Activation::Relu;
        if (name == QLatin1String("silu") || name == QLatin1String("swish")) return Activation::Silu;
        fail(QStringLiteral(
                 "activation %1 '%2' is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu, silu)")
                 .arg(QLatin1String(key), name));
    }

private:
    static QString jsonText(const QJsonValue& v)
    {
        const QByteArray array = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
        return QString::fromUtf8(array.mid(1, array.size() - 2)).left(40);
    }

    QJsonObject m_json;
    QString m_file;
};

QString modelTypeFromClass(const QString& cls)
{
    if (cls.startsWith(QLatin1String("Bert"))) return QStringLiteral("bert");
    if (cls.startsWith(QLatin1String("GPT2"))) return QStringLiteral("gpt2");
    if (cls.startsWith(QLatin1String("Llama"))) return QStringLiteral("llama");
    if (cls.startsWith(QLatin1String("Mistral"))) return QStringLiteral("mistral");
    if (cls.startsWith(QLatin1String("Qwen2")) && !cls.startsWith(QLatin1String("Qwen2Moe")) &&
        !cls.startsWith(QLatin1String("Qwen2VL")) && !cls.startsWith(QLatin1String("Qwen2Audio")))
        return QStringLiteral("qwen2");
    return QString();
}

} // namespace

QStringList ModelConfig::supportedModelTypes()
{
    return {QStringLiteral("bert"), QStringLiteral("gpt2"), QStringLiteral("llama"),
            QStringLiteral("mistral"), QStringLiteral("qwen2")};
}

ModelConfig ModelConfig::fromFile(const QString& configPath)
{
    const QString file = QDir::toNativeSeparators(configPath);
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(configPath, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(file, problem);
    return fromJsonBytes(*bytes, file);
}

ModelConfig ModelConfig::fromJsonBytes(const QByteArray& bytes, const QString& file)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        throw ModelError(
            file, QStringLiteral("invalid JSON at byte %1: %2").arg(error.offset).arg(error.errorString()));
    if (!doc.isObject()) throw ModelError(file, QStringLiteral("not a JSON object"));
    return fromJson(doc.object(), file);
}

ModelConfig ModelConfig::fromJson(const QJsonObject& json, const QString& file)
{
    const ConfigReader r(json, file);
    ModelConfig c;
    const QJsonValue architectures = json.value(QLatin1String("architectures"));
    if (!architectures.isUndefined() && !architectures.isNull() &&
        (!architectures.isArray() || (!architectures.toArray().isEmpty() && !architectures[0].isString())))
        r.fail(QStringLiteral("architectures must be a list of class names"));
    c.architectureClass = architectures.toArray().isEmpty() ? QString() : architectures[0].toString();
    c.modelType = r.string("model_type", QString()).toLower();
    if (c.modelType.isEmpty()) c.modelType = modelTypeFromClass(c.architectureClass);
    if (!supportedModelTypes().contains(c.modelType)) {
        QString named = c.modelType.isEmpty() ? QStringLiteral("(none given)")
                                              : QLatin1Char('\'') + c.modelType + QLatin1Char('\'');
        if (!c.architectureClass.isEmpty()) named += QStringLiteral(" (%1)").arg(c.architectureClass);
        r.fail(QStringLiteral("unsupported architecture %1; supported model types: %2")
                   .arg(named, supportedModelTypes().join(QStringLiteral(", "))));
    }

    if (c.modelType == QLatin1String("bert")) {
        c.family = ModelFamily::Bert;
        c.hidden = r.positive({"hidden_size"}, kMaxHidden);
        c.heads = r.positive({"num_attention_heads"}, kMaxHeads);
        c.layers = r.positive({"num_hidden_layers"}, kMaxLayers);
        c.intermediate = r.positive({"intermediate_size"}, kMaxIntermediate);
        c.vocabSize = r.positive({"vocab_size"}, kMaxVocabulary);
        c.maxPositions = r.positive({"max_position_embeddings"}, kMaxPositions, 512);
        c.typeVocabSize = r.positive({"type_vocab_size"}, kMaxTokenTypes, 2);
        c.normEps = r.epsilon("layer_norm_eps", 1e-12);
        c.activation = r.activation("hidden_act", QStringLiteral("gelu"));
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", true);
        const QString positions = r.string("position_embedding_type", QStringLiteral("absolute"));
        if (positions != QLatin1String("absolute"))
            r.fail(QStringLiteral("position_embedding_type '%1' is not supported (only absolute)")
                       .arg(positions));
    } else if (c.modelType == QLatin1String("gpt2")) {
        c.family = ModelFamily::Gpt2;
        c.hidden = r.positive({"n_embd", "hidden_size"}, kMaxHidden);
        c.heads = r.positive({"n_head", "num_attention_heads"}, kMaxHeads);
        c.layers = r.positive({"n_layer", "num_hidden_layers"}, kMaxLayers);
        c.intermediate = r.positive({"n_inner"}, kMaxIntermediate, 4 * c.hidden); // 4h <= 2^19
        c.vocabSize = r.positive({"vocab_size"}, kMaxVocabulary);
        c.maxPositions = r.positive({"n_positions", "max_position_embeddings"}, kMaxPositions, 1024);
        c.normEps = r.epsilon("layer_norm_epsilon", 1e-5);
        c.activation = r.activation("activation_function", QStringLiteral("gelu_new"));
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", true);
        c.scaleAttnWeights = r.flag("scale_attn_weights", true);
        c.scaleByInverseLayer = r.flag("scale_attn_by_inverse_layer_idx", false);
    } else {
        c.family = ModelFamily::Llama;
        c.hidden = r.positive({"hidden_size"}, kMaxHidden);
        c.heads = r.positive({"num_attention_heads"}, kMaxHeads);
        c.layers = r.positive({"num_hidden_layers"}, kMaxLayers);
        c.intermediate = r.positive({"intermediate_size"}, kMaxIntermediate);
        c.vocabSize = r.positive({"vocab_size"}, kMaxVocabulary);
        c.maxPositions = r.positive({"max_position_embeddings"}, kMaxPositions, 2048);
        c.kvHeads = r.positive({"num_key_value_heads"}, kMaxHeads, c.heads);
        c.normEps = r.epsilon("rms_norm_eps", 1e-6);
        c.activation = r.activation("hidden_act", QStringLiteral("silu"));
        c.ropeTheta = r.number("rope_theta", 10000.0);
        if (!(c.ropeTheta > 0))
            r.fail(QStringLiteral("rope_theta is %1, but RoPE's base must be above 0").arg(c.ropeTheta));
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", false);
        const bool attentionBias = r.flag("attention_bias", false);
        c.qkvBias = attentionBias || c.modelType == QLatin1String("qwen2");
        c.outputBias = attentionBias;
        c.mlpBias = r.flag("mlp_bias", false);
        if (c.modelType == QLatin1String("mistral") ||
            (c.modelType == QLatin1String("qwen2") && r.flag("use_sliding_window", false)))
            c.slidingWindow = r.has("sliding_window") ? r.positive({"sliding_window"}, kMaxPositions) : 0;
        if (r.has("rope_scaling")) {
            const QJsonValue scalingValue = json.value(QLatin1String("rope_scaling"));
            if (!scalingValue.isObject()) r.fail(QStringLiteral("rope_scaling must be an object or null"));
            const QJsonObject scaling = scalingValue.toObject();
            const QJsonValue type = scaling.contains(QLatin1String("rope_type"))
                                        ? scaling.value(QLatin1String("rope_type"))
                                        : scaling.value(QLatin1String("type"));
            if (!type.isString())
                r.fail(QStringLiteral("rope_scaling names no rope_type (or type); AttnScope runs only models "
                                      "without RoPE scaling"));
            if (type.toString() != QLatin1String("default"))
                r.fail(QStringLiteral("rope_scaling type '%1' is not supported; AttnScope runs only models "
                                      "without RoPE scaling")
                           .arg(type.toString()));
        }
        if (r.has("head_dim")) c.headDim = r.positive({"head_dim"}, kMaxHeadDim);
    }
    if (c.kvHeads == 0) c.kvHeads = c.heads;
    if (c.headDim == 0) {
        if (c.hidden % c.heads != 0)
            r.fail(QStringLiteral("hidden size %1 is not a multiple of the %2 heads")
                       .arg(c.hidden)
                       .arg(c.heads));
        c.headDim = c.hidden / c.heads;
    }
    if (c.heads % c.kvHeads != 0)
        r.fail(QStringLiteral("%1 attention heads are not a multiple of %2 key/value heads")
                   .arg(c.heads)
                   .arg(c.kvHeads));
    if (c.family == ModelFamily::Llama && c.headDim % 2 != 0)
        r.fail(QStringLiteral("head dimension %1 is odd; RoPE needs an even one").arg(c.headDim));
    return c;
}

} // namespace attnscope
