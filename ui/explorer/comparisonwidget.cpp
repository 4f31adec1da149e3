#include "explorer/comparisonwidget.h"

#include "attention/attentionmaps.h"
#include "explorer/attentionmeasure.h"
#include "explorer/comparisonpage.h"
#include "explorer/headheatmap.h"
#include "explorer/headstatsmodel.h"
#include "explorer/heatmapwidget.h"
#include "explorer/secondsentence.h"
#include "explorer/tokenalignment.h"
#include "explorer/transformerengine.h"
#include "render/heatmapcomparison.h"
#include "render/heatmappainter.h"
#include "render/numberformat.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
// Panes are narrow: "L0 H3 · sink" instead of the model name.
QString shortTitle(const ExplorerResult& result, int layer, int head)
{
    return ComparisonWidget::tr("L%1 H%2 · %3")
               .arg(layer)
               .arg(head)
               .arg(headLabelDisplayName(result.analysis.at(layer, head).label)) +
           QStringLiteral(" · ") + measureName(result.run.measure);
}
} // namespace

ComparisonWidget::ComparisonWidget(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* top = new QHBoxLayout;
    m_modeBox = new QComboBox(this);
    for (int i = 0; i < 4; ++i)
        m_modeBox->addItem(QString());
    top->addWidget(m_modeBox);
    m_headsLabel = new QLabel(this);
    top->addWidget(m_headsLabel);
    m_count = new QSpinBox(this);
    m_count->setRange(2, 4);
    top->addWidget(m_count);
    m_selectorRow = new QHBoxLayout;
    top->addLayout(m_selectorRow);
    top->addStretch();
    layout->addLayout(top);
    auto* second = new QHBoxLayout;
    m_sentenceLabel = new QLabel(this);
    second->addWidget(m_sentenceLabel);
    m_sentence = new QLineEdit(this);
    m_defaultSentence = defaultSecondSentence(QString());
    m_sentence->setText(m_defaultSentence);
    second->addWidget(m_sentence, 1);
    m_modelChoice = new QComboBox(this);
    m_modelChoice->setObjectName(QStringLiteral("secondModel"));
    m_modelChoice->setMinimumContentsLength(30);
    second->addWidget(m_modelChoice, 1);
    layout->addLayout(second);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    layout->addWidget(m_note);
    m_paneScroll = new QScrollArea(this);
    m_paneScroll->setFrameShape(QFrame::NoFrame);
    m_paneScroll->setWidgetResizable(true);
    m_paneScroll->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_paneHost = new QWidget;
    m_paneGrid = new QGridLayout(m_paneHost);
    m_paneGrid->setContentsMargins(0, 0, 0, 0);
    m_paneGrid->setSpacing(4);
    m_paneScroll->setWidget(m_paneHost);
    layout->addWidget(m_paneScroll, 1);

    m_secondRunner = new AnalysisRunner(this);
    m_debounce = new QTimer(this);
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(250);
    connect(m_debounce, &QTimer::timeout, this, &ComparisonWidget::runSecond);
    connect(m_sentence, &QLineEdit::textChanged, m_debounce, qOverload<>(&QTimer::start));
    connect(m_secondRunner, &AnalysisRunner::resultReady, this,
            [this](std::shared_ptr<const ExplorerResult> r) {
                m_second = std::move(r);
                rebuildWhenVisible();
            });
    connect(m_modeBox, qOverload<int>(&QComboBox::currentIndexChanged), this,
            [this](int i) { setMode(Mode(i)); });
    connect(m_modelChoice, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        if (i >= 0 && i < m_choices.size()) setSecondModel(m_choices[i].path);
    });
    connect(m_count, qOverload<int>(&QSpinBox::valueChanged), this, [this] {
        rebuildSelectors();
        rebuildPanes();
    });
    retranslate();
    setMode(Mode::SideBySide);
}

