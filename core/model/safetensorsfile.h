#pragma once

#include <QFile>
#include <QHash>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace attnscope {

// Element types of the safetensors format. Only F32, F16 and BF16 convert to fp32; the others are
// indexed (real checkpoints carry I64 buffers such as position_ids) but refused when read as floats.
enum class TensorDtype { F32, F16, BF16, F64, I64, I32, I16, I8, U8, Bool, F8E4M3, F8E5M2 };

int dtypeSize(TensorDtype dtype);
QString dtypeName(TensorDtype dtype);

// One entry of the header. begin/end are byte offsets relative to the start of the data section.
struct TensorInfo
{
    QString name;
    TensorDtype dtype = TensorDtype::F32;
    std::vector<qint64> shape;
    qint64 begin = 0;
    qint64 end = 0;

    qint64 elementCount() const;
    QString shapeText() const; // "[114, 32]"
};

// The validated header of a safetensors file: where its data section starts (in bytes from the start of the
// file) and every tensor. The rules (upstream safetensors' own, docs/reliability.md): an 8-byte
// little-endian header length within the file and at most 100 MB; a JSON object starting with '{' in which
// no key appears twice; "__metadata__", when present, maps strings to strings; each tensor has a known
// dtype, a shape of non-negative integers and data_offsets [begin, end] whose length is exactly dtype size
// × shape (computed without overflow); tensors neither overlap nor leave a byte of the data section unused.
struct SafetensorsHeader
{
    qint64 dataStart = 0;
    QHash<QString, TensorInfo> tensors;
};

// Parses the header of a whole file held in memory (fileBytes bytes at `file`). Throws ModelError
// "<fileForErrors>: <problem>".
SafetensorsHeader parseSafetensorsHeader(const unsigned char* file, qint64 fileBytes,
                                         const QString& fileForErrors);

// A .safetensors file, memory-mapped: opening parses and validates only the header, the tensor data is
// read from the mapping when used. Layout: u64 little-endian header length N, N bytes of JSON
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {...}}, data.
// Every problem (not a regular file, or a header breaking the rules of parseSafetensorsHeader) throws
// ModelError "<file>: <problem>".
class SafetensorsFile
{
public:
    explicit SafetensorsFile(const QString& path);
    ~SafetensorsFile();
    SafetensorsFile(const SafetensorsFile&) = delete;
    SafetensorsFile& operator=(const SafetensorsFile&) = delete;

    const QString& path() const { return m_path; }
    qint64 fileBytes() const { return m_fileBytes; }
    QStringList names() const;
    const TensorInfo* find(const QString& name) const;

    // The whole mapping (header and data), for prefetching.
    const unsigned char* mapping() const { return m_map; }
    // Raw bytes of a tensor inside the mapping.
    const unsigned char* bytes(const TensorInfo& tensor) const { return m_data + tensor.begin; }
    // The tensor's data used in place: non-null only for F32 data aligned for float access.
    const float* directFloats(const TensorInfo& tensor) const;
    // Converts a F32/F16/BF16 tensor to fp32 into out (elementCount() floats); throws ModelError for other
    // dtypes.
    void convertToFloat(const TensorInfo& tensor, float* out) const;
    // Elements [first, first + count) of the flattened tensor, converted to fp32.
    void convertRange(const TensorInfo& tensor, qint64 first, qint64 count, float* out) const;

private:
    QString m_path;
    QFile m_file;
    qint64 m_fileBytes = 0;
    const unsigned char* m_map = nullptr;  // the whole file
    const unsigned char* m_data = nullptr; // start of the data section inside the mapping
    QHash<QString, TensorInfo> m_tensors;
};

// Elements [first, first + count) of a F32/F16/BF16 tensor whose data section starts at `data`, converted
// to fp32; false (nothing written) for other dtypes.
bool convertTensorRange(const TensorInfo& tensor, const unsigned char* data, qint64 first, qint64 count,
                        float* out);

// IEEE half and bfloat16 to float.
float halfToFloat(std::uint16_t h);
float bfloat16ToFloat(std::uint16_t b);
void convertHalfToFloat(const unsigned char* in, float* out, qint64 count);
void convertBfloat16ToFloat(const unsigned char* in, float* out, qint64 count);

} // namespace attnscope
