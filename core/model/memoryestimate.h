#pragma once

// What a model will cost before it is loaded: its parameter count and the memory a forward pass with
// attention capture needs, computed from the weight files' headers (safetensors JSON header, GGUF tensor
// directory) and config.json, never from the weights themselves. The explorer shows both in its model
// picker and refuses a model whose estimate exceeds MemAvailable, instead of leaving it to the OOM killer.

#include "model/modelinfo.h"

#include <QByteArray>
#include <QLocale>
#include <QString>
#include <optional>

namespace attnscope {

// The float tensors of a model's weight files, from their headers. Integer buffers (position_ids) are
// not parameters and are left out.
struct WeightFootprint
{
    qint64 parameters = 0;            // elements of every float tensor
    qint64 storedBytes = 0;           // those tensors' bytes as stored (what the mapping makes resident)
    qint64 largestTensorElements = 0; // the forward pass converts one tensor at a time to fp32
    bool storedAsF32 = true;          // F32 tensors are used in place: no conversion buffer
};

// Throws ModelError "<file>: <problem>" for a folder without readable weights or a damaged header.
// vocabSize: tensors with a dimension of that size (embedding, LM head) are read by rows, so they do
// not count towards largestTensorElements (0: every tensor counts).
WeightFootprint weightFootprint(const QString& folderOrGguf, int vocabSize = 0);

// Peak memory of one forward pass over `tokens` tokens with every layer's attention captured, in bytes:
// the mapped weights (read in full by a pass that predicts), one tensor converted to fp32, the captured
// attention (layers·heads·n² floats, stored dense up to RunOptions::denseLimit), the rotated Q and K the
// explorer keeps up to 256 tokens, the residual stream and a layer's scratch, and the process itself.
// An upper estimate for planning, not a measurement (docs/benchmarks.md compares it with peak RSS).
struct MemoryEstimate
{
    int tokens = 0;
    qint64 weights = 0;     // mapped weight files
    qint64 conversion = 0;  // fp32 copies of the tensors in use (0 for F32 checkpoints)
    qint64 activations = 0; // capture + residual stream + one layer's scratch
    qint64 process = 0;     // code, Qt, tokenizer
    qint64 total() const { return weights + conversion + activations + process; }
};

// The token count the picker plans for (the estimate it shows and checks before loading): 512, or the
// model's positions where it takes fewer (a 256-position model never runs 512 tokens; its line would
// promise an input the window then refuses).
constexpr int kPlanningTokens = 512;
int planningTokens(const ModelInfo& info);

MemoryEstimate estimateMemory(const ModelInfo& info, int tokens);
// At planningTokens(info).
MemoryEstimate estimateMemory(const ModelInfo& info);

// MemAvailable from the text of /proc/meminfo ("MemAvailable:   12345 kB"), in bytes; nullopt when absent.
std::optional<qint64> parseMemAvailable(const QByteArray& meminfo);
// MemAvailable of this machine (/proc/meminfo); nullopt where there is no such file (not Linux).
std::optional<qint64> availableMemoryBytes();

// "" when the estimate fits in `available`; else one line a user can act on, with the numbers:
// "<name> needs about 17.9 GB (...) but only 9.6 GB is available (MemAvailable in /proc/meminfo)".
QString memoryRefusal(const ModelInfo& info, const MemoryEstimate& estimate, qint64 available);

// "1.24 B", "110 M", "4.39 k" parameters; "2.47 GB", "512 MB" (decimal units, as file managers show).
// The C locale's "1.24" by default (the command line's output); the GUI passes the user's (Turkish "1,24").
QString formatParameterCount(qint64 parameters, const QLocale& locale = QLocale::c());
QString formatBytes(qint64 bytes, const QLocale& locale = QLocale::c());

} // namespace attnscope
