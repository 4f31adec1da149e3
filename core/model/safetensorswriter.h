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

// A tensor as the header describes it; its data follow the previous tensor's.
struct TensorHeaderEntry
{
    QString name;
    TensorDtype dtype = TensorDtype::F32;
    std::vector<qint64> shape;
};

// What a .safetensors file starts with: the JSON header's length (8 bytes, little-endian), then the header
// (dtype, shape and data_offsets of each tensor, their data stored one after another in the given order),
// padded with spaces to a multiple of 8 bytes. The benchmark streams its tensors after it.
QByteArray safetensorsHeader(const std::vector<TensorHeaderEntry>& tensors);

// Writes a .safetensors file (header padded to 8 bytes, tensors in the given order) whole or not at all
// (io/outputfile.h). Used by tests and the benchmark to build models; throws ModelError on I/O failure or
// when a tensor's bytes do not match its dtype × shape.
void writeSafetensors(const QString& path, const std::vector<TensorToWrite>& tensors);

// Raw little-endian bytes of fp32 values.
QByteArray floatBytes(const std::vector<float>& values);

} // namespace attnscope
