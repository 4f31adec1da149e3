#pragma once

#include <QMainWindow>

namespace attnscope {

class HeatmapWidget;

// The main window. Today it shows the worked example; the explorer (model picker, grid, heatmap,
// comparison, statistics) grows here.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);

    HeatmapWidget* heatmap() const { return m_heatmap; }

private:
    HeatmapWidget* m_heatmap = nullptr;
};

} // namespace attnscope
