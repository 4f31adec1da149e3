// T5's own parts against upstream transformers 4.36 (tests/data/oracle/t5_s0 and flan_t5_s0, made by
// tools/oracle/make_seq2seq_case.py): the relative position buckets (T5Attention._relative_position_bucket
// over relative positions -300..300), each feature of the family switched off in config.json moving the
// attention far from the oracle's (so the cases see it), configs whose sizes disagree with the weights, and
// the spiece.model tokenizer against the ids of the slow T5Tokenizer. The attention itself and generate():
// the t5_s0 and flan_t5_s0 rows of tst_encoder_decoder and tst_seq2seq_generation.

#include "core/support/modelfixtures.h"
#include "generation/seq2seqgeneration.h"
#include "io/npy.h"
#include "model/encoderdecodermodel.h"
#include "model/t5model.h"
#include "support/testdata.h"
#include "tokenizer/t5tokenizer.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <limits>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QJsonObject caseJson(const QString& caseName)
{
    return readRequiredJsonObject(oracleFolder(caseName) + QStringLiteral("/case.json"));
}

std::vector<int> idsOf(const QJsonValue& v)
{
    std::vector<int> ids;
    for (const QJsonValue& id : v.toArray())
        ids.push_back(id.toInt(-1));
    return ids;
}

// The largest |P − transformers| over the three parts of the model in `folder` on the case's ids.
double oracleError(const QString& folder, const QString& caseName)
{
    const auto model = EncoderDecoderModel::open(folder);
    const QJsonObject kase = caseJson(caseName);
    const EncoderDecoderAttention a =
        model->run(idsOf(kase[QLatin1String("source_ids")]), idsOf(kase[QLatin1String("decoder_input_ids")]));
    const auto expected = [&](const char* file) {
        return readNpyFile(oracleFolder(caseName) + QLatin1Char('/') + QLatin1String(file));
    };
    return std::max({maxAbsError(a.encoder, expected("encoder_attentions.npy")),
                     maxAbsError(a.decoder, expected("decoder_attentions.npy")),
                     maxAbsError(a.cross, expected("cross_attentions.npy"))});
}

QString tokenizerError(const QString& folder)
{
    return inputErrorOf([&] {
        T5Tokenizer::fromFolder(folder);
        return QString();
    });
}

// A copy of t5_s0's tokenizer files in `dir`, with `file` replaced by `bytes` (or removed when null).
QString tokenizerFolderWith(const QTemporaryDir& dir, const QString& file, const QByteArray& bytes)
{
    for (const char* name : {"spiece.model", "tokenizer_config.json"})
        copyFileReplacing(oracleFolder(QStringLiteral("t5_s0")) + QLatin1Char('/') + QLatin1String(name),
                          dir.filePath(QLatin1String(name)));
    QFile::remove(dir.filePath(file));
    if (!bytes.isNull()) writeRequiredFile(dir.filePath(file), bytes);
    return dir.path();
}

} // namespace

class TestT5 : public QObject
{
    Q_OBJECT

private slots:
    void bucketsEqualTransformers_data() { addOracleCaseRows({"t5_s0", "flan_t5_s0"}); }
    void bucketsEqualTransformers()
    {
        QFETCH(QString, caseName);
        const QJsonObject b = caseJson(caseName)[QLatin1String("relative_position_buckets")].toObject();
        const int buckets = b[QLatin1String("num_buckets")].toInt(),
                  distance = b[QLatin1String("max_distance")].toInt(),
                  first = b[QLatin1String("first_relative_position")].toInt();
        for (const bool bidirectional : {true, false}) {
            const QJsonArray expected =
                b[QLatin1String(bidirectional ? "bidirectional" : "causal")].toArray();
            QCOMPARE(expected.size(), 601);
            for (int i = 0; i < expected.size(); ++i) {
                const int relative = first + i;
                const int bucket = t5RelativePositionBucket(relative, bidirectional, buckets, distance);
                if (bucket != expected[i].toInt())
                    QFAIL(qPrintable(QStringLiteral("%1 relative position %2: bucket %3, upstream %4")
                                         .arg(QLatin1String(bidirectional ? "bidirectional" : "causal"))
                                         .arg(relative)
                                         .arg(bucket)
                                         .arg(expected[i].toInt())));
            }
        }
    }

