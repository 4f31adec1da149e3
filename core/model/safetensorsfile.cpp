#include "model/safetensorsfile.h"

#include "io/inputfile.h"
#include "io/jsonduplicatekeys.h"
#include "model/modelerror.h"
#include "util/checkedsize.h"
#include "util/prefetch.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>
#include <cmath>
#include <cstring>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace attnscope {

namespace {

struct DtypeName
{
    const char* name;
    TensorDtype dtype;
    int size;
};

constexpr DtypeName kDtypes[] = {
    {"F32", TensorDtype::F32, 4},   {"F16", TensorDtype::F16, 2},        {"BF16", TensorDtype::BF16, 2},
    {"F64", TensorDtype::F64, 8},   {"I64", TensorDtype::I64, 8},        {"I32", TensorDtype::I32, 4},
    {"I16", TensorDtype::I16, 2},   {"I8", TensorDtype::I8, 1},          {"U8", TensorDtype::U8, 1},
    {"BOOL", TensorDtype::Bool, 1}, {"F8_E4M3", TensorDtype::F8E4M3, 1}, {"F8_E5M2", TensorDtype::F8E5M2, 1},
};

// Upstream safetensors' limit on the JSON header (MAX_HEADER_SIZE).
constexpr std::uint64_t kMaxHeaderBytes = 100'000'000;

// A JSON number that is a non-negative integer below 2^53 (exact in a double), else -1.
qint64 nonNegativeInteger(const QJsonValue& value)
{
    if (!value.isDouble()) return -1;
    const double d = value.toDouble();
    if (!(d >= 0.0) || d > 9007199254740992.0 || std::floor(d) != d) return -1;
    return qint64(d);
}

// 65536-entry table: each half converted once, then a load per element.
const std::vector<float>& halfTable()
{
    static const std::vector<float> table = [] {
        std::vector<float> t(65536);
        for (std::uint32_t h = 0; h < 65536; ++h)
            t[h] = halfToFloat(std::uint16_t(h));
        return t;
    }();
    return table;
}

} // namespace

int dtypeSize(TensorDtype dtype)
{
    for (const DtypeName& d : kDtypes)
        if (d.dtype == dtype) return d.size;
    return 0;
}

QString dtypeName(TensorDtype dtype)
{
    for (const DtypeName& d : kDtypes)
        if (d.dtype == dtype) return QLatin1String(d.name);
    return QStringLiteral("?");
}

qint64 TensorInfo::elementCount() const
{
    qint64 count = 1;
    for (qint64 dim : shape)
        count *= dim;
    return count;
}

QString TensorInfo::shapeText() const
{
    QStringList parts;
    for (qint64 dim : shape)
        parts << QString::number(dim);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

float halfToFloat(std::uint16_t h)
{
    const std::uint32_t sign = std::uint32_t(h & 0x8000u) << 16;
    const std::uint32_t exponent = (h >> 10) & 0x1fu;
    std::uint32_t mantissa = h & 0x3ffu;
    std::uint32_t bits;
    if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else { // subnormal: normalise
            int e = -1;
            do {
                ++e;
                mantissa <<= 1;
            } while ((mantissa & 0x400u) == 0);
            bits = sign | (std::uint32_t(127 - 15 - e) << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13); // inf / NaN
    } else {
        bits = sign | ((exponent + 127 - 15) << 23) | (mantissa << 13);
    }
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

float bfloat16ToFloat(std::uint16_t b)
{
    const std::uint32_t bits = std::uint32_t(b) << 16;
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
}

void convertHalfToFloat(const unsigned char* in, float* out, qint64 count)
{
    const float* table = halfTable().data();
    for (qint64 i = 0; i < count; ++i) {
        std::uint16_t h;
        std::memcpy(&h, in + 2 * i, 2);
        out[i] = table[h];
    }
}

void convertBfloat16ToFloat(const unsigned char* in, float* out, qint64 count)
{
    qint64 i = 0;
#ifdef __SSE2__
    // bf16 is the top half of an f32: interleave zeros below each value, 8 at a time (SSE2 is in every
    // x86-64, so this is the baseline build's code too).
    const __m128i zero = _mm_setzero_si128();
    for (; i + 8 <= count; i += 8) {
        const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + 2 * i));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), _mm_unpacklo_epi16(zero, b));
        _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i + 4), _mm_unpackhi_epi16(zero, b));
    }
#endif
    for (; i < count; ++i) {
        std::uint16_t b;
        std::memcpy(&b, in + 2 * i, 2);
        const std::uint32_t bits = std::uint32_t(b) << 16;
        std::memcpy(out + i, &bits, 4);
    }
}

