// attnscope: the GUI by default, headless subcommands for scripts, tests and machines without a display.

#include "command.h"
#include "defaultheatmaps.h"
#include "explorerstartup.h"
#include "io/outputfile.h"
#include "kernels/cpukernelselection.h"
#include "model/openblas.h"
#include "settings/guioptions.h"
#include "textfileargument.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QGuiApplication>
#include <QIcon>
#include <QLocale>
#include <QStringDecoder>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <memory>

using namespace attnscope;

namespace {

bool hasDisplay()
{
    return !qEnvironmentVariableIsEmpty("DISPLAY") || !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY") ||
           !qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM");
}

// A command paints offscreen; it uses the display only to reach a GPU (Vulkan needs the xcb plugin). A
// display that refuses the connection (a stale DISPLAY after `ssh -X` ended; Xvfb resetting new clients
// while many connect at once, seen in CI) made Qt abort the whole command ("no Qt platform plugin could be
// initialized"). Qt tries a ';'-separated list in order, so offscreen is the fallback. A platform the user
// chose is kept as it is.
void chooseCommandPlatform()
{
    if (!qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) return;
    QByteArray platforms;
    if (!qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) platforms += "wayland;";
    if (!qEnvironmentVariableIsEmpty("DISPLAY")) platforms += "xcb;";
    qputenv("QT_QPA_PLATFORM", platforms + "offscreen");
}

void setApplicationInfo()
{
    QCoreApplication::setOrganizationName(QStringLiteral("AttnScope"));
    QCoreApplication::setApplicationName(QStringLiteral("attnscope"));
    QCoreApplication::setApplicationVersion(QStringLiteral(ATTNSCOPE_VERSION));
}

QString commandList()
{
    std::vector<Command> commands = CommandRegistry::commands();
    std::sort(commands.begin(), commands.end(),
              [](const Command& a, const Command& b) { return a.name < b.name; });
    QString text = QStringLiteral("\nCommands (attnscope COMMAND --help for details):\n");
    for (const Command& command : commands)
        text += QStringLiteral("  %1  %2\n").arg(command.name.leftJustified(10), command.summary);
    text += QStringLiteral(
        "Every command that takes --text (--text-b) also takes --text-file F (--text-b-file F): "
        "a UTF-8 file, - for standard input.\n");
    return text;
}

// Headless commands promise one line on stderr per error. Qt's own chatter on the way to a platform
// plugin or a GPU probe (XDG_RUNTIME_DIR, Vulkan/GL initialisation warnings) would break that, so
// commands only let Qt's critical messages through unless ATTNSCOPE_QT_MESSAGES is set.
void quietQtMessages(QtMsgType type, const QMessageLogContext&, const QString& message)
{
    if (type == QtCriticalMsg || type == QtFatalMsg)
        std::fprintf(stderr, "%s\n", message.toLocal8Bit().constData());
}

// Command-line text is UTF-8 (Qt 6 decodes arguments as UTF-8 on Unix). Bytes that are not would silently
// become U+FFFD and be tokenized as such: refuse them, naming the argument.
bool argumentsAreText(int argc, char** argv)
{
#ifdef Q_OS_UNIX
    for (int i = 1; i < argc; ++i) {
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QByteArray bytes(argv[i]);
        const QString text = decoder.decode(bytes);
        if (!decoder.hasError()) continue;
        const qsizetype bad = text.indexOf(QChar::ReplacementCharacter);
        const QString before = bad > 0 ? text.left(bad).right(20) : QString();
        printError(
            QStringLiteral("argument %1 is not valid UTF-8 text (an invalid byte%2); give text and paths in "
                           "UTF-8")
                .arg(i)
                .arg(before.isEmpty() ? QString() : QStringLiteral(" after '%1'").arg(before)));
        return false;
    }
#else
    Q_UNUSED(argc);
    Q_UNUSED(argv);
#endif
    return true;
}

// The exit code once stdout is flushed: a command whose output could not be written fails, with the reason
// (a command that failed already has said why).
int finishStandardOutput(int exitCode)
{
    const QString error = standardOutputError();
    if (exitCode != 0 || error.isEmpty()) return exitCode;
    printError(error);
    return 1;
}

int runGui(int argc, char** argv)
{
    QApplication app(argc, argv);
    setApplicationInfo();
    app.setWindowIcon(QIcon(QStringLiteral(":/icons/attnscope.svg")));
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("AttnScope: type a sentence and see what every attention head of a transformer does.\n"
                       "Without a command it opens the window, on the last model, text and tab unless told "
                       "otherwise.") +
        commandList());
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addOptions(GuiOptions::commandLineOptions());
    parser.process(app);
    if (!parser.positionalArguments().isEmpty()) {
        printError(QStringLiteral("unknown command '%1'; try attnscope --help")
                       .arg(parser.positionalArguments().first()));
        return 2;
    }
    QString error;
    const std::optional<GuiOptions> options = GuiOptions::fromParser(parser, &error);
    if (!options) {
        printError(error);
        return 2;
    }
    return runExplorer(app, *options);
}

