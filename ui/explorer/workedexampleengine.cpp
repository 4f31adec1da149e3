#include "explorer/workedexampleengine.h"

#include "attention/attention.h"
#include "attention/attentionmaps.h"
#include "attention/workedexample.h"
#include "explorer/backenddescription.h"

#include <QCoreApplication>

namespace attnscope {

QString WorkedExampleEngine::displayName() const
{
    return QCoreApplication::translate("attnscope", "Worked example: kedi mindere oturdu");
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
    return run;
}

} // namespace attnscope
