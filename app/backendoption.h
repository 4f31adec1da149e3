#pragma once

#include <QCommandLineOption>
#include <QString>
#include <QStringList>
#include <memory>

namespace attnscope {

class AttentionBackend;

// --backend, parsed in one place for every command that computes attention: auto, cpu, vulkan, opengl.
QStringList supportedBackends();
QCommandLineOption backendOption();
// Canonical backend name, or "" with *error set when the value is not supported.
QString parseBackend(const QString& value, QString* error);

// The backend for a canonical name from parseBackend. Never null: when the GPU asked for cannot start,
// the CPU backend, with its one-line notice on stderr (for auto only with verbose, since auto choosing
// the CPU is the normal case without a hardware GPU). With verbose, also "backend: NAME on DEVICE".
// Later notices (a GPU failing mid-run) go to stderr too.
std::unique_ptr<AttentionBackend> createCommandBackend(const QString& name, bool verbose);

} // namespace attnscope
