#pragma once

// What the analysis commands (ablate, rollout, residual; issue 14) share beyond modelcommandline.h: the
// argument checks every model command makes, and JSON for the input and for predictions.

#include "analysis/modeltext.h"
#include "model/prediction.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>
#include <QStringList>
#include <optional>

namespace attnscope {

class TransformerModel;

// parseCommandLine (command.h), then the checks of every command that runs a model on one input: --model
// given, exactly one of --text / --ids, --text not empty, --text-b only with --text (one line "COMMAND: ..." and 2 otherwise).
// Returns the exit code when the command is done already, nullopt when it should go on.
std::optional<int> parseModelCommandLine(QCommandLineParser& parser, const QStringList& arguments,
                                         const QString& command);

// "--text is empty; give a sentence (or --ids)" when --text is given empty or spaces only (a run of the
// special tokens alone means nothing); "" otherwise.
QString emptyTextProblem(const QCommandLineParser& parser);

// {"model": the --model argument, "path", "architecture", "tokens", "ids", "causal"}.
QJsonObject inputJson(const QString& modelArgument, const TransformerModel& model, const ModelText& input);

// [{"id", "token", "text", "probability"}, ...]
QJsonArray topJson(const Prediction& prediction);

} // namespace attnscope
