#include "command.h"

#include "io/npy.h"
#include "io/outputfile.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFileInfo>
#include <QRegularExpression>
#include <cstdio>
#include <limits>

namespace attnscope {

std::vector<Command>& CommandRegistry::commands()
{
    static std::vector<Command> registry;
    return registry;
}

const Command* CommandRegistry::find(const QString& name)
{
    for (const Command& command : commands())
        if (command.name == name)
            return &command;
    return nullptr;
}

QString outOptionProblem(const QString& value, bool standardOutput)
{
    if (value.isEmpty())
        return standardOutput
                   ? QStringLiteral("--out is an empty path; give a file name, or - for standard output")
                   : QStringLiteral("--out is an empty path; give a file name");
    if (value.endsWith(QLatin1Char('/')) || value.endsWith(QDir::separator()) || QFileInfo(value).isDir())
        return QStringLiteral("%1: is a folder, not a file; give the name of a file (in it)").arg(value);
    return {};
}

CommandError::CommandError(int exitCode, const QString& message)
    : std::runtime_error(message.toStdString()), m_exitCode(exitCode)
{}

bool outputPathRefused(const QString& path, bool force)
{
    const OutputCheck check = checkOutputPath(path, force);
    if (check.refusal == OutputRefusal::None) return false;
    printError(check.error + (check.refusal == OutputRefusal::Exists
                                  ? QStringLiteral(" (use --force to overwrite)")
                                  : QString()));
    return true;
}

int reportFailure(const QString& command, const std::exception_ptr& thrown, ModelErrorText modelErrors)
{
    try {
        std::rethrow_exception(thrown);
    } catch (const CommandError& e) {
        printError(e.message());
        return e.exitCode();
    } catch (const ModelError& e) {
        printError(modelErrors == ModelErrorText::Named ? command + QStringLiteral(": ") + e.message()
                                                        : e.message());
    } catch (const NpyError& e) {
        printError(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        printError(command + QStringLiteral(": ") + QString::fromStdString(e.what()));
    }
    return 1;
}

void printError(const QString& message)
{
    std::fprintf(stderr, "attnscope: %s\n", message.toLocal8Bit().constData());
    std::fflush(stderr);
}

void printOut(const QString& text)
{
    writeStandardOutput(text.toUtf8());
}

std::optional<int> parseCommandLine(QCommandLineParser& parser, const QStringList& arguments,
                                    const QString& command)
{
    if (!parser.parse(arguments)) {
        printError(QStringLiteral("%1: %2").arg(command, parser.errorText()));
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(parser.helpText());
        return 0;
    }
    if (!parser.positionalArguments().isEmpty()) {
        printError(
            QStringLiteral("%1: unexpected argument '%2' (options start with --; see attnscope %1 --help)")
                .arg(command, parser.positionalArguments().constFirst()));
        return 2;
    }
    return std::nullopt;
}

QCommandLineOption maxOutputSizeOption()
{
    return {QStringLiteral("max-output-size"),
            QStringLiteral(
                "Refuse to write more than SIZE (e.g. 500M, 4G; default 1G). The size is estimated before "
                "anything is computed or written."),
            QStringLiteral("SIZE")};
}

std::optional<qint64> maxOutputSize(const QCommandLineParser& parser, QString* error)
{
    const QString name = QStringLiteral("max-output-size");
    if (!parser.isSet(name)) return kDefaultMaxOutputBytes;
    static const QRegularExpression pattern(QStringLiteral("^(\\d{1,15})\\s*([kmgt]?)(i?b)?$"),
                                            QRegularExpression::CaseInsensitiveOption);
    const QString text = parser.value(name).trimmed();
    const QRegularExpressionMatch match = pattern.match(text);
    if (!match.hasMatch()) {
        *error = QStringLiteral("--max-output-size '%1' is not a size (for example 500M or 4G)").arg(text);
        return std::nullopt;
    }
    const QString unit = match.captured(2).toLower();
    const int shift = unit.isEmpty() ? 0 : 10 * int(QStringLiteral("kmgt").indexOf(unit) + 1);
    const qint64 value = match.captured(1).toLongLong();
    if (shift > 0 && value > (std::numeric_limits<qint64>::max() >> shift)) {
        *error = QStringLiteral("--max-output-size '%1' is too large").arg(text);
        return std::nullopt;
    }
    return shift > 0 ? value << shift : value;
}

} // namespace attnscope
