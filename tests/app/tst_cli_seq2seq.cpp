// `attnscope translate` and `attention --part` on the encoder-decoder oracle cases (marian_s0, bart_s0,
// mbart_s0, t5_s0, flan_t5_s0; tools/oracle/make_seq2seq_case.py, transformers 4.36):
//   translate   the output ids equal generate()'s stored in case.json (greedy and beam, with the beams and
//               max_length it ran), the --text source equals the slow tokenizers' ids, and --json's
//               cross_attention holds one probability row per output token, that token's step's row (the
//               source's pads masked as generate() masks them);
//   attention   --part encoder|decoder|cross equals the oracle's float64 attentions to 1e-5, as npy and
//               JSON, for the case's source and decoder input ids, and for its texts (--text, --target);
//   hostile     a wrong part, missing target ids, --part on a single-stack model and its lack on an
//               encoder-decoder one, translate on a single-stack model or --text without a tokenizer:
//               one line on stderr, exit code 2, nothing on stdout.

#include "core/support/modelfixtures.h"
#include "io/npy.h"
#include "support/processrun.h"
#include "support/testdata.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

ProcessRun runAttnscope(const QStringList& arguments)
{
    return runProcess(QStringLiteral(ATTNSCOPE_BINARY), arguments);
}

QJsonObject caseJson(const QString& caseName)
{
    return readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/case.json"));
}

std::vector<int> idsOf(const QJsonValue& value)
{
    std::vector<int> ids;
    for (const QJsonValue& v : value.toArray())
        ids.push_back(v.toInt());
    return ids;
}

// [layer][head][query][key] JSON as one flat list, checking that the nesting is rectangular of `shape`.
bool flatten(const QJsonArray& nested, const std::vector<qint64>& shape, std::vector<double>* values,
             size_t depth = 0)
{
    if (qint64(nested.size()) != shape[depth]) return false;
    for (const QJsonValue& v : nested) {
        if (depth + 1 == shape.size()) {
            if (!v.isDouble()) return false;
            values->push_back(v.toDouble());
        } else if (!flatten(v.toArray(), shape, values, depth + 1)) {
            return false;
        }
    }
    return true;
}

double maxAbsError(const std::vector<double>& a, const std::vector<double>& b)
{
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, std::abs(a[i] - b[i]));
    return worst;
}

const char* const kCases[] = {"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"};

} // namespace

class TestCliSeq2Seq : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void translateEqualsGenerate_data();
    void translateEqualsGenerate();
    void translatePrintsIdsAndText();
    void textSourceIsTheTokenizers_data();
    void textSourceIsTheTokenizers();
    void crossAttentionRowsAreTheSteps_data();
    void crossAttentionRowsAreTheSteps();
    void crossAttentionMasksSourcePads();
    void attentionPartEqualsOracle_data();
    void attentionPartEqualsOracle();
    void targetTextIsTheShiftedLabels_data();
    void targetTextIsTheShiftedLabels();
    void hostileArguments_data();
    void hostileArguments();

private:
    QTemporaryDir m_dir;
};

void TestCliSeq2Seq::translateEqualsGenerate_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<std::vector<int>>("source");
    QTest::addColumn<int>("beams");
    QTest::addColumn<int>("maxLength");
    QTest::addColumn<std::vector<int>>("expected");
    for (const char* name : kCases) {
        const QJsonObject c = caseJson(QLatin1String(name));
        const std::vector<int> source = idsOf(c[QLatin1String("source_ids")]);
        for (const char* kind : {"greedy", "beam"}) {
            const QJsonObject g = c[QLatin1String("generate")][QLatin1String(kind)].toObject();
            QTest::addRow("%s:%s", name, kind)
                << QString::fromLatin1(name) << source << g[QLatin1String("num_beams")].toInt()
                << g[QLatin1String("max_length")].toInt() << idsOf(g[QLatin1String("ids")]);
        }
        // More sources: greedy and 4 beams to 20 tokens, outputs ending on their own </s>, T5 sources with
        // <pad>.
        const QJsonArray more = c[QLatin1String("generate_cases")].toArray();
        for (int i = 0; i < more.size(); ++i) {
            const QJsonObject g = more[i].toObject();
            QTest::addRow("%s:more %d:beams %d", name, i / 2, g[QLatin1String("num_beams")].toInt())
                << QString::fromLatin1(name) << idsOf(g[QLatin1String("source_ids")])
                << g[QLatin1String("num_beams")].toInt() << g[QLatin1String("max_length")].toInt()
                << idsOf(g[QLatin1String("ids")]);
        }
    }
}

