#include "explorerstartup.h"

#include "command.h"
#include "explorer/explorersession.h"
#include "firststart.h"
#include "hub/getmodeldialog.h"
#include "i18n/languagemanager.h"
#include "io/outputfile.h"
#include "lesson/lessonlauncher.h"
#include "lesson/lessonwindow.h"
#include "mainwindow.h"
#include "mainwindowfeatures.h"
#include "mainwindowhost.h"
#include "presenter/presentermode.h"
#include "sessionkeeper.h"
#include "settings/appsettings.h"

#include <QApplication>
#include <QBuffer>
#include <QDir>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QPlainTextEdit>
#include <QPointer>
#include <QScreen>
#include <QTabWidget>
#include <QTimer>

namespace attnscope {

namespace {

constexpr int kScreenshotTimeoutMs = 120000;
constexpr int kSettleMs = 600; // layouts, deferred repaints and the lesson's queued rebuilds

// Waits for the explorer's newest job (result or failure), then opens what --lesson asks for, lets the
// widgets settle and writes the picture.
class ExplorerScreenshot : public QObject
{
public:
    ExplorerScreenshot(MainWindow* window, const GuiOptions& options)
        : QObject(window), m_window(window), m_options(options)
    {
        connect(window->runner(), &AnalysisRunner::failed, this, [this](quint64 job, const QString& message) {
            if (job == m_window->runner()->currentJob()) m_failure = message;
        });
        m_clock.start();
        auto* poll = new QTimer(this);
        connect(poll, &QTimer::timeout, this, [this, poll] {
            if (!ready() && m_clock.elapsed() < kScreenshotTimeoutMs) return;
            poll->stop();
            if (!ready()) m_failure = QStringLiteral("no result after %1 s").arg(kScreenshotTimeoutMs / 1000);
            QTimer::singleShot(kSettleMs, this, &ExplorerScreenshot::openLesson);
        });
        poll->start(100);
    }

private:
    bool ready() const
    {
        const AnalysisRunner* runner = m_window->runner();
        if (runner->isBusy()) return false;
        const auto result = m_window->currentResult();
        return !m_failure.isEmpty() || m_window->session()->waitsForText() ||
               (result && result->job == runner->currentJob());
    }

    void openLesson()
    {
        if (m_options.lesson) {
            m_lesson = m_window->openInLessonAction()->isEnabled() ? m_window->openInLesson() : nullptr;
            if (!m_lesson) m_lesson = m_window->lessonLauncher()->openWorkedExample();
            fitToScreen(m_lesson);
        }
        QTimer::singleShot(kSettleMs, this, &ExplorerScreenshot::write);
    }

    void fitToScreen(QWidget* widget) const
    {
        if (m_options.windowSize)
            widget->resize(m_options.windowSize->first, m_options.windowSize->second);
        else if (QScreen* screen = widget->screen())
            widget->setGeometry(screen->availableGeometry());
    }

