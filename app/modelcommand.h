#pragma once

// The skeleton of the headless commands that run a model on one input (ablate, attention, generate,
// predict, residual, rollout, stream). runModelCommand() takes their shared steps, in this order:
//   1. the options: --model, --text, --text-b, --ids, then the command's own;
//   2. the command line (command.h): --help, unknown options and stray arguments, then --model and
//      exactly one of --text / --ids, --text-b only with --text (exit 2);
//   3. the command's own checks of its arguments (exit 2);
//   4. where the command lists them: --backend's name (exit 2), and an --out file that may not be written
//      (a device, a FIFO, an existing file without --force: exit 1), all before the model opens;
//   5. the model opened, with its warnings on stderr; the input and the backend are made when the command
//      first asks for them, so that it decides what it checks before them;
//   6. the command's run. What it throws becomes one line on stderr and exit code 1 (a CommandError its own
//      code). Output that could not be written fails the process (main(), command.h's printOut).
// A command keeps what is its own: its options, its checks, what it computes and how it prints it.

#include "analysis/modeltext.h"
#include "model/runoptions.h"
#include "modelcommandline.h"

#include <QCommandLineOption>
#include <QCommandLineParser>
#include <QList>
#include <QString>
#include <QStringList>
#include <functional>
#include <memory>
#include <optional>

namespace attnscope {

class AttentionBackend;
class TransformerModel;

// What a model command's run is given: the parsed arguments and the model, the input and the backend.
class ModelCommandRun
{
public:
    ModelCommandRun(const QCommandLineParser& parser, std::unique_ptr<TransformerModel> model,
                    qint64 openMilliseconds, QString backendName, QString outPath);
    ~ModelCommandRun();

    const QCommandLineParser& parser() const { return m_parser; }
    bool isSet(const char* option) const { return m_parser.isSet(QLatin1String(option)); }
    QString value(const char* option) const { return m_parser.value(QLatin1String(option)); }
    // --model as given (JSON outputs repeat it).
    QString modelArgument() const { return value("model"); }
    TransformerModel& model() { return *m_model; }
    // How long opening the model took (attention --verbose).
    qint64 openMilliseconds() const { return m_openMilliseconds; }

    // From --ids or --text/--text-b (modelcommandline.h), made on the first call; throws ModelError.
    const ModelInput& input(PositionLimit limit = PositionLimit::Model);
    // The --backend asked for (backendoption.h: its notices on stderr, with --verbose its name), made on the
    // first call; null for a command without --backend.
    AttentionBackend* backend();
    // RunOptions with backend().
    RunOptions runOptions();

    // --out's file, "" for standard output ("--out -" or no --out).
    const QString& outPath() const { return m_outPath; }
    bool force() const { return isSet("force"); }
    // `bytes` to --out's file (whole or not at all) or to standard output, checked; throws CommandError (1)
    // with the reason when it fails.
    void writeOutput(const QByteArray& bytes) const;

private:
    const QCommandLineParser& m_parser;
    std::unique_ptr<TransformerModel> m_model;
    qint64 m_openMilliseconds = 0;
    QString m_backendName; // "" without --backend
    QString m_outPath;
    // Made on first use.
    std::optional<ModelInput> m_input;
    std::unique_ptr<AttentionBackend> m_backend;
};

struct ModelCommand
{
    ModelCommand(QString name, QString description)
        : name(std::move(name)), description(std::move(description))
    {}

    // "predict": the command's name, and the prefix of its usage errors ("predict: --top must be ...").
    QString name;
    // The help's text.
    QString description;
    // Its own options, after --model, --text, --text-b and --ids. With backendOption() (backendoption.h)
    // listed, --backend is checked and run.backend() made; with "out", --out is guarded as a file.
    QList<QCommandLineOption> options;
    // Where set, step 2 checks only --model and exactly one of --text / --ids, and says this when either
    // is missing (generate, stream: their text may come from --text-file).
    QString inputRule;
    // "NAME: " before a ModelError's message (generate, stream).
    bool namesModelErrors = false;
    // Step 3: "" when the arguments are good, else the problem (printed as "NAME: problem", exit 2). Here
    // the command keeps the values it parses.
    std::function<QString(const QCommandLineParser&)> checkArguments;
    // Step 4b, where set: called before the model opens, with --out's path ("" for standard output); an exit
    // code when it ran the command on a model of another kind itself (attention --part on an encoder-decoder
    // model) and the skeleton's open and run() are skipped, nullopt to go on. What it throws is reported as
    // step 6's.
    std::function<std::optional<int>(const QCommandLineParser&, const QString& outPath)> runOtherModel;
    // Step 6: computes and prints; exit code 0 when it returns. A failure is thrown (CommandError for one
    // with a message of its own).
    std::function<void(ModelCommandRun&)> run;
};

int runModelCommand(const ModelCommand& command, const QStringList& arguments);

// Options and checks that several model commands share.
QCommandLineOption verboseOption();    // "Report the backend and device on stderr."
QCommandLineOption jsonOption();       // "Print JSON."
QCommandLineOption dumpFormatOption(); // --format json (default) or npy
// --out FILE (- is standard output) and --force.
QList<QCommandLineOption> outFileOptions();
// --format is json or npy: "" when it is.
QString dumpFormatProblem(const QCommandLineParser& parser);
// --out names something that may be a file (command.h's outOptionProblem), and npy has an --out.
QString outFileProblem(const QCommandLineParser& parser);

} // namespace attnscope
