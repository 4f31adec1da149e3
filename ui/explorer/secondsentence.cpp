#include "explorer/secondsentence.h"

#include <QRegularExpression>
#include <QSet>
#include <QStringList>
#include <algorithm>

namespace attnscope {

SentenceLanguage guessSentenceLanguage(const QString& text)
{
    static const QString turkishLetters = QStringLiteral("çğıİöşüÇĞÖŞÜ");
    for (const QChar c : text)
        if (turkishLetters.contains(c)) return SentenceLanguage::Turkish;
    // Without those letters (ASCII-typed Turkish): the commoner language's function words.
    static const QSet<QString> english{
        QStringLiteral("the"), QStringLiteral("a"),  QStringLiteral("an"),   QStringLiteral("is"),
        QStringLiteral("was"), QStringLiteral("of"), QStringLiteral("to"),   QStringLiteral("and"),
        QStringLiteral("in"),  QStringLiteral("it"), QStringLiteral("that"), QStringLiteral("because")};
    static const QSet<QString> turkish{QStringLiteral("ve"),   QStringLiteral("bir"),   QStringLiteral("bu"),
                                       QStringLiteral("da"),   QStringLiteral("de"),    QStringLiteral("ile"),
                                       QStringLiteral("icin"), QStringLiteral("cunku"), QStringLiteral("cok"),
                                       QStringLiteral("ama"),  QStringLiteral("mi"),    QStringLiteral("ne")};
    // Past-tense and progressive endings (oturdu, geldi, gidiyor) are rare at the end of English words.
    static const QStringList turkishEndings{
        QStringLiteral("du"),  QStringLiteral("di"),  QStringLiteral("tu"),   QStringLiteral("ti"),
        QStringLiteral("yor"), QStringLiteral("mis"), QStringLiteral("ecek"), QStringLiteral("acak")};
    int en = 0, tr = 0;
    static const QRegularExpression separators(QStringLiteral("[^\\w']+"));
    for (const QString& word : text.toLower().split(separators, Qt::SkipEmptyParts)) {
        en += english.contains(word);
        tr += turkish.contains(word);
        if (word.size() > 3)
            tr += std::any_of(turkishEndings.begin(), turkishEndings.end(),
                              [&word](const QString& ending) { return word.endsWith(ending); });
    }
    return tr > en ? SentenceLanguage::Turkish : SentenceLanguage::English;
}

QString defaultSecondSentence(const QString& textA)
{
    return guessSentenceLanguage(textA) == SentenceLanguage::Turkish
               ? QStringLiteral("Kupa bavula sığmadı çünkü çok küçüktü.")
               : QStringLiteral("The trophy didn't fit into the suitcase because it was too small.");
}

} // namespace attnscope
