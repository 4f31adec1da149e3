#pragma once

#include "export/attentionexportsource.h"
#include "export/exportformat.h"

#include <QObject>
#include <QPointer>

#include <optional>

class QAction;
class QMenu;

namespace attnscope {

class ExportController;
class LanguageMenu;
class MainWindow;
class PresenterMode;

// Issue 7's pieces in the explorer window, kept out of MainWindow's own code: the Export menu (heatmap
// as shown, head grid, all heads), presenter mode in the View menu, the Language menu, and the settings
// (colour map, scale, window layout, presenter mode) restored on start and saved on close.
class MainWindowFeatures : public QObject
{
    Q_OBJECT
public:
    explicit MainWindowFeatures(MainWindow* window);

    PresenterMode* presenter() const { return m_presenter; }
    ExportController* exportController() const { return m_export; }
    QAction* exportStampAction() const { return m_exportStamp; }

    // The current result as export data (nullopt before the first result).
    std::optional<AttentionExportSource> currentSource() const;

public Q_SLOTS:
    bool exportHeatmap();  // the heatmap as on screen: colour map, scale, discount and zoom region
    bool exportGrid();
    bool exportAllHeads();
    bool exportComparison(); // the comparison panes as shown
    bool exportArcs();
    bool exportLayerChart(); // the statistics tab's per-layer chart // asks for a folder; format from the action's data (PNG by default)
    void saveSettings() const;

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    void restoreSettings();
    // The current run's metadata for a view's export stamp, naming the heads it shows.
    ExportMetadata viewMetadata(const std::vector<std::pair<int, int>>& heads = {}) const;

    QPointer<MainWindow> m_window;
    // The same window as a plain QObject, only compared, never used: QPointer<MainWindow> casts down to
    // MainWindow, which is undefined (UBSan: vptr) for events sent while ~QWidget runs, after ~MainWindow.
    const QObject* m_watched;
    PresenterMode* m_presenter = nullptr;
    ExportController* m_export = nullptr;
    LanguageMenu* m_language = nullptr;
    QAction* m_exportHeatmap = nullptr;
    QAction* m_exportGrid = nullptr;
    QMenu* m_exportAllHeads = nullptr;
    QAction* m_exportComparison = nullptr;
    QAction* m_exportArcs = nullptr;
    QAction* m_exportLayerChart = nullptr;
    QAction* m_exportStamp = nullptr;
};

} // namespace attnscope