void TestCliSeq2Seq::translateEqualsGenerate()
{
    QFETCH(QString, caseName);
    QFETCH(std::vector<int>, source);
    QFETCH(int, beams);
    QFETCH(int, maxLength);
    QFETCH(std::vector<int>, expected);
    const ProcessRun run = runAttnscope(
        {QStringLiteral("translate"), QStringLiteral("--model"), oracleFolder(caseName),
         QStringLiteral("--ids"), idsArgument(source), QStringLiteral("--num-beams"), QString::number(beams),
         QStringLiteral("--max-length"), QString::number(maxLength), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject o = run.json();
    QCOMPARE(idsOf(o[QLatin1String("target_ids")]), expected);
    QCOMPARE(idsOf(o[QLatin1String("source_ids")]), source);
    QCOMPARE(o[QLatin1String("num_beams")].toInt(), beams);
}

void TestCliSeq2Seq::translatePrintsIdsAndText()
{
    // Marian's beam case without --json: the ids as lines, and the text of the output through target.spm (the
    // pieces of the ids after decoder_start and before </s>, joined as SentencePiece decodes them).
    const QJsonObject c = caseJson(QStringLiteral("marian_s0"));
    const QJsonObject beam = c[QLatin1String("generate")][QLatin1String("beam")].toObject();
    const ProcessRun run = runAttnscope(
        {QStringLiteral("translate"), QStringLiteral("--model"), oracleFolder(QStringLiteral("marian_s0")),
         QStringLiteral("--text"), c[QLatin1String("source_text")].toString(), QStringLiteral("--beams"),
         QString::number(beam[QLatin1String("num_beams")].toInt()), QStringLiteral("--max-length"),
         QString::number(beam[QLatin1String("max_length")].toInt())});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    const QStringList lines = run.outText().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0],
             QStringLiteral("source ids: ") + idsArgument(c[QLatin1String("source_ids")].toArray()));
    QCOMPARE(lines[1], QStringLiteral("target ids: ") + idsArgument(beam[QLatin1String("ids")].toArray()));
    // [124, 56, 11, 56 x 8, 0]: "▁k" "u" then eight "▁k" -> "ku k k k k k k k k".
    QCOMPARE(idsOf(beam[QLatin1String("ids")]),
             (std::vector<int>{124, 56, 11, 56, 56, 56, 56, 56, 56, 56, 56, 0}));
    QCOMPARE(c[QLatin1String("source_tokens")].toArray()[0].toString(), QStringLiteral("▁k"));
    QCOMPARE(lines[2], QStringLiteral("target text: ku k k k k k k k k"));
}

void TestCliSeq2Seq::textSourceIsTheTokenizers_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("text");
    QTest::addColumn<std::vector<int>>("expected");
    // marian_s0: MarianTokenizer (source.spm + vocab.json); t5_s0: the slow T5Tokenizer (spiece.model).
    for (const char* name : {"marian_s0", "t5_s0"}) {
        const QJsonArray cases = caseJson(QLatin1String(name))[QLatin1String("tokenizer_cases")].toArray();
        QVERIFY(cases.size() >= 3);
        for (int i = 0; i < cases.size(); ++i) {
            const QJsonObject c = cases[i].toObject();
            if (c[QLatin1String("text")].toString().trimmed().isEmpty()) continue; // refused as empty
            QTest::addRow("%s:%d", name, i)
                << QString::fromLatin1(name) << c[QLatin1String("text")].toString()
                << idsOf(c[QLatin1String("ids")]);
        }
    }
}

