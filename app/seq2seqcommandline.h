#pragma once

// What the encoder-decoder commands share (translate, attention --part): the model of --model and the source
// of --text / --ids. Their models are EncoderDecoderModel (core/model/encoderdecodermodel.h), not the
// TransformerModel that modelcommand.h's skeleton opens.

#include "model/encoderdecodermodel.h"
#include "tokenizer/seq2seqtokenizer.h"

#include <QByteArray>
#include <QCommandLineParser>
#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace attnscope {

// An encoder-decoder model folder, its model and its tokenizer (null where the folder has none).
struct Seq2SeqModelArgument
{
    QString folder;
    std::unique_ptr<EncoderDecoderModel> model;
    std::unique_ptr<Seq2SeqTokenizer> tokenizer;
};

// Opens `folder`'s model (its unused-layers note as a warning on stderr) and, where it has one, its
// tokenizer. `needTokenizer`: "" when ids will do, else what to give instead (the text form was used), for
// the refusal of a folder without one: CommandError (2) "COMMAND: <folder>: no tokenizer (...); give the
// source as
// --ids". Throws ModelError and TokenizerError for damaged files.
Seq2SeqModelArgument openSeq2SeqModel(const QString& folder, const QString& needTokenizer,
                                      const QString& command);

// The source: --ids as given (no special tokens added), or --text through the tokenizer (special tokens
// added). Tokens are the tokenizer's, or the ids as text where there is none.
struct Seq2SeqSource
{
    std::vector<int> ids;
    QStringList tokens;
};
Seq2SeqSource seq2seqSource(const QCommandLineParser& parser, const Seq2SeqModelArgument& model);

// The target side's tokens of ids (the ids as text without a tokenizer).
QStringList targetTokens(const Seq2SeqModelArgument& model, const std::vector<int>& ids);

// JSON text pieces: a string (escaped, quoted), a list of strings, a list of ints.
QByteArray jsonText(const QString& text);
QByteArray jsonTextList(const QStringList& texts);
QByteArray jsonIdList(const std::vector<int>& ids);

} // namespace attnscope
