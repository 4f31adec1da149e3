#pragma once

// A census: a model run over every input of a corpus file, its attention summed per head, layer and
// position (CensusAccumulator), resumable from its own result file.
//
//   CensusOptions options; options.corpusPath = "corpus.jsonl"; options.resultPath = "out/census.json";
//   CensusResult r = runCensus(model, tokenizer, options, std::nullopt, onProgress, &cancel);
//
// The result file is written atomically (a temporary file renamed over it) every checkpointSeconds and at
// the end, so it is always a whole, valid JSON document: either a finished census or a partial one that
// records how far it got (byte offset, lines, inputs) and can be continued with resumeFrom.

#include "census/censusaccumulator.h"
#include "census/corpusreader.h"

#include <QDateTime>
#include <QJsonObject>
#include <QString>
#include <atomic>
#include <functional>
#include <optional>

namespace attnscope {

class AttentionBackend;
class Tokenizer;
class TransformerModel;

enum class OverlongPolicy { Truncate, Refuse };
enum class CensusStatus { Running, Complete, Cancelled, CorpusChanged, Failed };
QString
censusStatusName(CensusStatus status); // "running", "complete", "cancelled", "corpus-changed", "failed"

struct CensusOptions
{
    QString corpusPath;
    bool pairs = false;
    int maxTokens = 128;
    std::int64_t limit = -1; // at most this many inputs (counting those of a resumed run); < 0 = all
    OverlongPolicy overlong = OverlongPolicy::Truncate;
    int threads = 0;                     // 0 = all cores
    AttentionBackend* backend = nullptr; // null = the CPU core
    QString resultPath;                  // "" = keep it in memory only
    double checkpointSeconds = 10;
};

struct CensusProgress
{
    std::int64_t inputs = 0; // done, resumed ones included
    std::int64_t bytesDone = 0, bytesTotal = 0;
    double fraction = 0;       // of the corpus (or of --limit)
    double elapsedSeconds = 0; // this session
    double etaSeconds = -1;    // -1 until it can be estimated
    // The sums so far, valid during the callback only (on the census thread): live views copy them.
    const CensusAccumulator* sums = nullptr;
};

struct CensusResult
{
    QString model; // the model's name
    QString corpusPath;
    std::int64_t corpusSize = 0;
    QDateTime corpusModified;
    bool pairs = false;
    int maxTokens = 0;
    std::int64_t limit = -1;
    OverlongPolicy overlong = OverlongPolicy::Truncate;

    CensusStatus status = CensusStatus::Running;
    QString message; // why it stopped, for cancelled / corpus-changed / failed

    std::int64_t offset = 0, linesRead = 0; // where the next input starts
    std::int64_t pairInputs = 0, singleInputs = 0, tokens = 0;
    std::int64_t truncated = 0, refused = 0;
    std::vector<std::int64_t> refusedLines; // first CorpusProblems::kMaxListedLines
    std::int64_t failed = 0;                // inputs the model refused (ids, length): line and reason below
    std::vector<std::int64_t> failedLines;
    QString firstFailure;
    CorpusProblems problems;
    double seconds = 0; // all sessions together

    CensusAccumulator sums;
    // The last save of the result file failed (message says why): the file holds what was saved before,
    // byte for byte, or does not exist. Not stored.
    bool unsaved = false;

    std::int64_t inputs() const { return sums.inputs(); }
    QJsonObject toJson() const;
    static std::optional<CensusResult> fromJson(const QJsonObject& object, QString* error);
};

// Reads a result file; nullopt with *error "<file>: <problem>".
std::optional<CensusResult> readCensusResult(const QString& path, QString* error);
// Writes it whole or not at all (io/outputfile.h: a temporary file, synced, then renamed over the old one);
// false with *error ("<file>: cannot write the file (<reason>)") and the old file untouched.
bool writeCensusResult(const CensusResult& result, const QString& path, QString* error);

using CensusProgressCallback = std::function<void(const CensusProgress&)>;

// Runs (or, with resumeFrom, continues) the census. A corpus that cannot be opened, a resume state that
// does not match the options or the corpus file, a corpus without one usable input, or a result file that
// cannot be written (unsaved), comes back with status Failed and the reason in message. The result file
// is written only once it holds an input (a refused census leaves none that would block the next run).
// Cancelling returns status Cancelled, the result file holding every whole input done. A corpus whose size
// or modification time changes during the run stops it with status CorpusChanged.
CensusResult runCensus(const TransformerModel& model, const Tokenizer& tokenizer,
                       const CensusOptions& options, const std::optional<CensusResult>& resumeFrom,
                       const CensusProgressCallback& progress, const std::atomic<bool>* cancel);

} // namespace attnscope
