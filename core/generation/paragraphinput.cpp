#include "paragraphinput.h"

#include "model/modelerror.h"
#include "tokenizer/tokenizer.h"

#include <QStringList>

namespace attnscope {

ParagraphJoin paragraphJoinFromSetting(const QString& value, const QString& settingsFile)
{
    if (value.isEmpty() || value == QLatin1String("eos")) return ParagraphJoin::EndOfText;
    if (value == QLatin1String("space")) return ParagraphJoin::Space;
    throw ModelError(settingsFile,
                     QStringLiteral("\"paragraphs\" is '%1'; it must be \"eos\" or \"space\"").arg(value));
}

QString paragraphJoinName(ParagraphJoin join)
{
    return join == ParagraphJoin::Space ? QStringLiteral("space") : QStringLiteral("eos");
}

namespace {
ParagraphPiece specialToken(const Tokenizer& tokenizer, int id)
{
    ParagraphPiece piece;
    piece.encoding.ids = {id};
    piece.encoding.tokens = {tokenizer.idToToken(id)};
    piece.encoding.offsets = {{0, 0}};
    piece.encoding.typeIds = {0};
    piece.encoding.sequenceIds = {-1};
    piece.encoding.special = {true};
    return piece;
}
} // namespace

std::vector<ParagraphPiece> paragraphPieces(const Tokenizer& tokenizer, const QString& text,
                                            ParagraphJoin join)
{
    QStringList paragraphs;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString paragraph = line.trimmed();
        if (!paragraph.isEmpty()) paragraphs.append(paragraph);
    }
    try {
        std::vector<ParagraphPiece> pieces;
        if (join == ParagraphJoin::Space) {
            const QString joined = paragraphs.join(QLatin1Char(' '));
            pieces.push_back({joined, tokenizer.encode(joined, std::nullopt, true)});
            return pieces;
        }
        const std::optional<int> bos = tokenizer.bosId(), eos = tokenizer.eosId();
        if (!eos)
            throw ModelError(tokenizer.sourcePath(),
                             QStringLiteral("paragraphs followed by the end-of-text token need a tokenizer "
                                            "with one; this one has none"));
        if (bos) pieces.push_back(specialToken(tokenizer, *bos));
        for (const QString& paragraph : paragraphs) {
            pieces.push_back({paragraph, tokenizer.encode(paragraph, std::nullopt, false)});
            pieces.push_back(specialToken(tokenizer, *eos));
        }
        return pieces;
    } catch (const TokenizerError& e) {
        throw ModelError(QString::fromStdString(e.what()));
    }
}

std::vector<int> paragraphIds(const Tokenizer& tokenizer, const QString& text, ParagraphJoin join)
{
    std::vector<int> ids;
    for (const ParagraphPiece& piece : paragraphPieces(tokenizer, text, join))
        ids.insert(ids.end(), piece.encoding.ids.begin(), piece.encoding.ids.end());
    return ids;
}

} // namespace attnscope
