#include "model/transformermodel.h"

#include "io/inputfile.h"
#include "model/architecture.h"
#include "model/gguffile.h"
#include "model/ggufmodel.h"
#include "model/layerstep.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "model/modelshape.h"
#include "model/modelvocabulary.h"
#include "model/nonfinitecheck.h"
#include "model/tensorops.h"
#include "model/unusedlayers.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"
#include "util/nonfinite.h"
#include "util/operationcancelled.h"
#include "util/parallel.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace attnscope {

namespace {

QString shapeText(const std::vector<qint64>& shape)
{
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

// Largest k entries of p (descending), ties broken by the lower id.
std::vector<int> topIndices(const std::vector<double>& p, int k)
{
    std::vector<int> order(p.size());
    std::iota(order.begin(), order.end(), 0);
    k = std::min<int>(k, int(order.size()));
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](int a, int b) {
        return p[size_t(a)] > p[size_t(b)] || (p[size_t(a)] == p[size_t(b)] && a < b);
    });
    order.resize(size_t(k));
    return order;
}

} // namespace

TransformerModel::~TransformerModel() = default;

const Tokenizer* TransformerModel::tokenizer() const
{
    return m_tokenizer.get();
}

std::unique_ptr<TransformerModel> TransformerModel::open(const QString& folderPath)
{
    const QFileInfo folderInfo(folderPath);
    if (folderInfo.isFile() && isGgufPath(folderPath)) return openGguf(folderPath);
    // A FIFO, a device or a dangling link given as the model (a .gguf path, say): named as what it is.
    if (!folderInfo.isDir() && (folderInfo.isSymLink() || (folderInfo.exists() && !folderInfo.isFile())))
        if (const QString problem = inputFileProblem(folderPath); !problem.isEmpty())
            throw ModelError(QDir::toNativeSeparators(folderPath), problem);
    if (!folderInfo.exists())
        throw ModelError(
            ModelProblem{ModelProblem::Kind::NoSuchFolder, QDir::toNativeSeparators(folderPath), {}});
    if (!folderInfo.isDir())
        throw ModelError(
            QDir::toNativeSeparators(folderPath),
            QStringLiteral("not a folder (a model is a folder with config.json and model.safetensors, "
                           "or a llama.cpp .gguf file)"));
    std::unique_ptr<TransformerModel> model(new TransformerModel);
    model->m_folder = QDir::cleanPath(folderInfo.absoluteFilePath());
    const QDir dir(model->m_folder);
    model->m_config = ModelConfig::fromFile(dir.filePath(QStringLiteral("config.json")));
    model->checkWeights(std::make_shared<const WeightStore>(WeightStore::openFolder(model->m_folder)));

    const ModelVocabulary vocabulary =
        ModelVocabulary::fromFolder(model->m_folder, model->m_config.vocabSize);
    model->m_vocabulary = vocabulary.tokens;
    model->m_maskTokenId = vocabulary.maskId;
    const bool hasTokenizerFiles = QFileInfo::exists(dir.filePath(QStringLiteral("tokenizer.json"))) ||
                                   QFileInfo::exists(dir.filePath(QStringLiteral("vocab.txt"))) ||
                                   QFileInfo::exists(dir.filePath(QStringLiteral("vocab.json")));
    if (!hasTokenizerFiles) {
        model->m_tokenizerError =
            QDir::toNativeSeparators(model->m_folder) +
            QStringLiteral(
                ": no tokenizer files (tokenizer.json, vocab.txt or vocab.json); give token ids instead");
    } else {
        try {
            model->m_tokenizer = Tokenizer::fromFolder(model->m_folder);
        } catch (const TokenizerError& e) {
            model->m_tokenizerError = QString::fromStdString(e.what());
        }
    }
    model->describe();
    return model;
}

bool TransformerModel::isGgufPath(const QString& path)
{
    return GgufFile::isGgufPath(path);
}