void ComparisonWidget::retranslate()
{
    m_modeBox->setItemText(0, tr("Heads side by side"));
    m_modeBox->setItemText(1, tr("Difference of two heads"));
    m_modeBox->setItemText(2, tr("Same head, two sentences"));
    m_modeBox->setItemText(3, tr("Same head, two models"));
    m_headsLabel->setText(tr("Heads:"));
    m_sentenceLabel->setText(m_mode == Mode::TwoModels ? tr("Second model:") : tr("Second sentence:"));
}

void ComparisonWidget::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) {
        retranslate();
        rebuildWhenVisible(); // pane titles
    }
    QWidget::changeEvent(event);
}

void ComparisonWidget::setEngine(std::shared_ptr<const AttentionEngine> engine)
{
    m_engine = std::move(engine);
    m_second.reset();
}

void ComparisonWidget::setModelChoices(const QVector<ModelChoice>& choices)
{
    const QString current =
        m_modelChoice->currentIndex() >= 0 && m_modelChoice->currentIndex() < m_choices.size()
            ? m_choices[m_modelChoice->currentIndex()].path
            : QString();
    m_choices = choices;
    const QSignalBlocker blocker(m_modelChoice);
    m_modelChoice->clear();
    for (const ModelChoice& c : choices) {
        m_modelChoice->addItem(c.name);
        m_modelChoice->setItemData(m_modelChoice->count() - 1, c.path, Qt::ToolTipRole);
        if (c.path == current) m_modelChoice->setCurrentIndex(m_modelChoice->count() - 1);
    }
    if (current.isEmpty()) m_modelChoice->setCurrentIndex(-1);
}

bool ComparisonWidget::setSecondModel(const QString& path)
{
    for (int i = 0; i < m_choices.size(); ++i)
        if (m_choices[i].path == path) {
            const QSignalBlocker blocker(m_modelChoice);
            m_modelChoice->setCurrentIndex(i);
        }
    try {
        setSecondEngine(TransformerEngine::open(path, explorerWorkerThreads()));
        return true;
    } catch (const EngineError& e) {
        m_secondEngine.reset();
        m_second.reset();
        m_secondEngineError = QString::fromStdString(e.what());
        rebuildWhenVisible();
        return false;
    }
}

void ComparisonWidget::setSecondEngine(std::shared_ptr<const AttentionEngine> engine)
{
    m_secondEngine = std::move(engine);
    m_secondEngineError.clear();
    m_second.reset();
    runSecond();
    rebuildWhenVisible();
}

void ComparisonWidget::setResult(std::shared_ptr<const ExplorerResult> result)
{
    const bool shapeChanged = !m_result || !result || m_result->analysis.layers != result->analysis.layers ||
                              m_result->analysis.heads != result->analysis.heads;
    m_result = std::move(result);
    // The default second sentence follows Text A's language until the user writes one of their own.
    if (m_result && m_sentence->text() == m_defaultSentence) {
        m_defaultSentence = defaultSecondSentence(m_result->textA);
        const QSignalBlocker blocker(m_sentence);
        m_sentence->setText(m_defaultSentence);
    }
    if (shapeChanged) {
        m_keepSelection = false;
        rebuildSelectors();
        m_keepSelection = true;
    }
    if (m_mode == Mode::TwoSentences || m_mode == Mode::TwoModels) runSecond();
    rebuildWhenVisible();
}

void ComparisonWidget::rebuildWhenVisible()
{
    if (isVisible())
        rebuildPanes();
    else
        m_dirty = true;
}

void ComparisonWidget::showEvent(QShowEvent* event)
{
    QWidget::showEvent(event);
    if (m_dirty) rebuildPanes();
}

void ComparisonWidget::setStyle(const HeatmapStyle& style)
{
    m_style = style;
    applyPaneStyles();
}

