// Greedy generation with encoder-decoder models (generation/seq2seqgeneration.h) against transformers'
// generate() (greedy and beam) on the oracle cases marian_s0, bart_s0, mbart_s0, t5_s0 and flan_t5_s0
// (case.json "generate", tools/oracle/make_seq2seq_case.py), the logits rules checked by hand, and bad
// generation settings.

#include "core/support/modelfixtures.h"
#include "generation/seq2seqgeneration.h"
#include "model/encoderdecodermodel.h"
#include "support/testdata.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QJsonObject caseJson(const QString& caseName)
{
    return readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/case.json"));
}

std::vector<int> ids(const QJsonValue& v)
{
    std::vector<int> out;
    for (const QJsonValue& id : v.toArray())
        out.push_back(id.toInt(-1));
    return out;
}

// The settings generate() ran with in the oracle: the folder's, with the max_length it was given.
Seq2SeqGenerationSettings oracleSettings(const QString& caseName, const EncoderDecoderModel& model)
{
    Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(oracleFolder(caseName), model);
    s.maxLength =
        caseJson(caseName)[QLatin1String("generate")][QLatin1String("greedy")][QLatin1String("max_length")]
            .toInt();
    return s;
}

std::vector<int> greedyOf(const QString& caseName,
                          const std::function<void(Seq2SeqGenerationSettings&)>& edit = {})
{
    const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
    Seq2SeqGenerationSettings s = oracleSettings(caseName, *model);
    if (edit) edit(s);
    return greedyGenerate(*model, ids(caseJson(caseName)[QLatin1String("source_ids")]), s);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

} // namespace

class TestSeq2SeqGeneration : public QObject
{
    Q_OBJECT

private slots:
    void greedyEqualsGenerate_data()
    {
        addOracleCaseRows({"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"});
    }
    void greedyEqualsGenerate()
    {
        QFETCH(QString, caseName);
        const std::vector<int> expected =
            ids(caseJson(caseName)[QLatin1String("generate")][QLatin1String("greedy")][QLatin1String("ids")]);
        QCOMPARE(greedyOf(caseName), expected);
    }