std::unique_ptr<TransformerModel> TransformerModel::openGguf(const QString& path)
{
    std::unique_ptr<TransformerModel> model(new TransformerModel);
    model->m_folder = QDir::cleanPath(QFileInfo(path).absoluteFilePath());
    auto file = std::make_shared<const GgufFile>(model->m_folder);
    const GgufModelDescription description = describeGgufModel(*file);
    model->m_config = ModelConfig::fromJson(description.config, file->displayPath());
    model->checkWeights(std::make_shared<const WeightStore>(WeightStore::openGguf(file, description)));

    // A damaged tokenizer (an id outside the vocabulary) fails the tokenizer only, as a damaged
    // tokenizer.json does: the model still runs on ids.
    GgufVocabulary vocabulary;
    try {
        vocabulary = readGgufVocabulary(*file);
        if (vocabulary.model.isEmpty() && vocabulary.huggingFaceJson.isEmpty())
            model->m_tokenizerError =
                file->displayPath() +
                QStringLiteral(": no tokenizer in the metadata; give token ids instead");
        else
            model->m_tokenizer = Tokenizer::fromGgufVocabulary(vocabulary, file->displayPath());
    } catch (const ModelError& e) {
        model->m_tokenizerError = e.message();
    } catch (const TokenizerError& e) {
        model->m_tokenizerError = QString::fromStdString(e.what());
    }
    for (const QString& token : vocabulary.tokens)
        model->m_vocabulary.push_back(token);
    model->describe();
    return model;
}

// The prefix the checkpoint's tensor names carry (the family names the tensor to look for), then every
// tensor's presence and shape.
void TransformerModel::checkWeights(std::shared_ptr<const WeightStore> store)
{
    const ModelConfig& c = m_config;
    const QString anchor = c.architecture->anchorTensor();
    QStringList tried;
    for (const QString& prefix : c.architecture->weightPrefixes()) {
        tried << prefix + anchor;
        if (store->contains(prefix + anchor)) {
            m_weights = ModelWeights(std::move(store), prefix);
            validateShapes();
            m_unusedLayersWarning = unusedLayersNote(m_weights, m_config, m_folder);
            return;
        }
    }
    throw ModelError(store->primaryFile().isEmpty() ? QDir::toNativeSeparators(m_folder)
                                                    : store->primaryFile(),
                     QStringLiteral("no %1 model weights: tensor %2 is missing")
                         .arg(c.modelType, tried.join(QStringLiteral(" / "))));
}

// The mask token and what model lists show, once config, weights and tokenizer are known.
void TransformerModel::describe()
{
    if (m_tokenizer)
        for (const char* mask : {"[MASK]", "<mask>"})
            if (const std::optional<int> id = m_tokenizer->tokenToId(QLatin1String(mask));
                id && m_maskTokenId < 0)
                m_maskTokenId = *id;
    const ModelConfig& c = m_config;
    ModelInfo& info = m_info;
    info.name = m_folder;
    info.path = m_folder;
    describeModelShape(c, info);
    info.fileBytes = m_weights.store().totalBytes();
    const std::optional<ModelInfo> described = ModelCatalog::describe(m_folder);
    if (described) { // the headers' parameter count and sizes (memoryestimate.h)
        info.intermediate = described->intermediate;
        info.parameters = described->parameters;
        info.weightBytes = described->weightBytes;
        info.largestTensorElements = described->largestTensorElements;
        info.storedAsF32 = described->storedAsF32;
    }
    if (m_weights.store().ggufFile()) return;
    // Built-in models are named by their folder and describe themselves in attnscope.json.
    if (described) {
        info.description = described->description;
        info.paragraphs = described->paragraphs;
    }
    const QString resources = ModelCatalog::resourcesDir();
    if (!resources.isEmpty() &&
        QFileInfo(m_folder).absolutePath() == QDir::cleanPath(resources + QStringLiteral("/models"))) {
        info.name = QFileInfo(m_folder).fileName();
        info.builtin = true;
    }
}

