#include "mainwindowhost.h"

#include "explorer/headgridwidget.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "presenter/presentermode.h"

#include <QPlainTextEdit>
#include <QTabWidget>

namespace attnscope {

MainWindowHost::MainWindowHost(LanguageManager* language, QObject* parent)
    : QObject(parent), m_language(language), m_window(new MainWindow)
{
    m_window->setAttribute(Qt::WA_DeleteOnClose);
    connect(m_language, &LanguageManager::languageChanged, this, &MainWindowHost::rebuild);
}

MainWindowHost::~MainWindowHost()
{
    delete m_window;
}

void MainWindowHost::show()
{
    if (m_window)
        m_window->show();
}

void MainWindowHost::rebuild()
{
    MainWindow* old = m_window;
    if (!old)
        return;
    const QByteArray geometry = old->saveGeometry();
    const QByteArray state = old->saveState();
    const int engine = old->currentEngineIndex();
    const QString textA = old->textAEdit()->toPlainText();
    const QString textB = old->textB();
    const auto [layer, head] = old->grid()->selected();
    const int tab = old->tabs()->currentIndex();
    const AttentionMeasure measure = old->measure();
    const bool presenting = old->features()->presenter()->isActive();
    const bool wasVisible = old->isVisible();
    old->features()->presenter()->setActive(false);

    auto* window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    // Models opened in the old window (beyond the built-in engines every window starts with).
    const auto& engines = old->engines();
    for (size_t i = window->engines().size(); i < engines.size(); ++i)
        window->addEngine(engines[i]);
    window->restoreGeometry(geometry);
    window->restoreState(state);
    window->setMeasure(measure);
    window->selectEngine(engine);
    if (!window->textAEdit()->isReadOnly())
        window->setTexts(textA, textB);
    window->tabs()->setCurrentIndex(tab);
    // The head on screen comes back once the new window's first result is in.
    auto connection = std::make_shared<QMetaObject::Connection>();
    *connection = connect(window->runner(), &AnalysisRunner::resultReady, window, [window, layer = layer, head = head, connection] {
        QObject::disconnect(*connection);
        QMetaObject::invokeMethod(window, [window, layer, head] { window->openHead(layer, head); }, Qt::QueuedConnection);
    });
    m_window = window;
    if (wasVisible)
        window->show();
    if (presenting)
        window->features()->presenter()->setActive(true);
    old->setAttribute(Qt::WA_DeleteOnClose, false);
    old->hide();
    old->deleteLater();
    Q_EMIT windowReplaced(window);
}

} // namespace attnscope
