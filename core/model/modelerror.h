#pragma once

#include <QString>
#include <QStringList>
#include <stdexcept>

namespace attnscope {

// What is wrong with a model, as data: the CLI prints english(); the window words it in the user's
// language from the kind and the arguments (ui/explorer/modelproblemtext.h), so both say the same thing.
struct ModelProblem
{
    enum class Kind {
        Other,       // arguments: {the problem, in English}
        NoSuchModel, // a --model name that is no folder, file, built-in or cached model: {built-in names, hub
                     // folder}
        NoSuchFolder,   // {}
        NoConfig,       // a folder without config.json: {}
        InvalidJson,    // {line, column, QJsonParseError::ParseError as a number, the parser's English words}
        MissingWeights, // {"pytorch" when only pytorch_model.bin is there, else ""}
        UnsupportedArchitecture, // {the model type named ('t5' (T5…) or "(none given)"), the supported types}
    };
    Kind kind = Kind::Other;
    QString file; // the file or folder it names, with native separators; may be empty for Other
    QStringList arguments;

    static ModelProblem other(const QString& file, const QString& problem)
    {
        return {Kind::Other, file, {problem}};
    }
    // "<file>: <problem>", one line; the words the CLI has always printed.
    QString english() const;
};

// Anything wrong with a model folder or its use: a missing or damaged file, a config the runtime cannot
// run, an input the model cannot take. what() is one line, "<file>: <problem>", meant for the user.
class ModelError : public std::runtime_error
{
public:
    explicit ModelError(const QString& message)
        : std::runtime_error(message.toStdString()), m_problem(ModelProblem::other(QString(), message))
    {}
    ModelError(const QString& file, const QString& problem)
        : std::runtime_error((file + QStringLiteral(": ") + problem).toStdString()),
          m_problem(ModelProblem::other(file, problem))
    {}
    explicit ModelError(const ModelProblem& problem)
        : std::runtime_error(problem.english().toStdString()), m_problem(problem)
    {}
    QString message() const { return QString::fromStdString(what()); }
    const ModelProblem& problem() const { return m_problem; }

private:
    ModelProblem m_problem;
};

} // namespace attnscope
