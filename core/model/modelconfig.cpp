#include "model/modelconfig.h"

#include "model/modelerror.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

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

    // The first of `keys` that is present, as a positive integer; `fallback` when none is and fallback > 0.
    int positive(std::initializer_list<const char*> keys, int fallback = 0) const
    {
        for (const char* key : keys) {
            if (!has(key)) continue;
            const QJsonValue v = m_json.value(QLatin1String(key));
            const double d = v.toDouble(-1);
            if (!v.isDouble() || d < 1 || d > 1e9 || double(int(d)) != d)
                fail(QStringLiteral("%1 must be a positive integer").arg(QLatin1String(key)));
            return int(d);
        }
        if (fallback > 0) return fallback;
        fail(QStringLiteral("missing %1").arg(QLatin1String(*keys.begin())));
    }

    double number(const char* key, double fallback) const
    {
        if (!has(key)) return fallback;
        const QJsonValue v = m_json.value(QLatin1String(key));
        if (!v.isDouble()) fail(QStringLiteral("%1 must be a number").arg(QLatin1String(key)));
        return v.toDouble();
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
        return has(key) ? m_json.value(QLatin1String(key)).toString(fallback) : fallback;
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
    QFile f(configPath);
    if (!f.exists()) throw ModelError(file, QStringLiteral("file not found"));
    if (!f.open(QIODevice::ReadOnly))
        throw ModelError(file, QStringLiteral("cannot open: %1").arg(f.errorString()));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
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
    const QJsonArray architectures = json.value(QLatin1String("architectures")).toArray();
    c.architectureClass = architectures.isEmpty() ? QString() : architectures.first().toString();
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
        c.hidden = r.positive({"hidden_size"});
        c.heads = r.positive({"num_attention_heads"});
        c.layers = r.positive({"num_hidden_layers"});
        c.intermediate = r.positive({"intermediate_size"});
        c.vocabSize = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"max_position_embeddings"}, 512);
        c.typeVocabSize = r.positive({"type_vocab_size"}, 2);
        c.normEps = r.number("layer_norm_eps", 1e-12);
        c.activation = r.activation("hidden_act", QStringLiteral("gelu"));
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", true);
        const QString positions = r.string("position_embedding_type", QStringLiteral("absolute"));
        if (positions != QLatin1String("absolute"))
            r.fail(QStringLiteral("position_embedding_type '%1' is not supported (only absolute)")
                       .arg(positions));
    } else if (c.modelType == QLatin1String("gpt2")) {
        c.family = ModelFamily::Gpt2;
        c.hidden = r.positive({"n_embd", "hidden_size"});
        c.heads = r.positive({"n_head", "num_attention_heads"});
        c.layers = r.positive({"n_layer", "num_hidden_layers"});
        c.intermediate = r.positive({"n_inner"}, 4 * c.hidden);
        c.vocabSize = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"n_positions", "max_position_embeddings"}, 1024);
        c.normEps = r.number("layer_norm_epsilon", 1e-5);
        c.activation = r.activation("activation_function", QStringLiteral("gelu_new"));
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", true);
        c.scaleAttnWeights = r.flag("scale_attn_weights", true);
        c.scaleByInverseLayer = r.flag("scale_attn_by_inverse_layer_idx", false);
    } else {
        c.family = ModelFamily::Llama;
        c.hidden = r.positive({"hidden_size"});
        c.heads = r.positive({"num_attention_heads"});
        c.layers = r.positive({"num_hidden_layers"});
        c.intermediate = r.positive({"intermediate_size"});
        c.vocabSize = r.positive({"vocab_size"});
        c.maxPositions = r.positive({"max_position_embeddings"}, 2048);
        c.kvHeads = r.positive({"num_key_value_heads"}, c.heads);
        c.normEps = r.number("rms_norm_eps", 1e-6);
        c.activation = r.activation("hidden_act", QStringLiteral("silu"));
        c.ropeTheta = r.number("rope_theta", 10000.0);
        c.tieWordEmbeddings = r.flag("tie_word_embeddings", false);
        const bool attentionBias = r.flag("attention_bias", false);
        c.qkvBias = attentionBias || c.modelType == QLatin1String("qwen2");
        c.outputBias = attentionBias;
        c.mlpBias = r.flag("mlp_bias", false);
        if (c.modelType == QLatin1String("mistral") ||
            (c.modelType == QLatin1String("qwen2") && r.flag("use_sliding_window", false)))
            c.slidingWindow = r.has("sliding_window") ? r.positive({"sliding_window"}) : 0;
        if (r.has("rope_scaling")) {
            const QJsonObject scaling = json.value(QLatin1String("rope_scaling")).toObject();
            const QString type = scaling.value(QLatin1String("rope_type"))
                                     .toString(scaling.value(QLatin1String("type")).toString());
            if (type != QLatin1String("default"))
                r.fail(QStringLiteral("rope_scaling type '%1' is not supported").arg(type));
        }
        if (r.has("head_dim")) c.headDim = r.positive({"head_dim"});
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
