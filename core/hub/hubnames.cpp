#include "hub/hubnames.h"

#include <QRegularExpression>
#include <QStringList>

namespace attnscope::hub {

namespace {

bool isNameCharacter(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) ||
           (c >= QLatin1Char('A') && c <= QLatin1Char('Z')) ||
           (c >= QLatin1Char('0') && c <= QLatin1Char('9')) || c == QLatin1Char('_') ||
           c == QLatin1Char('-') || c == QLatin1Char('.');
}

bool isWordCharacter(QChar c)
{
    return isNameCharacter(c) && c != QLatin1Char('-') && c != QLatin1Char('.');
}

QString namePartProblem(const QString& part)
{
    if (part.isEmpty() || part.size() > 96) return QStringLiteral("each part must have 1 to 96 characters");
    for (const QChar c : part)
        if (!isNameCharacter(c)) return QStringLiteral("only letters, digits, '-', '_' and '.' are allowed");
    // The regex's \b at both ends: the name starts and ends with a letter, digit or '_'.
    if (!isWordCharacter(part.front()) || !isWordCharacter(part.back()))
        return QStringLiteral("'-' and '.' cannot start or end the name");
    return {};
}

} // namespace

QString repoIdProblem(const QString& repoId)
{
    const QStringList parts = repoId.split(QLatin1Char('/'));
    if (parts.size() > 2) return QStringLiteral("a repo id is NAME or ORG/NAME");
    for (const QString& part : parts)
        if (const QString problem = namePartProblem(part); !problem.isEmpty()) return problem;
    if (repoId.contains(QLatin1String("--")) || repoId.contains(QLatin1String("..")))
        return QStringLiteral("'--' and '..' are not allowed");
    if (repoId.endsWith(QLatin1String(".git"))) return QStringLiteral("it cannot end in '.git'");
    return {};
}

QString revisionProblem(const QString& revision)
{
    if (revision.isEmpty() || revision.size() > 255)
        return QStringLiteral("it must have 1 to 255 characters");
    for (const QChar c : revision)
        if (c.unicode() <= 0x20 || c.unicode() >= 0x7f || c == QLatin1Char('\\'))
            return QStringLiteral("only printable ASCII without spaces or backslashes is allowed");
    if (revision.startsWith(QLatin1Char('/')) || revision.endsWith(QLatin1Char('/')) ||
        revision.contains(QLatin1String("//")) || revision.contains(QLatin1String("..")))
        return QStringLiteral("no '..', empty segment or leading '/' is allowed");
    for (const QString& segment : revision.split(QLatin1Char('/')))
        if (segment == QLatin1String(".")) return QStringLiteral("no '.' segment is allowed");
    return {};
}

QString repoPathProblem(const QString& path)
{
    if (path.isEmpty()) return QStringLiteral("empty file name");
    if (path.size() > 1024) return QStringLiteral("file name longer than 1024 characters");
    if (path.startsWith(QLatin1Char('/'))) return QStringLiteral("absolute path");
    if (path.contains(QLatin1Char('\\'))) return QStringLiteral("backslash in the file name");
    for (const QChar c : path)
        if (c.unicode() < 0x20 || c.unicode() == 0x7f)
            return QStringLiteral("control character in the file name");
    for (const QString& segment : path.split(QLatin1Char('/'))) {
        if (segment.isEmpty()) return QStringLiteral("empty path segment");
        if (segment == QLatin1String(".") || segment == QLatin1String(".."))
            return QStringLiteral("'%1' segment leaves the repository").arg(segment);
    }
    return {};
}

QString repoFolderName(const QString& repoId)
{
    return QStringLiteral("models--") + QString(repoId).replace(QLatin1Char('/'), QStringLiteral("--"));
}

bool isCommitHash(const QString& revision)
{
    static const QRegularExpression commit(QStringLiteral("^[0-9a-f]{40}$"));
    return commit.match(revision).hasMatch();
}

QString blobNameFromEtag(const QByteArray& etag)
{
    QByteArray name = etag.trimmed();
    if (name.startsWith("W/")) name = name.mid(2);
    if (name.size() >= 2 && name.startsWith('"') && name.endsWith('"')) name = name.mid(1, name.size() - 2);
    if (name.isEmpty() || name.size() > 128) return {};
    for (const char c : name) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                        c == '_' || c == '-';
        if (!ok) return {};
    }
    return QString::fromLatin1(name);
}

} // namespace attnscope::hub
