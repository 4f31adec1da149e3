#pragma once

#include "model/safetensorsfile.h"

#include <QByteArray>
#include <QString>
#include <vector>

namespace attnscope {

struct TensorToWrite
{
    QString name;
    TensorDtype dtype = TensorDtype::F32;
    std::vector<qint64> shape;
    QByteArray data; // little-endian elements, elementCount × dtypeSize bytes
};

// Writes a .safetensors file (header padded to 8 bytes, tensors in the given order) whole or not at all
// (io/outputfile.h). Used by tests and the benchmark to build models; throws ModelError on I/O failure or when a
// tensor's bytes do not match its dtype × shape.
void writeSafetensors(const QString& path, const std::vector<TensorToWrite>& tensors);

// Raw little-endian bytes of fp32 values.
QByteArray floatBytes(const std::vector<float>& values);

} // namespace attnscope