SafetensorsHeader parseSafetensorsHeader(const unsigned char* map, qint64 fileBytes, const QString& file)
{
    auto fail = [&](const QString& problem) { throw ModelError(file, problem); };
    if (fileBytes < 8)
        fail(QStringLiteral("file is %1 bytes, too short for the 8-byte header length of a safetensors file")
                 .arg(fileBytes));
    std::uint64_t headerLength = 0;
    for (int i = 7; i >= 0; --i)
        headerLength = (headerLength << 8) | map[i];
    if (headerLength > std::uint64_t(fileBytes - 8))
        fail(QStringLiteral(
                 "header length %1 is larger than the file (%2 bytes): not a safetensors file, or truncated")
                 .arg(headerLength)
                 .arg(fileBytes));
    if (headerLength > kMaxHeaderBytes)
        fail(QStringLiteral("header length %1 is over the format's limit of %2 bytes")
                 .arg(headerLength)
                 .arg(kMaxHeaderBytes));
    SafetensorsHeader result;
    result.dataStart = 8 + qint64(headerLength);
    const qint64 dataBytes = fileBytes - result.dataStart;

    const QByteArray json =
        QByteArray::fromRawData(reinterpret_cast<const char*>(map + 8), qsizetype(headerLength));
    if (!json.startsWith('{')) fail(QStringLiteral("the JSON header does not start with '{'"));
    QJsonParseError parseError;
    const QJsonDocument header = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        fail(QStringLiteral("invalid JSON header at byte %1: %2")
                 .arg(parseError.offset)
                 .arg(parseError.errorString()));
    if (!header.isObject()) fail(QStringLiteral("the JSON header is not an object"));
    if (const std::optional<QStringList> duplicate = firstDuplicateJsonKey(json)) {
        if (duplicate->size() == 1)
            fail(QStringLiteral("the header names tensor %1 twice").arg(duplicate->front()));
        fail(QStringLiteral("key \"%1\" appears twice in the header entry %2")
                 .arg(duplicate->back(), duplicate->mid(0, duplicate->size() - 1).join(QLatin1Char('.'))));
    }

    const QJsonObject entries = header.object();
    const QJsonValue metadata = entries.value(QLatin1String("__metadata__"));
    if (!metadata.isUndefined()) {
        if (!metadata.isObject()) fail(QStringLiteral("__metadata__ is not an object of strings"));
        const QJsonObject fields = metadata.toObject();
        for (auto it = fields.begin(); it != fields.end(); ++it)
            if (!it.value().isString())
                fail(QStringLiteral("__metadata__ field %1 is not a string").arg(it.key()));
    }
    for (auto it = entries.begin(); it != entries.end(); ++it) {
        if (it.key() == QLatin1String("__metadata__")) continue;
        const QString name = it.key();
        if (!it.value().isObject())
            fail(QStringLiteral("tensor %1: header entry is not an object").arg(name));
        const QJsonObject entry = it.value().toObject();
        TensorInfo info;
        info.name = name;
        const QString dtype = entry.value(QLatin1String("dtype")).toString();
        bool known = false;
        for (const DtypeName& d : kDtypes)
            if (dtype == QLatin1String(d.name)) {
                info.dtype = d.dtype;
                known = true;
            }
        if (!known)
            fail(QStringLiteral("tensor %1 has unknown dtype '%2' (supported: F32, F16, BF16)")
                     .arg(name, dtype));
        const QJsonValue shapeValue = entry.value(QLatin1String("shape"));
        if (!shapeValue.isArray()) fail(QStringLiteral("tensor %1 has no shape array").arg(name));
        for (const QJsonValue& dim : shapeValue.toArray()) {
            const qint64 d = nonNegativeInteger(dim);
            if (d < 0) fail(QStringLiteral("tensor %1 has an invalid shape").arg(name));
            info.shape.push_back(d);
        }
        const QJsonArray offsets = entry.value(QLatin1String("data_offsets")).toArray();
        if (offsets.size() != 2 || nonNegativeInteger(offsets[0]) < 0 || nonNegativeInteger(offsets[1]) < 0)
            fail(QStringLiteral("tensor %1 has no valid data_offsets [begin, end]").arg(name));
        info.begin = nonNegativeInteger(offsets[0]);
        info.end = nonNegativeInteger(offsets[1]);
        if (info.end < info.begin)
            fail(QStringLiteral("tensor %1 has data_offsets [%2, %3] that end before they begin")
                     .arg(name)
                     .arg(info.begin)
                     .arg(info.end));
        if (info.end > dataBytes)
            fail(QStringLiteral(
                     "tensor %1 data [%2, %3) runs past the end of the data (%4 bytes): truncated file?")
                     .arg(name)
                     .arg(info.begin)
                     .arg(info.end)
                     .arg(dataBytes));
        const std::optional<qint64> expectedBytes = checkedProduct(info.shape, dtypeSize(info.dtype));
        if (!expectedBytes)
            fail(QStringLiteral("tensor %1 has shape %2, whose %3 data would need more than 2^63 bytes")
                     .arg(name, info.shapeText(), dtype));
        if (info.end - info.begin != *expectedBytes)
            fail(QStringLiteral("tensor %1 occupies %2 bytes but %3 %4 needs %5")
                     .arg(name)
                     .arg(info.end - info.begin)
                     .arg(dtype, info.shapeText())
                     .arg(*expectedBytes));
        result.tensors.insert(name, info);
    }

    std::vector<const TensorInfo*> byOffset;
    for (const TensorInfo& info : result.tensors)
        if (info.end > info.begin) byOffset.push_back(&info); // empty tensors occupy nothing
    std::sort(byOffset.begin(), byOffset.end(), [](const TensorInfo* a, const TensorInfo* b) {
        return a->begin < b->begin ||
               (a->begin == b->begin && (a->end < b->end || (a->end == b->end && a->name < b->name)));
    });
    // Sorted by begin, a tensor overlaps an earlier one exactly when it starts before the furthest end seen
    // so far; it leaves a hole when it starts after it.
    const TensorInfo* furthest = nullptr;
    for (const TensorInfo* b : byOffset) {
        if (furthest && b->begin < furthest->end)
            fail(QStringLiteral("tensors %1 [%2, %3) and %4 [%5, %6) overlap")
                     .arg(furthest->name)
                     .arg(furthest->begin)
                     .arg(furthest->end)
                     .arg(b->name)
                     .arg(b->begin)
                     .arg(b->end));
        const qint64 previousEnd = furthest ? furthest->end : 0;
        if (b->begin > previousEnd)
            fail(QStringLiteral("bytes [%1, %2) of the data belong to no tensor: a safetensors file leaves "
                                "no holes")
                     .arg(previousEnd)
                     .arg(b->begin));
        furthest = b;
    }
    const qint64 usedBytes = furthest ? furthest->end : 0;
    if (usedBytes != dataBytes)
        fail(QStringLiteral("the last %1 bytes of the data belong to no tensor: a safetensors file leaves "
                            "no holes")
                 .arg(dataBytes - usedBytes));
    return result;
}

