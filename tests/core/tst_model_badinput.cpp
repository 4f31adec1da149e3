// Broken model folders and inputs: each gives one ModelError whose single line names the file and the
// problem; nothing crashes and nothing is written into the folder.

#include "core/support/modelfixtures.h"
#include "model/transformermodel.h"
#include "support/testdata.h"

#include <QDirIterator>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QMap<QString, qint64> listing(const QString& folder)
{
    QMap<QString, qint64> files;
    QDirIterator it(folder, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        it.next();
        files.insert(it.filePath(), it.fileInfo().size());
    }
    return files;
}

} // namespace

class TestModelBadInput : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void brokenFolder_data();
    void brokenFolder();
    void badInput_data();
    void badInput();
};

void TestModelBadInput::brokenFolder_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("file");    // the file the message must name
    QTest::addColumn<QString>("problem"); // a phrase of the problem
    QTest::newRow("missing folder") << "missing-folder"
                                    << "nowhere"
                                    << "no such folder";
    QTest::newRow("missing config.json") << "missing-config"
                                         << "config.json"
                                         << "file not found";
    QTest::newRow("missing weights") << "missing-weights"
                                     << "model"
                                     << "no model.safetensors";
    // One line of 22 bytes that ends inside the object: the parser stops at its last character.
    QTest::newRow("invalid config JSON") << "config-json"
                                         << "config.json"
                                         << "not valid JSON (line 1, column 22: unterminated object)";
    QTest::newRow("unsupported architecture")
        << "architecture"
        << "config.json"
        << "unsupported architecture 'mamba' (MambaForCausalLM); supported model types: bert, distilbert, "
           "gemma, gemma2, gemma3, gemma3_text, gpt2, gpt_neox, gpt_oss, llama, mistral, phi, phi3, qwen2, "
           "qwen3, roberta, smollm3, xlm-roberta";
    QTest::newRow("empty safetensors") << "empty"
                                       << "model.safetensors"
                                       << "too short";
    QTest::newRow("truncated safetensors") << "truncated"
                                           << "model.safetensors"
                                           << "runs past the end of the data";
    QTest::newRow("header length larger than file") << "header-length"
                                                    << "model.safetensors"
                                                    << "header length 1000000 is larger than the file";
    QTest::newRow("invalid header JSON") << "header-json"
                                         << "model.safetensors"
                                         << "invalid JSON header";
    QTest::newRow("offsets past the data") << "past-data"
                                           << "model.safetensors"
                                           << "runs past the end of the data (64 bytes)";
    QTest::newRow("overlapping offsets") << "overlap"
                                         << "model.safetensors"
                                         << "overlap";
    QTest::newRow("overlap across an empty tensor") << "overlap-empty"
                                                    << "model.safetensors"
                                                    << "tensors a [0, 64) and c [32, 48) overlap";
    QTest::newRow("offsets not matching shape") << "size-mismatch"
                                                << "model.safetensors"
                                                << "occupies 60 bytes but F32 [4, 4] needs 64";
    QTest::newRow("unknown dtype") << "dtype"
                                   << "model.safetensors"
                                   << "unknown dtype 'F33'";
    QTest::newRow("shape disagrees with config") << "shape"
                                                 << "model.safetensors"
                                                 << "tensor bert.encoder.layer.0.intermediate.dense.weight "
                                                    "has shape [64, 32] but config.json implies [48, 32]";
    QTest::newRow("missing tensor") << "missing-tensor"
                                    << "model.safetensors"
                                    << "tensor transformer.h.1.mlp.c_fc.bias is missing";
    QTest::newRow("index names absent shard") << "index-shard"
                                              << "model-2.safetensors"
                                              << "file not found";
    QTest::newRow("invalid index JSON") << "index-json"
                                        << "model.safetensors.index.json"
                                        << "invalid JSON";
}

