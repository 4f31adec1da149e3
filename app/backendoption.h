#pragma once

#include <QCommandLineOption>
#include <QString>
#include <QStringList>

namespace attnscope {

// --backend, parsed in one place for every command that computes attention. Today: auto and cpu;
// GPU backends add their names here.
QStringList supportedBackends();
QCommandLineOption backendOption();
// Canonical backend name, or "" with *error set when the value is not supported.
QString parseBackend(const QString& value, QString* error);

} // namespace attnscope
