// Marian's tokenizer (source.spm / target.spm through libsentencepiece + vocab.json) against the ids that
// transformers' slow MarianTokenizer gave for the oracle case's texts (tests/data/oracle/marian_s0/case.json,
// made by tools/oracle/make_marian_case.py), and on damaged tokenizer files.

#include "support/testdata.h"
#include "tokenizer/mariantokenizer.h"
#include "tokenizer/sentencepiecemodel.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QString caseFolder()
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/marian_s0");
}

std::vector<int> idsOf(const QJsonValue& v)
{
    std::vector<int> ids;
    for (const QJsonValue& id : v.toArray())
        ids.push_back(id.toInt(-1));
    return ids;
}

// A copy of the case's tokenizer files in `dir`, with `file` replaced by `bytes` (or removed when null).
QString folderWith(const QTemporaryDir& dir, const QString& file, const QByteArray& bytes)
{
    for (const char* name : {"source.spm", "target.spm", "vocab.json", "tokenizer_config.json"})
        copyFileReplacing(caseFolder() + QLatin1Char('/') + QLatin1String(name),
                          dir.filePath(QLatin1String(name)));
    QFile::remove(dir.filePath(file));
    if (!bytes.isNull()) writeRequiredFile(dir.filePath(file), bytes);
    return dir.path();
}

QString openError(const QString& folder)
{
    return inputErrorOf([&] {
        MarianTokenizer::fromFolder(folder);
        return QString();
    });
}

} // namespace

