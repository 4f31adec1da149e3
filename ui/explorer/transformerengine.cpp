#include "explorer/transformerengine.h"

#include "analysis/contributions.h"
#include "analysis/modeltext.h"
#include "analysis/residualprofile.h"
#include "explorer/backenddescription.h"
#include "explorer/explorerbackend.h"
#include "explorer/modelproblemtext.h"
#include "explorer/tokenlabels.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QCoreApplication>
#include <algorithm>
#include <stdexcept>

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
        throw EngineError(modelProblemText(e.problem()), e.problem()); // the window's language
    }
    try {
        engine->m_tokenizer = &modelTokenizer(*engine->m_model, &engine->m_ownTokenizer);
    } catch (const ModelError& e) {
        throw EngineError(modelProblemText(e.problem()), e.problem());
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
                                        const std::atomic<bool>* cancel, const TokenWindow& window, const LayerProgress& progress) const
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
    const ModelText text = modelText(encoding, *m_tokenizer, textA, textB);
    // The covered text with the vocabulary's subword marker kept ("ke" "##di").
    run.labels = tokenLabels(text);
    run.tokens = text.tokens;
    run.roles = text.roles;
    // Held for the whole run: a backend switched meanwhile stays alive until this run ends.
    const std::shared_ptr<AttentionBackend> backend = m_backend ? m_backend->current() : nullptr;
    RunOptions options;
    options.backend = backend.get();
    options.threads = m_threads;
    options.cancel = cancel;
    options.progress = progress;
    try {
        options.queryKeyLimit = kQueryKeyLimit;
        options.predictTopK = kPredictionCount;
        auto capture =
            std::make_shared<AttentionCapture>(m_model->run(encoding.ids, encoding.typeIds, options));
        run.maps = capture->maps;
        run.weights = capture->maps;
        // The contribution measure's norms from this same pass, for any length (the capture with Q and K is
        // kept only up to kQueryKeyLimit tokens, the value vectors are not kept at all).
        try {
            run.valueNorms = std::make_shared<const ValueNorms>(valueNorms(*capture, cancel, m_threads));
        } catch (const std::invalid_argument&) {
            // A pass without value vectors: the contribution measure says it is unavailable.
        }
        run.residuals = std::make_shared<const ResidualProfile>(residualProfile(*capture));
        run.ids = encoding.ids;
        run.typeIds = encoding.typeIds;
        run.predictions = std::move(capture->predictions);
        run.predictionGap = capture->predictionGap;
        run.roles.causal = capture->causal;
        if (!capture->queries.empty()) run.capture = std::move(capture);
    } catch (const OperationCancelled&) {
        return run; // null maps: cancelled
    } catch (const ModelError& e) {
        throw EngineError(e.what());
    }
    run.backend = backend ? backendDescription(*backend) : cpuBackendDescription();
    return run;
}

} // namespace attnscope