void ComparisonWidget::applyPaneStyles()
{
    // Panes on one colour scale share one colour bar, drawn by the last of them: the room goes to the
    // cells and their labels. A difference pane has its own (signed) bar. The three-pane modes lay their
    // bars across under the cells: three panes in a row are short of width, not of height (at 1280×800
    // the bars beside them took the ~90 px that kept three 300-px matrices from fitting the tab).
    for (size_t i = 0; i < m_panes.size(); ++i) {
        HeatmapStyle s = m_style;
        s.showValues = m_panes[i]->data().rows <= 12 && m_style.showValues;
        const bool lastOfItsScale =
            i + 1 == m_panes.size() || m_panes[i + 1]->data().signedValues != m_panes[i]->data().signedValues;
        s.showColorBar = lastOfItsScale;
        s.colorBarBelow = wantsFullWidth();
        m_panes[i]->setStyle(s);
    }
    updatePaneMinimumWidths();
    equalizeCellSizes();
}

void ComparisonWidget::setMode(Mode mode)
{
    m_mode = mode;
    if (m_modeBox->currentIndex() != int(mode)) m_modeBox->setCurrentIndex(int(mode));
    m_count->setEnabled(mode == Mode::SideBySide);
    m_sentence->setEnabled(mode == Mode::TwoSentences);
    m_sentence->setVisible(mode != Mode::TwoModels);
    m_modelChoice->setVisible(mode == Mode::TwoModels);
    m_sentenceLabel->setText(mode == Mode::TwoModels ? tr("Second model:") : tr("Second sentence:"));
    m_second.reset(); // the second run belongs to one mode
    rebuildSelectors();
    runSecond();
    rebuildPanes();
    Q_EMIT modeChanged();
}

void ComparisonWidget::setSecondSentence(const QString& text)
{
    m_sentence->setText(text);
    runSecond();
}

QString ComparisonWidget::secondSentence() const
{
    return m_sentence->text();
}

std::vector<std::pair<int, int>> ComparisonWidget::heads() const
{
    std::vector<std::pair<int, int>> out;
    if (!m_result) return out;
    for (QComboBox* box : m_selectors) {
        const int index = std::max(0, box->currentIndex());
        out.emplace_back(index / std::max(1, m_result->analysis.heads),
                         index % std::max(1, m_result->analysis.heads));
    }
    return out;
}

std::vector<std::pair<int, int>> ComparisonWidget::pickedHeads() const
{
    const auto all = heads();
    std::vector<std::pair<int, int>> out;
    for (size_t i = 1; i < all.size() && i < m_picked.size(); ++i)
        if (m_picked[i]) out.push_back(all[i]);
    return out;
}

void ComparisonWidget::setHeads(const std::vector<std::pair<int, int>>& heads)
{
    if (!m_result) return;
    if (m_mode == Mode::SideBySide) m_count->setValue(std::clamp(int(heads.size()), 2, 4));
    for (size_t i = 0; i < heads.size() && i < m_selectors.size(); ++i) {
        const QSignalBlocker blocker(m_selectors[i]);
        m_selectors[i]->setCurrentIndex(heads[i].first * m_result->analysis.heads + heads[i].second);
        m_picked[i] = true;
    }
    rebuildPanes();
}

void ComparisonWidget::setFocusHead(int layer, int head)
{
    m_focusHead = {layer, head};
    if (!m_result || m_selectors.empty() || layer < 0 || head < 0 || layer >= m_result->analysis.layers ||
        head >= m_result->analysis.heads)
        return;
    // The first pane shows the open head; the others the heads after it, until the user picks theirs.
    const int index = layer * m_result->analysis.heads + head;
    bool changed = false;
    for (size_t i = 0; i < m_selectors.size(); ++i) {
        if (i > 0 && i < m_picked.size() && m_picked[i]) continue;
        QComboBox* box = m_selectors[i];
        const int wanted = (index + int(i)) % std::max(1, box->count());
        if (box->currentIndex() == wanted) continue;
        const QSignalBlocker blocker(box);
        box->setCurrentIndex(wanted);
        changed = true;
    }
    if (changed) rebuildWhenVisible();
}

