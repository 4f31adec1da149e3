#include "io/npywriter.h"

#include <QtEndian>

#include <cstring>
#include <stdexcept>

namespace attnscope {

QByteArray npyFloat32Header(const std::vector<long long>& shape)
{
    // Header: magic, version 1.0, uint16 header length, then a Python dict literal padded with spaces and
    // ending in '\n' so that magic + length + header is a multiple of 64 bytes (the format's alignment).
    QByteArray dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (";
    for (size_t i = 0; i < shape.size(); ++i) {
        dict += QByteArray::number(shape[i]);
        if (shape.size() == 1 || i + 1 < shape.size())
            dict += ',';
        if (i + 1 < shape.size())
            dict += ' ';
    }
    dict += "), }";
    const int preamble = 6 + 2 + 2;
    const int total = ((preamble + int(dict.size()) + 1 + 63) / 64) * 64;
    dict += QByteArray(total - preamble - int(dict.size()) - 1, ' ');
    dict += '\n';

    QByteArray out;
    out += "\x93NUMPY";
    out += char(1);
    out += char(0);
    const quint16 headerLength = qToLittleEndian(quint16(dict.size()));
    out.append(reinterpret_cast<const char*>(&headerLength), 2);
    out += dict;
    return out;
}

void appendFloat32(QByteArray& out, const float* values, qint64 count)
{
    const qsizetype at = out.size();
    out.resize(at + qsizetype(count) * 4);
    char* dest = out.data() + at;
#if Q_BYTE_ORDER == Q_LITTLE_ENDIAN
    std::memcpy(dest, values, size_t(count) * 4);
#else
    for (qint64 i = 0; i < count; ++i) {
        quint32 bits;
        std::memcpy(&bits, values + i, 4);
        qToLittleEndian(bits, dest + 4 * i);
    }
#endif
}

QByteArray npyFloat32(const std::vector<float>& values, const std::vector<long long>& shape)
{
    long long count = 1;
    for (long long d : shape)
        count *= d;
    if (count != static_cast<long long>(values.size()))
        throw std::invalid_argument("npyFloat32: shape does not match the number of values");
    QByteArray out = npyFloat32Header(shape);
    out.reserve(out.size() + qsizetype(values.size()) * 4);
    appendFloat32(out, values.data(), qint64(values.size()));
    return out;
}

} // namespace attnscope
