#pragma once

#include <QByteArray>

#include <vector>

namespace attnscope {

// Writes NumPy .npy version 1.0 files: little-endian float32 ('<f4'), C order. Shape is the array's
// dimensions, outermost first; the product of the shape must equal values.size().
// Returns the whole file as bytes so the caller decides how to write it (atomically, with QSaveFile).
QByteArray npyFloat32(const std::vector<float>& values, const std::vector<long long>& shape);

} // namespace attnscope
