#include "sessionkeeper.h"

#include "explorer/explorersession.h"
#include "explorer/headgridwidget.h"
#include "explorer/modelproblemtext.h"
#include "explorer/runstatebanner.h"
#include "firststart.h"
#include "mainwindow.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "settings/appsettings.h"
#include "settings/guioptions.h"

#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFileInfo>
#include <QPlainTextEdit>
#include <QTabWidget>
#include <memory>

namespace attnscope {

namespace {

QString canonical(const QString& folder)
{
    const QString path = QDir(folder).canonicalPath();
    return path.isEmpty() ? QDir(folder).absolutePath() : path;
}

} // namespace

QString explorerModelKey(const MainWindow& window, int index)
{
    if (index < 0 || index >= window.modelCount()) return {};
    const QString folder = window.modelFolder(index);
    if (folder.isEmpty()) {
        const auto engines = window.engines();
        return builtinEngineKey(engines[size_t(index)].get());
    }
    for (const ModelInfo& builtin : ModelCatalog::builtinModels())
        if (canonical(builtin.path) == canonical(folder)) return builtin.name;
    return canonical(folder);
}

bool selectExplorerModel(MainWindow& window, const QString& key, ModelProblem* problem)
{
    // The built-in engines first: their keys are not folders.
    const auto engines = window.engines();
    for (int i = 0; i < int(engines.size()); ++i)
        if (engines[size_t(i)] && !key.isEmpty() && builtinEngineKey(engines[size_t(i)].get()) == key)
            return window.selectEngine(i);
    QString folder;
    try {
        folder = ModelCatalog::resolve(key);
    } catch (const ModelError& e) {
        *problem = asModelOption(e.problem());
        return false;
    }
    int index = -1;
    for (int i = 0; i < window.modelCount() && index < 0; ++i)
        if (!window.modelFolder(i).isEmpty() && canonical(window.modelFolder(i)) == canonical(folder))
            index = i;
    if (index < 0) {
        const auto info = ModelCatalog::describe(folder);
        if (!info) {
            *problem = ModelCatalog::diagnose(folder); // which file, and what is wrong with it
            return false;
        }
        index = window.addModelFolder(folder, info->name);
    }
    if (window.selectEngine(index)) return true;
    // Core's problem when the model's files are at fault (config.json, missing or damaged weights), so that
    // the terminal's line is the CLI's and the banner the window's.
    if (const auto& opened = window.session()->selectProblem()) {
        *problem = *opened;
        return false;
    }
    // Else the window says why on its banner (the status bar no longer carries failures).
    const QString why = window.runStateBanner()->failureMessage();
    *problem = why.isEmpty() ? ModelProblem::other(QDir::toNativeSeparators(folder),
                                                   QStringLiteral("cannot open the model"))
                             : ModelProblem::other(QString(), why); // already in the window's language
    return false;
}

SavedSession currentExplorerSession(const MainWindow& window)
{
    SavedSession s;
    s.model = explorerModelKey(window, window.currentEngineIndex());
    if (!window.textAEdit()->isReadOnly()) { // fixed text (the worked example) is not the user's
        s.textA = window.textAEdit()->toPlainText();
        s.textB = window.textB();
    }
    s.view = explorerViewNames().value(window.tabs()->currentIndex());
    if (window.currentResult()) {
        const auto [layer, head] = window.grid()->selected();
        s.layer = layer;
        s.head = head;
    }
    return s;
}

bool applyExplorerSession(MainWindow& window, const SavedSession& session, ModelProblem* problem)
{
    bool ok = true;
    if (!session.model.isEmpty()) ok = selectExplorerModel(window, session.model, problem);
    // Texts for a model whose text is fixed (the worked example) are not applied when that model was asked
    // for; with no model asked for, setTexts moves to a model that takes text.
    if ((!session.textA.isEmpty() || !session.textB.isEmpty()) &&
        (!window.textAEdit()->isReadOnly() || session.model.isEmpty()))
        window.setTexts(session.textA, session.textB);
    if (const int tab = int(explorerViewNames().indexOf(session.view)); tab >= 0)
        window.tabs()->setCurrentIndex(tab);
    if (session.layer >= 0 && session.head >= 0) {
        // The head exists only once the first result of this input is in.
        auto connection = std::make_shared<QMetaObject::Connection>();
        MainWindow* target = &window;
        *connection = QObject::connect(
            window.runner(), &AnalysisRunner::resultReady, &window,
            [target, connection, layer = session.layer, head = session.head] {
                QObject::disconnect(*connection);
                QMetaObject::invokeMethod(
                    target, [target, layer, head] { target->openHead(layer, head); }, Qt::QueuedConnection);
            });
    }
    return ok;
}

bool startExplorerSession(MainWindow& window, const SavedSession& session, ModelProblem* problem)
{
    // No head remembered or asked for: open the most instructive one (issue 36), not layer 0 head 0.
    if (session.layer < 0 || session.head < 0) openStrongestHeadOnNextResult(window);
    if (applyExplorerSession(window, session, problem)) return true;
    window.showStartFailure(modelProblemText(*problem));
    return false;
}

SessionKeeper::SessionKeeper(MainWindow* window) : QObject(window), m_window(window), m_watched(window)
{
    connect(window->runner(), &AnalysisRunner::resultReady, this, &SessionKeeper::saveNow,
            Qt::QueuedConnection);
    connect(window->tabs(), &QTabWidget::currentChanged, this, &SessionKeeper::saveNow);
    connect(QCoreApplication::instance(), &QCoreApplication::aboutToQuit, this, &SessionKeeper::saveNow);
    window->installEventFilter(this);
}

void SessionKeeper::saveNow()
{
    if (!m_window || !m_window->currentResult()) return; // nothing shown yet: keep what was remembered
    AppSettings().setExplorerSession(currentExplorerSession(*m_window));
}

bool SessionKeeper::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_watched && event->type() == QEvent::Close) saveNow();
    return QObject::eventFilter(watched, event);
}

} // namespace attnscope