    void write()
    {
        QWidget* target = m_lesson ? static_cast<QWidget*>(m_lesson) : m_window.data();
        QImage image = target->grab().toImage();
        // --get-model: the dialog over the window, where it opens (centred on it).
        if (auto* dialog = m_window->findChild<GetModelDialog*>();
            dialog && dialog->isVisible() && !m_lesson) {
            // Without a window manager (Xvfb) the dialog has no frame: a title strip and a border say
            // where it ends.
            const QImage over = dialog->grab().toImage();
            QPainter painter(&image); // both grabs at the window's device pixel ratio: logical coordinates
            const QRect body(m_window->mapFromGlobal(dialog->geometry().topLeft()), dialog->size());
            const int strip = dialog->fontMetrics().height() + 8;
            const QRect title(body.left(), body.top() - strip, body.width(), strip);
            painter.fillRect(title, dialog->palette().color(QPalette::Highlight));
            painter.setPen(dialog->palette().color(QPalette::HighlightedText));
            painter.setFont(dialog->font());
            painter.drawText(title.adjusted(8, 0, -8, 0), Qt::AlignVCenter | Qt::AlignLeft,
                             dialog->windowTitle());
            painter.drawImage(body.topLeft(), over);
            painter.setPen(dialog->palette().color(QPalette::Dark));
            painter.drawRect(body.united(title).adjusted(0, 0, -1, -1));
        }
        // Under the output policy (io/outputfile.h): a regular file, replaced whole (the documentation's
        // screenshots are taken again and again), never a device or a FIFO.
        QByteArray png;
        QBuffer buffer(&png);
        int code = m_failure.isEmpty() ? 0 : 1;
        QString error;
        if (image.isNull() || !buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG"))
            error = QStringLiteral("%1: cannot encode the screenshot")
                        .arg(QDir::toNativeSeparators(m_options.screenshot));
        else
            writeOutputFile(m_options.screenshot, png, true, &error);
        if (!error.isEmpty()) {
            printError(error);
            code = 1;
        } else {
            const QString view = m_lesson ? QStringLiteral("lesson")
                                          : m_window->tabs()->tabText(m_window->tabs()->currentIndex());
            const QString text = m_window->textAEdit()->toPlainText().simplified();
            // Text B and the token count as the shown run has them (what was computed, not only typed).
            const auto result = m_window->currentResult();
            QString run;
            if (result && result->textB && !result->textB->isEmpty()) {
                const QString textB = result->textB->simplified();
                run += QStringLiteral(" · text B “%1”")
                           .arg(textB.size() > 80 ? textB.left(79) + QChar(0x2026) : textB);
            }
            if (result) run += QStringLiteral(" · %1 tokens").arg(result->run.tokens.size());
            printOut(QStringLiteral("%1: %2x%3 · %4 · model %5 · view %6 · text “%7”%8\n")
                         .arg(QDir::toNativeSeparators(m_options.screenshot))
                         .arg(image.width())
                         .arg(image.height())
                         .arg(target->windowTitle(),
                              explorerModelKey(*m_window, m_window->currentEngineIndex()), view,
                              text.size() > 80 ? text.left(79) + QChar(0x2026) : text, run));
        }
        if (!m_failure.isEmpty()) printError(m_failure);
        QCoreApplication::exit(code);
    }

    QPointer<MainWindow> m_window;
    GuiOptions m_options;
    QPointer<LessonWindow> m_lesson;
    QString m_failure;
    QElapsedTimer m_clock;
};

} // namespace

int runExplorer(QApplication& app, const GuiOptions& options)
{
    LanguageManager* language = LanguageManager::shared();
    if (!options.language || !language->setLanguage(*options.language))
        if (!language->setLanguage(AppSettings().language())) language->setLanguage(QString());

    // What the command line names is checked before any window exists (a window's GPU probe talks). A
    // scripted run (--screenshot) ends there; a person's start opens the window anyway, on the model it
    // has, with the failure on the banner (issue 36: a double-click must never show nothing).
    const bool scripted = !options.screenshot.isEmpty();
    ModelProblem problem;
    const bool modelRefused = options.model && !checkExplorerModel(*options.model, &problem);
    if (modelRefused) {
        printError(problem.english());
        if (scripted) return 2;
    }
    // The screenshot's path under the output policy (io/outputfile.h), as every command checks --out before
    // it computes: a missing folder, a folder, a device or a FIFO is refused now, not after the window has
    // run. An existing regular file is replaced (there is no --force: the documentation's screenshots are
    // taken again and again).
    if (!options.screenshot.isEmpty()) {
        const OutputCheck output = checkOutputPath(options.screenshot, true);
        if (output.refusal != OutputRefusal::None) {
            printError(output.error);
            return 2;
        }
    }
    if (options.model && isWorkedExampleKey(*options.model) && options.textA) {
        printError(QStringLiteral(
            "--text: the worked example's text is fixed (kedi mindere oturdu); choose another --model"));
        return 2;
    }

    MainWindowHost host(language);
    MainWindow* window = host.window();
    // The command line over the last session, field by field.
    SavedSession start = AppSettings().explorerSession();
    if (options.model) start.model = *options.model;
    if (options.textA) {
        start.textA = *options.textA;
        if (!options.model && isWorkedExampleKey(start.model))
            start.model.clear(); // a text of one's own on the last model, the worked example, needs another
    }
    if (options.textB) start.textB = *options.textB;
    // An empty --text is a choice (the "type a sentence" state), not "the remembered text".
    const bool emptyText = options.textA && options.textA->trimmed().isEmpty();
    if (emptyText) start.textA.clear();
    if (options.view) start.view = *options.view;
    if (options.head) std::tie(start.layer, start.head) = *options.head;
    if (options.measure)
        window->setMeasure(*options.measure == QLatin1String("norm") ? AttentionMeasure::Contribution
                                                                     : AttentionMeasure::Weight);
    if (scripted && options.model) {
        // As a person's start (startExplorerSession): no head named, the strongest sink or [SEP] head; but a
        // --model that cannot be opened ends the scripted run.
        if (start.layer < 0 || start.head < 0) openStrongestHeadOnNextResult(*window);
        if (!applyExplorerSession(*window, start, &problem)) {
            printError(problem.english());
            return 2;
        }
    } else if (scripted) {
        // The last session's model, not the command line's: the picture shows what a person's start shows,
        // its failure on the banner included.
        startExplorerSession(*window, start, &problem);
    } else if (!startExplorerSession(*window, start, &problem) && options.model && !modelRefused) {
        printError(problem.english()); // stderr too, for a start from a terminal
    }
    if (emptyText) window->setTexts(QString(), start.textB);
    new SessionKeeper(window);
    // The first start's hint, until closed for good; not on a start that names its head (a script, a
    // screenshot of one head: it knows what to show).
    const bool hint = !options.head;
    if (hint) installFirstRunHint(*window);
    QObject::connect(&host, &MainWindowHost::windowReplaced, &host, [hint](MainWindow* replaced) {
        new SessionKeeper(replaced);
        if (hint) installFirstRunHint(*replaced);
    });

    if (options.windowSize)
        window->resize(options.windowSize->first, options.windowSize->second);
    else if (!options.screenshot.isEmpty() && window->screen())
        window->setGeometry(window->screen()->availableGeometry()); // the picture shows the whole screen
    host.show();
    if (options.presenter) {
        window->features()->presenter()->setActive(true); // which opens on the heatmap
        // A view named on the command line is honoured in presenter mode too (issue 36).
        if (options.view)
            if (const int tab = int(explorerViewNames().indexOf(*options.view)); tab >= 0)
                window->tabs()->setCurrentIndex(tab);
    }
    if (options.scanHeads) {
        // Once, on the first result shown.
        const AblationMode mode =
            *options.scanHeads == QLatin1String("mean") ? AblationMode::Mean : AblationMode::Zero;
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection = QObject::connect(
            window->runner(), &AnalysisRunner::resultReady, window, [window, connection, mode] {
                QObject::disconnect(*connection);
                QMetaObject::invokeMethod(
                    window, [window, mode] { window->scanAllHeads(mode); }, Qt::QueuedConnection);
            });
    }
    if (options.getModel) window->openGetModelDialog(*options.getModel);
    if (!options.screenshot.isEmpty()) {
        new ExplorerScreenshot(window, options);
    } else if (options.lesson) {
        // After the first result, so that the head on screen has its Q, K and V.
        auto connection = std::make_shared<QMetaObject::Connection>();
        *connection =
            QObject::connect(window->runner(), &AnalysisRunner::resultReady, window, [window, connection] {
                QObject::disconnect(*connection);
                QMetaObject::invokeMethod(
                    window,
                    [window] {
                        if (!window->openInLessonAction()->isEnabled() || !window->openInLesson())
                            window->lessonLauncher()->openWorkedExample();
                    },
                    Qt::QueuedConnection);
            });
    }
    return app.exec();
}

} // namespace attnscope
