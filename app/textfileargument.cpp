#include "textfileargument.h"

#include "command.h"
#include "io/inputfile.h"
#include "tokenizer/unicodechars.h"

#include <QDir>

namespace attnscope {

qsizetype firstInvalidUtf8(const QByteArray& bytes)
{
    const auto* s = reinterpret_cast<const unsigned char*>(bytes.constData());
    for (qsizetype i = 0; i < bytes.size();) {
        const tok::Utf8Sequence sequence = tok::readUtf8Sequence(s + i, size_t(bytes.size() - i));
        if (!sequence.valid) return i;
        i += sequence.length;
    }
    return -1;
}

namespace {

bool readText(const QString& path, QString* text, QString* error)
{
    // The input rules of every file AttnScope reads (io/inputfile.h): a regular file (a FIFO without a writer
    // blocked in open() forever), and, standard input included, the text limit (`yes | attnscope tokenize
    // --text-file -` grew to 2 GB and aborted).
    const bool standardInput = isStandardStream(path);
    const QString name = standardInput ? QStringLiteral("standard input") : QDir::toNativeSeparators(path);
    QString problem;
    const std::optional<QByteArray> read = standardInput ? readStandardInput(kMaxTextFileBytes, &problem)
                                                         : readInputFile(path, kMaxTextFileBytes, &problem);
    if (!read) {
        *error = name + QStringLiteral(": ") + problem;
        return false;
    }
    const QByteArray& bytes = *read;
    const qsizetype bad = firstInvalidUtf8(bytes);
    if (bad >= 0) {
        *error = name + QStringLiteral(": invalid UTF-8 at byte %1 (0x%2); the text must be UTF-8")
                            .arg(bad)
                            .arg(uint(static_cast<unsigned char>(bytes[bad])), 2, 16, QLatin1Char('0'));
        return false;
    }
    *text = QString::fromUtf8(bytes);
    return true;
}

} // namespace

bool expandTextFileArguments(QStringList& arguments, QString* error)
{
    const struct
    {
        QLatin1String file, text;
    } pairs[] = {{QLatin1String("text-file"), QLatin1String("text")},
                 {QLatin1String("text-b-file"), QLatin1String("text-b")}};
    for (const auto& pair : pairs) {
        bool fileGiven = false, textGiven = false;
        for (int i = 1; i < arguments.size(); ++i) {
            const QString& a = arguments[i];
            if (a == QLatin1String("--") + pair.text ||
                a.startsWith(QLatin1String("--") + pair.text + QLatin1Char('=')))
                textGiven = true;
        }
        for (int i = 1; i < arguments.size(); ++i) {
            const QString option = QLatin1String("--") + pair.file;
            QString path;
            int consumed = 0;
            if (arguments[i] == option) {
                if (i + 1 >= arguments.size()) {
                    *error =
                        QStringLiteral("--%1 needs a file name (or - for standard input)").arg(pair.file);
                    return false;
                }
                path = arguments[i + 1];
                consumed = 2;
            } else if (arguments[i].startsWith(option + QLatin1Char('='))) {
                path = arguments[i].mid(option.size() + 1);
                consumed = 1;
            } else {
                continue;
            }
            if (fileGiven || textGiven) {
                *error = QStringLiteral("give --%1 or --%2 once, not both").arg(pair.text, pair.file);
                return false;
            }
            fileGiven = true;
            QString text;
            if (!readText(path, &text, error)) return false;
            arguments.erase(arguments.begin() + i, arguments.begin() + i + consumed);
            arguments.insert(i, QLatin1String("--") + pair.text);
            arguments.insert(i + 1, text);
            ++i;
        }
    }
    return true;
}

} // namespace attnscope
