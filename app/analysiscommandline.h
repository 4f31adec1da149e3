#pragma once

// What the analysis commands (ablate, rollout, residual; issue 14) share beyond modelcommandline.h: the
// argument checks every model command makes, and JSON for the input and for predictions.

#include "analysis/modeltext.h"
#include "model/prediction.h"

#include <QCommandLineParser>
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace attnscope {

class TransformerModel;

// --model given, exactly one of --text / --ids, --text-b only with --text. False with *error
// ("COMMAND: ...") otherwise; the caller exits with 2.
bool checkModelInputArguments(const QCommandLineParser& parser, const QString& command, QString* error);

// {"model": the --model argument, "path", "architecture", "tokens", "ids", "causal"}.
QJsonObject inputJson(const QString& modelArgument, const TransformerModel& model, const ModelText& input);

// [{"id", "token", "text", "probability"}, ...]
QJsonArray topJson(const Prediction& prediction);

} // namespace attnscope
