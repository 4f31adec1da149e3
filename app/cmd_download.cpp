// attnscope download REPO_ID: a model from the Hugging Face Hub into the cache the official client shares
// (core/hub/hubdownload.h). The snapshot folder is the last line of stdout; progress goes to stderr only when
// stderr is a terminal.

#include "command.h"
#include "hub/hubdownload.h"
#include "hub/hubsettings.h"
#include "model/memoryestimate.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QEventLoop>
#include <cstdio>
#include <unistd.h>

namespace attnscope {

namespace {

QString duration(int seconds)
{
    if (seconds < 0) return QStringLiteral("--:--");
    if (seconds >= 3600)
        return QStringLiteral("%1h%2m").arg(seconds / 3600).arg(seconds / 60 % 60, 2, 10, QLatin1Char('0'));
    return QStringLiteral("%1:%2").arg(seconds / 60).arg(seconds % 60, 2, 10, QLatin1Char('0'));
}

int runDownload(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Downloads a model from the Hugging Face Hub into its cache (HF_HUB_CACHE, else $HF_HOME/hub,\n"
        "else ~/.cache/huggingface/hub), the layout Python tools use: only config.json, the tokenizer\n"
        "files and the safetensors weights (or the .gguf file --include names), each verified against its\n"
        "sha256. An interrupted download resumes. Prints the snapshot folder, for --model.\n"
        "Environment: HF_ENDPOINT, HF_TOKEN (else the token file of `huggingface-cli login`),\n"
        "HF_HUB_OFFLINE=1 (no network: the cache only), http_proxy/https_proxy/no_proxy."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("repo"), QStringLiteral("The repo id: gpt2, org/name."));
    parser.addOption(QCommandLineOption(QStringLiteral("revision"),
                                        QStringLiteral("Branch, tag or commit (main)."),
                                        QStringLiteral("rev"), QStringLiteral("main")));
    parser.addOption(
        QCommandLineOption(QStringLiteral("include"),
                           QStringLiteral("Also fetch the files matching GLOB; in a repo of .gguf files, "
                                          "the one to take. Repeatable."),
                           QStringLiteral("glob")));
    parser.addOption(
        {QStringLiteral("no-memory-check"),
         QStringLiteral("Download even when the model's memory estimate exceeds MemAvailable.")});
    // parseCommandLine refuses positional arguments; this command takes one.
    if (!parser.parse(arguments)) {
        printError(QStringLiteral("download: ") + parser.errorText());
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(parser.helpText());
        return 0;
    }
    const QStringList positional = parser.positionalArguments();
    if (positional.size() != 1) {
        printError(QStringLiteral("download: give one repo id, e.g. `attnscope download gpt2`"));
        return 2;
    }
    hub::HubDownloadRequest request;
    request.repoId = positional.front();
    request.revision = parser.value(QStringLiteral("revision"));
    request.includeGlobs = parser.values(QStringLiteral("include"));
    request.checkMemory = !parser.isSet(QStringLiteral("no-memory-check"));

    hub::HubDownload download(hub::HubSettings::fromEnvironment());
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    QElapsedTimer sinceLine;
    sinceLine.start();
    bool lineOpen = false;
    auto endLine = [&] {
        if (lineOpen) std::fputs("\n", stderr);
        lineOpen = false;
    };
    QObject::connect(&download, &hub::HubDownload::progress,
                     [&](qint64 done, qint64 total, double rate, int eta, const QString& file) {
                         if (!terminal || (sinceLine.elapsed() < 200 && done < total)) return;
                         sinceLine.restart();
                         const QString line = QStringLiteral("\r%1 / %2  %3/s  ETA %4  %5\x1b[K")
                                                  .arg(formatBytes(done), formatBytes(total),
                                                       formatBytes(qint64(rate)), duration(eta), file);
                         std::fputs(line.toLocal8Bit().constData(), stderr);
                         lineOpen = true;
                     });
    // One-off events (a resume, a retry, a wait for another process) are said whether or not stderr is a
    // terminal: a log then shows why a run took longer.
    QObject::connect(&download, &hub::HubDownload::notice, [&](const QString& message) {
        endLine();
        printError(QStringLiteral("download: ") + message);
    });
    QEventLoop loop;
    int exitCode = 1;
    QObject::connect(&download, &hub::HubDownload::finished, [&](const QString& snapshot) {
        endLine();
        printOut(snapshot + QLatin1Char('\n'));
        exitCode = 0;
        loop.quit();
    });
    QObject::connect(&download, &hub::HubDownload::failed, [&](const QString& message) {
        endLine();
        if (!download.ggufChoices().empty()) {
            for (const hub::HubFile& f : download.ggufChoices())
                printOut(QStringLiteral("%1  %2\n").arg(formatBytes(f.size).rightJustified(10), f.path));
        }
        printError(QStringLiteral("download: ") + message);
        exitCode = 1;
        loop.quit();
    });
    download.start(request);
    loop.exec();
    return exitCode;
}

const CommandRegistration registration(Command{
    QStringLiteral("download"), QStringLiteral("Fetch a model from the Hugging Face Hub into its cache"),
    false, &runDownload});

} // namespace

} // namespace attnscope
