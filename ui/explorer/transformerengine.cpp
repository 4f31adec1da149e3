#include "explorer/transformerengine.h"

#include "explorer/backenddescription.h"
#include "explorer/explorerbackend.h"
#include "explorer/tokenlabels.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QCoreApplication>
#include <QDir>
#include <algorithm>

namespace attnscope {

std::shared_ptr<TransformerEngine> TransformerEngine::open(const QString& folder, int threads,
                                                           std::shared_ptr<const ExplorerBackend> backend)
{
    std::shared_ptr<TransformerEngine> engine(new TransformerEngine);
    engine->m_threads = threads;
    engine->m_backend = std::move(backend);
    try {
        engine->m_model = TransformerModel::open(folder);
    } catch (const ModelError& e) {
        throw EngineError(e.what());
    }
    engine->m_tokenizer = engine->m_model->tokenizer();
    if (!engine->m_tokenizer && engine->m_model->isGguf())
        throw EngineError(engine->m_model->tokenizerError().toStdString()); // it carries none we can read
    if (!engine->m_tokenizer) {
        try {
            engine->m_ownTokenizer = Tokenizer::fromFolder(folder);
            engine->m_tokenizer = engine->m_ownTokenizer.get();
        } catch (const TokenizerError& e) {
            throw EngineError(
                QDir::toNativeSeparators(folder).toStdString() +
                ": the explorer needs a tokenizer (tokenizer.json, vocab.txt or vocab.json + merges.txt): " +
                e.what());
        }
    }
    return engine;
}

TransformerEngine::~TransformerEngine() = default;

QString TransformerEngine::displayName() const
{
    return m_model->info().name;
}

QString TransformerEngine::architecture() const
{
    const ModelInfo& info = m_model->info();
    const QString kind =
        info.kind == QLatin1String("decoder")   ? QCoreApplication::translate("attnscope", "decoder")
        : info.kind == QLatin1String("encoder") ? QCoreApplication::translate("attnscope", "encoder")
                                                : info.kind;
    return QCoreApplication::translate("attnscope", "%1 %2, %3 layers × %4 heads")
        .arg(info.architecture, kind)
        .arg(info.layers)
        .arg(info.heads);
}

bool TransformerEngine::supportsTextB() const
{
    return m_model->info().kind == QLatin1String("encoder");
}

int TransformerEngine::maxTokens() const
{
    // Sliding-window models take every position: the window is a mask inside the attention, not a limit.
    return m_model->config().maxPositions;
}

namespace {
// Only the kept positions of an encoding, in order.
Encoding keepPositions(const Encoding& all, const std::vector<int>& kept)
{
    Encoding out;
    for (int i : kept) {
        out.ids.push_back(all.ids[size_t(i)]);
        out.tokens << all.tokens.at(i);
        out.offsets.push_back(all.offsets[size_t(i)]);
        if (size_t(i) < all.typeIds.size()) out.typeIds.push_back(all.typeIds[size_t(i)]);
        out.sequenceIds.push_back(all.sequenceIds[size_t(i)]);
        out.special.push_back(all.special[size_t(i)]);
    }
    return out;
}
} // namespace

AttentionRun TransformerEngine::compute(const QString& textA, const std::optional<QString>& textB,
                                        const std::atomic<bool>* cancel, const TokenWindow& window) const
{
    Encoding encoding;
    try {
        encoding = m_tokenizer->encode(textA, supportsTextB() ? textB : std::nullopt);
    } catch (const TokenizerError& e) {
        throw EngineError(e.what());
    }
    AttentionRun run;
    const int total = encoding.size();
    if (total == 0)
        throw EngineError(m_model->info().name.toStdString() + ": the text gives no tokens; type something");
    const int limit = maxTokens();
    if (limit > 0 && total > limit) {
        if (window.isWhole()) throw InputTooLongError(m_model->info().name, total, limit);
        encoding = keepPositions(
            encoding,
            keptTokenPositions(encoding.special, TokenWindow{std::min(window.count, limit), window.fromEnd}));
        run.totalTokens = total;
        run.keptFromEnd = window.fromEnd;
    }
    const int n = encoding.size();
    const std::optional<int> cls = m_tokenizer->clsId(), bos = m_tokenizer->bosId();
    const std::optional<int> sep = m_tokenizer->sepId(), eos = m_tokenizer->eosId();
    for (int i = 0; i < n; ++i) {
        const int id = encoding.ids[size_t(i)];
        const auto [b, e] = encoding.offsets[size_t(i)];
        const int sequence = encoding.sequenceIds[size_t(i)];
        const bool special = encoding.special[size_t(i)];
        QString label = encoding.tokens.at(i);
        if (!special && e > b && sequence >= 0)
            label = subwordLabel(encoding.tokens.at(i),
                                 substringByCodePoints(sequence == 1 && textB ? *textB : textA, b, e));
        run.labels << label;
        run.tokens << encoding.tokens.at(i);
        run.roles.special.push_back(special);
        if (special && ((cls && id == *cls) || (bos && id == *bos)))
            run.roles.clsPositions.push_back(i);
        else if (special && ((sep && id == *sep) || (eos && id == *eos)))
            run.roles.sepPositions.push_back(i);
    }
    // Held for the whole run: a backend switched meanwhile stays alive until this run ends.
    const std::shared_ptr<AttentionBackend> backend = m_backend ? m_backend->current() : nullptr;
    RunOptions options;
    options.backend = backend.get();
    options.threads = m_threads;
    options.cancel = cancel;
    try {
        options.queryKeyLimit = kQueryKeyLimit;
        options.predictTopK = kPredictionCount;
        auto capture = std::make_shared<AttentionCapture>(m_model->run(encoding.ids, encoding.typeIds, options));
        run.maps = capture->maps;
        run.predictions = std::move(capture->predictions);
        run.predictionGap = capture->predictionGap;
        run.roles.causal = capture->causal;
        if (!capture->queries.empty())
            run.capture = std::move(capture);
    } catch (const OperationCancelled&) {
        return run; // null maps: cancelled
    } catch (const ModelError& e) {
        throw EngineError(e.what());
    }
    run.backend = backend ? backendDescription(*backend) : cpuBackendDescription();
    return run;
}

} // namespace attnscope
