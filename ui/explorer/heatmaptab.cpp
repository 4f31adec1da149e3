#include "explorer/heatmaptab.h"

#include "explorer/headheatmap.h"
#include "explorer/heatmapwidget.h"
#include "explorer/heatmapzoom.h"
#include "explorer/retranslation.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>
#include <QVBoxLayout>

namespace attnscope {

HeatmapTab::HeatmapTab(QAction* openInLesson, QWidget* parent)
    : QWidget(parent), m_retranslation(new Retranslation(this))
{
    auto* layout = new QVBoxLayout(this);
    auto* controls = new QHBoxLayout; // in m_controls
    m_colorMapBox = new QComboBox(this);
    for (ColorMapKind kind :
         {ColorMapKind::Viridis, ColorMapKind::Magma, ColorMapKind::Cividis, ColorMapKind::Greys})
        m_colorMapBox->addItem(QString(), int(kind));
    m_scaleBox = new QComboBox(this);
    for (HeatmapScale scale : {HeatmapScale::Absolute, HeatmapScale::RowMax, HeatmapScale::Log})
        m_scaleBox->addItem(QString(), int(scale));
    m_discount = new QCheckBox(this);
    m_wordLevel = new QCheckBox(this);
    m_wordLevel->setObjectName(QStringLiteral("wordLevel"));
    auto* fit = new QToolButton(this);
    auto* coloursLabel = new QLabel(this);
    auto* scaleLabel = new QLabel(this);
    auto* lessonButton = new QToolButton(this);
    lessonButton->setDefaultAction(openInLesson); // its text and tooltip: LessonLauncher
    m_retranslation->add([this, fit, coloursLabel, scaleLabel] {
        m_colorMapBox->setItemText(0, tr("viridis"));
        m_colorMapBox->setItemText(1, tr("magma"));
        m_colorMapBox->setItemText(2, tr("cividis"));
        m_colorMapBox->setItemText(3, tr("greys"));
        m_scaleBox->setItemText(0, tr("absolute 0–1"));
        m_scaleBox->setItemText(1, tr("per-row max"));
        m_scaleBox->setItemText(2, tr("log"));
        m_discount->setText(tr("Discount special tokens"));
        m_wordLevel->setText(tr("Words"));
        updateWordLevelControl();
        m_discount->setToolTip(tr("Renormalise each row without [CLS], [SEP] and BOS, as exBERT does"));
        fit->setText(tr("Fit"));
        coloursLabel->setText(tr("Colours:"));
        scaleLabel->setText(tr("Scale:"));
    });
    controls->addWidget(coloursLabel);
    controls->addWidget(m_colorMapBox);
    controls->addWidget(scaleLabel);
    controls->addWidget(m_scaleBox);
    controls->addWidget(m_discount);
    controls->addWidget(m_wordLevel);
    controls->addWidget(fit);
    controls->addWidget(lessonButton);
    controls->addStretch();
    m_controls = new QWidget(this);
    controls->setContentsMargins(0, 0, 0, 0);
    m_controls->setLayout(controls);
    layout->addWidget(m_controls);
    m_heatmap = new HeatmapWidget(this);
    // A long input's overview, with the readable zoom window beside it (hidden for short inputs).
    auto* views = new QHBoxLayout;
    views->addWidget(m_heatmap, 1);
    m_zoom = new HeatmapZoomWindow(this);
    views->addWidget(m_zoom, 1);
    layout->addLayout(views, 1);
    connect(m_heatmap, &HeatmapWidget::hoveredCellChanged, m_zoom, [this](int row, int col) {
        if (row >= 0 && col >= 0) m_zoom->centerOn(row, col);
    });
    m_readout = new QLabel(this);
    m_readout->setObjectName(QStringLiteral("heatmapReadout"));
    m_readout->setTextFormat(Qt::PlainText);
    m_readout->setMinimumHeight(m_readout->fontMetrics().height() + 4);
    QFont readoutFont = m_readout->font();
    readoutFont.setBold(true);
    m_readout->setFont(readoutFont);
    layout->addWidget(m_readout);
    connect(m_colorMapBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &HeatmapTab::styleChosen);
    connect(m_scaleBox, qOverload<int>(&QComboBox::currentIndexChanged), this, &HeatmapTab::styleChosen);
    connect(m_discount, &QCheckBox::toggled, m_heatmap, &HeatmapWidget::setDiscountSpecial);
    connect(m_wordLevel, &QCheckBox::toggled, this, &HeatmapTab::wordLevelToggled);
    connect(fit, &QToolButton::clicked, m_heatmap, &HeatmapWidget::fitToView);
    connect(m_heatmap, &HeatmapWidget::hoverChanged, m_readout, &QLabel::setText);
}

HeatmapStyle HeatmapTab::chosenStyle() const
{
    HeatmapStyle style;
    style.colorMap = ColorMapKind(m_colorMapBox->currentData().toInt());
    style.scale = HeatmapScale(m_scaleBox->currentData().toInt());
    style.fontPointSize = 9;
    return style;
}

void HeatmapTab::setControlsVisible(bool visible)
{
    m_controls->setVisible(visible);
    m_readout->setVisible(visible);
    // Presenter mode: no margin under the heatmap either (the matrix runs down to the presenter's strip).
    if (!visible && !m_savedMargins) m_savedMargins = layout()->contentsMargins();
    if (m_savedMargins) layout()->setContentsMargins(visible ? *m_savedMargins : QMargins());
}

bool HeatmapTab::wordLevel() const
{
    return m_wordLevel->isChecked();
}

void HeatmapTab::setTokenCount(int tokens)
{
    m_tokens = tokens;
    updateWordLevelControl();
}

void HeatmapTab::updateWordLevelControl()
{
    const bool available = m_tokens <= kDenseHeatmapLimit;
    m_wordLevel->setEnabled(available);
    m_wordLevel->setToolTip(available
                                ? tr("Merge subword pieces into words (Clark et al. 2019): attention to a "
                                     "word is the sum over its pieces, from a word the mean")
                                : tr("The Words view needs at most %1 tokens; this input has %2.")
                                      .arg(kDenseHeatmapLimit)
                                      .arg(m_tokens));
}

} // namespace attnscope