void TestModelBadInput::brokenFolder()
{
    QFETCH(QString, kind);
    QFETCH(QString, file);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    QString folder = dir.filePath(QStringLiteral("model"));
    const QString weights = folder + QStringLiteral("/model.safetensors");
    const QString bert = oracleFolder(QStringLiteral("bert_s0"));
    copyModel(bert, folder);
    const QByteArray tensorHeader = R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]}})";

    if (kind == QLatin1String("missing-folder"))
        folder = dir.filePath(QStringLiteral("nowhere"));
    else if (kind == QLatin1String("missing-config"))
        QFile::remove(folder + QStringLiteral("/config.json"));
    else if (kind == QLatin1String("missing-weights"))
        QFile::remove(weights);
    else if (kind == QLatin1String("config-json"))
        writeRequiredFile(folder + QStringLiteral("/config.json"), "{\"model_type\": \"bert\",");
    else if (kind == QLatin1String("architecture")) {
        editModelConfig(folder, QStringLiteral("model_type"), QStringLiteral("mamba"));
        editModelConfig(folder, QStringLiteral("architectures"),
                        QJsonArray{QStringLiteral("MambaForCausalLM")});
    } else if (kind == QLatin1String("empty"))
        writeRequiredFile(weights, QByteArray());
    else if (kind == QLatin1String("truncated")) {
        QFile f(weights);
        f.open(QIODevice::ReadWrite);
        f.resize(f.size() / 2);
    } else if (kind == QLatin1String("header-length"))
        writeRequiredFile(weights, rawSafetensors(tensorHeader, 64, 1000000));
    else if (kind == QLatin1String("header-json"))
        writeRequiredFile(weights, rawSafetensors(R"({"a":{"dtype":"F32",)", 64));
    else if (kind == QLatin1String("past-data"))
        writeRequiredFile(
            weights, rawSafetensors(R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[16,80]}})", 64));
    else if (kind == QLatin1String("overlap"))
        writeRequiredFile(weights,
                          rawSafetensors(R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},)"
                                         R"("b":{"dtype":"F32","shape":[4,4],"data_offsets":[32,96]}})",
                                         128));
    else if (kind == QLatin1String("overlap-empty"))
        writeRequiredFile(weights,
                          rawSafetensors(R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,64]},)"
                                         R"("b":{"dtype":"F32","shape":[0],"data_offsets":[16,16]},)"
                                         R"("c":{"dtype":"F32","shape":[4],"data_offsets":[32,48]}})",
                                         64));
    else if (kind == QLatin1String("size-mismatch"))
        writeRequiredFile(weights,
                          rawSafetensors(R"({"a":{"dtype":"F32","shape":[4,4],"data_offsets":[0,60]}})", 64));
    else if (kind == QLatin1String("dtype"))
        writeRequiredFile(weights,
                          rawSafetensors(R"({"a":{"dtype":"F33","shape":[4,4],"data_offsets":[0,64]}})", 64));
    else if (kind == QLatin1String("shape"))
        editModelConfig(folder, QStringLiteral("intermediate_size"), 48);
    else if (kind == QLatin1String("missing-tensor")) {
        QDir(folder).removeRecursively();
        copyModel(oracleFolder(QStringLiteral("gpt2_s0")), folder, [](std::vector<TensorToWrite>& tensors) {
            tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                         [](const TensorToWrite& t) {
                                             return t.name == QLatin1String("transformer.h.1.mlp.c_fc.bias");
                                         }),
                          tensors.end());
        });
    } else if (kind == QLatin1String("index-shard") || kind == QLatin1String("index-json")) {
        QFile::rename(weights, folder + QStringLiteral("/model-1.safetensors"));
        QJsonObject map;
        for (const TensorToWrite& t : readTensors(folder + QStringLiteral("/model-1.safetensors")))
            map.insert(t.name, QStringLiteral("model-1.safetensors"));
        map.insert(QStringLiteral("bert.extra"), QStringLiteral("model-2.safetensors"));
        writeRequiredFile(folder + QStringLiteral("/model.safetensors.index.json"),
                          kind == QLatin1String("index-json")
                              ? QByteArray("{\"weight_map\": ")
                              : QJsonDocument(QJsonObject{{QStringLiteral("weight_map"), map}}).toJson());
    } else {
        QFAIL("unknown case");
    }

    const QMap<QString, qint64> before = listing(dir.path());
    QString message;
    try {
        TransformerModel::open(folder);
    } catch (const ModelError& e) {
        message = e.message();
    }
    QVERIFY2(!message.isEmpty(), "no ModelError");
    QVERIFY2(!message.contains(QLatin1Char('\n')), qPrintable(message));
    // "<file>: <problem>"
    const int colon = int(message.indexOf(QStringLiteral(": ")));
    QVERIFY2(colon > 0 && message.left(colon).endsWith(file), qPrintable(message));
    QVERIFY2(message.contains(problem), qPrintable(message));
    QCOMPARE(listing(dir.path()), before);
}

void TestModelBadInput::badInput_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<QVector<int>>("ids");
    QTest::addColumn<QVector<int>>("typeIds");
    QTest::addColumn<QString>("problem");
    QVector<int> tooLong(65, 5);
    QTest::newRow("too long for BERT")
        << "bert_s0" << tooLong << QVector<int>{} << "65 tokens are more than the 64 positions";
    QTest::newRow("too long for Llama")
        << "llama_s0" << tooLong << QVector<int>{} << "65 tokens are more than the 64 positions";
    QTest::newRow("empty") << "gpt2_s0" << QVector<int>{} << QVector<int>{} << "no tokens";
    QTest::newRow("id past vocabulary") << "gpt2_s0" << QVector<int>{1, 361} << QVector<int>{}
                                        << "token id 361 at position 1 is outside the vocabulary of 361 ids";
    QTest::newRow("negative id") << "llama_s1" << QVector<int>{-1} << QVector<int>{} << "token id -1";
    QTest::newRow("type id count") << "bert_s1" << QVector<int>{2, 3} << QVector<int>{0}
                                   << "1 token type ids for 2 tokens";
    QTest::newRow("type id range") << "bert_s1" << QVector<int>{2, 3} << QVector<int>{0, 2}
                                   << "token type id 2 is outside the 2 types";
}

void TestModelBadInput::badInput()
{
    QFETCH(QString, caseName);
    QFETCH(QVector<int>, ids);
    QFETCH(QVector<int>, typeIds);
    QFETCH(QString, problem);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const std::vector<int> idVector(ids.begin(), ids.end()), typeVector(typeIds.begin(), typeIds.end());
    for (int attempt = 0; attempt < 2; ++attempt) { // run and predict refuse alike
        QString message;
        try {
            if (attempt == 0)
                model->run(idVector, typeVector);
            else
                model->predict(idVector, typeVector, 5, {}, {0});
        } catch (const ModelError& e) {
            message = e.message();
        }
        QVERIFY2(message.startsWith(oracleFolder(caseName) + QStringLiteral(": ")), qPrintable(message));
        QVERIFY2(message.contains(problem), qPrintable(message));
        QVERIFY(!message.contains(QLatin1Char('\n')));
    }
}

QTEST_GUILESS_MAIN(TestModelBadInput)
#include "tst_model_badinput.moc"
