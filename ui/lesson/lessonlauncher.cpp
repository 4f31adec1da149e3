#include "lesson/lessonlauncher.h"

#include "analysis/sinkverdict.h"
#include "explorer/explorerresult.h"
#include "explorer/guidedmodellist.h"
#include "explorer/transformerengine.h"
#include "lesson/kvcachepanel.h"
#include "lesson/lessontokenwindowbar.h"
#include "lesson/lessonview.h"
#include "lesson/lessonwindow.h"
#include "model/attentioncapture.h"
#include "model/transformermodel.h"

#include <QAction>
#include <QEvent>
#include <QLocale>
#include <QMainWindow>
#include <QMenu>
#include <QToolBar>
#include <algorithm>

namespace attnscope {

namespace {
// The largest first-token mass of the model a lesson window came from, when the head statistics show no
// sink (the same verdict and threshold as the explorer's "Find sink / no-op heads" and the Streaming tab's
// guided-list pointer); absent otherwise.
const char* const kNoSinkMassProperty = "attnscopeNoSinkMass";
} // namespace

LessonLauncher::LessonLauncher(QMainWindow* window, QMenu* menu, QAction* openHeadAction)
    : QObject(window), m_window(window), m_menu(menu), m_openHead(openHeadAction)
{
    m_workedExample = m_menu->addAction(QString(), this, [this] { openWorkedExample(); });
    m_workedExample->setObjectName(QStringLiteral("lessonWorkedExampleAction"));
    m_menu->addAction(m_openHead);
    m_menu->installEventFilter(this);
    retranslate();
}

bool LessonLauncher::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_menu && event->type() == QEvent::LanguageChange) retranslate();
    return QObject::eventFilter(watched, event);
}

void LessonLauncher::retranslate()
{
    m_menu->setTitle(tr("Less&on"));
    m_workedExample->setText(tr("Worked example (kedi mindere oturdu)"));
    m_workedExample->setToolTip(
        tr("The classroom example: three tokens, Q, K and V of four numbers each, every "
           "step by hand"));
    if (m_window)
        for (LessonWindow* window : m_window->findChildren<LessonWindow*>(Qt::FindDirectChildrenOnly))
            if (const QVariant mass = window->property(kNoSinkMassProperty); mass.isValid())
                window->view()->setModelNote(noSinkNote(mass.toDouble()));
    m_openHead->setText(tr("Open in lesson"));
    m_openHead->setToolTip(
        tr("Show this head's real Q, K and V for %1 consecutive tokens step by step in the lesson (on a "
           "longer input, the first ones; a bar above the lesson moves the window)")
            .arg(LessonModel::kMaxHeadTokens));
}

void LessonLauncher::setLoadedEngine(const AttentionEngine& engine)
{
    const auto* transformer = dynamic_cast<const TransformerEngine*>(&engine);
    if (!transformer || !transformer->model().config().isDecoder())
        setLoadedModel(std::nullopt);
    else
        setLoadedModel(kvCacheShape(transformer->model().config(), engine.displayName()));
}

void LessonLauncher::setLoadedModel(std::optional<KvCacheShape> shape)
{
    m_loadedModel = std::move(shape);
    if (!m_window) return;
    const QList<LessonWindow*> windows = m_window->findChildren<LessonWindow*>(Qt::FindDirectChildrenOnly);
    for (LessonWindow* window : windows)
        window->view()->kvCachePanel()->setLoadedModel(m_loadedModel);
}

QString LessonLauncher::noSinkNote(double largestSinkMass)
{
    return tr("This model is too small to have attention sinks: no head puts %1 or more of its attention on "
              "the first token (at most %2). For sinks and the StreamingLLM experiment, get %3 in the Get a "
              "model tab.")
        .arg(QLocale().toString(LabelThresholds().sink, 'f', 2), QLocale().toString(largestSinkMass, 'f', 2),
             guidedStreamingDecoder());
}

