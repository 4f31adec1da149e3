#include "generation/seq2seqgeneration.h"

#include "model/configreader.h"
#include "model/encoderdecodermodel.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <algorithm>
#include <cmath>
#include <limits>

namespace attnscope {

namespace {

constexpr double kBanned = -std::numeric_limits<double>::infinity();
// A bound for max_length and no_repeat_ngram_size well past any model's positions (the pass refuses a target
// longer than max_position_embeddings itself).
constexpr int kMaxGeneratedLength = 1 << 20;
constexpr int kMaxBeams = 1024;

// An id, or a list of ids (eos_token_id may be either).
std::vector<int> idList(const ConfigReader& r, const char* key, int vocabSize)
{
    const QJsonValue v = r.json().value(QLatin1String(key));
    std::vector<int> ids;
    const auto add = [&](const QJsonValue& id) {
        const double d = id.toDouble(-1);
        if (!id.isDouble() || d < 0 || d >= vocabSize || d != double(int(d)))
            r.fail(QStringLiteral("%1 holds %2, not a token id below vocab_size %3")
                       .arg(QLatin1String(key))
                       .arg(id.isDouble() ? QString::number(d) : QStringLiteral("a non-number"))
                       .arg(vocabSize));
        ids.push_back(int(d));
    };
    if (v.isArray())
        for (const QJsonValue& id : v.toArray())
            add(id);
    else if (!v.isUndefined() && !v.isNull())
        add(v);
    return ids;
}

// transformers' BeamHypotheses: the best finished hypotheses, at most numBeams of them.
class FinishedHypotheses
{
public:
    explicit FinishedHypotheses(const Seq2SeqGenerationSettings& s) : m_settings(s) {}

    // hyp without its end token; the decoder_start token does not count in its length.
    void add(const std::vector<int>& hyp, double sumLogprobs)
    {
        const double score = sumLogprobs / std::pow(double(hyp.size() - 1), m_settings.lengthPenalty);
        if (int(m_beams.size()) >= m_settings.numBeams && score <= m_worst) return;
        m_beams.push_back({score, hyp});
        if (int(m_beams.size()) > m_settings.numBeams) {
            // sorted((score, index)): the lowest score goes (the earliest of equal ones), the next is worst.
            std::vector<size_t> order(m_beams.size());
            for (size_t i = 0; i < order.size(); ++i)
                order[i] = i;
            std::stable_sort(order.begin(), order.end(),
                             [&](size_t a, size_t b) { return m_beams[a].first < m_beams[b].first; });
            m_worst = m_beams[order[1]].first;
            m_beams.erase(m_beams.begin() + std::ptrdiff_t(order[0]));
        } else {
            m_worst = std::min(score, m_worst);
        }
    }

    bool isDone(double bestSumLogprobs, int curLen) const
    {
        using E = Seq2SeqGenerationSettings::EarlyStopping;
        if (int(m_beams.size()) < m_settings.numBeams) return false;
        if (m_settings.earlyStopping == E::Stop) return true;
        const int length = m_settings.earlyStopping == E::Never && m_settings.lengthPenalty > 0.0
                               ? m_settings.maxLength
                               : curLen;
        return m_worst >= bestSumLogprobs / std::pow(double(length), m_settings.lengthPenalty);
    }

