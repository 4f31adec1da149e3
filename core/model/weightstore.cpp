#include "model/weightstore.h"

#include "io/inputfile.h"
#include "model/ggmlquants.h"
#include "model/modelerror.h"
#include "util/parallel.h"
#include "util/prefetch.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSysInfo>
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <new>
#include <optional>
#include <sys/mman.h>

namespace attnscope {

WeightTensor WeightTensor::view(std::shared_ptr<const void> owner, const float* data,
                                std::vector<qint64> shape)
{
    WeightTensor t;
    t.m_owner = std::move(owner);
    t.m_data = data;
    t.m_shape = std::move(shape);
    t.m_isView = true;
    return t;
}

WeightTensor WeightTensor::owned(std::vector<float> values, std::vector<qint64> shape)
{
    auto storage = std::make_shared<const std::vector<float>>(std::move(values));
    WeightTensor t;
    t.m_data = storage->data();
    t.m_owner = std::move(storage);
    t.m_shape = std::move(shape);
    return t;
}

WeightTensor WeightTensor::stored(std::shared_ptr<const void> owner, const void* data,
                                  ops::WeightStorage storage, std::vector<qint64> shape, bool transposed)
{
    WeightTensor t;
    t.m_storedTransposed = transposed;
    t.m_owner = std::move(owner);
    t.m_stored = data;
    t.m_storage = storage;
    t.m_shape = std::move(shape);
    t.m_isView = true;
    return t;
}

namespace {

// Freed large conversion buffers, kept for the next tensor of the same size: a model's layers have the same
// shapes, so from the second layer on a pass converts into memory that is already mapped, instead of the
// kernel clearing fresh pages for every tensor. At most kPoolLimit bytes are kept.
struct ConversionBufferPool
{
    std::mutex mutex;
    std::multimap<size_t, void*> free;
    size_t bytes = 0;
};
constexpr size_t kPoolLimit = size_t(1) << 30;
constexpr size_t kHugePage = size_t(2) << 20;

ConversionBufferPool& conversionBufferPool()
{
    static auto* buffers = new ConversionBufferPool; // never destroyed: tensors may be freed during exit
    return *buffers;
}

void returnConversionBuffer(float* data, size_t rounded)
{
    ConversionBufferPool& buffers = conversionBufferPool();
    {
        std::lock_guard<std::mutex> lock(buffers.mutex);
        if (buffers.bytes + rounded <= kPoolLimit) {
            buffers.free.emplace(rounded, data);
            buffers.bytes += rounded;
            return;
        }
    }
    std::free(data);
}

std::shared_ptr<float> largeConversionBuffer(size_t bytes)
{
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    ConversionBufferPool& buffers = conversionBufferPool();
    void* data = nullptr;
    {
        std::lock_guard<std::mutex> lock(buffers.mutex);
        if (const auto it = buffers.free.find(rounded); it != buffers.free.end()) {
            data = it->second;
            buffers.free.erase(it);
            buffers.bytes -= rounded;
        }
    }
    if (!data) {
        data = std::aligned_alloc(kHugePage, rounded);
        if (!data) throw std::bad_alloc();
#ifdef MADV_HUGEPAGE
        madvise(data, rounded, MADV_HUGEPAGE); // a hint: without THP, 4 KiB pages
#endif
    }
    return std::shared_ptr<float>(static_cast<float*>(data),
                                  [rounded](float* p) { returnConversionBuffer(p, rounded); });
}

} // namespace

WeightTensor WeightTensor::converted(qint64 count, std::vector<qint64> shape,
                                     const std::function<void(float*)>& fill)
{
    const size_t bytes = size_t(std::max<qint64>(count, 1)) * sizeof(float);
    std::shared_ptr<float> storage;
    if (bytes >= 2 * kHugePage) {
        storage = largeConversionBuffer(bytes);
    } else {
        float* data = static_cast<float*>(std::malloc(bytes));
        if (!data) throw std::bad_alloc();
        storage.reset(data, [](float* p) { std::free(p); });
    }
    fill(storage.get());
    WeightTensor t;
    t.m_data = storage.get();
    t.m_owner = std::move(storage);
    t.m_shape = std::move(shape);
    return t;
}

WeightTensor WeightTensor::rowRange(qint64 first, qint64 count) const
{
    std::vector<qint64> shape = m_shape;
    const qint64 rowElements = rows() == 0 ? 0 : size() / rows();
    if (!shape.empty()) shape.front() = count;
    return view(m_owner, m_data + first * rowElements, std::move(shape));
}

qint64 WeightTensor::size() const
{
    qint64 n = 1;
    for (qint64 d : m_shape)
        n *= d;
    return n;
}

WeightStore WeightStore::openFiles(const QStringList& paths)
{
    WeightStore store;
    for (const QString& path : paths) {
        auto file = std::make_shared<const SafetensorsFile>(path);
        const int index = int(store.m_files.size());
        for (const QString& name : file->names()) {
            if (const int other = store.m_where.value(name, -1); other >= 0)
                throw ModelError(
                    QDir::toNativeSeparators(path),
                    QStringLiteral("tensor %1 is also in %2: each tensor must be stored once")
                        .arg(name, QDir::toNativeSeparators(store.m_files[size_t(other)]->path())));
            store.m_where.insert(name, index);
        }
        store.m_totalBytes += file->fileBytes();
        store.m_files.push_back(std::move(file));
    }
    return store;
}

WeightStore WeightStore::openFolder(const QString& folder)
{
    const QDir dir(folder);
    const QString single = dir.filePath(QStringLiteral("model.safetensors"));
    const QString indexPath = dir.filePath(QStringLiteral("model.safetensors.index.json"));
    // A name that is there, even as a dangling symbolic link, is what the folder means: opening it says
    // what is wrong with it.
    auto present = [](const QString& path) {
        return QFileInfo(path).exists() || QFileInfo(path).isSymLink();
    };
    if (present(single)) return openFiles({single});
    if (!present(indexPath)) {
        const QStringList others = dir.entryList({QStringLiteral("*.safetensors")}, QDir::Files, QDir::Name);
        if (others.size() == 1) return openFiles({dir.filePath(others.front())});
        const bool pytorch = QFileInfo::exists(dir.filePath(QStringLiteral("pytorch_model.bin")));
        throw ModelError(ModelProblem{ModelProblem::Kind::MissingWeights,
                                      QDir::toNativeSeparators(folder),
                                      {pytorch ? QStringLiteral("pytorch") : QString()}});
    }

    const QString indexFile = QDir::toNativeSeparators(indexPath);
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(indexPath, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(indexFile, problem);
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(*bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        throw ModelError(indexFile, QStringLiteral("invalid JSON at byte %1: %2")
                                        .arg(parseError.offset)
                                        .arg(parseError.errorString()));
    if (!doc.isObject()) throw ModelError(indexFile, QStringLiteral("not a JSON object"));
    const QJsonObject weightMap = doc.object().value(QLatin1String("weight_map")).toObject();
    if (weightMap.isEmpty()) throw ModelError(indexFile, QStringLiteral("no weight_map object"));

    std::map<QString, QStringList> tensorsByShard;
    for (auto it = weightMap.begin(); it != weightMap.end(); ++it) {
        if (!it.value().isString())
            throw ModelError(indexFile,
                             QStringLiteral("tensor %1 maps to %2, not to a shard's file name")
                                 .arg(it.key(), QString::fromUtf8(QJsonDocument(QJsonArray{it.value()})
                                                                      .toJson(QJsonDocument::Compact)
                                                                      .chopped(1)
                                                                      .mid(1))));
        const QString shard = it.value().toString();
        if (shard.isEmpty() || shard.contains(QLatin1Char('/')) || shard.contains(QLatin1Char('\\')))
            throw ModelError(
                indexFile,
                QStringLiteral("tensor %1 maps to an invalid shard name '%2'").arg(it.key(), shard));
        tensorsByShard[shard] << it.key();
    }
    QStringList paths;
    for (const auto& entry : tensorsByShard)
        paths << dir.filePath(entry.first);
    WeightStore store = openFiles(paths);
    // Every tensor the index promises must be in the shard it names.
    for (const auto& entry : tensorsByShard) {
        const QString shardPath = dir.filePath(entry.first);
        for (const QString& name : entry.second) {
            const int where = store.m_where.value(name, -1);
            if (where < 0 || store.m_files[size_t(where)]->path() != shardPath)
                throw ModelError(
                    QDir::toNativeSeparators(shardPath),
                    QStringLiteral("tensor %1, listed in model.safetensors.index.json, is not in this shard")
                        .arg(name));
        }
    }
    return store;
}

WeightStore WeightStore::openGguf(std::shared_ptr<const GgufFile> file,
                                  const GgufModelDescription& description)
{
    WeightStore store;
    for (const GgufTensorMapping& mapping : description.tensors) {
        GgufEntry entry;
        entry.info.name = mapping.hfName;
        entry.info.dtype = TensorDtype::F32;
        entry.info.shape = mapping.hfShape;
        entry.mapping = mapping;
        store.m_gguf.insert(mapping.hfName, entry);
    }
    store.m_ggufNames = description.ggufNames;
    store.m_totalBytes = file->fileBytes();
    store.m_ggufFile = std::move(file);
    return store;
}

QStringList WeightStore::names() const
{
    QStringList list = m_where.keys() + m_gguf.keys();
    list.sort();
    return list;
}

const TensorInfo* WeightStore::info(const QString& name) const
{
    if (const auto it = m_gguf.constFind(name); it != m_gguf.cend()) return &it->info;
    const int where = m_where.value(name, -1);
    return where < 0 ? nullptr : m_files[size_t(where)]->find(name);
}

QString WeightStore::storageType(const QString& name) const
{
    if (const auto it = m_gguf.constFind(name); it != m_gguf.cend())
        return ggmlTypeName(it->mapping.source->type);
    const TensorInfo* tensor = info(name);
    return tensor ? dtypeName(tensor->dtype) : QString();
}

bool WeightStore::convertsToFloat(const QString& name) const
{
    if (const auto it = m_gguf.constFind(name); it != m_gguf.cend())
        return ggmlTypeTraits(it->mapping.source->type).has_value();
    const TensorInfo* tensor = info(name);
    return tensor && (tensor->dtype == TensorDtype::F32 || tensor->dtype == TensorDtype::F16 ||
                      tensor->dtype == TensorDtype::BF16);
}

QString WeightStore::fileOf(const QString& name) const
{
    if (m_gguf.contains(name)) return m_ggufFile->displayPath();
    const int where = m_where.value(name, -1);
    return where < 0 ? QString() : QDir::toNativeSeparators(m_files[size_t(where)]->path());
}

QString WeightStore::primaryFile() const
{
    if (m_ggufFile) return m_ggufFile->displayPath();
    return m_files.empty() ? QString() : QDir::toNativeSeparators(m_files.front()->path());
}

WeightTensor WeightStore::load(const QString& name) const
{
    ConvertedCache& cache = *m_converted;
    bool keep = false;
    {
        const std::lock_guard<std::mutex> lock(cache.mutex);
        keep = cache.scopes > 0;
        if (keep) {
            if (const auto it = cache.tensors.constFind(name); it != cache.tensors.cend()) return *it;
        }
    }
    const TensorInfo* tensor = info(name);
    WeightTensor loaded = readRows(name, 0, tensor && !tensor->shape.empty() ? tensor->shape.front() : 1);
    if (keep && !loaded.isView()) {
        const std::lock_guard<std::mutex> lock(cache.mutex);
        const qint64 bytes = loaded.size() * qint64(sizeof(float));
        if (cache.scopes > 0 && cache.usedBytes + bytes <= cache.budgetBytes &&
            !cache.tensors.contains(name)) {
            cache.tensors.insert(name, loaded);
            cache.usedBytes += bytes;
        }
    }
    return loaded;
}

namespace {

// How ops::linear reads a GGUF tensor of `type` as stored; nullopt for F32 (read as it is) and types it
// does not take.
std::optional<ops::WeightStorage> productStorage(std::uint32_t type)
{
    using S = ops::WeightStorage;
    switch (GgmlType(type)) {
    case GgmlType::F16:
        return S::F16;
    case GgmlType::BF16:
        return S::BF16;
    case GgmlType::Q4_0:
        return S::Q4_0;
    case GgmlType::Q4_1:
        return S::Q4_1;
    case GgmlType::Q5_0:
        return S::Q5_0;
    case GgmlType::Q5_1:
        return S::Q5_1;
    case GgmlType::Q8_0:
        return S::Q8_0;
    case GgmlType::Q2_K:
        return S::Q2_K;
    case GgmlType::Q3_K:
        return S::Q3_K;
    case GgmlType::Q4_K:
        return S::Q4_K;
    case GgmlType::Q5_K:
        return S::Q5_K;
    case GgmlType::Q6_K:
        return S::Q6_K;
    default:
        return std::nullopt;
    }
}

} // namespace

WeightTensor WeightStore::loadGgufForProduct(const GgufEntry& entry) const
{
    // A 2-D tensor's blocks as stored, nothing converted. Quantized ones always (never an fp32 copy of the
    // matrix, also under KeepConverted); F16/BF16 where the own product reads them (readsStoredWeights) and
    // no KeepConverted scope keeps their fp32 copy. Each GGUF row is a whole number of blocks, so:
    //   - llama's q/k (rows permuted for llama.cpp's RoPE): the rows' blocks are copied into HF order, a
    //     buffer the size of the stored tensor (a few MB per layer), not converted;
    //   - GPT-2's Conv1D matrices (HF [in, out], stored [out, in]): read as stored, marked transposed so
    //     that the product takes them [out, in].
    const GgufTensorMapping& m = entry.mapping;
    const GgufTensor& source = *m.source;
    const std::optional<ops::WeightStorage> storage = productStorage(source.type);
    using Layout = GgufTensorMapping::Layout;
    const bool quantized = storage && ops::isQuantized(*storage);
    const std::vector<qint64>& shape = entry.info.shape;
    const bool matrix =
        shape.size() == 2 && source.ne.size() == 2 &&
        (m.layout == Layout::Transposed ? shape.front() : shape.back()) == source.rowElements();
    if (!storage || !matrix || m.addend != 0.0f || QSysInfo::ByteOrder != QSysInfo::LittleEndian ||
        (!quantized && (!ops::readsStoredWeights() || keepsWhole(m.hfName))))
        return load(m.hfName);
    const unsigned char* blocks = m_ggufFile->data(source);
    if (m.layout == Layout::Transposed)
        return WeightTensor::stored(m_ggufFile, blocks, *storage, shape, /*transposed=*/true);
    if (m.layout == Layout::InterleavedRopeRows) {
        // GGUF row h·d + 2i + j holds HF row h·d + j·d/2 + i (as loadGgufRows).
        const qint64 rows = shape.front(), d = rows / m.ropeHeads;
        const qint64 rowBytes = source.bytes / source.rows();
        auto reordered = std::make_shared<std::vector<unsigned char>>(size_t(source.bytes));
        for (qint64 row = 0; row < rows; ++row) {
            const qint64 i = row % d;
            const qint64 ggufRow = row - i + 2 * (i % (d / 2)) + i / (d / 2);
            std::memcpy(reordered->data() + row * rowBytes, blocks + ggufRow * rowBytes, size_t(rowBytes));
        }
        const unsigned char* data = reordered->data();
        return WeightTensor::stored(std::move(reordered), data, *storage, shape);
    }
    return WeightTensor::stored(m_ggufFile, blocks, *storage, shape);
}

WeightTensor WeightStore::loadForProduct(const QString& name) const
{
    if (const auto it = m_gguf.constFind(name); it != m_gguf.cend()) return loadGgufForProduct(*it);
    const int where = m_where.value(name, -1);
    if (where < 0 || !ops::readsStoredWeights() || QSysInfo::ByteOrder != QSysInfo::LittleEndian)
        return load(name);
    // A caller that keeps converted copies (KeepConverted: the ablation scan, generation) runs many passes
    // over the same weights: its fp32 copy, converted once, is cheaper than converting while packing each time.
    if (keepsWhole(name)) return load(name);
    const std::shared_ptr<const SafetensorsFile>& file = m_files[size_t(where)];
    const TensorInfo& tensor = *file->find(name);
    if (tensor.shape.size() != 2 || (tensor.dtype != TensorDtype::F16 && tensor.dtype != TensorDtype::BF16))
        return load(name);
    return WeightTensor::stored(
        file, file->bytes(tensor),
        tensor.dtype == TensorDtype::F16 ? ops::WeightStorage::F16 : ops::WeightStorage::BF16, tensor.shape);
}

WeightStore::KeepConverted::KeepConverted(const WeightStore& store, qint64 budgetBytes)
    : m_cache(store.m_converted)
{
    const std::lock_guard<std::mutex> lock(m_cache->mutex);
    ++m_cache->scopes;
    m_cache->budgetBytes = std::max(m_cache->budgetBytes, budgetBytes);
}

WeightStore::KeepConverted::~KeepConverted()
{
    const std::lock_guard<std::mutex> lock(m_cache->mutex);
    if (--m_cache->scopes > 0) return;
    m_cache->tensors.clear();
    m_cache->usedBytes = 0;
    m_cache->budgetBytes = 0;
}

bool WeightStore::keepsWhole(const QString& name) const
{
    const TensorInfo* tensor = info(name);
    if (!tensor) return false;
    const qint64 bytes = tensor->elementCount() * qint64(sizeof(float));
    const ConvertedCache& cache = *m_converted;
    const std::lock_guard<std::mutex> lock(m_converted->mutex);
    return cache.scopes > 0 && (cache.tensors.contains(name) || cache.usedBytes + bytes <= cache.budgetBytes);
}

WeightTensor WeightStore::loadRows(const QString& name, qint64 firstRow, qint64 rowCount) const
{
    if (const TensorInfo* tensor = info(name);
        tensor && !tensor->shape.empty() && firstRow >= 0 && rowCount >= 0 &&
        firstRow <= tensor->shape.front() - rowCount && keepsWhole(name))
        return load(name).rowRange(firstRow, rowCount);
    return readRows(name, firstRow, rowCount);
}

WeightTensor WeightStore::readRows(const QString& name, qint64 firstRow, qint64 rowCount) const
{
    if (const auto it = m_gguf.constFind(name); it != m_gguf.cend())
        return loadGgufRows(*it, firstRow, rowCount);
    const int where = m_where.value(name, -1);
    if (where < 0) {
        const QString file = primaryFile().isEmpty() ? QStringLiteral("model") : primaryFile();
        throw ModelError(file, QStringLiteral("tensor %1 is missing").arg(name));
    }
    const std::shared_ptr<const SafetensorsFile>& file = m_files[size_t(where)];
    const TensorInfo& tensor = *file->find(name);
    std::vector<qint64> shape = tensor.shape;
    const qint64 rows = shape.empty() ? 1 : shape.front();
    if (firstRow < 0 || rowCount < 0 || firstRow + rowCount > rows)
        throw ModelError(QDir::toNativeSeparators(file->path()),
                         QStringLiteral("rows [%1, %2) of tensor %3 are outside its %4 rows")
                             .arg(firstRow)
                             .arg(firstRow + rowCount)
                             .arg(name)
                             .arg(rows));
    const qint64 rowElements = rows == 0 ? 0 : tensor.elementCount() / rows;
    if (!shape.empty()) shape.front() = rowCount;
    if (const float* direct = file->directFloats(tensor))
        return WeightTensor::view(file, direct + firstRow * rowElements, shape);
    // F16/BF16 → f32 in pieces of 1 Mi values over all cores: it is memory-bound, and the other core would
    // otherwise wait for it between one layer's products and the next.
    const qint64 first = firstRow * rowElements, count = rowCount * rowElements;
    constexpr qint64 kPiece = qint64(1) << 20;
    return WeightTensor::converted(count, shape, [&](float* out) {
        const int pieces = int((count + kPiece - 1) / kPiece);
        parallelFor(pieces, count >= 4 * kPiece ? 0 : 1, [&](int piece) {
            const qint64 begin = qint64(piece) * kPiece;
            file->convertRange(tensor, first + begin, std::min(kPiece, count - begin), out + begin);
        });
    });
}

WeightTensor WeightStore::loadGgufRows(const GgufEntry& entry, qint64 firstRow, qint64 rowCount) const
{
    const GgufTensorMapping& m = entry.mapping;
    const GgufTensor& source = *m.source;
    const GgufFile& file = *m_ggufFile;
    std::vector<qint64> shape = entry.info.shape;
    const qint64 rows = shape.front();
    if (firstRow < 0 || rowCount < 0 || firstRow > rows - rowCount)
        throw ModelError(file.displayPath(),
                         QStringLiteral("rows [%1, %2) of tensor %3 are outside its %4 rows")
                             .arg(firstRow)
                             .arg(firstRow + rowCount)
                             .arg(m.hfName)
                             .arg(rows));
    const qint64 cols = rows == 0 ? 0 : entry.info.elementCount() / rows; // 1 for a vector
    shape.front() = rowCount;
    const qint64 stored = source.rowElements(); // elements per GGUF row
    std::vector<float> values(size_t(rowCount * cols));
    using Layout = GgufTensorMapping::Layout;
    if (m.layout == Layout::AsStored && cols % stored == 0) {
        // Whole GGUF rows: HF row r is GGUF rows [r·cols/stored, (r+1)·cols/stored).
        const qint64 per = cols / stored;
        if (source.type == std::uint32_t(GgmlType::F32) && m.addend == 0.0f &&
            QSysInfo::ByteOrder == QSysInfo::LittleEndian &&
            reinterpret_cast<quintptr>(file.data(source)) % alignof(float) == 0)
            return WeightTensor::view(
                m_ggufFile, reinterpret_cast<const float*>(file.data(source)) + firstRow * cols, shape);
        file.dequantizeRows(source, firstRow * per, rowCount * per, values.data());
    } else if (m.layout == Layout::InterleavedRopeRows && cols > 1) {
        // GGUF row h·d + 2i + j holds HF row h·d + j·d/2 + i.
        const qint64 d = rows / m.ropeHeads;
        for (qint64 r = 0; r < rowCount; ++r) {
            const qint64 row = firstRow + r, i = row % d;
            const qint64 ggufRow = row - i + 2 * (i % (d / 2)) + i / (d / 2);
            file.dequantizeRows(source, ggufRow, 1, values.data() + r * cols);
        }
    } else {
        // A vector (read whole, then picked) or a transposed matrix: every stored element, then rearranged.
        std::vector<float> all(size_t(source.elementCount()));
        file.dequantizeRows(source, 0, source.rows(), all.data());
        for (qint64 r = 0; r < rowCount; ++r) {
            const qint64 row = firstRow + r;
            for (qint64 c = 0; c < cols; ++c) {
                qint64 from = row * cols + c;
                if (m.layout == Layout::Transposed) {
                    from = c * stored + row; // HF [ne0, ne1]: element (row, c) is stored at row c, column row
                } else if (m.layout == Layout::InterleavedRopeRows) {
                    const qint64 d = rows / m.ropeHeads, i = row % d;
                    from = row - i + 2 * (i % (d / 2)) + i / (d / 2);
                }
                values[size_t(r * cols + c)] = all[size_t(from)];
            }
        }
    }
    if (m.addend != 0.0f)
        for (float& v : values)
            v += m.addend;
    return WeightTensor::owned(std::move(values), shape);
}

void WeightStore::prefetch(const std::function<void(qint64, qint64)>& progress,
                           const std::atomic<bool>* cancel) const
{
    std::vector<std::pair<const unsigned char*, qint64>> mappings;
    for (const auto& file : m_files)
        mappings.push_back({file->mapping(), file->fileBytes()});
    if (m_ggufFile) mappings.push_back({m_ggufFile->mapping(), m_ggufFile->fileBytes()});
    qint64 total = 0;
    for (const auto& mapping : mappings)
        total += mapping.second;
    qint64 done = 0;
    for (const auto& [begin, bytes] : mappings) {
        prefetchMapping(
            begin, bytes,
            [&, base = done](qint64 fileDone) {
                if (progress) progress(base + fileDone, total);
            },
            cancel);
        done += bytes;
    }
}

} // namespace attnscope
