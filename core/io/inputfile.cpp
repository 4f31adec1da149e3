#include "io/inputfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <algorithm>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace attnscope {

namespace {

QString specialFileKindText(SpecialFileKind kind)
{
    switch (kind) {
    case SpecialFileKind::CharacterDevice:
        return QStringLiteral("a character device");
    case SpecialFileKind::BlockDevice:
        return QStringLiteral("a block device");
    case SpecialFileKind::Fifo:
        return QStringLiteral("a FIFO (named pipe)");
    case SpecialFileKind::Socket:
        return QStringLiteral("a socket");
    case SpecialFileKind::Other:
        break;
    }
    return QStringLiteral("a device, FIFO or socket");
}

} // namespace

SpecialFileKind specialFileKind(const QString& path)
{
#ifdef Q_OS_UNIX
    struct stat st = {};
    if (::stat(QFile::encodeName(path).constData(), &st) == 0) {
        if (S_ISCHR(st.st_mode)) return SpecialFileKind::CharacterDevice;
        if (S_ISBLK(st.st_mode)) return SpecialFileKind::BlockDevice;
        if (S_ISFIFO(st.st_mode)) return SpecialFileKind::Fifo;
        if (S_ISSOCK(st.st_mode)) return SpecialFileKind::Socket;
    }
#else
    Q_UNUSED(path);
#endif
    return SpecialFileKind::Other;
}

QString byteSizeText(qint64 bytes)
{
    if (bytes < 1024) return QStringLiteral("%1 bytes").arg(bytes);
    return QLocale::c().formattedDataSize(bytes, 1, QLocale::DataSizeIecFormat);
}

QString inputFileProblem(const QString& path, qint64 maxBytes)
{
    const QFileInfo info(path);
    if (!info.exists()) {
        if (info.isSymLink())
            return QStringLiteral("a symbolic link to %1, which does not exist")
                .arg(QDir::toNativeSeparators(info.symLinkTarget()));
        return QStringLiteral("file not found");
    }
    if (info.isDir()) return QStringLiteral("a folder, not a file");
    if (!info.isFile())
        return QStringLiteral("not a regular file but %1; AttnScope reads only regular files")
            .arg(specialFileKindText(specialFileKind(path)));
    if (maxBytes >= 0 && info.size() > maxBytes)
        return QStringLiteral("is %1, over the %2 limit for this kind of file: damaged, or not the file it "
                              "should be")
            .arg(byteSizeText(info.size()), byteSizeText(maxBytes));
    return {};
}

bool openInputFile(QFile& file, const QString& path, QString* problem)
{
    *problem = inputFileProblem(path);
    if (!problem->isEmpty()) return false;
    file.setFileName(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("cannot open: %1").arg(file.errorString());
        return false;
    }
    return true;
}

std::optional<QByteArray> readBoundedStream(QIODevice& device, qint64 maxBytes, QString* problem)
{
    // In chunks until the end, not trusting size(): a file may grow meanwhile or report 0 (/proc), and a
    // pipe has no size at all. An empty read is the end (a QFile on a pipe blocks in read() until data or
    // end of file).
    QByteArray bytes;
    if (!device.isSequential()) bytes.reserve(qsizetype(std::min(device.size(), maxBytes)));
    for (;;) {
        const qint64 wanted = std::min<qint64>(qint64(1) << 20, maxBytes + 1 - bytes.size());
        const QByteArray chunk = device.read(wanted);
        if (auto* file = qobject_cast<QFileDevice*>(&device); file && file->error() != QFileDevice::NoError) {
            *problem = QStringLiteral("cannot read: %1").arg(file->errorString());
            return std::nullopt;
        }
        if (chunk.isEmpty()) return bytes;
        bytes += chunk;
        if (bytes.size() > maxBytes) {
            *problem =
                QStringLiteral("is over the %1 limit for this kind of input").arg(byteSizeText(maxBytes));
            return std::nullopt;
        }
    }
}

std::optional<QByteArray> readInputFile(const QString& path, qint64 maxBytes, QString* problem)
{
    *problem = inputFileProblem(path, maxBytes);
    if (!problem->isEmpty()) return std::nullopt;
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) {
        *problem = QStringLiteral("cannot open: %1").arg(file.errorString());
        return std::nullopt;
    }
    return readBoundedStream(file, maxBytes, problem);
}

std::optional<QByteArray> readStandardInput(qint64 maxBytes, QString* problem)
{
    QFile file;
    if (!file.open(stdin, QIODevice::ReadOnly)) {
        *problem = QStringLiteral("cannot open: %1").arg(file.errorString());
        return std::nullopt;
    }
    return readBoundedStream(file, maxBytes, problem);
}

} // namespace attnscope
