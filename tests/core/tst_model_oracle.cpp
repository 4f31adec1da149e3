// The model runtime against upstream transformers: every oracle case's attention probabilities (computed by
// transformers in float64) to 1e-5, plus the loader's variants (bare names, shards, tied embeddings) and the
// tiled capture of long inputs, each checked against the plain run.

#include "attention/layeredattentionmaps.h"
#include "attention/tiledattentionmaps.h"
#include "core/support/modelfixtures.h"
#include "model/transformermodel.h"
#include "support/testdata.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <random>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const std::vector<const char*> kCases = {"bert_s0",  "bert_s1",  "gpt2_s0", "gpt2_s1",
                                         "llama_s0", "llama_s1", "llama_s2"};

} // namespace

class TestModelOracle : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesTransformers_data();
    void matchesTransformers();
    void tokenizerGivesOracleIds_data();
    void tokenizerGivesOracleIds();
    void tiledCaptureMatchesOracle_data();
    void tiledCaptureMatchesOracle();
    void longInputTiledEqualsDense_data();
    void longInputTiledEqualsDense();
    void bareTensorNames_data();
    void bareTensorNames();
    void shardedIndex_data();
    void shardedIndex();
    void tiedEmbeddings();
    void llamaFamilyVariants_data();
    void llamaFamilyVariants();
    void normWeightedAttentionMatchesDirect_data();
    void normWeightedAttentionMatchesDirect();
    void captureOutlivesModel();
    void predictions();
    void cancelStopsTheRun();
};

void TestModelOracle::matchesTransformers_data()
{
    addOracleCaseRows(kCases);
}

void TestModelOracle::matchesTransformers()
{
    QFETCH(QString, caseName);
    checkMatchesOracle(*TransformerModel::open(oracleFolder(caseName)), caseName);
}

void TestModelOracle::tokenizerGivesOracleIds_data()
{
    matchesTransformers_data();
}

// Where the case has a tokenizer, the folder's tokenizer turns the case's text into exactly input_ids.
void TestModelOracle::tokenizerGivesOracleIds()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    QFile caseFile(oracleFolder(caseName) + QStringLiteral("/case.json"));
    QVERIFY(caseFile.open(QIODevice::ReadOnly));
    const QJsonObject c = QJsonDocument::fromJson(caseFile.readAll()).object();
    if (!c.value(QLatin1String("text")).isString()) {
        QVERIFY(!model->tokenizer());
        QVERIFY(model->tokenizerError().contains(QStringLiteral("no tokenizer files")));
        QSKIP("no tokenizer in this case");
    }
    QVERIFY2(model->tokenizer(), qPrintable(model->tokenizerError()));
    const Encoding e = model->tokenizer()->encode(c.value(QLatin1String("text")).toString());
    QCOMPARE(e.ids, oracleInputIds(caseName));
    QStringList tokens;
    for (const QJsonValue& t : c.value(QLatin1String("tokens")).toArray())
        tokens << t.toString();
    QCOMPARE(e.tokens, tokens);
    for (size_t i = 0; i < e.ids.size(); ++i)
        QCOMPARE(model->tokenText(e.ids[i]), tokens[qsizetype(i)]);
}

void TestModelOracle::tiledCaptureMatchesOracle_data()
{
    matchesTransformers_data();
}

// The same cases through attentionTiled + TiledAttentionMaps (denseLimit below n).
void TestModelOracle::tiledCaptureMatchesOracle()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    RunOptions options;
    options.denseLimit = 4;
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {}, options);
    QVERIFY(dynamic_cast<const TiledAttentionMaps*>(capture.maps.get()));
    const double error = maxAbsError(*capture.maps, oracleAttentions(caseName));
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
}

void TestModelOracle::longInputTiledEqualsDense_data()
{
    addOracleCaseRows({"bert_s0", "gpt2_s1", "llama_s0"});
}

