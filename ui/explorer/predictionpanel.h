#pragma once

#include "explorer/attentionengine.h"

#include <QRectF>
#include <QString>
#include <QVector>

namespace attnscope {

// What the predictions panel shows for one run, as plain data: per predicted position a heading and the
// model's top-k, probabilities as the softmax gave them (never renormalised over the k shown).
struct PredictionPanelRow
{
    QString text;       // the token as text ("the", "."), from the tokenizer's decoder
    QString vocabEntry; // the vocabulary string ("▁the", "##ing"), shown too when it differs from text
    double probability = 0;
};

struct PredictionPanelGroup
{
    QString heading; // "Next token after “oturdu”" or "[MASK] 1 of 2 (token 3)"
    QVector<PredictionPanelRow> rows;
};

struct PredictionPanel
{
    QVector<PredictionPanelGroup> groups;
    QString note; // shown when there are no groups: why (e.g. "Type [MASK] …"); empty for the demos
};

// From a finished run: groups for run.predictions, or advice for run.predictionGap.
PredictionPanel buildPredictionPanel(const AttentionRun& run);

// After an ablation (core AblationStudy): a heading line with what was ablated and the KL divergence
// (summed over the scored positions, nats), then per scored position the original top token's probability
// before → after, and the ablated pass's new top-k as rows.
PredictionPanel buildAblationPanel(const AttentionRun& run, const QString& ablated, double kl,
                                   const std::vector<Prediction>& originalTop,
                                   const std::vector<double>& topProbDelta,
                                   const std::vector<Prediction>& newTop);

// Where the panel paints each piece inside `area`; rows are a fixed height, bars use a fixed 0..1 axis
// so that a 0.9 prediction reads as 0.9.
class PredictionPanelGeometry
{
public:
    static constexpr double kRowHeight = 20;
    static constexpr double kHeadingHeight = 22;
    explicit PredictionPanelGeometry(QRectF area) : m_area(area) {}
    double groupTop(const PredictionPanel& panel, int group) const;
    QRectF textRect(const PredictionPanel& panel, int group, int row) const;
    QRectF barRect(const PredictionPanel& panel, int group, int row) const; // full length = probability 1
    QRectF filledBarRect(const PredictionPanel& panel, int group, int row) const;
    double contentHeight(const PredictionPanel& panel) const;

private:
    QRectF m_area;
};

// "43.1%" for large values, "0.052%" for small ones: three significant digits, never "0.0%".
QString formatProbability(double probability);

} // namespace attnscope
