// mBART (facebook/mbart-large-cc25, mbart-large-50*; transformers: modeling_mbart.py,
// MBartForConditionalGeneration): BART's blocks (model/bartstylemodel.h) run pre-LN, x = x + block(LN(x)),
// with learned positions (offset 2), layernorm_embedding, and a LayerNorm after the last layer of each stack
// (encoder.layer_norm, decoder.layer_norm). Defaults are MBartConfig's; decoding starts from
// decoder_start_token_id, else bos_token_id, as generate() falls back.

#include "model/bartstylemodel.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/modelconfig.h"

namespace attnscope {

namespace {

std::unique_ptr<EncoderDecoderModel> openMbart(const ConfigReader& r, const QString& folder)
{
    BartStyleDefaults defaults{1024, 12, 16, 4096, 50265, 1024, 1, 2, 0};
    defaults.decoderStartId = r.integer("bos_token_id", 0, 0, kMaxVocabulary - 1);
    const EncoderDecoderConfig config = readBartStyleConfig(r, QStringLiteral("mbart"), defaults);
    BartStyleOptions options = readBartStyleOptions(r, config);
    options.positions = BartStyleOptions::Positions::Learned;
    options.embeddingNorm = true;
    options.preNorm = true;
    options.finalNorm = true;
    return std::make_unique<BartStyleModel>(config, options, folder);
}

} // namespace

namespace families {

FamilyUnit mbartFamilyUnit()
{
    return encoderDecoderUnit(QStringLiteral("mbart"),
                              {QStringLiteral("MBartFor"), QStringLiteral("MBartModel")}, openMbart);
}

} // namespace families

} // namespace attnscope