// n = max positions (64) > denseLimit 16: the tiled maps recompute the same P as the dense run.
void TestModelOracle::longInputTiledEqualsDense()
{
    QFETCH(QString, caseName);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    std::mt19937 rng(7);
    std::uniform_int_distribution<int> token(0, model->info().vocabSize - 1);
    std::vector<int> ids(size_t(model->info().maxPositions));
    for (int& id : ids)
        id = token(rng);
    RunOptions tiled;
    tiled.denseLimit = 16;
    const AttentionCapture a = model->run(ids, {}, tiled);
    const AttentionCapture b = model->run(ids, {});
    QVERIFY(dynamic_cast<const TiledAttentionMaps*>(a.maps.get()));
    QVERIFY(dynamic_cast<const LayeredAttentionMaps*>(b.maps.get()));
    // Layer 0 sees identical inputs: same P up to the rounding of exp(S − L). Later layers see hidden
    // states that went through the online-softmax output, whose float rounding differs from the dense
    // path's; the wide random weights amplify that a little, still far below the oracle tolerance.
    double firstLayer = 0;
    for (int h = 0; h < a.maps->heads(); ++h) {
        const std::vector<float> pa = a.maps->matrix(0, h), pb = b.maps->matrix(0, h);
        for (size_t i = 0; i < pa.size(); ++i)
            firstLayer = std::max(firstLayer, double(std::abs(pa[i] - pb[i])));
    }
    const double all = maxAbsError(*a.maps, *b.maps);
    qInfo("tiled vs dense: layer 0 %.3g, all layers %.3g", firstLayer, all);
    QVERIFY(firstLayer < 1e-6);
    QVERIFY(all < 1e-5);
    // A tile inside the matrix equals the same block of the full matrix.
    const std::vector<float> tile = a.maps->tile(1, 2, 10, 30, 5, 50);
    const std::vector<float> full = b.maps->matrix(1, 2);
    for (int q = 10; q < 30; ++q)
        for (int k = 5; k < 50; ++k)
            QVERIFY(std::abs(tile[size_t(q - 10) * 45 + size_t(k - 5)] - full[size_t(q) * 64 + size_t(k)]) <
                    1e-5);
}

void TestModelOracle::bareTensorNames_data()
{
    matchesTransformers_data();
}

// The same weights saved without the head prefix ("h.0.attn..." as in the original gpt2 upload) give the
// same attention.
void TestModelOracle::bareTensorNames()
{
    QFETCH(QString, caseName);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("bare"));
    copyModel(oracleFolder(caseName), folder, [](std::vector<TensorToWrite>& tensors) {
        std::vector<TensorToWrite> kept;
        for (TensorToWrite& t : tensors) {
            for (const char* prefix : {"bert.", "transformer.", "model."})
                if (t.name.startsWith(QLatin1String(prefix))) t.name = t.name.mid(int(qstrlen(prefix)));
            if (!t.name.startsWith(QLatin1String("cls.")) && t.name != QLatin1String("lm_head.weight"))
                kept.push_back(t); // a bare base model has no head
        }
        tensors = kept;
    });
    const auto model = TransformerModel::open(folder);
    const double error =
        maxAbsError(*model->run(oracleInputIds(caseName), {}).maps, oracleAttentions(caseName));
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
}

void TestModelOracle::shardedIndex_data()
{
    matchesTransformers_data();
}

