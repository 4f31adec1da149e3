#include "model/memoryestimate.h"

#include "model/gguffile.h"
#include "model/weightstore.h"

#include <QFile>
#include <QLocale>
#include <algorithm>

namespace attnscope {

namespace {

bool isFloat(TensorDtype dtype)
{
    switch (dtype) {
    case TensorDtype::F32:
    case TensorDtype::F16:
    case TensorDtype::BF16:
    case TensorDtype::F64:
    case TensorDtype::F8E4M3:
    case TensorDtype::F8E5M2:
        return true;
    default:
        return false;
    }
}

// Vocabulary tables (embedding, LM head) are read a few rows or a chunk at a time, never converted whole.
bool isVocabularyTable(const std::vector<qint64>& shape, int vocabSize)
{
    return vocabSize > 0 && std::find(shape.begin(), shape.end(), qint64(vocabSize)) != shape.end();
}

constexpr qint64 kFloatBytes = 4;
constexpr qint64 kProcessBytes = 200LL * 1000 * 1000; // Qt, code, a tokenizer: measured 120-180 MB
constexpr int kDenseLimit = 1024;                     // RunOptions::denseLimit
constexpr int kQueryKeyLimit = 256;                   // what the explorer keeps for "Open in lesson"

} // namespace

WeightFootprint weightFootprint(const QString& folderOrGguf, int vocabSize)
{
    WeightFootprint footprint;
    auto add = [&](const std::vector<qint64>& shape, qint64 elements, qint64 bytes, bool f32) {
        footprint.parameters += elements;
        footprint.storedBytes += bytes;
        footprint.storedAsF32 = footprint.storedAsF32 && f32;
        if (!isVocabularyTable(shape, vocabSize))
            footprint.largestTensorElements = std::max(footprint.largestTensorElements, elements);
    };
    if (GgufFile::isGgufPath(folderOrGguf)) {
        const GgufFile file(folderOrGguf);
        for (const GgufTensor& tensor : file.tensors())
            add({tensor.ne.begin(), tensor.ne.end()}, tensor.elementCount(), tensor.bytes, false);
        return footprint;
    }
    const WeightStore store = WeightStore::openFolder(folderOrGguf);
    for (const auto& file : store.files())
        for (const QString& name : file->names()) {
            const TensorInfo* tensor = file->find(name);
            if (!tensor || !isFloat(tensor->dtype)) continue;
            add(tensor->shape, tensor->elementCount(), tensor->end - tensor->begin,
                tensor->dtype == TensorDtype::F32);
        }
    return footprint;
}

int planningTokens(const ModelInfo& info)
{
    return info.maxPositions > 0 ? std::min(kPlanningTokens, info.maxPositions) : kPlanningTokens;
}

MemoryEstimate estimateMemory(const ModelInfo& info)
{
    return estimateMemory(info, planningTokens(info));
}

MemoryEstimate estimateMemory(const ModelInfo& info, int tokens)
{
    const qint64 n = std::max(tokens, 1);
    const qint64 heads = std::max(info.heads, 1);
    const qint64 kvHeads = info.kvHeads > 0 ? info.kvHeads : heads;
    const qint64 headDim = info.headDim > 0 ? info.headDim : info.hidden / heads;
    const qint64 hidden = info.hidden;
    const qint64 intermediate = info.intermediate > 0 ? info.intermediate : 4 * hidden;
    MemoryEstimate e;
    e.tokens = tokens;
    e.weights = info.weightBytes > 0 ? info.weightBytes : info.fileBytes;
    // The tensor in use and the next one (a projection's weight and its bias, gate and up).
    e.conversion = info.storedAsF32 ? 0 : 2 * info.largestTensorElements * kFloatBytes;
    // Captured attention: every layer's and head's n×n probabilities (past the dense limit the tiles hold
    // about as much again; counted dense).
    const qint64 capture = info.layers * heads * n * n * kFloatBytes;
    const qint64 queryKey =
        n <= kQueryKeyLimit ? info.layers * n * (heads + kvHeads) * headDim * kFloatBytes : 0;
    // One layer in flight: residual, normed input, Q, K, V, the attention output, the MLP's inner rows
    // (gate, up, product), one head's scores per thread.
    const qint64 scratch =
        n * kFloatBytes * (3 * hidden + (heads + 2 * kvHeads + heads) * headDim + 3 * intermediate) +
        heads * n * std::min<qint64>(n, kDenseLimit) * kFloatBytes;
    e.activations = capture + queryKey + scratch;
    e.process = kProcessBytes;
    return e;
}

std::optional<qint64> parseMemAvailable(const QByteArray& meminfo)
{
    for (const QByteArray& line : meminfo.split('\n')) {
        if (!line.startsWith("MemAvailable:")) continue;
        const QList<QByteArray> fields = line.mid(int(qstrlen("MemAvailable:"))).simplified().split(' ');
        bool ok = false;
        const qint64 value = fields.value(0).toLongLong(&ok);
        if (!ok || value < 0) return std::nullopt;
        const QByteArray unit = fields.value(1).toLower();
        if (unit == "kb") return value * 1024;
        if (unit.isEmpty() || unit == "b") return value;
        return std::nullopt;
    }
    return std::nullopt;
}

std::optional<qint64> availableMemoryBytes()
{
    QFile file(QStringLiteral("/proc/meminfo"));
    if (!file.open(QIODevice::ReadOnly)) return std::nullopt;
    return parseMemAvailable(file.readAll());
}

QString formatParameterCount(qint64 parameters, const QLocale& c)
{
    if (parameters >= 1000LL * 1000 * 1000)
        return c.toString(double(parameters) / 1e9, 'f', 2) + QStringLiteral(" B");
    if (parameters >= 1000 * 1000) return c.toString(double(parameters) / 1e6, 'f', 1) + QStringLiteral(" M");
    if (parameters >= 1000) return c.toString(double(parameters) / 1e3, 'f', 1) + QStringLiteral(" k");
    return c.toString(parameters);
}

QString formatBytes(qint64 bytes, const QLocale& c)
{
    if (bytes >= 1000LL * 1000 * 1000) return c.toString(double(bytes) / 1e9, 'f', 2) + QStringLiteral(" GB");
    if (bytes >= 1000 * 1000) return c.toString(double(bytes) / 1e6, 'f', 0) + QStringLiteral(" MB");
    if (bytes >= 1000) return c.toString(double(bytes) / 1e3, 'f', 0) + QStringLiteral(" kB");
    return c.toString(bytes) + QStringLiteral(" B");
}

QString memoryRefusal(const ModelInfo& info, const MemoryEstimate& estimate, qint64 available)
{
    if (estimate.total() <= available) return QString();
    return QStringLiteral("%1 needs about %2 (%3 of weights, %4 working memory for %5 tokens) but only %6 "
                          "is available (MemAvailable in /proc/meminfo): not loaded")
        .arg(info.name, formatBytes(estimate.total()), formatBytes(estimate.weights),
             formatBytes(estimate.conversion + estimate.activations + estimate.process))
        .arg(estimate.tokens)
        .arg(formatBytes(available));
}

} // namespace attnscope
