#include "analysiscommandline.h"

#include "command.h"
#include "model/transformermodel.h"

namespace attnscope {

std::optional<int> parseModelCommandLine(QCommandLineParser& parser, const QStringList& arguments,
                                         const QString& command)
{
    if (const std::optional<int> done = parseCommandLine(parser, arguments, command)) return done;
    QString error;
    if (!parser.isSet(QStringLiteral("model")))
        error = QStringLiteral("--model is required");
    else if (parser.isSet(QStringLiteral("text")) == parser.isSet(QStringLiteral("ids")))
        error = QStringLiteral("give exactly one of --text or --ids");
    else if (parser.isSet(QStringLiteral("text-b")) && !parser.isSet(QStringLiteral("text")))
        error = QStringLiteral("--text-b needs --text");
    else if (const QString empty = emptyTextProblem(parser); !empty.isEmpty())
        error = empty;
    else
        return std::nullopt;
    printError(command + QStringLiteral(": ") + error);
    return 2;
}

QString emptyTextProblem(const QCommandLineParser& parser)
{
    if (parser.isSet(QStringLiteral("text")) && parser.value(QStringLiteral("text")).trimmed().isEmpty())
        return QStringLiteral("--text is empty; give a sentence (or --ids)");
    return {};
}

QJsonObject inputJson(const QString& modelArgument, const TransformerModel& model, const ModelText& input)
{
    QJsonArray ids;
    for (int id : input.ids)
        ids.append(id);
    return QJsonObject{{QStringLiteral("model"), modelArgument},
                       {QStringLiteral("path"), model.info().path},
                       {QStringLiteral("architecture"), model.info().architecture},
                       {QStringLiteral("tokens"), QJsonArray::fromStringList(input.tokens)},
                       {QStringLiteral("ids"), ids},
                       {QStringLiteral("causal"), model.config().isDecoder()}};
}

QJsonArray topJson(const Prediction& prediction)
{
    QJsonArray top;
    for (const PredictedToken& t : prediction.top)
        top.append(QJsonObject{{QStringLiteral("id"), t.id},
                               {QStringLiteral("token"), t.text},
                               {QStringLiteral("text"), t.decoded},
                               {QStringLiteral("probability"), double(t.probability)}});
    return top;
}

} // namespace attnscope
