// Issue 35, the config and tokenizer findings of the second hostile pass: values that passed although they
// are wrong (token ids of 2^40 and -7, a key given twice, do_lower_case "yes"), a table sized by a hostile
// id before anything refused it, a syntax error placed only by its byte offset, and a config that leaves
// layers of its checkpoint unused without a word.

#include "core/support/modelfixtures.h"
#include "io/strictjson.h"
#include "model/encoderdecodermodel.h"
#include "model/modelcatalog.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/modelvocabulary.h"
#include "model/transformermodel.h"
#include "model/unusedlayers.h"
#include "model/weightstore.h"
#include "support/testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

// `text` with its first `"key": ` replaced by `"key": value`: for values QJsonDocument cannot write (a key
// twice) or would round (2^40 is exact in a double, but written by hand to be sure of the text).
QByteArray withValue(QByteArray text, const QByteArray& key, const QByteArray& value)
{
    const QByteArray quoted = '"' + key + "\":";
    const qsizetype at = text.indexOf(quoted);
    if (at < 0) return text.replace("{", "{" + quoted + ' ' + value + ",");
    const qsizetype end = text.indexOf('\n', at);
    const bool comma = text.mid(at, end - at).trimmed().endsWith(',');
    return text.replace(at, end - at, quoted + ' ' + value + (comma ? "," : ""));
}

} // namespace

class TestStrictInputs : public QObject
{
    Q_OBJECT

private slots:
    void configTokenIdsAreChecked_data();
    void configTokenIdsAreChecked();
    void duplicateKeysAreRefused_data();
    void duplicateKeysAreRefused();
    void syntaxErrorsNameLineAndColumn();
    void tokenizerFlagsMustBeBooleans();
    void vocabularyTableStaysWithinTheModel();
    void unusedLayersAreNamed();
};

void TestStrictInputs::configTokenIdsAreChecked_data()
{
    QTest::addColumn<QByteArray>("key");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("problem"); // "" when it must open
    QTest::newRow("bos 2^40") << QByteArray("bos_token_id") << QByteArray("1099511627776")
                              << QStringLiteral(
                                     "bos_token_id 1099511627776 is not a token id (a whole number "
                                     "from 0 to 16777215)");
    QTest::newRow("eos -7") << QByteArray("eos_token_id") << QByteArray("-7")
                            << QStringLiteral("eos_token_id -7 is not a token id");
    QTest::newRow("eos list with 2.5") << QByteArray("eos_token_id") << QByteArray("[360, 2.5]")
                                       << QStringLiteral("eos_token_id 2.5 is not a token id");
    QTest::newRow("eos a string") << QByteArray("eos_token_id") << QByteArray("\"360\"")
                                  << QStringLiteral("eos_token_id \"360\" is not a token id");
    QTest::newRow("eos list (Llama 3)") << QByteArray("eos_token_id") << QByteArray("[360, 0]") << QString();
    QTest::newRow("bos null") << QByteArray("bos_token_id") << QByteArray("null") << QString();
}

// bos_token_id 2^40 and eos_token_id -7 were accepted (transformers' generation stops at eos_token_id).
void TestStrictInputs::configTokenIdsAreChecked()
{
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s1"), QStringLiteral("m"));
    const QString config = folder + QStringLiteral("/config.json");
    writeRequiredFile(config, withValue(readFileBytes(config), key, value));
    const QString message = modelOpenError(folder);
    if (problem.isEmpty()) {
        QVERIFY2(message.isEmpty(), qPrintable(message));
        return;
    }
    QVERIFY2(message == QDir::toNativeSeparators(config) + QStringLiteral(": ") + problem ||
                 (message.startsWith(QDir::toNativeSeparators(config)) && message.contains(problem)),
             qPrintable(message));
}