void TransformerModel::validateShapes() const
{
    const WeightStore& store = m_weights.store();
    const QString firstFile = store.primaryFile();
    // Every layer has several tensors: a config asking for more layers than the files hold tensors is
    // refused before the checklist names them all (a hostile n_layer of 10^9 once took 6 GB in 10 s).
    if (m_config.layers > store.tensorCount())
        throw ModelError(store.ggufFile() ? firstFile
                                          : QDir::toNativeSeparators(
                                                QDir(m_folder).filePath(QStringLiteral("config.json"))),
                         QStringLiteral("%1 layers, but the weights hold only %2 tensors in all")
                             .arg(m_config.layers)
                             .arg(store.tensorCount()));
    TensorChecklist list(m_weights);
    m_config.architecture->declareTensors(list);
    // A GGUF file's tensors are named as the file names them, the Hugging Face name after it, and blamed on
    // its metadata: there is no config.json.
    const bool gguf = store.ggufFile() != nullptr;
    auto named = [&](const QString& name) {
        const QString own = store.ggufName(name);
        return own.isEmpty() ? name : QStringLiteral("%1 (%2 once converted)").arg(own, name);
    };
    const QString settings = gguf ? QStringLiteral("its metadata") : QStringLiteral("config.json");
    for (const TensorChecklist::Item& item : list.items()) {
        const TensorInfo* info = store.info(item.name);
        if (!info) {
            if (item.required)
                throw ModelError(
                    firstFile,
                    QStringLiteral("tensor %1 is missing (needed by this %2 model with %3 layers in "
                                   "%4)")
                        .arg(named(item.name), m_config.modelType)
                        .arg(m_config.layers)
                        .arg(settings));
            continue;
        }
        if (info->shape != item.shape)
            throw ModelError(store.fileOf(item.name),
                             QStringLiteral("tensor %1 has shape %2 but %3 implies %4")
                                 .arg(named(item.name), info->shapeText(), settings, shapeText(item.shape)));
        if (!store.convertsToFloat(item.name))
            throw ModelError(
                store.fileOf(item.name),
                QStringLiteral("tensor %1 has dtype %2; only F32, F16 and BF16 weights are supported")
                    .arg(item.name, store.storageType(item.name)));
        // NaN in a norm or a bias (1-D, cheap to scan) spoils every output: refused at open. Matrices are
        // checked through the activations they produce, and the LM head's on use (a broken head must not
        // stop the attention views).
        if (item.required && item.shape.size() == 1) checkTensorFinite(store, item.name);
    }
}

QString TransformerModel::tokenText(int id) const
{
    if (m_tokenizer) {
        const QString text = m_tokenizer->idToToken(id);
        if (!text.isEmpty()) return text;
    }
    if (id >= 0 && size_t(id) < m_vocabulary.size() && !m_vocabulary[size_t(id)].isNull())
        return m_vocabulary[size_t(id)];
    return QStringLiteral("#%1").arg(id);
}

void TransformerModel::checkInput(const std::vector<int>& ids, const std::vector<int>& typeIds) const
{
    const QString where = QDir::toNativeSeparators(m_folder);
    if (ids.empty()) throw ModelError(where, QStringLiteral("the input has no tokens"));
    if (int(ids.size()) > m_config.maxPositions)
        throw ModelError(where, QStringLiteral("%1 tokens are more than the %2 positions this model takes "
                                               "(max_position_embeddings in config.json); shorten the text")
                                    .arg(ids.size())
                                    .arg(m_config.maxPositions));
    for (size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= m_config.vocabSize)
            throw ModelError(where,
                             QStringLiteral("token id %1 at position %2 is outside the vocabulary of %3 ids")
                                 .arg(ids[i])
                                 .arg(i)
                                 .arg(m_config.vocabSize));
    if (m_config.typeVocabSize > 0 && !typeIds.empty()) {
        if (typeIds.size() != ids.size())
            throw ModelError(
                where, QStringLiteral("%1 token type ids for %2 tokens").arg(typeIds.size()).arg(ids.size()));
        for (int t : typeIds)
            if (t < 0 || t >= m_config.typeVocabSize)
                throw ModelError(where,
                                 QStringLiteral("token type id %1 is outside the %2 types of this model")
                                     .arg(t)
                                     .arg(m_config.typeVocabSize));
    }
}

