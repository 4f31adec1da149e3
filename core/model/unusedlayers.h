#pragma once

// A config that names fewer layers than its checkpoint holds runs the first layers only, as transformers
// does (which warns "Some weights of the model checkpoint were not used"). AttnScope runs it too, since a
// truncated model is a fair experiment, but says which layers it leaves out: a mistyped num_hidden_layers
// must not pass for the whole model.

#include <QSet>
#include <QString>
#include <QStringList>

namespace attnscope {

class ModelWeights;
struct ModelConfig;

// The layers, numbered `layers` or more, of tensors in `names` that are not `declared`: "layer 2 (12
// tensors)", "layers 1 to 3 (36 tensors)", "layers 2, 5 (2 tensors)"; "" when there are none. A tensor's
// layer is the first part of its name that is a number ("model.layers.3.mlp.up_proj.weight",
// "blk.3.attn_q.weight").
QString unusedLayerTensors(const QStringList& names, const QSet<QString>& declared, int layers);

// One line for a warning when `weights` hold layers `config` does not run, naming the file that sets the
// layer count: "<folder>/config.json: 1 layer, but the weights also hold layer 1 (16 tensors), which are not
// used"; "" when it runs them all.
QString unusedLayersNote(const ModelWeights& weights, const ModelConfig& config, const QString& folder);

} // namespace attnscope
