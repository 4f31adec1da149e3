#include "tokenizer/t5tokenizer.h"

#include "tokenizer/tokenizerjsonreader.h"
#include "tokenizer/tokenizerloader.h"

#include <QDir>
#include <QJsonArray>
#include <QJsonObject>
#include <QRegularExpression>

namespace attnscope {

namespace {

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

// Python's str.isspace, which str.strip() uses: Qt's spaces and the separators U+001C to U+001F.
bool isPythonSpace(QChar c)
{
    return c.isSpace() || (c.unicode() >= 0x1c && c.unicode() <= 0x1f);
}

QString pythonLstrip(const QString& s)
{
    qsizetype i = 0;
    while (i < s.size() && isPythonSpace(s[i]))
        ++i;
    return s.mid(i);
}

QString pythonRstrip(const QString& s)
{
    qsizetype n = s.size();
    while (n > 0 && isPythonSpace(s[n - 1]))
        --n;
    return s.left(n);
}

// More sentinels than any vocabulary: a damaged config.
constexpr int kMaxExtraIds = 1 << 20;

} // namespace

T5Tokenizer T5Tokenizer::fromFolder(const QString& folder)
{
    const QDir dir(folder);
    const QString configPath = dir.filePath(QStringLiteral("tokenizer_config.json"));
    const std::optional<QJsonObject> config = tok::readTokenizerConfig(configPath);
    T5Tokenizer t(SentencePieceModel::fromFile(dir.filePath(QStringLiteral("spiece.model"))));
    if (config) {
        const QJsonValue legacy = config->value(QStringLiteral("legacy"));
        if (!legacy.isUndefined() && !legacy.isNull() && !(legacy.isBool() && legacy.toBool()))
            tok::fail(configPath,
                      QStringLiteral("legacy false (T5Tokenizer's newer handling of the text after "
                                     "a special token) is not supported; only the default, legacy "
                                     "true"));
        const QJsonValue extra = config->value(QStringLiteral("extra_ids"));
        if (!extra.isUndefined()) {
            const double v = extra.toDouble(-1);
            if (!extra.isDouble() || v < 0 || v > kMaxExtraIds || v != double(int(v)))
                tok::fail(configPath,
                          QStringLiteral("extra_ids must be an integer from 0 to %1").arg(kMaxExtraIds));
            t.m_extraIds = int(v);
        }
        const QRegularExpression sentinel(QStringLiteral("^<extra_id_\\d+>$"));
        for (const QJsonValue& token : config->value(QStringLiteral("additional_special_tokens")).toArray()) {
            const QString text = token.isObject()
                                     ? token.toObject().value(QStringLiteral("content")).toString()
                                     : token.toString();
            if (!sentinel.match(text).hasMatch())
                tok::fail(configPath, QStringLiteral("additional_special_tokens holds \"%1\"; only the "
                                                     "<extra_id_N> sentinels are supported")
                                          .arg(text));
        }
    }
    // The named special tokens are pieces of spiece.model (T5Tokenizer reads their ids from it).
    for (const auto& [key, fallback, id] :
         {std::tuple{"eos_token", "</s>", &t.m_eosId}, std::tuple{"unk_token", "<unk>", &t.m_unkId},
          std::tuple{"pad_token", "<pad>", &t.m_padId}}) {
        const QString text = configString(config, key, fallback);
        *id = -1;
        for (int i = 0; i < t.m_model.pieceCount() && *id < 0; ++i)
            if (t.m_model.piece(i) == text) *id = i;
        if (*id < 0)
            tok::fail(t.m_model.path(),
                      QStringLiteral("the special token \"%1\" (%2) is not a piece of the model")
                          .arg(text, QLatin1String(key)));
        t.m_specials.push_back({text, *id, false});
    }
    // <extra_id_i> is id pieces + extra_ids − 1 − i.
    for (int i = 0; i < t.m_extraIds; ++i)
        t.m_specials.push_back(
            {QStringLiteral("<extra_id_%1>").arg(i), t.m_model.pieceCount() + t.m_extraIds - 1 - i, true});
    for (size_t i = 0; i < t.m_specials.size(); ++i)
        t.m_specialIndex.insert(t.m_specials[i].text, int(i));
    return t;
}

std::vector<T5Tokenizer::Part> T5Tokenizer::split(const QString& text) const
{
    // The earliest special token, the longest of those starting there (transformers' Trie.split). next[i]:
    // where m_specials[i] occurs next at or after `from` (-1: nowhere), found again only once passed.
    std::vector<qsizetype> next(m_specials.size(), -2);
    std::vector<Part> parts;
    qsizetype from = 0;
    while (from < text.size()) {
        qsizetype at = -1;
        const SpecialToken* found = nullptr;
        for (size_t i = 0; i < m_specials.size(); ++i) {
            if (next[i] == -2 || (next[i] >= 0 && next[i] < from))
                next[i] = text.indexOf(m_specials[i].text, from);
            if (next[i] < 0) continue;
            if (at < 0 || next[i] < at || (next[i] == at && m_specials[i].text.size() > found->text.size())) {
                at = next[i];
                found = &m_specials[i];
            }
        }
        if (at < 0) {
            parts.push_back({text.mid(from), nullptr});
            break;
        }
        if (at > from) parts.push_back({text.mid(from, at - from), nullptr});
        parts.push_back({found->text, found});
        from = at + found->text.size();
    }
    return parts;
}

Encoding T5Tokenizer::encode(const QString& text) const
{
    // PreTrainedTokenizer.tokenize's pass over the parts, in order, each step seeing the parts as the steps
    // before it left them: a sentinel strips the whitespace of its neighbours, then joins a neighbour that
    // (as it was before the strip) does not end or start with a space.
    std::vector<Part> parts = split(text);
    for (size_t i = 0; i < parts.size(); ++i) {
        if (!parts[i].special || !parts[i].special->sentinel) continue;
        const bool hasLeft = i > 0 && !parts[i - 1].text.isEmpty();
        const bool hasRight = i + 1 < parts.size() && !parts[i + 1].text.isEmpty();
        const QString left = hasLeft ? parts[i - 1].text : QString();
        const QString right = hasRight ? parts[i + 1].text : QString();
        if (hasRight) parts[i + 1].text = pythonLstrip(right);
        if (hasLeft) parts[i - 1].text = pythonRstrip(left);
        // The joined part is text from now on (it is no longer a special token's exact string).
        if (hasLeft && left.back() != QLatin1Char(' ')) {
            parts[i - 1].text += parts[i].text;
            parts[i - 1].special = nullptr;
            parts[i].text.clear();
        } else if (hasRight && right.front() != QLatin1Char(' ')) {
            parts[i + 1].text = parts[i].text + parts[i + 1].text;
            parts[i + 1].special = nullptr;
            parts[i].text.clear();
        }
    }

    Encoding e;
    const auto add = [&](int id, bool special) {
        e.ids.push_back(id);
        e.tokens << idToToken(id);
        e.special.push_back(special);
    };
    for (const Part& part : parts) {
        if (part.text.isEmpty()) continue;
        // Upstream asks whether the part's final string is an added token, so a special token's exact string
        // left as a neighbour's text by an earlier step counts too.
        const auto special = m_specialIndex.constFind(part.text);
        if (special != m_specialIndex.constEnd()) {
            add(m_specials[size_t(special.value())].id, true);
            continue;
        }
        for (const int id : m_model.encodeIds(part.text))
            add(id, id == m_unkId || id == m_eosId || id == m_padId);
    }
    if (e.ids.empty() || e.ids.back() != m_eosId) add(m_eosId, true); // _add_eos_if_not_present
    e.typeIds.assign(e.ids.size(), 0);
    e.sequenceIds.assign(e.ids.size(), 0);
    e.sequenceIds.back() = -1;
    e.offsets.assign(e.ids.size(), {0, 0}); // not computed, as for Marian
    return e;
}

QString T5Tokenizer::decode(const std::vector<int>& ids) const
{
    QStringList pieces;
    for (const int id : ids)
        if (id >= 0 && id < m_model.pieceCount() && id != m_eosId && id != m_unkId && id != m_padId)
            pieces << m_model.piece(id);
    return m_model.decodePieces(pieces).trimmed();
}

QString T5Tokenizer::idToToken(int id) const
{
    if (id >= 0 && id < m_model.pieceCount()) return m_model.piece(id);
    const int sentinel = m_model.pieceCount() + m_extraIds - 1 - id;
    if (id >= m_model.pieceCount() && sentinel >= 0) return QStringLiteral("<extra_id_%1>").arg(sentinel);
    return {};
}

} // namespace attnscope