void ComparisonWidget::rebuildSelectors()
{
    const auto previous = m_keepSelection ? heads() : std::vector<std::pair<int, int>>{};
    // Out of the layout at once: a deleteLater'd widget still in it would widen the window meanwhile.
    for (QComboBox* box : m_selectors) {
        m_selectorRow->removeWidget(box);
        box->hide();
        box->deleteLater();
    }
    m_selectors.clear();
    if (!m_keepSelection) m_picked.clear();
    if (!m_result) return;
    const int count = m_mode == Mode::SideBySide ? m_count->value() : m_mode == Mode::Difference ? 2 : 1;
    for (int i = 0; i < count; ++i) {
        auto* box = new QComboBox(this);
        for (int l = 0; l < m_result->analysis.layers; ++l)
            for (int h = 0; h < m_result->analysis.heads; ++h)
                box->addItem(tr("L%1 H%2").arg(l).arg(h));
        const int focus = m_focusHead.first * m_result->analysis.heads + m_focusHead.second;
        const int fallback = (std::clamp(focus, 0, box->count() - 1) + i) % box->count();
        const int index = size_t(i) < previous.size() ? previous[size_t(i)].first * m_result->analysis.heads +
                                                            previous[size_t(i)].second
                                                      : fallback;
        box->setCurrentIndex(std::clamp(index, 0, box->count() - 1));
        connect(box, qOverload<int>(&QComboBox::currentIndexChanged), this, &ComparisonWidget::rebuildPanes);
        connect(box, qOverload<int>(&QComboBox::activated), this, [this, i] { m_picked[size_t(i)] = true; });
        m_selectorRow->addWidget(box);
        m_selectors.push_back(box);
    }
    m_picked.resize(m_selectors.size(), false);
}

HeatmapWidget* ComparisonWidget::addPane()
{
    auto* pane = new HeatmapWidget(this);
    pane->installEventFilter(this); // a resize refits every pane to one cell size
    m_panes.push_back(pane);
    placePanes();
    return pane;
}

std::pair<int, int> ComparisonWidget::paneGridShape(int count, QSizeF area)
{
    if (count <= 1) return {1, 1};
    std::pair<int, int> best{1, count};
    double bestSide = -1;
    for (int rows = 1; rows <= count; ++rows) {
        const int cols = (count + rows - 1) / rows;
        const double side = std::min(area.width() / cols, area.height() / rows);
        if (side > bestSide + 1e-9) {
            bestSide = side;
            best = {rows, cols};
        }
    }
    return best;
}

void ComparisonWidget::placePanes()
{
    // The pane area: what the grid layout has now, else the widget less the controls above it.
    QSizeF area = m_paneScroll->viewport()->size();
    if (area.isEmpty()) area = QSizeF(width(), std::max(1, height() - 90));
    const auto [rows, cols] = paneGridShape(int(m_panes.size()), area);
    for (HeatmapWidget* pane : m_panes)
        m_paneGrid->removeWidget(pane);
    for (int r = 0; r < m_paneGrid->rowCount(); ++r)
        m_paneGrid->setRowStretch(r, 0);
    for (int c = 0; c < m_paneGrid->columnCount(); ++c)
        m_paneGrid->setColumnStretch(c, 0);
    for (size_t i = 0; i < m_panes.size(); ++i)
        m_paneGrid->addWidget(m_panes[i], int(i) / cols, int(i) % cols);
    for (int r = 0; r < rows; ++r)
        m_paneGrid->setRowStretch(r, 1);
    for (int c = 0; c < cols; ++c)
        m_paneGrid->setColumnStretch(c, 1);
    updatePaneMinimumWidths();
}

void ComparisonWidget::equalizeCellSizes()
{
    // Each pane's cells as large as its own room allows (the pane with the colour bar, or longer labels,
    // has less), then every pane at the smallest of those: two heads are compared by eye at one cell size.
    double smallest = 0;
    for (const HeatmapWidget* pane : m_panes) {
        if (pane->width() <= 16 || pane->height() <= 16 || pane->data().rows <= 0) continue;
        HeatmapStyle own = pane->heatmapStyle();
        own.maximumCellPixels = 0;
        const double cell = HeatmapPainter(pane->data(), own)
                                .layout(QRectF(pane->rect()).adjusted(8, 8, -8, -8), pane->font(), pane)
                                .cellWidth();
        smallest = smallest > 0 ? std::min(smallest, cell) : cell;
    }
    for (HeatmapWidget* pane : m_panes) {
        if (pane->heatmapStyle().maximumCellPixels == smallest) continue;
        HeatmapStyle style = pane->heatmapStyle();
        style.maximumCellPixels = smallest;
        pane->setStyle(style);
    }
}

