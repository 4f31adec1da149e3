#include "generation/seq2seqgeneration.h"

#include "io/inputfile.h"
#include "io/strictjson.h"
#include "model/configreader.h"
#include "model/encoderdecodermodel.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <algorithm>
#include <limits>

namespace attnscope {

namespace {

constexpr double kBanned = -std::numeric_limits<double>::infinity();
// A bound for max_length and no_repeat_ngram_size well past any model's positions (the pass refuses a target
// longer than max_position_embeddings itself).
constexpr int kMaxGeneratedLength = 1 << 20;

QJsonObject readObject(const QString& file)
{
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(file, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(file, problem);
    const std::optional<QJsonDocument> doc = parseStrictJson(*bytes, &problem);
    if (!doc) throw ModelError(file, problem);
    if (!doc->isObject()) throw ModelError(file, QStringLiteral("not a JSON object"));
    return doc->object();
}

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

} // namespace

Seq2SeqGenerationSettings Seq2SeqGenerationSettings::fromFolder(const QString& folder,
                                                                const EncoderDecoderModel& model)
{
    const QDir dir(folder);
    QString file = QDir::toNativeSeparators(dir.filePath(QStringLiteral("generation_config.json")));
    if (!QFileInfo::exists(file))
        file = QDir::toNativeSeparators(dir.filePath(QStringLiteral("config.json")));
    const ConfigReader r(readObject(file), file);
    const int vocab = model.config().vocabSize;
    Seq2SeqGenerationSettings s;
    s.maxLength = r.integer("max_length", 20, 1, kMaxGeneratedLength);
    const std::vector<int> start = idList(r, "decoder_start_token_id", vocab);
    s.decoderStartId = start.empty() ? model.config().decoderStartId : start.front();
    s.eosIds = idList(r, "eos_token_id", vocab);
    if (s.eosIds.empty() && model.config().eosId >= 0) s.eosIds = {model.config().eosId};
    if (const std::vector<int> bos = idList(r, "forced_bos_token_id", vocab); !bos.empty())
        s.forcedBosId = bos.front();
    if (const std::vector<int> eos = idList(r, "forced_eos_token_id", vocab); !eos.empty())
        s.forcedEosId = eos.front();
    s.noRepeatNgramSize = r.integer("no_repeat_ngram_size", 0, 0, kMaxGeneratedLength);
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
    std::vector<int> out{settings.decoderStartId};
    while (int(out.size()) < settings.maxLength) {
        std::vector<double> logits = model.lastTokenLogits(sourceIds, out, threads);
        applyGenerationRules(logits, out, settings);
        // torch.argmax: the first of equal maxima.
        const int next = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
        out.push_back(next);
        if (std::find(settings.eosIds.begin(), settings.eosIds.end(), next) != settings.eosIds.end()) break;
    }
    return out;
}

} // namespace attnscope
