// Encoder-decoder models (model/encoderdecodermodel.h) against upstream transformers: the oracle cases
// marian_s0, bart_s0, mbart_s0, t5_s0 and flan_t5_s0 (tools/oracle/make_seq2seq_case.py: tiny random models
// reloaded in float64) hold the encoder, decoder and cross attentions transformers 4.36 computes for their
// source and decoder input ids. (T5's own features and tokenizer: tst_t5.)
// Also: configs whose sizes disagree, and inputs the model cannot take, refused with one-line messages.

#include "core/support/modelfixtures.h"
#include "io/npy.h"
#include "model/encoderdecodermodel.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "support/testdata.h"
#include "tokenizer/mariantokenizer.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cstring>
#include <limits>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QString caseFolder(const QString& caseName = QStringLiteral("marian_s0"))
{
    return oracleFolder(caseName);
}

std::vector<int> caseIds(const char* key, const QString& caseName = QStringLiteral("marian_s0"))
{
    std::vector<int> ids;
    const QJsonObject kase = readRequiredJsonObject(caseFolder(caseName) + QStringLiteral("/case.json"));
    for (const QJsonValue& id : kase[QLatin1String(key)].toArray())
        ids.push_back(id.toInt(-1));
    return ids;
}

struct Errors
{
    double encoder, decoder, cross;
};

// The model in `folder` (the case's own, or an edited copy) on the case's ids, against the case's attention.
Errors oracleErrors(const QString& folder, const QString& caseName)
{
    const auto model = EncoderDecoderModel::open(folder);
    const EncoderDecoderAttention a =
        model->run(caseIds("source_ids", caseName), caseIds("decoder_input_ids", caseName));
    const auto expected = [&](const char* file) {
        return readNpyFile(caseFolder(caseName) + QLatin1Char('/') + QLatin1String(file));
    };
    return {maxAbsError(a.encoder, expected("encoder_attentions.npy")),
            maxAbsError(a.decoder, expected("decoder_attentions.npy")),
            maxAbsError(a.cross, expected("cross_attentions.npy"))};
}

// A copy of the case in dir with `key` of its config.json set to `value` (removed where undefined).
QString editedCopy(const QTemporaryDir& dir, const QString& caseName, const QString& key,
                   const QJsonValue& value)
{
    const QString folder = copyOracleCase(dir, caseName, QStringLiteral("m"));
    editModelConfig(folder, key, value);
    return folder;
}

QString errorOf(const std::function<void()>& f)
{
    return modelErrorOf(f);
}

} // namespace

class TestEncoderDecoder : public QObject
{
    Q_OBJECT

private slots:
    void equalsTransformers_data()
    {
        addOracleCaseRows({"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"});
    }
    void equalsTransformers()
    {
        QFETCH(QString, caseName);
        const Errors e = oracleErrors(caseFolder(caseName), caseName);
        qInfo("%s: max |P - transformers|: encoder %.2e, decoder %.2e, cross %.2e", qPrintable(caseName),
              e.encoder, e.decoder, e.cross);
        QVERIFY2(e.encoder <= 1e-5, qPrintable(QString::number(e.encoder)));
        QVERIFY2(e.decoder <= 1e-5, qPrintable(QString::number(e.decoder)));
        QVERIFY2(e.cross <= 1e-5, qPrintable(QString::number(e.cross)));
    }
    // The shapes the interface promises, and the decoder's mask: nothing above the diagonal, rows sum to 1.
    void shapesAndCausality_data()
    {
        addOracleCaseRows({"marian_s0", "bart_s0", "mbart_s0", "t5_s0", "flan_t5_s0"});
    }
    void shapesAndCausality()
    {
        QFETCH(QString, caseName);
        const auto model = EncoderDecoderModel::open(caseFolder(caseName));
        const std::vector<int> source = caseIds("source_ids", caseName),
                               target = caseIds("decoder_input_ids", caseName);
        const EncoderDecoderAttention a = model->run(source, target);
        const int ns = int(source.size()), nt = int(target.size());
        QCOMPARE(a.encoder.layers(), 2);
        QCOMPARE(a.encoder.queries(), ns);
        QCOMPARE(a.encoder.keys(), ns);
        QCOMPARE(a.decoder.queries(), nt);
        QCOMPARE(a.decoder.keys(), nt);
        QCOMPARE(a.cross.queries(), nt);
        QCOMPARE(a.cross.keys(), ns);
        QCOMPARE(a.cross.heads(), 4);
        for (int l = 0; l < a.decoder.layers(); ++l)
            for (int h = 0; h < a.decoder.heads(); ++h) {
                const std::vector<float> p = a.decoder.matrix(l, h);
                for (int q = 0; q < nt; ++q) {
                    double sum = 0;
                    for (int k = 0; k < nt; ++k) {
                        if (k > q) QCOMPARE(p[size_t(q * nt + k)], 0.0f);
                        sum += p[size_t(q * nt + k)];
                    }
                    QVERIFY(std::abs(sum - 1.0) < 1e-5);
                }
            }
    }

