#include "mainwindow.h"

#include "heatmapwidget.h"
#include "render/examples.h"

#include <QLabel>
#include <QStatusBar>

namespace attnscope {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(tr("AttnScope"));
    m_heatmap = new HeatmapWidget(this);
    HeatmapStyle style;
    style.showValues = true;
    style.fontPointSize = 11;
    m_heatmap->setStyle(style);
    m_heatmap->setData(workedExampleHeatmap());
    setCentralWidget(m_heatmap);

    auto* hover = new QLabel(this);
    statusBar()->addPermanentWidget(hover);
    statusBar()->showMessage(tr("%1 tokens · backend: CPU").arg(m_heatmap->data().rows));
    connect(m_heatmap, &HeatmapWidget::hoverChanged, hover, &QLabel::setText);
    resize(900, 700);
}

} // namespace attnscope