    // generate(num_beams=3, max_length=12): the file's settings (length_penalty 1, early_stopping false by
    // default) with the beams and length the oracle gave.
    void beamSearchEqualsGenerate_data()
    {
        addOracleCaseRows({"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"});
    }
    void beamSearchEqualsGenerate()
    {
        QFETCH(QString, caseName);
        const QJsonObject beam =
            caseJson(caseName)[QLatin1String("generate")][QLatin1String("beam")].toObject();
        const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
        Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(oracleFolder(caseName), *model);
        s.numBeams = beam[QLatin1String("num_beams")].toInt();
        s.maxLength = beam[QLatin1String("max_length")].toInt();
        QCOMPARE(s.numBeams, 3);
        const std::vector<int> source = ids(caseJson(caseName)[QLatin1String("source_ids")]);
        QCOMPARE(beamSearchGenerate(*model, source, s), ids(beam[QLatin1String("ids")]));
    }
    // More sources (case.json generate_cases): greedy and 4 beams up to 20 tokens, outputs that end on their
    // own </s> and beams that finish at different lengths.
    void moreSourcesEqualGenerate_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<std::vector<int>>("source");
        QTest::addColumn<int>("beams");
        QTest::addColumn<std::vector<int>>("expected");
        for (const char* name : {"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"}) {
            const QJsonArray cases = caseJson(QLatin1String(name))[QLatin1String("generate_cases")].toArray();
            QVERIFY(cases.size() >= 6);
            for (int i = 0; i < cases.size(); ++i) {
                const QJsonObject c = cases[i].toObject();
                QCOMPARE(c[QLatin1String("max_length")].toInt(), 20);
                QTest::addRow("%s:%d:beams %d", name, i / 2, c[QLatin1String("num_beams")].toInt())
                    << QString::fromLatin1(name) << ids(c[QLatin1String("source_ids")])
                    << c[QLatin1String("num_beams")].toInt() << ids(c[QLatin1String("ids")]);
            }
        }
    }
    void moreSourcesEqualGenerate()
    {
        QFETCH(QString, caseName);
        QFETCH(std::vector<int>, source);
        QFETCH(int, beams);
        QFETCH(std::vector<int>, expected);
        const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
        Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(oracleFolder(caseName), *model);
        s.maxLength = 20;
        s.numBeams = beams;
        QCOMPARE(beams == 1 ? greedyGenerate(*model, source, s) : beamSearchGenerate(*model, source, s),
                 expected);
    }

    // The decoder's input from a target's labels, as each model's forward makes it (shift_tokens_right):
    // decoder_start, then the labels but the last; mBART's own shift puts the last label (its language code)
    // first instead. By hand from transformers 4.36's two functions.
    void decoderInputFromLabelsShiftsRight()
    {
        const auto marian = EncoderDecoderModel::open(oracleFolder(QStringLiteral("marian_s0")));
        QCOMPARE(decoderInputFromLabels(*marian, {80, 73, 44, 0}, 124), (std::vector<int>{124, 80, 73, 44}));
        QCOMPARE(decoderInputFromLabels(*marian, {}, 124), (std::vector<int>{124}));
        const auto mbart = EncoderDecoderModel::open(oracleFolder(QStringLiteral("mbart_s0")));
        QCOMPARE(decoderInputFromLabels(*mbart, {104, 84, 2, 125}, 2), (std::vector<int>{125, 104, 84, 2}));
    }

    // On Marian's case the beams find another output than greedy: the test above is not greedy's in disguise.
    void beamIsNotGreedyOnMarian()
    {
        const QJsonObject generate =
            caseJson(QStringLiteral("marian_s0"))[QLatin1String("generate")].toObject();
        QVERIFY(ids(generate[QLatin1String("beam")][QLatin1String("ids")]) !=
                ids(generate[QLatin1String("greedy")][QLatin1String("ids")]));
    }

    // The cases exercise the rules: without each, the output is not generate()'s.
    void casesSeeTheRules()
    {
        const std::vector<int> bart = ids(caseJson(QStringLiteral(
            "bart_s0"))[QLatin1String("generate")][QLatin1String("greedy")][QLatin1String("ids")]);
        QVERIFY(greedyOf(QStringLiteral("bart_s0"),
                         [](Seq2SeqGenerationSettings& s) { s.noRepeatNgramSize = 0; }) != bart);
        QVERIFY(greedyOf(QStringLiteral("bart_s0"),
                         [](Seq2SeqGenerationSettings& s) { s.forcedBosId.reset(); }) != bart);
        // Marian's output ends at max_length with the forced </s>.
        const std::vector<int> marian = ids(caseJson(QStringLiteral(
            "marian_s0"))[QLatin1String("generate")][QLatin1String("greedy")][QLatin1String("ids")]);
        QVERIFY(greedyOf(QStringLiteral("marian_s0"),
                         [](Seq2SeqGenerationSettings& s) { s.forcedEosId.reset(); }) != marian);
    }

    // generate() masks the pad tokens of its input out of the attention: a Marian source holding <pad> (typed
    // in the text "a <unk> b<pad>") gives generate()'s output only with the mask.
    void padTokensOfTheSourceAreMasked()
    {
        const QString caseName = QStringLiteral("marian_s0");
        const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
        Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(oracleFolder(caseName), *model);
        QCOMPARE(s.padId, std::optional<int>(124));
        s.maxLength = 20;
        bool found = false;
        for (const QJsonValue& v : caseJson(caseName)[QLatin1String("generate_cases")].toArray()) {
            const std::vector<int> source = ids(v[QLatin1String("source_ids")]);
            if (v[QLatin1String("num_beams")].toInt() != 1 ||
                std::find(source.begin(), source.end(), 124) == source.end())
                continue;
            found = true;
            const std::vector<int> expected = ids(v[QLatin1String("ids")]);
            QCOMPARE(greedyGenerate(*model, source, s), expected);
            Seq2SeqGenerationSettings unmasked = s;
            unmasked.padId.reset();
            QVERIFY(greedyGenerate(*model, source, unmasked) != expected);
        }
        QVERIFY(found);
    }

    void settingsFromTheFiles()
    {
        const auto marian = EncoderDecoderModel::open(oracleFolder(QStringLiteral("marian_s0")));
        const Seq2SeqGenerationSettings m =
            Seq2SeqGenerationSettings::fromFolder(oracleFolder(QStringLiteral("marian_s0")), *marian);
        QCOMPARE(m.decoderStartId, 124);
        QCOMPARE(m.eosIds, std::vector<int>{0});
        QCOMPARE(m.badWordsIds, std::vector<std::vector<int>>{{124}});
        QCOMPARE(m.forcedEosId, std::optional<int>(0));
        QVERIFY(!m.forcedBosId);
        QCOMPARE(m.maxLength, 16);
        const auto bart = EncoderDecoderModel::open(oracleFolder(QStringLiteral("bart_s0")));
        const Seq2SeqGenerationSettings b =
            Seq2SeqGenerationSettings::fromFolder(oracleFolder(QStringLiteral("bart_s0")), *bart);
        QCOMPARE(b.decoderStartId, 2);
        QCOMPARE(b.forcedBosId, std::optional<int>(0));
        QCOMPARE(b.noRepeatNgramSize, 3);
        QCOMPARE(b.maxLength, 20); // GenerationConfig's default: the file has none
        QCOMPARE(b.numBeams, 4);
        QCOMPARE(b.lengthPenalty, 1.0);
        QVERIFY(b.earlyStopping == Seq2SeqGenerationSettings::EarlyStopping::Heuristic);
    }

    // Each rule on hand-made scores (transformers' logits_process.py, worked by hand).
    void rulesByHand()
    {
        Seq2SeqGenerationSettings s;
        s.maxLength = 6;
        s.noRepeatNgramSize = 2;
        std::vector<double> logits(8, 1.0);
        applyGenerationRules(logits, {5, 1, 5}, s); // bigram (5, 1) seen: after 5, 1 is banned
        QCOMPARE(logits, (std::vector<double>{1, -kInf, 1, 1, 1, 1, 1, 1}));
        s.noRepeatNgramSize = 3;
        logits.assign(8, 1.0);
        applyGenerationRules(logits, {5, 1}, s); // cur_len + 1 < 3: nothing yet
        QCOMPARE(logits, std::vector<double>(8, 1.0));
        s.noRepeatNgramSize = 0;
        s.badWordsIds = {{7}, {3, 4}};
        logits.assign(8, 1.0);
        applyGenerationRules(logits, {2, 3}, s);
        QCOMPARE(logits, (std::vector<double>{1, 1, 1, 1, -kInf, 1, 1, -kInf}));
        logits.assign(8, 1.0);
        applyGenerationRules(logits, {3, 2}, s); // 4 only after 3
        QCOMPARE(logits, (std::vector<double>{1, 1, 1, 1, 1, 1, 1, -kInf}));
        s.badWordsIds.clear();
        s.forcedBosId = 6;
        s.forcedEosId = 2;
        logits.assign(8, 1.0);
        applyGenerationRules(logits, {0}, s); // cur_len 1: BOS forced
        QCOMPARE(logits, (std::vector<double>{-kInf, -kInf, -kInf, -kInf, -kInf, -kInf, 0, -kInf}));
        logits.assign(8, 1.0);
        applyGenerationRules(logits, {0, 6, 1, 1, 1}, s); // cur_len max_length − 1: EOS forced
        QCOMPARE(logits, (std::vector<double>{-kInf, -kInf, 0, -kInf, -kInf, -kInf, -kInf, -kInf}));
    }

    // Each output token's cross-attention row, read from one run over the output, is the row a run over only
    // the tokens before it gives (the decoder is causal).
    void crossRowsOfTheOutput()
    {
        const QString caseName = QStringLiteral("marian_s0");
        const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
        const std::vector<int> source = ids(caseJson(caseName)[QLatin1String("source_ids")]);
        const std::vector<int> out = greedyGenerate(*model, source, oracleSettings(caseName, *model));
        const std::vector<int> queries(out.begin(), out.end() - 1);
        const EncoderDecoderAttention whole = model->run(source, queries);
        for (int t = 0; t < int(queries.size()); t += 4) {
            const EncoderDecoderAttention prefix =
                model->run(source, std::vector<int>(queries.begin(), queries.begin() + t + 1));
            for (int l = 0; l < whole.cross.layers(); ++l)
                for (int h = 0; h < whole.cross.heads(); ++h) {
                    const std::vector<float> a = whole.cross.tile(l, h, t, t + 1, 0, whole.cross.keys());
                    const std::vector<float> b = prefix.cross.tile(l, h, t, t + 1, 0, prefix.cross.keys());
                    for (size_t k = 0; k < a.size(); ++k)
                        QVERIFY(std::abs(a[k] - b[k]) < 1e-6f);
                }
        }
    }

    void badSettingsAreNamed_data()
    {
        QTest::addColumn<QByteArray>("json");
        QTest::addColumn<QString>("message");
        QTest::newRow("bad words not a list")
            << QByteArray(R"({"bad_words_ids": 5})") << QStringLiteral("bad_words_ids must be a list");
        QTest::newRow("bad word outside")
            << QByteArray(R"({"bad_words_ids": [[500]]})")
            << QStringLiteral("bad_words_ids holds an entry that is not a token id");
        QTest::newRow("eos outside") << QByteArray(R"({"eos_token_id": 125})")
                                     << QStringLiteral(
                                            "eos_token_id holds 125, not a token id below vocab_size 125");
        QTest::newRow("max_length") << QByteArray(R"({"max_length": -1})")
                                    << QStringLiteral("max_length must be an integer");
        QTest::newRow("early_stopping") << QByteArray(R"({"early_stopping": "sometimes"})")
                                        << QStringLiteral("early_stopping must be true, false or \"never\"");
        QTest::newRow("num_beams") << QByteArray(R"({"num_beams": 0})")
                                   << QStringLiteral("num_beams must be an integer from 1");
        QTest::newRow("not JSON") << QByteArray("{") << QStringLiteral("generation_config.json: ");
    }
    void badSettingsAreNamed()
    {
        QFETCH(QByteArray, json);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString folder = copyOracleCase(dir, QStringLiteral("marian_s0"), QStringLiteral("m"));
        writeRequiredFile(folder + QStringLiteral("/generation_config.json"), json);
        const auto model = EncoderDecoderModel::open(folder);
        const QString error = modelErrorOf([&] { Seq2SeqGenerationSettings::fromFolder(folder, *model); });
        QVERIFY2(error.startsWith(folder + QStringLiteral("/generation_config.json: ")), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestSeq2SeqGeneration)
#include "tst_seq2seq_generation.moc"
