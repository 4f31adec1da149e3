#include "model/gguffile.h"

#include "io/inputfile.h"
#include "model/ggmlquants.h"
#include "model/modelerror.h"
#include "util/parallel.h"
#include "util/prefetch.h"

#include <QDir>
#include <QFileInfo>
#include <QtEndian>
#include <algorithm>
#include <cstring>
#include <functional>
#include <limits>

namespace attnscope {

namespace {

constexpr std::int64_t kMaxDims = 4;              // GGML_MAX_DIMS
constexpr std::int64_t kMaxTensorNameBytes = 256; // ggml allows 63; a little slack, still bounded
constexpr std::int64_t kMaxKeyBytes = 65535;      // the spec's limit on metadata keys

QString typeName(GgufValueType type)
{
    switch (type) {
    case GgufValueType::U8:
        return QStringLiteral("uint8");
    case GgufValueType::I8:
        return QStringLiteral("int8");
    case GgufValueType::U16:
        return QStringLiteral("uint16");
    case GgufValueType::I16:
        return QStringLiteral("int16");
    case GgufValueType::U32:
        return QStringLiteral("uint32");
    case GgufValueType::I32:
        return QStringLiteral("int32");
    case GgufValueType::F32:
        return QStringLiteral("float32");
    case GgufValueType::Bool:
        return QStringLiteral("bool");
    case GgufValueType::String:
        return QStringLiteral("string");
    case GgufValueType::Array:
        return QStringLiteral("array");
    case GgufValueType::U64:
        return QStringLiteral("uint64");
    case GgufValueType::I64:
        return QStringLiteral("int64");
    case GgufValueType::F64:
        return QStringLiteral("float64");
    }
    return QStringLiteral("?");
}

// Bytes of one scalar element; 0 for String and Array (variable) and for unknown types.
int scalarBytes(GgufValueType type)
{
    switch (type) {
    case GgufValueType::U8:
    case GgufValueType::I8:
    case GgufValueType::Bool:
        return 1;
    case GgufValueType::U16:
    case GgufValueType::I16:
        return 2;
    case GgufValueType::U32:
    case GgufValueType::I32:
    case GgufValueType::F32:
        return 4;
    case GgufValueType::U64:
    case GgufValueType::I64:
    case GgufValueType::F64:
        return 8;
    case GgufValueType::String:
    case GgufValueType::Array:
        return 0;
    }
    return 0;
}

bool knownType(std::uint32_t type)
{
    return type <= std::uint32_t(GgufValueType::F64);
}

// Reads little-endian values from [begin, end) of the mapping; every read checks the bytes left first.
class Reader
{
public:
    Reader(const unsigned char* data, std::int64_t size, std::function<void(const QString&)> fail)
        : m_data(data), m_size(size), m_fail(std::move(fail))
    {}

    std::int64_t position() const { return m_pos; }
    std::int64_t remaining() const { return m_size - m_pos; }
    void seek(std::int64_t pos) { m_pos = pos; }

