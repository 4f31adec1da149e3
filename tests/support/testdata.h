#pragma once

// Small readers, writers and references the tests share: JSON files, the tokenizer data sets of
// tests/data/tokenizers, and the activations in double precision.

#include "attention/headtensor.h"
#include "model/activation.h"
#include "stats/headstats.h"

#include <QByteArray>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <functional>
#include <optional>
#include <random>
#include <utility>
#include <vector>

namespace attnscope::testing {

// The JSON object in path; {} when the file cannot be read.
QJsonObject readJsonObject(const QString& path);
// The same for a file the test cannot do without: the test program stops (qFatal), naming the file.
QJsonObject readRequiredJsonObject(const QString& path);
// Writes object to path (indented), or the test program stops (qFatal), naming the file.
void writeJsonObject(const QString& path, const QJsonObject& object);
// The bytes of the file at path; empty when it cannot be read.
QByteArray readFileBytes(const QString& path);
// Writes bytes to path (replacing a file there); false when they cannot all be written.
bool writeFileBytes(const QString& path, const QByteArray& bytes);
// Writes bytes to path, or the test program stops (qFatal), naming the file.
void writeRequiredFile(const QString& path, const QByteArray& bytes);

// The tokenizer.json of data set `set` under tests/data/tokenizers: the file itself, or for an overlay.json
// the base tokenizer.json with the overlay's sections (and model fields) replaced, as generate.js does.
QJsonObject testTokenizerJson(const QString& set);

// One case of a tokenizer data set's vectors.json (computed by the Rust tokenizers): the input, and the ids,
// tokens and offsets (code points) expected of it.
struct TokenizerVectorCase
{
    QString text;
    std::optional<QString> textB;
    bool addSpecialTokens = false;
    std::vector<int> ids;
    QStringList tokens;
    std::vector<std::pair<int, int>> offsets;
};
TokenizerVectorCase tokenizerVectorCase(const QJsonObject& c);

// A command's per-head JSON rows ("layer", "head" and its measures) with each head's P, [query][key], from
// an oracle fixture's "attentions" ([layer][head][query][key]): the independent truth the rows are read
// against. fixtureHeadCount is layers × heads of the fixture.
struct HeadWithFixtureP
{
    QJsonObject head;
    QJsonArray p;
};
std::vector<HeadWithFixtureP> headsWithFixtureP(const QJsonArray& heads, const QJsonObject& fixture);
int fixtureHeadCount(const QJsonObject& fixture);

// The first `count` sentences of the shipped corpus (resources/corpus/census-sentences.jsonl), one a line.
QByteArray censusSentences(int count);

// Makes a FIFO (mode 0600) at path; false where it cannot (and on systems without FIFOs).
bool makeFifo(const QString& path);

// Every file below dir (hidden ones and those in subfolders too), as paths relative to dir, sorted.
QStringList filesUnder(const QString& dir);

// Copies from to to, making to's folder and replacing a file there; false when the copy fails.
bool copyFileReplacing(const QString& from, const QString& to);

// The message of the ModelError f throws; empty when it throws none.
QString modelErrorOf(const std::function<void()>& f);
// What f returns, or the message of the ModelError, TokenizerError or NpyError it throws: what a reader said
// of a bad input.
QString inputErrorOf(const std::function<QString()>& f);

// tokens × heads × dim values drawn from N(0, stddev²) by rng, in order: random Q, K and V.
HeadTensor randomHeadTensor(int tokens, int heads, int dim, std::mt19937& rng, float stddev = 1.0f);

// Largest |a − b| over the elements; +inf where the sizes differ or a difference is NaN, so that a bound on
// it (< tolerance) fails on either.
double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b);

// The head (layer, head) with the largest first-token or [SEP] mass, by hand from its statistics; the earlier
// one on a tie, (-1, -1) for none: what the explorer's first start must open (issue 36), written here
// independently of core's strongestSinkOrSepHead.
std::pair<int, int> strongestSinkOrSepHeadByHand(const std::vector<HeadStats>& stats);

// The activation in double: the independent truth for the kernels' float ones.
double referenceActivation(double x, Activation activation);

} // namespace attnscope::testing