// Split into two shards named by model.safetensors.index.json.
void TestModelOracle::shardedIndex()
{
    QFETCH(QString, caseName);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("sharded"));
    copyFolderWithoutWeights(oracleFolder(caseName), folder);
    const std::vector<TensorToWrite> tensors =
        readTensors(oracleFolder(caseName) + QStringLiteral("/model.safetensors"));
    std::vector<TensorToWrite> first(tensors.begin(), tensors.begin() + qsizetype(tensors.size() / 2));
    std::vector<TensorToWrite> second(tensors.begin() + qsizetype(tensors.size() / 2), tensors.end());
    const QString shard1 = QStringLiteral("model-00001-of-00002.safetensors");
    const QString shard2 = QStringLiteral("model-00002-of-00002.safetensors");
    writeSafetensors(folder + QLatin1Char('/') + shard1, first);
    writeSafetensors(folder + QLatin1Char('/') + shard2, second);
    QJsonObject weightMap;
    for (const TensorToWrite& t : first)
        weightMap.insert(t.name, shard1);
    for (const TensorToWrite& t : second)
        weightMap.insert(t.name, shard2);
    writeJsonObject(
        folder + QStringLiteral("/model.safetensors.index.json"),
        QJsonObject{{QStringLiteral("metadata"), QJsonObject{}}, {QStringLiteral("weight_map"), weightMap}});
    QVERIFY(!QFile::exists(folder + QStringLiteral("/model.safetensors")));

    const auto model = TransformerModel::open(folder);
    QCOMPARE(model->info().fileBytes, QFileInfo(folder + QLatin1Char('/') + shard1).size() +
                                          QFileInfo(folder + QLatin1Char('/') + shard2).size());
    const double error =
        maxAbsError(*model->run(oracleInputIds(caseName), {}).maps, oracleAttentions(caseName));
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
}

// llama_s0 has an untied lm_head. A copy whose lm_head is removed and tie_word_embeddings set must predict
// exactly like a copy whose untied lm_head holds the embedding matrix.
void TestModelOracle::tiedEmbeddings()
{
    QTemporaryDir dir;
    const QString tied = dir.filePath(QStringLiteral("tied"));
    const QString untied = dir.filePath(QStringLiteral("untied"));
    copyModel(oracleFolder(QStringLiteral("llama_s0")), tied, [](std::vector<TensorToWrite>& tensors) {
        tensors.erase(
            std::remove_if(tensors.begin(), tensors.end(),
                           [](const TensorToWrite& t) { return t.name == QLatin1String("lm_head.weight"); }),
            tensors.end());
    });
    editModelConfig(tied, QStringLiteral("tie_word_embeddings"), true);
    copyModel(oracleFolder(QStringLiteral("llama_s0")), untied, [](std::vector<TensorToWrite>& tensors) {
        QByteArray embedding;
        for (const TensorToWrite& t : tensors)
            if (t.name == QLatin1String("model.embed_tokens.weight")) embedding = t.data;
        for (TensorToWrite& t : tensors)
            if (t.name == QLatin1String("lm_head.weight")) t.data = embedding;
    });
    const std::vector<int> ids = oracleInputIds(QStringLiteral("llama_s0"));
    const auto a = TransformerModel::open(tied)->predict(ids, {}, 10);
    const auto b = TransformerModel::open(untied)->predict(ids, {}, 10);
    const auto original =
        TransformerModel::open(oracleFolder(QStringLiteral("llama_s0")))->predict(ids, {}, 10);
    QCOMPARE(a.size(), size_t(1));
    QCOMPARE(b.size(), size_t(1));
    QCOMPARE(a[0].top.size(), 10);
    for (int i = 0; i < 10; ++i) {
        QCOMPARE(a[0].top[i].id, b[0].top[i].id);
        QCOMPARE(a[0].top[i].probability, b[0].top[i].probability);
    }
    // The untied original head differs from the embedding matrix, so its distribution does too.
    bool differs = false;
    for (int i = 0; i < 10; ++i)
        differs = differs || original[0].top[i].id != a[0].top[i].id;
    QVERIFY(differs);
}

void TestModelOracle::llamaFamilyVariants_data()
{
    QTest::addColumn<QString>("modelType");
    QTest::addColumn<bool>("attentionBias");
    QTest::newRow("mistral") << QStringLiteral("mistral") << false;
    QTest::newRow("qwen2 (q/k/v biases)") << QStringLiteral("qwen2") << false;
    QTest::newRow("llama attention_bias (q/k/v/o biases)") << QStringLiteral("llama") << true;
}