    void need(std::int64_t bytes, const QString& what)
    {
        if (bytes < 0 || bytes > remaining())
            m_fail(QStringLiteral("%1 at byte %2 runs past the end of the file (%3 bytes)")
                       .arg(what)
                       .arg(m_pos)
                       .arg(m_size));
    }
    template <typename T> T read(const QString& what)
    {
        need(std::int64_t(sizeof(T)), what);
        const T value = qFromLittleEndian<T>(m_data + m_pos);
        m_pos += std::int64_t(sizeof(T));
        return value;
    }
    // A u64 that must fit a signed 64-bit count.
    std::int64_t count(const QString& what)
    {
        const std::uint64_t v = read<std::uint64_t>(what);
        if (v > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
            m_fail(QStringLiteral("%1 %2 is not a valid count").arg(what).arg(v));
        return std::int64_t(v);
    }
    QString string(const QString& what, std::int64_t maxBytes)
    {
        const std::int64_t length = count(what + QStringLiteral(" length"));
        if (length > maxBytes)
            m_fail(QStringLiteral("%1 is %2 bytes long (at most %3)").arg(what).arg(length).arg(maxBytes));
        need(length, what);
        const QString s = QString::fromUtf8(reinterpret_cast<const char*>(m_data + m_pos), qsizetype(length));
        m_pos += length;
        return s;
    }
    void skip(std::int64_t bytes, const QString& what)
    {
        need(bytes, what);
        m_pos += bytes;
    }

private:
    const unsigned char* m_data;
    std::int64_t m_size;
    std::int64_t m_pos = 0;
    std::function<void(const QString&)> m_fail; // throws
};

} // namespace

bool GgufValue::isInteger() const
{
    switch (type) {
    case GgufValueType::U8:
    case GgufValueType::I8:
    case GgufValueType::U16:
    case GgufValueType::I16:
    case GgufValueType::U32:
    case GgufValueType::I32:
    case GgufValueType::U64:
    case GgufValueType::I64:
        return true;
    default:
        return false;
    }
}

std::int64_t GgufTensor::rows() const
{
    std::int64_t n = 1;
    for (size_t i = 1; i < ne.size(); ++i)
        n *= ne[i];
    return n;
}

QString GgufTensor::shapeText() const
{
    QStringList parts;
    for (std::int64_t d : ne)
        parts << QString::number(d);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

bool GgufFile::hasMagic(const QString& path)
{
    QFile f(path);
    QString problem;
    if (!openInputFile(f, path, &problem)) return false; // never blocks on a FIFO
    return f.read(4) == QByteArrayLiteral("GGUF");
}

bool GgufFile::isGgufPath(const QString& path)
{
    if (!QFileInfo(path).isFile()) return false;
    return path.endsWith(QLatin1String(".gguf"), Qt::CaseInsensitive) || hasMagic(path);
}

GgufFile::GgufFile(const QString& path) : m_path(path), m_file(path)
{
    QString openProblem; // a regular file only (io/inputfile.h): never a FIFO or a device
    if (!openInputFile(m_file, path, &openProblem)) fail(openProblem);
    m_fileBytes = m_file.size();
    if (m_fileBytes < 24) fail(QStringLiteral("%1 bytes is too short for a GGUF header").arg(m_fileBytes));
    m_map = m_file.map(0, m_fileBytes);
    if (!m_map) fail(QStringLiteral("cannot map the file: %1").arg(m_file.errorString()));

    Reader r(m_map, m_fileBytes, [this](const QString& problem) { fail(problem); });
    if (std::memcmp(m_map, "GGUF", 4) != 0) fail(QStringLiteral("not a GGUF file (no GGUF magic at byte 0)"));
    r.seek(4);
    m_version = r.read<std::uint32_t>(QStringLiteral("version"));
    if ((m_version & 0xFFFFu) == 0 && m_version != 0)
        fail(QStringLiteral("version %1 looks byte-swapped: big-endian GGUF files are not supported")
                 .arg(m_version));
    if (m_version == 1) fail(QStringLiteral("GGUF v1 is not supported (only v2 and v3): convert it again"));
    if (m_version != 2 && m_version != 3)
        fail(QStringLiteral("GGUF version %1 is not supported (only v2 and v3)").arg(m_version));
    const std::int64_t tensorCount = r.count(QStringLiteral("tensor count"));
    const std::int64_t kvCount = r.count(QStringLiteral("metadata count"));
    // Smallest possible entries: a key-value is a key length (8), one key byte and a type (4) and a 1-byte
    // value; a tensor entry is a name length (8), n_dims (4), a type (4) and an offset (8).
    if (kvCount > r.remaining() / 14)
        fail(QStringLiteral("%1 metadata entries cannot fit in the file's %2 bytes")
                 .arg(kvCount)
                 .arg(m_fileBytes));
    if (tensorCount > r.remaining() / 24)
        fail(
            QStringLiteral("%1 tensors cannot fit in the file's %2 bytes").arg(tensorCount).arg(m_fileBytes));

    m_values.reserve(qsizetype(kvCount));
    for (std::int64_t i = 0; i < kvCount; ++i) {
        const QString key = r.string(QStringLiteral("metadata key %1").arg(i), kMaxKeyBytes);
        if (m_values.contains(key)) fail(QStringLiteral("metadata key '%1' appears twice").arg(key));
        const std::uint32_t rawType = r.read<std::uint32_t>(QStringLiteral("type of '%1'").arg(key));
        if (!knownType(rawType))
            fail(QStringLiteral("metadata '%1' has unknown value type %2").arg(key).arg(rawType));
        GgufValue v;
        v.type = GgufValueType(rawType);
        const QString what = QStringLiteral("value of '%1'").arg(key);
        auto readScalar = [&](GgufValueType type) {
            switch (type) {
            case GgufValueType::U8:
                v.integer = r.read<std::uint8_t>(what);
                break;
            case GgufValueType::I8:
                v.integer = r.read<std::int8_t>(what);
                break;
            case GgufValueType::U16:
                v.integer = r.read<std::uint16_t>(what);
                break;
            case GgufValueType::I16:
                v.integer = r.read<std::int16_t>(what);
                break;
            case GgufValueType::U32:
                v.integer = r.read<std::uint32_t>(what);
                break;
            case GgufValueType::I32:
                v.integer = r.read<std::int32_t>(what);
                break;
            case GgufValueType::I64:
                v.integer = r.read<std::int64_t>(what);
                break;
            case GgufValueType::U64:
                v.integer = r.count(what);
                break;
            case GgufValueType::F32:
                v.number = double(r.read<float>(what));
                break;
            case GgufValueType::F64:
                v.number = r.read<double>(what);
                break;
            case GgufValueType::Bool: {
                const std::uint8_t b = r.read<std::uint8_t>(what);
                if (b > 1)
                    fail(
                        QStringLiteral("metadata '%1' is a bool with value %2 (not 0 or 1)").arg(key).arg(b));
                v.integer = b;
                break;
            }
            case GgufValueType::String:
                v.string = r.string(what, r.remaining());
                break;
            case GgufValueType::Array:
                break;
            }
            if (v.isInteger() || type == GgufValueType::Bool) v.number = double(v.integer);
        };
        if (v.type != GgufValueType::Array) {
            readScalar(v.type);
        } else {
            const std::uint32_t element =
                r.read<std::uint32_t>(QStringLiteral("element type of '%1'").arg(key));
            if (!knownType(element))
                fail(QStringLiteral("metadata '%1' is an array of unknown type %2").arg(key).arg(element));
            v.elementType = GgufValueType(element);
            if (v.elementType == GgufValueType::Array)
                fail(QStringLiteral("metadata '%1' is an array of arrays, which AttnScope does not read")
                         .arg(key));
            v.count = r.count(QStringLiteral("length of '%1'").arg(key));
            v.dataOffset = r.position();
            if (v.elementType == GgufValueType::String) {
                if (v.count > r.remaining() / 8)
                    fail(QStringLiteral("metadata '%1' claims %2 strings, more than the file holds")
                             .arg(key)
                             .arg(v.count));
                for (std::int64_t e = 0; e < v.count; ++e) {
                    const std::int64_t length = r.count(what);
                    r.skip(length, what);
                }
            } else {
                const std::int64_t size = scalarBytes(v.elementType);
                if (v.count > r.remaining() / size)
                    fail(QStringLiteral("metadata '%1' claims %2 elements, more than the file holds")
                             .arg(key)
                             .arg(v.count));
                r.skip(v.count * size, what);
            }
        }
        m_values.insert(key, v);
    }

    if (const GgufValue* alignment = value(QStringLiteral("general.alignment"))) {
        if (alignment->type != GgufValueType::U32)
            fail(QStringLiteral("general.alignment must be a uint32, not %1").arg(typeName(alignment->type)));
        m_alignment = alignment->integer;
        if (m_alignment == 0 || (m_alignment & (m_alignment - 1)) != 0)
            fail(QStringLiteral("general.alignment %1 is not a power of two").arg(m_alignment));
    }

    m_tensors.reserve(size_t(tensorCount));
    for (std::int64_t i = 0; i < tensorCount; ++i) {
        GgufTensor t;
        t.name = r.string(QStringLiteral("name of tensor %1").arg(i), kMaxTensorNameBytes);
        if (m_tensorIndex.contains(t.name)) fail(QStringLiteral("tensor '%1' appears twice").arg(t.name));
        const std::uint32_t dims =
            r.read<std::uint32_t>(QStringLiteral("dimensions of tensor '%1'").arg(t.name));
        if (dims > kMaxDims)
            fail(QStringLiteral("tensor '%1' has %2 dimensions (at most %3)")
                     .arg(t.name)
                     .arg(dims)
                     .arg(kMaxDims));
        // The product of the nonzero dimensions must fit, not only the product of all of them: with a 0
        // among them the element count is 0, but rows() multiplies the others (found by fuzzing).
        std::int64_t elements = 1, nonZeroProduct = 1;
        for (std::uint32_t d = 0; d < dims; ++d) {
            const std::int64_t n = r.count(QStringLiteral("dimension of tensor '%1'").arg(t.name));
            if (n != 0 && nonZeroProduct > std::numeric_limits<std::int64_t>::max() / n)
                fail(QStringLiteral("tensor '%1' has too many elements").arg(t.name));
            if (n != 0) nonZeroProduct *= n;
            elements *= n;
            t.ne.push_back(n);
        }
        if (t.ne.empty()) t.ne.push_back(1);
        t.type = r.read<std::uint32_t>(QStringLiteral("type of tensor '%1'").arg(t.name));
        const std::int64_t relative = r.count(QStringLiteral("offset of tensor '%1'").arg(t.name));
        if (relative % m_alignment != 0)
            fail(QStringLiteral("tensor '%1' starts at offset %2, not a multiple of the alignment %3")
                     .arg(t.name)
                     .arg(relative)
                     .arg(m_alignment));
        // Its size is known only for types with known blocks; others are checked when (if) they are read.
        if (const std::optional<GgmlTypeTraits> traits = ggmlTypeTraits(t.type)) {
            if (t.ne.front() % traits->blockElements != 0)
                fail(QStringLiteral(
                         "tensor '%1' of type %2 has rows of %3 elements, not a multiple of its block of %4")
                         .arg(t.name, QLatin1String(traits->name))
                         .arg(t.ne.front())
                         .arg(traits->blockElements));
            const std::int64_t blocks = elements / traits->blockElements;
            if (blocks > std::numeric_limits<std::int64_t>::max() / traits->blockBytes)
                fail(QStringLiteral("tensor '%1' is too large").arg(t.name));
            t.bytes = blocks * traits->blockBytes;
        } else {
            t.bytes = -1;
        }
        t.offset = relative; // made absolute once the data section's start is known
        m_tensorIndex.insert(t.name, int(m_tensors.size()));
        m_tensors.push_back(std::move(t));
    }

    const std::int64_t end = r.position();
    const std::int64_t dataStart = end + (m_alignment - end % m_alignment) % m_alignment;
    if (!m_tensors.empty() && dataStart > m_fileBytes)
        fail(QStringLiteral("the tensor data would start at byte %1, past the end of the file (%2 bytes)")
                 .arg(dataStart)
                 .arg(m_fileBytes));
    for (GgufTensor& t : m_tensors) {
        if (t.offset > m_fileBytes - dataStart)
            fail(QStringLiteral("tensor '%1' starts past the end of the file").arg(t.name));
        t.offset += dataStart;
        if (t.bytes >= 0 && t.bytes > m_fileBytes - t.offset)
            fail(QStringLiteral(
                     "tensor '%1' (%2 bytes from byte %3) runs past the end of the file (%4 bytes): "
                     "the file is truncated")
                     .arg(t.name)
                     .arg(t.bytes)
                     .arg(t.offset)
                     .arg(m_fileBytes));
    }
    // No two tensors share bytes (gguf-py lays them out one after the other): an overlap is a damaged or
    // crafted file, whose weights would alias each other.
    std::vector<const GgufTensor*> byOffset;
    for (const GgufTensor& t : m_tensors)
        if (t.bytes > 0) byOffset.push_back(&t);
    std::sort(byOffset.begin(), byOffset.end(),
              [](const GgufTensor* a, const GgufTensor* b) { return a->offset < b->offset; });
    for (size_t i = 1; i < byOffset.size(); ++i) {
        const GgufTensor& before = *byOffset[i - 1];
        const GgufTensor& after = *byOffset[i];
        if (before.offset + before.bytes > after.offset)
            fail(QStringLiteral("tensors '%1' (bytes %2 to %3) and '%4' (from byte %5) overlap")
                     .arg(before.name)
                     .arg(before.offset)
                     .arg(before.offset + before.bytes)
                     .arg(after.name)
                     .arg(after.offset));
    }
    // After the metadata (a GGUF's vocabulary can be megabytes): see prefetch.h.
    adviseLargePages(m_map, m_fileBytes);
}

GgufFile::~GgufFile() = default;

void GgufFile::fail(const QString& problem) const
{
    throw ModelError(displayPath(), problem);
}

QString GgufFile::displayPath() const
{
    return QDir::toNativeSeparators(m_path);
}

const GgufValue* GgufFile::value(const QString& key) const
{
    const auto it = m_values.constFind(key);
    return it == m_values.cend() ? nullptr : &it.value();
}

QStringList GgufFile::keys() const
{
    QStringList list = m_values.keys();
    list.sort();
    return list;
}

std::optional<QString> GgufFile::string(const QString& key) const
{
    const GgufValue* v = value(key);
    if (!v) return std::nullopt;
    if (v->type != GgufValueType::String)
        fail(QStringLiteral("metadata '%1' must be a string, not %2").arg(key, typeName(v->type)));
    return v->string;
}

std::optional<std::int64_t> GgufFile::integer(const QString& key) const
{
    const GgufValue* v = value(key);
    if (!v) return std::nullopt;
    if (!v->isInteger())
        fail(QStringLiteral("metadata '%1' must be an integer, not %2").arg(key, typeName(v->type)));
    return v->integer;
}

std::optional<double> GgufFile::number(const QString& key) const
{
    const GgufValue* v = value(key);
    if (!v) return std::nullopt;
    if (!v->isNumber())
        fail(QStringLiteral("metadata '%1' must be a number, not %2").arg(key, typeName(v->type)));
    return v->number;
}

std::optional<bool> GgufFile::boolean(const QString& key) const
{
    const GgufValue* v = value(key);
    if (!v) return std::nullopt;
    if (v->type != GgufValueType::Bool)
        fail(QStringLiteral("metadata '%1' must be a bool, not %2").arg(key, typeName(v->type)));
    return v->integer != 0;
}

const GgufValue& GgufFile::arrayOf(const QString& key) const
{
    const GgufValue* v = value(key);
    if (!v || v->type != GgufValueType::Array)
        fail(QStringLiteral("metadata '%1' must be an array").arg(key));
    return *v;
}

QStringList GgufFile::stringArray(const QString& key) const
{
    if (!contains(key)) return {};
    const GgufValue& v = arrayOf(key);
    if (v.elementType != GgufValueType::String)
        fail(QStringLiteral("metadata '%1' must be an array of strings, not of %2")
                 .arg(key, typeName(v.elementType)));
    // Lengths were checked against the file when it was opened.
    QStringList list;
    list.reserve(qsizetype(v.count));
    std::int64_t pos = v.dataOffset;
    for (std::int64_t i = 0; i < v.count; ++i) {
        const std::int64_t length = std::int64_t(qFromLittleEndian<std::uint64_t>(m_map + pos));
        pos += 8;
        list << QString::fromUtf8(reinterpret_cast<const char*>(m_map + pos), qsizetype(length));
        pos += length;
    }
    return list;
}

std::vector<float> GgufFile::floatArray(const QString& key) const
{
    if (!contains(key)) return {};
    const GgufValue& v = arrayOf(key);
    std::vector<float> out(size_t(v.count));
    const unsigned char* p = m_map + v.dataOffset;
    switch (v.elementType) {
    case GgufValueType::F32:
        for (std::int64_t i = 0; i < v.count; ++i)
            out[size_t(i)] = qFromLittleEndian<float>(p + 4 * i);
        return out;
    case GgufValueType::F64:
        for (std::int64_t i = 0; i < v.count; ++i)
            out[size_t(i)] = float(qFromLittleEndian<double>(p + 8 * i));
        return out;
    case GgufValueType::I32:
        for (std::int64_t i = 0; i < v.count; ++i)
            out[size_t(i)] = float(qFromLittleEndian<std::int32_t>(p + 4 * i));
        return out;
    default:
        fail(QStringLiteral("metadata '%1' must be an array of float32, not of %2")
                 .arg(key, typeName(v.elementType)));
    }
}

std::vector<std::int32_t> GgufFile::intArray(const QString& key) const
{
    if (!contains(key)) return {};
    const GgufValue& v = arrayOf(key);
    std::vector<std::int32_t> out(size_t(v.count));
    const unsigned char* p = m_map + v.dataOffset;
    for (std::int64_t i = 0; i < v.count; ++i) {
        switch (v.elementType) {
        case GgufValueType::I32:
            out[size_t(i)] = qFromLittleEndian<std::int32_t>(p + 4 * i);
            break;
        case GgufValueType::U32:
            out[size_t(i)] = std::int32_t(qFromLittleEndian<std::uint32_t>(p + 4 * i));
            break;
        case GgufValueType::I8:
            out[size_t(i)] = std::int8_t(p[i]);
            break;
        case GgufValueType::U8:
            out[size_t(i)] = p[i];
            break;
        case GgufValueType::I16:
            out[size_t(i)] = qFromLittleEndian<std::int16_t>(p + 2 * i);
            break;
        case GgufValueType::U16:
            out[size_t(i)] = qFromLittleEndian<std::uint16_t>(p + 2 * i);
            break;
        default:
            fail(QStringLiteral("metadata '%1' must be an array of int32, not of %2")
                     .arg(key, typeName(v.elementType)));
        }
    }
    return out;
}

QByteArray GgufFile::byteArray(const QString& key) const
{
    if (!contains(key)) return {};
    const GgufValue& v = arrayOf(key);
    if (v.elementType != GgufValueType::U8 && v.elementType != GgufValueType::I8)
        fail(QStringLiteral("metadata '%1' must be an array of bytes, not of %2")
                 .arg(key, typeName(v.elementType)));
    return QByteArray(reinterpret_cast<const char*>(m_map + v.dataOffset), qsizetype(v.count));
}

const GgufTensor* GgufFile::tensor(const QString& name) const
{
    const int index = m_tensorIndex.value(name, -1);
    return index < 0 ? nullptr : &m_tensors[size_t(index)];
}

void GgufFile::dequantizeRows(const GgufTensor& tensor, std::int64_t firstRow, std::int64_t rowCount,
                              float* out) const
{
    const std::optional<GgmlTypeTraits> traits = ggmlTypeTraits(tensor.type);
    if (!traits)
        fail(QStringLiteral("tensor '%1' has type %2, which AttnScope does not convert (supported: %3)")
                 .arg(tensor.name, ggmlTypeName(tensor.type), supportedGgmlTypeNames()));
    if (firstRow < 0 || rowCount < 0 || firstRow > tensor.rows() - rowCount)
        fail(QStringLiteral("rows [%1, %2) of tensor '%3' are outside its %4 rows")
                 .arg(firstRow)
                 .arg(firstRow + rowCount)
                 .arg(tensor.name)
                 .arg(tensor.rows()));
    const std::int64_t rowBytes = tensor.rowElements() / traits->blockElements * traits->blockBytes;
    const unsigned char* base = data(tensor) + firstRow * rowBytes;
    for (std::int64_t row = 0; row < rowCount; ++row)
        dequantizeRow(traits->type, base + row * rowBytes, out + row * tensor.rowElements(),
                      tensor.rowElements());
}

} // namespace attnscope