// A command runs one pass and exits: memory it frees is better kept for the next layer's buffers of the same
// sizes than handed back to the kernel and faulted in (and cleared) again. glibc's defaults trim the heap's
// top and map each block of more than a few MiB afresh: at 128 tokens of a Llama-3.2-1B shape every layer's
// gate, up and down products then page-faulted on one thread while the other waited (~6% of the run, perf
// timeline in docs/benchmarks.md). Blocks past 32 MiB (a layer's P at long inputs) are still mapped and
// unmapped on their own. The window keeps glibc's defaults: it runs for hours and should give memory back.
void keepFreedMemoryForReuse()
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 32 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
#endif
}

} // namespace

int main(int argc, char** argv)
{
    // Before any thread exists (setenv): OpenBLAS's kernels for this CPU, unless the user named some.
    ops::chooseOpenBlasCore();
    if (!argumentsAreText(argc, argv)) return 2;
    const QString first = argc > 1 ? QString::fromLocal8Bit(argv[1]) : QString();
    if (const Command* command = CommandRegistry::find(first)) {
        keepFreedMemoryForReuse();
        QStringList arguments{QStringLiteral("attnscope ") + command->name};
        for (int i = 2; i < argc; ++i)
            arguments << QString::fromLocal8Bit(argv[i]);
        std::unique_ptr<QCoreApplication> app;
        if (qEnvironmentVariableIsEmpty("ATTNSCOPE_QT_MESSAGES")) qInstallMessageHandler(quietQtMessages);
        if (command->needsGui) {
            chooseCommandPlatform();
            app = std::make_unique<QGuiApplication>(argc, argv);
        } else {
            app = std::make_unique<QCoreApplication>(argc, argv);
        }
        setApplicationInfo();
        if (const QString slow = kernels::unloadedKernelsWarning(); !slow.isEmpty())
            printError(QStringLiteral("warning: ") + slow);
        // Output for scripts reads the same under every system locale (the window follows its language).
        QLocale::setDefault(QLocale::c());
        QString error;
        if (!expandTextFileArguments(arguments, &error)) {
            printError(command->name + QStringLiteral(": ") + error);
            return 2;
        }
        return finishStandardOutput(command->run(arguments));
    }
    if (!first.isEmpty() && !first.startsWith(QLatin1Char('-'))) {
        printError(QStringLiteral("unknown command '%1'; try attnscope --help").arg(first));
        return 2;
    }
    const bool wantsInfo = std::any_of(argv + 1, argv + argc, [](const char* a) {
        const QByteArray arg(a);
        return arg == "--help" || arg == "-h" || arg == "--version" || arg == "-v" || arg == "--help-all";
    });
    if (!hasDisplay() && !wantsInfo) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
        if (qEnvironmentVariableIsEmpty("ATTNSCOPE_QT_MESSAGES")) qInstallMessageHandler(quietQtMessages);
        QGuiApplication app(argc, argv);
        setApplicationInfo();
        printOut(QStringLiteral(
            "No display ($DISPLAY and $WAYLAND_DISPLAY are unset): writing the default heatmaps "
            "to ./out/ instead of opening the window.\n"));
        QString error;
        const QStringList paths = writeDefaultHeatmaps(QStringLiteral("out"), &error);
        for (const QString& path : paths)
            printOut(path + QLatin1Char('\n'));
        if (!error.isEmpty()) {
            printError(error);
            return finishStandardOutput(1);
        }
        return finishStandardOutput(0);
    }
    if (wantsInfo && !hasDisplay()) qputenv("QT_QPA_PLATFORM", "offscreen");
    return runGui(argc, argv);
}
