#pragma once

// QJsonDocument keeps only the last of two equal keys in an object, silently. Formats where a repeated
// key is an error (a safetensors header names each tensor once) look for one here first.

#include <QByteArray>
#include <QStringList>
#include <optional>

namespace attnscope {

// The path of keys to the first key that appears twice in one object of `json`, e.g. {"a"} for a
// top-level key or {"a", "dtype"} inside the object at "a"; nullopt when every object's keys differ.
// `json` must already be valid JSON (QJsonDocument parsed it): this only walks its structure.
std::optional<QStringList> firstDuplicateJsonKey(const QByteArray& json);

} // namespace attnscope
