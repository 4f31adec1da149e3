// attnscope census: per-head attention statistics averaged over a corpus (issue 17; docs/census.md).

#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "census/censusfigures.h"
#include "census/censusrun.h"
#include "census/censustables.h"
#include "command.h"
#include "io/inputfile.h"
#include "io/outputfile.h"
#include "modelcommandline.h"
#include "render/headgridpainter.h"
#include "tokenizer/tokenizer.h"

#include <QCommandLineParser>
#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QThread>
#include <atomic>
#include <csignal>
#include <cstdio>

namespace attnscope {

namespace {

std::atomic<bool> g_cancel{false};

extern "C" void onInterrupt(int)
{
    g_cancel.store(true);
}

QString duration(double seconds)
{
    if (seconds < 0) return QStringLiteral("?");
    const int s = int(seconds + 0.5);
    return s >= 3600 ? QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60)
           : s >= 60 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60)
                     : QStringLiteral("%1 s").arg(s);
}

bool writeText(const QString& path, const QString& text, QString* error)
{
    return writeOutputFile(path, text.toUtf8(), true, error); // whole or not at all, every write checked
}

// heads.csv, layers.csv, positions.csv and the figures, from whatever the result holds.
bool writeReport(const CensusResult& result, const QString& dir, QString* error)
{
    const QDir out(dir);
    if (!writeText(out.filePath(QStringLiteral("heads.csv")), censusHeadsCsv(result.sums), error) ||
        !writeText(out.filePath(QStringLiteral("layers.csv")), censusLayersCsv(result.sums), error) ||
        !writeText(out.filePath(QStringLiteral("positions.csv")), censusPositionsCsv(result.sums), error))
        return false;
    if (result.inputs() == 0) return true;
    const QString what = QStringLiteral("%1, %2 inputs").arg(result.model).arg(result.inputs());
    const LayerCurves curves =
        clarkLayerCurves(result.sums, QStringLiteral("Attention by layer (%1)").arg(what));
    const bool withContributions =
        result.sums.layers() > 0 && result.sums.layer(0, CensusMetric::SepContribution).count > 0;
    const LayerCurves contributionCurves =
        clarkLayerCurves(result.sums, QStringLiteral("Contribution by layer (%1)").arg(what),
                         LayerCurveMeasure::Contributions);
    std::vector<CensusMetric> gridMetrics{CensusMetric::Sep,        CensusMetric::Cls,
                                          CensusMetric::FirstToken, CensusMetric::Punctuation,
                                          CensusMetric::Previous,   CensusMetric::Next,
                                          CensusMetric::Self,       CensusMetric::NormalizedEntropy};
    if (withContributions)
        gridMetrics.insert(gridMetrics.end(),
                           {CensusMetric::SepContribution, CensusMetric::ClsContribution,
                            CensusMetric::FirstTokenContribution, CensusMetric::PunctuationContribution});
    for (const QString& suffix : {QStringLiteral("png"), QStringLiteral("svg")}) {
        if (!writeFigure(
                out.filePath(QStringLiteral("layers.") + suffix), QSize(720, 440), curves.title,
                [&](QPainter& p, const QRectF& area) { paintLayerCurves(p, area, curves); }, error))
            return false;
        if (withContributions &&
            !writeFigure(
                out.filePath(QStringLiteral("layers-contrib.") + suffix), QSize(720, 440),
                contributionCurves.title,
                [&](QPainter& p, const QRectF& area) { paintLayerCurves(p, area, contributionCurves); },
                error))
            return false;
        for (CensusMetric metric : gridMetrics) {
            const HeadGridData grid =
                censusHeadGrid(result.sums, metric,
                               QStringLiteral("Mean %1 per head (%2)").arg(censusMetricTitle(metric), what));
            const int width = std::max(420, 60 + 48 * grid.heads),
                      height = std::max(260, 80 + 40 * grid.layers);
            if (!writeFigure(
                    out.filePath(QStringLiteral("heads-%1.%2").arg(censusMetricId(metric), suffix)),
                    QSize(width, height), grid.title,
                    [&](QPainter& p, const QRectF& area) {
                        HeadGridPainter(grid, HeatmapStyle{}).paint(p, area);
                    },
                    error))
                return false;
        }
    }
    return true;
}

