#pragma once

// A program run to its end the way the app tests run the attnscope binary: arguments, an environment, an
// optional standard input, a timeout; what it printed comes back with its exit code.

#include <QByteArray>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace attnscope::testing {

// exitCode is -1 when the program crashed or outlived the timeout (then killed, finished false); out and err
// hold what it wrote before it ended.
struct ProcessRun
{
    int exitCode = -1;
    bool finished = false;
    QByteArray out;
    QByteArray err;
    QString outText() const { return QString::fromUtf8(out); }
    QString errText() const { return QString::fromUtf8(err); }
    QJsonObject json() const { return QJsonDocument::fromJson(out).object(); }
    struct Text;
    Text text() const;
};

// The same with out and err decoded as UTF-8, for the tests that compare text.
struct ProcessRun::Text
{
    int exitCode = -1;
    bool finished = false;
    QString out;
    QString err;
};
using TextRun = ProcessRun::Text;

inline ProcessRun::Text ProcessRun::text() const
{
    return {exitCode, finished, outText(), errText()};
}

struct ProcessOptions
{
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    QString workingDirectory;        // empty: this process's
    QString stdoutFile;              // non-empty: standard output goes to this file, out stays empty
    std::optional<QByteArray> input; // written to standard input, which is then closed; unset: left open
    int timeoutMs = 120000;
};

// Runs program; a run that crashes or times out is reported with qWarning (arguments, error, stderr).
ProcessRun runProcess(const QString& program, const QStringList& arguments,
                      const ProcessOptions& options = {});

// A folder of this test process's own (0700, removed at its end), as XDG_RUNTIME_DIR requires.
QString privateRuntimeDir();

// environment with XDG_RUNTIME_DIR set to a private folder (0700) of this test process when it has none: a
// command that starts a QGuiApplication prints Qt's own warning on stderr without one.
QProcessEnvironment
withRuntimeDir(QProcessEnvironment environment = QProcessEnvironment::systemEnvironment());

// The system environment with no display: DISPLAY, WAYLAND_DISPLAY and QT_QPA_PLATFORM removed, so a painting
// command must pick the offscreen platform itself; XDG_RUNTIME_DIR is the private folder above.
QProcessEnvironment environmentWithoutDisplay();

// Whole numbers joined by commas, as --ids takes them: "101,2023,102".
QString idsArgument(const QJsonArray& ids);
QString idsArgument(const std::vector<int>& ids);

} // namespace attnscope::testing
