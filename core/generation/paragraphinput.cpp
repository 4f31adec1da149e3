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

std::vector<int> paragraphIds(const Tokenizer& tokenizer, const QString& text, ParagraphJoin join)
{
    QStringList paragraphs;
    for (const QString& line : text.split(QLatin1Char('\n'))) {
        const QString paragraph = line.trimmed();
        if (!paragraph.isEmpty()) paragraphs.append(paragraph);
    }
    try {
        if (join == ParagraphJoin::Space)
            return tokenizer.encode(paragraphs.join(QLatin1Char(' ')), std::nullopt, true).ids;
        const std::optional<int> bos = tokenizer.bosId(), eos = tokenizer.eosId();
        if (!eos)
            throw ModelError(tokenizer.sourcePath(),
                             QStringLiteral("paragraphs followed by the end-of-text token need a tokenizer "
                                            "with one; this one has none"));
        std::vector<int> ids;
        if (bos) ids.push_back(*bos);
        for (const QString& paragraph : paragraphs) {
            const std::vector<int> encoded = tokenizer.encode(paragraph, std::nullopt, false).ids;
            ids.insert(ids.end(), encoded.begin(), encoded.end());
            ids.push_back(*eos);
        }
        return ids;
    } catch (const TokenizerError& e) {
        throw ModelError(QString::fromStdString(e.what()));
    }
}

} // namespace attnscope
