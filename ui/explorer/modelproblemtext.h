#pragma once

#include "model/modelerror.h"

#include <QString>

namespace attnscope {

// A model's problem (core's ModelProblem) in the window's language: the same line the CLI prints
// (ModelProblem::english) in English, "<file>: <problem>" in Turkish. Problems without a kind of their own
// (ModelProblem::Kind::Other) keep core's English words after the file.
QString modelProblemText(const ModelProblem& problem);

// Qt's words for a JSON syntax error (QJsonParseError::ParseError as a number) in the window's language;
// `english` when the code is not one Qt has.
QString jsonSyntaxErrorText(int code, const QString& english);

} // namespace attnscope