bool ComparisonWidget::eventFilter(QObject* watched, QEvent* event)
{
    if (event->type() == QEvent::Resize)
        for (HeatmapWidget* pane : m_panes)
            if (pane == watched) {
                equalizeCellSizes();
                break;
            }
    return QWidget::eventFilter(watched, event);
}

void ComparisonWidget::updatePaneMinimumWidths()
{
    int rows = 0;
    for (HeatmapWidget* pane : m_panes) {
        const int index = m_paneGrid->indexOf(pane);
        if (index < 0) continue;
        int row, col, rowSpan, colSpan;
        m_paneGrid->getItemPosition(index, &row, &col, &rowSpan, &colSpan);
        rows = std::max(rows, row + 1);
    }
    if (rows == 0) return;
    // The height each pane gets; with the sideways scroll bar shown (the panes may need it), a little less.
    const int scrollBar = m_paneScroll->horizontalScrollBar()->sizeHint().height();
    const double viewport =
        std::max(1, m_paneScroll->viewport()->height() +
                        (m_paneScroll->horizontalScrollBar()->isVisible() ? 0 : -scrollBar));
    const double paneHeight = (viewport - m_paneGrid->spacing() * (rows - 1)) / rows;
    for (HeatmapWidget* pane : m_panes) {
        // The pane paints into its rectangle less 8 px on each side (HeatmapWidget::relayout).
        HeatmapStyle own = pane->heatmapStyle();
        own.maximumCellPixels = 0; // the room this pane needs itself, not the one it shares
        const double needed = pane->isTiled()
                                  ? 0.0
                                  : HeatmapPainter(pane->data(), own)
                                        .minimumWidthForEveryLabel(paneHeight - 16, pane->font(), pane, 4000);
        // Three panes (difference, two sentences, two models) are no smaller than two side by side: each
        // at least wide enough for a kFullSizeMatrix matrix; the pane area scrolls sideways when the tab is
        // narrower than that.
        const double fullSize =
            m_mode == Mode::SideBySide || pane->isTiled()
                ? 0.0
                : HeatmapPainter(pane->data(), own)
                      .minimumWidthForMatrix(kFullSizeMatrix, paneHeight - 16, pane->font(), pane, 4000);
        const double widest = std::max(needed, fullSize);
        pane->setMinimumWidth(widest > 0 ? int(std::ceil(widest)) + 16 : 0);
    }
}

void ComparisonWidget::resizeEvent(QResizeEvent* event)
{
    QWidget::resizeEvent(event);
    if (!m_panes.empty()) {
        const auto shape = paneGridShape(int(m_panes.size()), m_paneScroll->viewport()->size());
        int rows = 0;
        for (HeatmapWidget* pane : m_panes) {
            int row, col, rowSpan, colSpan;
            const int index = m_paneGrid->indexOf(pane);
            if (index >= 0) {
                m_paneGrid->getItemPosition(index, &row, &col, &rowSpan, &colSpan);
                rows = std::max(rows, row + 1);
            }
        }
        if (rows != shape.first)
            placePanes();
        else
            updatePaneMinimumWidths();
    }
}

void ComparisonWidget::runSecond()
{
    if (!m_result) return;
    AnalysisOptions options;
    options.threads = explorerWorkerThreads();
    if (m_mode == Mode::TwoSentences && m_engine)
        m_secondRunner->start(m_engine, m_sentence->text(), std::nullopt, options, {}, m_result->run.measure);
    else if (m_mode == Mode::TwoModels && m_secondEngine)
        m_secondRunner->start(m_secondEngine, m_result->textA,
                              m_secondEngine->supportsTextB() ? m_result->textB : std::nullopt, options, {},
                              m_result->run.measure);
}

