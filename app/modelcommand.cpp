#include "modelcommand.h"

#include "analysiscommandline.h"
#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "io/outputfile.h"
#include "model/transformermodel.h"

#include <QElapsedTimer>
#include <algorithm>

namespace attnscope {

ModelCommandRun::ModelCommandRun(const QCommandLineParser& parser, std::unique_ptr<TransformerModel> model,
                                 qint64 openMilliseconds, QString backendName, QString outPath)
    : m_parser(parser), m_model(std::move(model)), m_openMilliseconds(openMilliseconds),
      m_backendName(std::move(backendName)), m_outPath(std::move(outPath))
{}

ModelCommandRun::~ModelCommandRun() = default;

const ModelInput& ModelCommandRun::input(PositionLimit limit)
{
    if (!m_input) m_input = modelInput(*m_model, m_parser, limit);
    return *m_input;
}

AttentionBackend* ModelCommandRun::backend()
{
    if (!m_backend && !m_backendName.isEmpty())
        m_backend = createCommandBackend(m_backendName, isSet("verbose"));
    return m_backend.get();
}

RunOptions ModelCommandRun::runOptions()
{
    RunOptions options;
    options.backend = backend();
    return options;
}

void ModelCommandRun::writeOutput(const QByteArray& bytes) const
{
    if (m_outPath.isEmpty()) {
        if (!writeStandardOutput(bytes)) // checked: output that went nowhere is not a success
            throw CommandError(1, standardOutputError());
        return;
    }
    QString error;
    if (!writeOutputFile(m_outPath, bytes, force(), &error)) throw CommandError(1, error);
}

namespace {

bool lists(const QList<QCommandLineOption>& options, const QString& name)
{
    return std::any_of(options.begin(), options.end(),
                       [&](const QCommandLineOption& o) { return o.names().contains(name); });
}

// Step 2's rule for generate and stream.
std::optional<int> checkInputRule(const QCommandLineParser& parser, const ModelCommand& command)
{
    if (parser.isSet(QStringLiteral("model")) &&
        parser.isSet(QStringLiteral("text")) != parser.isSet(QStringLiteral("ids"))) {
        const QString empty = emptyTextProblem(parser);
        if (empty.isEmpty()) return std::nullopt;
        printError(command.name + QStringLiteral(": ") + empty);
        return 2;
    }
    printError(command.name + QStringLiteral(": ") + command.inputRule);
    return 2;
}

} // namespace

int runModelCommand(const ModelCommand& command, const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(command.description);
    parser.addHelpOption();
    parser.addOptions(modelInputOptions());
    parser.addOptions(command.options);
    std::optional<int> done = command.inputRule.isEmpty()
                                  ? parseModelCommandLine(parser, arguments, command.name)
                                  : parseCommandLine(parser, arguments, command.name);
    if (!done && !command.inputRule.isEmpty()) done = checkInputRule(parser, command);
    if (done) return *done;
    auto usageError = [&](const QString& problem) {
        printError(command.name + QStringLiteral(": ") + problem);
        return 2;
    };
    if (command.checkArguments)
        if (const QString problem = command.checkArguments(parser); !problem.isEmpty())
            return usageError(problem);
    QString backendName;
    if (lists(command.options, QStringLiteral("backend"))) {
        QString error;
        backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
        if (backendName.isEmpty()) return usageError(error);
    }
    // "--out -" is standard output, as "-" is standard input for --text-file (not a file named "-").
    QString outPath;
    if (lists(command.options, QStringLiteral("out")) &&
        !isStandardStream(parser.value(QStringLiteral("out"))))
        outPath = parser.value(QStringLiteral("out"));
    // Refused before the model runs: a device, a FIFO, a folder, or an existing file without --force.
    if (!outPath.isEmpty() && outputPathRefused(outPath, parser.isSet(QStringLiteral("force")))) return 1;

    try {
        if (command.runOtherModel)
            if (const std::optional<int> code = command.runOtherModel(parser, outPath)) return *code;
        QElapsedTimer timer;
        timer.start();
        std::unique_ptr<TransformerModel> model = openModelArgument(parser.value(QStringLiteral("model")));
        ModelCommandRun run(parser, std::move(model), timer.elapsed(), backendName, outPath);
        command.run(run);
        return 0;
    } catch (...) {
        return reportFailure(command.name, std::current_exception(),
                             command.namesModelErrors ? ModelErrorText::Named : ModelErrorText::AsIs);
    }
}

QCommandLineOption verboseOption()
{
    return {QStringLiteral("verbose"), QStringLiteral("Report the backend and device on stderr.")};
}

QCommandLineOption jsonOption()
{
    return {QStringLiteral("json"), QStringLiteral("Print JSON.")};
}

QCommandLineOption dumpFormatOption()
{
    return {QStringLiteral("format"), QStringLiteral("json (default) or npy."), QStringLiteral("format"),
            QStringLiteral("json")};
}

QList<QCommandLineOption> outFileOptions()
{
    return {{QStringLiteral("out"),
             QStringLiteral("Write to this file instead of stdout (required for npy; - is stdout)."),
             QStringLiteral("file")},
            {QStringLiteral("force"), QStringLiteral("Overwrite an existing --out file.")}};
}

QString dumpFormatProblem(const QCommandLineParser& parser)
{
    const QString format = parser.value(QStringLiteral("format"));
    if (format == QLatin1String("json") || format == QLatin1String("npy")) return {};
    return QStringLiteral("--format must be json or npy, not '%1'").arg(format);
}

QString outFileProblem(const QCommandLineParser& parser)
{
    // An empty --out was standard output, silently.
    if (parser.isSet(QStringLiteral("out")))
        if (QString problem = outOptionProblem(parser.value(QStringLiteral("out")), true); !problem.isEmpty())
            return problem;
    if (parser.value(QStringLiteral("format")) == QLatin1String("npy") &&
        !parser.isSet(QStringLiteral("out")))
        return QStringLiteral("--format npy needs --out FILE");
    return {};
}

} // namespace attnscope
