#pragma once

#include "model/ggufmodel.h"
#include "model/safetensorsfile.h"
#include "model/tensorops.h"

#include <QHash>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

namespace attnscope {

// A tensor as fp32: a view of F32 data inside a mapped file (no copy), or an owned converted copy of
// F16/BF16 data. Or, for the products only (WeightStore::loadForProduct), a view of F16/BF16 data as the
// file stores it: data() is null then, and storedData() points into the mapping. Every kind keeps what it
// points into alive.
class WeightTensor
{
public:
    WeightTensor() = default;
    static WeightTensor view(std::shared_ptr<const void> owner, const float* data, std::vector<qint64> shape);
    static WeightTensor owned(std::vector<float> values, std::vector<qint64> shape);
    // `count` floats of uninitialised memory for a converted tensor, which `fill` writes. Large ones (4 MiB
    // and more) reuse a freed buffer of the same size (up to 1 GiB is kept: a model's layers repeat their
    // shapes), else are new and advised for transparent huge pages: a layer of Llama-3.2-1B is 240 MB, and
    // the kernel clearing fresh pages for every layer cost more than the conversion.
    static WeightTensor converted(qint64 count, std::vector<qint64> shape,
                                  const std::function<void(float*)>& fill);
    // `transposed`: the stored matrix is [cols, rows] of `shape` (GPT-2's Conv1D weights in a GGUF file).
    static WeightTensor stored(std::shared_ptr<const void> owner, const void* data,
                               ops::WeightStorage storage, std::vector<qint64> shape,
                               bool transposed = false);

    const float* data() const { return m_data; }
    const std::vector<qint64>& shape() const { return m_shape; }
    qint64 size() const;
    // 2-D tensors: rows × cols, row-major (PyTorch order).
    qint64 rows() const { return m_shape.empty() ? 0 : m_shape.front(); }
    qint64 cols() const { return m_shape.size() < 2 ? 1 : m_shape.back(); }
    bool isView() const { return m_isView; }
    bool isNull() const { return m_data == nullptr && m_stored == nullptr; }
    // The weights as stored (F16/BF16) for a tensor from WeightStore::loadForProduct, else null.
    const void* storedData() const { return m_stored; }
    ops::WeightStorage storage() const { return m_storage; }
    // The stored matrix is the transpose of shape() (see stored()).
    bool storedTransposed() const { return m_storedTransposed; }
    // Rows [first, first + count) (first dimension) of an fp32 tensor as a view that keeps this tensor's data
    // alive.
    WeightTensor rowRange(qint64 first, qint64 count) const;

private:
    std::shared_ptr<const void> m_owner;
    const float* m_data = nullptr;
    const void* m_stored = nullptr;
    ops::WeightStorage m_storage = ops::WeightStorage::F32;
    std::vector<qint64> m_shape;
    bool m_isView = false;
    bool m_storedTransposed = false;
};

// fp32 copies of converted tensors, kept while a WeightStore::KeepConverted lives.
struct ConvertedCache
{
    std::mutex mutex;
    int scopes = 0;
    qint64 budgetBytes = 0;
    qint64 usedBytes = 0;
    QHash<QString, WeightTensor> tensors;
};

// The tensors of a model by their Hugging Face names: model.safetensors, or the shards named by
// model.safetensors.index.json (its weight_map says which shard holds each tensor), or a llama.cpp .gguf
// file read through a GgufModelDescription (ggufmodel.h). Files are mapped, never read up front; a tensor is
// converted to fp32 (F16/BF16 converted, GGUF blocks dequantized) when load() asks for it.
class WeightStore
{
public:
    // Throws ModelError "<file>: <problem>" for a missing or damaged file.
    static WeightStore openFolder(const QString& folder);
    static WeightStore openFiles(const QStringList& safetensorsPaths);
    // The tensors `description` maps out of `file` (describeGgufModel(*file)).
    static WeightStore openGguf(std::shared_ptr<const GgufFile> file,
                                const GgufModelDescription& description);

