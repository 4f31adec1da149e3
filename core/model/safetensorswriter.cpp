#include "model/safetensorswriter.h"

#include "io/outputfile.h"
#include "model/modelerror.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

QByteArray floatBytes(const std::vector<float>& values)
{
    return QByteArray(reinterpret_cast<const char*>(values.data()), qsizetype(values.size() * sizeof(float)));
}

QByteArray safetensorsHeader(const std::vector<TensorHeaderEntry>& tensors)
{
    // QJsonObject sorts keys; the data order follows `tensors`, so offsets are assigned here.
    QJsonObject header;
    qint64 offset = 0;
    for (const TensorHeaderEntry& t : tensors) {
        qint64 count = 1;
        QJsonArray shape;
        for (qint64 dim : t.shape) {
            count *= dim;
            shape.append(double(dim));
        }
        const qint64 bytes = count * dtypeSize(t.dtype);
        QJsonObject entry;
        entry.insert(QStringLiteral("dtype"), dtypeName(t.dtype));
        entry.insert(QStringLiteral("shape"), shape);
        entry.insert(QStringLiteral("data_offsets"), QJsonArray{double(offset), double(offset + bytes)});
        header.insert(t.name, entry);
        offset += bytes;
    }
    QByteArray json = QJsonDocument(header).toJson(QJsonDocument::Compact);
    while (json.size() % 8 != 0)
        json += ' ';
    QByteArray length(8, '\0');
    for (int i = 0; i < 8; ++i)
        length[i] = char((quint64(json.size()) >> (8 * i)) & 0xff);
    return length + json;
}

void writeSafetensors(const QString& path, const std::vector<TensorToWrite>& tensors)
{
    const QString file = QDir::toNativeSeparators(path);
    std::vector<TensorHeaderEntry> entries;
    for (const TensorToWrite& t : tensors) {
        qint64 count = 1;
        for (qint64 dim : t.shape)
            count *= dim;
        if (count * dtypeSize(t.dtype) != t.data.size())
            throw ModelError(file, QStringLiteral("tensor %1: %2 bytes do not match its dtype and shape")
                                       .arg(t.name)
                                       .arg(t.data.size()));
        entries.push_back({t.name, t.dtype, t.shape});
    }
    OutputFile out(path, true);
    bool ok = out.open() && out.write(safetensorsHeader(entries));
    for (const TensorToWrite& t : tensors)
        ok = ok && out.write(t.data);
    if (!ok || !out.commit()) throw ModelError(file, QStringLiteral("cannot write: %1").arg(out.error()));
}

} // namespace attnscope
