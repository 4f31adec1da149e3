#pragma once

#include <QString>
#include <QStringList>

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

// Writes one line to stderr, the way every command reports an error.
void printError(const QString& message);
void printOut(const QString& text);

} // namespace attnscope
