#pragma once

#include "explorer/predictionpanel.h"

#include <QWidget>

namespace attnscope {

// The model's own top-5 for the next token (decoders) or each [MASK] (encoders), so users see the model
// work: token, a bar on a fixed 0..1 axis, and the probability. Paints from a PredictionPanel.
class PredictionsWidget : public QWidget
{
    Q_OBJECT
public:
    explicit PredictionsWidget(QWidget* parent = nullptr);
    void setPanel(PredictionPanel panel);
    const PredictionPanel& panel() const { return m_panel; }
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override { return {200, 60}; }

protected:
    void paintEvent(QPaintEvent* event) override;

private:
    PredictionPanel m_panel;
};

} // namespace attnscope
