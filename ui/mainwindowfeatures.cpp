#include "mainwindowfeatures.h"

#include "examplechoice.h"
#include "explorer/arcwidget.h"
#include "explorer/attentionmeasure.h"
#include "explorer/comparisonwidget.h"
#include "explorer/explorersession.h"
#include "explorer/headgridwidget.h"
#include "explorer/headheatmap.h"
#include "explorer/heatmapwidget.h"
#include "explorer/layerchartwidget.h"
#include "export/exportcontroller.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "presenter/presenterbar.h"
#include "presenter/presentermode.h"
#include "settings/appsettings.h"

#include <QAction>
#include <QComboBox>
#include <QCoreApplication>
#include <QEvent>
#include <QMenu>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <QTimer>

namespace attnscope {

namespace {
// The next enabled tab `delta` steps away, wrapping (presenter mode's Alt+Page Down/Up).
void stepTab(QTabWidget* tabs, int delta)
{
    const int count = tabs->count();
    for (int index = tabs->currentIndex(), tried = 0; count > 0 && tried < count; ++tried) {
        index = ((index + delta) % count + count) % count;
        if (tabs->isTabEnabled(index) && tabs->isTabVisible(index)) {
            tabs->setCurrentIndex(index);
            return;
        }
    }
}
} // namespace

MainWindowFeatures::MainWindowFeatures(MainWindow* window)
    : QObject(window), m_window(window), m_watched(window)
{
    m_presenter = new PresenterMode(window);
    m_export = new ExportController(window);

    // View: presenter mode and full screen.
    if (QMenu* view = window->viewMenu()) {
        view->addSeparator();
        view->addAction(m_presenter->toggleAction());
        view->addAction(m_presenter->fullScreenAction());
        QMenu* steps = view->addMenu(QString());
        steps->setObjectName(QStringLiteral("stepHeadsMenu"));
        steps->addActions(m_presenter->stepActions());
    }
    connect(window->heatmap(), &HeatmapWidget::hoverChanged, m_presenter, &PresenterMode::showReadout);
    connect(m_presenter, &PresenterMode::headChanged, window, &MainWindow::openHead);
    // The presenter's strip: a sentence typed there runs as Text A; Alt+Page Down/Up step the tabs.
    connect(m_presenter, &PresenterMode::textEntered, window,
            [window](const QString& text) { window->setTexts(text, window->textB()); });
    // The strip's field shows the window's Text A, however it changed (typed, an example, a session).
    m_presenter->bar()->setText(window->textAEdit()->toPlainText());
    const auto showTextA = [this] {
        if (m_window) m_presenter->bar()->setText(m_window->session()->textA());
    };
    connect(window->textAEdit(), &QPlainTextEdit::textChanged, this, showTextA); // typed
    connect(window->session(), &ExplorerSession::textsChanged, this, showTextA); // set (examples, --text)
    // The strip's Examples menu opens an example as Examples ▸ does (on a decoder where it needs one).
    connect(m_presenter, &PresenterMode::exampleChosen, this, [this](const QString& text) {
        if (!m_window) return;
        for (const ExampleText& example : examples())
            if (example.text == text) {
                openExample(*m_window, example);
                return;
            }
    });
    connect(m_presenter, &PresenterMode::viewStepped, this, [this](int delta) {
        if (m_window) stepTab(m_window->tabs(), delta);
    });
    connect(m_presenter, &PresenterMode::activeChanged, this, [this](bool active) {
        AppSettings settings;
        settings.setPresenterMode(active);
        // The heatmap alone on a dark page (or the normal layout), repainted in that style.
        if (m_window) m_window->setPresenting(active);
    });
    // Keep the keyboard cursor on the head the window shows (grid clicks, arrows, statistics table).
    connect(window->runner(), &AnalysisRunner::resultReady, this, [this] {
        QTimer::singleShot(0, this, [this] {
            if (!m_window || !m_window->currentResult()) return;
            const auto [layer, head] = m_window->grid()->selected();
            m_presenter->setHeadCursor(HeadCursor(m_window->currentResult()->analysis.layers,
                                                  m_window->currentResult()->analysis.heads, layer, head));
        });
    });
    // The window marks its open head in the grid however it opened it (a click, the statistics table, the
    // first start's strongest head, --head): the strip names that head and the keys step from it. Grid
    // clicks alone left the strip on "Layer 0 · head 0" after a first start had opened another head.
    connect(window->grid(), &HeadGridWidget::headSelected, this, [this](int layer, int head) {
        const auto result = m_window ? m_window->currentResult() : nullptr;
        if (!result) return;
        m_presenter->setHeadCursor(HeadCursor(result->analysis.layers, result->analysis.heads, layer, head));
    });

    // Export.
    if (QMenu* menu = window->exportMenu()) {
        m_exportHeatmap = menu->addAction(QString(), this, &MainWindowFeatures::exportHeatmap);
        m_exportHeatmap->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
        m_exportGrid = menu->addAction(QString(), this, &MainWindowFeatures::exportGrid);
        m_exportAllHeads = menu->addMenu(QString());
        for (const QString& suffix : exportFormatSuffixes()) {
            QAction* action =
                m_exportAllHeads->addAction(suffix.toUpper(), this, &MainWindowFeatures::exportAllHeads);
            action->setData(suffix);
        }
        menu->addSeparator();
        m_exportComparison = menu->addAction(QString(), this, &MainWindowFeatures::exportComparison);
        m_exportArcs = menu->addAction(QString(), this, &MainWindowFeatures::exportArcs);
        m_exportLayerChart = menu->addAction(QString(), this, &MainWindowFeatures::exportLayerChart);
        menu->addSeparator();
        // Papers may want the picture alone: the stamp can be turned off, for good (AppSettings).
        m_exportStamp = menu->addAction(QString());
        m_exportStamp->setObjectName(QStringLiteral("exportStampAction"));
        m_exportStamp->setCheckable(true);
        m_exportStamp->setChecked(AppSettings().exportStamp());
        m_export->stamp = m_exportStamp->isChecked();
        connect(m_exportStamp, &QAction::toggled, this, [this](bool on) {
            m_export->stamp = on;
            AppSettings().setExportStamp(on);
        });
    }
    // Language.
    if (QMenu* menu = window->languageMenu())
        m_language = new LanguageMenu(LanguageManager::shared(), menu,
                                      [](const QString& code) { AppSettings().setLanguage(code); });

    window->installEventFilter(this);
    retranslate();
    restoreSettings();
}

std::optional<AttentionExportSource> MainWindowFeatures::currentSource() const
{
    if (!m_window || !m_window->currentResult()) return std::nullopt;
    AttentionExportSource source = AttentionExportSource::ofRun(*m_window->currentResult());
    source.discountSpecial = m_window->heatmap()->discountSpecial();
    for (const HeadStats& stats : m_window->grid()->stats())
        source.headLabels.push_back(stats.label);
    source.headEffect = m_window->grid()->effect(); // the scan's colouring, when the grid shows one
    source.headEffectCaption = m_window->grid()->effectCaption();
    return source;
}

ExportMetadata MainWindowFeatures::viewMetadata(const std::vector<std::pair<int, int>>& heads) const
{
    const auto source = currentSource();
    if (!source) return {};
    ExportMetadata metadata = source->metadata();
    QStringList named;
    for (const auto& [layer, head] : heads)
        named << QCoreApplication::translate("attnscope", "layer %1, head %2").arg(layer).arg(head);
    metadata.heads = named.join(QStringLiteral(" + "));
    return metadata;
}

bool MainWindowFeatures::exportHeatmap()
{
    const auto source = currentSource();
    if (!source) return false;
    HeatmapWidget* view = m_window->heatmap();
    const auto [layer, head] = m_window->grid()->selected();
    const ExportMetadata metadata = source->metadata(layer, head);
    HeatmapData frame = view->data();
    frame.title = source->title(layer, head);
    // What the view shows: its zoom region, and for long inputs the exact rows it holds or the overview.
    const HeatmapGeometry& geometry = view->geometryForTests();
    int row0, row1, col0, col1;
    geometry.visibleRange(row0, row1, col0, col1);
    m_export->region = geometry.isFitted() ? QRect() : QRect(col0, row0, col1 - col0, row1 - row0);
    std::optional<HeatmapData> cells;
    if (view->isTiled()) {
        if (!view->exactBlockForTests().values.empty())
            cells = view->exactBlockForTests();
        else
            cells = headOverview(*m_window->currentResult(), layer, head);
    }
    return m_export->exportHeatmap(frame, view->heatmapStyle(), metadata, cells ? &*cells : nullptr);
}

bool MainWindowFeatures::exportGrid()
{
    const auto source = currentSource();
    if (!source) return false;
    HeatmapStyle style = m_window->heatmap()->heatmapStyle();
    style.showValues = false;
    return m_export->exportGrid(*source, style, source->metadata());
}

bool MainWindowFeatures::exportAllHeads()
{
    const auto source = currentSource();
    if (!source) return false;
    auto* action = qobject_cast<QAction*>(sender());
    const auto format = exportFormatFromSuffix(action ? action->data().toString() : QStringLiteral("png"));
    HeatmapStyle style = m_window->heatmap()->heatmapStyle();
    style.showValues = source->maps->queries() <= 12;
    return m_export->exportAllHeads(*source, style, format.value_or(ExportFormat::Png));
}

bool MainWindowFeatures::exportComparison()
{
    ComparisonWidget* view = m_window ? m_window->comparison() : nullptr;
    if (!view) return false;
    // The panes exist and are laid out only while their tab is shown: show it, as the user will see it.
    if (!view->isVisible())
        if (QTabWidget* tabs = m_window->tabs())
            for (int i = 0; i < tabs->count(); ++i)
                if (tabs->widget(i) == view || tabs->widget(i)->isAncestorOf(view)) {
                    tabs->setCurrentIndex(i);
                    QCoreApplication::sendPostedEvents(); // layout requests: the panes get their sizes
                    break;
                }
    return m_export->exportView(
        tr("Export comparison"), QStringLiteral("attention-comparison.png"), tr("Head comparison"),
        viewMetadata(view->heads()),
        [view](QPainter& painter, const QRectF& page) { view->paintPanes(painter, page); },
        view->exportPageSize(m_export->imageSize),
        tr("widened until every pane keeps every token's label, and ended under the panes"));
}

bool MainWindowFeatures::exportArcs()
{
    ArcWidget* view = m_window ? m_window->arcs() : nullptr;
    if (!view) return false;
    return m_export->exportView(tr("Export arcs"), QStringLiteral("attention-arcs.png"), tr("Attention arcs"),
                                viewMetadata(view->heads()), [view](QPainter& painter, const QRectF& page) {
                                    view->paintView(painter, page);
                                });
}

bool MainWindowFeatures::exportLayerChart()
{
    LayerChartWidget* view = m_window ? m_window->layerChart() : nullptr;
    if (!view) return false;
    return m_export->exportView(
        tr("Export statistics chart"), QStringLiteral("attention-layers.png"), tr("Mean attention per layer"),
        viewMetadata(), [view](QPainter& painter, const QRectF& page) { view->paintChart(painter, page); });
}

void MainWindowFeatures::restoreSettings()
{
    AppSettings settings;
    settings.restoreWindow(*m_window);
    auto select = [](QComboBox* box, int value) {
        const int index = box ? box->findData(value) : -1;
        if (index >= 0) box->setCurrentIndex(index);
    };
    select(m_window->colorMapBox(), int(settings.colorMap()));
    select(m_window->scaleBox(), int(settings.scale()));
    m_window->setMeasure(settings.measure()); // before any run: --measure on the command line comes after
    if (settings.presenterMode()) m_presenter->setActive(true);
}

void MainWindowFeatures::saveSettings() const
{
    if (!m_window) return;
    AppSettings settings;
    const bool presenting = m_presenter->isActive();
    // The layout to remember is the normal one, not presenter mode's full screen.
    if (!presenting) settings.saveWindow(*m_window);
    if (QComboBox* box = m_window->colorMapBox())
        settings.setColorMap(ColorMapKind(box->currentData().toInt()));
    if (QComboBox* box = m_window->scaleBox()) settings.setScale(HeatmapScale(box->currentData().toInt()));
    settings.setMeasure(m_window->measure());
    settings.setPresenterMode(presenting);
}

bool MainWindowFeatures::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_watched) {
        if (event->type() == QEvent::Close)
            saveSettings();
        else if (event->type() == QEvent::LanguageChange)
            retranslate();
    }
    return QObject::eventFilter(watched, event);
}

void MainWindowFeatures::retranslate()
{
    if (m_exportHeatmap) {
        m_exportHeatmap->setText(tr("Heatmap as shown…"));
        m_exportGrid->setText(tr("Head grid…"));
        m_exportAllHeads->setTitle(tr("All heads into a folder"));
        m_exportComparison->setText(tr("Comparison as shown…"));
        m_exportArcs->setText(tr("Arcs as shown…"));
        m_exportLayerChart->setText(tr("Statistics chart…"));
        m_exportStamp->setText(tr("Stamp images with model, text and measure"));
    }
    QStringList sentences, titles;
    for (const ExampleText& example : examples()) {
        sentences << example.text;
        titles << (example.needsDecoder ? tr("Long paragraph (attention sinks; opens on a decoder)")
                                        : QString());
    }
    m_presenter->setExamples(sentences, titles);
    if (m_window && m_window->viewMenu())
        if (auto* steps = m_window->viewMenu()->findChild<QMenu*>(QStringLiteral("stepHeadsMenu")))
            steps->setTitle(tr("Step through heads"));
}

} // namespace attnscope