class TestMarianTokenizer : public QObject
{
    Q_OBJECT

private slots:
    void idsEqualTransformers_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("target");
        QTest::addColumn<std::vector<int>>("expected");
        const QJsonObject kase = readRequiredJsonObject(caseFolder() + QStringLiteral("/case.json"));
        const auto add = [](const QJsonArray& cases, bool target) {
            QVERIFY(cases.size() >= 3);
            for (const QJsonValue& c : cases) {
                const QString text = c[QLatin1String("text")].toString();
                QTest::addRow("%s:%s", target ? "target" : "source", qPrintable(text))
                    << text << target << idsOf(c[QLatin1String("ids")]);
            }
        };
        add(kase[QLatin1String("tokenizer_cases")].toArray(), false);
        add(kase[QLatin1String("target_tokenizer_cases")].toArray(), true);
    }
    void idsEqualTransformers()
    {
        QFETCH(QString, text);
        QFETCH(bool, target);
        QFETCH(std::vector<int>, expected);
        const MarianTokenizer tokenizer = MarianTokenizer::fromFolder(caseFolder());
        const Encoding e =
            tokenizer.encode(text, target ? MarianTokenizer::Side::Target : MarianTokenizer::Side::Source);
        QCOMPARE(e.ids, expected);
        QCOMPARE(e.tokens.size(), e.size());
        QCOMPARE(e.tokens.back(), QStringLiteral("</s>"));
    }

    // The case covers what the ids depend on: Turkish letters, unknown characters (<unk>, id 1), a language
    // code (id 2), the empty text (only </s>), special tokens typed in the text.
    void caseCoversUnknownsAndCodes()
    {
        const MarianTokenizer tokenizer = MarianTokenizer::fromFolder(caseFolder());
        QCOMPARE(tokenizer.unkId(), 1);
        QCOMPARE(tokenizer.eosId(), 0);
        QCOMPARE(tokenizer.padId(), tokenizer.vocabSize() - 1);
        const Encoding snow = tokenizer.encode(QStringLiteral("snow ☃ and 雪 and ß"));
        QVERIFY(std::count(snow.ids.begin(), snow.ids.end(), tokenizer.unkId()) >= 2);
        QCOMPARE(tokenizer.encode(QStringLiteral(">>tur<< the cat sat")).ids.front(), 2);
        QCOMPARE(tokenizer.encode(QString()).ids, std::vector<int>{tokenizer.eosId()});
        // A "</s>" typed in the text is the end token itself, mid-sequence.
        const Encoding typed = tokenizer.encode(QStringLiteral("kedi</s>oturdu"));
        QVERIFY(std::find(typed.ids.begin(), typed.ids.end() - 1, tokenizer.eosId()) != typed.ids.end() - 1);
    }

    // vocab.json's ids are not the .spm's: the same pieces, other numbers.
    void vocabularyIsNotTheSpmIds()
    {
        const SentencePieceModel spm =
            SentencePieceModel::fromFile(caseFolder() + QStringLiteral("/source.spm"));
        const MarianTokenizer tokenizer = MarianTokenizer::fromFolder(caseFolder());
        const QString text = QStringLiteral("kedi mindere oturdu");
        const QStringList pieces = spm.encodePieces(text);
        std::vector<int> spmIds = spm.encodeIds(text);
        const Encoding e = tokenizer.encode(text);
        QCOMPARE(e.size(), pieces.size() + 1);
        for (int i = 0; i < pieces.size(); ++i) {
            QCOMPARE(e.tokens[i], pieces[i]);
            QCOMPARE(spm.piece(spmIds[size_t(i)]), pieces[i]);
        }
        spmIds.push_back(tokenizer.eosId());
        QVERIFY(spmIds != e.ids);
    }

    void decodeEqualsTransformers_data()
    {
        QTest::addColumn<std::vector<int>>("ids");
        QTest::addColumn<QString>("decoded");
        QTest::addColumn<QString>("withSpecial");
        const QJsonObject kase = readRequiredJsonObject(caseFolder() + QStringLiteral("/case.json"));
        for (const QJsonValue& c : kase[QLatin1String("target_tokenizer_cases")].toArray())
            QTest::newRow(qPrintable(c[QLatin1String("text")].toString()))
                << idsOf(c[QLatin1String("ids")]) << c[QLatin1String("decoded")].toString()
                << c[QLatin1String("decoded_with_special")].toString();
    }
    void decodeEqualsTransformers()
    {
        QFETCH(std::vector<int>, ids);
        QFETCH(QString, decoded);
        QFETCH(QString, withSpecial);
        const MarianTokenizer tokenizer = MarianTokenizer::fromFolder(caseFolder());
        QCOMPARE(tokenizer.decode(ids, true), decoded);
        QCOMPARE(tokenizer.decode(ids, false), withSpecial);
    }

    void damagedFilesAreNamed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem");
        QTest::newRow("source.spm missing")
            << QStringLiteral("source.spm") << QByteArray() << QStringLiteral("source.spm: ");
        QTest::newRow("target.spm missing")
            << QStringLiteral("target.spm") << QByteArray() << QStringLiteral("target.spm: ");
        QTest::newRow("source.spm corrupt")
            << QStringLiteral("source.spm") << QByteArray("\x0a\xff\xff\xff\xff\x0f garbage", 15)
            << QStringLiteral("source.spm: not a SentencePiece model");
        QTest::newRow("target.spm text")
            << QStringLiteral("target.spm") << QByteArray("{\"not\": \"a model\"}")
            << QStringLiteral("target.spm: not a SentencePiece model");
        QTest::newRow("source.spm empty")
            << QStringLiteral("source.spm") << QByteArray("") << QStringLiteral("source.spm: empty file");
        QTest::newRow("vocab.json missing")
            << QStringLiteral("vocab.json") << QByteArray() << QStringLiteral("vocab.json: ");
        QTest::newRow("vocab.json not JSON") << QStringLiteral("vocab.json") << QByteArray("{\"</s>\": 0,")
                                             << QStringLiteral("vocab.json: invalid JSON");
        QTest::newRow("vocab.json list") << QStringLiteral("vocab.json") << QByteArray("[1, 2]")
                                         << QStringLiteral("vocab.json: expected a JSON object");
        QTest::newRow("vocab.json id")
            << QStringLiteral("vocab.json") << QByteArray("{\"</s>\": 0, \"<unk>\": -3, \"<pad>\": 2}")
            << QStringLiteral("vocab.json: the id of \"<unk>\" is not an integer");
        QTest::newRow("vocab.json without <unk>")
            << QStringLiteral("vocab.json") << QByteArray("{\"</s>\": 0, \"<pad>\": 2}")
            << QStringLiteral("vocab.json: the special token \"<unk>\" is missing");
        QTest::newRow("tokenizer_config.json separate")
            << QStringLiteral("tokenizer_config.json") << QByteArray("{\"separate_vocabs\": true}")
            << QStringLiteral("tokenizer_config.json: separate_vocabs");
    }
    void damagedFilesAreNamed()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        QTemporaryDir dir;
        const QString folder = folderWith(dir, file, bytes);
        const QString error = openError(folder);
        QVERIFY2(error.startsWith(QDir(folder).filePath(problem)), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
    }

    // The good folder opens (the damaged rows above fail for their own reason, not for the copy).
    void intactCopyOpens()
    {
        QTemporaryDir dir;
        QCOMPARE(openError(folderWith(dir, QStringLiteral("unused"), QByteArray())), QString());
    }
};

QTEST_GUILESS_MAIN(TestMarianTokenizer)
#include "tst_marian_tokenizer.moc"