LessonWindow* LessonLauncher::newWindow()
{
    auto* window = new LessonWindow(m_window);
    window->setAttribute(Qt::WA_DeleteOnClose);
    window->view()->kvCachePanel()->setLoadedModel(m_loadedModel);
    return window;
}

LessonWindow* LessonLauncher::openWorkedExample()
{
    LessonWindow* window = newWindow();
    window->setWindowTitle(tr("Lesson — worked example: kedi mindere oturdu"));
    window->show();
    return window;
}

QString LessonLauncher::windowMessage(int first, int count, int total, bool causal)
{
    // A causal prefix is the head's own attention; any other window renormalises each row over its keys.
    const QString kept =
        tr("The lesson keeps tokens %1–%2 of %3").arg(first + 1).arg(first + count).arg(total);
    return (causal && first == 0 ? tr("%1 (under the causal mask exactly the head's attention); choose "
                                      "another window above the lesson")
                                 : tr("%1; its softmax runs over those keys only; choose another window "
                                      "above the lesson"))
        .arg(kept);
}

void LessonLauncher::addTokenWindow(LessonWindow* window, const ExplorerResult& result, int layer, int head,
                                    int first, int count)
{
    const AttentionCapture& capture = *result.run.capture;
    const size_t at = size_t(layer);
    auto* bar = new LessonTokenWindowBar;
    const int total = capture.tokens();
    bar->setWindow(first, count, total);
    QToolBar* toolBar = window->addToolBar(QString());
    toolBar->setObjectName(QStringLiteral("lessonTokenWindowBar"));
    toolBar->setMovable(false);
    toolBar->addWidget(bar);
    // The window keeps this layer's Q, K and V (a few kB per token) to reopen the head on another range.
    connect(
        bar, &LessonTokenWindowBar::firstChosen, window,
        [view = window->view(), bar, q = capture.queries.at(at), k = capture.keys.at(at),
         v = capture.values.at(at), labels = result.run.labels, scale = capture.scales.at(at),
         causal = capture.causal, head, count, total](int chosen) {
            const int start = std::clamp(chosen, 0, total - count);
            QString error;
            if (view->openHead(q, k, v, head, start, count, labels.mid(start, count), scale, causal, &error))
                bar->setWindow(start, count, total);
        });
}

LessonWindow* LessonLauncher::openHead(const ExplorerResult* result, int layer, int head, QString* message,
                                       int firstToken)
{
    message->clear();
    if (!result || !result->run.capture) {
        *message =
            tr("Open in lesson needs a model with Q, K and V (not a synthetic demo) and an input of at most "
               "%1 tokens")
                .arg(TransformerEngine::kQueryKeyLimit);
        return nullptr;
    }
    const AttentionCapture& capture = *result->run.capture;
    if (layer < 0 || size_t(layer) >= capture.queries.size()) {
        *message = tr("Layer %1 has no Q, K and V in this run").arg(layer);
        return nullptr;
    }
    const int n = capture.tokens();
    const int count = std::min(n, int(LessonModel::kMaxHeadTokens));
    firstToken = std::clamp(firstToken, 0, n - count);
    LessonWindow* window = newWindow();
    const size_t at = size_t(layer);
    if (!window->view()->openHead(capture.queries.at(at), capture.keys.at(at), capture.values.at(at), head,
                                  firstToken, count, result->run.labels.mid(firstToken, count),
                                  capture.scales.at(at), capture.causal, message)) {
        delete window;
        return nullptr;
    }
    if (n > count) addTokenWindow(window, *result, layer, head, firstToken, count);
    window->setWindowTitle(tr("Lesson — layer %1, head %2").arg(layer).arg(head));
    if (const HeadSinkEvidence sinks = headSinkVerdict(result->analysis.stats);
        sinks.verdict == SinkVerdict::NoSinks) {
        window->setProperty(kNoSinkMassProperty, sinks.largestSinkMass);
        window->view()->setModelNote(noSinkNote(sinks.largestSinkMass));
    }
    if (n > count) *message = windowMessage(firstToken, count, n, capture.causal);
    window->show();
    return window;
}

} // namespace attnscope
