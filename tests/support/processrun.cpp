#include "support/processrun.h"

#include <QProcess>
#include <QTemporaryDir>

namespace attnscope::testing {

ProcessRun runProcess(const QString& program, const QStringList& arguments, const ProcessOptions& options)
{
    QProcess process;
    process.setProcessEnvironment(options.environment);
    if (!options.workingDirectory.isEmpty()) process.setWorkingDirectory(options.workingDirectory);
    if (!options.stdoutFile.isEmpty()) process.setStandardOutputFile(options.stdoutFile);
    process.start(program, arguments);
    if (options.input) {
        if (!options.input->isEmpty()) process.write(*options.input);
        process.closeWriteChannel();
    }
    ProcessRun run;
    run.finished = process.waitForFinished(options.timeoutMs);
    if (!run.finished) {
        process.kill();
        process.waitForFinished();
    }
    if (run.finished && process.exitStatus() == QProcess::NormalExit) run.exitCode = process.exitCode();
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    if (run.exitCode == -1)
        qWarning("%s %s: finished=%d, error %d (%s), exit code %d; stderr: %s", qPrintable(program),
                 qPrintable(arguments.join(QLatin1Char(' '))), int(run.finished), int(process.error()),
                 qPrintable(process.errorString()), process.exitCode(), run.err.constData());
    return run;
}

QString privateRuntimeDir()
{
    static QTemporaryDir runtimeDir; // QTemporaryDir makes it 0700
    return runtimeDir.path();
}

QProcessEnvironment withRuntimeDir(QProcessEnvironment environment)
{
    if (!environment.contains(QStringLiteral("XDG_RUNTIME_DIR")))
        environment.insert(QStringLiteral("XDG_RUNTIME_DIR"), privateRuntimeDir());
    return environment;
}

QProcessEnvironment environmentWithoutDisplay()
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.remove(QStringLiteral("DISPLAY"));
    environment.remove(QStringLiteral("WAYLAND_DISPLAY"));
    environment.remove(QStringLiteral("QT_QPA_PLATFORM"));
    environment.remove(QStringLiteral("XDG_RUNTIME_DIR"));
    return withRuntimeDir(environment);
}

QString idsArgument(const QJsonArray& ids)
{
    QStringList parts;
    for (const QJsonValue& v : ids)
        parts << QString::number(v.toInt());
    return parts.join(QLatin1Char(','));
}

QString idsArgument(const std::vector<int>& ids)
{
    QStringList parts;
    for (int id : ids)
        parts << QString::number(id);
    return parts.join(QLatin1Char(','));
}

} // namespace attnscope::testing
