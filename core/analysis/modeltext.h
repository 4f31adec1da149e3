#pragma once

// The text side of running a model, shared by the explorer (TransformerEngine), the export loader and the
// command line: which tokenizer reads a model's text, and what each token of an encoding is (the text it
// covers, whether it is special, where [CLS]/[SEP] sit).

#include "stats/headstats.h"
#include "tokenizer/tokenizer.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <vector>

namespace attnscope {

class TransformerModel;

// The model's own tokenizer (tokenizer.json in its folder, a GGUF file's metadata), else one read from the
// folder's vocabulary files into *own. Throws ModelError with the model's tokenizerError() when there is none
// (a GGUF file without a readable tokenizer, a folder without tokenizer.json, vocab.txt or vocab.json +
// merges.txt).
const Tokenizer& modelTokenizer(const TransformerModel& model, std::unique_ptr<Tokenizer>* own);

// One input as the model runs it, with what each token stands for.
struct ModelText
{
    std::vector<int> ids;
    std::vector<int> typeIds;
    QStringList tokens;  // vocabulary strings ("[CLS]", "##ing", "Ġthe")
    QStringList covered; // the exact substring of text A or B a token covers; its vocabulary string when it
                         // covers none ([CLS], [SEP], BOS, or ids given without text)
    // Special flags, [CLS]/BOS, [SEP]/EOS and punctuation positions (tokenRolesFromEncoding; ids given
    // without text have no punctuation); roles.causal is set by the run.
    TokenRoles roles;

    int size() const { return int(ids.size()); }
};

// The roles and covered text of an encoding of textA (and textB).
ModelText modelText(const Encoding& encoding, const Tokenizer& tokenizer, const QString& textA,
                    const std::optional<QString>& textB);

// Whether an input may have more tokens than the model has positions: only a reader that moves its window
// along the text (the streaming experiment) takes such an input.
enum class PositionLimit { Model, None };

// Throws ModelError "<model>: N tokens are more than the P positions this model takes; shorten
// the text" when `tokens`
// is more than the model's positions: the one limit a text meets first (no --max-output-size can lift it).
void checkTokenCount(const TransformerModel& model, qsizetype tokens);

// Tokenizes text (special tokens added) for the model. Throws ModelError for an empty or spaces-only
// textA, a missing tokenizer, a text the tokenizer refuses, one that gives no tokens, or (PositionLimit::Model) more tokens than the model has
// positions, refused right after tokenizing: in time linear in the text, before anything else is done.
ModelText encodeForModel(const TransformerModel& model, const QString& textA,
                         const std::optional<QString>& textB = std::nullopt,
                         PositionLimit limit = PositionLimit::Model);

// Ids used as given (no special tokens added); tokens are the vocabulary's strings; an id equal to the
// tokenizer's [CLS]/BOS or [SEP]/EOS id (when the model has a tokenizer) counts as that role.
ModelText idsForModel(const TransformerModel& model, const std::vector<int>& ids);

} // namespace attnscope
