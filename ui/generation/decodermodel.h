#pragma once

#include <QString>
#include <memory>

namespace attnscope {

class AttentionEngine;
class TransformerEngine;

// The model the Generate and Streaming tabs run: `engine` when it is a decoder model. Else null, and
// *unavailable says why in the tab's words: `noModel` for the worked example and the demos (no model at
// all), `encoder` (with the model's name for %1) for an encoder. *unavailable is empty for a decoder.
std::shared_ptr<const TransformerEngine> decoderModel(const std::shared_ptr<const AttentionEngine>& engine,
                                                      const QString& noModel, const QString& encoder,
                                                      QString* unavailable);

} // namespace attnscope