void TestCliSeq2Seq::textSourceIsTheTokenizers()
{
    QFETCH(QString, caseName);
    QFETCH(QString, text);
    QFETCH(std::vector<int>, expected);
    const ProcessRun run =
        runAttnscope({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
                      QStringLiteral("--text"), text, QStringLiteral("--part"), QStringLiteral("encoder")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QCOMPARE(idsOf(run.json()[QLatin1String("source_ids")]), expected);
    QCOMPARE(run.json()[QLatin1String("source_tokens")].toArray().size(), qsizetype(expected.size()));
}

void TestCliSeq2Seq::crossAttentionRowsAreTheSteps_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("kind");
    QTest::newRow("marian_s0:beam") << QStringLiteral("marian_s0") << QStringLiteral("beam");
    QTest::newRow("t5_s0:greedy") << QStringLiteral("t5_s0") << QStringLiteral("greedy");
    QTest::newRow("bart_s0:beam") << QStringLiteral("bart_s0") << QStringLiteral("beam");
}

void TestCliSeq2Seq::crossAttentionRowsAreTheSteps()
{
    // generate() scores output token i (after decoder_start) from the decoder's position i - 1; the decoder
    // is causal, so that step's cross-attention is row i - 1 of a pass over the output without its last
    // token: what `attention --part cross` gives for those target ids (itself checked against the oracle
    // below).
    QFETCH(QString, caseName);
    QFETCH(QString, kind);
    const QJsonObject c = caseJson(caseName);
    const QJsonObject g = c[QLatin1String("generate")][kind].toObject();
    const std::vector<int> source = idsOf(c[QLatin1String("source_ids")]);
    const ProcessRun translated =
        runAttnscope({QStringLiteral("translate"), QStringLiteral("--model"), oracleFolder(caseName),
                      QStringLiteral("--ids"), idsArgument(source), QStringLiteral("--num-beams"),
                      QString::number(g[QLatin1String("num_beams")].toInt()), QStringLiteral("--max-length"),
                      QString::number(g[QLatin1String("max_length")].toInt()), QStringLiteral("--json")});
    QVERIFY2(translated.exitCode == 0, translated.err.constData());
    const QJsonObject t = translated.json();
    std::vector<int> output = idsOf(t[QLatin1String("target_ids")]);
    QCOMPARE(output, idsOf(g[QLatin1String("ids")]));
    const qint64 layers = t[QLatin1String("layers")].toInt(), heads = t[QLatin1String("heads")].toInt();
    QVERIFY(layers > 0 && heads > 0);
    const std::vector<qint64> shape{layers, heads, qint64(output.size()) - 1, qint64(source.size())};
    std::vector<double> rows;
    QVERIFY(flatten(t[QLatin1String("cross_attention")].toArray(), shape, &rows));
    for (size_t r = 0; r < rows.size(); r += source.size()) {
        double sum = 0;
        for (size_t k = 0; k < source.size(); ++k) {
            QVERIFY(rows[r + k] >= 0);
            sum += rows[r + k];
        }
        QVERIFY2(std::abs(sum - 1) < 1e-5, qPrintable(QString::number(sum)));
    }
    output.pop_back();
    const ProcessRun part =
        runAttnscope({QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
                      QStringLiteral("--ids"), idsArgument(source), QStringLiteral("--part"),
                      QStringLiteral("cross"), QStringLiteral("--target-ids"), idsArgument(output)});
    QVERIFY2(part.exitCode == 0, part.err.constData());
    std::vector<double> expected;
    QVERIFY(flatten(part.json()[QLatin1String("attentions")].toArray(), shape, &expected));
    QCOMPARE(rows, expected);
}

void TestCliSeq2Seq::crossAttentionMasksSourcePads()
{
    // generate() masks the <pad> tokens of its input (flan_t5_s0's source holds two): the steps' rows give
    // them nothing, and the rest of each row still sums to 1.
    const QJsonObject c =
        caseJson(QStringLiteral("flan_t5_s0"))[QLatin1String("generate_cases")][7].toObject();
    const std::vector<int> source = idsOf(c[QLatin1String("source_ids")]);
    QCOMPARE(std::count(source.begin(), source.end(), 0), 2);
    QCOMPARE(c[QLatin1String("num_beams")].toInt(), 4);
    const ProcessRun run = runAttnscope(
        {QStringLiteral("translate"), QStringLiteral("--model"), oracleFolder(QStringLiteral("flan_t5_s0")),
         QStringLiteral("--ids"), idsArgument(source), QStringLiteral("--num-beams"), QStringLiteral("4"),
         QStringLiteral("--max-length"), QStringLiteral("20"), QStringLiteral("--json")});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject t = run.json();
    const std::vector<int> output = idsOf(t[QLatin1String("target_ids")]);
    QCOMPARE(output, idsOf(c[QLatin1String("ids")]));
    std::vector<double> rows;
    QVERIFY(flatten(t[QLatin1String("cross_attention")].toArray(),
                    {t[QLatin1String("layers")].toInt(), t[QLatin1String("heads")].toInt(),
                     qint64(output.size()) - 1, qint64(source.size())},
                    &rows));
    for (size_t r = 0; r < rows.size(); r += source.size()) {
        double sum = 0;
        for (size_t k = 0; k < source.size(); ++k) {
            if (source[k] == 0) QCOMPARE(rows[r + k], 0.0);
            sum += rows[r + k];
        }
        QVERIFY2(std::abs(sum - 1) < 1e-5, qPrintable(QString::number(sum)));
    }
}

void TestCliSeq2Seq::attentionPartEqualsOracle_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("part");
    QTest::addColumn<QString>("format");
    for (const char* name : kCases)
        for (const char* part : {"encoder", "decoder", "cross"})
            for (const char* format : {"npy", "json"})
                QTest::addRow("%s:%s:%s", name, part, format)
                    << QString::fromLatin1(name) << QString::fromLatin1(part) << QString::fromLatin1(format);
}