QRectF ComparisonWidget::pageTitleRect(const QPaintDevice* device, const QRectF& area)
{
    return comparisonPageTitleRect(device, area);
}

std::vector<ComparisonWidget::PagePane> ComparisonWidget::pageLayout(const QPaintDevice* device,
                                                                     const QRectF& area) const
{
    return comparisonPageLayout(m_panes, device, area);
}

QSize ComparisonWidget::exportPageSize(QSize page) const
{
    return comparisonExportPageSize(m_panes, page);
}

void ComparisonWidget::paintPanes(QPainter& painter, const QRectF& area) const
{
    const QString title = m_result ? tr("%1 · %2").arg(m_modeBox->currentText(), m_result->modelName) +
                                         QStringLiteral(" · ") + measureName(m_result->run.measure)
                                   : m_modeBox->currentText();
    paintComparisonPage(painter, area, m_panes, this, title, tr("No comparison shown"));
}

// One head of two runs side by side with their tokens aligned, and their difference.
void ComparisonWidget::showAligned(const ExplorerResult& first, const ExplorerResult& second, int layer,
                                   int head, const QString& firstTitle, const QString& secondTitle,
                                   const QString& differenceTitle)
{
    const int n = first.run.maps->queries();
    auto styleFor = [this](const HeatmapData& d) {
        HeatmapStyle s = m_style;
        s.showValues = s.showValues && d.rows <= 12;
        return s;
    };
    const auto pairs = alignTokens(first.run.labels, second.run.labels);
    std::vector<bool> specialFirst(size_t(first.run.labels.size()));
    for (int i = 0; i < first.run.labels.size(); ++i)
        specialFirst[size_t(i)] = first.run.roles.isSpecial(i);
    AlignedHeatmaps aligned = alignHeatmaps(headHeatmap(first, layer, head), first.run.labels, specialFirst,
                                            headHeatmap(second, layer, head), second.run.labels, pairs);
    const int m = int(pairs.size());
    HeatmapData &alignedA = aligned.first, &alignedB = aligned.second, &diff = aligned.difference;
    alignedA.title = firstTitle;
    alignedB.title = secondTitle;
    m_differenceRange = aligned.differenceRange;
    diff.title = tr("%1 · max |Δ| %2").arg(differenceTitle, formatShort(double(m_differenceRange)));
    if (m < n || m < second.run.maps->queries())
        m_note->setText(tr("%1 aligned tokens shown; tokens without a partner are left out.").arg(m));
    for (HeatmapData* d : {&alignedA, &alignedB, &diff}) {
        HeatmapWidget* pane = addPane();
        pane->setStyle(styleFor(*d));
        pane->setData(*d);
    }
}