std::vector<int> TransformerModel::checkRunOptions(const std::vector<int>& ids,
                                                   const RunOptions& options) const
{
    const QString where = QDir::toNativeSeparators(m_folder);
    const ModelConfig& c = m_config;
    const int n = int(ids.size());
    for (const HeadAblation& a : options.ablations)
        if (a.layer < 0 || a.layer >= c.layers || a.head < 0 || a.head >= c.heads)
            throw ModelError(
                where, QStringLiteral("cannot ablate layer %1 head %2: the model has %3 layers of %4 heads")
                           .arg(a.layer)
                           .arg(a.head)
                           .arg(c.layers)
                           .arg(c.heads));
    if (options.firstLayer < 0 || options.firstLayer >= c.layers)
        throw ModelError(
            where, QStringLiteral("cannot start at layer %1 of %2").arg(options.firstLayer).arg(c.layers));
    if (options.firstLayer > 0 &&
        (!options.startResidual || options.startResidual->size() != size_t(n) * size_t(c.hidden)))
        throw ModelError(where,
                         QStringLiteral("starting at layer %1 needs the residual stream of the %2 tokens "
                                        "(%2 × %3 values)")
                             .arg(options.firstLayer)
                             .arg(n)
                             .arg(c.hidden));
    int pastTokens = 0;
    if (options.past && !options.past->empty()) {
        if (!c.decoder)
            throw ModelError(where, QStringLiteral("only decoders continue from past keys and values"));
        if (int(options.past->size()) != c.layers)
            throw ModelError(where, QStringLiteral("the past keys and values have %1 layers, the model %2")
                                        .arg(options.past->size())
                                        .arg(c.layers));
        pastTokens = options.past->front().keys.tokens;
        for (const LayerKeyValues& layer : *options.past)
            if (layer.keys.tokens != pastTokens || layer.values.tokens != pastTokens ||
                layer.keys.heads != c.kvHeads || layer.values.heads != c.kvHeads ||
                layer.keys.dim != c.headDim || layer.values.dim != c.headDim ||
                int(layer.positions.size()) != pastTokens)
                throw ModelError(
                    where, QStringLiteral("the past keys and values do not fit this model (%1 key/value "
                                          "heads of dimension %2)")
                               .arg(c.kvHeads)
                               .arg(c.headDim));
        if (pastTokens + n > c.maxPositions)
            throw ModelError(where,
                             QStringLiteral("%1 past and %2 new tokens are more than the %3 positions this "
                                            "model takes")
                                 .arg(pastTokens)
                                 .arg(n)
                                 .arg(c.maxPositions));
    }
    std::vector<int> positions = options.positions;
    if (positions.empty()) positions = c.architecture->defaultPositions(ids, pastTokens);
    if (int(positions.size()) != n)
        throw ModelError(where, QStringLiteral("%1 position ids for %2 tokens").arg(positions.size()).arg(n));
    const int table = c.architecture->positionTableSize();
    for (int p : positions)
        if (p < 0 || (table > 0 && p >= table) || p > (1 << 24))
            throw ModelError(
                where,
                table > 0
                    ? QStringLiteral("position id %1 is outside the %2 learned positions").arg(p).arg(table)
                    : QStringLiteral("position id %1 is out of range").arg(p));
    return positions;
}

