#include "explorer/tokenlabels.h"

#include "analysis/modeltext.h"

namespace attnscope {

QString subwordLabel(const QString& vocabularyToken, const QString& coveredText)
{
    if (coveredText.isEmpty()) return vocabularyToken;
    static const QString hashes = QStringLiteral("##");
    static const QChar sentencePieceSpace(0x2581); // ▁ (SentencePiece, Llama)
    static const QChar byteLevelSpace(0x0120);     // Ġ (GPT-2 byte-level BPE)
    if (vocabularyToken.startsWith(hashes) && !coveredText.startsWith(hashes)) return hashes + coveredText;
    // A word-start marker, as the vocabulary writes it (the covered text may include the space itself).
    for (QChar marker : {sentencePieceSpace, byteLevelSpace})
        if (vocabularyToken.startsWith(marker) && !coveredText.startsWith(marker))
            return marker + coveredText.trimmed();
    return coveredText;
}

QStringList tokenLabels(const ModelText& text)
{
    QStringList labels;
    labels.reserve(text.size());
    for (int i = 0; i < text.size(); ++i)
        labels << (text.roles.isSpecial(i) ? text.covered.at(i)
                                           : subwordLabel(text.tokens.at(i), text.covered.at(i)));
    return labels;
}

} // namespace attnscope