void TestStrictInputs::duplicateKeysAreRefused_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QByteArray>("key"); // a top-level key the file has, given a second time before it
    QTest::addColumn<QByteArray>("value");
    QTest::newRow("config.json") << QStringLiteral("config.json") << QByteArray("n_layer") << QByteArray("1");
    QTest::newRow("tokenizer.json") << QStringLiteral("tokenizer.json") << QByteArray("version")
                                    << QByteArray("\"1.0\"");
    QTest::newRow("tokenizer_config.json")
        << QStringLiteral("tokenizer_config.json") << QByteArray("tokenizer_class")
        << QByteArray("\"GPT2Tokenizer\"");
}

// QJsonDocument keeps the last of two equal keys, silently: {"n_layer": 1, ..., "n_layer": 2} ran two layers.
void TestStrictInputs::duplicateKeysAreRefused()
{
    QFETCH(QString, file);
    QFETCH(QByteArray, key);
    QFETCH(QByteArray, value);
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s1"), QStringLiteral("m"));
    const QString path = folder + QLatin1Char('/') + file;
    QByteArray text = readFileBytes(path);
    QVERIFY(QJsonDocument::fromJson(text).object().contains(QLatin1String(key)));
    text.replace(text.indexOf('{'), 1, "{\"" + key + "\": " + value + ",");
    writeRequiredFile(path, text);
    QString message = modelOpenError(folder);
    if (message.isEmpty()) // a tokenizer file: the model opens and its tokenizer says why not
        message = TransformerModel::open(folder)->tokenizerError();
    QCOMPARE(message, QStringLiteral("%1: the key \"%2\" is given twice")
                          .arg(QDir::toNativeSeparators(path), QLatin1String(key)));
}

// A malformed config.json was "invalid JSON at byte 37", and the window said "no readable config.json".
void TestStrictInputs::syntaxErrorsNameLineAndColumn()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s1"), QStringLiteral("m"));
    const QString config = folder + QStringLiteral("/config.json");
    writeRequiredFile(config, "{\n  \"model_type\": \"gpt2\",\n  \"n_layer\" 2\n}\n"); // line 3: no colon
    const QString expected = QDir::toNativeSeparators(config) +
                             QStringLiteral(": not valid JSON (line 3, column 13: missing name separator)");
    QCOMPARE(modelOpenError(folder), expected);
    QCOMPARE(ModelCatalog::describeProblem(folder), expected);
    QCOMPARE(lineAndColumn("ab\ncd", 4), QStringLiteral("line 2, column 2"));
    QCOMPARE(lineAndColumn("ab\ncd", 0), QStringLiteral("line 1, column 1"));
}

// do_lower_case: "yes" was read as the default (true), whatever the file meant.
void TestStrictInputs::tokenizerFlagsMustBeBooleans()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("bert_s0"), QStringLiteral("m"));
    QFile::remove(folder + QStringLiteral("/tokenizer.json")); // vocab.txt + tokenizer_config.json
    const QString config = folder + QStringLiteral("/tokenizer_config.json");
    writeRequiredFile(config, "{\"do_lower_case\": \"yes\"}");
    const auto model = TransformerModel::open(folder);
    QCOMPARE(model->tokenizerError(),
             QDir::toNativeSeparators(config) + QStringLiteral(": do_lower_case must be true or false"));
    writeRequiredFile(config, "{\"do_lower_case\": false}");
    QVERIFY2(TransformerModel::open(folder)->tokenizer(), "false is a boolean");
}

