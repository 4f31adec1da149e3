// Marian (Helsinki-NLP/opus-mt-*; transformers: modeling_marian.py, MarianMTModel): BART's post-LN
// encoder-decoder (model/bartstylemodel.h) with a fixed sinusoidal position table, embeddings scaled by
// √d_model (scale_embedding), swish activations in the released models, one embedding shared by encoder,
// decoder and LM head, and decoding started from the pad token.
//
// opus-mt's config.json files carry BART-era fields (normalize_before, normalize_embedding,
// static_position_embeddings, add_final_layer_norm) that transformers' MarianMTModel ignores: it always runs
// the model above, so they are ignored here too. Defaults are MarianConfig's.

#include "model/bartstylemodel.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/modelconfig.h"

#include <cmath>
#include <tuple>

namespace attnscope {

namespace {

EncoderDecoderConfig readMarianConfig(const ConfigReader& r)
{
    EncoderDecoderConfig c;
    c.modelType = QStringLiteral("marian");
    c.family = QStringLiteral("marian");
    c.hidden = r.integer("d_model", 1024, 1, kMaxHidden);
    c.encoderLayers = r.integer("encoder_layers", 12, 1, kMaxLayers);
    c.decoderLayers = r.integer("decoder_layers", 12, 1, kMaxLayers);
    c.encoderHeads = r.integer("encoder_attention_heads", 16, 1, kMaxHeads);
    c.decoderHeads = r.integer("decoder_attention_heads", 16, 1, kMaxHeads);
    c.encoderFfn = r.integer("encoder_ffn_dim", 4096, 1, kMaxIntermediate);
    c.decoderFfn = r.integer("decoder_ffn_dim", 4096, 1, kMaxIntermediate);
    c.vocabSize = r.integer("vocab_size", 58101, 1, kMaxVocabulary);
    c.maxPositions = r.integer("max_position_embeddings", 1024, 1, kMaxPositions);
    for (const auto& [heads, key] : {std::pair{c.encoderHeads, "encoder_attention_heads"},
                                     std::pair{c.decoderHeads, "decoder_attention_heads"}})
        if (c.hidden % heads != 0)
            r.fail(QStringLiteral("d_model %1 is not a multiple of %2 %3: the heads cannot split it")
                       .arg(c.hidden)
                       .arg(QLatin1String(key))
                       .arg(heads));
    const bool shared = r.flag("share_encoder_decoder_embeddings", true);
    const int decoderVocab = r.integer("decoder_vocab_size", c.vocabSize, 1, kMaxVocabulary);
    if (!shared || decoderVocab != c.vocabSize)
        r.fail(QStringLiteral("separate encoder and decoder vocabularies (share_encoder_decoder_embeddings "
                              "false, decoder_vocab_size %1 beside vocab_size %2) are not supported")
                   .arg(decoderVocab)
                   .arg(c.vocabSize));
    for (const auto& [id, key, fallback] :
         {std::tuple{&c.padId, "pad_token_id", 58100}, std::tuple{&c.eosId, "eos_token_id", 0},
          std::tuple{&c.decoderStartId, "decoder_start_token_id", 58100}}) {
        *id = r.integer(key, fallback, 0, kMaxVocabulary - 1);
        if (*id >= c.vocabSize)
            r.fail(QStringLiteral("%1 %2%3 is outside vocab_size %4")
                       .arg(QLatin1String(key))
                       .arg(*id)
                       .arg(r.has(key) ? QString() : QStringLiteral(" (MarianConfig's default)"))
                       .arg(c.vocabSize));
    }
    return c;
}

std::unique_ptr<EncoderDecoderModel> openMarian(const ConfigReader& r, const QString& folder)
{
    const EncoderDecoderConfig config = readMarianConfig(r);
    BartStyleOptions options;
    options.activation = r.activation("activation_function", QStringLiteral("gelu"));
    options.embedScale = r.flag("scale_embedding", false) ? float(std::sqrt(double(config.hidden))) : 1.0f;
    return std::make_unique<BartStyleModel>(config, options, folder);
}

} // namespace

namespace families {

FamilyUnit marianFamilyUnit()
{
    FamilyUnit unit;
    unit.name = QStringLiteral("marian");
    unit.modelTypes = {QStringLiteral("marian")};
    unit.classPrefixes = {{QStringLiteral("MarianMT"), QStringLiteral("marian")},
                          {QStringLiteral("MarianModel"), QStringLiteral("marian")}};
    unit.openEncoderDecoder = openMarian;
    return unit;
}

} // namespace families

} // namespace attnscope
