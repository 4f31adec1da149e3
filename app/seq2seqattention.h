#pragma once

// attention --part: one of an encoder-decoder model's three attention sets (core/model/encoderdecodermodel.h)
// in the layout the single-stack `attention` dumps: npy float32 [layers, heads, queries, keys], JSON
// "attentions" [layer][head][query][key].
//   encoder  source x source        decoder  target x target (causal)        cross  target x source

#include <QCommandLineParser>
#include <QString>
#include <optional>

namespace attnscope {

struct Seq2SeqAttentionRequest
{
    QString part; // "encoder", "decoder" or "cross"
    std::optional<int> layer, head;
    bool npy = false;
    qint64 maxBytes = 0;
    QString outPath; // "" for standard output
    bool force = false;
};

// "" when --part, --target and --target-ids go together (a known part; one of --target / --target-ids for
// decoder and cross, a list of ids), else the problem. --part absent: a target is refused too.
QString seq2seqAttentionProblem(const QCommandLineParser& parser);

// Opens `folder` (an encoder-decoder model), runs the source of --text / --ids and the target: --target-ids
// (the decoder's input as given, decoder_start first) or --target (through the tokenizer, then
// decoderInputFromLabels, seq2seqgeneration.h) and writes the part. Throws CommandError (2 for a --layer /
// --head past the model's), ModelError, TokenizerError.
void runSeq2SeqAttention(const QCommandLineParser& parser, const QString& folder,
                         const Seq2SeqAttentionRequest& request);

} // namespace attnscope
