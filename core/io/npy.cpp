#include "io/npy.h"

#include "io/inputfile.h"
#include "util/checkedsize.h"

#include <QDir>
#include <QRegularExpression>
#include <cstring>

namespace attnscope {

namespace {

[[noreturn]] void fail(const QString& source, const QString& problem)
{
    throw NpyError((source + QStringLiteral(": ") + problem).toStdString());
}

// The element count of a shape, -1 when it does not fit in qint64.
qint64 product(const std::vector<qint64>& shape)
{
    return checkedProduct(shape).value_or(-1);
}

QByteArray header(const char* descr, const std::vector<qint64>& shape, int alignment = 64)
{
    // numpy tuple syntax: "(2, 3)", a 1-tuple keeps its comma "(5,)", a scalar is "()".
    QByteArray dims;
    for (size_t i = 0; i < shape.size(); ++i)
        dims += (i ? ", " : "") + QByteArray::number(shape[i]);
    if (shape.size() == 1) dims += ',';
    QByteArray dict =
        "{'descr': '" + QByteArray(descr) + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    // magic(6) + version(2) + length(2) + dict + padding + '\n' is a multiple of 64 (the format asks for
    // that), or of the larger power of two asked for.
    const int unpadded = 10 + int(dict.size()) + 1;
    dict += QByteArray((alignment - unpadded % alignment) % alignment, ' ');
    dict += '\n';
    QByteArray out("\x93NUMPY\x01\x00", 8);
    out += char(dict.size() & 0xff);
    out += char((dict.size() >> 8) & 0xff);
    out += dict;
    return out;
}

template <typename T>
QByteArray bytesOf(const std::vector<T>& values, const std::vector<qint64>& shape, const char* descr)
{
    if (qint64(values.size()) != product(shape))
        throw NpyError("npy: " + std::to_string(values.size()) + " values do not fill the shape");
    QByteArray out = header(descr, shape);
    out.append(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(T)));
    return out;
}

} // namespace

qint64 NpyArray::elementCount() const
{
    return product(shape);
}

std::vector<float> NpyArray::toFloat() const
{
    return std::vector<float>(values.begin(), values.end());
}

NpyArray parseNpy(const QByteArray& bytes, const QString& source)
{
    if (bytes.size() < 10 || !bytes.startsWith("\x93NUMPY"))
        fail(source, QStringLiteral("not a .npy file (no \\x93NUMPY magic)"));
    const int major = (unsigned char)bytes[6];
    qint64 headerLength = 0, headerStart = 0;
    if (major == 1) {
        headerLength = (unsigned char)bytes[8] | ((unsigned char)bytes[9] << 8);
        headerStart = 10;
    } else if (major == 2 || major == 3) {
        if (bytes.size() < 12) fail(source, QStringLiteral("truncated header"));
        for (int i = 11; i >= 8; --i)
            headerLength = (headerLength << 8) | (unsigned char)bytes[i];
        headerStart = 12;
    } else {
        fail(source, QStringLiteral("unsupported .npy version %1").arg(major));
    }
    if (headerStart + headerLength > bytes.size())
        fail(source, QStringLiteral("header runs past the end of the file"));
    const QString dict = QString::fromLatin1(bytes.mid(headerStart, headerLength));

    static const QRegularExpression descrRe(QStringLiteral("'descr'\\s*:\\s*'([^']*)'"));
    static const QRegularExpression fortranRe(QStringLiteral("'fortran_order'\\s*:\\s*(True|False)"));
    static const QRegularExpression shapeRe(QStringLiteral("'shape'\\s*:\\s*\\(([^)]*)\\)"));
    const auto descr = descrRe.match(dict);
    const auto fortran = fortranRe.match(dict);
    const auto shapeMatch = shapeRe.match(dict);
    if (!descr.hasMatch() || !fortran.hasMatch() || !shapeMatch.hasMatch())
        fail(source, QStringLiteral("header lacks descr, fortran_order or shape"));
    if (fortran.captured(1) == QLatin1String("True"))
        fail(source, QStringLiteral("Fortran-order arrays are not supported"));

    NpyArray array;
    int elementSize = 0;
    if (descr.captured(1) == QLatin1String("<f4")) {
        array.type = NpyArray::Type::Float32;
        elementSize = 4;
    } else if (descr.captured(1) == QLatin1String("<f8")) {
        array.type = NpyArray::Type::Float64;
        elementSize = 8;
    } else {
        fail(source, QStringLiteral("dtype '%1' is not supported (float32 '<f4' or float64 '<f8')")
                         .arg(descr.captured(1)));
    }
    for (const QString& part : shapeMatch.captured(1).split(QLatin1Char(','), Qt::SkipEmptyParts)) {
        bool ok = false;
        const qint64 d = part.trimmed().toLongLong(&ok);
        if (!ok || d < 0) fail(source, QStringLiteral("invalid shape '%1'").arg(shapeMatch.captured(1)));
        array.shape.push_back(d);
    }
    const std::optional<qint64> count = checkedProduct(array.shape);
    const std::optional<qint64> needed = checkedProduct(array.shape, elementSize);
    const qint64 dataStart = headerStart + headerLength;
    if (!count || !needed)
        fail(source, QStringLiteral("shape (%1) needs more than 2^63 bytes").arg(shapeMatch.captured(1)));
    if (bytes.size() - dataStart != *needed)
        fail(
            source,
            QStringLiteral("holds %1 data bytes, shape needs %2").arg(bytes.size() - dataStart).arg(*needed));
    array.values.resize(size_t(*count));
    const char* data = bytes.constData() + dataStart;
    for (qint64 i = 0; i < *count; ++i) {
        if (elementSize == 4) {
            float f;
            std::memcpy(&f, data + 4 * i, 4);
            array.values[size_t(i)] = f;
        } else {
            std::memcpy(&array.values[size_t(i)], data + 8 * i, 8);
        }
    }
    return array;
}

NpyArray readNpyFile(const QString& path)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(path, kMaxNpyFileBytes, &problem);
    if (!bytes) fail(QDir::toNativeSeparators(path), problem);
    return parseNpy(*bytes, QDir::toNativeSeparators(path));
}

QByteArray npyHeader(const std::vector<qint64>& shape, bool float64, int alignment)
{
    if (alignment < 64 || (alignment & (alignment - 1)) != 0 || alignment > 32768)
        throw NpyError("npy: header alignment " + std::to_string(alignment) +
                       " is not a power of two from 64 to 32768");
    return header(float64 ? "<f8" : "<f4", shape, alignment);
}

QByteArray npyBytes(const std::vector<float>& values, const std::vector<qint64>& shape)
{
    return bytesOf(values, shape, "<f4");
}

QByteArray npyBytes(const std::vector<double>& values, const std::vector<qint64>& shape)
{
    return bytesOf(values, shape, "<f8");
}

} // namespace attnscope
