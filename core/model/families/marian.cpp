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

namespace attnscope {

namespace {

std::unique_ptr<EncoderDecoderModel> openMarian(const ConfigReader& r, const QString& folder)
{
    // MarianConfig's defaults.
    const EncoderDecoderConfig config =
        readBartStyleConfig(r, QStringLiteral("marian"), {1024, 12, 16, 4096, 58101, 1024, 58100, 0, 58100});
    const bool shared = r.flag("share_encoder_decoder_embeddings", true);
    const int decoderVocab = r.integer("decoder_vocab_size", config.vocabSize, 1, kMaxVocabulary);
    if (!shared || decoderVocab != config.vocabSize)
        r.fail(QStringLiteral("separate encoder and decoder vocabularies (share_encoder_decoder_embeddings "
                              "false, decoder_vocab_size %1 beside vocab_size %2) are not supported")
                   .arg(decoderVocab)
                   .arg(config.vocabSize));
    return std::make_unique<BartStyleModel>(config, readBartStyleOptions(r, config), folder);
}

} // namespace

namespace families {

FamilyUnit marianFamilyUnit()
{
    return encoderDecoderUnit(QStringLiteral("marian"),
                              {QStringLiteral("MarianMT"), QStringLiteral("MarianModel")}, openMarian);
}

} // namespace families

} // namespace attnscope