void TestCliSeq2Seq::attentionPartEqualsOracle()
{
    QFETCH(QString, caseName);
    QFETCH(QString, part);
    QFETCH(QString, format);
    const QJsonObject c = caseJson(caseName);
    const NpyArray expected =
        readNpyFile(oracleFolder(caseName) + QLatin1Char('/') + part + QStringLiteral("_attentions.npy"));
    QCOMPARE(expected.type, NpyArray::Type::Float64);
    QStringList arguments{QStringLiteral("attention"),
                          QStringLiteral("--model"),
                          oracleFolder(caseName),
                          QStringLiteral("--ids"),
                          idsArgument(c[QLatin1String("source_ids")].toArray()),
                          QStringLiteral("--part"),
                          part,
                          QStringLiteral("--target-ids"),
                          idsArgument(c[QLatin1String("decoder_input_ids")].toArray())};
    std::vector<double> values;
    if (format == QLatin1String("npy")) {
        const QString out = m_dir.filePath(caseName + part + QStringLiteral(".npy"));
        arguments << QStringLiteral("--format") << QStringLiteral("npy") << QStringLiteral("--out") << out
                  << QStringLiteral("--force");
        const ProcessRun run = runAttnscope(arguments);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const NpyArray got = readNpyFile(out);
        QCOMPARE(got.type, NpyArray::Type::Float32);
        QCOMPARE(got.shape, expected.shape);
        values = got.values;
    } else {
        const ProcessRun run = runAttnscope(arguments);
        QVERIFY2(run.exitCode == 0, run.err.constData());
        const QJsonObject o = run.json();
        QCOMPARE(o[QLatin1String("part")].toString(), part);
        QCOMPARE(idsOf(o[QLatin1String("source_ids")]), idsOf(c[QLatin1String("source_ids")]));
        QCOMPARE(idsOf(o[QLatin1String("target_ids")]), idsOf(c[QLatin1String("decoder_input_ids")]));
        QCOMPARE(o[QLatin1String("causal")].toBool(), part == QLatin1String("decoder"));
        QCOMPARE(qint64(o[QLatin1String("layers")].toInt()), expected.shape[0]);
        QVERIFY(flatten(o[QLatin1String("attentions")].toArray(), expected.shape, &values));
    }
    const double error = maxAbsError(values, expected.values);
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max |error| %1").arg(error)));
}

void TestCliSeq2Seq::targetTextIsTheShiftedLabels_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QString>("part");
    for (const char* name : {"marian_s0", "t5_s0"})
        for (const char* part : {"decoder", "cross"})
            QTest::addRow("%s:%s", name, part) << QString::fromLatin1(name) << QString::fromLatin1(part);
}

