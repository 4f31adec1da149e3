#include "explorer/heatmapzoom.h"

#include "attention/attentionmaps.h"
#include "explorer/headheatmap.h"
#include "explorer/heatmapwidget.h"

#include <QCoreApplication>
#include <QEvent>
#include <QLabel>
#include <QVBoxLayout>
#include <algorithm>

namespace attnscope {

HeatmapZoomWindow::HeatmapZoomWindow(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("heatmapZoomWindow"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    m_hint = new QLabel(this);
    m_hint->setWordWrap(true);
    layout->addWidget(m_hint);
    m_view = new HeatmapWidget(this);
    m_view->setObjectName(QStringLiteral("heatmapZoomView"));
    layout->addWidget(m_view, 1);
    m_hint->setText(tr("Zoom window: move the mouse over the overview to read its tokens"));
    hide();
}

void HeatmapZoomWindow::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        m_hint->setText(tr("Zoom window: move the mouse over the overview to read its tokens"));
        refresh(); // the title
    }
    QWidget::changeEvent(event);
}

HeatmapData HeatmapZoomWindow::block(const ExplorerResult& result, int layer, int head, int row0, int col0,
                                     int size)
{
    const HeatmapData frame = headFrame(result, layer, head);
    const int rows = std::clamp(frame.rows - row0, 0, size), cols = std::clamp(frame.cols - col0, 0, size);
    HeatmapData data;
    data.rows = rows;
    data.cols = cols;
    data.values = result.run.maps->tile(layer, head, row0, row0 + rows, col0, col0 + cols);
    data.rowLabels = frame.rowLabels.mid(row0, rows);
    data.colLabels = frame.colLabels.mid(col0, cols);
    auto slice = [](const std::vector<bool>& flags, int from, int count) {
        std::vector<bool> out(size_t(count), false);
        for (int i = 0; i < count; ++i)
            out[size_t(i)] = size_t(from + i) < flags.size() && flags[size_t(from + i)];
        return out;
    };
    data.specialRows = slice(frame.specialRows, row0, rows);
    data.specialCols = slice(frame.specialCols, col0, cols);
    data.discountCols = slice(frame.discountCols, col0, cols);
    // Block cell (r, c) is matrix cell (row0 + r, col0 + c): masked when col0 + c > row0 + r.
    data.causal = frame.causal;
    data.queryOffset = row0 - col0;
    for (int r = 0; r < rows && size_t(row0 + r) < frame.rowTotals.size(); ++r)
        data.rowTotals.push_back(frame.rowTotals[size_t(row0 + r)]);
    data.colorBarCaption = frame.colorBarCaption;
    data.title = QCoreApplication::translate("attnscope", "queries %1–%2 × keys %3–%4 of %5")
                     .arg(row0 + 1)
                     .arg(row0 + rows)
                     .arg(col0 + 1)
                     .arg(col0 + cols)
                     .arg(frame.rows);
    return data;
}

void HeatmapZoomWindow::setHead(std::shared_ptr<const ExplorerResult> result, int layer, int head)
{
    m_result = std::move(result);
    m_layer = layer;
    m_head = head;
    const bool show = m_result && m_result->run.maps && wanted(m_result->run.maps->queries());
    setVisible(show);
    if (show) centerOn(m_row0 + kSize / 2, m_col0 + kSize / 2);
}

void HeatmapZoomWindow::clear()
{
    m_result.reset();
    hide();
}

void HeatmapZoomWindow::centerOn(int row, int col)
{
    if (!m_result || !m_result->run.maps || row < 0 || col < 0) return;
    const int rows = m_result->run.maps->queries(), cols = m_result->run.maps->keys();
    m_row0 = std::clamp(row - kSize / 2, 0, std::max(0, rows - kSize));
    m_col0 = std::clamp(col - kSize / 2, 0, std::max(0, cols - kSize));
    refresh();
}

void HeatmapZoomWindow::refresh()
{
    if (!m_result || !m_result->run.maps || isHidden()) return;
    m_view->setData(block(*m_result, m_layer, m_head, m_row0, m_col0, kSize));
}

void HeatmapZoomWindow::setStyle(const HeatmapStyle& style)
{
    m_view->setStyle(style);
}

} // namespace attnscope