QString problemsLine(const CensusResult& r)
{
    QStringList parts;
    // "1 line ... (line 7)", "3 lines ... (lines 2,5,9)": a count with its noun, then where.
    auto counted = [](std::int64_t n, const char* one, const char* many) {
        return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    auto where = [](const std::vector<std::int64_t>& list, std::int64_t count) {
        QStringList numbers;
        for (std::int64_t n : list)
            numbers << QString::number(n);
        return QLatin1String(count == 1 ? "line " : "lines ") + numbers.join(QLatin1Char(',')) +
               (count > std::int64_t(list.size()) ? QStringLiteral(",...") : QString());
    };
    if (r.problems.emptyLines)
        parts << counted(r.problems.emptyLines, "empty line", "empty lines") + QStringLiteral(" skipped");
    if (r.truncated)
        parts << counted(r.truncated, "input", "inputs") +
                     QStringLiteral(" truncated to %1 tokens").arg(r.maxTokens);
    if (r.refused)
        parts << counted(r.refused, "over-long input", "over-long inputs") +
                     QStringLiteral(" refused (%1)").arg(where(r.refusedLines, r.refused));
    if (r.problems.invalidUtf8)
        parts << counted(r.problems.invalidUtf8, "line", "lines") +
                     QStringLiteral(" of invalid UTF-8 skipped (%1)")
                         .arg(where(r.problems.invalidUtf8Lines, r.problems.invalidUtf8));
    if (r.problems.invalidJson)
        parts << counted(r.problems.invalidJson, "line", "lines") +
                     QStringLiteral(" not a JSON object with a \"text\" string (%1)")
                         .arg(where(r.problems.invalidJsonLines, r.problems.invalidJson));
    if (r.problems.cutLines)
        parts << counted(r.problems.cutLines, "line", "lines") +
                     QStringLiteral(" over 1 MiB skipped (%1)")
                         .arg(where(r.problems.cutLineNumbers, r.problems.cutLines));
    if (r.problems.unpaired)
        parts << counted(r.problems.unpaired, "line", "lines") + QStringLiteral(" without a partner");
    if (r.failed)
        parts << counted(r.failed, "input", "inputs") +
                     QStringLiteral(" the model refused (%1)").arg(r.firstFailure);
    return parts.join(QStringLiteral("; "));
}

// Why `dir` cannot be the output folder ("" when it can): it must be a folder, or one that can be made in
// the nearest folder above it that exists.
QString outputFolderProblem(const QString& dir)
{
    if (dir.isEmpty()) return QStringLiteral("--out is an empty path; give the output folder");
    const QFileInfo info(dir);
    if (info.exists() || info.isSymLink()) {
        if (!info.isDir()) return QStringLiteral("%1: exists and is not a folder").arg(dir);
        if (!info.isWritable()) return QStringLiteral("%1: the folder cannot be written").arg(dir);
        return {};
    }
    QFileInfo above(info.absolutePath());
    while (!above.exists() && !above.isSymLink() && !above.isRoot())
        above.setFile(above.absolutePath());
    if (!above.isDir())
        return QStringLiteral("%1: cannot create the folder (%2 is not a folder)").arg(dir, above.filePath());
    if (!above.isWritable())
        return QStringLiteral("%1: cannot create the folder (%2 cannot be written)")
            .arg(dir, above.filePath());
    return {};
}

// After a failed save: what census.json still holds, when it is a census that --resume can continue.
QString savedStateNote(const QString& resultPath)
{
    QString ignored;
    const std::optional<CensusResult> saved = readCensusResult(resultPath, &ignored);
    if (!saved || saved->status == CensusStatus::Complete) return {};
    return QStringLiteral(
               "; %1 still holds the census saved before (%2 inputs): free some space and continue "
               "with --resume")
        .arg(resultPath)
        .arg(saved->inputs());
}

int runCensusCommand(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Per-head attention statistics averaged over a corpus (Clark et al. 2019's figures for any model):\n"
        "per head the mean and spread of attention to the first token, [CLS], [SEP] and punctuation, self /\n"
        "previous / next token and entropy, and the same four shares of the contributions ||a_ij f(x_j)||\n"
        "(Kobayashi et al. 2020, \"*_norm\"); per layer the [CLS]/[SEP]/punctuation curves of both; per\n"
        "position the"
        " sink rate of Gu et al. Writes census.json (resumable), heads/layers/positions.csv and PNG/SVG "
        "figures.\n"
        "FILE: plain text, one input per line (--pairs: A<TAB>B or two consecutive lines), or JSONL\n"
        "{\"text\": ..., \"text_b\": ...}. Ctrl+C stops after the current input; --resume continues."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("model"),
         QStringLiteral("Model folder, built-in model name or Hugging Face cache id."),
         QStringLiteral("model")},
        {QStringLiteral("corpus"), QStringLiteral("The corpus file."), QStringLiteral("file")},
        {QStringLiteral("pairs"), QStringLiteral("Plain text: read inputs as sentence pairs.")},
        {QStringLiteral("max-tokens"), QStringLiteral("Cut inputs to this many tokens (default 128)."),
         QStringLiteral("n"), QStringLiteral("128")},
        {QStringLiteral("refuse-long"),
         QStringLiteral("Skip inputs longer than --max-tokens instead of cutting them.")},
        {QStringLiteral("limit"), QStringLiteral("At most this many inputs."), QStringLiteral("n")},
        {QStringLiteral("out"), QStringLiteral("Output folder (default ./census)."), QStringLiteral("dir"),
         QStringLiteral("census")},
        {QStringLiteral("resume"), QStringLiteral("Continue the census saved in --out.")},
        {QStringLiteral("threads"), QStringLiteral("CPU threads (default: all cores)."), QStringLiteral("n"),
         QStringLiteral("0")},
        {QStringLiteral("quiet"), QStringLiteral("No progress lines.")},
        {QStringLiteral("verbose"), QStringLiteral("Report the backend and device on stderr.")},
    });
    parser.addOption(backendOption());
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("census")))
        return *done;
    if (!parser.isSet(QStringLiteral("model")) || !parser.isSet(QStringLiteral("corpus"))) {
        printError(QStringLiteral("census: --model and --corpus are required"));
        return 2;
    }
    CensusOptions options;
    options.corpusPath = parser.value(QStringLiteral("corpus"));
    options.pairs = parser.isSet(QStringLiteral("pairs"));
    options.overlong =
        parser.isSet(QStringLiteral("refuse-long")) ? OverlongPolicy::Refuse : OverlongPolicy::Truncate;
    bool ok = true;
    options.maxTokens = parser.value(QStringLiteral("max-tokens")).toInt(&ok);
    if (!ok || options.maxTokens < 2) {
        printError(QStringLiteral("census: --max-tokens must be a whole number of at least 2"));
        return 2;
    }
    if (parser.isSet(QStringLiteral("limit"))) {
        options.limit = parser.value(QStringLiteral("limit")).toLongLong(&ok);
        if (!ok || options.limit < 0) {
            printError(QStringLiteral("census: --limit must be a whole number >= 0"));
            return 2;
        }
    }
    options.threads = parser.value(QStringLiteral("threads")).toInt(&ok);
    if (!ok || options.threads < 0) {
        printError(QStringLiteral("census: --threads must be a whole number >= 0"));
        return 2;
    }
    QString error;
    const QString backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
    if (backendName.isEmpty()) {
        printError(QStringLiteral("census: ") + error);
        return 2;
    }
    // Every argument and the output folder are checked before any work, and nothing is written (not even
    // the folder) until the census has counted an input: a refused census leaves nothing behind that would
    // block the next run.
    const QString outDir = parser.value(QStringLiteral("out"));
    if (const QString problem = outputFolderProblem(outDir); !problem.isEmpty()) {
        printError(QStringLiteral("census: ") + problem);
        return 1;
    }
    if (const QString problem = inputFileProblem(options.corpusPath); !problem.isEmpty()) {
        printError(QStringLiteral("census: %1: %2").arg(options.corpusPath, problem));
        return 1;
    }
    options.resultPath = QDir(outDir).filePath(QStringLiteral("census.json"));
    std::optional<CensusResult> resumeFrom;
    if (parser.isSet(QStringLiteral("resume"))) {
        resumeFrom = readCensusResult(options.resultPath, &error);
        if (!resumeFrom) {
            printError(QStringLiteral("census: cannot resume: ") + error);
            return 1;
        }
        if (resumeFrom->status == CensusStatus::Complete) {
            printOut(QStringLiteral("%1: the census is already complete (%2 inputs)\n")
                         .arg(options.resultPath)
                         .arg(resumeFrom->inputs()));
            return 0;
        }
    } else if (QFileInfo::exists(options.resultPath)) {
        printError(
            QStringLiteral("%1: a census is already there; use --resume to continue it or another --out")
                .arg(options.resultPath));
        return 1;
    }
    try {
        const std::unique_ptr<TransformerModel> model =
            openModelArgument(parser.value(QStringLiteral("model")));
        std::unique_ptr<Tokenizer> ownTokenizer;
        const Tokenizer* tokenizer = model->tokenizer();
        if (!tokenizer) {
            ownTokenizer = Tokenizer::fromFolder(model->folder());
            tokenizer = ownTokenizer.get();
        }
        const std::unique_ptr<AttentionBackend> backend =
            createCommandBackend(backendName, parser.isSet(QStringLiteral("verbose")));
        options.backend = backend.get();
        // Unless asked for more, a model with fewer positions than the default 128 gets all it takes.
        const int positions = model->config().maxPositions;
        if (!parser.isSet(QStringLiteral("max-tokens")) && positions > 0)
            options.maxTokens = std::min(options.maxTokens, positions);
        if (positions > 0 && options.maxTokens > positions) {
            printError(QStringLiteral("census: %1 takes at most %2 tokens; --max-tokens is %3")
                           .arg(model->info().name)
                           .arg(positions)
                           .arg(options.maxTokens));
            return 2;
        }
        std::signal(SIGINT, onInterrupt);
        std::signal(SIGTERM, onInterrupt);
        const bool quiet = parser.isSet(QStringLiteral("quiet"));
        // For tests only: hold the census after this many inputs until it is stopped, so a stop-and-resume
        // test stops it at a known point on any machine, however fast or loaded.
        bool holdOk = false;
        const qint64 holdAfter = qEnvironmentVariableIntValue("ATTNSCOPE_TEST_CENSUS_HOLD_AFTER", &holdOk);
        QElapsedTimer sincePrint;
        sincePrint.start();
        const CensusResult result = runCensus(
            *model, *tokenizer, options, resumeFrom,
            [&](const CensusProgress& p) {
                if (holdOk && holdAfter > 0 && p.inputs == holdAfter) {
                    std::fprintf(stderr, "census: holding after %lld inputs until stopped\n",
                                 (long long)p.inputs);
                    std::fflush(stderr);
                    while (!g_cancel.load())
                        QThread::msleep(5);
                }
                if (quiet || sincePrint.elapsed() < 1000) return;
                sincePrint.restart();
                std::fprintf(stderr, "census: %lld inputs, %.1f%%, %s elapsed, ETA %s\n", (long long)p.inputs,
                             100.0 * p.fraction, qPrintable(duration(p.elapsedSeconds)),
                             qPrintable(duration(p.etaSeconds)));
            },
            &g_cancel);
        std::signal(SIGINT, SIG_DFL);
        std::signal(SIGTERM, SIG_DFL);
        const QString problems = problemsLine(result);
        if (result.unsaved) {
            // census.json could not be written: it holds the last good state, byte for byte, or nothing;
            // tables and figures of a state that is not saved are not written either.
            printError(QStringLiteral("census: ") + result.message + savedStateNote(options.resultPath));
            return 1;
        }
        if (result.status == CensusStatus::Failed && result.inputs() == 0 && !resumeFrom) {
            // Nothing was counted, and nothing was written. Why lines were skipped is part of the error.
            printError(QStringLiteral("census: ") + result.message +
                       (problems.isEmpty() ? QString() : QStringLiteral(" (%1)").arg(problems)));
            return 1;
        }
        if (!writeReport(result, outDir, &error)) {
            printError(QStringLiteral("census: ") + error);
            return 1;
        }
        printOut(QStringLiteral("%1: %2 inputs (%3 pairs, %4 single), %5 tokens, %6; %7\n")
                     .arg(censusStatusName(result.status))
                     .arg(result.inputs())
                     .arg(result.pairInputs)
                     .arg(result.singleInputs)
                     .arg(result.tokens)
                     .arg(duration(result.seconds), options.resultPath) +
                 (problems.isEmpty() ? QString() : problems + QLatin1Char('\n')));
        switch (result.status) {
        case CensusStatus::Complete:
            return 0;
        case CensusStatus::Cancelled:
            // Cancelled means saved (a failed save is Failed and unsaved), unless nothing was counted.
            if (result.inputs() == 0 && !resumeFrom)
                printError(
                    QStringLiteral("census: cancelled before any input was counted; nothing was saved"));
            else
                printError(QStringLiteral("census: cancelled; continue with --resume"));
            return 130;
        default:
            printError(QStringLiteral("census: ") + result.message);
            return 1;
        }
    } catch (...) {
        // A ModelError too as "census: <file>: <problem>".
        return reportFailure(QStringLiteral("census"), std::current_exception(), ModelErrorText::Named);
    }
}

const CommandRegistration registration(Command{
    QStringLiteral("census"),
    QStringLiteral("Per-head statistics averaged over a corpus (Clark et al.'s figures)"), true,
    &runCensusCommand});

} // namespace

} // namespace attnscope
