#pragma once

#include "export/attentionexportsource.h"

#include <QString>

#include <optional>

namespace attnscope {

// Runs a model named on the command line on a text and returns everything an export needs.
// Names: "worked-example" (the classroom example "kedi mindere oturdu": 1 layer, 1 head, d = 4) and
// "worked-example-causal" (the same with the causal mask); anything else goes to the model runtime:
// a model folder, a built-in model's name or a Hugging Face cache id (ModelCatalog::resolve).
std::optional<AttentionExportSource> loadAttentionSource(const QString& model, const QString& text, const QString& textB,
                                                         QString* error);

} // namespace attnscope