std::vector<float> TransformerModel::forward(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                             const RunOptions& options, AttentionCapture* capture) const
{
    checkInput(ids, typeIds);
    const std::vector<int> positions = checkRunOptions(ids, options);
    const ModelConfig& c = m_config;
    const Architecture& architecture = *c.architecture;
    const int n = int(ids.size());
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    if (capture) {
        capture->causal = c.decoder;
        capture->ids = ids;
        capture->heads = c.heads;
        capture->kvHeads = c.kvHeads;
        capture->headDim = c.headDim;
        capture->hidden = c.hidden;
        capture->firstLayer = options.firstLayer;
    }

    LayerStep step(c, m_weights, options, n, positions, capture, m_folder);
    // NaN/Inf are named where they appear, never passed on as pictures (model/nonfinitecheck.h): the
    // embeddings and the final norm here, each layer's Q, K, V and attention in LayerStep::attend.
    const NonFiniteCheck finite(m_weights.store(), m_folder);
    if (options.firstLayer == 0) {
        const std::vector<int> noTypes;
        const TokenInput input{ids, c.typeVocabSize > 0 ? typeIds : noTypes, positions};
        architecture.embed(input, m_weights, step.residual(), threads);
        // The suspects' list (every tensor name matched against a pattern) only when it is needed.
        if (firstNonFinite(step.residual().data(), step.residual().size()))
            finite.check(step.residual(), QStringLiteral("embeddings"), QStringLiteral("the embedded tokens"),
                         tensorsOutsideLayers());
    } else {
        step.residual() = *options.startResidual;
    }
    step.recordResidual();
    for (int l = options.firstLayer; l < c.layers; ++l) {
        throwIfCancelled(options.cancel);
        step.begin(l);
        const bool tailSkipped = step.restOfLayerUnused(); // the stream after it is not used (or complete)
        architecture.layer(step);
        if (!tailSkipped) {
            step.checkFinite(step.residual(), QStringLiteral("the hidden states after its feed-forward"));
            step.recordResidual();
        }
        if (options.progress) options.progress(l + 1 - options.firstLayer, c.layers - options.firstLayer);
    }
    throwIfCancelled(options.cancel);
    step.finish();
    // The last layer skipped its tail (LayerStep::restOfLayerUnused): no final norm, no output.
    if (c.layers > options.firstLayer && step.restOfLayerUnused()) return {};
    std::vector<float> x = std::move(step.residual());
    architecture.finalNorm(m_weights, x, threads);
    if (firstNonFinite(x.data(), x.size()))
        finite.check(x, QStringLiteral("final norm"), QStringLiteral("the hidden states"),
                     tensorsOutsideLayers());
    return x;
}

QStringList TransformerModel::tensorsOutsideLayers() const
{
    // Layer tensors carry their index between dots ("model.layers.3.", "transformer.h.3.", "blk.3.").
    static const QRegularExpression layerIndex(QStringLiteral("\\.\\d+\\."));
    QStringList names;
    for (const QString& name : m_weights.store().names())
        if (!(QLatin1Char('.') + name).contains(layerIndex)) names << name;
    return names;
}

AttentionCapture TransformerModel::run(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                       const RunOptions& options) const
{
    AttentionCapture capture;
    const std::vector<float> x = forward(ids, typeIds, options, &capture);
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    if (options.predictTopK > 0 || options.keepDistributions) {
        const std::vector<int> positions = predictionPositions(ids, {}, &capture.predictionGap);
        if (!positions.empty()) {
            capture.predictions = scoreHead(x, positions, options.predictTopK, threads,
                                            options.keepDistributions ? &capture.distributions : nullptr);
            if (options.predictTopK <= 0) capture.predictions.clear();
            if (options.keepDistributions) capture.scoredPositions = positions;
        }
    }
    if (options.keepLogits != LogitRows::None)
        capture.logits = logitRows(x, int(ids.size()), options.keepLogits, threads);
    return capture;
}