// An added token with id 10^7 sized the vocabulary table to 10^7 entries (490 MB) before the tokenizer
// refused it: the table holds only the model's ids.
void TestStrictInputs::vocabularyTableStaysWithinTheModel()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("bert_s0"), QStringLiteral("m"));
    const QString path = folder + QStringLiteral("/tokenizer.json");
    QJsonObject root = QJsonDocument::fromJson(readFileBytes(path)).object();
    QJsonArray added = root.value(QStringLiteral("added_tokens")).toArray();
    added.append(QJsonObject{{QStringLiteral("id"), 10'000'000},
                             {QStringLiteral("content"), QStringLiteral("<far>")},
                             {QStringLiteral("special"), true}});
    root.insert(QStringLiteral("added_tokens"), added);
    writeRequiredFile(path, QJsonDocument(root).toJson());
    const int vocabSize = ModelConfig::fromFile(folder + QStringLiteral("/config.json")).vocabSize;
    const ModelVocabulary vocabulary = ModelVocabulary::fromFolder(folder, vocabSize);
    QVERIFY(!vocabulary.tokens.empty());
    QVERIFY2(vocabulary.tokens.size() <= size_t(vocabSize),
             qPrintable(QString::number(vocabulary.tokens.size())));
    const auto model = TransformerModel::open(folder);
    QVERIFY2(model->tokenizerError().contains(QLatin1String("id 10000000 is far beyond")),
             qPrintable(model->tokenizerError()));
}

// A config of 1 layer on a 2-layer checkpoint ran without a word. It still runs (a truncated model is a fair
// experiment, and transformers loads it too, with a warning), and says which layers it leaves out.
void TestStrictInputs::unusedLayersAreNamed()
{
    QTemporaryDir dir;
    const QString folder = copyOracleCase(dir, QStringLiteral("gpt2_s1"), QStringLiteral("m"));
    QVERIFY(TransformerModel::open(folder)->unusedLayersWarning().isEmpty());
    const QString config = folder + QStringLiteral("/config.json");
    writeRequiredFile(config, withValue(readFileBytes(config), "n_layer", "1"));
    const auto model = TransformerModel::open(folder);
    QCOMPARE(model->config().layers, 1);
    const QStringList names = WeightStore::openFolder(folder).names();
    const int perLayer = int(std::count_if(names.cbegin(), names.cend(), [](const QString& n) {
        return n.startsWith(QLatin1String("transformer.h.1."));
    }));
    QVERIFY(perLayer >= 10);
    QCOMPARE(
        model->unusedLayersWarning(),
        QDir::toNativeSeparators(config) +
            QStringLiteral(": 1 layer, but the weights also hold layer 1 (%1 tensors), which are not used")
                .arg(perLayer));

    // Consistent checkpoints say nothing: every oracle case (each family's own tensor names).
    const QDir oracle(QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle"));
    int opened = 0;
    for (const QString& name : oracle.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        if (!QFileInfo::exists(oracle.filePath(name + QStringLiteral("/config.json")))) continue;
        // Encoder-decoder cases (marian_s0, bart_s0, ...) open as such: their note says the same.
        if (QFileInfo::exists(oracle.filePath(name + QStringLiteral("/encoder_attentions.npy")))) {
            const auto pair = EncoderDecoderModel::open(oracle.filePath(name));
            QVERIFY2(pair->unusedLayersNote().isEmpty(), qPrintable(pair->unusedLayersNote()));
        } else {
            const auto oracleModel = TransformerModel::open(oracle.filePath(name));
            QVERIFY2(oracleModel->unusedLayersWarning().isEmpty(),
                     qPrintable(oracleModel->unusedLayersWarning()));
        }
        ++opened;
    }
    QVERIFY(opened >= 30);

    QCOMPARE(unusedLayerTensors({QStringLiteral("m.layers.3.w"), QStringLiteral("m.layers.5.w"),
                                 QStringLiteral("m.layers.5.b"), QStringLiteral("m.norm.w")},
                                {}, 2),
             QStringLiteral("layers 3, 5 (3 tensors)"));
    QCOMPARE(unusedLayerTensors(
                 {QStringLiteral("blk.2.a"), QStringLiteral("blk.3.a"), QStringLiteral("blk.1.a")}, {}, 2),
             QStringLiteral("layers 2 to 3 (2 tensors)"));
}

QTEST_GUILESS_MAIN(TestStrictInputs)
#include "tst_strict_inputs.moc"