// The same Llama weights declared as Mistral, or as Qwen2 / attention_bias with all-zero biases added, run
// the same graph: the oracle's attention. The biases must be found under their names and have the right
// shapes.
void TestModelOracle::llamaFamilyVariants()
{
    QFETCH(QString, modelType);
    QFETCH(bool, attentionBias);
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("variant"));
    const bool qkvBias = modelType == QLatin1String("qwen2") || attentionBias;
    copyModel(oracleFolder(QStringLiteral("llama_s0")), folder, [&](std::vector<TensorToWrite>& tensors) {
        for (int l = 0; l < 2; ++l) {
            auto zeros = [&](const char* which, qint64 size) {
                tensors.push_back(
                    {QStringLiteral("model.layers.%1.self_attn.%2.bias").arg(l).arg(QLatin1String(which)),
                     TensorDtype::F32,
                     {size},
                     QByteArray(int(size * 4), '\0')});
            };
            if (qkvBias) {
                zeros("q_proj", 32);
                zeros("k_proj", 16);
                zeros("v_proj", 16);
            }
            if (attentionBias) zeros("o_proj", 32);
        }
    });
    QJsonObject config = readJsonObject(folder + QStringLiteral("/config.json"));
    config.insert(QStringLiteral("model_type"), modelType);
    config.insert(QStringLiteral("attention_bias"), attentionBias);
    config.insert(QStringLiteral("architectures"), QJsonArray{QStringLiteral("ForCausalLM")});
    writeJsonObject(folder + QStringLiteral("/config.json"), config);
    const auto model = TransformerModel::open(folder);
    QCOMPARE(model->info().architecture, modelType);
    const double error = maxAbsError(*model->run(oracleInputIds(QStringLiteral("llama_s0")), {}).maps,
                                     oracleAttentions(QStringLiteral("llama_s0")));
    QVERIFY2(error <= 1e-5, qPrintable(QStringLiteral("max abs error %1").arg(error)));
    // Without the biases the config promises, opening fails naming the tensor.
    if (qkvBias) {
        copyModel(oracleFolder(QStringLiteral("llama_s0")), folder);
        writeJsonObject(folder + QStringLiteral("/config.json"), config);
        QVERIFY_THROWS_EXCEPTION(ModelError, TransformerModel::open(folder));
    }
}

void TestModelOracle::normWeightedAttentionMatchesDirect_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<int>("layer");
    QTest::addColumn<int>("head");
    QTest::newRow("bert_s0 l1 h2") << QStringLiteral("bert_s0") << 1 << 2;
    QTest::newRow("gpt2_s0 l0 h3 (Conv1D)") << QStringLiteral("gpt2_s0") << 0 << 3;
    QTest::newRow("llama_s1 l1 h1 (MQA)") << QStringLiteral("llama_s1") << 1 << 1;
}

// ‖α_ij f(x_j)‖ against the definition: f(x_j) = W_O · [0 … v_j^h … 0] (the head's value vector placed in its
// slot of the concatenated heads, every other head zero), scaled by α_ij, then its Euclidean norm.
void TestModelOracle::normWeightedAttentionMatchesDirect()
{
    QFETCH(QString, caseName);
    QFETCH(int, layer);
    QFETCH(int, head);
    const auto model = TransformerModel::open(oracleFolder(caseName));
    const AttentionCapture c = model->run(oracleInputIds(caseName), {});
    const std::vector<float> norms = normWeightedAttention(c, layer, head);
    const std::vector<float> p = c.maps->matrix(layer, head);
    const int n = c.tokens(), d = c.headDim, hidden = c.hidden, inputs = c.heads * c.headDim;
    const OutputProjection& o = c.outputProjections[size_t(layer)];
    const WeightTensor w = o.weight();
    const HeadTensor& v = c.values[size_t(layer)];
    const int kvHead = head / (c.heads / c.kvHeads);
    double worst = 0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            std::vector<double> concatenated(size_t(inputs), 0.0);
            for (int e = 0; e < d; ++e)
                concatenated[size_t(head * d + e)] = double(p[size_t(i * n + j)]) * v.at(j, kvHead, e);
            double sum = 0;
            for (int out = 0; out < hidden; ++out) {
                double y = 0;
                for (int in = 0; in < inputs; ++in)
                    y += (o.inputMajor ? w.data()[size_t(in) * hidden + out]
                                       : w.data()[size_t(out) * inputs + in]) *
                         concatenated[size_t(in)];
                sum += y * y;
            }
            const double expected = std::sqrt(sum);
            worst = std::max(worst, std::abs(expected - norms[size_t(i * n + j)]) / std::max(1.0, expected));
        }
    QVERIFY2(worst < 1e-5, qPrintable(QString::number(worst)));
    // Causal models: nothing above the diagonal.
    if (c.causal) QCOMPARE(norms[size_t(n - 1)], 0.0f);
}

