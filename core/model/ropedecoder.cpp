#include "model/ropedecoder.h"

#include <cmath>

namespace attnscope {

RotaryEmbedding RopeDecoderConfig::readRotary(const ConfigReader& r, const QJsonObject& parameters,
                                              double defaultTheta, int rotaryDim, int headDim,
                                              int maxPositions)
{
    if (parameters.contains(QLatin1String("rope_theta"))) {
        const QJsonValue theta = parameters.value(QLatin1String("rope_theta"));
        if (!theta.isDouble()) r.fail(QStringLiteral("rope_parameters.rope_theta must be a number"));
        return r.rotaryEmbedding(theta.toDouble(), rotaryDim, headDim,
                                 r.ropeScaling(parameters, QStringLiteral("rope_parameters"), maxPositions),
                                 maxPositions);
    }
    return r.rotaryEmbedding(
        r.number("rope_theta", defaultTheta), rotaryDim, headDim,
        r.ropeScaling(r.object("rope_scaling"), QStringLiteral("rope_scaling"), maxPositions), maxPositions);
}

RopeDecoderConfig RopeDecoderConfig::read(const ConfigReader& r, ModelConfig& c, const Defaults& defaults)
{
    RopeDecoderConfig d;
    c.decoder = true;
    c.hidden = r.positive({"hidden_size"});
    c.heads = r.positive({"num_attention_heads"});
    c.layers = r.positive({"num_hidden_layers"});
    c.vocabSize = r.positive({"vocab_size"});
    c.kvHeads = r.positive({"num_key_value_heads"}, c.heads);
    if (r.has("head_dim")) c.headDim = r.positive({"head_dim"});
    r.completeShape(c);
    d.intermediate = r.positive({"intermediate_size"});
    d.rmsEps = r.epsilon("rms_norm_eps", defaults.rmsEps);
    d.tiedEmbeddings = r.flag("tie_word_embeddings", defaults.tiedEmbeddings);
    c.normEps = d.rmsEps;
    c.tieWordEmbeddings = d.tiedEmbeddings;
    const int maxPositions = r.positive({"max_position_embeddings"}, defaults.maxPositions);

    const double partial = r.number("partial_rotary_factor", 1.0);
    if (!(partial > 0.0 && partial <= 1.0)) r.fail(QStringLiteral("partial_rotary_factor must be in (0, 1]"));
    const int rotaryDim = int(c.headDim * partial); // transformers: int(head_dim * partial_rotary_factor)
    d.rotary =
        readRotary(r, r.object("rope_parameters"), defaults.ropeTheta, rotaryDim, c.headDim, maxPositions);
    c.ropeTheta = d.rotary.theta();
    // Dynamic NTK scaling exists to run past the trained context.
    if (d.rotary.scaling().type == RopeScaling::Type::Dynamic &&
        !(maxPositions * d.rotary.scaling().factor <= kMaxPositions))
        r.fail(QStringLiteral("rope_scaling factor %1 takes max_position_embeddings %2 beyond %3 positions")
                   .arg(d.rotary.scaling().factor)
                   .arg(maxPositions)
                   .arg(kMaxPositions));
    c.maxPositions = d.rotary.scaling().type == RopeScaling::Type::Dynamic
                         ? int(std::floor(maxPositions * d.rotary.scaling().factor))
                         : maxPositions;
    return d;
}

} // namespace attnscope
