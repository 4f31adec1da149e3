#pragma once

#include <QByteArray>

#include <vector>

namespace attnscope {

// Writes NumPy .npy version 1.0 files: little-endian float32 ('<f4'), C order. Shape is the array's
// dimensions, outermost first; the product of the shape must equal values.size().
// Returns the whole file as bytes so the caller decides how to write it (whole or not at all: io/outputfile.h).
QByteArray npyFloat32(const std::vector<float>& values, const std::vector<long long>& shape);
// The header alone (magic, version, length, dict padded to 64 bytes): for writers that append the
// float32 data themselves, block by block, without building a vector of every value first.
QByteArray npyFloat32Header(const std::vector<long long>& shape);
// Appends `count` floats to `out` as little-endian float32 (a plain copy on little-endian machines).
void appendFloat32(QByteArray& out, const float* values, qint64 count);

} // namespace attnscope
