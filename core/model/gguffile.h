#pragma once

// A llama.cpp .gguf file (GGUF v2 and v3), memory-mapped. Opening parses the header, the metadata and the
// tensor directory and checks every count, length, dimension, type and offset against the file's size
// before anything is allocated for it; tensor data is read from the mapping row by row when asked for.
//
//   file   := "GGUF" u32 version, u64 tensor_count, u64 kv_count, kv[kv_count], tensor_info[tensor_count],
//             padding to general.alignment (default 32), tensor data
//   kv     := string key, u32 value_type, value          (arrays: u32 element type, u64 count, elements)
//   string := u64 byte length, UTF-8 bytes (no terminator)
//   tensor_info := string name, u32 n_dims, u64 ne[n_dims], u32 ggml_type, u64 offset (from data start)
//
// ne[0] is the fastest-varying dimension: a PyTorch [rows, cols] matrix is stored with ne = {cols, rows}.
// Every problem throws ModelError "<file>: <problem>" (one line).

#include <QFile>
#include <QHash>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnscope {

enum class GgufValueType : std::uint32_t {
    U8 = 0,
    I8 = 1,
    U16 = 2,
    I16 = 3,
    U32 = 4,
    I32 = 5,
    F32 = 6,
    Bool = 7,
    String = 8,
    Array = 9,
    U64 = 10,
    I64 = 11,
    F64 = 12,
};

// One metadata value. Scalars are decoded; arrays stay in the mapping (element type, count, offset) and
// are decoded by the typed accessors of GgufFile.
struct GgufValue
{
    GgufValueType type = GgufValueType::U8;
    std::int64_t integer = 0; // integer types and Bool (0/1); U64 above INT64_MAX is refused
    double number = 0;        // F32, F64 (and integers, converted)
    QString string;           // String
    GgufValueType elementType = GgufValueType::U8; // Array
    std::int64_t count = 0;                        // Array
    std::int64_t dataOffset = 0;                   // Array: file offset of the first element

    bool isInteger() const;
    bool isNumber() const { return isInteger() || type == GgufValueType::F32 || type == GgufValueType::F64; }
};

struct GgufTensor
{
    QString name;
    std::vector<std::int64_t> ne; // ggml order: ne[0] = elements per row
    std::uint32_t type = 0;       // ggml_type id (ggmlquants.h)
    std::int64_t offset = 0;      // absolute file offset of the data
    std::int64_t bytes = 0;

    std::int64_t rowElements() const { return ne.empty() ? 1 : ne.front(); }
    std::int64_t rows() const; // product of ne[1..]
    std::int64_t elementCount() const { return rowElements() * rows(); }
    QString shapeText() const; // ggml order, "[32, 128]"
};

class GgufFile
{
public:
    explicit GgufFile(const QString& path);
    ~GgufFile();
    GgufFile(const GgufFile&) = delete;
    GgufFile& operator=(const GgufFile&) = delete;

    // True when the file starts with the GGUF magic (reads 4 bytes; false when unreadable).
    static bool hasMagic(const QString& path);
    // A file named *.gguf, or any file starting with the magic.
    static bool isGgufPath(const QString& path);

    const QString& path() const { return m_path; }
    QString displayPath() const; // native separators, for messages
    std::uint32_t version() const { return m_version; }
    std::int64_t fileBytes() const { return m_fileBytes; }
    std::int64_t alignment() const { return m_alignment; }

    // Metadata. The typed accessors return nullopt / empty when the key is absent and throw ModelError
    // when it is present with the wrong type.
    const GgufValue* value(const QString& key) const;
    bool contains(const QString& key) const { return m_values.contains(key); }
    QStringList keys() const;
    std::optional<QString> string(const QString& key) const;
    std::optional<std::int64_t> integer(const QString& key) const;
    std::optional<double> number(const QString& key) const;
    std::optional<bool> boolean(const QString& key) const;
    QStringList stringArray(const QString& key) const;
    std::vector<float> floatArray(const QString& key) const;      // F32 or integer elements
    std::vector<std::int32_t> intArray(const QString& key) const; // integer elements that fit 32 bits
    QByteArray byteArray(const QString& key) const;               // U8/I8 elements

    const std::vector<GgufTensor>& tensors() const { return m_tensors; }
    const GgufTensor* tensor(const QString& name) const;
    // Raw bytes of a tensor inside the mapping.
    const unsigned char* data(const GgufTensor& tensor) const { return m_map + tensor.offset; }
    // Rows [firstRow, firstRow + rowCount) of a tensor (rows of ne[0] elements) as fp32 into out. Throws
    // ModelError for a type AttnScope does not convert or rows outside the tensor.
    void dequantizeRows(const GgufTensor& tensor, std::int64_t firstRow, std::int64_t rowCount,
                        float* out) const;

private:
    [[noreturn]] void fail(const QString& problem) const;
    const GgufValue& arrayOf(const QString& key) const;

    QString m_path;
    QFile m_file;
    const unsigned char* m_map = nullptr;
    std::int64_t m_fileBytes = 0;
    std::uint32_t m_version = 0;
    std::int64_t m_alignment = 32;
    QHash<QString, GgufValue> m_values;
    std::vector<GgufTensor> m_tensors;
    QHash<QString, int> m_tensorIndex;
};

} // namespace attnscope
