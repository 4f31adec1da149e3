#include "command.h"

#include <cstdio>

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

void printError(const QString& message)
{
    std::fprintf(stderr, "attnscope: %s\n", message.toLocal8Bit().constData());
    std::fflush(stderr);
}

void printOut(const QString& text)
{
    const QByteArray bytes = text.toUtf8();
    std::fwrite(bytes.constData(), 1, size_t(bytes.size()), stdout);
    std::fflush(stdout);
}

} // namespace attnscope
