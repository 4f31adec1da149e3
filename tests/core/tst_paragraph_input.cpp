// A text of one paragraph per line, fed as the model was trained (generation/paragraphinput.h), with the
// built-in decoder's tokenizer. Independent truths:
//   eos    <s>, then each paragraph's own encoding (no specials) followed by </s>, built here by hand;
//   space  for this tokenizer (the normalizer prepends U+2581 and turns spaces into it; merges never cross
//          it) the paragraphs joined by a space encode as the concatenation of the paragraphs' encodings:
//          the eos ids with every </s> removed (the property train.py --join relies on, checked with the
//          reference tokenizer by tools/train-builtin-models/check_join_tokenization.py);
//   setting attnscope.json "paragraphs" reaches ModelInfo; a bad value is one line naming the file.

#include "generation/paragraphinput.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;

namespace {

QString decoderFolder()
{
    return QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");
}

const QString kText = QStringLiteral("  The cat sat on the mat.\n\nKedi mindere oturdu; çığ düştü.  \n"
                                     "seccomp - operate on Secure Computing state\n");
const QStringList kParagraphs{QStringLiteral("The cat sat on the mat."),
                              QStringLiteral("Kedi mindere oturdu; çığ düştü."),
                              QStringLiteral("seccomp - operate on Secure Computing state")};

} // namespace

class TestParagraphInput : public QObject
{
    Q_OBJECT

private slots:
    void endOfTextFollowsEveryParagraph();
    void spaceJoinIsTheConcatenationWithoutEndOfText();
    void piecesAreTheParagraphsAndTheirSpecialTokens();
    void settingIsReadFromTheModelFolder();
    void badSettingNamesTheFile();
};

void TestParagraphInput::endOfTextFollowsEveryParagraph()
{
    const auto tokenizer = Tokenizer::fromFolder(decoderFolder());
    const int bos = tokenizer->bosId().value(), eos = tokenizer->eosId().value();
    std::vector<int> expected{bos};
    for (const QString& p : kParagraphs) {
        const std::vector<int> ids = tokenizer->encode(p, std::nullopt, false).ids;
        QVERIFY(!ids.empty());
        expected.insert(expected.end(), ids.begin(), ids.end());
        expected.push_back(eos);
    }
    QCOMPARE(paragraphIds(*tokenizer, kText, ParagraphJoin::EndOfText), expected);
}

void TestParagraphInput::spaceJoinIsTheConcatenationWithoutEndOfText()
{
    const auto tokenizer = Tokenizer::fromFolder(decoderFolder());
    const int eos = tokenizer->eosId().value();
    std::vector<int> withoutEos = paragraphIds(*tokenizer, kText, ParagraphJoin::EndOfText);
    withoutEos.erase(std::remove(withoutEos.begin(), withoutEos.end(), eos), withoutEos.end());
    const std::vector<int> joined = paragraphIds(*tokenizer, kText, ParagraphJoin::Space);
    QCOMPARE(joined, withoutEos);
    QCOMPARE(joined.front(), tokenizer->bosId().value());
}

// What the Streaming tab labels: in order, <s>, then each paragraph (its own text and encoding) followed by a
// lone </s>; for Space, one piece whose text is the paragraphs joined by a space.
void TestParagraphInput::piecesAreTheParagraphsAndTheirSpecialTokens()
{
    const auto tokenizer = Tokenizer::fromFolder(decoderFolder());
    const int bos = tokenizer->bosId().value(), eos = tokenizer->eosId().value();
    const std::vector<ParagraphPiece> pieces = paragraphPieces(*tokenizer, kText, ParagraphJoin::EndOfText);
    QCOMPARE(int(pieces.size()), 1 + 2 * int(kParagraphs.size()));
    QVERIFY(pieces[0].text.isEmpty());
    QCOMPARE(pieces[0].encoding.ids, std::vector<int>{bos});
    QCOMPARE(pieces[0].encoding.tokens, QStringList{QStringLiteral("<s>")});
    for (int p = 0; p < int(kParagraphs.size()); ++p) {
        const ParagraphPiece& paragraph = pieces[size_t(1 + 2 * p)];
        const ParagraphPiece& end = pieces[size_t(2 + 2 * p)];
        QCOMPARE(paragraph.text, kParagraphs[p]);
        QCOMPARE(paragraph.encoding.ids, tokenizer->encode(kParagraphs[p], std::nullopt, false).ids);
        QCOMPARE(int(paragraph.encoding.offsets.size()), paragraph.encoding.size());
        QVERIFY(end.text.isEmpty());
        QCOMPARE(end.encoding.ids, std::vector<int>{eos});
        QCOMPARE(end.encoding.tokens, QStringList{QStringLiteral("</s>")});
        QVERIFY(end.encoding.special.at(0));
    }
    const std::vector<ParagraphPiece> joined = paragraphPieces(*tokenizer, kText, ParagraphJoin::Space);
    QCOMPARE(int(joined.size()), 1);
    QCOMPARE(joined[0].text, kParagraphs.join(QLatin1Char(' ')));
    QCOMPARE(joined[0].encoding.ids, paragraphIds(*tokenizer, kText, ParagraphJoin::Space));
}

void TestParagraphInput::settingIsReadFromTheModelFolder()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    for (const char* name : {"config.json", "tokenizer.json", "model.safetensors"})
        QVERIFY(QFile::copy(QDir(decoderFolder()).filePath(QLatin1String(name)),
                            dir.filePath(QLatin1String(name))));
    QFile settings(dir.filePath(QStringLiteral("attnscope.json")));
    QVERIFY(settings.open(QIODevice::WriteOnly));
    settings.write(R"({"description": "test", "paragraphs": "space"})");
    settings.close();
    const std::optional<ModelInfo> info = ModelCatalog::describe(dir.path());
    QVERIFY(info);
    QCOMPARE(info->paragraphs, QStringLiteral("space"));
    QCOMPARE(paragraphJoinFromSetting(info->paragraphs, settings.fileName()), ParagraphJoin::Space);
    QCOMPARE(paragraphJoinFromSetting(QString(), settings.fileName()), ParagraphJoin::EndOfText);
    QCOMPARE(paragraphJoinFromSetting(QStringLiteral("eos"), settings.fileName()), ParagraphJoin::EndOfText);
}

void TestParagraphInput::badSettingNamesTheFile()
{
    try {
        paragraphJoinFromSetting(QStringLiteral("newline"), QStringLiteral("/m/attnscope.json"));
        QFAIL("no error");
    } catch (const ModelError& e) {
        QVERIFY2(e.message().startsWith(QStringLiteral("/m/attnscope.json: ")), qPrintable(e.message()));
        QVERIFY2(e.message().contains(QStringLiteral("newline")), qPrintable(e.message()));
        QVERIFY(!e.message().contains(QLatin1Char('\n')));
    }
}

QTEST_GUILESS_MAIN(TestParagraphInput)
#include "tst_paragraph_input.moc"
