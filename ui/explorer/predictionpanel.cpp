#include "explorer/predictionpanel.h"

#include <QCoreApplication>
#include <QLocale>
#include <algorithm>
#include <cmath>

namespace attnscope {

PredictionPanel buildPredictionPanel(const AttentionRun& run)
{
    PredictionPanel panel;
    const int count = int(run.predictions.size());
    for (int g = 0; g < count; ++g) {
        const Prediction& prediction = run.predictions[size_t(g)];
        PredictionPanelGroup group;
        const QString at = prediction.position >= 0 && prediction.position < run.labels.size()
                               ? run.labels.at(prediction.position).trimmed()
                               : QString();
        if (run.roles.causal)
            group.heading =
                QCoreApplication::translate("attnscope::PredictionPanel", "Next token after “%1”").arg(at);
        else if (count == 1)
            group.heading = QCoreApplication::translate("attnscope::PredictionPanel", "%1 (token %2)")
                                .arg(at)
                                .arg(prediction.position);
        else
            group.heading =
                QCoreApplication::translate("attnscope::PredictionPanel", "%1 %2 of %3 (token %4)")
                    .arg(at)
                    .arg(g + 1)
                    .arg(count)
                    .arg(prediction.position);
        for (const PredictedToken& token : prediction.top)
            group.rows.push_back({token.decoded.isEmpty() ? token.text : token.decoded, token.text,
                                  double(token.probability)});
        panel.groups.push_back(group);
    }
    if (panel.groups.isEmpty()) {
        if (run.predictionGap == PredictionGap::NoMaskToken)
            panel.note =
                QCoreApplication::translate("attnscope::PredictionPanel",
                                            "Type [MASK] in the text to see what the model predicts there.");
        else
            panel.note =
                predictionGapMessage(run.predictionGap); // a checkpoint without an LM head; "" for demos
    }
    return panel;
}

PredictionPanel buildAblationPanel(const AttentionRun& run, const QString& ablated, double kl,
                                   const std::vector<Prediction>& originalTop,
                                   const std::vector<double>& topProbDelta,
                                   const std::vector<Prediction>& newTop)
{
    PredictionPanel panel;
    PredictionPanelGroup summary;
    summary.heading = QCoreApplication::translate("attnscope::PredictionPanel", "Ablated %1 · KL %2 nats")
                          .arg(ablated, QLocale().toString(kl, 'g', 3));
    panel.groups.push_back(summary);
    const size_t count = std::min({originalTop.size(), topProbDelta.size(), newTop.size()});
    for (size_t g = 0; g < count; ++g) {
        PredictionPanelGroup group;
        const Prediction& before = originalTop[g];
        const QString at = before.position >= 0 && before.position < run.labels.size()
                               ? run.labels.at(before.position).trimmed()
                               : QString::number(before.position);
        if (!before.top.isEmpty()) {
            const PredictedToken& top = before.top.front();
            const double p0 = double(top.probability);
            group.heading = QCoreApplication::translate("attnscope::PredictionPanel", "%1: “%2” %3 → %4")
                                .arg(at, (top.decoded.isEmpty() ? top.text : top.decoded).trimmed(),
                                     formatProbability(p0),
                                     formatProbability(std::clamp(p0 + topProbDelta[g], 0.0, 1.0)));
        } else {
            group.heading = at;
        }
        for (const PredictedToken& token : newTop[g].top)
            group.rows.push_back({token.decoded.isEmpty() ? token.text : token.decoded, token.text,
                                  double(token.probability)});
        panel.groups.push_back(group);
    }
    return panel;
}

double PredictionPanelGeometry::groupTop(const PredictionPanel& panel, int group) const
{
    double top = m_area.top();
    for (int g = 0; g < group && g < panel.groups.size(); ++g)
        top += kHeadingHeight + panel.groups.at(g).rows.size() * kRowHeight + 6;
    return top;
}

QRectF PredictionPanelGeometry::textRect(const PredictionPanel& panel, int group, int row) const
{
    const double top = groupTop(panel, group) + kHeadingHeight + row * kRowHeight;
    return QRectF(m_area.left() + 4, top, m_area.width() * 0.42 - 4, kRowHeight);
}

QRectF PredictionPanelGeometry::barRect(const PredictionPanel& panel, int group, int row) const
{
    const QRectF text = textRect(panel, group, row);
    const double left = text.right() + 6;
    const double percentWidth = 62;
    return QRectF(left, text.top() + 4, std::max(0.0, m_area.right() - percentWidth - left), kRowHeight - 8);
}

QRectF PredictionPanelGeometry::filledBarRect(const PredictionPanel& panel, int group, int row) const
{
    QRectF bar = barRect(panel, group, row);
    const double p = std::clamp(panel.groups.at(group).rows.at(row).probability, 0.0, 1.0);
    bar.setWidth(bar.width() * p);
    return bar;
}

double PredictionPanelGeometry::contentHeight(const PredictionPanel& panel) const
{
    return groupTop(panel, int(panel.groups.size())) - m_area.top();
}

QString formatProbability(double probability)
{
    // The locale's digits, and its way of writing a percentage ("45.2%", Turkish "%45,2").
    const QLocale locale;
    auto percentText = [&locale](double value, int decimals) {
        return QCoreApplication::translate("attnscope", "%1%").arg(locale.toString(value, 'f', decimals));
    };
    const double percent = probability * 100.0;
    if (percent >= 10.0) return percentText(percent, 1);
    if (percent <= 0.0) return percentText(0, 0);
    // three significant digits below 10%
    const int decimals = std::clamp(2 - int(std::floor(std::log10(percent))), 1, 8);
    return percentText(percent, decimals);
}

} // namespace attnscope
