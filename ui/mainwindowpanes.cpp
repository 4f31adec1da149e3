// MainWindow's accessors to the widgets of its panes, one line each: MainWindowFeatures (export, presenter
// mode, settings) and the tests reach the input bar, the grid pane, the Heatmap tab and the menus through
// these. Kept apart from mainwindow.cpp, which assembles the window.
#include "explorer/gridpane.h"
#include "explorer/heatmaptab.h"
#include "explorer/inputbar.h"
#include "lesson/lessonlauncher.h"
#include "mainmenus.h"
#include "mainwindow.h"

namespace attnscope {

QLabel* MainWindow::modelDetailsLabel() const
{
    return m_inputBar->modelDetailsLabel();
}
QPlainTextEdit* MainWindow::textAEdit() const
{
    return m_inputBar->textAEdit();
}
QComboBox* MainWindow::modelBox() const
{
    return m_inputBar->modelBox();
}
QLabel* MainWindow::fixedTextNote() const
{
    return m_inputBar->fixedTextNote();
}
HeadGridWidget* MainWindow::grid() const
{
    return m_gridPane->grid();
}
PredictionsWidget* MainWindow::predictions() const
{
    return m_gridPane->predictions();
}
QGroupBox* MainWindow::predictionsBox() const
{
    return m_gridPane->predictionsBox();
}
QComboBox* MainWindow::measureBox() const
{
    return m_gridPane->measureBox();
}
QLabel* MainWindow::measureNote() const
{
    return m_gridPane->measureNote();
}
QComboBox* MainWindow::colorByBox() const
{
    return m_gridPane->colorByBox();
}
QProgressBar* MainWindow::scanProgressBar() const
{
    return m_gridPane->scanProgressBar();
}
QPushButton* MainWindow::scanButton() const
{
    return m_gridPane->scanButton();
}
QPushButton* MainWindow::scanCancelButton() const
{
    return m_gridPane->scanCancelButton();
}
QLabel* MainWindow::scanNote() const
{
    return m_gridPane->scanNote();
}
HeatmapWidget* MainWindow::heatmap() const
{
    return m_heatmapTab->heatmap();
}
QLabel* MainWindow::heatmapReadout() const
{
    return m_heatmapTab->readout();
}
QComboBox* MainWindow::colorMapBox() const
{
    return m_heatmapTab->colorMapBox();
}
QComboBox* MainWindow::scaleBox() const
{
    return m_heatmapTab->scaleBox();
}
QMenu* MainWindow::viewMenu() const
{
    return m_menus->viewMenu();
}
QMenu* MainWindow::exportMenu() const
{
    return m_menus->exportMenu();
}
QMenu* MainWindow::languageMenu() const
{
    return m_menus->languageMenu();
}
QMenu* MainWindow::computeMenu() const
{
    return m_menus->computeMenu();
}
QMenu* MainWindow::lessonMenu() const
{
    return m_menus->lessonMenu();
}
LessonLauncher* MainWindow::lessonLauncher() const
{
    return m_menus->lessonLauncher();
}

} // namespace attnscope
