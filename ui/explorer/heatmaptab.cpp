#include "explorer/heatmaptab.h"

#include "explorer/headheatmap.h"
#include "explorer/heatmapwidget.h"
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
    auto* controls = new QHBoxLayout;
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
    layout->addLayout(controls);
    m_heatmap = new HeatmapWidget(this);
    layout->addWidget(m_heatmap, 1);
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
