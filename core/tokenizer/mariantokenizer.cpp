#include "tokenizer/mariantokenizer.h"

#include "tokenizer/tokenizerjsonreader.h"
#include "tokenizer/tokenizerloader.h"

#include <QDir>
#include <QJsonObject>
#include <QRegularExpression>

namespace attnscope {

namespace {

// transformers' MarianTokenizer.language_code_re (greedy, as Python's ">>.+<<").
const QRegularExpression& languageCode()
{
    static const QRegularExpression re(QStringLiteral(">>.+<<"));
    return re;
}

QString configString(const std::optional<QJsonObject>& config, const char* key, const char* fallback)
{
    if (config) {
        const QJsonValue v = config->value(QLatin1String(key));
        if (v.isString()) return v.toString();
        if (v.isObject() && v.toObject().value(QStringLiteral("content")).isString())
            return v.toObject().value(QStringLiteral("content")).toString();
    }
    return QString::fromLatin1(fallback);
}

// A vocabulary larger than any real one is a damaged file, not a model (opus-mt's hold ~60k pieces).
constexpr int kMaxVocabulary = 4 * 1024 * 1024;

} // namespace

MarianTokenizer MarianTokenizer::fromFolder(const QString& folder)
{
    const QDir dir(folder);
    const QString configPath = dir.filePath(QStringLiteral("tokenizer_config.json"));
    const std::optional<QJsonObject> config = tok::readTokenizerConfig(configPath);
    if (config && config->value(QStringLiteral("separate_vocabs")).toBool())
        tok::fail(configPath,
                  QStringLiteral("separate_vocabs (a target_vocab_file of its own) is not supported"));

    MarianTokenizer t(SentencePieceModel::fromFile(dir.filePath(QStringLiteral("source.spm"))),
                      SentencePieceModel::fromFile(dir.filePath(QStringLiteral("target.spm"))));
    const QString vocabPath = dir.filePath(QStringLiteral("vocab.json"));
    const QJsonDocument doc = tok::readJson(vocabPath);
    if (!doc.isObject()) tok::fail(vocabPath, QStringLiteral("expected a JSON object of piece -> id"));
    const QJsonObject vocab = doc.object();
    if (vocab.size() > kMaxVocabulary)
        tok::fail(vocabPath, QStringLiteral("%1 entries, more than any vocabulary").arg(vocab.size()));
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        const double v = it.value().toDouble(-1.0);
        if (!it.value().isDouble() || v < 0 || v >= kMaxVocabulary || v != double(int(v)))
            tok::fail(vocabPath, QStringLiteral("the id of \"%1\" is not an integer in [0, %2)")
                                     .arg(it.key())
                                     .arg(kMaxVocabulary));
        const int id = int(v);
        t.m_ids.insert(it.key(), id);
        if (size_t(id) >= t.m_tokens.size()) t.m_tokens.resize(size_t(id) + 1);
        t.m_tokens[size_t(id)] =
            it.key(); // two pieces with one id: the later one decodes, as in transformers
    }
    t.m_eos = configString(config, "eos_token", "</s>");
    t.m_unk = configString(config, "unk_token", "<unk>");
    t.m_pad = configString(config, "pad_token", "<pad>");
    for (const auto& [token, id] : {std::pair{&t.m_eos, &t.m_eosId}, std::pair{&t.m_unk, &t.m_unkId},
                                    std::pair{&t.m_pad, &t.m_padId}}) {
        const auto found = t.m_ids.constFind(*token);
        if (found == t.m_ids.constEnd())
            tok::fail(vocabPath, QStringLiteral("the special token \"%1\" is missing").arg(*token));
        *id = found.value();
    }
    return t;
}

QStringList MarianTokenizer::chunkPieces(const QString& chunk, Side side) const
{
    // MarianTokenizer.remove_language_code: a code at the very start is kept, every code span is removed.
    QStringList pieces;
    const QRegularExpressionMatch code = languageCode().match(chunk, 0, QRegularExpression::NormalMatch,
                                                              QRegularExpression::AnchorAtOffsetMatchOption);
    if (code.hasMatch()) pieces << code.captured(0);
    QString rest = chunk;
    rest.remove(languageCode());
    return pieces + (side == Side::Source ? m_source : m_target).encodePieces(rest);
}

Encoding MarianTokenizer::encode(const QString& text, Side side) const
{
    // PreTrainedTokenizer.tokenize: the special tokens typed in the text are cut out first (the earliest
    // occurrence, the longest of those starting there) and kept whole; each stretch between them is a text of
    // its own (its own language code, its own SentencePiece pass, whose whitespace handling drops the spaces
    // around the special token). Empty stretches give nothing.
    QStringList pieces;
    qsizetype from = 0;
    while (from <= text.size()) {
        qsizetype at = -1;
        const QString* found = nullptr;
        for (const QString* special : {&m_eos, &m_unk, &m_pad}) {
            const qsizetype i = special->isEmpty() ? -1 : text.indexOf(*special, from);
            if (i >= 0 && (at < 0 || i < at || (i == at && special->size() > found->size()))) {
                at = i;
                found = special;
            }
        }
        const QString chunk = text.mid(from, (at < 0 ? text.size() : at) - from);
        if (!chunk.isEmpty()) pieces += chunkPieces(chunk, side);
        if (at < 0) break;
        pieces << *found;
        from = at + found->size();
    }

    Encoding e;
    for (const QString& piece : pieces) {
        const int id = m_ids.value(piece, m_unkId);
        e.ids.push_back(id);
        e.tokens << idToToken(id);
        e.special.push_back(id == m_unkId || id == m_eosId || id == m_padId);
    }
    e.ids.push_back(m_eosId);
    e.tokens << m_eos;
    e.special.push_back(true);
    e.typeIds.assign(e.ids.size(), 0);
    e.sequenceIds.assign(e.ids.size(), 0);
    e.sequenceIds.back() = -1;
    e.offsets.assign(e.ids.size(), {0, 0}); // not computed: the .spm's own offsets are not read yet
    return e;
}

QString MarianTokenizer::decode(const std::vector<int>& ids, bool skipSpecialTokens, Side side) const
{
    // MarianTokenizer.convert_tokens_to_string: runs of ordinary pieces go through the .spm, special tokens
    // are written as they are followed by a space.
    const SentencePieceModel& model = side == Side::Target ? m_target : m_source;
    QString out;
    QStringList run;
    for (const int id : ids) {
        const QString token = idToToken(id);
        const bool special = token == m_eos || token == m_unk || token == m_pad;
        if (!special) {
            run << token;
            continue;
        }
        if (skipSpecialTokens) continue;
        out += model.decodePieces(run) + token + QLatin1Char(' ');
        run.clear();
    }
    out += model.decodePieces(run);
    return out.replace(QChar(0x2581), QLatin1Char(' ')).trimmed();
}

QString MarianTokenizer::idToToken(int id) const
{
    if (id < 0 || size_t(id) >= m_tokens.size() || m_tokens[size_t(id)].isEmpty()) return m_unk;
    return m_tokens[size_t(id)];
}

} // namespace attnscope
