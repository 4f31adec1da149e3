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
    // One index per text: a scan from the start for each token was quadratic (over 60 s for 1 MB).
    const CodePointIndex indexA(textA);
    const std::optional<CodePointIndex> indexB = textB ? std::optional<CodePointIndex>(*textB) : std::nullopt;
    for (int i = 0; i < encoding.size(); ++i) {
        const auto [begin, end] = encoding.offsets[size_t(i)];
        const int sequence = encoding.sequenceIds.empty() ? 0 : encoding.sequenceIds[size_t(i)];
        const bool special = !encoding.special.empty() && encoding.special[size_t(i)];
        const CodePointIndex& own = sequence == 1 && indexB ? *indexB : indexA;
        text.covered << (!special && sequence >= 0 && end > begin ? own.substring(begin, end)
                                                                  : encoding.tokens.at(i));
    }
    // The census's rule (stats/encodingroles.h): special, [CLS]/BOS, [SEP]/EOS and punctuation positions.
    text.roles = tokenRolesFromEncoding(encoding, tokenizer, textA, textB);
    return text;
}

void checkTokenCount(const TransformerModel& model, qsizetype tokens)
{
    const int positions = model.config().maxPositions;
    if (tokens > positions)
        throw ModelError(model.info().name, QStringLiteral("%1 tokens are more than the %2 positions this "
                                                           "model takes; shorten the text")
                                                .arg(tokens)
                                                .arg(positions));
}

ModelText encodeForModel(const TransformerModel& model, const QString& textA,
                         const std::optional<QString>& textB, PositionLimit limit)
{
    // An empty text would still give [CLS] [SEP] (or <s>): a run whose heads mean nothing.
    if (textA.trimmed().isEmpty())
        throw ModelError(model.info().name, QStringLiteral("the text is empty; give a sentence"));
    std::unique_ptr<Tokenizer> own;
    const Tokenizer& tokenizer = modelTokenizer(model, &own);
    Encoding encoding;
    try {
        encoding = tokenizer.encode(textA, textB, true);
    } catch (const TokenizerError& e) {
        throw ModelError(QString::fromStdString(e.what()));
    }
    if (encoding.size() == 0) throw ModelError(model.info().name, QStringLiteral("the text gives no tokens"));
    if (limit == PositionLimit::Model) checkTokenCount(model, encoding.size());
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
