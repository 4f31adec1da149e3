#include "explorer/inputbar.h"

#include "explorer/attentionengine.h"
#include "explorer/explorersession.h"
#include "explorer/modeldetails.h"
#include "explorer/modellist.h"
#include "explorer/modelpickerdelegate.h"
#include "explorer/retranslation.h"
#include "model/memoryestimate.h"
#include "model/modelinfo.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSignalBlocker>

namespace attnscope {

InputBar::InputBar(ExplorerSession* session, QWidget* parent)
    : QWidget(parent), m_session(session), m_retranslation(new Retranslation(this))
{
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    auto* modelRow = new QHBoxLayout;
    m_modelBox = new QComboBox(this);
    m_modelBox->setMinimumContentsLength(36);
    m_modelBox->setItemDelegate(new ModelPickerDelegate(m_modelBox));
    modelRow->addWidget(m_modelBox, 1);
    m_modelDetails = new QLabel(this);
    m_modelDetails->setObjectName(QStringLiteral("modelDetails"));
    modelRow->addWidget(m_modelDetails);
    connect(m_modelBox, qOverload<int>(&QComboBox::highlighted), this, &InputBar::showModelDetails);
    auto* open = new QPushButton(this);
    modelRow->addWidget(open);
    auto* modelLabel = new QLabel(this);
    form->addRow(modelLabel, modelRow);
    m_textA = new QPlainTextEdit(this);
    m_textA->setFixedHeight(m_textA->fontMetrics().lineSpacing() * 3 + 12);
    auto* textALabel = new QLabel(this);
    form->addRow(textALabel, m_textA);
    m_fixedTextNote = new QLabel(this);
    m_fixedTextNote->setObjectName(QStringLiteral("fixedTextNote"));
    m_fixedTextNote->setWordWrap(true);
    m_fixedTextNote->setVisible(false);
    form->addRow(QString(), m_fixedTextNote);
    m_textB = new QLineEdit(this);
    auto* textBLabel = new QLabel(this);
    form->addRow(textBLabel, m_textB);
    m_retranslation->add([this, open, modelLabel, textALabel, textBLabel] {
        open->setText(tr("Open folder…"));
        modelLabel->setText(tr("Model:"));
        textALabel->setText(tr("Text A:"));
        textBLabel->setText(tr("Text B:"));
        m_textA->setPlaceholderText(tr("Type a sentence…"));
        m_fixedTextNote->setText(
            tr("The worked example has its own Q, K and V for these three words, so its text "
               "cannot change. Pick a model above to type your own text, or open it in "
               "Lesson ▸ Worked example."));
        m_textB->setPlaceholderText(tr("Optional second sentence (encoders: [SEP] between A and B)"));
    });
    connect(open, &QPushButton::clicked, this, &InputBar::openFolderRequested);

    // The picker shows the session's model list, above a separator and the "Open …" entries.
    m_modelBox->insertSeparator(0);
    m_modelBox->addItem(QString());
    m_modelBox->addItem(QString());
    m_retranslation->add([this] {
        m_modelBox->setItemText(m_modelBox->count() - 2, tr("Open folder…"));
        m_modelBox->setItemText(m_modelBox->count() - 1, tr("Open GGUF file…"));
    });
    const ModelList* models = m_session->models();
    connect(models, &ModelList::rowsInserted, this, [this, models](const QModelIndex&, int first, int last) {
        for (int row = first; row <= last; ++row) {
            const QModelIndex index = models->index(row);
            m_modelBox->insertItem(row, models->data(index).toString());
            m_modelBox->setItemData(row, models->data(index, Qt::ToolTipRole), Qt::ToolTipRole);
            if (const QVariant details = models->data(index, ModelList::kDetailsRole); details.isValid())
                m_modelBox->setItemData(row, details, ModelPickerDelegate::kModelDetailsRole);
        }
    });
    connect(models, &ModelList::rowsRemoved, this, [this](const QModelIndex&, int first, int last) {
        for (int row = last; row >= first; --row)
            m_modelBox->removeItem(row);
    });
    connect(m_modelBox, qOverload<int>(&QComboBox::activated), this, [this](int index) {
        if (index < m_session->models()->count()) {
            emit modelChosen(index);
            return;
        }
        // The separator, "Open folder…" or "Open GGUF file…": the picker keeps showing the current model.
        m_modelBox->setCurrentIndex(m_session->currentIndex());
        if (index == m_modelBox->count() - 1)
            emit openGgufRequested();
        else
            emit openFolderRequested();
    });

    connect(m_textA, &QPlainTextEdit::textChanged, this,
            [this] { m_session->typeTextA(m_textA->toPlainText()); });
    connect(m_textB, &QLineEdit::textChanged, m_session, &ExplorerSession::typeTextB);
    // Texts set elsewhere (the session's own setTexts) show here; setTexts() sets them first.
    connect(m_session, &ExplorerSession::textsChanged, this, [this] {
        const QSignalBlocker a(m_textA), b(m_textB);
        if (m_textA->toPlainText() != m_session->textA()) m_textA->setPlainText(m_session->textA());
        if (m_textB->text() != m_session->textB()) m_textB->setText(m_session->textB());
    });
}

void InputBar::setTexts(const QString& textA, const QString& textB)
{
    m_session->leaveFixedText();
    {
        const QSignalBlocker a(m_textA), b(m_textB);
        m_textA->setPlainText(textA);
        m_textB->setText(textB);
    }
    m_session->setTexts(m_textA->toPlainText(), m_textB->text());
}

void InputBar::showModelDetails(int row)
{
    const ModelList* models = m_session->models();
    const ModelInfo info = models->contains(row) ? models->at(row).info : ModelInfo{};
    QString text = modelDetailsText(info);
    if (!text.isEmpty())
        if (const std::optional<qint64> available = availableMemoryBytes())
            text += tr(" · %1 available").arg(formatBytes(*available, QLocale()));
    m_modelDetails->setText(text);
}

void InputBar::showModel(int row, const AttentionEngine& engine)
{
    m_modelBox->setCurrentIndex(row);
    showModelDetails(row);
    m_textB->setEnabled(engine.supportsTextB());
    const auto fixed = engine.fixedText();
    if (fixed) {
        const QSignalBlocker blocker(m_textA);
        m_textA->setPlainText(*fixed);
    }
    // Fixed text is read-only, says why beneath, and looks disabled, so typing is not silently lost.
    m_textA->setReadOnly(fixed.has_value());
    m_textA->setToolTip(fixed ? m_fixedTextNote->text() : QString());
    m_textA->viewport()->setBackgroundRole(fixed ? QPalette::Window : QPalette::Base);
    m_fixedTextNote->setVisible(fixed.has_value());
}

} // namespace attnscope