    bool contains(const QString& name) const { return m_where.contains(name) || m_gguf.contains(name); }
    QStringList names() const;
    int tensorCount() const { return int(m_where.size() + m_gguf.size()); }
    // Name and shape (Hugging Face order) of a tensor; null when absent. For a GGUF tensor, dtype is F32
    // (what load() delivers) and begin/end are 0: storageType() names what the file holds.
    const TensorInfo* info(const QString& name) const;
    // "F32", "BF16", "Q4_K", ... as stored ("" when absent).
    QString storageType(const QString& name) const;
    // Whether load() can give the tensor as fp32 (F32, F16, BF16 and the GGUF types ggmlquants.h converts).
    bool convertsToFloat(const QString& name) const;
    // The file that holds `name`, for messages ("" when absent).
    QString fileOf(const QString& name) const;
    // The first (or only) file of the model, for messages.
    QString primaryFile() const;
    // fp32 tensor: a view for aligned F32, else converted. Throws ModelError when absent or not a float type.
    WeightTensor load(const QString& name) const;
    // A projection's weight matrix for ops::linear: when it multiplies F16/BF16 weights as stored
    // (ops::readsStoredWeights()) and the file holds them so, a view of those bytes (no conversion, nothing
    // allocated); a GGUF file's quantized blocks likewise at every kernel level (ops::isQuantized) and
    // whatever KeepConverted keeps (llama's permuted q/k rows: the blocks copied into HF row order; GPT-2's
    // matrices: marked storedTransposed()); else load(name), and also while a KeepConverted scope keeps (or
    // can keep) an F16/BF16 tensor's fp32 copy.
    WeightTensor loadForProduct(const QString& name) const;
    // Rows [firstRow, firstRow + rowCount) of a tensor (first dimension), e.g. a few embedding rows. While a
    // KeepConverted lives, from the kept fp32 copy of the whole tensor when it has (or, within the budget,
    // gets) one: an LM head scored in row chunks is then converted once, not once a pass.
    WeightTensor loadRows(const QString& name, qint64 firstRow, qint64 rowCount) const;
    qint64 totalBytes() const { return m_totalBytes; }
    // Reads every mapped file into memory ahead of the forward pass (madvise WILLNEED, then one read per
    // page), so that the pass does not stall on the disk one page fault at a time. progress(bytesRead,
    // totalBytes) is called every 64 MiB; throws OperationCancelled when *cancel turns true.
    void prefetch(const std::function<void(qint64, qint64)>& progress = {},
                  const std::atomic<bool>* cancel = nullptr) const;
    // The safetensors files (empty for a GGUF model).
    const std::vector<std::shared_ptr<const SafetensorsFile>>& files() const { return m_files; }
    // The GGUF file (null for safetensors).
    const std::shared_ptr<const GgufFile>& ggufFile() const { return m_ggufFile; }
    // In a GGUF store, the file's own name for a Hugging Face name the model looks for, present or not
    // ("blk.0.attn_q.weight" for "model.layers.0.self_attn.q_proj.weight"); "" otherwise.
    QString ggufName(const QString& name) const { return m_ggufNames.value(name); }

    // While one of these lives, load() keeps the fp32 copies it converts (F16, BF16, GGUF blocks), up to
    // budgetBytes of them, and hands out the same copy again: a run of thousands of passes over a small
    // model (the StreamingLLM evaluation) converts each tensor once instead of once a pass. The values are
    // those of a fresh conversion; the copies are dropped when the last scope ends. Thread-safe.
    class KeepConverted
    {
    public:
        KeepConverted(const WeightStore& store, qint64 budgetBytes);
        ~KeepConverted();
        KeepConverted(const KeepConverted&) = delete;
        KeepConverted& operator=(const KeepConverted&) = delete;

    private:
        std::shared_ptr<ConvertedCache> m_cache;
    };

private:
    struct GgufEntry
    {
        TensorInfo info;
        GgufTensorMapping mapping;
    };
    WeightTensor loadGgufRows(const GgufEntry& entry, qint64 firstRow, qint64 rowCount) const;
    WeightTensor loadGgufForProduct(const GgufEntry& entry) const;
    // loadRows() from the file (or the GGUF blocks), never from the kept copies.
    WeightTensor readRows(const QString& name, qint64 firstRow, qint64 rowCount) const;
    // Whether load(name) keeps (or already kept) an fp32 copy of the whole tensor.
    bool keepsWhole(const QString& name) const;

    std::vector<std::shared_ptr<const SafetensorsFile>> m_files;
    QHash<QString, int> m_where; // tensor name -> index into m_files
    std::shared_ptr<const GgufFile> m_ggufFile;
    QHash<QString, GgufEntry> m_gguf; // Hugging Face name -> where it is in m_ggufFile
    QHash<QString, QString> m_ggufNames; // Hugging Face name -> GGUF name, for every name looked for
    qint64 m_totalBytes = 0;
    // Shared by copies of the store (they read the same files); empty unless a KeepConverted lives.
    std::shared_ptr<ConvertedCache> m_converted = std::make_shared<ConvertedCache>();
};

} // namespace attnscope