void TestCliSeq2Seq::targetTextIsTheShiftedLabels()
{
    // --text and --target as the oracle's texts: the ids are its tokenizer's (source) and its model's
    // decoder_input_ids (the target's labels shifted right behind decoder_start), and the attention its own.
    QFETCH(QString, caseName);
    QFETCH(QString, part);
    const QJsonObject c = caseJson(caseName);
    const ProcessRun run = runAttnscope(
        {QStringLiteral("attention"), QStringLiteral("--model"), oracleFolder(caseName),
         QStringLiteral("--text"), c[QLatin1String("source_text")].toString(), QStringLiteral("--target"),
         c[QLatin1String("target_text")].toString(), QStringLiteral("--part"), part});
    QVERIFY2(run.exitCode == 0, run.err.constData());
    const QJsonObject o = run.json();
    QCOMPARE(idsOf(o[QLatin1String("source_ids")]), idsOf(c[QLatin1String("source_ids")]));
    QCOMPARE(idsOf(o[QLatin1String("target_ids")]), idsOf(c[QLatin1String("decoder_input_ids")]));
    const NpyArray expected =
        readNpyFile(oracleFolder(caseName) + QLatin1Char('/') + part + QStringLiteral("_attentions.npy"));
    std::vector<double> values;
    QVERIFY(flatten(o[QLatin1String("attentions")].toArray(), expected.shape, &values));
    const double error = maxAbsError(values, expected.values);
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max |error| %1").arg(error)));
}

