#include "explorer/wordtokenizer.h"

namespace attnscope {

namespace {
void addSpecial(WordTokens& out, const QString& token)
{
    out.tokens << token;
    out.offsets.emplace_back(0, 0);
    out.sequenceIds.push_back(-1);
    out.special.push_back(true);
}

void addWords(WordTokens& out, const QString& text, int sequence)
{
    const QList<uint> codePoints = text.toUcs4();
    int i = 0;
    const int n = int(codePoints.size());
    auto isWord = [](uint c) { return QChar::isLetterOrNumber(c) || QChar::category(c) == QChar::Mark_NonSpacing; };
    while (i < n) {
        const uint c = codePoints[i];
        if (QChar::isSpace(c)) {
            ++i;
            continue;
        }
        int end = i + 1;
        if (isWord(c)) {
            while (end < n && (isWord(codePoints[end]) ||
                               (codePoints[end] == '\'' && end + 1 < n && isWord(codePoints[end + 1]))))
                ++end;
        }
        out.tokens << QString::fromUcs4(reinterpret_cast<const char32_t*>(codePoints.constData() + i), end - i);
        out.offsets.emplace_back(i, end);
        out.sequenceIds.push_back(sequence);
        out.special.push_back(false);
        i = end;
    }
}
} // namespace

WordTokens wordTokenize(const QString& textA, const std::optional<QString>& textB, bool bertSpecials)
{
    WordTokens out;
    addSpecial(out, bertSpecials ? QStringLiteral("[CLS]") : QStringLiteral("<s>"));
    addWords(out, textA, 0);
    if (bertSpecials)
        addSpecial(out, QStringLiteral("[SEP]"));
    if (textB && bertSpecials) {
        addWords(out, *textB, 1);
        addSpecial(out, QStringLiteral("[SEP]"));
    }
    return out;
}

} // namespace attnscope
