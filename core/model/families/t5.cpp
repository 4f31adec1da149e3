// T5 (t5-small ... t5-11b: v1.0), T5 v1.1 and Flan-T5 (google/t5-v1_1-*, google/flan-t5-*), and mT5
// (google/mt5-*, model_type "mt5", whose MT5 classes are T5's code); transformers: modeling_t5.py,
// T5ForConditionalGeneration. The model is model/t5model.h. What tells the versions apart is in config.json:
// feed_forward_proj "relu" (v1.0) or "gated-gelu" (v1.1, Flan, mT5: gelu_new on one of two input
// projections), tie_word_embeddings true (v1.0: the LM head is the embedding, the decoder's output scaled by
// d_model^-0.5) or false (an lm_head of its own). Defaults are T5Config's; decoding starts from
// decoder_start_token_id, which T5 checkpoints set to the pad token (0).

#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/modelconfig.h"
#include "model/t5model.h"

#include <tuple>

namespace attnscope {

namespace {

// T5Config: "gated-<act>" or "<act>"; "gated-gelu" means gelu_new (upstream's backwards compatibility).
void readFeedForward(const ConfigReader& r, T5Options& options)
{
    const QString proj = r.string("feed_forward_proj", QStringLiteral("relu"));
    const QStringList parts = proj.split(QLatin1Char('-'));
    if (parts.size() > 2 || (parts.size() == 2 && parts[0] != QLatin1String("gated")))
        r.fail(QStringLiteral("feed_forward_proj '%1' is not of the form 'gated-<activation>' or "
                              "'<activation>'")
                   .arg(proj));
    options.gated = parts.size() == 2;
    const QString act = proj == QLatin1String("gated-gelu") ? QStringLiteral("gelu_new") : parts.back();
    if (act == QLatin1String("relu"))
        options.activation = Activation::Relu;
    else if (act == QLatin1String("gelu"))
        options.activation = Activation::GeluErf;
    else if (act == QLatin1String("gelu_new") || act == QLatin1String("gelu_pytorch_tanh") ||
             act == QLatin1String("gelu_fast"))
        options.activation = Activation::GeluTanh;
    else if (act == QLatin1String("silu") || act == QLatin1String("swish"))
        options.activation = Activation::Silu;
    else
        r.fail(
            QStringLiteral("feed_forward_proj '%1': activation '%2' is not supported (relu, gelu, gelu_new, "
                           "silu)")
                .arg(proj, act));
}

std::unique_ptr<EncoderDecoderModel> openT5(const ConfigReader& r, const QString& folder)
{
    EncoderDecoderConfig c;
    // open() found the unit by model_type, else by the class in architectures (MT5For... names mt5).
    c.modelType = r.string("model_type", QString()).toLower();
    if (c.modelType.isEmpty() && !r.strings("architectures").isEmpty())
        c.modelType = FamilyRegistry::modelTypeFromClass(r.strings("architectures").front());
    c.family = QStringLiteral("t5");
    c.hidden = r.integer("d_model", 512, 1, kMaxHidden);
    c.encoderLayers = r.integer("num_layers", 6, 1, kMaxLayers);
    c.decoderLayers = r.integer("num_decoder_layers", c.encoderLayers, 1, kMaxLayers);
    c.encoderHeads = c.decoderHeads = r.integer("num_heads", 8, 1, kMaxHeads);
    c.encoderFfn = c.decoderFfn = r.integer("d_ff", 2048, 1, kMaxIntermediate);
    c.vocabSize = r.integer("vocab_size", 32128, 1, kMaxVocabulary);
    // Relative positions have no table to run out of: transformers takes any length (n_positions, where a
    // config has it, is a tokenizer's habit, not a limit of the model).
    c.maxPositions = kMaxPositions;
    T5Options options;
    options.headDim = r.integer("d_kv", 64, 1, kMaxHeadDim);
    if (qint64(options.headDim) * c.encoderHeads > kMaxHidden)
        r.fail(QStringLiteral("num_heads %1 · d_kv %2 is larger than any model")
                   .arg(c.encoderHeads)
                   .arg(options.headDim));
    // 4 at least: the encoder's half of them must hold one exact bucket (max_exact 1) before the logarithmic
    // ones.
    options.numBuckets = r.integer("relative_attention_num_buckets", 32, 4, 1 << 16);
    options.maxDistance = r.integer("relative_attention_max_distance", 128, 1, kMaxPositions);
    // The logarithmic buckets start at max_exact (a quarter of the buckets, in the encoder): max_distance
    // must lie past it, or upstream's log(max_distance / max_exact) is 0 or negative.
    if (options.maxDistance <= options.numBuckets / 2)
        r.fail(QStringLiteral("relative_attention_max_distance %1 must be larger than half of "
                              "relative_attention_num_buckets %2")
                   .arg(options.maxDistance)
                   .arg(options.numBuckets));
    options.eps = r.epsilon("layer_norm_epsilon", 1e-6);
    options.tiedHead = r.flag("tie_word_embeddings", true);
    readFeedForward(r, options);
    // decoder_start_token_id: T5's checkpoints set it to the pad token; where a config leaves it out, the pad
    // token read just before is the fallback (T5's _shift_right starts from it).
    for (const auto& [id, key, fallback] :
         {std::tuple{&c.padId, "pad_token_id", 0}, std::tuple{&c.eosId, "eos_token_id", 1},
          std::tuple{&c.decoderStartId, "decoder_start_token_id", -1}}) {
        *id = r.integer(key, fallback < 0 ? c.padId : fallback, 0, kMaxVocabulary - 1);
        if (*id >= c.vocabSize)
            r.fail(QStringLiteral("%1 %2%3 is outside vocab_size %4")
                       .arg(QLatin1String(key))
                       .arg(*id)
                       .arg(r.has(key) ? QString() : QStringLiteral(" (the default)"))
                       .arg(c.vocabSize));
    }
    return std::make_unique<T5Model>(c, options, folder);
}

} // namespace

namespace families {

FamilyUnit t5FamilyUnit()
{
    FamilyUnit unit;
    unit.name = QStringLiteral("t5");
    unit.modelTypes = {QStringLiteral("t5"), QStringLiteral("mt5")};
    unit.classPrefixes = {{QStringLiteral("T5For"), QStringLiteral("t5")},
                          {QStringLiteral("T5Model"), QStringLiteral("t5")},
                          {QStringLiteral("MT5For"), QStringLiteral("mt5")},
                          {QStringLiteral("MT5Model"), QStringLiteral("mt5")}};
    unit.openEncoderDecoder = openT5;
    return unit;
}

} // namespace families

} // namespace attnscope