    // The case's source ids are what Marian's tokenizer gives for its text: tokenizer and model agree.
    void tokenizerFeedsTheCase()
    {
        const QJsonObject kase = readRequiredJsonObject(caseFolder() + QStringLiteral("/case.json"));
        const MarianTokenizer tokenizer = MarianTokenizer::fromFolder(caseFolder());
        QCOMPARE(tokenizer.encode(kase[QLatin1String("source_text")].toString()).ids, caseIds("source_ids"));
        const auto model = EncoderDecoderModel::open(caseFolder());
        QCOMPARE(model->config().decoderStartId, tokenizer.padId());
        QCOMPARE(model->config().vocabSize, tokenizer.vocabSize());
        QCOMPARE(caseIds("decoder_input_ids").front(), model->config().decoderStartId);
    }

    // The case can tell a wrong model: each feature switched off moves P far beyond the tolerance.
    void caseSeesEachFeature_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        const QString marian = QStringLiteral("marian_s0"), bart = QStringLiteral("bart_s0");
        QTest::newRow("marian: scale_embedding off")
            << marian << QStringLiteral("scale_embedding") << QJsonValue(false);
        QTest::newRow("marian: gelu for swish")
            << marian << QStringLiteral("activation_function") << QJsonValue(QStringLiteral("gelu"));
        QTest::newRow("bart: scale_embedding on")
            << bart << QStringLiteral("scale_embedding") << QJsonValue(true);
        QTest::newRow("mbart: scale_embedding off")
            << QStringLiteral("mbart_s0") << QStringLiteral("scale_embedding") << QJsonValue(false);
        QTest::newRow("mbart read as bart (post-LN, no final norms)")
            << QStringLiteral("mbart_s0") << QStringLiteral("model_type")
            << QJsonValue(QStringLiteral("bart"));
        QTest::newRow("bart: relu for gelu")
            << bart << QStringLiteral("activation_function") << QJsonValue(QStringLiteral("relu"));
    }
    void caseSeesEachFeature()
    {
        QFETCH(QString, caseName);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QTemporaryDir dir;
        const QString folder = editedCopy(dir, caseName, key, value);
        const Errors e = oracleErrors(folder, caseName);
        qInfo("%s %s: encoder %.2e, decoder %.2e, cross %.2e", qPrintable(caseName), qPrintable(key),
              e.encoder, e.decoder, e.cross);
        QVERIFY2(std::max({e.encoder, e.decoder, e.cross}) > 1e-3, qPrintable(QString::number(e.cross)));
    }

    void inconsistentConfigsAreRefused_data()
    {
        QTest::addColumn<QString>("caseName");
        QTest::addColumn<QString>("key");
        QTest::addColumn<QJsonValue>("value");
        QTest::addColumn<QString>("message");
        const QString marian = QStringLiteral("marian_s0"), bart = QStringLiteral("bart_s0");
        QTest::newRow("bart: position table")
            << bart << QStringLiteral("max_position_embeddings") << QJsonValue(62)
            << QStringLiteral(
                   "model.safetensors: tensor model.encoder.embed_positions.weight has shape [66, 32] but "
                   "config.json implies [64, 32]");
        QTest::newRow("bart: ffn") << bart << QStringLiteral("decoder_ffn_dim") << QJsonValue(48)
                                   << QStringLiteral(
                                          "model.safetensors: tensor model.decoder.layers.0.fc1.weight "
                                          "has shape [64, 32] but config.json implies [48, 32]");
        QTest::newRow("mbart: ffn") << QStringLiteral("mbart_s0") << QStringLiteral("encoder_ffn_dim")
                                    << QJsonValue(100)
                                    << QStringLiteral(
                                           "model.safetensors: tensor model.encoder.layers.0.fc1.weight "
                                           "has shape [64, 32] but config.json implies [100, 32]");
        QTest::newRow("bart: heads") << bart << QStringLiteral("encoder_attention_heads") << QJsonValue(3)
                                     << QStringLiteral("config.json: d_model 32 is not a multiple of "
                                                       "encoder_attention_heads 3");
        QTest::newRow("heads do not divide d_model")
            << marian << QStringLiteral("d_model") << QJsonValue(30)
            << QStringLiteral("config.json: d_model 30 is not a multiple of encoder_attention_heads 4");
        QTest::newRow("decoder heads") << marian << QStringLiteral("decoder_attention_heads") << QJsonValue(5)
                                       << QStringLiteral("config.json: d_model 32 is not a multiple of "
                                                         "decoder_attention_heads 5");
        QTest::newRow("ffn") << marian << QStringLiteral("encoder_ffn_dim") << QJsonValue(128)
                             << QStringLiteral(
                                    "model.safetensors: tensor model.encoder.layers.0.fc1.weight has "
                                    "shape [64, 32] but config.json implies [128, 32]");
        QTest::newRow("d_model") << marian << QStringLiteral("d_model") << QJsonValue(64)
                                 << QStringLiteral("model.safetensors: tensor model.shared.weight has shape "
                                                   "[125, 32] but config.json implies [125, 64]");
        QTest::newRow("vocab") << marian << QStringLiteral("vocab_size") << QJsonValue(200)
                               << QStringLiteral("config.json: separate encoder and decoder vocabularies");
        QTest::newRow("layers") << marian << QStringLiteral("decoder_layers") << QJsonValue(3)
                                << QStringLiteral(
                                       "model.safetensors: tensor "
                                       "model.decoder.layers.2.self_attn.q_proj.weight is missing");
        QTest::newRow("pad outside") << marian << QStringLiteral("pad_token_id") << QJsonValue(125)
                                     << QStringLiteral(
                                            "config.json: pad_token_id 125 is outside vocab_size 125");
        QTest::newRow("negative layers") << marian << QStringLiteral("encoder_layers") << QJsonValue(-2)
                                         << QStringLiteral("config.json: encoder_layers must be an integer");
        QTest::newRow("activation") << marian << QStringLiteral("activation_function")
                                    << QJsonValue(QStringLiteral("tanhh"))
                                    << QStringLiteral("config.json: activation activation_function 'tanhh'");
        QTest::newRow("not encoder-decoder")
            << marian << QStringLiteral("model_type") << QJsonValue(QStringLiteral("gpt2"))
            << QStringLiteral("config.json: model_type 'gpt2' is not an encoder-decoder model");
    }
    void inconsistentConfigsAreRefused()
    {
        QFETCH(QString, caseName);
        QFETCH(QString, key);
        QFETCH(QJsonValue, value);
        QFETCH(QString, message);
        QTemporaryDir dir;
        const QString folder = editedCopy(dir, caseName, key, value);
        const QString error = errorOf([&] { EncoderDecoderModel::open(folder); });
        QVERIFY2(error.startsWith(folder + QLatin1Char('/')), qPrintable(error));
        QVERIFY2(error.contains(message), qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));
    }

    // A config with fewer layers than the weights runs the first ones and says which it leaves out.
    void unusedLayersAreNamed()
    {
        QCOMPARE(EncoderDecoderModel::open(caseFolder(QStringLiteral("mbart_s0")))->unusedLayersNote(),
                 QString());
        QTemporaryDir dir;
        const QString folder = copyOracleCase(dir, QStringLiteral("mbart_s0"), QStringLiteral("m"));
        editModelConfig(folder, QStringLiteral("decoder_layers"), 1);
        const auto model = EncoderDecoderModel::open(folder);
        QCOMPARE(model->run({5, 6, 2}, {2, 7}).decoder.layers(), 1);
        const QString note = model->unusedLayersNote();
        QVERIFY2(note.startsWith(folder +
                                 QStringLiteral("/config.json: decoder_layers 1, but the weights also hold "
                                                "decoder layer 1 (")),
                 qPrintable(note));
        QVERIFY2(!note.contains(QStringLiteral("encoder_layers")), qPrintable(note));
    }

    // Damaged weights: NaN in a matrix is found in the pass and named with its layer; NaN in a norm at open;
    // a truncated file at open.
    void damagedWeightsAreNamed()
    {
        QTemporaryDir dir;
        const QString nanMatrix = dir.filePath(QStringLiteral("nan-matrix"));
        const auto poison = [](const QString& tensor) {
            return [tensor](std::vector<TensorToWrite>& tensors) {
                for (TensorToWrite& t : tensors)
                    if (t.name == tensor) {
                        const float nan = std::numeric_limits<float>::quiet_NaN();
                        std::memcpy(t.data.data(), &nan, sizeof nan);
                    }
            };
        };
        copyModel(caseFolder(), nanMatrix, poison(QStringLiteral("model.decoder.layers.1.fc1.weight")));
        const auto model = EncoderDecoderModel::open(nanMatrix);
        const QString error =
            errorOf([&] { model->run(caseIds("source_ids"), caseIds("decoder_input_ids")); });
        QVERIFY2(error.contains(QStringLiteral("decoder layer 1")) && error.contains(QStringLiteral("NaN")),
                 qPrintable(error));
        QVERIFY2(!error.contains(QLatin1Char('\n')), qPrintable(error));

        const QString nanNorm = dir.filePath(QStringLiteral("nan-norm"));
        copyModel(caseFolder(), nanNorm,
                  poison(QStringLiteral("model.encoder.layers.0.final_layer_norm.bias")));
        const QString openError = errorOf([&] { EncoderDecoderModel::open(nanNorm); });
        QVERIFY2(openError.contains(QStringLiteral("model.encoder.layers.0.final_layer_norm.bias")),
                 qPrintable(openError));

        const QString truncated = dir.filePath(QStringLiteral("truncated"));
        copyModel(caseFolder(), truncated);
        const QByteArray bytes = readFileBytes(truncated + QStringLiteral("/model.safetensors"));
        writeRequiredFile(truncated + QStringLiteral("/model.safetensors"), bytes.left(bytes.size() / 2));
        const QString truncatedError = errorOf([&] { EncoderDecoderModel::open(truncated); });
        QVERIFY2(truncatedError.startsWith(truncated + QStringLiteral("/model.safetensors: ")),
                 qPrintable(truncatedError));
    }

    // A config without model_type is read by its architectures class, as single-stack configs are.
    void modelTypeFromTheClass()
    {
        QTemporaryDir dir;
        const QString folder = copyOracleCase(dir, QStringLiteral("bart_s0"), QStringLiteral("m"));
        editModelConfig(folder, QStringLiteral("model_type"), QJsonValue(QJsonValue::Undefined));
        QCOMPARE(EncoderDecoderModel::open(folder)->config().modelType, QStringLiteral("bart"));
        editModelConfig(folder, QStringLiteral("architectures"),
                        QJsonArray{QStringLiteral("GPT2LMHeadModel")});
        const QString error = errorOf([&] { EncoderDecoderModel::open(folder); });
        QVERIFY2(error.contains(QStringLiteral("is not an encoder-decoder model")), qPrintable(error));
    }

    // The single-stack runtime says what a Marian folder is instead of "unsupported architecture".
    void transformerModelNamesTheKind()
    {
        const QString error = modelOpenError(caseFolder());
        QVERIFY2(
            error.contains(QStringLiteral("model_type 'marian' is an encoder-decoder (translation) model")),
            qPrintable(error));
        QVERIFY(!ModelConfig::supportedModelTypes().contains(QStringLiteral("marian")));
        QCOMPARE(EncoderDecoderModel::supportedModelTypes(),
                 (QStringList{QStringLiteral("bart"), QStringLiteral("marian"), QStringLiteral("mbart"),
                              QStringLiteral("mt5"), QStringLiteral("t5")}));
        QVERIFY(!ModelConfig::supportedModelTypes().contains(QStringLiteral("bart")));
    }

    void badInputsAreRefused_data()
    {
        QTest::addColumn<std::vector<int>>("source");
        QTest::addColumn<std::vector<int>>("target");
        QTest::addColumn<QString>("message");
        const std::vector<int> ok{56, 41, 0};
        QTest::newRow("empty source") << std::vector<int>{} << ok << QStringLiteral("the source is empty");
        QTest::newRow("empty target") << ok << std::vector<int>{} << QStringLiteral("the target is empty");
        QTest::newRow("id past vocabulary")
            << ok << std::vector<int>{124, 125}
            << QStringLiteral("target token 1 has id 125, outside the vocabulary");
        QTest::newRow("negative id") << std::vector<int>{-1} << ok
                                     << QStringLiteral("source token 0 has id -1, outside the vocabulary");
        QTest::newRow("too long") << std::vector<int>(65, 5) << ok
                                  << QStringLiteral("the source has 65 tokens; this model takes at most 64");
    }
    void badInputsAreRefused()
    {
        QFETCH(std::vector<int>, source);
        QFETCH(std::vector<int>, target);
        QFETCH(QString, message);
        const auto model = EncoderDecoderModel::open(caseFolder());
        const QString error = errorOf([&] { model->run(source, target); });
        QVERIFY2(error.contains(message), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestEncoderDecoder)
#include "tst_encoder_decoder.moc"
