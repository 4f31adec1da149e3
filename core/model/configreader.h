#pragma once

// Typed reads from config.json for the family units: every failure is a ModelError "<config.json>: <problem>"
// naming the field, so a unit never checks a JSON type itself.

#include "attention/rotaryembedding.h"
#include "model/modelconfig.h"

#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <initializer_list>
#include <optional>

namespace attnscope {

class ConfigReader
{
public:
    ConfigReader(const QJsonObject& json, const QString& file) : m_json(json), m_file(file) {}
    // A reader of the JSON object in `file` (config.json, generation_config.json), read bounded
    // (kMaxJsonFileBytes) and strictly (io/strictjson.h): ModelError "<file>: <problem>" where the file cannot
    // be read, is no JSON, or holds something else than an object.
    static ConfigReader fromFile(const QString& file);

    const QJsonObject& json() const { return m_json; }
    const QString& file() const { return m_file; }
    [[noreturn]] void fail(const QString& problem) const;

    // Present and not null.
    bool has(const char* key) const;
    // The first of `keys` that is present, as a positive integer; `fallback` when none is and fallback > 0.
    // Each key has its limit (kMaxLayers for num_hidden_layers, ...; limitOf), so that every size derived
    // from them fits in int and nothing is allocated for an absurd one.
    int positive(std::initializer_list<const char*> keys, int fallback = 0) const;
    static int limitOf(const char* key);
    // An integer in [minimum, maximum]; `fallback` when absent (pad_token_id, max_window_layers, ...).
    int integer(const char* key, int fallback, int minimum, int maximum) const;
    // A finite number.
    double number(const char* key, double fallback) const;
    std::optional<double> optionalNumber(const char* key) const;
    // A number above 0 (rope_theta, query_pre_attn_scalar, ...).
    double positiveNumber(const char* key, double fallback) const;
    // An epsilon added to a variance before its square root: 0 or more.
    double epsilon(const char* key, double fallback) const;
    bool flag(const char* key, bool fallback) const;
    // A string; anything else present is refused (activation_function: 3 once became gelu_new).
    QString string(const char* key, const QString& fallback) const;
    // A list of strings (Gemma 3's layer_types); empty when absent.
    QStringList strings(const char* key) const;
    // gelu, gelu_new, gelu_pytorch_tanh, gelu_fast, relu, silu/swish.
    Activation activation(const char* key, const QString& fallback) const;
    // The object under `key`; empty when absent or null, a ModelError when it is something else.
    QJsonObject object(const char* key) const;
    // A rope_scaling object (transformers 4.x; also one entry of 5.x's rope_parameters) as the
    // RotaryEmbedding takes it; `where` names it in messages ("rope_scaling"). Empty or rope_type "default":
    // no scaling. An unknown type is refused, naming it and listing the supported ones. maxPositions:
    // max_position_embeddings (yarn's and longrope's factor default to maxPositions /
    // original_max_position_embeddings).
    RopeScaling ropeScaling(const QJsonObject& scaling, const QString& where, int maxPositions) const;
    static QStringList supportedRopeTypes();
    // Fills kvHeads (= heads) and headDim (= hidden / heads) when the unit left them 0, and checks that the
    // heads divide as attention needs. Units call it before anything that depends on the head dimension.
    void completeShape(ModelConfig& config) const;
    // The rotary embedding of a family, its settings checked against the head (even rotary dimension no
    // larger than the head, one longrope factor per pair); failures name config.json.
    RotaryEmbedding rotaryEmbedding(double theta, int rotaryDim, int headDim, const RopeScaling& scaling,
                                    int maxPositions) const;

    // The shortest sequence length above which a rotary embedding made by rotaryEmbedding() changes its
    // frequencies with the length (dynamic NTK, longrope); 0 when none does (ModelConfig::ropeCacheLimit).
    int ropeCacheLimit() const { return m_ropeCacheLimit; }

private:
    QJsonObject m_json;
    QString m_file;
    mutable int m_ropeCacheLimit = 0;
};

} // namespace attnscope
