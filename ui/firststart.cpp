#include "firststart.h"

#include "analysis/modellimits.h"
#include "explorer/analysisrunner.h"
#include "explorer/explorersession.h"
#include "explorer/headstatsmodel.h"
#include "mainwindow.h"
#include "settings/appsettings.h"

#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <memory>

namespace attnscope {

void openStrongestHeadOnNextResult(MainWindow& window)
{
    // Both connections end at the next result or failure: a failed run must not leave a head jump waiting
    // for some later, unrelated result.
    auto connections = std::make_shared<std::pair<QMetaObject::Connection, QMetaObject::Connection>>();
    const auto done = [connections] {
        QObject::disconnect(connections->first);
        QObject::disconnect(connections->second);
    };
    MainWindow* target = &window;
    // Queued: the window shows the result (and fills its statistics) in the same signal first.
    connections->first =
        QObject::connect(window.runner(), &AnalysisRunner::resultReady, &window, [target, done] {
            done();
            QMetaObject::invokeMethod(
                target,
                [target] {
                    if (const auto best = strongestSinkOrSepHead(target->statsModel()->stats()))
                        target->openHead(best->layer, best->head);
                },
                Qt::QueuedConnection);
        });
    connections->second = QObject::connect(window.session(), &ExplorerSession::runFailed, &window, done);
}

FirstRunHint::FirstRunHint(QWidget* parent) : QFrame(parent)
{
    setObjectName(QStringLiteral("firstRunHint"));
    setFrameShape(QFrame::StyledPanel);
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 4, 4, 4);
    m_text = new QLabel(this);
    m_text->setWordWrap(true);
    m_close = new QPushButton(this);
    m_close->setObjectName(QStringLiteral("firstRunHintClose"));
    layout->addWidget(m_text, 1);
    layout->addWidget(m_close, 0, Qt::AlignVCenter);
    connect(m_close, &QPushButton::clicked, this, [this] {
        AppSettings().setFirstRunHintDismissed(true);
        hide();
        deleteLater();
    });
    retranslate();
}

QString FirstRunHint::text() const
{
    return m_text->text();
}

void FirstRunHint::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QFrame::changeEvent(event);
}

void FirstRunHint::retranslate()
{
    m_text->setText(tr("First steps: type a sentence above, click a head in the grid to open it, then "
                       "Lesson ▸ Open in lesson (Ctrl+L) to see its Q, K and V step by step."));
    m_close->setText(tr("Got it"));
    m_close->setToolTip(tr("Hide this hint for good"));
}

FirstRunHint* installFirstRunHint(MainWindow& window)
{
    if (AppSettings().firstRunHintDismissed()) return nullptr;
    auto* hint = new FirstRunHint(&window);
    window.addNotice(hint);
    return hint;
}

} // namespace attnscope