SafetensorsFile::SafetensorsFile(const QString& path) : m_path(path), m_file(path)
{
    const QString file = QDir::toNativeSeparators(path);
    QString problem;
    if (!openInputFile(m_file, path, &problem)) throw ModelError(file, problem);
    m_fileBytes = m_file.size();
    if (m_fileBytes < 8)
        throw ModelError(
            file,
            QStringLiteral("file is %1 bytes, too short for the 8-byte header length of a safetensors file")
                .arg(m_fileBytes));
    uchar* map = m_file.map(0, m_fileBytes);
    if (!map) throw ModelError(file, QStringLiteral("cannot memory-map: %1").arg(m_file.errorString()));
    SafetensorsHeader header = parseSafetensorsHeader(map, m_fileBytes, file);
    // After the header: reading it stays a few 4 KiB pages (a model listing opens every file's header).
    adviseLargePages(map, m_fileBytes);
    m_map = map;
    m_data = map + header.dataStart;
    m_tensors = std::move(header.tensors);
}

SafetensorsFile::~SafetensorsFile() = default; // QFile unmaps on close

QStringList SafetensorsFile::names() const
{
    QStringList list = m_tensors.keys();
    list.sort();
    return list;
}

const TensorInfo* SafetensorsFile::find(const QString& name) const
{
    auto it = m_tensors.constFind(name);
    return it == m_tensors.constEnd() ? nullptr : &it.value();
}

const float* SafetensorsFile::directFloats(const TensorInfo& tensor) const
{
    if (tensor.dtype != TensorDtype::F32) return nullptr;
    const unsigned char* p = bytes(tensor);
    if (reinterpret_cast<std::uintptr_t>(p) % alignof(float) != 0) return nullptr;
    return reinterpret_cast<const float*>(p);
}

void SafetensorsFile::convertToFloat(const TensorInfo& tensor, float* out) const
{
    convertRange(tensor, 0, tensor.elementCount(), out);
}

void SafetensorsFile::convertRange(const TensorInfo& tensor, qint64 first, qint64 count, float* out) const
{
    if (!convertTensorRange(tensor, m_data, first, count, out))
        throw ModelError(
            QDir::toNativeSeparators(m_path),
            QStringLiteral("tensor %1 has dtype %2; only F32, F16 and BF16 weights are supported")
                .arg(tensor.name, dtypeName(tensor.dtype)));
}

bool convertTensorRange(const TensorInfo& tensor, const unsigned char* data, qint64 first, qint64 count,
                        float* out)
{
    if (count <= 0)
        return tensor.dtype == TensorDtype::F32 || tensor.dtype == TensorDtype::F16 ||
               tensor.dtype == TensorDtype::BF16; // nothing to copy (out may be null)
    const unsigned char* in = data + tensor.begin + first * dtypeSize(tensor.dtype);
    switch (tensor.dtype) {
    case TensorDtype::F32:
        std::memcpy(out, in, size_t(count) * 4);
        return true;
    case TensorDtype::F16:
        convertHalfToFloat(in, out, count);
        return true;
    case TensorDtype::BF16:
        convertBfloat16ToFloat(in, out, count);
        return true;
    default:
        return false;
    }
}

} // namespace attnscope
