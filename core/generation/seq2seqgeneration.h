#pragma once

// Generating a translation (or summary) with an encoder-decoder model as transformers' generate() does with
// do_sample false: greedy_search (num_beams 1) and beam_search (BeamSearchScorer: log-softmax scores, the
// 2 · num_beams best continuations, finished hypotheses scored sum / length^length_penalty, early_stopping),
// with the logits processors that the models' generation
// settings switch on: no_repeat_ngram_size, bad_words_ids, forced_bos_token_id, forced_eos_token_id (applied
// in that order, as generate() builds its list), and the stop at eos_token_id or max_length.
//
// Each step runs the whole target again (no cache yet): exact, and slow for long outputs. Each output token's
// cross-attention row over the source is the row of its query in one EncoderDecoderModel::run() over the
// output (the decoder is causal, so a row depends only on the tokens before it).

#include <QString>
#include <optional>
#include <vector>

namespace attnscope {

class EncoderDecoderModel;

// generation_config.json's fields (or config.json's, where the folder has no generation_config.json, as
// transformers falls back to), with transformers' GenerationConfig defaults for those absent.
struct Seq2SeqGenerationSettings
{
    int maxLength = 20; // of the output, decoder_start included
    int decoderStartId = 0;
    std::vector<int> eosIds; // generation stops once one is chosen
    // Source tokens with this id are masked out of the attention (generate()'s attention mask for its input),
    // unless it is also an end token.
    std::optional<int> padId;
    std::optional<int> forcedBosId, forcedEosId;
    std::vector<std::vector<int>> badWordsIds; // sequences never to complete (those equal to [eos] dropped)
    int noRepeatNgramSize = 0;
    int numBeams = 1;
    double lengthPenalty = 1.0;
    enum class EarlyStopping { Heuristic, Stop, Never }; // early_stopping false, true, "never"
    EarlyStopping earlyStopping = EarlyStopping::Heuristic;

    // Throws ModelError "<file>: <problem>" for a field of the wrong type or an id outside the vocabulary.
    static Seq2SeqGenerationSettings fromFolder(const QString& folder, const EncoderDecoderModel& model);
};

// generate()'s attention mask for its input (_prepare_attention_mask_for_generation): the pad tokens masked
// out (0) where the input holds one and pad is not an end token; else every token visible (empty).
std::vector<unsigned char> sourceVisibility(const std::vector<int>& sourceIds,
                                            const Seq2SeqGenerationSettings& settings);

// The decoder's input for target labels (a tokenized target text, </s> last), as the model's forward makes it
// from `labels`: shift_tokens_right, [decoderStartId] + labels without their last; mBART's own version starts
// instead with the last label (its language code or </s>). Empty labels give [decoderStartId].
std::vector<int> decoderInputFromLabels(const EncoderDecoderModel& model, const std::vector<int>& labels,
                                        int decoderStartId);

// The output ids, decoder_start first, as generate() returns them for one sequence.
std::vector<int> greedyGenerate(const EncoderDecoderModel& model, const std::vector<int>& sourceIds,
                                const Seq2SeqGenerationSettings& settings, int threads = 0);

// The same with beam search over settings.numBeams beams (the settings' num_beams; 1 is allowed and is not
// the same as greedy: the scores are log-probabilities and finished hypotheses compete by length).
std::vector<int> beamSearchGenerate(const EncoderDecoderModel& model, const std::vector<int>& sourceIds,
                                    const Seq2SeqGenerationSettings& settings, int threads = 0);

// The logits processors above on `logits` (the next token's scores after `generated`), in place: banned
// tokens get -inf; a forced token gets 0 and every other -inf.
void applyGenerationRules(std::vector<double>& logits, const std::vector<int>& generated,
                          const Seq2SeqGenerationSettings& settings);

} // namespace attnscope
