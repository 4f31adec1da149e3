#include "model/transformermodel.h"

#include "attention/attention.h"
#include "attention/layeredattentionmaps.h"
#include "attention/tiledattentionmaps.h"
#include "backend/attentionbackend.h"
#include "model/gguffile.h"
#include "model/ggufmodel.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "model/modelvocabulary.h"
#include "model/nonfinitecheck.h"
#include "model/tensorops.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"
#include "util/parallel.h"

#include <QDir>
#include <QFileInfo>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>

namespace attnscope {

namespace {

using ops::LinearWeight;
using ops::WeightLayout;

struct TensorSpec
{
    QString name; // full name as looked up in the store
    std::vector<qint64> shape;
    bool required = true;
};

QString shapeText(const std::vector<qint64>& shape)
{
    QStringList parts;
    for (qint64 d : shape)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

void addInPlace(std::vector<float>& x, const std::vector<float>& y)
{
    for (size_t i = 0; i < x.size(); ++i)
        x[i] += y[i];
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

// Base names (without the head prefix) of each family's tensors.
struct TransformerModel::Names
{
    static QString bertLayer(int l, const char* rest)
    {
        return QStringLiteral("encoder.layer.%1.").arg(l) + QLatin1String(rest);
    }
    static QString gpt2Layer(int l, const char* rest)
    {
        return QStringLiteral("h.%1.").arg(l) + QLatin1String(rest);
    }
    static QString llamaLayer(int l, const char* rest)
    {
        return QStringLiteral("layers.%1.").arg(l) + QLatin1String(rest);
    }
    static QString embedding(ModelFamily family)
    {
        switch (family) {
        case ModelFamily::Bert:
            return QStringLiteral("embeddings.word_embeddings.weight");
        case ModelFamily::Gpt2:
            return QStringLiteral("wte.weight");
        case ModelFamily::Llama:
            return QStringLiteral("embed_tokens.weight");
        }
        return QString();
    }
    static QStringList prefixes(ModelFamily family)
    {
        switch (family) {
        case ModelFamily::Bert:
            return {QStringLiteral("bert."), QString()};
        case ModelFamily::Gpt2:
            return {QStringLiteral("transformer."), QString()};
        case ModelFamily::Llama:
            return {QStringLiteral("model."), QString()};
        }
        return {QString()};
    }
};

TransformerModel::~TransformerModel() = default;

const Tokenizer* TransformerModel::tokenizer() const
{
    return m_tokenizer.get();
}

std::unique_ptr<TransformerModel> TransformerModel::open(const QString& folderPath)
{
    const QFileInfo folderInfo(folderPath);
    if (folderInfo.isFile() && isGgufPath(folderPath)) return openGguf(folderPath);
    if (!folderInfo.exists())
        throw ModelError(QDir::toNativeSeparators(folderPath), QStringLiteral("no such folder"));
    if (!folderInfo.isDir())
        throw ModelError(
            QDir::toNativeSeparators(folderPath),
            QStringLiteral("not a folder (a model is a folder with config.json and model.safetensors, "
                           "or a llama.cpp .gguf file)"));
    std::unique_ptr<TransformerModel> model(new TransformerModel);
    model->m_folder = QDir::cleanPath(folderInfo.absoluteFilePath());
    const QDir dir(model->m_folder);
    model->m_config = ModelConfig::fromFile(dir.filePath(QStringLiteral("config.json")));
    model->m_weights = std::make_shared<const WeightStore>(WeightStore::openFolder(model->m_folder));
    model->checkWeights();

    const ModelVocabulary vocabulary = ModelVocabulary::fromFolder(model->m_folder);
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
    model->m_weights = std::make_shared<const WeightStore>(WeightStore::openGguf(file, description));
    model->checkWeights();

    const GgufVocabulary vocabulary = readGgufVocabulary(*file);
    for (const QString& token : vocabulary.tokens)
        model->m_vocabulary.push_back(token);
    if (vocabulary.model.isEmpty() && vocabulary.huggingFaceJson.isEmpty()) {
        model->m_tokenizerError =
            file->displayPath() + QStringLiteral(": no tokenizer in the metadata; give token ids instead");
    } else {
        try {
            model->m_tokenizer = Tokenizer::fromGgufVocabulary(vocabulary, file->displayPath());
        } catch (const TokenizerError& e) {
            model->m_tokenizerError = QString::fromStdString(e.what());
        }
    }
    model->describe();
    return model;
}

// The prefix the checkpoint's tensor names carry, then every tensor's presence and shape.
void TransformerModel::checkWeights()
{
    const ModelConfig& c = m_config;
    const QString embedding = Names::embedding(c.family);
    QStringList tried;
    for (const QString& prefix : Names::prefixes(c.family)) {
        tried << prefix + embedding;
        if (m_weights->contains(prefix + embedding)) {
            m_prefix = prefix;
            validateShapes();
            return;
        }
    }
    throw ModelError(m_weights->primaryFile().isEmpty() ? QDir::toNativeSeparators(m_folder)
                                                        : m_weights->primaryFile(),
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
    info.architecture = c.modelType;
    info.kind = c.isDecoder() ? QStringLiteral("decoder") : QStringLiteral("encoder");
    info.layers = c.layers;
    info.heads = c.heads;
    info.kvHeads = c.kvHeads;
    info.hidden = c.hidden;
    info.vocabSize = c.vocabSize;
    info.maxPositions = c.maxPositions;
    info.fileBytes = m_weights->totalBytes();
    if (m_weights->ggufFile()) return;
    // Built-in models are named by their folder and describe themselves in attnscope.json.
    if (const std::optional<ModelInfo> described = ModelCatalog::describe(m_folder))
        info.description = described->description;
    const QString resources = ModelCatalog::resourcesDir();
    if (!resources.isEmpty() &&
        QFileInfo(m_folder).absolutePath() == QDir::cleanPath(resources + QStringLiteral("/models"))) {
        info.name = QFileInfo(m_folder).fileName();
        info.builtin = true;
    }
}

QString TransformerModel::tensorName(const QString& baseName) const
{
    const QString name = m_prefix + baseName;
    if (m_weights->contains(name)) return name;
    // Checkpoints converted from TensorFlow name LayerNorm parameters gamma/beta.
    if (name.endsWith(QLatin1String("LayerNorm.weight"))) {
        QString gamma = name;
        gamma.replace(gamma.size() - 6, 6, QStringLiteral("gamma"));
        if (m_weights->contains(gamma)) return gamma;
    } else if (name.endsWith(QLatin1String("LayerNorm.bias"))) {
        QString beta = name;
        beta.replace(beta.size() - 4, 4, QStringLiteral("beta"));
        if (m_weights->contains(beta)) return beta;
    }
    return name;
}

WeightTensor TransformerModel::tensor(const QString& baseName) const
{
    return m_weights->load(tensorName(baseName));
}

void TransformerModel::validateShapes() const
{
    const ModelConfig& c = m_config;
    const qint64 h = c.hidden, I = c.intermediate, V = c.vocabSize, P = c.maxPositions;
    const qint64 qDim = qint64(c.heads) * c.headDim, kvDim = qint64(c.kvHeads) * c.headDim;
    // Every layer has several tensors: a config asking for more layers than the files hold tensors is
    // refused before the loop below walks them (a hostile n_layer of 10^9 would otherwise run for minutes).
    if (c.layers > m_weights->tensorCount())
        throw ModelError(m_weights->ggufFile()
                             ? m_weights->primaryFile()
                             : QDir::toNativeSeparators(QDir(m_folder).filePath(QStringLiteral("config.json"))),
                         QStringLiteral("%1 layers, but the weights hold only %2 tensors in all")
                             .arg(c.layers)
                             .arg(m_weights->tensorCount()));
    auto checkTensorSpec = [&](const TensorSpec& spec) {
        const TensorInfo* info = m_weights->info(spec.name);
        if (!info) {
            if (spec.required)
                throw ModelError(
                    m_weights->primaryFile(),
                    QStringLiteral(
                        "tensor %1 is missing (needed by this %2 model with %3 layers in config.json)")
                        .arg(spec.name, c.modelType)
                        .arg(c.layers));
            return;
        }
        if (info->shape != spec.shape)
            throw ModelError(m_weights->fileOf(spec.name),
                             QStringLiteral("tensor %1 has shape %2 but config.json implies %3")
                                 .arg(spec.name, info->shapeText(), shapeText(spec.shape)));
        if (!m_weights->convertsToFloat(spec.name))
            throw ModelError(
                m_weights->fileOf(spec.name),
                QStringLiteral("tensor %1 has dtype %2; only F32, F16 and BF16 weights are supported")
                    .arg(spec.name, m_weights->storageType(spec.name)));
        // NaN in a norm or a bias (1-D, cheap to scan) spoils every output: refused at open. Matrices are
        // checked through the activations they produce, and the LM head's on use (a broken head must not
        // stop the attention views).
        if (spec.required && spec.shape.size() == 1) checkTensorFinite(*m_weights, spec.name);
    };
    // Each tensor is checked as it is named, so the first one missing stops the walk.
    auto add = [&](const QString& base, std::vector<qint64> shape, bool required = true) {
        checkTensorSpec({tensorName(base), std::move(shape), required});
    };
    auto addHead = [&](const QString& full, std::vector<qint64> shape) {
        checkTensorSpec({full, std::move(shape), false});
    };
    switch (c.family) {
    case ModelFamily::Bert:
        add(QStringLiteral("embeddings.word_embeddings.weight"), {V, h});
        add(QStringLiteral("embeddings.position_embeddings.weight"), {P, h});
        add(QStringLiteral("embeddings.token_type_embeddings.weight"), {c.typeVocabSize, h});
        add(QStringLiteral("embeddings.LayerNorm.weight"), {h});
        add(QStringLiteral("embeddings.LayerNorm.bias"), {h});
        for (int l = 0; l < c.layers; ++l) {
            for (const char* p : {"attention.self.query.", "attention.self.key.", "attention.self.value.",
                                  "attention.output.dense."}) {
                add(Names::bertLayer(l, p) + QLatin1String("weight"), {h, h});
                add(Names::bertLayer(l, p) + QLatin1String("bias"), {h});
            }
            add(Names::bertLayer(l, "attention.output.LayerNorm.weight"), {h});
            add(Names::bertLayer(l, "attention.output.LayerNorm.bias"), {h});
            add(Names::bertLayer(l, "intermediate.dense.weight"), {I, h});
            add(Names::bertLayer(l, "intermediate.dense.bias"), {I});
            add(Names::bertLayer(l, "output.dense.weight"), {h, I});
            add(Names::bertLayer(l, "output.dense.bias"), {h});
            add(Names::bertLayer(l, "output.LayerNorm.weight"), {h});
            add(Names::bertLayer(l, "output.LayerNorm.bias"), {h});
        }
        addHead(QStringLiteral("cls.predictions.transform.dense.weight"), {h, h});
        addHead(QStringLiteral("cls.predictions.transform.dense.bias"), {h});
        addHead(QStringLiteral("cls.predictions.transform.LayerNorm.weight"), {h});
        addHead(QStringLiteral("cls.predictions.transform.LayerNorm.bias"), {h});
        addHead(QStringLiteral("cls.predictions.decoder.weight"), {V, h});
        addHead(QStringLiteral("cls.predictions.bias"), {V});
        addHead(QStringLiteral("cls.predictions.decoder.bias"), {V}); // scoreHead's fallback for the bias
        break;
    case ModelFamily::Gpt2:
        add(QStringLiteral("wte.weight"), {V, h});
        add(QStringLiteral("wpe.weight"), {P, h});
        for (int l = 0; l < c.layers; ++l) {
            for (const char* norm : {"ln_1.", "ln_2."}) {
                add(Names::gpt2Layer(l, norm) + QLatin1String("weight"), {h});
                add(Names::gpt2Layer(l, norm) + QLatin1String("bias"), {h});
            }
            add(Names::gpt2Layer(l, "attn.c_attn.weight"), {h, 3 * h});
            add(Names::gpt2Layer(l, "attn.c_attn.bias"), {3 * h});
            add(Names::gpt2Layer(l, "attn.c_proj.weight"), {h, h});
            add(Names::gpt2Layer(l, "attn.c_proj.bias"), {h});
            add(Names::gpt2Layer(l, "mlp.c_fc.weight"), {h, I});
            add(Names::gpt2Layer(l, "mlp.c_fc.bias"), {I});
            add(Names::gpt2Layer(l, "mlp.c_proj.weight"), {I, h});
            add(Names::gpt2Layer(l, "mlp.c_proj.bias"), {h});
        }
        add(QStringLiteral("ln_f.weight"), {h});
        add(QStringLiteral("ln_f.bias"), {h});
        addHead(QStringLiteral("lm_head.weight"), {V, h});
        break;
    case ModelFamily::Llama:
        add(QStringLiteral("embed_tokens.weight"), {V, h});
        for (int l = 0; l < c.layers; ++l) {
            add(Names::llamaLayer(l, "input_layernorm.weight"), {h});
            add(Names::llamaLayer(l, "post_attention_layernorm.weight"), {h});
            add(Names::llamaLayer(l, "self_attn.q_proj.weight"), {qDim, h});
            add(Names::llamaLayer(l, "self_attn.k_proj.weight"), {kvDim, h});
            add(Names::llamaLayer(l, "self_attn.v_proj.weight"), {kvDim, h});
            add(Names::llamaLayer(l, "self_attn.o_proj.weight"), {h, qDim});
            if (c.qkvBias) {
                add(Names::llamaLayer(l, "self_attn.q_proj.bias"), {qDim});
                add(Names::llamaLayer(l, "self_attn.k_proj.bias"), {kvDim});
                add(Names::llamaLayer(l, "self_attn.v_proj.bias"), {kvDim});
            }
            if (c.outputBias) add(Names::llamaLayer(l, "self_attn.o_proj.bias"), {h});
            add(Names::llamaLayer(l, "mlp.gate_proj.weight"), {I, h});
            add(Names::llamaLayer(l, "mlp.up_proj.weight"), {I, h});
            add(Names::llamaLayer(l, "mlp.down_proj.weight"), {h, I});
            if (c.mlpBias) {
                add(Names::llamaLayer(l, "mlp.gate_proj.bias"), {I});
                add(Names::llamaLayer(l, "mlp.up_proj.bias"), {I});
                add(Names::llamaLayer(l, "mlp.down_proj.bias"), {h});
            }
        }
        add(QStringLiteral("norm.weight"), {h});
        addHead(QStringLiteral("lm_head.weight"), {V, h});
        break;
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
    if (m_config.slidingWindow > 0 && int(ids.size()) > m_config.slidingWindow)
        throw ModelError(
            where, QStringLiteral(
                       "%1 tokens are more than the sliding window of %2; longer inputs are not supported")
                       .arg(ids.size())
                       .arg(m_config.slidingWindow));
    for (size_t i = 0; i < ids.size(); ++i)
        if (ids[i] < 0 || ids[i] >= m_config.vocabSize)
            throw ModelError(where,
                             QStringLiteral("token id %1 at position %2 is outside the vocabulary of %3 ids")
                                 .arg(ids[i])
                                 .arg(i)
                                 .arg(m_config.vocabSize));
    if (m_config.family == ModelFamily::Bert && !typeIds.empty()) {
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

std::vector<float> TransformerModel::forward(const std::vector<int>& ids, const std::vector<int>& typeIdsIn,
                                             const RunOptions& options, AttentionCapture* capture) const
{
    checkInput(ids, typeIdsIn);
    const ModelConfig& c = m_config;
    const int n = int(ids.size());
    const int h = c.hidden, H = c.heads, Hkv = c.kvHeads, d = c.headDim, I = c.intermediate;
    const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
    const bool dense = n <= options.denseLimit;
    auto lw = [](const WeightTensor& w, const WeightTensor* bias, WeightLayout layout) {
        LinearWeight l;
        l.weight = w.data();
        l.bias = bias ? bias->data() : nullptr;
        l.layout = layout;
        l.in = int(layout == WeightLayout::OutIn ? w.cols() : w.rows());
        l.out = int(layout == WeightLayout::OutIn ? w.rows() : w.cols());
        return l;
    };

    // x is the residual stream [n, h].
    std::vector<float> x(size_t(n) * h, 0.0f);
    auto addRows = [&](const QString& base, const std::vector<int>& rowIds) {
        const QString name = tensorName(base);
        for (int t = 0; t < n; ++t) {
            const WeightTensor row = m_weights->loadRows(name, rowIds[size_t(t)], 1);
            for (int i = 0; i < h; ++i)
                x[size_t(t) * h + i] += row.data()[i];
        }
    };
    std::vector<int> positions(static_cast<size_t>(n));
    std::iota(positions.begin(), positions.end(), 0);
    addRows(Names::embedding(c.family), ids);
    if (c.family == ModelFamily::Bert) {
        addRows(QStringLiteral("embeddings.position_embeddings.weight"), positions);
        addRows(QStringLiteral("embeddings.token_type_embeddings.weight"),
                typeIdsIn.empty() ? std::vector<int>(size_t(n), 0) : typeIdsIn);
        const WeightTensor g = tensor(QStringLiteral("embeddings.LayerNorm.weight"));
        const WeightTensor b = tensor(QStringLiteral("embeddings.LayerNorm.bias"));
        ops::layerNorm(x.data(), x.data(), n, h, g.data(), b.data(), c.normEps, threads);
    } else if (c.family == ModelFamily::Gpt2) {
        addRows(QStringLiteral("wpe.weight"), positions);
    }
    // NaN/Inf are named where they appear, never passed on as pictures (model/nonfinitecheck.h).
    const NonFiniteCheck finite(*m_weights, m_folder);
    const auto layerTensors = [&](int l) {
        return QStringList{m_prefix + (c.family == ModelFamily::Bert   ? Names::bertLayer(l, "")
                                       : c.family == ModelFamily::Gpt2 ? Names::gpt2Layer(l, "")
                                                                       : Names::llamaLayer(l, ""))};
    };
    finite.check(x, QStringLiteral("embeddings"), QStringLiteral("the embedded tokens"),
                 {tensorName(Names::embedding(c.family)), m_prefix + QStringLiteral("embeddings."),
                  m_prefix + QStringLiteral("wpe.")});

    std::shared_ptr<LayeredAttentionMaps> denseMaps;
    std::vector<TiledAttentionMaps::Layer> tiledLayers;
    if (capture) {
        if (dense) denseMaps = std::make_shared<LayeredAttentionMaps>(H, n, n);
        capture->causal = c.isDecoder();
        capture->ids = ids;
        capture->heads = H;
        capture->kvHeads = Hkv;
        capture->headDim = d;
        capture->hidden = h;
    }

    std::vector<float> normed(size_t(n) * h), projected(size_t(n) * h), inner(size_t(n) * I), gate;
    for (int l = 0; l < c.layers; ++l) {
        throwIfCancelled(options.cancel);
        HeadTensor q(n, H, d), k(n, Hkv, d), v(n, Hkv, d);
        AttentionOptions attention;
        attention.causal = c.isDecoder();
        attention.threads = threads;
        OutputProjection outProj;
        outProj.store = m_weights;
        WeightTensor outBias;

        // Q, K, V from the (normed) residual stream.
        const float* input = x.data();
        if (c.family == ModelFamily::Bert) {
            auto project = [&](const char* which, HeadTensor& target) {
                const WeightTensor w = tensor(Names::bertLayer(l, which) + QLatin1String("weight"));
                const WeightTensor b = tensor(Names::bertLayer(l, which) + QLatin1String("bias"));
                ops::linear(input, n, lw(w, &b, WeightLayout::OutIn), target.values.data(), std::nullopt,
                            threads);
            };
            project("attention.self.query.", q);
            project("attention.self.key.", k);
            project("attention.self.value.", v);
            outProj.tensorName = tensorName(Names::bertLayer(l, "attention.output.dense.weight"));
            outBias = tensor(Names::bertLayer(l, "attention.output.dense.bias"));
        } else if (c.family == ModelFamily::Gpt2) {
            const WeightTensor g = tensor(Names::gpt2Layer(l, "ln_1.weight"));
            const WeightTensor b = tensor(Names::gpt2Layer(l, "ln_1.bias"));
            ops::layerNorm(x.data(), normed.data(), n, h, g.data(), b.data(), c.normEps, threads);
            input = normed.data();
            const WeightTensor w = tensor(Names::gpt2Layer(l, "attn.c_attn.weight"));
            const WeightTensor bias = tensor(Names::gpt2Layer(l, "attn.c_attn.bias"));
            const LinearWeight fused = lw(w, &bias, WeightLayout::InOut); // [h, 3h]: q | k | v columns
            ops::linear(input, n, h, fused, 0, h, q.values.data(), h, std::nullopt, threads);
            ops::linear(input, n, h, fused, h, 2 * h, k.values.data(), h, std::nullopt, threads);
            ops::linear(input, n, h, fused, 2 * h, 3 * h, v.values.data(), h, std::nullopt, threads);
            outProj.tensorName = tensorName(Names::gpt2Layer(l, "attn.c_proj.weight"));
            outProj.inputMajor = true;
            outBias = tensor(Names::gpt2Layer(l, "attn.c_proj.bias"));
            float scale = c.scaleAttnWeights ? 1.0f / std::sqrt(float(d)) : 1.0f;
            if (c.scaleByInverseLayer) scale /= float(l + 1);
            attention.scale = scale;
        } else {
            const WeightTensor g = tensor(Names::llamaLayer(l, "input_layernorm.weight"));
            ops::rmsNorm(x.data(), normed.data(), n, h, g.data(), c.normEps, threads);
            input = normed.data();
            auto project = [&](const char* which, HeadTensor& target) {
                const QString base = Names::llamaLayer(l, which);
                const WeightTensor w = tensor(base + QLatin1String("weight"));
                WeightTensor b;
                if (c.qkvBias) b = tensor(base + QLatin1String("bias"));
                ops::linear(input, n, lw(w, c.qkvBias ? &b : nullptr, WeightLayout::OutIn),
                            target.values.data(), std::nullopt, threads);
            };
            project("self_attn.q_proj.", q);
            project("self_attn.k_proj.", k);
            project("self_attn.v_proj.", v);
            outProj.tensorName = tensorName(Names::llamaLayer(l, "self_attn.o_proj.weight"));
            if (c.outputBias) outBias = tensor(Names::llamaLayer(l, "self_attn.o_proj.bias"));
            // RoPE applied here rather than inside the attention, so the tiled maps keep rotated Q and K.
            RopeConfig rope;
            rope.enabled = true;
            rope.theta = c.ropeTheta;
            applyRope(q, rope);
            applyRope(k, rope);
        }

        const QString where = QStringLiteral("layer %1").arg(l);
        finite.check(q.values, where, QStringLiteral("the queries"), layerTensors(l));
        finite.check(k.values, where, QStringLiteral("the keys"), layerTensors(l));
        finite.check(v.values, where, QStringLiteral("the values"), layerTensors(l));

        // Attention: P for display, O for the next layer.
        if (capture && n <= options.queryKeyLimit) {
            RotatedQueryKey rotated =
                attention.rope.enabled ? rotateForAttention(q, k, attention) : RotatedQueryKey{q, k};
            capture->queries.push_back(std::move(rotated.queries));
            capture->keys.push_back(std::move(rotated.keys));
            capture->scales.push_back(attention.scale ? double(*attention.scale)
                                                      : 1.0 / std::sqrt(double(d)));
        }
        HeadTensor context;
        if (dense && options.backend) {
            // The backend's tiled forward, and P for display recomputed on it as exp(S − L), head by head.
            TiledAttentionResult t = options.backend->tiledForward(q, k, v, attention);
            finite.check(t.logSumExp, where, QStringLiteral("the attention scores"), layerTensors(l));
            context = std::move(t.output);
            if (capture) {
                const RotatedQueryKey rotated =
                    attention.rope.enabled ? rotateForAttention(q, k, attention) : RotatedQueryKey{q, k};
                FloatBuffer layerProbabilities(size_t(H) * size_t(n) *
                                               size_t(n)); // every head copied in below
                for (int head = 0; head < H; ++head) {
                    const std::vector<float> p = options.backend->probabilityTile(
                        rotated.queries, rotated.keys, t.logSumExp, attention, head, 0, n, 0, n);
                    std::memcpy(layerProbabilities.data() + size_t(head) * size_t(n) * size_t(n), p.data(),
                                p.size() * sizeof(float));
                }
                denseMaps->appendLayer(std::move(layerProbabilities));
            }
        } else if (dense) {
            FullAttentionResult r = attentionFull(q, k, v, attention);
            context = std::move(r.output);
            if (capture) denseMaps->appendLayer(std::move(r.probabilities));
        } else {
            // Long input: online softmax, never n×n; the capture keeps what recomputes any tile.
            TiledAttentionResult t = options.backend ? options.backend->tiledForward(q, k, v, attention)
                                                     : attentionTiled(q, k, v, attention);
            finite.check(t.logSumExp, where, QStringLiteral("the attention scores"), layerTensors(l));
            context = std::move(t.output);
            if (capture)
                tiledLayers.push_back({std::move(q), std::move(k), std::move(t.logSumExp), attention});
        }

        finite.check(context.values, where, QStringLiteral("the attention scores"), layerTensors(l));

        // Output projection into the residual stream.
        const WeightTensor outWeight = outProj.weight();
        const LinearWeight o = lw(outWeight, outBias.isNull() ? nullptr : &outBias,
                                  outProj.inputMajor ? WeightLayout::InOut : WeightLayout::OutIn);
        ops::linear(context.values.data(), n, o, projected.data(), std::nullopt, threads);
        addInPlace(x, projected);
        if (capture) {
            capture->values.push_back(std::move(v));
            capture->outputProjections.push_back(std::move(outProj));
        }

        // Feed-forward.
        if (c.family == ModelFamily::Bert) {
            const WeightTensor g1 = tensor(Names::bertLayer(l, "attention.output.LayerNorm.weight"));
            const WeightTensor b1 = tensor(Names::bertLayer(l, "attention.output.LayerNorm.bias"));
            ops::layerNorm(x.data(), x.data(), n, h, g1.data(), b1.data(), c.normEps, threads);
            const WeightTensor w1 = tensor(Names::bertLayer(l, "intermediate.dense.weight"));
            const WeightTensor bias1 = tensor(Names::bertLayer(l, "intermediate.dense.bias"));
            ops::linear(x.data(), n, lw(w1, &bias1, WeightLayout::OutIn), inner.data(), c.activation,
                        threads);
            const WeightTensor w2 = tensor(Names::bertLayer(l, "output.dense.weight"));
            const WeightTensor bias2 = tensor(Names::bertLayer(l, "output.dense.bias"));
            ops::linear(inner.data(), n, lw(w2, &bias2, WeightLayout::OutIn), projected.data(), std::nullopt,
                        threads);
            addInPlace(x, projected);
            const WeightTensor g2 = tensor(Names::bertLayer(l, "output.LayerNorm.weight"));
            const WeightTensor b2 = tensor(Names::bertLayer(l, "output.LayerNorm.bias"));
            ops::layerNorm(x.data(), x.data(), n, h, g2.data(), b2.data(), c.normEps, threads);
        } else if (c.family == ModelFamily::Gpt2) {
            const WeightTensor g = tensor(Names::gpt2Layer(l, "ln_2.weight"));
            const WeightTensor b = tensor(Names::gpt2Layer(l, "ln_2.bias"));
            ops::layerNorm(x.data(), normed.data(), n, h, g.data(), b.data(), c.normEps, threads);
            const WeightTensor w1 = tensor(Names::gpt2Layer(l, "mlp.c_fc.weight"));
            const WeightTensor bias1 = tensor(Names::gpt2Layer(l, "mlp.c_fc.bias"));
            ops::linear(normed.data(), n, lw(w1, &bias1, WeightLayout::InOut), inner.data(), c.activation,
                        threads);
            const WeightTensor w2 = tensor(Names::gpt2Layer(l, "mlp.c_proj.weight"));
            const WeightTensor bias2 = tensor(Names::gpt2Layer(l, "mlp.c_proj.bias"));
            ops::linear(inner.data(), n, lw(w2, &bias2, WeightLayout::InOut), projected.data(), std::nullopt,
                        threads);
            addInPlace(x, projected);
        } else {
            const WeightTensor g = tensor(Names::llamaLayer(l, "post_attention_layernorm.weight"));
            ops::rmsNorm(x.data(), normed.data(), n, h, g.data(), c.normEps, threads);
            auto biasOf = [&](const char* which) {
                return c.mlpBias ? tensor(Names::llamaLayer(l, which)) : WeightTensor();
            };
            const WeightTensor wg = tensor(Names::llamaLayer(l, "mlp.gate_proj.weight"));
            const WeightTensor bg = biasOf("mlp.gate_proj.bias");
            const WeightTensor wu = tensor(Names::llamaLayer(l, "mlp.up_proj.weight"));
            const WeightTensor bu = biasOf("mlp.up_proj.bias");
            const WeightTensor wd = tensor(Names::llamaLayer(l, "mlp.down_proj.weight"));
            const WeightTensor bd = biasOf("mlp.down_proj.bias");
            gate.resize(inner.size());
            ops::linear(normed.data(), n, lw(wg, bg.isNull() ? nullptr : &bg, WeightLayout::OutIn),
                        gate.data(), c.activation, threads);
            ops::linear(normed.data(), n, lw(wu, bu.isNull() ? nullptr : &bu, WeightLayout::OutIn),
                        inner.data(), std::nullopt, threads);
            for (size_t i = 0; i < inner.size(); ++i)
                inner[i] *= gate[i];
            ops::linear(inner.data(), n, lw(wd, bd.isNull() ? nullptr : &bd, WeightLayout::OutIn),
                        projected.data(), std::nullopt, threads);
            addInPlace(x, projected);
        }
        finite.check(x, where, QStringLiteral("the hidden states after its feed-forward"), layerTensors(l));
    }
    throwIfCancelled(options.cancel);

    if (c.family == ModelFamily::Gpt2) {
        const WeightTensor g = tensor(QStringLiteral("ln_f.weight"));
        const WeightTensor b = tensor(QStringLiteral("ln_f.bias"));
        ops::layerNorm(x.data(), x.data(), n, h, g.data(), b.data(), c.normEps, threads);
    } else if (c.family == ModelFamily::Llama) {
        const WeightTensor g = tensor(QStringLiteral("norm.weight"));
        ops::rmsNorm(x.data(), x.data(), n, h, g.data(), c.normEps, threads);
    }
    finite.check(x, QStringLiteral("final norm"), QStringLiteral("the hidden states"),
                 {tensorName(QStringLiteral("ln_f.")), tensorName(QStringLiteral("norm."))});

    if (capture) {
        if (dense)
            capture->maps = std::move(denseMaps);
        else
            capture->maps = std::make_shared<TiledAttentionMaps>(std::move(tiledLayers));
    }
    return x;
}

AttentionCapture TransformerModel::run(const std::vector<int>& ids, const std::vector<int>& typeIds,
                                       const RunOptions& options) const
{
    AttentionCapture capture;
    const std::vector<float> x = forward(ids, typeIds, options, &capture);
    if (options.predictTopK > 0) {
        const std::vector<int> positions = predictionPositions(ids, {}, &capture.predictionGap);
        if (!positions.empty()) {
            const int threads = options.threads > 0 ? options.threads : defaultThreadCount();
            capture.predictions = scoreHead(x, positions, options.predictTopK, threads);
        }
    }
    return capture;
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
        return QStringLiteral(
            "this BERT checkpoint has no masked-LM head (cls.predictions.*), so it cannot predict");
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
    const ModelConfig& c = m_config;
    if (c.family == ModelFamily::Bert) {
        if (!m_weights->contains(QStringLiteral("cls.predictions.transform.dense.weight"))) {
            *gap = PredictionGap::NoMaskedLmHead;
            return {};
        }
        if (positions.empty())
            for (size_t i = 0; i < ids.size(); ++i)
                if (m_maskTokenId >= 0 && ids[i] == m_maskTokenId) positions.push_back(int(i));
        if (positions.empty()) *gap = PredictionGap::NoMaskToken;
        return positions;
    }
    if (!c.tieWordEmbeddings && !m_weights->contains(QStringLiteral("lm_head.weight"))) {
        *gap = PredictionGap::NoLmHead;
        return {};
    }
    return {int(ids.size()) - 1};
}

std::vector<Prediction> TransformerModel::scoreHead(const std::vector<float>& x,
                                                    const std::vector<int>& positions, int topK,
                                                    int threads) const
{
    const ModelConfig& c = m_config;
    const int h = c.hidden;
    const bool bert = c.family == ModelFamily::Bert;
    // The output embedding [V, h] and, for BERT, its bias.
    QString outputName;
    QString biasName;
    if (bert) {
        outputName =
            !c.tieWordEmbeddings && m_weights->contains(QStringLiteral("cls.predictions.decoder.weight"))
                ? QStringLiteral("cls.predictions.decoder.weight")
                : tensorName(Names::embedding(c.family));
        biasName = m_weights->contains(QStringLiteral("cls.predictions.bias"))
                       ? QStringLiteral("cls.predictions.bias")
                       : QStringLiteral("cls.predictions.decoder.bias");
    } else {
        outputName =
            c.tieWordEmbeddings ? tensorName(Names::embedding(c.family)) : QStringLiteral("lm_head.weight");
    }

    const int m = int(positions.size());
    std::vector<float> rows(size_t(m) * h);
    for (int r = 0; r < m; ++r)
        std::copy_n(x.data() + size_t(positions[size_t(r)]) * h, h, rows.data() + size_t(r) * h);
    if (bert) { // cls.predictions.transform: dense, activation, LayerNorm
        const WeightTensor w = m_weights->load(QStringLiteral("cls.predictions.transform.dense.weight"));
        const WeightTensor b = m_weights->load(QStringLiteral("cls.predictions.transform.dense.bias"));
        std::vector<float> t(rows.size());
        LinearWeight lw{w.data(), b.data(), h, h, WeightLayout::OutIn};
        ops::linear(rows.data(), m, lw, t.data(), c.activation, threads);
        const WeightTensor g = m_weights->load(QStringLiteral("cls.predictions.transform.LayerNorm.weight"));
        const WeightTensor beta = m_weights->load(QStringLiteral("cls.predictions.transform.LayerNorm.bias"));
        ops::layerNorm(t.data(), rows.data(), m, h, g.data(), beta.data(), c.normEps, threads);
    }

    // Logits [m, V], scored in row chunks of the output embedding so a BF16 vocabulary is never converted
    // whole.
    const int V = c.vocabSize;
    std::vector<float> logits(size_t(m) * V);
    const WeightTensor bias =
        bert && m_weights->contains(biasName) ? m_weights->load(biasName) : WeightTensor();
    const int chunk = 8192;
    for (int v0 = 0; v0 < V; v0 += chunk) {
        const int count = std::min(chunk, V - v0);
        const WeightTensor e = m_weights->loadRows(outputName, v0, count);
        LinearWeight lw{e.data(), bias.isNull() ? nullptr : bias.data() + v0, h, count, WeightLayout::OutIn};
        ops::linear(rows.data(), m, h, lw, 0, count, logits.data() + v0, V, std::nullopt, threads);
    }

    NonFiniteCheck(*m_weights, m_folder)
        .check(logits, QStringLiteral("LM head"), QStringLiteral("the logits"),
               {outputName, biasName.isEmpty() ? outputName : biasName, QStringLiteral("cls.predictions.")});

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
        Prediction prediction;
        prediction.position = positions[size_t(r)];
        for (int id : topIndices(p, topK))
            prediction.top.push_back({id, tokenText(id),
                                      m_tokenizer ? m_tokenizer->decode({id}, false) : QString(),
                                      float(p[size_t(id)])});
        predictions.push_back(prediction);
    }
    return predictions;
}

} // namespace attnscope
