#pragma once

// Test-only: writes GGUF files (v2/v3) so the reader can be tested on files made here, and quantizes floats
// into ggml's block formats with simple (not llama.cpp's optimising) choices of scales.

#include "model/ggmlquants.h"
#include "model/safetensorswriter.h"

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <vector>

namespace attnscope::testing {

class GgufWriter
{
public:
    explicit GgufWriter(std::uint32_t version = 3) : m_version(version) {}

    void addString(const QString& key, const QString& value);
    void addU32(const QString& key, std::uint32_t value);
    void addI32(const QString& key, std::int32_t value);
    void addU64(const QString& key, std::uint64_t value);
    void addF32(const QString& key, float value);
    void addBool(const QString& key, bool value);
    void addStringArray(const QString& key, const QStringList& values);
    void addF32Array(const QString& key, const std::vector<float>& values);
    void addI32Array(const QString& key, const std::vector<std::int32_t>& values);
    // A key with a raw value type and encoded bytes, for damaged files.
    void addRaw(const QString& key, std::uint32_t valueType, const QByteArray& encodedValue);

    // ne in ggml order (ne[0] = row length); data already encoded in `type`.
    void addTensor(const QString& name, const std::vector<std::int64_t>& ne, std::uint32_t type, const QByteArray& data);
    // A PyTorch-shaped fp32 tensor ([rows, cols] or [n]) stored as `type` (quantized row by row).
    void addFloatTensor(const QString& name, const std::vector<qint64>& torchShape, const std::vector<float>& values,
                        GgmlType type);

    QByteArray build(std::uint32_t alignment = 32) const;
    void write(const QString& path, std::uint32_t alignment = 32) const; // qFatal on failure (test helper)

    static QByteArray encodeString(const QString& s);

private:
    struct Tensor
    {
        QString name;
        std::vector<std::int64_t> ne;
        std::uint32_t type;
        QByteArray data;
    };
    std::uint32_t m_version;
    QByteArray m_kv;
    std::uint64_t m_kvCount = 0;
    std::vector<Tensor> m_tensors;
};

// `count` floats (a multiple of the type's block) in ggml's layout for `type`.
QByteArray quantize(GgmlType type, const float* values, std::int64_t count);

// fp32 tensors of a safetensors file (F32/F16/BF16), by name.
std::vector<float> floatsOf(const TensorToWrite& tensor);

} // namespace attnscope::testing
