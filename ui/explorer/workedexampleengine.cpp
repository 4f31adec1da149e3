#include "explorer/workedexampleengine.h"

#include "attention/attention.h"
#include "attention/attentionmaps.h"
#include "attention/workedexample.h"
#include "explorer/backenddescription.h"
#include "model/attentioncapture.h"

#include <QCoreApplication>

namespace attnscope {

QString WorkedExampleEngine::displayName() const
{
    return QCoreApplication::translate("attnscope", "Worked example: kedi mindere oturdu");
}

QString WorkedExampleEngine::architecture() const
{
    return QCoreApplication::translate("attnscope", "worked example, 1 layer × 1 head, d = 4");
}

AttentionRun WorkedExampleEngine::compute(const QString&, const std::optional<QString>&,
                                          const std::atomic<bool>*, const TokenWindow&) const
{
    const WorkedExample example;
    const FullAttentionResult result =
        attentionFull(example.q(), example.k(), example.v(), AttentionOptions{});
    AttentionRun run;
    for (const std::string& token : example.tokens) {
        run.labels << QString::fromStdString(token);
        run.tokens << QString::fromStdString(token);
    }
    run.roles.special.assign(example.tokens.size(), false);
    run.maps = std::make_shared<DenseAttentionMaps>(1, 1, result.queries, result.keys, result.probabilities);
    run.backend = cpuBackendDescription();
    // Its Q, K and V, so that "Open in lesson" works here too: the lesson then shows the seed's numbers.
    auto capture = std::make_shared<AttentionCapture>();
    capture->maps = run.maps;
    capture->heads = capture->kvHeads = 1;
    capture->headDim = 4;
    capture->queries = {example.q()};
    capture->keys = {example.k()};
    capture->values = {example.v()};
    capture->scales = {AttentionOptions{}.effectiveScale(capture->headDim)};
    run.capture = std::move(capture);
    return run;
}

} // namespace attnscope
