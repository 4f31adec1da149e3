// BART (facebook/bart-base, bart-large, distilbart; transformers: modeling_bart.py,
// BartForConditionalGeneration): the post-LN encoder-decoder of model/bartstylemodel.h with learned positions
// (a table of max_position_embeddings + 2 rows, read from row 2 on), a LayerNorm on the embeddings of each
// stack (layernorm_embedding), and one embedding shared by encoder, decoder and LM head. Decoding starts from
// </s> (decoder_start_token_id 2). Defaults are BartConfig's. mBART (pre-LN, final LayerNorms) is not this
// unit.

#include "model/bartstylemodel.h"
#include "model/configreader.h"
#include "model/familyregistry.h"

namespace attnscope {

namespace {

std::unique_ptr<EncoderDecoderModel> openBart(const ConfigReader& r, const QString& folder)
{
    const EncoderDecoderConfig config =
        readBartStyleConfig(r, QStringLiteral("bart"), {1024, 12, 16, 4096, 50265, 1024, 1, 2, 2});
    BartStyleOptions options = readBartStyleOptions(r, config);
    options.positions = BartStyleOptions::Positions::Learned;
    options.embeddingNorm = true;
    return std::make_unique<BartStyleModel>(config, options, folder);
}

} // namespace

namespace families {

FamilyUnit bartFamilyUnit()
{
    return encoderDecoderUnit(QStringLiteral("bart"),
                              {QStringLiteral("BartFor"), QStringLiteral("BartModel")}, openBart);
}

} // namespace families

} // namespace attnscope
