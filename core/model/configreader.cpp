#include "model/configreader.h"

#include "io/inputfile.h"
#include "io/strictjson.h"
#include "model/modelerror.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace attnscope {

ConfigReader ConfigReader::fromFile(const QString& file)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(file, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(file, problem);
    const std::optional<QJsonDocument> doc = parseStrictJson(*bytes, &problem);
    if (!doc) throw ModelError(file, problem);
    if (!doc->isObject()) throw ModelError(file, QStringLiteral("not a JSON object"));
    return ConfigReader(doc->object(), file);
}

void ConfigReader::fail(const QString& problem) const
{
    throw ModelError(m_file, problem);
}

bool ConfigReader::has(const char* key) const
{
    const QJsonValue v = m_json.value(QLatin1String(key));
    return !v.isUndefined() && !v.isNull();
}

int ConfigReader::limitOf(const char* key)
{
    struct Limit
    {
        const char* key;
        int limit;
    };
    static const Limit limits[] = {
        {"num_hidden_layers", kMaxLayers},
        {"n_layer", kMaxLayers},
        {"n_layers", kMaxLayers},
        {"hidden_size", kMaxHidden},
        {"n_embd", kMaxHidden},
        {"dim", kMaxHidden},
        {"num_attention_heads", kMaxHeads},
        {"n_head", kMaxHeads},
        {"n_heads", kMaxHeads},
        {"num_key_value_heads", kMaxHeads},
        {"head_dim", kMaxHeadDim},
        {"intermediate_size", kMaxIntermediate},
        {"n_inner", kMaxIntermediate},
        {"hidden_dim", kMaxIntermediate},
        {"vocab_size", kMaxVocabulary},
        {"type_vocab_size", kMaxTokenTypes},
    };
    for (const Limit& l : limits)
        if (qstrcmp(l.key, key) == 0) return l.limit;
    return kMaxPositions; // positions, windows, patterns
}