std::vector<float> TransformerModel::ablatedHiddenStates(const std::vector<int>& ids,
                                                         const std::vector<int>& typeIds,
                                                         const AblationBatch& batch, RunOptions options) const
{
    const QString where = QDir::toNativeSeparators(m_folder);
    const ModelConfig& c = m_config;
    PredictionGap gap = PredictionGap::None;
    const std::vector<int> positions = predictionPositions(ids, {}, &gap);
    if (positions.empty()) throw ModelError(where, predictionGapMessage(gap));
    if (!batch.outputRows.empty() && batch.outputRows != positions)
        throw ModelError(where,
                         QStringLiteral("an ablation batch's output rows must be the scored positions"));
    if (options.past && !options.past->empty())
        throw ModelError(where,
                         QStringLiteral("an ablation batch does not continue from past keys and values"));
    for (const std::vector<HeadAblation>& copy : batch.copies)
        for (const HeadAblation& a : copy)
            if (a.layer != options.firstLayer || a.head < 0 || a.head >= c.heads)
                throw ModelError(where, QStringLiteral("an ablation batch starting at layer %1 cannot ablate "
                                                       "layer %2 head %3")
                                            .arg(options.firstLayer)
                                            .arg(a.layer)
                                            .arg(a.head));
    if (batch.headOutputs && (batch.headOutputs->tokens != int(ids.size()) ||
                              batch.headOutputs->heads != c.heads || batch.headOutputs->dim != c.headDim))
        throw ModelError(where, QStringLiteral("the ablation batch's head outputs do not fit the input"));
    if (batch.copies.empty()) return {};
    options.ablations.clear();
    options.ablationBatch = &batch;
    options.backend = nullptr;
    std::vector<float> x = forward(ids, typeIds, options, nullptr);
    if (!batch.outputRows.empty()) return x; // the last layer kept the scored rows only

    // x holds every copy's n rows: keep the scored ones.
    const int n = int(ids.size()), h = c.hidden, copies = int(batch.copies.size());
    std::vector<float> rows(size_t(copies) * positions.size() * size_t(h));
    float* out = rows.data();
    for (int copy = 0; copy < copies; ++copy)
        for (int p : positions) {
            std::copy_n(x.data() + (size_t(copy) * size_t(n) + size_t(p)) * size_t(h), h, out);
            out += h;
        }
    return rows;
}

std::vector<TransformerModel::CopyPredictions>
TransformerModel::ablatedPredictions(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                     const AblationBatch& batch, RunOptions options, int topK) const
{
    const std::vector<float> x = ablatedHiddenStates(ids, typeIds, batch, options);
    if (batch.copies.empty()) return {};
    PredictionGap gap = PredictionGap::None;
    const std::vector<int> positions = predictionPositions(ids, {}, &gap);
    const int m = int(positions.size()), copies = int(batch.copies.size());
    std::vector<int> rows(size_t(copies) * size_t(m));
    std::iota(rows.begin(), rows.end(), 0);
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    std::vector<std::vector<double>> distributions, logDistributions;
    std::vector<Prediction> top = scoreHead(x, rows, topK, threads, &distributions, &logDistributions);
    std::vector<CopyPredictions> result(static_cast<size_t>(copies));
    for (int copy = 0; copy < copies; ++copy)
        for (int r = 0; r < m; ++r) {
            const size_t row = size_t(copy) * size_t(m) + size_t(r);
            top[row].position = positions[size_t(r)];
            result[size_t(copy)].distributions.push_back(std::move(distributions[row]));
            result[size_t(copy)].logDistributions.push_back(std::move(logDistributions[row]));
            if (topK > 0) result[size_t(copy)].top.push_back(std::move(top[row]));
        }
    return result;
}