// The UI keeps captures after the model is closed or replaced: the capture keeps the mapped weights alive.
void TestModelOracle::captureOutlivesModel()
{
    auto model = TransformerModel::open(oracleFolder(QStringLiteral("bert_s1")));
    const AttentionCapture c = model->run(oracleInputIds(QStringLiteral("bert_s1")), {});
    const std::vector<float> before = normWeightedAttention(c, 1, 3);
    model.reset();
    QCOMPARE(normWeightedAttention(c, 1, 3), before);
    QCOMPARE(c.outputProjections[0].weight().shape(), (std::vector<qint64>{32, 32}));
}

void TestModelOracle::predictions()
{
    // BERT: one prediction per [MASK]; probabilities sorted and at most 1 in total.
    const auto bert = TransformerModel::open(oracleFolder(QStringLiteral("bert_s0")));
    QVERIFY(bert->maskTokenId() >= 0);
    QCOMPARE(bert->tokenText(bert->maskTokenId()), QStringLiteral("[MASK]"));
    std::vector<int> ids = oracleInputIds(QStringLiteral("bert_s0"));
    ids[3] = bert->maskTokenId();
    ids[5] = bert->maskTokenId();
    const std::vector<Prediction> masked = bert->predict(ids, {}, 5);
    QCOMPARE(masked.size(), size_t(2));
    QCOMPARE(masked[0].position, 3);
    QCOMPARE(masked[1].position, 5);
    for (const Prediction& p : masked) {
        QCOMPARE(p.top.size(), 5);
        float total = 0;
        for (int i = 0; i < p.top.size(); ++i) {
            total += p.top[i].probability;
            if (i > 0) QVERIFY(p.top[i - 1].probability >= p.top[i].probability);
            QCOMPARE(p.top[i].text, bert->tokenText(p.top[i].id));
        }
        QVERIFY(total <= 1.0f + 1e-5f);
    }
    QVERIFY_THROWS_EXCEPTION(ModelError, bert->predict(oracleInputIds(QStringLiteral("bert_s0")), {}, 5));

    // GPT-2 (tied LM head): the next token after the last position.
    const auto gpt2 = TransformerModel::open(oracleFolder(QStringLiteral("gpt2_s1")));
    const std::vector<int> gptIds = oracleInputIds(QStringLiteral("gpt2_s1"));
    const std::vector<Prediction> next = gpt2->predict(gptIds, {}, 3);
    QCOMPARE(next.size(), size_t(1));
    QCOMPARE(next[0].position, int(gptIds.size()) - 1);
    QCOMPARE(next[0].top.size(), 3);
    QCOMPARE(gpt2->tokenText(gptIds[1]), QStringLiteral("he"));
}

void TestModelOracle::cancelStopsTheRun()
{
    const auto model = TransformerModel::open(oracleFolder(QStringLiteral("gpt2_s0")));
    std::atomic<bool> cancel{true};
    RunOptions options;
    options.cancel = &cancel;
    QVERIFY_THROWS_EXCEPTION(OperationCancelled,
                             model->run(oracleInputIds(QStringLiteral("gpt2_s0")), {}, options));
}

QTEST_GUILESS_MAIN(TestModelOracle)
#include "tst_model_oracle.moc"