int ConfigReader::positive(std::initializer_list<const char*> keys, int fallback) const
{
    for (const char* key : keys) {
        if (!has(key)) continue;
        const QJsonValue v = m_json.value(QLatin1String(key));
        const double d = v.toDouble(-1);
        if (!v.isDouble() || !(d >= 1) || std::floor(d) != d)
            fail(QStringLiteral("%1 must be a positive integer").arg(QLatin1String(key)));
        const int limit = limitOf(key);
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

int ConfigReader::integer(const char* key, int fallback, int minimum, int maximum) const
{
    if (!has(key)) return fallback;
    const QJsonValue v = m_json.value(QLatin1String(key));
    const double d = v.toDouble();
    if (!v.isDouble() || std::floor(d) != d || d < minimum || d > maximum)
        fail(QStringLiteral("%1 must be an integer from %2 to %3")
                 .arg(QLatin1String(key))
                 .arg(minimum)
                 .arg(maximum));
    return int(d);
}

double ConfigReader::number(const char* key, double fallback) const
{
    return optionalNumber(key).value_or(fallback);
}

std::optional<double> ConfigReader::optionalNumber(const char* key) const
{
    if (!has(key)) return std::nullopt;
    const QJsonValue v = m_json.value(QLatin1String(key));
    if (!v.isDouble() || !std::isfinite(v.toDouble()))
        fail(QStringLiteral("%1 must be a number").arg(QLatin1String(key)));
    return v.toDouble();
}

double ConfigReader::positiveNumber(const char* key, double fallback) const
{
    const double value = number(key, fallback);
    if (!(value > 0))
        fail(QStringLiteral("%1 is %2, but it must be above 0").arg(QLatin1String(key)).arg(value));
    return value;
}

double ConfigReader::epsilon(const char* key, double fallback) const
{
    const double eps = number(key, fallback);
    if (eps < 0)
        fail(QStringLiteral("%1 is %2, but a normalisation epsilon cannot be negative")
                 .arg(QLatin1String(key))
                 .arg(eps));
    return eps;
}

bool ConfigReader::flag(const char* key, bool fallback) const
{
    if (!has(key)) return fallback;
    const QJsonValue v = m_json.value(QLatin1String(key));
    if (!v.isBool()) fail(QStringLiteral("%1 must be true or false").arg(QLatin1String(key)));
    return v.toBool();
}

QString ConfigReader::string(const char* key, const QString& fallback) const
{
    if (!has(key)) return fallback;
    const QJsonValue v = m_json.value(QLatin1String(key));
    if (!v.isString()) {
        const QByteArray array = QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact);
        fail(QStringLiteral("%1 must be a string, not %2")
                 .arg(QLatin1String(key), QString::fromUtf8(array.mid(1, array.size() - 2)).left(40)));
    }
    return v.toString();
}

QStringList ConfigReader::strings(const char* key) const
{
    QStringList list;
    if (!has(key)) return list;
    const QJsonValue v = m_json.value(QLatin1String(key));
    if (!v.isArray()) fail(QStringLiteral("%1 must be a list of strings").arg(QLatin1String(key)));
    for (const QJsonValue& item : v.toArray()) {
        if (!item.isString()) fail(QStringLiteral("%1 must be a list of strings").arg(QLatin1String(key)));
        list << item.toString();
    }
    return list;
}

QJsonObject ConfigReader::object(const char* key) const
{
    if (!has(key)) return {};
    const QJsonValue v = m_json.value(QLatin1String(key));
    if (!v.isObject()) fail(QStringLiteral("%1 must be an object").arg(QLatin1String(key)));
    return v.toObject();
}

Activation ConfigReader::activation(const char* key, const QString& fallback) const
{
    const QString name = string(key, fallback);
    if (name == QLatin1String("gelu")) return Activation::GeluErf;
    if (name == QLatin1String("gelu_new") || name == QLatin1String("gelu_pytorch_tanh") ||
        name == QLatin1String("gelu_fast"))
        return Activation::GeluTanh;
    if (name == QLatin1String("relu")) return Activation::Relu;
    if (name == QLatin1String("silu") || name == QLatin1String("swish")) return Activation::Silu;
    fail(QStringLiteral("activation %1 '%2' is not supported (gelu, gelu_new, gelu_pytorch_tanh, relu, silu)")
             .arg(QLatin1String(key), name));
}

QStringList ConfigReader::supportedRopeTypes()
{
    return {QStringLiteral("default"), QStringLiteral("linear"), QStringLiteral("dynamic"),
            QStringLiteral("llama3"),  QStringLiteral("yarn"),   QStringLiteral("longrope")};
}

RopeScaling ConfigReader::ropeScaling(const QJsonObject& o, const QString& where, int maxPositions) const
{
    using Type = RopeScaling::Type;
    RopeScaling s;
    // An empty object given for rope_scaling is a config that names no scaling (upstream refuses it too).
    if (o.isEmpty() && where == QLatin1String("rope_scaling") && has("rope_scaling"))
        fail(QStringLiteral("rope_scaling {} names no rope_type (or type); supported: %1")
                 .arg(supportedRopeTypes().join(QStringLiteral(", "))));
    if (o.isEmpty()) return s;
    // transformers 4.x wrote "type"; later versions "rope_type".
    const QJsonValue typeValue = o.contains(QLatin1String("rope_type")) ? o.value(QLatin1String("rope_type"))
                                                                        : o.value(QLatin1String("type"));
    if (!typeValue.isString() &&
        !(typeValue.isUndefined() && o.keys() == QStringList{QStringLiteral("rope_theta")}))
        fail(QStringLiteral("%1 names no rope_type (or type); supported: %2")
                 .arg(where, supportedRopeTypes().join(QStringLiteral(", "))));
    const QString type = typeValue.toString();
    auto numberOf = [&](const char* key) -> std::optional<double> {
        const QJsonValue v = o.value(QLatin1String(key));
        if (v.isUndefined() || v.isNull()) return std::nullopt;
        if (!v.isDouble() || !std::isfinite(v.toDouble()))
            fail(QStringLiteral("%1.%2 must be a number").arg(where, QLatin1String(key)));
        return v.toDouble();
    };
    auto required = [&](const char* key) {
        const std::optional<double> v = numberOf(key);
        if (!v) fail(QStringLiteral("%1 of type '%2' needs %3").arg(where, type, QLatin1String(key)));
        return *v;
    };
    // A number of positions: a whole number from 1 to kMaxPositions.
    auto positionsOf = [&](const char* key) -> std::optional<int> {
        const std::optional<double> v = numberOf(key);
        if (!v) return std::nullopt;
        if (!(*v >= 1 && *v <= kMaxPositions) || std::floor(*v) != *v)
            fail(QStringLiteral("%1.%2 must be a whole number from 1 to %3")
                     .arg(where, QLatin1String(key))
                     .arg(kMaxPositions));
        return int(*v);
    };
    auto factors = [&](const char* key) {
        std::vector<double> list;
        const QJsonValue v = o.value(QLatin1String(key));
        if (!v.isArray())
            fail(QStringLiteral("%1 of type '%2' needs a list %3").arg(where, type, QLatin1String(key)));
        for (const QJsonValue& item : v.toArray()) {
            if (!item.isDouble() || !(item.toDouble() > 0))
                fail(QStringLiteral("%1.%2 must hold positive numbers").arg(where, QLatin1String(key)));
            list.push_back(item.toDouble());
        }
        return list;
    };
    if (type.isEmpty() || type == QLatin1String("default")) return s;
    s.originalMaxPositions = positionsOf("original_max_position_embeddings").value_or(0);
    if (type == QLatin1String("linear") || type == QLatin1String("dynamic")) {
        s.type = type == QLatin1String("linear") ? Type::Linear : Type::Dynamic;
        s.factor = required("factor");
    } else if (type == QLatin1String("llama3")) {
        s.type = Type::Llama3;
        s.factor = required("factor");
        s.lowFreqFactor = required("low_freq_factor");
        s.highFreqFactor = required("high_freq_factor");
        (void)required("original_max_position_embeddings"); // present; then its range
        s.originalMaxPositions = *positionsOf("original_max_position_embeddings");
        if (!(s.lowFreqFactor > 0)) fail(QStringLiteral("%1.low_freq_factor must be positive").arg(where));
        if (!(s.highFreqFactor > s.lowFreqFactor))
            fail(QStringLiteral("%1: high_freq_factor must be larger than low_freq_factor").arg(where));
    } else if (type == QLatin1String("yarn")) {
        s.type = Type::Yarn;
        const int original = s.originalMaxPositions > 0 ? s.originalMaxPositions : maxPositions;
        s.factor = numberOf("factor").value_or(double(maxPositions) / std::max(1, original));
        s.attentionFactor = numberOf("attention_factor");
        if (const auto v = numberOf("beta_fast"); v && *v != 0.0) s.betaFast = *v;
        if (const auto v = numberOf("beta_slow"); v && *v != 0.0) s.betaSlow = *v;
        s.mscale = numberOf("mscale");
        s.mscaleAllDim = numberOf("mscale_all_dim");
        const QJsonValue truncate = o.value(QLatin1String("truncate"));
        if (truncate.isBool()) s.truncate = truncate.toBool();
    } else if (type == QLatin1String("longrope") || type == QLatin1String("su")) {
        s.type = Type::LongRope;
        s.shortFactor = factors("short_factor");
        s.longFactor = factors("long_factor");
        if (s.originalMaxPositions <= 0)
            s.originalMaxPositions = integer("original_max_position_embeddings", 0, 1, kMaxPositions);
        if (s.originalMaxPositions <= 0)
            fail(QStringLiteral("%1 of type '%2' needs original_max_position_embeddings").arg(where, type));
        s.factor = numberOf("factor").value_or(double(maxPositions) / s.originalMaxPositions);
        s.attentionFactor = numberOf("attention_factor");
    } else {
        fail(QStringLiteral("%1 type '%2' is not supported; supported: %3")
                 .arg(where, type, supportedRopeTypes().join(QStringLiteral(", "))));
    }
    if (!(s.factor > 0)) fail(QStringLiteral("%1.factor must be positive").arg(where));
    if (s.attentionFactor && !(*s.attentionFactor > 0))
        fail(QStringLiteral("%1.attention_factor must be positive").arg(where));
    if ((s.type == Type::Llama3 || s.type == Type::Yarn || s.type == Type::LongRope) &&
        s.originalMaxPositions <= 0 && maxPositions <= 0)
        fail(QStringLiteral("%1 needs original_max_position_embeddings").arg(where));
    return s;
}

void ConfigReader::completeShape(ModelConfig& c) const
{
    if (c.kvHeads == 0) c.kvHeads = c.heads;
    if (c.headDim == 0) {
        if (c.heads <= 0 || c.hidden % c.heads != 0)
            fail(QStringLiteral("hidden size %1 is not a multiple of the %2 heads")
                     .arg(c.hidden)
                     .arg(c.heads));
        c.headDim = c.hidden / c.heads;
    }
    if (c.kvHeads <= 0 || c.heads % c.kvHeads != 0)
        fail(QStringLiteral("%1 attention heads are not a multiple of %2 key/value heads")
                 .arg(c.heads)
                 .arg(c.kvHeads));
}

RotaryEmbedding ConfigReader::rotaryEmbedding(double theta, int rotaryDim, int headDim,
                                              const RopeScaling& scaling, int maxPositions) const
{
    if (rotaryDim <= 0 || rotaryDim % 2 != 0 || rotaryDim > headDim)
        fail(QStringLiteral(
                 "the rotary dimension %1 (of head dimension %2) must be even, positive and at most the "
                 "head dimension")
                 .arg(rotaryDim)
                 .arg(headDim));
    if (!(theta > 0) || !std::isfinite(theta))
        fail(QStringLiteral("rope_theta is %1, but RoPE's base must be above 0").arg(theta));
    if (scaling.type == RopeScaling::Type::LongRope &&
        (int(scaling.shortFactor.size()) != rotaryDim / 2 || int(scaling.longFactor.size()) != rotaryDim / 2))
        fail(QStringLiteral(
                 "rope_scaling short_factor and long_factor need %1 entries each (one per rotated pair), "
                 "not %2 and %3")
                 .arg(rotaryDim / 2)
                 .arg(scaling.shortFactor.size())
                 .arg(scaling.longFactor.size()));
    if (scaling.type == RopeScaling::Type::Dynamic && maxPositions <= 0)
        fail(QStringLiteral("rope_scaling 'dynamic' needs max_position_embeddings"));
    int lengthLimit = 0;
    if (scaling.type == RopeScaling::Type::Dynamic) lengthLimit = maxPositions;
    if (scaling.type == RopeScaling::Type::LongRope)
        lengthLimit = scaling.originalMaxPositions > 0 ? scaling.originalMaxPositions : maxPositions;
    if (lengthLimit > 0 && (m_ropeCacheLimit == 0 || lengthLimit < m_ropeCacheLimit))
        m_ropeCacheLimit = lengthLimit;
    return RotaryEmbedding(theta, rotaryDim, scaling, maxPositions);
}

} // namespace attnscope
