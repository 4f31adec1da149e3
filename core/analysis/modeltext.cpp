#include "analysis/modeltext.h"

#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "stats/encodingroles.h"

namespace attnscope {

const Tokenizer& modelTokenizer(const TransformerModel& model, std::unique_ptr<Tokenizer>* own)
{
    if (const Tokenizer* tokenizer = model.tokenizer()) return *tokenizer;
    if (model.isGguf()) throw ModelError(model.tokenizerError()); // it carries none we can read
    try {
        *own = Tokenizer::fromFolder(model.folder());
    } catch (const TokenizerError&) {
        // The model tried the same files when it opened; its message names the file and the problem.
        throw ModelError(model.tokenizerError());
    }
    return **own;
}

namespace {

void addRole(TokenRoles& roles, const Tokenizer& tokenizer, int position, int id, bool special)
{
    const std::optional<int> cls = tokenizer.clsId(), bos = tokenizer.bosId();
    const std::optional<int> sep = tokenizer.sepId(), eos = tokenizer.eosId();
    roles.special.push_back(special);
    if (special && ((cls && id == *cls) || (bos && id == *bos)))
        roles.clsPositions.push_back(position);
    else if (special && ((sep && id == *sep) || (eos && id == *eos)))
        roles.sepPositions.push_back(position);
}

} // namespace

ModelText modelText(const Encoding& encoding, const Tokenizer& tokenizer, const QString& textA,
                    const std::optional<QString>& textB)
{
    ModelText text;
    text.ids = encoding.ids;
    text.typeIds = encoding.typeIds;
    text.tokens = encoding.tokens;
    for (int i = 0; i < encoding.size(); ++i) {
        const auto [begin, end] = encoding.offsets[size_t(i)];
        const int sequence = encoding.sequenceIds.empty() ? 0 : encoding.sequenceIds[size_t(i)];
        const bool special = !encoding.special.empty() && encoding.special[size_t(i)];
        const QString& own = sequence == 1 && textB ? *textB : textA;
        text.covered << (!special && sequence >= 0 && end > begin ? substringByCodePoints(own, begin, end)
                                                                  : encoding.tokens.at(i));
    }
    // The census's rule (stats/encodingroles.h): special, [CLS]/BOS, [SEP]/EOS and punctuation positions.
    text.roles = tokenRolesFromEncoding(encoding, tokenizer, textA, textB);
    return text;
}

ModelText encodeForModel(const TransformerModel& model, const QString& textA,
                         const std::optional<QString>& textB)
{
    std::unique_ptr<Tokenizer> own;
    const Tokenizer& tokenizer = modelTokenizer(model, &own);
    Encoding encoding;
    try {
        encoding = tokenizer.encode(textA, textB, true);
    } catch (const TokenizerError& e) {
        throw ModelError(QString::fromStdString(e.what()));
    }
    if (encoding.size() == 0) throw ModelError(model.info().name, QStringLiteral("the text gives no tokens"));
    return modelText(encoding, tokenizer, textA, textB);
}

ModelText idsForModel(const TransformerModel& model, const std::vector<int>& ids)
{
    ModelText text;
    text.ids = ids;
    const Tokenizer* tokenizer = model.tokenizer();
    for (size_t i = 0; i < ids.size(); ++i) {
        const QString token = model.tokenText(ids[i]);
        text.tokens << token;
        text.covered << token;
        if (tokenizer) {
            const bool special = tokenizer->clsId() == ids[i] || tokenizer->bosId() == ids[i] ||
                                 tokenizer->sepId() == ids[i] || tokenizer->eosId() == ids[i];
            addRole(text.roles, *tokenizer, int(i), ids[i], special);
        } else {
            text.roles.special.push_back(false);
        }
    }
    return text;
}

} // namespace attnscope
