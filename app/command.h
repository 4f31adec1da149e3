#pragma once

#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <exception>
#include <optional>
#include <stdexcept>
#include <vector>

namespace attnscope {

// A headless subcommand: `attnscope NAME ...`. Each lives in its own app/cmd_*.cpp and registers
// itself with a static CommandRegistration, so adding one touches no shared list.
struct Command
{
    QString name;
    QString summary;
    // True when the command paints (fonts, QImage text) or may use the GPU: it gets a QGuiApplication,
    // on the offscreen platform when there is no display. Otherwise a QCoreApplication.
    bool needsGui = false;
    // arguments[0] is "attnscope NAME"; returns the process exit code.
    int (*run)(const QStringList& arguments) = nullptr;
};

class CommandRegistry
{
public:
    static std::vector<Command>& commands();
    static const Command* find(const QString& name);
};

struct CommandRegistration
{
    explicit CommandRegistration(Command command) { CommandRegistry::commands().push_back(std::move(command)); }
};

// "-" as a file argument: standard input for --text-file, standard output for --out.
inline bool isStandardStream(const QString& path)
{
    return path == QLatin1String("-");
}

// Why the value of --out names no file to write, "" when it may (the output policy, io/outputfile.h, is
// checked after): an empty path ("--out is an empty path; give a file name", with "or - for standard
// output" where `standardOutput`), or a folder ("x/: is a folder, not a file"), whether it exists or ends
// in a separator. Checked before the suffix, which a folder or an empty path does not have.
QString outOptionProblem(const QString& value, bool standardOutput);

// Thrown by a command for a failure with its own exit code (2: a usage error found only once the
// model is open, such as --layer past its layers). The message is the whole line after "attnscope: ".
class CommandError : public std::runtime_error
{
public:
    CommandError(int exitCode, const QString& message);
    int exitCode() const { return m_exitCode; }
    QString message() const { return QString::fromStdString(what()); }

private:
    int m_exitCode;
};

// Whether `path` may not be written as an output file (io/outputfile.h's checkOutputPath: a device, a FIFO,
// a folder, or an existing file without `force`); when not, the reason is on stderr (exit code 1).
bool outputPathRefused(const QString& path, bool force);

// How reportFailure() writes a ModelError: its message as it is ("<file>: <problem>"), or after "COMMAND: ".
enum class ModelErrorText { AsIs, Named };
// The one line on stderr for what a command threw, and the exit code: a CommandError its
// message and code; a ModelError (see ModelErrorText) or an NpyError its message; anything else
// "COMMAND: what()"; 1 but for a CommandError. Called from a catch (...).
int reportFailure(const QString& command, const std::exception_ptr& thrown, ModelErrorText modelErrors);

// Writes one line to stderr, the way every command reports an error.
void printError(const QString& message);
// Writes to stdout, checked (io/outputfile.h): a failed write makes the process exit non-zero with the
// system's reason, whatever the command returns (main() asks standardOutputError() at the end).
void printOut(const QString& text);

// Parses a command's arguments the same way for every command. Returns the exit code when the command is
// done already: a parse error or an unexpected positional argument (2, one line "<command>: ..." on
// stderr) or --help (0, the help on stdout); nullopt when the command should go on.
std::optional<int> parseCommandLine(QCommandLineParser& parser, const QStringList& arguments,
                                    const QString& command);

// --max-output-size SIZE for the commands that dump attention weights (attention, export).
QCommandLineOption maxOutputSizeOption();
// The option's value in bytes: "1G", "500M", "2GiB", "64k", "123456" (powers of 1024); the default
// (kDefaultMaxOutputBytes) when it is not given; nullopt with *error for anything else.
std::optional<qint64> maxOutputSize(const QCommandLineParser& parser, QString* error);

} // namespace attnscope
