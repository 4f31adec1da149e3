#include "explorer/statusreadouts.h"

#include "attention/attentionmaps.h"
#include "explorer/analysisrunner.h"
#include "explorer/backenddescription.h"
#include "explorer/explorerresult.h"
#include "explorer/explorersession.h"
#include "explorer/progresspanel.h"

#include <QFrame>
#include <QLabel>
#include <QLocale>
#include <QStatusBar>

namespace attnscope {

StatusReadouts::StatusReadouts(QStatusBar* bar, ProgressPanel* progress, ExplorerSession* session)
    : QObject(bar), m_session(session), m_progress(progress)
{
    m_tokens = new QLabel(bar);
    m_backend = new QLabel(bar);
    m_time = new QLabel(bar);
    m_hover = new QLabel(bar);
    m_notice = new QLabel(bar);
    m_notice->setObjectName(QStringLiteral("backendNotice"));
    m_notice->setVisible(false);
    bar->addWidget(m_hover, 1);
    bar->addPermanentWidget(m_notice);
    bar->addPermanentWidget(m_progress);
    // The read-outs are separate facts: a divider between them, or "19 tokens  backend: CPU · …" reads as one
    // phrase.
    auto addDivided = [bar](QLabel* label, const QString& name) {
        auto* divider = new QFrame(bar);
        divider->setObjectName(name + QStringLiteral("Divider"));
        divider->setFrameShape(QFrame::VLine);
        divider->setFrameShadow(QFrame::Sunken);
        bar->addPermanentWidget(divider);
        label->setObjectName(name);
        bar->addPermanentWidget(label);
    };
    bar->addPermanentWidget(m_tokens);
    addDivided(m_backend, QStringLiteral("backendLabel"));
    addDivided(m_time, QStringLiteral("timeLabel"));

    AnalysisRunner* runner = m_session->runner();
    connect(runner, &AnalysisRunner::started, this, [this] {
        m_time->setText(tr("computing…"));
        m_runClock.start();
    });
    // A pass's progress shows once it has run a moment: a quick pass never flashes a bar.
    connect(runner, &AnalysisRunner::progress, this, [this](quint64, int done, int total) {
        if (!m_session->isLoading() && m_runClock.isValid() && m_runClock.elapsed() > 250)
            m_progress->showProgress(tr("Computing: layer %1 of %2").arg(done).arg(total), done, total);
    });
    connect(m_session, &ExplorerSession::backendChanged, this, &StatusReadouts::showBackend);
    connect(m_session, &ExplorerSession::backendNoticeRaised, this, [this](const QString& message) {
        m_notice->setText(message);
        m_notice->setVisible(true);
    });
}

QString StatusReadouts::statusText() const
{
    return m_tokens->text() + QStringLiteral(" · ") + m_backend->text() + QStringLiteral(" · ") +
           m_time->text();
}

QString StatusReadouts::backendStatus() const
{
    return m_backend->text();
}

void StatusReadouts::showRun(const ExplorerResult& result)
{
    const int n = result.run.maps->queries();
    m_tokens->setText(tr("%n token(s)", nullptr, n));
    m_tokens->setToolTip(result.run.labels.join(QLatin1Char(' ')).left(2000));
    m_backend->setText(tr("backend: %1").arg(result.run.backend));
    m_time->setText(
        tr("%1 ms").arg(QLocale().toString(result.seconds * 1000, 'f', result.seconds < 0.01 ? 2 : 0)));
}

void StatusReadouts::showFailedRun()
{
    m_time->setText(tr("failed"));
    m_tokens->clear();
    m_tokens->setToolTip(QString());
}

void StatusReadouts::showNoRun()
{
    m_time->clear();
    m_tokens->clear();
    m_tokens->setToolTip(QString());
}

void StatusReadouts::setTimeText(const QString& text)
{
    m_time->setText(text);
}

void StatusReadouts::showBackend()
{
    m_notice->setText(m_session->backendNotice());
    m_notice->setVisible(!m_session->backendNotice().isEmpty());
    m_notice->setToolTip(m_session->backendNoticeDetails());
    m_backend->setText(tr("backend: %1").arg(backendDescription(*m_session->backend())));
}

} // namespace attnscope