void TestCliSeq2Seq::hostileArguments_data()
{
    QTest::addColumn<QStringList>("arguments");
    QTest::addColumn<QString>("message"); // a part of the one line
    const QString marian = oracleFolder(QStringLiteral("marian_s0"));
    const QString bart = oracleFolder(QStringLiteral("bart_s0"));
    const QString gpt2 = oracleFolder(QStringLiteral("gpt2_s0"));
    const QString a = QStringLiteral("attention"), t = QStringLiteral("translate"),
                  m = QStringLiteral("--model"), text = QStringLiteral("--text"),
                  p = QStringLiteral("--part"), ids = QStringLiteral("--ids"),
                  tids = QStringLiteral("--target-ids");
    QTest::newRow("wrong part")
        << QStringList{a, m, marian, text, QStringLiteral("kedi"), p, QStringLiteral("self")}
        << QStringLiteral("attention: --part must be encoder, decoder or cross, not 'self'");
    QTest::newRow("decoder without target ids")
        << QStringList{a, m, marian, text, QStringLiteral("kedi"), p, QStringLiteral("decoder")}
        << QStringLiteral("attention: --part decoder needs --target TEXT or --target-ids");
    QTest::newRow("cross without target ids")
        << QStringList{a, m, marian, text, QStringLiteral("kedi"), p, QStringLiteral("cross")}
        << QStringLiteral("attention: --part cross needs --target TEXT or --target-ids");
    QTest::newRow("target ids not ids") << QStringList{a,
                                                       m,
                                                       marian,
                                                       text,
                                                       QStringLiteral("kedi"),
                                                       p,
                                                       QStringLiteral("cross"),
                                                       tids,
                                                       QStringLiteral("124,-3")}
                                        << QStringLiteral("--target-ids: '-3' is not a non-negative integer");
    QTest::newRow("target ids without part")
        << QStringList{a, m, marian, text, QStringLiteral("kedi"), tids, QStringLiteral("124")}
        << QStringLiteral("attention: --target-ids needs --part");
    QTest::newRow("target and target ids")
        << QStringList{a,
                       m,
                       marian,
                       text,
                       QStringLiteral("kedi"),
                       p,
                       QStringLiteral("cross"),
                       tids,
                       QStringLiteral("124"),
                       QStringLiteral("--target"),
                       QStringLiteral("the cat")}
        << QStringLiteral("attention: give one of --target or --target-ids");
    QTest::newRow("target without part") << QStringList{a,
                                                        m,
                                                        marian,
                                                        text,
                                                        QStringLiteral("kedi"),
                                                        QStringLiteral("--target"),
                                                        QStringLiteral("the")}
                                         << QStringLiteral("attention: --target needs --part");
    QTest::newRow("empty target") << QStringList{a,
                                                 m,
                                                 marian,
                                                 text,
                                                 QStringLiteral("kedi"),
                                                 p,
                                                 QStringLiteral("decoder"),
                                                 QStringLiteral("--target"),
                                                 QStringLiteral(" ")}
                                  << QStringLiteral("attention: --target is empty");
    QTest::newRow("target text without a tokenizer")
        << QStringList{a,
                       m,
                       bart,
                       ids,
                       QStringLiteral("0,5,2"),
                       p,
                       QStringLiteral("decoder"),
                       QStringLiteral("--target"),
                       QStringLiteral("the cat")}
        << QStringLiteral(
               "bart_s0: no tokenizer (none of source.spm, tokenizer.json, spiece.model); give the "
               "target as --target-ids");
    QTest::newRow("part on a decoder-only model")
        << QStringList{a, m, gpt2, text, QStringLiteral("kedi"), p, QStringLiteral("encoder")}
        << QStringLiteral("attention: --part is for encoder-decoder models");
    QTest::newRow("no part on an encoder-decoder model")
        << QStringList{a, m, marian, text, QStringLiteral("kedi")}
        << QStringLiteral(
               "is an encoder-decoder model (model_type 'marian'); give --part encoder, decoder or cross");
    QTest::newRow("layer past the decoder's") << QStringList{a,
                                                             m,
                                                             marian,
                                                             text,
                                                             QStringLiteral("kedi"),
                                                             p,
                                                             QStringLiteral("cross"),
                                                             tids,
                                                             QStringLiteral("124"),
                                                             QStringLiteral("--layer"),
                                                             QStringLiteral("2")}
                                              << QStringLiteral("attention: --layer 2 is outside 0..1");
    QTest::newRow("norm with part") << QStringList{a,
                                                   m,
                                                   marian,
                                                   text,
                                                   QStringLiteral("kedi"),
                                                   p,
                                                   QStringLiteral("encoder"),
                                                   QStringLiteral("--measure"),
                                                   QStringLiteral("norm")}
                                    << QStringLiteral("--measure norm is not available with --part");
    QTest::newRow("translate a decoder-only model") << QStringList{t, m, gpt2, text, QStringLiteral("kedi")}
                                                    << QStringLiteral("is not an encoder-decoder model");
    QTest::newRow("translate text without a tokenizer")
        << QStringList{t, m, bart, text, QStringLiteral("kedi")}
        << QStringLiteral(
               "bart_s0: no tokenizer (none of source.spm, tokenizer.json, spiece.model); give the "
               "source as --ids");
    QTest::newRow("attention text without a tokenizer")
        << QStringList{a, m, bart, text, QStringLiteral("kedi"), p, QStringLiteral("encoder")}
        << QStringLiteral("bart_s0: no tokenizer");
    QTest::newRow("zero beams")
        << QStringList{t,
                       m,
                       marian,
                       ids,
                       QStringLiteral("56,0"),
                       QStringLiteral("--num-beams"),
                       QStringLiteral("0")}
        << QStringLiteral("translate: --num-beams must be a whole number from 1 to 1024, not '0'");
    QTest::newRow("length not a number") << QStringList{t,
                                                        m,
                                                        marian,
                                                        ids,
                                                        QStringLiteral("56,0"),
                                                        QStringLiteral("--max-length"),
                                                        QStringLiteral("ten")}
                                         << QStringLiteral("translate: --max-length must be a whole number");
    QTest::newRow("text and ids")
        << QStringList{t, m, marian, ids, QStringLiteral("56,0"), text, QStringLiteral("k")}
        << QStringLiteral("translate: give exactly one of --text or --ids");
    QTest::newRow("no model") << QStringList{t, text, QStringLiteral("kedi")}
                              << QStringLiteral("translate: --model is required");
}

void TestCliSeq2Seq::hostileArguments()
{
    QFETCH(QStringList, arguments);
    QFETCH(QString, message);
    const ProcessRun run = runAttnscope(arguments);
    QVERIFY(run.finished);
    QCOMPARE(run.exitCode, 2);
    QVERIFY2(run.out.isEmpty(), run.out.constData());
    const QString err = run.errText();
    QVERIFY2(err.endsWith(QLatin1Char('\n')) && err.count(QLatin1Char('\n')) == 1, qPrintable(err));
    QVERIFY2(err.startsWith(QStringLiteral("attnscope: ")) && err.contains(message), qPrintable(err));
}

QTEST_GUILESS_MAIN(TestCliSeq2Seq)
#include "tst_cli_seq2seq.moc"
