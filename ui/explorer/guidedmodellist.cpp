#include "explorer/guidedmodellist.h"

#include "i18n/languagemanager.h"
#include "model/memoryestimate.h"
#include "model/modelerror.h"

#include <QEvent>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace attnscope {

namespace {

QVector<GuidedModel> shippedOrEmpty(QString* error)
{
    try {
        return GuidedModelCatalog::shipped();
    } catch (const ModelError& e) {
        *error = e.message();
        return {};
    }
}

} // namespace

GuidedModelList::GuidedModelList(QWidget* parent) : QWidget(parent)
{
    m_models = shippedOrEmpty(&m_loadError);
    build();
}

GuidedModelList::GuidedModelList(QVector<GuidedModel> models, QWidget* parent)
    : QWidget(parent), m_models(std::move(models))
{
    build();
}

void GuidedModelList::build()
{
    setObjectName(QStringLiteral("guidedModelList"));
    auto* outer = new QVBoxLayout(this);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("guidedTitle"));
    QFont titleFont = m_title->font();
    titleFont.setBold(true);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.2);
    m_title->setFont(titleFont);
    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    outer->addWidget(m_title);
    outer->addWidget(m_intro);

    auto* scroll = new QScrollArea(this);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    auto* page = new QWidget(scroll);
    auto* rows = new QVBoxLayout(page);
    for (int i = 0; i < m_models.size(); ++i) {
        auto* row = new QFrame(page);
        row->setFrameShape(QFrame::StyledPanel);
        auto* layout = new QHBoxLayout(row);
        auto* text = new QLabel(row);
        text->setWordWrap(true);
        text->setTextFormat(Qt::RichText);
        text->setTextInteractionFlags(Qt::TextSelectableByMouse);
        auto* button = new QPushButton(row);
        button->setObjectName(QStringLiteral("guidedDownload-") + m_models[i].id);
        layout->addWidget(text, 1);
        layout->addWidget(button, 0, Qt::AlignTop);
        rows->addWidget(row);
        m_rows << text;
        m_buttons << button;
        connect(button, &QPushButton::clicked, this, [this, i] {
            const GuidedModel& m = m_models[i];
            m_command->setText(m.downloadCommand());
            m_command->setVisible(true);
            m_commandLabel->setVisible(true);
            m_command->selectAll();
            m_command->setFocus();
            Q_EMIT downloadRequested(m.repo, m.file);
        });
    }
    rows->addStretch(1);
    scroll->setWidget(page);
    outer->addWidget(scroll, 1);

    m_commandLabel = new QLabel(this);
    m_command = new QLineEdit(this);
    m_command->setObjectName(QStringLiteral("guidedCommand"));
    m_command->setReadOnly(true);
    m_commandLabel->setVisible(false);
    m_command->setVisible(false);
    outer->addWidget(m_commandLabel);
    outer->addWidget(m_command);
    retranslate();
}

void GuidedModelList::retranslate()
{
    m_title->setText(tr("Models that show it"));
    m_intro->setText(
        m_loadError.isEmpty()
            ? tr("The built-in models are toys: too small to show attention sinks or real head roles. "
                 "Each model below shows a phenomenon from the literature; download one and open it "
                 "from the model list.")
            : m_loadError);
    m_commandLabel->setText(tr("Until the download window arrives, run this in a terminal:"));
    const QString language = LanguageManager::shared()->language();
    const QLocale locale;
    for (int i = 0; i < m_models.size(); ++i) {
        const GuidedModel& m = m_models[i];
        const QString name = m.file.isEmpty() ? m.repo : m.repo + QStringLiteral(" · ") + m.file;
        QStringList facts;
        facts << tr("download %1")
                     .arg(formatBytes(m.downloadBytes(), locale) +
                          (m.sizeEstimated ? tr(" (estimated from the config)") : QString()));
        facts << tr("needs ≈ %1 at %2 tokens")
                     .arg(formatBytes(m.memoryBytes, locale))
                     .arg(planningTokens(m.shape));
        facts << tr("licence: %1").arg(m.licence);
        if (m.gated) facts << tr("gated: accept the licence on the Hub, then set HF_TOKEN");
        m_rows[i]->setText(QStringLiteral("<b>%1</b><br>%2<br><small><i>%3</i></small><br><small>%4</small>")
                               .arg(name.toHtmlEscaped(), m.shows(language).toHtmlEscaped(),
                                    m.source.toHtmlEscaped(),
                                    facts.join(QStringLiteral(" · ")).toHtmlEscaped()));
        m_buttons[i]->setText(tr("Download"));
        m_buttons[i]->setToolTip(m.downloadCommand());
    }
}

void GuidedModelList::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QWidget::changeEvent(event);
}

QPushButton* GuidedModelList::downloadButton(int index) const
{
    return index >= 0 && index < m_buttons.size() ? m_buttons[index] : nullptr;
}

QString GuidedModelList::rowText(int index) const
{
    return index >= 0 && index < m_rows.size() ? m_rows[index]->text() : QString();
}

QString GuidedModelList::commandText() const
{
    return m_command->text();
}

int GuidedModelList::indexOf(const QString& id) const
{
    for (int i = 0; i < m_models.size(); ++i)
        if (m_models[i].id == id) return i;
    return -1;
}

QString guidedStreamingDecoder()
{
    return guidedModelRepo(GuidedModelCatalog::streamingDecoderId());
}

QString guidedModelRepo(const QString& id)
{
    QString error;
    for (const GuidedModel& m : shippedOrEmpty(&error))
        if (m.id == id) return m.repo;
    return QString();
}

} // namespace attnscope
