#pragma once

#include <QByteArray>
#include <QString>
#include <stdexcept>
#include <vector>

namespace attnscope {

// A malformed or unsupported .npy file; what() is one line "<file>: <problem>".
class NpyError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

// A numpy array as read from a .npy file (format v1/v2/v3): little-endian float32 ('<f4') or float64
// ('<f8'), C order. values holds it widened to double (exact for both), row-major.
struct NpyArray
{
    enum class Type { Float32, Float64 };
    Type type = Type::Float64;
    std::vector<qint64> shape;
    std::vector<double> values;

    qint64 elementCount() const;
    std::vector<float> toFloat() const;
};

// Parses .npy bytes; `source` names the file in errors. Throws NpyError.
NpyArray parseNpy(const QByteArray& bytes, const QString& source);
NpyArray readNpyFile(const QString& path);

// The .npy v1 header (magic, version, padded dict) of a little-endian float32 (or float64) C-order array of
// this shape: what precedes its raw values, for writers that stream them. Its length is a multiple of
// `alignment` (a power of two, 64 to 32,768; the format asks for 64): 4,096 puts the values on the file's
// block boundaries, so a writer past the page cache can send them from the caller's memory
// (io/directwriter.h). Throws NpyError for any other alignment.
QByteArray npyHeader(const std::vector<qint64>& shape, bool float64 = false, int alignment = 64);

// .npy v1 bytes of a C-order array. Throws NpyError when values.size() does not match shape.
QByteArray npyBytes(const std::vector<float>& values, const std::vector<qint64>& shape);
QByteArray npyBytes(const std::vector<double>& values, const std::vector<qint64>& shape);

} // namespace attnscope
