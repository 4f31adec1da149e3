#include "render/examples.h"

#include "attention/attention.h"
#include "attention/workedexample.h"

#include <QCoreApplication>

namespace attnscope {

HeatmapData workedExampleHeatmap(bool causal)
{
    const WorkedExample example;
    AttentionOptions options;
    options.causal = causal;
    const FullAttentionResult result = attentionFull(example.q(), example.k(), example.v(), options);
    HeatmapData data;
    data.rows = result.queries;
    data.cols = result.keys;
    data.values.assign(result.probabilities.begin(), result.probabilities.end());
    for (const std::string& token : example.tokens) {
        data.rowLabels << QString::fromStdString(token);
        data.colLabels << QString::fromStdString(token);
    }
    data.causal = causal;
    data.title = causal ? QCoreApplication::translate("attnscope", "Worked example, causal: softmax(QKᵀ/√4 + mask)")
                        : QCoreApplication::translate("attnscope", "Worked example: softmax(QKᵀ/√4)");
    return data;
}

} // namespace attnscope
