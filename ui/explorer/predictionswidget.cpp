#include "explorer/predictionswidget.h"

#include <QPainter>
#include <cmath>

namespace attnscope {

PredictionsWidget::PredictionsWidget(QWidget* parent) : QWidget(parent)
{
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Maximum);
}

void PredictionsWidget::setPanel(PredictionPanel panel)
{
    m_panel = std::move(panel);
    updateGeometry();
    update();
}

QSize PredictionsWidget::sizeHint() const
{
    const PredictionPanelGeometry geometry(QRectF(0, 0, 300, 0));
    const double height = m_panel.groups.isEmpty() ? PredictionPanelGeometry::kHeadingHeight * 2
                                                   : geometry.contentHeight(m_panel);
    return {300, int(std::ceil(height)) + 4};
}

void PredictionsWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    const QRectF area = QRectF(rect()).adjusted(2, 2, -2, -2);
    const QPalette& colours = palette();
    if (m_panel.groups.isEmpty()) {
        painter.setPen(colours.color(QPalette::PlaceholderText));
        painter.drawText(area, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, m_panel.note);
        return;
    }
    const PredictionPanelGeometry geometry(area);
    const QColor barColour(0, 114, 178);
    QFont headingFont = font();
    headingFont.setBold(true);
    for (int g = 0; g < m_panel.groups.size(); ++g) {
        const PredictionPanelGroup& group = m_panel.groups.at(g);
        painter.setFont(headingFont);
        painter.setPen(colours.color(QPalette::WindowText));
        const QRectF heading(area.left() + 4, geometry.groupTop(m_panel, g), area.width() - 8,
                             PredictionPanelGeometry::kHeadingHeight);
        painter.drawText(
            heading, Qt::AlignLeft | Qt::AlignVCenter,
            painter.fontMetrics().elidedText(group.heading, Qt::ElideMiddle, int(heading.width())));
        painter.setFont(font());
        for (int r = 0; r < group.rows.size(); ++r) {
            const PredictionPanelRow& row = group.rows.at(r);
            const QRectF text = geometry.textRect(m_panel, g, r);
            // The token as text, then its vocabulary entry in grey when that differs ("the  ▁the").
            painter.setPen(colours.color(QPalette::WindowText));
            const QString shown =
                painter.fontMetrics().elidedText(row.text, Qt::ElideRight, int(text.width()));
            painter.drawText(text, Qt::AlignLeft | Qt::AlignVCenter, shown);
            if (row.vocabEntry != row.text) {
                const int used = painter.fontMetrics().horizontalAdvance(shown + QStringLiteral("  "));
                const QRectF rest = text.adjusted(used, 0, 0, 0);
                painter.setPen(colours.color(QPalette::PlaceholderText));
                painter.drawText(
                    rest, Qt::AlignLeft | Qt::AlignVCenter,
                    painter.fontMetrics().elidedText(row.vocabEntry, Qt::ElideRight, int(rest.width())));
                painter.setPen(colours.color(QPalette::WindowText));
            }
            const QRectF bar = geometry.barRect(m_panel, g, r);
            painter.fillRect(bar, colours.color(QPalette::AlternateBase));
            painter.fillRect(geometry.filledBarRect(m_panel, g, r), barColour);
            painter.drawText(
                QRectF(bar.right() + 4, text.top(), area.right() - bar.right() - 4, text.height()),
                Qt::AlignRight | Qt::AlignVCenter, formatProbability(row.probability));
        }
    }
}

} // namespace attnscope