    // sorted(beams, key=score).pop(): the highest score, the last added of equal ones.
    std::vector<int> best() const
    {
        size_t best = 0;
        for (size_t i = 1; i < m_beams.size(); ++i)
            if (m_beams[i].first >= m_beams[best].first) best = i;
        return m_beams[best].second;
    }

private:
    const Seq2SeqGenerationSettings& m_settings;
    std::vector<std::pair<double, std::vector<int>>> m_beams;
    double m_worst = 1e9;
};

void logSoftmax(std::vector<double>& logits)
{
    const double top = *std::max_element(logits.begin(), logits.end());
    double sum = 0;
    for (const double v : logits)
        sum += std::exp(v - top);
    const double shift = top + std::log(sum);
    for (double& v : logits)
        v -= shift;
}

} // namespace

std::vector<unsigned char> sourceVisibility(const std::vector<int>& sourceIds,
                                            const Seq2SeqGenerationSettings& s)
{
    if (!s.padId || std::find(s.eosIds.begin(), s.eosIds.end(), *s.padId) != s.eosIds.end() ||
        std::find(sourceIds.begin(), sourceIds.end(), *s.padId) == sourceIds.end())
        return {};
    std::vector<unsigned char> visible(sourceIds.size());
    for (size_t i = 0; i < sourceIds.size(); ++i)
        visible[i] = sourceIds[i] != *s.padId ? 1 : 0;
    return visible;
}

std::vector<int> decoderInputFromLabels(const EncoderDecoderModel& model, const std::vector<int>& labels,
                                        int decoderStartId)
{
    if (labels.empty()) return {decoderStartId};
    const bool mbart = model.config().modelType == QLatin1String("mbart");
    std::vector<int> input{mbart ? labels.back() : decoderStartId};
    input.insert(input.end(), labels.begin(), labels.end() - 1);
    return input;
}

Seq2SeqGenerationSettings Seq2SeqGenerationSettings::fromFolder(const QString& folder,
                                                                const EncoderDecoderModel& model)
{
    const QDir dir(folder);
    QString file = QDir::toNativeSeparators(dir.filePath(QStringLiteral("generation_config.json")));
    if (!QFileInfo::exists(file))
        file = QDir::toNativeSeparators(dir.filePath(QStringLiteral("config.json")));
    const ConfigReader r = ConfigReader::fromFile(file);
    const int vocab = model.config().vocabSize;
    Seq2SeqGenerationSettings s;
    s.maxLength = r.integer("max_length", 20, 1, kMaxGeneratedLength);
    const std::vector<int> start = idList(r, "decoder_start_token_id", vocab);
    s.decoderStartId = start.empty() ? model.config().decoderStartId : start.front();
    s.eosIds = idList(r, "eos_token_id", vocab);
    if (const std::vector<int> pad = idList(r, "pad_token_id", vocab); !pad.empty())
        s.padId = pad.front();
    else if (model.config().padId >= 0)
        s.padId = model.config().padId;
    if (s.eosIds.empty() && model.config().eosId >= 0) s.eosIds = {model.config().eosId};
    if (const std::vector<int> bos = idList(r, "forced_bos_token_id", vocab); !bos.empty())
        s.forcedBosId = bos.front();
    if (const std::vector<int> eos = idList(r, "forced_eos_token_id", vocab); !eos.empty())
        s.forcedEosId = eos.front();
    s.noRepeatNgramSize = r.integer("no_repeat_ngram_size", 0, 0, kMaxGeneratedLength);
    s.numBeams = r.integer("num_beams", 1, 1, kMaxBeams);
    s.lengthPenalty = r.number("length_penalty", 1.0);
    const QJsonValue early = r.json().value(QLatin1String("early_stopping"));
    if (early.isBool())
        s.earlyStopping = early.toBool() ? EarlyStopping::Stop : EarlyStopping::Heuristic;
    else if (early.toString() == QLatin1String("never"))
        s.earlyStopping = EarlyStopping::Never;
    else if (!early.isUndefined() && !early.isNull())
        r.fail(QStringLiteral("early_stopping must be true, false or \"never\""));
    const QJsonValue bad = r.json().value(QLatin1String("bad_words_ids"));
    if (!bad.isUndefined() && !bad.isNull()) {
        if (!bad.isArray()) r.fail(QStringLiteral("bad_words_ids must be a list of lists of token ids"));
        for (const QJsonValue& sequence : bad.toArray()) {
            if (!sequence.isArray() || sequence.toArray().isEmpty())
                r.fail(QStringLiteral("bad_words_ids must be a list of non-empty lists of token ids"));
            std::vector<int> ids;
            for (const QJsonValue& id : sequence.toArray()) {
                const double d = id.toDouble(-1);
                if (!id.isDouble() || d < 0 || d >= vocab || d != double(int(d)))
                    r.fail(QStringLiteral("bad_words_ids holds an entry that is not a token id below "
                                          "vocab_size %1")
                               .arg(vocab));
                ids.push_back(int(d));
            }
            // NoBadWordsLogitsProcessor drops the sequences that are only an end-of-sequence id.
            if (ids.size() == 1 && std::find(s.eosIds.begin(), s.eosIds.end(), ids[0]) != s.eosIds.end())
                continue;
            s.badWordsIds.push_back(std::move(ids));
        }
    }
    return s;
}

void applyGenerationRules(std::vector<double>& logits, const std::vector<int>& generated,
                          const Seq2SeqGenerationSettings& settings)
{
    const int curLen = int(generated.size());
    const int n = settings.noRepeatNgramSize;
    // NoRepeatNGramLogitsProcessor: every n-gram seen so far whose first n − 1 tokens are the last n − 1.
    if (n > 0 && curLen + 1 >= n) {
        const auto tail = generated.end() - (n - 1);
        for (int start = 0; start + n <= curLen; ++start)
            if (std::equal(tail, generated.end(), generated.begin() + start))
                logits[size_t(generated[size_t(start + n - 1)])] = kBanned;
    }
    // NoBadWordsLogitsProcessor: the last token of each sequence whose other tokens end the output.
    for (const std::vector<int>& bad : settings.badWordsIds) {
        const int prefix = int(bad.size()) - 1;
        if (prefix > curLen) continue;
        if (std::equal(bad.begin(), bad.end() - 1, generated.end() - prefix))
            logits[size_t(bad.back())] = kBanned;
    }
    const auto force = [&](int id) {
        std::fill(logits.begin(), logits.end(), kBanned);
        logits[size_t(id)] = 0.0;
    };
    if (settings.forcedBosId && curLen == 1) force(*settings.forcedBosId);
    if (settings.forcedEosId && curLen == settings.maxLength - 1) force(*settings.forcedEosId);
}

std::vector<int> greedyGenerate(const EncoderDecoderModel& model, const std::vector<int>& sourceIds,
                                const Seq2SeqGenerationSettings& settings, int threads)
{
    const std::vector<unsigned char> visible = sourceVisibility(sourceIds, settings);
    std::vector<int> out{settings.decoderStartId};
    while (int(out.size()) < settings.maxLength) {
        std::vector<double> logits = model.lastTokenLogits(sourceIds, out, threads, visible);
        applyGenerationRules(logits, out, settings);
        // torch.argmax: the first of equal maxima.
        const int next = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(next);
        if (std::find(settings.eosIds.begin(), settings.eosIds.end(), next) != settings.eosIds.end()) break;
    }
    return out;
}

std::vector<int> beamSearchGenerate(const EncoderDecoderModel& model, const std::vector<int>& sourceIds,
                                    const Seq2SeqGenerationSettings& settings, int threads)
{
    const int beams = settings.numBeams, vocab = model.config().vocabSize;
    const auto isEos = [&](int id) {
        return std::find(settings.eosIds.begin(), settings.eosIds.end(), id) != settings.eosIds.end();
    };
    // Every beam starts as [decoder_start]; all but the first at -1e9, so the first step draws from one.
    const std::vector<unsigned char> visible = sourceVisibility(sourceIds, settings);
    std::vector<std::vector<int>> sequences(size_t(beams), {settings.decoderStartId});
    std::vector<double> beamScores(size_t(beams), -1e9);
    beamScores[0] = 0.0;
    FinishedHypotheses finished(settings);
    bool done = false;
    const size_t candidates = size_t(std::max(2, 1 + int(settings.eosIds.size())) * beams);
    while (true) {
        // scores[b · vocab + v]: beam b's score plus log P(v), after the rules.
        std::vector<double> scores(size_t(beams) * size_t(vocab));
        for (int b = 0; b < beams; ++b) {
            std::vector<double> logits =
                model.lastTokenLogits(sourceIds, sequences[size_t(b)], threads, visible);
            logSoftmax(logits);
            applyGenerationRules(logits, sequences[size_t(b)], settings);
            for (int v = 0; v < vocab; ++v)
                scores[size_t(b) * size_t(vocab) + size_t(v)] = logits[size_t(v)] + beamScores[size_t(b)];
        }
        // torch.topk(sorted): the best `candidates`, equal scores in index order.
        std::vector<size_t> top(scores.size());
        for (size_t i = 0; i < top.size(); ++i)
            top[i] = i;
        const size_t k = std::min(candidates, top.size());
        std::partial_sort(top.begin(), top.begin() + std::ptrdiff_t(k), top.end(), [&](size_t a, size_t b) {
            return scores[a] > scores[b] || (scores[a] == scores[b] && a < b);
        });

        // BeamSearchScorer.process: an end token among the best num_beams finishes its beam; the others
        // continue until num_beams beams are filled.
        const int curLen = int(sequences[0].size()); // - prompt length 1 + 1
        std::vector<std::vector<int>> next;
        std::vector<double> nextScores;
        for (size_t rank = 0; rank < k && int(next.size()) < beams; ++rank) {
            const int b = int(top[rank] / size_t(vocab)), token = int(top[rank] % size_t(vocab));
            const double score = scores[top[rank]];
            if (isEos(token)) {
                if (int(rank) >= beams || sequences[size_t(b)].size() == 1) continue;
                finished.add(sequences[size_t(b)], score);
            } else {
                std::vector<int> extended = sequences[size_t(b)];
                extended.push_back(token);
                next.push_back(std::move(extended));
                nextScores.push_back(score);
            }
        }
        if (int(next.size()) < beams)
            throw ModelError(
                QStringLiteral("beam search: fewer than %1 continuations that are not an end token")
                    .arg(beams));
        done = done || finished.isDone(scores[top[0]], curLen);
        sequences = std::move(next);
        beamScores = std::move(nextScores);
        if (done || int(sequences[0].size()) >= settings.maxLength) break;
    }
    // BeamSearchScorer.finalize: the open beams compete too unless the search was done.
    if (!done)
        for (int b = 0; b < beams; ++b)
            finished.add(sequences[size_t(b)], beamScores[size_t(b)]);
    std::vector<int> out = finished.best();
    if (int(out.size()) < settings.maxLength && !settings.eosIds.empty())
        out.push_back(settings.eosIds.front());
    return out;
}

} // namespace attnscope