std::vector<float> TransformerModel::outputLogits(const std::vector<float>& hidden, int threads) const
{
    const OutputHead head = m_config.architecture->outputHead(m_weights);
    if (head.projection.isEmpty())
        throw ModelError(QDir::toNativeSeparators(m_folder), predictionGapMessage(head.missing));
    std::vector<int> rows(hidden.size() / size_t(m_config.hidden));
    std::iota(rows.begin(), rows.end(), 0);
    return headLogits(hidden, rows, threads > 0 ? threads : defaultThreadCount());
}

PredictedToken TransformerModel::predictedToken(int id, float probability) const
{
    return {id, tokenText(id), m_tokenizer ? m_tokenizer->decode({id}, false) : QString(), probability};
}

std::vector<float> TransformerModel::logits(const std::vector<int>& ids, const RunOptions& options,
                                            LogitRows rows) const
{
    const std::vector<float> x = forward(ids, {}, options, nullptr);
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    return logitRows(x, int(ids.size()), rows == LogitRows::None ? LogitRows::Last : rows, threads);
}

std::vector<float> TransformerModel::logitRows(const std::vector<float>& x, int tokens, LogitRows rows,
                                               int threads) const
{
    const OutputHead head = m_config.architecture->outputHead(m_weights);
    if (head.projection.isEmpty())
        throw ModelError(QDir::toNativeSeparators(m_folder), predictionGapMessage(head.missing));
    std::vector<int> positions;
    if (rows == LogitRows::All) {
        positions.resize(size_t(tokens));
        std::iota(positions.begin(), positions.end(), 0);
    } else {
        positions.push_back(tokens - 1);
    }
    return headLogits(x, positions, threads);
}

std::vector<Prediction> TransformerModel::predict(const std::vector<int>& ids,
                                                  const std::vector<int>& typeIds, int topK,
                                                  const RunOptions& options, std::vector<int> positions) const
{
    checkInput(ids, typeIds);
    const QString where = QDir::toNativeSeparators(m_folder);
    PredictionGap gap = PredictionGap::None;
    positions = predictionPositions(ids, std::move(positions), &gap);
    if (positions.empty()) throw ModelError(where, predictionGapMessage(gap));
    for (int p : positions)
        if (p < 0 || p >= int(ids.size()))
            throw ModelError(where,
                             QStringLiteral("position %1 is outside the %2 tokens").arg(p).arg(ids.size()));
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    return scoreHead(forward(ids, typeIds, options, nullptr), positions, topK, threads);
}

QString predictionGapMessage(PredictionGap gap)
{
    switch (gap) {
    case PredictionGap::None:
        return {};
    case PredictionGap::NoMaskedLmHead:
        return QStringLiteral("this encoder checkpoint has no masked-LM head (cls.predictions.*, lm_head.*, "
                              "vocab_transform.*), so "
                              "it cannot predict");
    case PredictionGap::NoLmHead:
        return QStringLiteral(
            "no lm_head.weight and tie_word_embeddings is false: this checkpoint has no LM head");
    case PredictionGap::NoMaskToken:
        return QStringLiteral("the input has no [MASK] token to predict");
    }
    return {};
}

std::vector<int> TransformerModel::predictionPositions(const std::vector<int>& ids,
                                                       std::vector<int> positions, PredictionGap* gap) const
{
    const OutputHead head = m_config.architecture->outputHead(m_weights);
    if (head.projection.isEmpty()) {
        *gap = head.missing;
        return {};
    }
    if (!head.maskedLm) return {int(ids.size()) - 1};
    if (positions.empty())
        for (size_t i = 0; i < ids.size(); ++i)
            if (m_maskTokenId >= 0 && ids[i] == m_maskTokenId) positions.push_back(int(i));
    if (positions.empty()) *gap = PredictionGap::NoMaskToken;
    return positions;
}

