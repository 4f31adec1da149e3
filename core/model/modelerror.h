#pragma once

#include <QString>
#include <stdexcept>

namespace attnscope {

// Anything wrong with a model folder or its use: a missing or damaged file, a config the runtime cannot
// run, an input the model cannot take. what() is one line, "<file>: <problem>", meant for the user.
class ModelError : public std::runtime_error
{
public:
    explicit ModelError(const QString& message) : std::runtime_error(message.toStdString()) {}
    ModelError(const QString& file, const QString& problem)
        : std::runtime_error((file + QStringLiteral(": ") + problem).toStdString())
    {}
    QString message() const { return QString::fromStdString(what()); }
};

} // namespace attnscope