    // Each feature switched off in config.json moves P far beyond the tolerance: the cases can tell.
    void caseSeesEachFeature_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        const QString t5 = QStringLiteral("t5_s0"), flan = QStringLiteral("flan_t5_s0");
        QTest::newRow("t5: max_distance 128 for 16 (other log buckets)")
            << t5 << QStringLiteral("relative_attention_max_distance") << QJsonValue(128);
        QTest::newRow("t5: layer_norm_epsilon 1")
            << t5 << QStringLiteral("layer_norm_epsilon") << QJsonValue(1.0);
        QTest::newRow("t5: gelu for relu")
            << t5 << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("gelu"));
        QTest::newRow("flan: gated-relu for gated-gelu")
            << flan << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("gated-relu"));
        QTest::newRow("flan: max_distance 32 for 128")
            << flan << QStringLiteral("relative_attention_max_distance") << QJsonValue(32);
    }
    void caseSeesEachFeature()
    {
        QFETCH(QString, caseName);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QVERIFY(oracleError(oracleFolder(caseName), caseName) <= 1e-5);
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("m"));
        copyModel(oracleFolder(caseName), folder);
        editModelConfig(folder, key, value);
        const double e = oracleError(folder, caseName);
        qInfo("%s %s: max |P - transformers| %.2e", qPrintable(caseName), qPrintable(key), e);
        QVERIFY2(e > 1e-3, qPrintable(QString::number(e)));
    }

    // mT5 (model_type "mt5", MT5ForConditionalGeneration) is T5's code: flan_t5_s0 read as mt5 gives the
    // same.
    void mt5IsT5()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("m"));
        copyModel(oracleFolder(QStringLiteral("flan_t5_s0")), folder);
        editModelConfig(folder, QStringLiteral("model_type"), QStringLiteral("mt5"));
        QCOMPARE(EncoderDecoderModel::open(folder)->config().modelType, QStringLiteral("mt5"));
        QVERIFY(oracleError(folder, QStringLiteral("flan_t5_s0")) <= 1e-5);
        editModelConfig(folder, QStringLiteral("model_type"), QJsonValue(QJsonValue::Undefined));
        editModelConfig(folder, QStringLiteral("architectures"),
                        QJsonArray{QStringLiteral("MT5ForConditionalGeneration")});
        QCOMPARE(EncoderDecoderModel::open(folder)->config().modelType, QStringLiteral("mt5"));
    }

    // The LM head decides generation, not attention: a tied head (with the d^-0.5 scale) on flan_t5_s0 gives
    // another greedy output than generate()'s, so the generation rows check the untied head; and t5_s0, tied,
    // has no lm_head.weight of its own to fall back on.
    void lmHeadTyingMatters()
    {
        const QString caseName = QStringLiteral("flan_t5_s0");
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("m"));
        copyModel(oracleFolder(caseName), folder);
        editModelConfig(folder, QStringLiteral("tie_word_embeddings"), true);
        const QJsonObject greedy =
            caseJson(caseName)[QLatin1String("generate")][QLatin1String("greedy")].toObject();
        const auto model = EncoderDecoderModel::open(folder);
        Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(folder, *model);
        s.maxLength = greedy[QLatin1String("max_length")].toInt();
        QVERIFY(greedyGenerate(*model, idsOf(caseJson(caseName)[QLatin1String("source_ids")]), s) !=
                idsOf(greedy[QLatin1String("ids")]));
        const std::vector<TensorToWrite> tensors =
            readTensors(oracleFolder(QStringLiteral("t5_s0")) + QStringLiteral("/model.safetensors"));
        QVERIFY(std::none_of(tensors.begin(), tensors.end(), [](const TensorToWrite& t) {
            return t.name == QLatin1String("lm_head.weight");
        }));
        const auto tied = EncoderDecoderModel::open(oracleFolder(QStringLiteral("t5_s0")));
        QCOMPARE(tied->config().decoderStartId, 0);
        QCOMPARE(tied->config().eosId, 1);

        // Without decoder_start_token_id, decoding starts from the pad token.
        const QString noStart = dir.filePath(QStringLiteral("no-start"));
        copyModel(oracleFolder(caseName), noStart);
        editModelConfig(noStart, QStringLiteral("decoder_start_token_id"), QJsonValue(QJsonValue::Undefined));
        editModelConfig(noStart, QStringLiteral("pad_token_id"), 5);
        QCOMPARE(EncoderDecoderModel::open(noStart)->config().decoderStartId, 5);
    }

    // generate() masks the source's pad tokens out of the attention (their positions still count in the
    // relative bias): flan_t5_s0's last generate case holds two, and without the mask greedy differs.
    void sourcePadsAreMasked()
    {
        const QString caseName = QStringLiteral("flan_t5_s0");
        const QJsonArray cases = caseJson(caseName)[QLatin1String("generate_cases")].toArray();
        const QJsonObject padded = cases[cases.size() - 2].toObject();
        const std::vector<int> source = idsOf(padded[QLatin1String("source_ids")]);
        QCOMPARE(padded[QLatin1String("num_beams")].toInt(), 1);
        QVERIFY(std::count(source.begin(), source.end(), 0) == 2);
        const auto model = EncoderDecoderModel::open(oracleFolder(caseName));
        Seq2SeqGenerationSettings s = Seq2SeqGenerationSettings::fromFolder(oracleFolder(caseName), *model);
        s.maxLength = padded[QLatin1String("max_length")].toInt();
        QCOMPARE(s.padId.value_or(-1), 0);
        QCOMPARE(greedyGenerate(*model, source, s), idsOf(padded[QLatin1String("ids")]));
        s.padId.reset();
        QVERIFY(greedyGenerate(*model, source, s) != idsOf(padded[QLatin1String("ids")]));
    }

    void inconsistentConfigsAreRefused_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("message");
        const QString t5 = QStringLiteral("t5_s0"), flan = QStringLiteral("flan_t5_s0");
        QTest::newRow("d_kv") << t5 << QStringLiteral("d_kv") << QJsonValue(8)
                              << QStringLiteral("model.safetensors: tensor "
                                                "encoder.block.0.layer.0.SelfAttention.q.weight has shape "
                                                "[24, 32] but config.json implies [32, 32]");
        QTest::newRow("buckets") << t5 << QStringLiteral("relative_attention_num_buckets") << QJsonValue(16)
                                 << QStringLiteral("relative_attention_bias.weight has shape [8, 4] but "
                                                   "config.json implies [16, 4]");
        QTest::newRow("gated on v1.0 weights")
            << t5 << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("gated-gelu"))
            << QStringLiteral("tensor encoder.block.0.layer.1.DenseReluDense.wi_0.weight is missing");
        QTest::newRow("untied without lm_head")
            << t5 << QStringLiteral("tie_word_embeddings") << QJsonValue(false)
            << QStringLiteral("tensor lm_head.weight is missing");
        QTest::newRow("ungated on v1.1 weights")
            << flan << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("relu"))
            << QStringLiteral("tensor encoder.block.0.layer.1.DenseReluDense.wi.weight is missing");
        QTest::newRow("feed_forward_proj form")
            << flan << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("fancy-gelu"))
            << QStringLiteral("config.json: feed_forward_proj 'fancy-gelu' is not of the form");
        QTest::newRow("feed_forward_proj activation")
            << flan << QStringLiteral("feed_forward_proj") << QJsonValue(QStringLiteral("gated-tanh"))
            << QStringLiteral(
                   "config.json: feed_forward_proj 'gated-tanh': activation 'tanh' is not supported");
        QTest::newRow("max_distance inside the exact buckets")
            << flan << QStringLiteral("relative_attention_max_distance") << QJsonValue(16)
            << QStringLiteral("config.json: relative_attention_max_distance 16 must be larger than half of "
                              "relative_attention_num_buckets 32");
        QTest::newRow("decoder layers")
            << flan << QStringLiteral("num_decoder_layers") << QJsonValue(3)
            << QStringLiteral("tensor decoder.block.2.layer.0.SelfAttention.q.weight "
                              "is missing");
        QTest::newRow("pad outside") << flan << QStringLiteral("pad_token_id") << QJsonValue(128)
                                     << QStringLiteral(
                                            "config.json: pad_token_id 128 is outside vocab_size 128");
    }
    void inconsistentConfigsAreRefused()
    {
        QFETCH(QString, caseName);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("m"));
        copyModel(oracleFolder(caseName), folder);
        editModelConfig(folder, key, value);
        const QString error = modelErrorOf([&] { EncoderDecoderModel::open(folder); });
        QVERIFY2(error.startsWith(folder + QLatin1Char('/')), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
    }

    // A config with fewer decoder layers than the weights runs the first and names the rest.
    void unusedLayersAreNamed()
    {
        QTemporaryDir dir;
        const QString folder = dir.filePath(QStringLiteral("m"));
        copyModel(oracleFolder(QStringLiteral("t5_s0")), folder);
        editModelConfig(folder, QStringLiteral("num_decoder_layers"), 1);
        const auto model = EncoderDecoderModel::open(folder);
        QCOMPARE(model->run({5, 6, 1}, {0, 7}).decoder.layers(), 1);
        QVERIFY2(model->unusedLayersNote().startsWith(
                     folder + QStringLiteral("/config.json: num_decoder_layers 1, but the weights also hold "
                                             "decoder layer 1 (")),
                 qPrintable(model->unusedLayersNote()));
    }

    // NaN in a matrix is found in the pass and named with its stack and layer; NaN in a norm at open.
    void damagedWeightsAreNamed()
    {
        const auto poison = [](const QString& tensor) {
            return [tensor](std::vector<TensorToWrite>& tensors) {
                for (TensorToWrite& t : tensors)
                    if (t.name == tensor) {
                        const float nan = std::numeric_limits<float>::quiet_NaN();
                        std::memcpy(t.data.data(), &nan, sizeof nan);
                    }
            };
        };
        const QString caseName = QStringLiteral("t5_s0");
        QTemporaryDir dir;
        const QString nanMatrix = dir.filePath(QStringLiteral("nan-matrix"));
        copyModel(oracleFolder(caseName), nanMatrix,
                  poison(QStringLiteral("decoder.block.1.layer.2.DenseReluDense.wo.weight")));
        const auto model = EncoderDecoderModel::open(nanMatrix);
        const QJsonObject kase = caseJson(caseName);
        const QString error = modelErrorOf([&] {
            model->run(idsOf(kase[QLatin1String("source_ids")]),
                       idsOf(kase[QLatin1String("decoder_input_ids")]));
        });
        QVERIFY2(error.contains(QStringLiteral("decoder layer 1")) && error.contains(QStringLiteral("NaN")) &&
                     error.contains(QStringLiteral("decoder.block.1.layer.2.DenseReluDense.wo.weight")),
                 qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));

        const QString nanNorm = dir.filePath(QStringLiteral("nan-norm"));
        copyModel(oracleFolder(caseName), nanNorm,
                  poison(QStringLiteral("encoder.block.0.layer.1.layer_norm.weight")));
        const QString openError = modelErrorOf([&] { EncoderDecoderModel::open(nanNorm); });
        QVERIFY2(openError.contains(QStringLiteral("encoder.block.0.layer.1.layer_norm.weight")),
                 qPrintable(openError));
    }

    void tokenizerEqualsSlowT5Tokenizer_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<std::vector<int>>("expected");
        QTest::addColumn<QStringList>("tokens");
        const QJsonArray cases =
            caseJson(QStringLiteral("t5_s0"))[QLatin1String("tokenizer_cases")].toArray();
        QVERIFY(cases.size() >= 20);
        for (const QJsonValue& c : cases) {
            QStringList tokens;
            for (const QJsonValue& t : c[QLatin1String("tokens")].toArray())
                tokens << t.toString();
            QTest::addRow("%s", qPrintable(c[QLatin1String("text")].toString()))
                << c[QLatin1String("text")].toString() << idsOf(c[QLatin1String("ids")]) << tokens;
        }
    }
    void tokenizerEqualsSlowT5Tokenizer()
    {
        QFETCH(QString, text);
        QFETCH(std::vector<int>, expected);
        QFETCH(QStringList, tokens);
        const T5Tokenizer tokenizer = T5Tokenizer::fromFolder(oracleFolder(QStringLiteral("t5_s0")));
        const Encoding e = tokenizer.encode(text);
        QCOMPARE(e.ids, expected);
        QCOMPARE(e.tokens, tokens);
    }

    // decode (special tokens skipped) gives back the text of every case whose pieces are all known: the
    // pieces through spiece.model, runs of spaces made one as its normaliser makes them. Sentinels and </s>
    // are skipped, as the slow T5Tokenizer's decode(skip_special_tokens=True) skips its special tokens.
    void decodeUndoesEncode()
    {
        const T5Tokenizer tokenizer = T5Tokenizer::fromFolder(oracleFolder(QStringLiteral("t5_s0")));
        int decoded = 0;
        for (const QJsonValue& c :
             caseJson(QStringLiteral("t5_s0"))[QLatin1String("tokenizer_cases")].toArray()) {
            const QString text = c[QLatin1String("text")].toString();
            const QJsonArray tokens = c[QLatin1String("tokens")].toArray();
            bool plain = !text.contains(QChar(0x2581)) && !text.contains(QLatin1Char('<'));
            for (const QJsonValue& t : tokens)
                plain = plain &&
                        (t.toString() == QLatin1String("</s>") || !t.toString().startsWith(QLatin1Char('<')));
            if (!plain) continue;
            QCOMPARE(tokenizer.decode(idsOf(c[QLatin1String("ids")])), text.simplified());
            ++decoded;
        }
        QVERIFY(decoded >= 4);
        // <extra_id_0> kedi <extra_id_1> oturdu: the sentinels and </s> left out.
        QCOMPARE(tokenizer.decode({219, 67, 28, 218, 70, 20, 76, 105, 19, 1}), QStringLiteral("kedi oturdu"));
        QCOMPARE(tokenizer.idToToken(219), QStringLiteral("<extra_id_0>"));
        QCOMPARE(tokenizer.decode({0, 1}), QString());
    }

    // The tokenizer and the model agree: the case's source ids are the tokenizer's for its text, the
    // vocabulary (pieces + 100 sentinels) is the model's, and decoding starts from the pad token.
    void tokenizerFeedsTheCase()
    {
        const QString folder = oracleFolder(QStringLiteral("t5_s0"));
        const QJsonObject kase = caseJson(QStringLiteral("t5_s0"));
        const T5Tokenizer tokenizer = T5Tokenizer::fromFolder(folder);
        QCOMPARE(tokenizer.encode(kase[QLatin1String("source_text")].toString()).ids,
                 idsOf(kase[QLatin1String("source_ids")]));
        QCOMPARE(tokenizer.encode(kase[QLatin1String("target_text")].toString()).ids,
                 idsOf(kase[QLatin1String("target_ids")]));
        const auto model = EncoderDecoderModel::open(folder);
        QCOMPARE(model->config().vocabSize, tokenizer.vocabSize());
        QCOMPARE(model->config().decoderStartId, tokenizer.padId());
        QCOMPARE(model->config().eosId, tokenizer.eosId());
        QCOMPARE(tokenizer.idToToken(tokenizer.vocabSize() - 1), QStringLiteral("<extra_id_0>"));
        QCOMPARE(tokenizer.idToToken(tokenizer.vocabSize()), QString());
    }

    void badTokenizerFilesAreNamed_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("message");
        QTest::newRow("no spiece.model")
            << QStringLiteral("spiece.model") << QByteArray() << QStringLiteral("spiece.model: ");
        QTest::newRow("spiece.model not a model")
            << QStringLiteral("spiece.model") << QByteArray("not a protobuf at all \xff\xfe", 23)
            << QStringLiteral("spiece.model: not a SentencePiece model");
        QTest::newRow("config not JSON")
            << QStringLiteral("tokenizer_config.json") << QByteArray("{\"extra_ids\": ")
            << QStringLiteral("tokenizer_config.json: ");
        QTest::newRow("legacy false")
            << QStringLiteral("tokenizer_config.json") << QByteArray("{\"legacy\": false}")
            << QStringLiteral("tokenizer_config.json: legacy false");
        QTest::newRow("extra_ids negative")
            << QStringLiteral("tokenizer_config.json") << QByteArray("{\"extra_ids\": -3}")
            << QStringLiteral("tokenizer_config.json: extra_ids must be");
        QTest::newRow("other special tokens")
            << QStringLiteral("tokenizer_config.json")
            << QByteArray("{\"additional_special_tokens\": [\"<extra_id_0>\", \"<sep>\"]}")
            << QStringLiteral("additional_special_tokens holds \"<sep>\"");
        QTest::newRow("eos not a piece")
            << QStringLiteral("tokenizer_config.json") << QByteArray("{\"eos_token\": \"<eos>\"}")
            << QStringLiteral("spiece.model: the special token \"<eos>\" (eos_token)");
    }
    void badTokenizerFilesAreNamed()
    {
        QFETCH(QString, file);
        QFETCH(QByteArray, bytes);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString error = tokenizerError(tokenizerFolderWith(dir, file, bytes));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(error.contains(dir.path()), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
    }

    // Without tokenizer_config.json: T5Tokenizer's defaults (100 sentinels, </s> <unk> <pad>).
    void tokenizerWithoutConfig()
    {
        QTemporaryDir dir;
        const QString folder =
            tokenizerFolderWith(dir, QStringLiteral("tokenizer_config.json"), QByteArray());
        const T5Tokenizer plain = T5Tokenizer::fromFolder(folder);
        const T5Tokenizer configured = T5Tokenizer::fromFolder(oracleFolder(QStringLiteral("t5_s0")));
        QCOMPARE(plain.vocabSize(), configured.vocabSize());
        const QString text = QStringLiteral("<extra_id_0> kedi <extra_id_1> oturdu");
        QCOMPARE(plain.encode(text).ids, configured.encode(text).ids);
    }
};

QTEST_GUILESS_MAIN(TestT5)
#include "tst_t5.moc"