void ComparisonWidget::rebuildPanes()
{
    m_dirty = false;
    for (HeatmapWidget* pane : m_panes) {
        m_paneGrid->removeWidget(pane);
        pane->hide();
        pane->deleteLater();
    }
    m_panes.clear();
    m_note->clear();
    m_differenceRange = 0;
    if (!m_result || !m_result->run.maps) return;
    const auto selected = heads();
    const int n = m_result->run.maps->queries();
    auto styleFor = [this](const HeatmapData& d) {
        HeatmapStyle s = m_style;
        s.showValues = s.showValues && d.rows <= 12;
        return s;
    };
    if (m_mode == Mode::SideBySide) {
        for (const auto& [layer, head] : selected) {
            HeatmapWidget* pane = addPane();
            pane->setStyle(m_style);
            showHead(*pane, m_result, layer, head);
            if (!pane->isTiled()) {
                HeatmapData d = pane->data();
                d.title = shortTitle(*m_result, layer, head);
                pane->setData(d);
            }
        }
    } else if (m_mode == Mode::Difference) {
        if (n > kDenseHeatmapLimit || selected.size() < 2) {
            m_note->setText(tr("The difference view needs at most %1 tokens.").arg(kDenseHeatmapLimit));
            return;
        }
        HeatmapData a = headHeatmap(*m_result, selected[0].first, selected[0].second);
        HeatmapData b = headHeatmap(*m_result, selected[1].first, selected[1].second);
        a.title = shortTitle(*m_result, selected[0].first, selected[0].second);
        b.title = shortTitle(*m_result, selected[1].first, selected[1].second);
        HeatmapData diff = heatmapDifference(a, b, &m_differenceRange);
        m_note->setText(tr("Red: the first head attends more; blue: the second."));
        diff.title = tr("L%1 H%2 − L%3 H%4 · max |Δ| %5")
                         .arg(selected[0].first)
                         .arg(selected[0].second)
                         .arg(selected[1].first)
                         .arg(selected[1].second)
                         .arg(formatShort(double(m_differenceRange)));
        for (HeatmapData* d : {&a, &b, &diff}) {
            HeatmapWidget* pane = addPane();
            pane->setStyle(styleFor(*d));
            pane->setData(*d);
        }
    } else if (m_mode == Mode::TwoSentences) {
        if (!m_second || !m_second->run.maps) {
            m_note->setText(tr("Computing the second sentence…"));
            return;
        }
        const auto [layer, head] = selected.empty() ? std::make_pair(0, 0) : selected.front();
        if (n > kDenseHeatmapLimit || m_second->run.maps->queries() > kDenseHeatmapLimit ||
            layer >= m_second->run.maps->layers() || head >= m_second->run.maps->heads()) {
            m_note->setText(
                tr("Both sentences must be at most %1 tokens, on the same model.").arg(kDenseHeatmapLimit));
            return;
        }
        showAligned(*m_result, *m_second, layer, head, tr("L%1 H%2 · sentence 1").arg(layer).arg(head),
                    tr("L%1 H%2 · sentence 2").arg(layer).arg(head), tr("sentence 1 − sentence 2"));
    } else {
        if (!m_secondEngineError.isEmpty()) {
            m_note->setText(m_secondEngineError);
            return;
        }
        if (!m_secondEngine) {
            m_note->setText(tr("Pick the second model (e.g. the quantized file of the same model)."));
            return;
        }
        if (!m_second || !m_second->run.maps) {
            m_note->setText(tr("Computing the second model…"));
            return;
        }
        const auto [layer, head] = selected.empty() ? std::make_pair(0, 0) : selected.front();
        if (n > kDenseHeatmapLimit || m_second->run.maps->queries() > kDenseHeatmapLimit) {
            m_note->setText(tr("Both models' inputs must be at most %1 tokens.").arg(kDenseHeatmapLimit));
            return;
        }
        if (layer >= m_second->run.maps->layers() || head >= m_second->run.maps->heads()) {
            m_note->setText(tr("%1 has no layer %2 head %3 (it has %4 layers × %5 heads).")
                                .arg(m_second->modelName)
                                .arg(layer)
                                .arg(head)
                                .arg(m_second->run.maps->layers())
                                .arg(m_second->run.maps->heads()));
            return;
        }
        showAligned(
            *m_result, *m_second, layer, head,
            tr("L%1 H%2 · %3").arg(layer).arg(head).arg(m_result->modelName.section(QLatin1Char('/'), -1)),
            tr("L%1 H%2 · %3").arg(layer).arg(head).arg(m_second->modelName.section(QLatin1Char('/'), -1)),
            tr("first − second model"));
    }
    applyPaneStyles();
    // Synced hover and zoom: panes share cell coordinates (aligned tokens share indices).
    for (HeatmapWidget* from : m_panes)
        for (HeatmapWidget* to : m_panes)
            if (from != to) {
                connect(from, &HeatmapWidget::hoveredCellChanged, to, &HeatmapWidget::setHoverCell);
                connect(from, &HeatmapWidget::viewChanged, to, &HeatmapWidget::setView);
            }
}

} // namespace attnscope
