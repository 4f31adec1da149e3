#include "census/censusrun.h"

#include "analysis/contributions.h"
#include "census/censusinput.h"
#include "io/inputfile.h"
#include "io/outputfile.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>

namespace attnscope {

namespace {

// 2: the contribution-share metrics (first_token_contrib, cls_contrib, sep_contrib, punct_contrib).
constexpr int kFormatVersion = 2;

QJsonArray linesJson(const std::vector<std::int64_t>& lines)
{
    QJsonArray out;
    for (std::int64_t line : lines)
        out.append(qint64(line));
    return out;
}

std::vector<std::int64_t> linesFromJson(const QJsonValue& value)
{
    std::vector<std::int64_t> out;
    for (const QJsonValue& v : value.toArray())
        out.push_back(v.toInteger());
    return out;
}

// null for a metric no input had (contribution shares without value vectors).
QJsonObject metricSummary(const RunningStat& s)
{
    if (s.count == 0)
        return QJsonObject{{QStringLiteral("mean"), QJsonValue::Null},
                           {QStringLiteral("std"), QJsonValue::Null}};
    return QJsonObject{{QStringLiteral("mean"), s.mean}, {QStringLiteral("std"), s.stddev()}};
}

void addListed(std::vector<std::int64_t>& lines, std::int64_t line)
{
    if (lines.size() < size_t(CorpusProblems::kMaxListedLines)) lines.push_back(line);
}

} // namespace

QString censusStatusName(CensusStatus status)
{
    switch (status) {
    case CensusStatus::Running:
        return QStringLiteral("running");
    case CensusStatus::Complete:
        return QStringLiteral("complete");
    case CensusStatus::Cancelled:
        return QStringLiteral("cancelled");
    case CensusStatus::CorpusChanged:
        return QStringLiteral("corpus-changed");
    case CensusStatus::Failed:
        return QStringLiteral("failed");
    }
    return {};
}

QJsonObject CensusResult::toJson() const
{
    QJsonObject root;
    root.insert(QStringLiteral("format"), QStringLiteral("attnscope-census"));
    root.insert(QStringLiteral("version"), kFormatVersion);
    root.insert(QStringLiteral("model"), model);
    root.insert(QStringLiteral("corpus"), QJsonObject{{QStringLiteral("path"), corpusPath},
                                                      {QStringLiteral("size"), qint64(corpusSize)},
                                                      {QStringLiteral("modified"),
                                                       corpusModified.toUTC().toString(Qt::ISODateWithMs)}});
    root.insert(QStringLiteral("options"),
                QJsonObject{{QStringLiteral("pairs"), pairs},
                            {QStringLiteral("max_tokens"), maxTokens},
                            {QStringLiteral("limit"), qint64(limit)},
                            {QStringLiteral("overlong"), overlong == OverlongPolicy::Refuse
                                                             ? QStringLiteral("refuse")
                                                             : QStringLiteral("truncate")}});
    root.insert(QStringLiteral("status"), censusStatusName(status));
    if (!message.isEmpty()) root.insert(QStringLiteral("message"), message);
    root.insert(QStringLiteral("progress"), QJsonObject{{QStringLiteral("offset"), qint64(offset)},
                                                        {QStringLiteral("lines_read"), qint64(linesRead)},
                                                        {QStringLiteral("inputs"), qint64(inputs())},
                                                        {QStringLiteral("seconds"), seconds}});
    root.insert(QStringLiteral("inputs"),
                QJsonObject{{QStringLiteral("done"), qint64(inputs())},
                            {QStringLiteral("pairs"), qint64(pairInputs)},
                            {QStringLiteral("singles"), qint64(singleInputs)},
                            {QStringLiteral("tokens"), qint64(tokens)},
                            {QStringLiteral("truncated"), qint64(truncated)},
                            {QStringLiteral("refused_overlong"), qint64(refused)},
                            {QStringLiteral("refused_lines"), linesJson(refusedLines)},
                            {QStringLiteral("model_failures"), qint64(failed)},
                            {QStringLiteral("model_failure_lines"), linesJson(failedLines)},
                            {QStringLiteral("first_model_failure"), firstFailure},
                            {QStringLiteral("empty_lines"), qint64(problems.emptyLines)},
                            {QStringLiteral("invalid_utf8"), qint64(problems.invalidUtf8)},
                            {QStringLiteral("invalid_utf8_lines"), linesJson(problems.invalidUtf8Lines)},
                            {QStringLiteral("invalid_json"), qint64(problems.invalidJson)},
                            {QStringLiteral("invalid_json_lines"), linesJson(problems.invalidJsonLines)},
                            {QStringLiteral("cut_lines"), qint64(problems.cutLines)},
                            {QStringLiteral("cut_line_numbers"), linesJson(problems.cutLineNumbers)},
                            {QStringLiteral("unpaired_lines"), qint64(problems.unpaired)}});
    // Readable summary: per head and per layer the mean and sample standard deviation over inputs.
    QJsonArray heads, layers, positions;
    for (int l = 0; l < sums.layers(); ++l) {
        QJsonObject layer{{QStringLiteral("layer"), l}};
        for (CensusMetric metric : allCensusMetrics())
            layer.insert(censusMetricId(metric), metricSummary(sums.layer(l, metric)));
        layers.append(layer);
        for (int h = 0; h < sums.heads(); ++h) {
            QJsonObject head{{QStringLiteral("layer"), l}, {QStringLiteral("head"), h}};
            for (CensusMetric metric : allCensusMetrics())
                head.insert(censusMetricId(metric), metricSummary(sums.head(l, h, metric)));
            heads.append(head);
        }
    }
    for (int k = 0; k < sums.positions(); ++k) {
        if (sums.sinkRate(k).count == 0) break;
        positions.append(QJsonObject{{QStringLiteral("position"), k},
                                     {QStringLiteral("inputs"), qint64(sums.sinkRate(k).count)},
                                     {QStringLiteral("sink_rate"), sums.sinkRate(k).mean},
                                     {QStringLiteral("importance"), sums.importance(k).mean}});
    }
    root.insert(QStringLiteral("heads"), heads);
    root.insert(QStringLiteral("layers"), layers);
    root.insert(QStringLiteral("positions"), positions);
    root.insert(QStringLiteral("sink_threshold"), 0.3);
    root.insert(QStringLiteral("sums"), sums.toJson());
    return root;
}

std::optional<CensusResult> CensusResult::fromJson(const QJsonObject& root, QString* error)
{
    if (root.value(QStringLiteral("format")).toString() != QLatin1String("attnscope-census")) {
        *error = QStringLiteral("not an AttnScope census result");
        return std::nullopt;
    }
    // The number as written: toInt() made 10^12 (beyond int) "version 0".
    const QJsonValue version = root.value(QStringLiteral("version"));
    if (!version.isDouble()) {
        *error = QStringLiteral("a census result without a format version number (start a new census)");
        return std::nullopt;
    }
    if (version.toDouble() != kFormatVersion) {
        *error = QStringLiteral("a census result of format version %1; this AttnScope reads version %2 "
                                "(start a new census)")
                     .arg(QString::number(version.toDouble(), 'g', 17))
                     .arg(kFormatVersion);
        return std::nullopt;
    }
    CensusResult r;
    r.model = root.value(QStringLiteral("model")).toString();
    const QJsonObject corpus = root.value(QStringLiteral("corpus")).toObject();
    r.corpusPath = corpus.value(QStringLiteral("path")).toString();
    r.corpusSize = corpus.value(QStringLiteral("size")).toInteger();
    r.corpusModified =
        QDateTime::fromString(corpus.value(QStringLiteral("modified")).toString(), Qt::ISODateWithMs);
    const QJsonObject options = root.value(QStringLiteral("options")).toObject();
    r.pairs = options.value(QStringLiteral("pairs")).toBool();
    r.maxTokens = options.value(QStringLiteral("max_tokens")).toInt();
    r.limit = options.value(QStringLiteral("limit")).toInteger(-1);
    r.overlong = options.value(QStringLiteral("overlong")).toString() == QLatin1String("refuse")
                     ? OverlongPolicy::Refuse
                     : OverlongPolicy::Truncate;
    const QString status = root.value(QStringLiteral("status")).toString();
    for (CensusStatus s : {CensusStatus::Running, CensusStatus::Complete, CensusStatus::Cancelled,
                           CensusStatus::CorpusChanged, CensusStatus::Failed})
        if (censusStatusName(s) == status) r.status = s;
    r.message = root.value(QStringLiteral("message")).toString();
    const QJsonObject progress = root.value(QStringLiteral("progress")).toObject();
    r.offset = progress.value(QStringLiteral("offset")).toInteger(-1);
    r.linesRead = progress.value(QStringLiteral("lines_read")).toInteger(-1);
    r.seconds = progress.value(QStringLiteral("seconds")).toDouble();
    const QJsonObject inputs = root.value(QStringLiteral("inputs")).toObject();
    r.pairInputs = inputs.value(QStringLiteral("pairs")).toInteger();
    r.singleInputs = inputs.value(QStringLiteral("singles")).toInteger();
    r.tokens = inputs.value(QStringLiteral("tokens")).toInteger();
    r.truncated = inputs.value(QStringLiteral("truncated")).toInteger();
    r.refused = inputs.value(QStringLiteral("refused_overlong")).toInteger();
    r.refusedLines = linesFromJson(inputs.value(QStringLiteral("refused_lines")));
    r.failed = inputs.value(QStringLiteral("model_failures")).toInteger();
    r.failedLines = linesFromJson(inputs.value(QStringLiteral("model_failure_lines")));
    r.firstFailure = inputs.value(QStringLiteral("first_model_failure")).toString();
    r.problems.emptyLines = inputs.value(QStringLiteral("empty_lines")).toInteger();
    r.problems.invalidUtf8 = inputs.value(QStringLiteral("invalid_utf8")).toInteger();
    r.problems.invalidUtf8Lines = linesFromJson(inputs.value(QStringLiteral("invalid_utf8_lines")));
    r.problems.invalidJson = inputs.value(QStringLiteral("invalid_json")).toInteger();
    r.problems.invalidJsonLines = linesFromJson(inputs.value(QStringLiteral("invalid_json_lines")));
    r.problems.cutLines = inputs.value(QStringLiteral("cut_lines")).toInteger();
    r.problems.cutLineNumbers = linesFromJson(inputs.value(QStringLiteral("cut_line_numbers")));
    r.problems.unpaired = inputs.value(QStringLiteral("unpaired_lines")).toInteger();
    std::optional<CensusAccumulator> sums =
        CensusAccumulator::fromJson(root.value(QStringLiteral("sums")).toObject(), error);
    if (!sums) return std::nullopt;
    r.sums = std::move(*sums);
    if (r.offset < 0 || r.linesRead < 0) {
        *error = QStringLiteral("the census has no resume position");
        return std::nullopt;
    }
    return r;
}

std::optional<CensusResult> readCensusResult(const QString& path, QString* error)
{
    // The input rules (io/inputfile.h): a FIFO hung here, an endless one grew until it aborted.
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(path, kMaxCensusFileBytes, &problem);
    if (!bytes) {
        *error = QStringLiteral("%1: %2").arg(path, problem);
        return std::nullopt;
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(*bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        *error = QStringLiteral("%1: not valid JSON (%2)").arg(path, parseError.errorString());
        return std::nullopt;
    }
    std::optional<CensusResult> result = CensusResult::fromJson(document.object(), &problem);
    if (!result) *error = QStringLiteral("%1: %2").arg(path, problem);
    return result;
}

bool writeCensusResult(const CensusResult& result, const QString& path, QString* error)
{
    // A checkpoint replaces the last good one only once it is whole on the disk (io/outputfile.h): a full
    // disk leaves the previous census.json byte for byte.
    return writeOutputFile(path, QJsonDocument(result.toJson()).toJson(QJsonDocument::Indented), true, error);
}

CensusResult runCensus(const TransformerModel& model, const Tokenizer& tokenizer,
                       const CensusOptions& options, const std::optional<CensusResult>& resumeFrom,
                       const CensusProgressCallback& progress, const std::atomic<bool>* cancel)
{
    const QFileInfo corpusInfo(options.corpusPath);
    CensusResult result;
    const ModelInfo& info = model.info();
    const bool encoder = info.kind == QLatin1String("encoder");
    if (resumeFrom) {
        result = *resumeFrom;
    } else {
        result.model = info.name;
        result.corpusPath = corpusInfo.absoluteFilePath();
        result.corpusSize = corpusInfo.size();
        result.corpusModified = corpusInfo.lastModified();
        result.pairs = options.pairs;
        result.maxTokens = options.maxTokens;
        result.limit = options.limit;
        result.overlong = options.overlong;
        result.sums = CensusAccumulator(info.layers, info.heads, options.maxTokens);
    }
    result.status = CensusStatus::Running;
    result.message.clear();
    auto fail = [&](const QString& why) {
        result.status = CensusStatus::Failed;
        result.message = why;
        return result;
    };
    const int positions = model.config().maxPositions;
    if (options.maxTokens < 2) return fail(QStringLiteral("--max-tokens must be at least 2"));
    if (positions > 0 && options.maxTokens > positions)
        return fail(QStringLiteral("%1 takes at most %2 tokens; --max-tokens is %3")
                        .arg(info.name)
                        .arg(positions)
                        .arg(options.maxTokens));
    if (resumeFrom) {
        if (result.model != info.name || result.pairs != options.pairs ||
            result.maxTokens != options.maxTokens || result.overlong != options.overlong ||
            result.sums.layers() != info.layers || result.sums.heads() != info.heads)
            return fail(
                QStringLiteral("the saved census was made with another model or options (%1, max tokens %2, "
                               "pairs %3): cannot resume it with these")
                    .arg(result.model)
                    .arg(result.maxTokens)
                    .arg(result.pairs ? QStringLiteral("on") : QStringLiteral("off")));
        if (result.corpusSize != corpusInfo.size() || result.corpusModified != corpusInfo.lastModified())
            return fail(
                QStringLiteral("%1: the corpus changed since the saved census (size or modification time): "
                               "start a new census")
                    .arg(options.corpusPath));
        result.limit = options.limit;
    }
    CorpusReader reader(options.corpusPath, options.pairs);
    QString error;
    if (!reader.open(&error)) return fail(error);
    reader.problems() = result.problems;
    if (!reader.seek(result.offset, result.linesRead))
        return fail(QStringLiteral("%1: the saved position %2 lies outside the file")
                        .arg(options.corpusPath)
                        .arg(result.offset));

    QElapsedTimer clock, sinceSave;
    clock.start();
    sinceSave.start();
    const double secondsBefore = result.seconds;
    const std::int64_t inputsBefore = result.inputs(), offsetBefore = result.offset;
    auto save = [&]() {
        result.seconds = secondsBefore + clock.elapsed() / 1000.0;
        // Nothing counted, nothing saved: a census.json of no input would only block the next run.
        if (options.resultPath.isEmpty() || (result.inputs() == 0 && !resumeFrom)) return true;
        QString writeError;
        const QString folder = QFileInfo(options.resultPath).absolutePath();
        if (!QDir().mkpath(folder))
            writeError = QStringLiteral("%1: cannot create the folder").arg(folder);
        else if (writeCensusResult(result, options.resultPath, &writeError))
            return true;
        result.status = CensusStatus::Failed;
        result.message = writeError;
        result.unsaved = true;
        return false;
    };
    auto corpusChanged = [&]() {
        const QFileInfo now(options.corpusPath);
        return !now.exists() || now.size() != result.corpusSize ||
               now.lastModified() != result.corpusModified;
    };
    RunOptions run;
    run.threads = options.threads;
    run.backend = options.backend;
    run.cancel = cancel;
    const std::int64_t total = reader.fileSize();
    while (true) {
        if (cancel && cancel->load()) {
            result.status = CensusStatus::Cancelled;
            result.message = QStringLiteral("cancelled after %1 inputs").arg(result.inputs());
            break;
        }
        if (options.limit >= 0 && result.inputs() >= options.limit) {
            result.status = CensusStatus::Complete;
            break;
        }
        if (sinceSave.elapsed() >= options.checkpointSeconds * 1000) {
            if (corpusChanged()) {
                result.status = CensusStatus::CorpusChanged;
                break;
            }
            if (!save()) return result;
            sinceSave.restart();
        }
        std::optional<CorpusInput> input = reader.next();
        if (!input) {
            result.offset = reader.offset();
            result.linesRead = reader.linesRead();
            result.problems = reader.problems();
            result.status = corpusChanged() ? CensusStatus::CorpusChanged : CensusStatus::Complete;
            if (result.status == CensusStatus::Complete && result.inputs() == 0) {
                // Every line skipped or refused: a "complete" census of nothing is a failure.
                result.status = CensusStatus::Failed;
                result.message = QStringLiteral("%1: no usable input in the file").arg(options.corpusPath);
                return result;
            }
            break;
        }
        if (!encoder && input->textB) { // decoders take one text: the pair is read as one passage
            input->textA += QLatin1Char(' ') + *input->textB;
            input->textB.reset();
        }
        try {
            const CensusInput prepared = prepareCensusInput(tokenizer, *input, options.maxTokens);
            if (prepared.encoding.size() == 0 ||
                (prepared.truncated && options.overlong == OverlongPolicy::Refuse)) {
                ++result.refused;
                addListed(result.refusedLines, input->line);
            } else {
                const AttentionCapture capture =
                    model.run(prepared.encoding.ids, prepared.encoding.typeIds, run);
                // The contribution shares need the capture's value vectors and W_O (kept by every CPU and
                // GPU pass, at any length); a capture without them only leaves the contribution metrics out.
                std::shared_ptr<const ContributionMaps> shares;
                if (!capture.values.empty())
                    shares = contributionMaps(capture, ContributionScale::Share, cancel, options.threads);
                result.sums.addInput(*capture.maps, prepared.roles, input->line, options.threads,
                                     shares.get());
                result.truncated += prepared.truncated ? 1 : 0;
                result.tokens += prepared.encoding.size();
                ++(input->textB ? result.pairInputs : result.singleInputs);
            }
        } catch (const OperationCancelled&) {
            result.status = CensusStatus::Cancelled; // this input is not counted: resume starts with it
            result.message = QStringLiteral("cancelled after %1 inputs").arg(result.inputs());
            break;
        } catch (const std::exception& e) { // TokenizerError, ModelError: this input only
            ++result.failed;
            addListed(result.failedLines, input->line);
            if (result.firstFailure.isEmpty())
                result.firstFailure =
                    QStringLiteral("line %1: %2").arg(input->line).arg(QString::fromUtf8(e.what()));
        }
        result.offset = reader.offset();
        result.linesRead = reader.linesRead();
        result.problems = reader.problems();
        if (progress) {
            CensusProgress p;
            p.inputs = result.inputs();
            p.sums = &result.sums;
            p.bytesDone = result.offset;
            p.bytesTotal = total;
            p.elapsedSeconds = clock.elapsed() / 1000.0;
            const double byBytes = total > 0 ? double(result.offset) / double(total) : 1.0;
            const double byLimit = options.limit > 0 ? double(result.inputs()) / double(options.limit) : 0.0;
            p.fraction = std::min(1.0, std::max(byBytes, byLimit));
            const double startFraction =
                std::max(total > 0 ? double(offsetBefore) / double(total) : 0.0,
                         options.limit > 0 ? double(inputsBefore) / double(options.limit) : 0.0);
            const double doneNow = p.fraction - startFraction;
            if (doneNow > 0 && p.elapsedSeconds > 0.5)
                p.etaSeconds = p.elapsedSeconds * (1.0 - p.fraction) / doneNow;
            progress(p);
        }
    }
    if (result.status == CensusStatus::CorpusChanged)
        result.message =
            QStringLiteral("%1: the file changed during the census (size or modification time); the "
                           "result covers the %2 inputs read before")
                .arg(options.corpusPath)
                .arg(result.inputs());
    save();
    return result;
}

} // namespace attnscope
