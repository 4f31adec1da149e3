#include "explorer/modelproblemtext.h"

#include <QCoreApplication>
#include <QJsonParseError>

namespace attnscope {

QString jsonSyntaxErrorText(int code, const QString& english)
{
    // Qt's own words (qjsonparser.cpp), so that the English window says what the CLI says.
    switch (QJsonParseError::ParseError(code)) {
    case QJsonParseError::UnterminatedObject:
        return QCoreApplication::translate("attnscope", "unterminated object");
    case QJsonParseError::MissingNameSeparator:
        return QCoreApplication::translate("attnscope", "missing name separator");
    case QJsonParseError::UnterminatedArray:
        return QCoreApplication::translate("attnscope", "unterminated array");
    case QJsonParseError::MissingValueSeparator:
        return QCoreApplication::translate("attnscope", "missing value separator");
    case QJsonParseError::IllegalValue:
        return QCoreApplication::translate("attnscope", "illegal value");
    case QJsonParseError::TerminationByNumber:
        return QCoreApplication::translate("attnscope", "invalid termination by number");
    case QJsonParseError::IllegalNumber:
        return QCoreApplication::translate("attnscope", "illegal number");
    case QJsonParseError::IllegalEscapeSequence:
        return QCoreApplication::translate("attnscope", "invalid escape sequence");
    case QJsonParseError::IllegalUTF8String:
        return QCoreApplication::translate("attnscope", "invalid UTF8 string");
    case QJsonParseError::UnterminatedString:
        return QCoreApplication::translate("attnscope", "unterminated string");
    case QJsonParseError::MissingObject:
        return QCoreApplication::translate("attnscope", "object is missing after a comma");
    case QJsonParseError::DeepNesting:
        return QCoreApplication::translate("attnscope", "too deeply nested document");
    case QJsonParseError::DocumentTooLarge:
        return QCoreApplication::translate("attnscope", "too large document");
    case QJsonParseError::GarbageAtEnd:
        return QCoreApplication::translate("attnscope", "garbage at the end of the document");
    default:
        return english;
    }
}

QString modelProblemText(const ModelProblem& problem)
{
    using Kind = ModelProblem::Kind;
    const auto arg = [&problem](int i) { return problem.arguments.value(i); };
    QString text;
    switch (problem.kind) {
    case Kind::Other:
        return problem.english();
    case Kind::NoSuchModel:
        text =
            QCoreApplication::translate("attnscope", "%1: no such model folder, .gguf file, built-in model "
                                                     "(%2) or model in the Hugging Face cache %3")
                .arg(problem.file,
                     arg(0).isEmpty() ? QCoreApplication::translate("attnscope", "none installed") : arg(0),
                     arg(1));
        break;
    case Kind::NoSuchFolder:
        text = QCoreApplication::translate("attnscope", "%1: no such folder").arg(problem.file);
        break;
    case Kind::NoConfig:
        text = QCoreApplication::translate("attnscope", "%1: not a model folder (no config.json)")
                   .arg(problem.file);
        break;
    case Kind::InvalidJson:
        text = QCoreApplication::translate("attnscope", "%1: not valid JSON (line %2, column %3: %4)")
                   .arg(problem.file, arg(0), arg(1), jsonSyntaxErrorText(arg(2).toInt(), arg(3)));
        break;
    case Kind::MissingWeights:
        text = arg(0) == QLatin1String("pytorch")
                   ? QCoreApplication::translate(
                         "attnscope",
                         "%1: no model.safetensors or model.safetensors.index.json (only pytorch_model.bin, "
                         "which AttnScope does not read: convert it to safetensors)")
                   : QCoreApplication::translate("attnscope",
                                                 "%1: no model.safetensors or model.safetensors.index.json");
        text = text.arg(problem.file);
        break;
    case Kind::UnsupportedArchitecture:
        text = QCoreApplication::translate("attnscope",
                                           "%1: unsupported architecture %2; supported model types: %3")
                   .arg(problem.file,
                        arg(0) == QLatin1String("(none given)")
                            ? QCoreApplication::translate("attnscope", "(none given)")
                            : arg(0),
                        arg(1));
        break;
    }
    return text;
}

} // namespace attnscope
