#pragma once

// What the model commands (attention, predict) share: --model resolution and --ids / --text input.
// (Output files follow io/outputfile.h.)

#include "analysis/modeltext.h"
#include "model/transformermodel.h"

#include <QByteArray>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace attnscope {

// The model's input: ids, the token text for each, segment ids and roles (core/analysis/modeltext.h).
using ModelInput = ModelText;

// "1,2, 3" -> ids; false with *error set for anything that is not a list of non-negative integers.
bool parseIdList(const QString& text, std::vector<int>* ids, QString* error);

// Resolves and opens --model (folder, built-in name or cache id), warning on stderr as warnAboutModel does.
// Throws ModelError.
std::unique_ptr<TransformerModel> openModelArgument(const QString& nameOrPath);
// One line "attnscope: warning: ..." on stderr for what a model runs despite (a config that leaves layers
// of its checkpoint unused).
void warnAboutModel(const TransformerModel& model);

// --model, --text, --text-b and --ids: the options modelInput() and openModelArgument() read.
QList<QCommandLineOption> modelInputOptions();

// From --ids (taken as given, no special tokens) or --text/--text-b (through the folder's tokenizer,
// special tokens added). Throws ModelError with a one-line message, also (PositionLimit::Model) for more
// tokens than the model has positions.
ModelInput modelInput(const TransformerModel& model, const QCommandLineParser& parser,
                      PositionLimit limit = PositionLimit::Model);

// Shortest decimal text that reads back as the same float ("0.25", "1.5e-07").
QByteArray floatText(float value);

} // namespace attnscope