std::vector<float> TransformerModel::headLogits(const std::vector<float>& x,
                                                const std::vector<int>& positions, int threads) const
{
    const int h = m_config.hidden;
    const OutputHead head = m_config.architecture->outputHead(m_weights);
    const WeightStore& store = m_weights.store();
    const int m = int(positions.size());
    std::vector<float> rows(size_t(m) * h);
    for (int r = 0; r < m; ++r)
        std::copy_n(x.data() + size_t(positions[size_t(r)]) * h, h, rows.data() + size_t(r) * h);
    if (!head.transformWeight.isEmpty()) { // masked-LM heads: dense, activation, LayerNorm
        const WeightTensor w = store.load(head.transformWeight);
        const WeightTensor b = store.load(head.transformBias);
        std::vector<float> t(rows.size());
        ops::linear(rows.data(), m, ops::LinearWeight{w.data(), b.data(), h, h, ops::WeightLayout::OutIn},
                    t.data(), head.transformActivation, threads);
        const WeightTensor g = store.load(head.normWeight);
        const WeightTensor beta = store.load(head.normBias);
        ops::layerNorm(t.data(), rows.data(), m, h, g.data(), beta.data(), head.normEps, threads);
    }

    // Logits [m, V], scored in row chunks of the output embedding so a BF16 vocabulary is never converted
    // whole.
    const int V = m_config.vocabSize;
    std::vector<float> logits(size_t(m) * V);
    const WeightTensor bias = head.bias.isEmpty() ? WeightTensor() : store.load(head.bias);
    const int chunk = 8192;
    for (int v0 = 0; v0 < V; v0 += chunk) {
        const int count = std::min(chunk, V - v0);
        const WeightTensor e = store.loadRows(head.projection, v0, count);
        ops::LinearWeight lw{e.data(), bias.isNull() ? nullptr : bias.data() + v0, h, count,
                             ops::WeightLayout::OutIn};
        ops::linear(rows.data(), m, h, lw, 0, count, logits.data() + v0, V, std::nullopt, threads);
    }
    if (head.finalSoftCap > 0.0f)
        for (float& logit : logits)
            logit = head.finalSoftCap * std::tanh(logit / head.finalSoftCap);
    NonFiniteCheck(store, m_folder)
        .check(logits, QStringLiteral("LM head"), QStringLiteral("the logits"),
               {head.projection, head.bias.isEmpty() ? head.projection : head.bias, head.transformWeight,
                head.transformBias, head.normWeight, head.normBias});
    return logits;
}

std::vector<Prediction> TransformerModel::scoreHead(const std::vector<float>& x,
                                                    const std::vector<int>& positions, int topK, int threads,
                                                    std::vector<std::vector<double>>* distributions,
                                                    std::vector<std::vector<double>>* logDistributions) const
{
    const int V = m_config.vocabSize;
    const int m = int(positions.size());
    const std::vector<float> logits = headLogits(x, positions, threads);
    std::vector<Prediction> predictions;
    for (int r = 0; r < m; ++r) {
        const float* row = logits.data() + size_t(r) * V;
        const double maxLogit = *std::max_element(row, row + V);
        std::vector<double> p(static_cast<size_t>(V));
        double sum = 0;
        for (int i = 0; i < V; ++i)
            sum += (p[size_t(i)] = std::exp(double(row[i]) - maxLogit));
        for (double& value : p)
            value /= sum;
        if (logDistributions) {
            const double logSum = std::log(sum);
            std::vector<double> logP(static_cast<size_t>(V));
            for (int i = 0; i < V; ++i)
                logP[size_t(i)] = (double(row[i]) - maxLogit) - logSum;
            logDistributions->push_back(std::move(logP));
        }
        if (distributions) distributions->push_back(p);
        Prediction prediction;
        prediction.position = positions[size_t(r)];
        for (int id : topIndices(p, topK))
            prediction.top.push_back(predictedToken(id, float(p[size_t(id)])));
        predictions.push_back(prediction);
    }
    return predictions;
}

} // namespace attnscope
