#include "tokenizer/tokenizerloader.h"

#include "io/inputfile.h"
#include "io/jsonduplicatekeys.h"
#include "io/strictjson.h"
#include "tokenizer/bpemodel.h"
#include "tokenizer/decoders.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/postprocessors.h"
#include "tokenizer/precompilednormalizer.h"
#include "tokenizer/pretokenizers.h"
#include "tokenizer/splitpatterns.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unicodechars.h"
#include "tokenizer/unigrammodel.h"
#include "tokenizer/wordpiecemodel.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace attnscope::tok {

namespace {

[[noreturn]] void fail(const QString& path, const QString& problem)
{
    throw TokenizerError((path + QStringLiteral(": ") + problem).toStdString());
}

QByteArray readFile(const QString& path, qint64 maxBytes)
{
    QString problem;
    std::optional<QByteArray> bytes = readInputFile(path, maxBytes, &problem);
    if (!bytes) fail(path, problem);
    return std::move(*bytes);
}

QJsonDocument parseJson(const QByteArray& data, const QString& path)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(data, &error);
    if (error.error != QJsonParseError::NoError)
        fail(path, QStringLiteral("invalid JSON at offset %1 (%2): %3")
                       .arg(error.offset)
                       .arg(jsonErrorPlace(data, error), error.errorString()));
    // QJsonDocument keeps the last of two equal keys silently: a second "[UNK]" or "unk_token" is refused.
    if (const std::optional<QStringList> duplicate = firstDuplicateJsonKey(data))
        fail(path,
             QStringLiteral("the key \"%1\" is given twice").arg(duplicate->join(QStringLiteral("\".\""))));
    return doc;
}

QJsonDocument readJson(const QString& path)
{
    return parseJson(readFile(path, kMaxJsonFileBytes), path);
}

std::u32string u32(const QString& s)
{
    return toCodePoints(s);
}

// Reading typed fields with messages that say where the problem is.
class JsonReader
{
public:
    explicit JsonReader(QString path) : m_path(std::move(path)) {}
    const QString& path() const { return m_path; }

    [[noreturn]] void error(const QString& where, const QString& problem) const
    {
        fail(m_path, where + QStringLiteral(": ") + problem);
    }
    QJsonObject object(const QJsonValue& v, const QString& where) const
    {
        if (!v.isObject())
            error(where, QStringLiteral("expected an object"));
        return v.toObject();
    }
    QJsonArray array(const QJsonValue& v, const QString& where) const
    {
        if (!v.isArray())
            error(where, QStringLiteral("expected an array"));
        return v.toArray();
    }
    bool boolean(const QJsonObject& o, const QString& key, bool fallback, const QString& where) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (!v.isBool())
            error(where + QLatin1Char('.') + key, QStringLiteral("expected true or false"));
        return v.toBool();
    }
    QString string(const QJsonObject& o, const QString& key, const QString& fallback, const QString& where) const
    {
        const QJsonValue v = o.value(key);
        if (v.isUndefined() || v.isNull())
            return fallback;
        if (!v.isString())
            error(where + QLatin1Char('.') + key, QStringLiteral("expected a string"));
        return v.toString();
    }
    int integer(const QJsonValue& v, const QString& where) const
    {
        // Range first: converting 1e20 to an integer type is undefined behaviour.
        const double d = v.toDouble(-1);
        if (!v.isDouble() || !(d >= 0 && d <= 2147483647.0) || std::floor(d) != d)
            error(where, QStringLiteral("expected a non-negative integer"));
        return int(d);
    }
    char32_t character(const QJsonObject& o, const QString& key, char32_t fallback, const QString& where) const
    {
        const QString s = string(o, key, QString(), where);
        if (s.isEmpty())
            return fallback;
        const std::u32string cps = u32(s);
        if (cps.size() != 1)
            error(where + QLatin1Char('.') + key, QStringLiteral("expected a single character"));
        return cps[0];
    }

private:
    QString m_path;
};

SplitBehavior parseBehavior(const JsonReader& r, const QString& name, const QString& where)
{
    if (name == QLatin1String("Removed"))
        return SplitBehavior::Removed;
    if (name == QLatin1String("Isolated"))
        return SplitBehavior::Isolated;
    if (name == QLatin1String("MergedWithPrevious"))
        return SplitBehavior::MergedWithPrevious;
    if (name == QLatin1String("MergedWithNext"))
        return SplitBehavior::MergedWithNext;
    if (name == QLatin1String("Contiguous"))
        return SplitBehavior::Contiguous;
    r.error(where, QStringLiteral("unknown split behavior '%1'").arg(name));
}

PrependScheme parsePrependScheme(const JsonReader& r, const QJsonObject& o, const QString& where)
{
    PrependScheme scheme = PrependScheme::Always;
    const QString name = r.string(o, QStringLiteral("prepend_scheme"), QStringLiteral("always"), where);
    if (name == QLatin1String("first"))
        scheme = PrependScheme::First;
    else if (name == QLatin1String("never"))
        scheme = PrependScheme::Never;
    else if (name != QLatin1String("always"))
        r.error(where, QStringLiteral("unknown prepend_scheme '%1'").arg(name));
    const QJsonValue legacy = o.value(QStringLiteral("add_prefix_space"));
    if (legacy.isBool() && !legacy.toBool())
        scheme = PrependScheme::Never;
    return scheme;
}

// {"String": "x"} -> "x"; {"Regex": "..."} -> the regex (in *regex).
std::u32string parseStringPattern(const JsonReader& r, const QJsonValue& v, const QString& where, QString* regex)
{
    const QJsonObject o = r.object(v, where);
    if (o.contains(QStringLiteral("String")))
        return u32(o.value(QStringLiteral("String")).toString());
    if (o.contains(QStringLiteral("Regex")) && regex) {
        *regex = o.value(QStringLiteral("Regex")).toString();
        return {};
    }
    if (o.contains(QStringLiteral("Regex")))
        r.error(where, QStringLiteral("regular expression patterns are not supported here ('%1')")
                           .arg(o.value(QStringLiteral("Regex")).toString()));
    r.error(where, QStringLiteral("expected {\"String\": ...} or {\"Regex\": ...}"));
}

std::unique_ptr<Normalizer> parseNormalizer(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined())
        return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("BertNormalizer")) {
        const QJsonValue strip = o.value(QStringLiteral("strip_accents"));
        std::optional<bool> stripAccents;
        if (strip.isBool())
            stripAccents = strip.toBool();
        return std::make_unique<BertNormalizer>(r.boolean(o, QStringLiteral("clean_text"), true, where),
                                                r.boolean(o, QStringLiteral("handle_chinese_chars"), true, where),
                                                stripAccents, r.boolean(o, QStringLiteral("lowercase"), true, where));
    }
    if (type == QLatin1String("Lowercase"))
        return std::make_unique<LowercaseNormalizer>();
    if (type == QLatin1String("Strip"))
        return std::make_unique<StripNormalizer>(r.boolean(o, QStringLiteral("strip_left"), true, where),
                                                 r.boolean(o, QStringLiteral("strip_right"), true, where));
    if (type == QLatin1String("StripAccents"))
        return std::make_unique<StripAccentsNormalizer>();
    if (type == QLatin1String("NFC"))
        return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFC);
    if (type == QLatin1String("NFD"))
        return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFD);
    if (type == QLatin1String("NFKC"))
        return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFKC);
    if (type == QLatin1String("NFKD"))
        return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFKD);
    if (type == QLatin1String("Replace")) {
        QString regex;
        const std::u32string literal = parseStringPattern(r, o.value(QStringLiteral("pattern")),
                                                          where + QStringLiteral(".pattern"), &regex);
        const std::u32string content = u32(r.string(o, QStringLiteral("content"), QString(), where));
        if (regex.isNull()) return std::make_unique<ReplaceNormalizer>(literal, content);
        // SentencePiece converters write Replace(Regex(" {2,}"), " "): runs of one character.
        static const QRegularExpression runs(QStringLiteral("^(.)\\{([1-9][0-9]?),\\}$"));
        const QRegularExpressionMatch m = runs.match(regex);
        if (!m.hasMatch() || m.captured(1) == QLatin1String("\\") || m.captured(1) == QLatin1String("."))
            r.error(where,
                    QStringLiteral("unsupported Replace regex '%1' (supported: a run of one character, "
                                   "\"c{n,}\")")
                        .arg(regex));
        return std::make_unique<ReplaceRunsNormalizer>(u32(m.captured(1)).at(0), m.captured(2).toInt(),
                                                       content);
    }
    if (type == QLatin1String("Precompiled")) {
        const QJsonValue charsmap = o.value(QStringLiteral("precompiled_charsmap"));
        if (charsmap.isNull() || charsmap.isUndefined() || charsmap.toString().isEmpty())
            return nullptr; // no rules: the identity
        if (!charsmap.isString())
            r.error(where + QStringLiteral(".precompiled_charsmap"),
                    QStringLiteral("expected a base64 string"));
        const QByteArray::FromBase64Result bytes = QByteArray::fromBase64Encoding(
            charsmap.toString().toLatin1(), QByteArray::AbortOnBase64DecodingErrors);
        if (!bytes)
            r.error(where + QStringLiteral(".precompiled_charsmap"), QStringLiteral("is not valid base64"));
        try {
            return std::make_unique<PrecompiledNormalizer>(*bytes);
        } catch (const TokenizerError& e) {
            r.error(where, QString::fromStdString(e.what()));
        }
    }
    if (type == QLatin1String("Prepend"))
        return std::make_unique<PrependNormalizer>(u32(r.string(o, QStringLiteral("prepend"), QString(), where)));
    if (type == QLatin1String("Sequence")) {
        std::vector<std::unique_ptr<Normalizer>> parts;
        const QJsonArray list = r.array(o.value(QStringLiteral("normalizers")), where + QStringLiteral(".normalizers"));
        for (int i = 0; i < list.size(); ++i)
            if (auto n = parseNormalizer(r, list.at(i), where + QStringLiteral(".normalizers[%1]").arg(i)))
                parts.push_back(std::move(n));
        return std::make_unique<SequenceNormalizer>(std::move(parts));
    }
    r.error(where,
            QStringLiteral("unsupported normalizer type '%1' (supported: BertNormalizer, Lowercase, Strip, "
                           "StripAccents, NFC, NFD, NFKC, NFKD, Replace, Prepend, Precompiled, Sequence)")
                .arg(type));
}

std::unique_ptr<PreTokenizer> parsePreTokenizer(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined())
        return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("BertPreTokenizer"))
        return std::make_unique<BertPreTokenizer>();
    if (type == QLatin1String("ByteLevel"))
        return std::make_unique<ByteLevelPreTokenizer>(r.boolean(o, QStringLiteral("add_prefix_space"), true, where),
                                                       r.boolean(o, QStringLiteral("use_regex"), true, where));
    if (type == QLatin1String("Metaspace"))
        return std::make_unique<MetaspacePreTokenizer>(r.character(o, QStringLiteral("replacement"), 0x2581, where),
                                                       parsePrependScheme(r, o, where),
                                                       r.boolean(o, QStringLiteral("split"), true, where));
    if (type == QLatin1String("Split")) {
        QString regex;
        const std::u32string literal =
            parseStringPattern(r, o.value(QStringLiteral("pattern")), where + QStringLiteral(".pattern"), &regex);
        std::optional<SplitRegex> known;
        if (!regex.isNull()) {
            known = recogniseSplitRegex(regex);
            if (!known)
                r.error(where, QStringLiteral("unsupported Split regex '%1' (supported: the GPT-2, Llama-3 and Qwen2 "
                                              "patterns)")
                                   .arg(regex));
        }
        return std::make_unique<SplitPreTokenizer>(
            known, literal,
            parseBehavior(r, r.string(o, QStringLiteral("behavior"), QStringLiteral("Isolated"), where), where),
            r.boolean(o, QStringLiteral("invert"), false, where));
    }
    if (type == QLatin1String("Whitespace"))
        return std::make_unique<WhitespacePreTokenizer>();
    if (type == QLatin1String("WhitespaceSplit"))
        return std::make_unique<WhitespaceSplitPreTokenizer>();
    if (type == QLatin1String("Punctuation"))
        return std::make_unique<PunctuationPreTokenizer>(
            parseBehavior(r, r.string(o, QStringLiteral("behavior"), QStringLiteral("Isolated"), where), where));
    if (type == QLatin1String("Digits"))
        return std::make_unique<DigitsPreTokenizer>(r.boolean(o, QStringLiteral("individual_digits"), false, where));
    if (type == QLatin1String("Sequence")) {
        std::vector<std::unique_ptr<PreTokenizer>> parts;
        const QJsonArray list =
            r.array(o.value(QStringLiteral("pretokenizers")), where + QStringLiteral(".pretokenizers"));
        for (int i = 0; i < list.size(); ++i)
            if (auto p = parsePreTokenizer(r, list.at(i), where + QStringLiteral(".pretokenizers[%1]").arg(i)))
                parts.push_back(std::move(p));
        return std::make_unique<SequencePreTokenizer>(std::move(parts));
    }
    r.error(where, QStringLiteral("unsupported pre-tokenizer type '%1' (supported: BertPreTokenizer, ByteLevel, "
                                  "Metaspace, Split, Whitespace, WhitespaceSplit, Punctuation, Digits, Sequence)")
                       .arg(type));
}

Vocabulary parseVocab(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    const QJsonObject o = r.object(v, where);
    Vocabulary vocab;
    // Ids index a table: one far beyond the vocabulary's size is a damaged file, not a 2-billion-entry vocabulary.
    const int limit = std::max(1 << 20, int(o.size()) * 16);
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString at = where + QStringLiteral("[\"%1\"]").arg(it.key());
        const int id = r.integer(it.value(), at);
        if (id >= limit)
            r.error(at, QStringLiteral("id %1 is far beyond the vocabulary's %2 entries").arg(id).arg(o.size()));
        vocab.insert(u32(it.key()), id);
    }
    return vocab;
}

std::unique_ptr<Model> parseModel(const JsonReader& r, const QJsonValue& v)
{
    const QString where = QStringLiteral("model");
    const QJsonObject o = r.object(v, where);
    QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type.isEmpty()) { // old files have no type: infer it as HF does from the fields
        if (o.contains(QStringLiteral("merges")))
            type = QStringLiteral("BPE");
        else if (o.value(QStringLiteral("vocab")).isArray())
            type = QStringLiteral("Unigram");
        else if (o.contains(QStringLiteral("continuing_subword_prefix")) ||
                 o.contains(QStringLiteral("max_input_chars_per_word")))
            type = QStringLiteral("WordPiece");
        else
            type = QStringLiteral("WordLevel");
    }
    if (type == QLatin1String("WordPiece")) {
        const QJsonValue maxChars = o.value(QStringLiteral("max_input_chars_per_word"));
        return std::make_unique<WordPieceModel>(
            parseVocab(r, o.value(QStringLiteral("vocab")), where + QStringLiteral(".vocab")),
            u32(r.string(o, QStringLiteral("unk_token"), QStringLiteral("[UNK]"), where)),
            u32(r.string(o, QStringLiteral("continuing_subword_prefix"), QStringLiteral("##"), where)),
            maxChars.isUndefined() || maxChars.isNull() ? 100 : r.integer(maxChars, where + QStringLiteral(".max_input_chars_per_word")));
    }
    if (type == QLatin1String("BPE")) {
        Vocabulary vocab = parseVocab(r, o.value(QStringLiteral("vocab")), where + QStringLiteral(".vocab"));
        std::vector<std::pair<std::u32string, std::u32string>> merges;
        const QJsonArray list = r.array(o.value(QStringLiteral("merges")), where + QStringLiteral(".merges"));
        merges.reserve(size_t(list.size()));
        for (int i = 0; i < list.size(); ++i) {
            const QJsonValue m = list.at(i);
            if (m.isString()) {
                const QStringList parts = m.toString().split(QLatin1Char(' '));
                if (parts.size() != 2)
                    r.error(where + QStringLiteral(".merges[%1]").arg(i),
                            QStringLiteral("expected \"left right\", got \"%1\"").arg(m.toString()));
                merges.emplace_back(u32(parts[0]), u32(parts[1]));
            } else if (m.isArray() && m.toArray().size() == 2 && m.toArray().at(0).isString() &&
                       m.toArray().at(1).isString()) {
                merges.emplace_back(u32(m.toArray().at(0).toString()), u32(m.toArray().at(1).toString()));
            } else {
                r.error(where + QStringLiteral(".merges[%1]").arg(i), QStringLiteral("expected \"a b\" or [\"a\", \"b\"]"));
            }
        }
        BpeOptions options;
        auto optionalString = [&](const char* key) -> std::optional<std::u32string> {
            const QJsonValue value = o.value(QLatin1String(key));
            if (value.isString())
                return u32(value.toString());
            return std::nullopt;
        };
        options.unkToken = optionalString("unk_token");
        options.continuingSubwordPrefix = optionalString("continuing_subword_prefix");
        options.endOfWordSuffix = optionalString("end_of_word_suffix");
        if (options.continuingSubwordPrefix && options.continuingSubwordPrefix->empty())
            options.continuingSubwordPrefix.reset();
        if (options.endOfWordSuffix && options.endOfWordSuffix->empty())
            options.endOfWordSuffix.reset();
        options.fuseUnk = r.boolean(o, QStringLiteral("fuse_unk"), false, where);
        options.byteFallback = r.boolean(o, QStringLiteral("byte_fallback"), false, where);
        options.ignoreMerges = r.boolean(o, QStringLiteral("ignore_merges"), false, where);
        try {
            return std::make_unique<BpeModel>(std::move(vocab), merges, options);
        } catch (const TokenizerError& e) {
            fail(r.path(), QStringLiteral("model: ") + QString::fromStdString(e.what()));
        }
    }
    if (type == QLatin1String("Unigram")) {
        const QJsonArray list = r.array(o.value(QStringLiteral("vocab")), where + QStringLiteral(".vocab"));
        std::vector<std::pair<std::u32string, double>> pieces;
        pieces.reserve(size_t(list.size()));
        for (int i = 0; i < list.size(); ++i) {
            const QJsonArray entry = list.at(i).toArray();
            if (entry.size() != 2 || !entry.at(0).isString() || !entry.at(1).isDouble())
                r.error(where + QStringLiteral(".vocab[%1]").arg(i),
                        QStringLiteral("expected [piece, score]"));
            pieces.emplace_back(u32(entry.at(0).toString()), entry.at(1).toDouble());
        }
        const QJsonValue unk = o.value(QStringLiteral("unk_id"));
        std::optional<int> unkId;
        if (!unk.isNull() && !unk.isUndefined()) unkId = r.integer(unk, where + QStringLiteral(".unk_id"));
        try {
            return std::make_unique<UnigramModel>(
                std::move(pieces), unkId, r.boolean(o, QStringLiteral("byte_fallback"), false, where));
        } catch (const TokenizerError& e) {
            fail(r.path(), QStringLiteral("model: ") + QString::fromStdString(e.what()));
        }
    }
    r.error(where,
            QStringLiteral("unsupported tokenizer model type '%1' (supported: WordPiece, BPE, Unigram)")
                .arg(type));
}

IdToken parseIdToken(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    const QJsonArray a = r.array(v, where);
    if (a.size() != 2 || !a.at(0).isString())
        r.error(where, QStringLiteral("expected [token, id]"));
    return IdToken{u32(a.at(0).toString()), r.integer(a.at(1), where)};
}

std::vector<TemplatePiece> parseTemplate(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    std::vector<TemplatePiece> pieces;
    QJsonArray list;
    if (v.isString()) { // "[CLS] $A [SEP]" form
        for (const QString& part : v.toString().split(QLatin1Char(' '), Qt::SkipEmptyParts))
            list.append(part);
    } else {
        list = r.array(v, where);
    }
    for (int i = 0; i < list.size(); ++i) {
        const QString at = where + QStringLiteral("[%1]").arg(i);
        TemplatePiece piece;
        const QJsonValue item = list.at(i);
        if (item.isString()) {
            QString s = item.toString();
            const int colon = int(s.indexOf(QLatin1Char(':')));
            if (colon >= 0) {
                bool ok = false;
                piece.typeId = s.mid(colon + 1).toInt(&ok);
                if (!ok)
                    r.error(at, QStringLiteral("bad type id in '%1'").arg(s));
                s = s.left(colon);
            }
            if (s.startsWith(QLatin1Char('$'))) {
                piece.isSequence = true;
                const QString rest = s.mid(1);
                piece.sequence = (rest == QLatin1String("B") || rest == QLatin1String("b")) ? 1 : 0;
                bool numeric = false;
                const int typeId = rest.toInt(&numeric);
                if (numeric)
                    piece.typeId = typeId;
            } else {
                piece.specialId = u32(s);
            }
        } else {
            const QJsonObject o = r.object(item, at);
            if (o.contains(QStringLiteral("Sequence"))) {
                const QJsonObject seq = r.object(o.value(QStringLiteral("Sequence")), at);
                piece.isSequence = true;
                piece.sequence = seq.value(QStringLiteral("id")).toString() == QLatin1String("B") ? 1 : 0;
                piece.typeId = r.integer(seq.value(QStringLiteral("type_id")), at + QStringLiteral(".type_id"));
            } else if (o.contains(QStringLiteral("SpecialToken"))) {
                const QJsonObject sp = r.object(o.value(QStringLiteral("SpecialToken")), at);
                piece.specialId = u32(sp.value(QStringLiteral("id")).toString());
                piece.typeId = r.integer(sp.value(QStringLiteral("type_id")), at + QStringLiteral(".type_id"));
            } else {
                r.error(at, QStringLiteral("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}"));
            }
        }
        pieces.push_back(piece);
    }
    return pieces;
}

std::unique_ptr<PostProcessor> parsePostProcessor(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined())
        return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("TemplateProcessing")) {
        std::map<std::u32string, TemplateSpecialToken> special;
        const QJsonObject map = r.object(o.value(QStringLiteral("special_tokens")), where + QStringLiteral(".special_tokens"));
        for (auto it = map.begin(); it != map.end(); ++it) {
            const QString at = where + QStringLiteral(".special_tokens[\"%1\"]").arg(it.key());
            const QJsonObject t = r.object(it.value(), at);
            TemplateSpecialToken token;
            const QJsonArray ids = r.array(t.value(QStringLiteral("ids")), at + QStringLiteral(".ids"));
            const QJsonArray tokens = r.array(t.value(QStringLiteral("tokens")), at + QStringLiteral(".tokens"));
            if (ids.size() != tokens.size())
                r.error(at, QStringLiteral("ids and tokens differ in length"));
            for (int i = 0; i < ids.size(); ++i) {
                token.ids.push_back(r.integer(ids.at(i), at + QStringLiteral(".ids")));
                token.tokens.push_back(u32(tokens.at(i).toString()));
            }
            special[u32(t.value(QStringLiteral("id")).toString(it.key()))] = token;
        }
        std::vector<TemplatePiece> single = parseTemplate(r, o.value(QStringLiteral("single")), where + QStringLiteral(".single"));
        std::vector<TemplatePiece> pair = parseTemplate(r, o.value(QStringLiteral("pair")), where + QStringLiteral(".pair"));
        for (const auto* list : {&single, &pair})
            for (const TemplatePiece& p : *list)
                if (!p.isSequence && !special.count(p.specialId))
                    r.error(where, QStringLiteral("template uses special token '%1' that special_tokens does not define")
                                       .arg(fromCodePoints(p.specialId)));
        return std::make_unique<TemplateProcessor>(std::move(single), std::move(pair), std::move(special));
    }
    if (type == QLatin1String("BertProcessing"))
        return std::make_unique<BertProcessor>(parseIdToken(r, o.value(QStringLiteral("sep")), where + QStringLiteral(".sep")),
                                               parseIdToken(r, o.value(QStringLiteral("cls")), where + QStringLiteral(".cls")));
    if (type == QLatin1String("RobertaProcessing"))
        return std::make_unique<RobertaProcessor>(
            parseIdToken(r, o.value(QStringLiteral("sep")), where + QStringLiteral(".sep")),
            parseIdToken(r, o.value(QStringLiteral("cls")), where + QStringLiteral(".cls")),
            r.boolean(o, QStringLiteral("trim_offsets"), true, where),
            r.boolean(o, QStringLiteral("add_prefix_space"), true, where));
    if (type == QLatin1String("ByteLevel"))
        return std::make_unique<ByteLevelProcessor>(r.boolean(o, QStringLiteral("trim_offsets"), true, where),
                                                    r.boolean(o, QStringLiteral("add_prefix_space"), true, where));
    if (type == QLatin1String("Sequence")) {
        std::vector<std::unique_ptr<PostProcessor>> parts;
        const QJsonArray list = r.array(o.value(QStringLiteral("processors")), where + QStringLiteral(".processors"));
        for (int i = 0; i < list.size(); ++i)
            if (auto p = parsePostProcessor(r, list.at(i), where + QStringLiteral(".processors[%1]").arg(i)))
                parts.push_back(std::move(p));
        return std::make_unique<SequenceProcessor>(std::move(parts));
    }
    r.error(where, QStringLiteral("unsupported post-processor type '%1' (supported: TemplateProcessing, "
                                  "BertProcessing, RobertaProcessing, ByteLevel, Sequence)")
                       .arg(type));
}

std::unique_ptr<Decoder> parseDecoder(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined())
        return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("WordPiece"))
        return std::make_unique<WordPieceDecoder>(u32(r.string(o, QStringLiteral("prefix"), QStringLiteral("##"), where)),
                                                  r.boolean(o, QStringLiteral("cleanup"), true, where));
    if (type == QLatin1String("ByteLevel"))
        return std::make_unique<ByteLevelDecoder>();
    if (type == QLatin1String("Metaspace"))
        return std::make_unique<MetaspaceDecoder>(r.character(o, QStringLiteral("replacement"), 0x2581, where),
                                                  parsePrependScheme(r, o, where));
    if (type == QLatin1String("BPEDecoder"))
        return std::make_unique<BpeDecoder>(u32(r.string(o, QStringLiteral("suffix"), QStringLiteral("</w>"), where)));
    if (type == QLatin1String("Replace"))
        return std::make_unique<ReplaceDecoder>(
            parseStringPattern(r, o.value(QStringLiteral("pattern")), where + QStringLiteral(".pattern"), nullptr),
            u32(r.string(o, QStringLiteral("content"), QString(), where)));
    if (type == QLatin1String("ByteFallback"))
        return std::make_unique<ByteFallbackDecoder>();
    if (type == QLatin1String("Fuse"))
        return std::make_unique<FuseDecoder>();
    if (type == QLatin1String("Strip")) {
        const QJsonValue start = o.value(QStringLiteral("start"));
        const QJsonValue stop = o.value(QStringLiteral("stop"));
        return std::make_unique<StripDecoder>(r.character(o, QStringLiteral("content"), U' ', where),
                                              start.isUndefined() ? 0 : r.integer(start, where + QStringLiteral(".start")),
                                              stop.isUndefined() ? 0 : r.integer(stop, where + QStringLiteral(".stop")));
    }
    if (type == QLatin1String("Sequence")) {
        std::vector<std::unique_ptr<Decoder>> parts;
        const QJsonArray list = r.array(o.value(QStringLiteral("decoders")), where + QStringLiteral(".decoders"));
        for (int i = 0; i < list.size(); ++i)
            if (auto d = parseDecoder(r, list.at(i), where + QStringLiteral(".decoders[%1]").arg(i)))
                parts.push_back(std::move(d));
        return std::make_unique<SequenceDecoder>(std::move(parts));
    }
    r.error(where, QStringLiteral("unsupported decoder type '%1' (supported: WordPiece, ByteLevel, Metaspace, "
                                  "BPEDecoder, Replace, ByteFallback, Fuse, Strip, Sequence)")
                       .arg(type));
}

std::optional<std::u32string> configToken(const QJsonObject& config, const char* key)
{
    const QJsonValue v = config.value(QLatin1String(key));
    if (v.isString())
        return u32(v.toString());
    if (v.isObject() && v.toObject().value(QStringLiteral("content")).isString())
        return u32(v.toObject().value(QStringLiteral("content")).toString());
    return std::nullopt;
}

} // namespace

std::unique_ptr<TokenizerPipeline> loadTokenizerJson(const QString& path)
{
    return loadTokenizerJsonText(readFile(path, kMaxJsonFileBytes), path);
}

std::unique_ptr<TokenizerPipeline> loadTokenizerJsonText(const QByteArray& json, const QString& path)
{
    const QJsonDocument doc = parseJson(json, path);
    JsonReader r(path);
    if (!doc.isObject())
        fail(path, QStringLiteral("expected a JSON object at the top level"));
    const QJsonObject root = doc.object();
    if (!root.contains(QStringLiteral("model")))
        fail(path, QStringLiteral("no \"model\" section: this is not a Hugging Face tokenizer.json"));
    const QString version = root.value(QStringLiteral("version")).toString(QStringLiteral("1.0"));
    if (version != QLatin1String("1.0"))
        fail(path, QStringLiteral("unknown tokenizer.json version '%1'").arg(version));

    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = path;
    pipeline->model = parseModel(r, root.value(QStringLiteral("model")));
    pipeline->normalizer = parseNormalizer(r, root.value(QStringLiteral("normalizer")), QStringLiteral("normalizer"));
    pipeline->preTokenizer =
        parsePreTokenizer(r, root.value(QStringLiteral("pre_tokenizer")), QStringLiteral("pre_tokenizer"));
    pipeline->postProcessor =
        parsePostProcessor(r, root.value(QStringLiteral("post_processor")), QStringLiteral("post_processor"));
    pipeline->decoder = parseDecoder(r, root.value(QStringLiteral("decoder")), QStringLiteral("decoder"));

    std::vector<AddedToken> added;
    const QJsonValue addedValue = root.value(QStringLiteral("added_tokens"));
    if (!addedValue.isNull() && !addedValue.isUndefined()) {
        const QJsonArray list = r.array(addedValue, QStringLiteral("added_tokens"));
        // Ids index tables, like the vocabulary's (parseVocab): one far beyond the vocabulary is a damaged
        // file.
        const qint64 idLimit =
            std::max<qint64>(qint64(1) << 20, (qint64(pipeline->model->vocabSize()) + list.size()) * 16);
        qint64 nextId = pipeline->model->vocabSize();
        for (int i = 0; i < list.size(); ++i) {
            const QString where = QStringLiteral("added_tokens[%1]").arg(i);
            const QJsonObject o = r.object(list.at(i), where);
            AddedToken t;
            t.content = u32(r.string(o, QStringLiteral("content"), QString(), where));
            t.special = r.boolean(o, QStringLiteral("special"), false, where);
            t.singleWord = r.boolean(o, QStringLiteral("single_word"), false, where);
            t.lstrip = r.boolean(o, QStringLiteral("lstrip"), false, where);
            t.rstrip = r.boolean(o, QStringLiteral("rstrip"), false, where);
            t.normalized = r.boolean(o, QStringLiteral("normalized"), !t.special, where);
            // HF gives an added token the model's id for the same string, else the id in the file.
            qint64 id = nextId;
            if (const std::optional<int> modelId = pipeline->model->tokenToId(t.content))
                id = *modelId;
            else if (o.contains(QStringLiteral("id")))
                id = r.integer(o.value(QStringLiteral("id")), where + QStringLiteral(".id"));
            if (id >= idLimit)
                r.error(where + QStringLiteral(".id"),
                        QStringLiteral("id %1 is far beyond the vocabulary's %2 entries")
                            .arg(id)
                            .arg(pipeline->model->vocabSize()));
            t.id = int(id);
            nextId = std::max(nextId, id + 1);
            added.push_back(t);
        }
    }
    pipeline->added.setTokens(std::move(added), pipeline->normalizer.get());
    return pipeline;
}

std::unique_ptr<TokenizerPipeline> loadWordPieceVocab(const QString& vocabPath, bool lowercase)
{
    const QByteArray data = readFile(vocabPath, kMaxVocabularyFileBytes);
    Vocabulary vocab;
    const QList<QByteArray> lines = data.split('\n');
    int id = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (i == lines.size() - 1 && line.isEmpty())
            break; // the newline at the end of the file
        if (line.endsWith('\r'))
            line.chop(1);
        vocab.insert(u32(QString::fromUtf8(line)), id++);
    }
    if (vocab.size() == 0)
        fail(vocabPath, QStringLiteral("the vocabulary is empty"));
    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = vocabPath;
    const std::u32string unk = U"[UNK]";
    auto model = std::make_unique<WordPieceModel>(std::move(vocab), unk, U"##", 100);
    pipeline->normalizer = std::make_unique<BertNormalizer>(true, true, std::nullopt, lowercase);
    pipeline->preTokenizer = std::make_unique<BertPreTokenizer>();
    pipeline->decoder = std::make_unique<WordPieceDecoder>(U"##", true);
    const std::optional<int> cls = model->tokenToId(U"[CLS]");
    const std::optional<int> sep = model->tokenToId(U"[SEP]");
    if (cls && sep)
        pipeline->postProcessor = std::make_unique<BertProcessor>(IdToken{U"[SEP]", *sep}, IdToken{U"[CLS]", *cls});
    std::vector<AddedToken> added;
    for (const char32_t* name : {U"[PAD]", U"[UNK]", U"[CLS]", U"[SEP]", U"[MASK]"}) {
        if (const std::optional<int> tokenId = model->tokenToId(name)) {
            AddedToken t;
            t.id = *tokenId;
            t.content = name;
            t.special = true;
            t.normalized = false;
            added.push_back(t);
        }
    }
    pipeline->model = std::move(model);
    pipeline->added.setTokens(std::move(added), pipeline->normalizer.get());
    return pipeline;
}

std::unique_ptr<TokenizerPipeline> loadByteLevelBpe(const QString& vocabPath, const QString& mergesPath,
                                                    bool addPrefixSpace)
{
    const QJsonDocument doc = readJson(vocabPath);
    JsonReader r(vocabPath);
    if (!doc.isObject())
        fail(vocabPath, QStringLiteral("expected a JSON object mapping tokens to ids"));
    Vocabulary vocab = parseVocab(r, doc.object(), QStringLiteral("vocabulary"));

    const QByteArray data = readFile(mergesPath, kMaxVocabularyFileBytes);
    std::vector<std::pair<std::u32string, std::u32string>> merges;
    const QList<QByteArray> lines = data.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.startsWith("#version") || line.isEmpty())
            continue;
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() != 2)
            fail(mergesPath, QStringLiteral("line %1: expected two tokens separated by a space").arg(i + 1));
        merges.emplace_back(u32(QString::fromUtf8(parts[0])), u32(QString::fromUtf8(parts[1])));
    }
    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = vocabPath;
    try {
        pipeline->model = std::make_unique<BpeModel>(std::move(vocab), merges, BpeOptions{});
    } catch (const TokenizerError& e) {
        fail(mergesPath, QString::fromStdString(e.what()));
    }
    pipeline->preTokenizer = std::make_unique<ByteLevelPreTokenizer>(addPrefixSpace, true);
    pipeline->postProcessor = std::make_unique<ByteLevelProcessor>(false, true);
    pipeline->decoder = std::make_unique<ByteLevelDecoder>();
    std::vector<AddedToken> added;
    if (const std::optional<int> eot = pipeline->model->tokenToId(U"<|endoftext|>")) {
        AddedToken t;
        t.id = *eot;
        t.content = U"<|endoftext|>";
        t.special = true;
        t.normalized = true;
        added.push_back(t);
    }
    pipeline->added.setTokens(std::move(added), nullptr);
    return pipeline;
}

std::optional<QJsonObject> readTokenizerConfig(const QString& configPath)
{
    if (!QFileInfo(configPath).exists() && !QFileInfo(configPath).isSymLink()) return std::nullopt;
    const QJsonDocument doc = readJson(configPath);
    if (!doc.isObject()) fail(configPath, QStringLiteral("expected a JSON object at the top level"));
    return doc.object();
}

void applyTokenizerConfig(TokenizerPipeline& pipeline, const std::optional<QJsonObject>& tokenizerConfig,
                          bool addMissing)
{
    if (!tokenizerConfig) return;
    const QJsonObject& config = *tokenizerConfig;
    pipeline.bosToken = configToken(config, "bos_token");
    pipeline.eosToken = configToken(config, "eos_token");
    pipeline.unkToken = configToken(config, "unk_token");
    pipeline.sepToken = configToken(config, "sep_token");
    pipeline.padToken = configToken(config, "pad_token");
    pipeline.clsToken = configToken(config, "cls_token");
    pipeline.maskToken = configToken(config, "mask_token");
    if (!addMissing)
        return;
    std::vector<AddedToken> added = pipeline.added.tokens();
    for (const auto* name : {&pipeline.bosToken, &pipeline.eosToken, &pipeline.unkToken, &pipeline.sepToken,
                             &pipeline.padToken, &pipeline.clsToken, &pipeline.maskToken}) {
        if (!*name || pipeline.added.byContent(**name))
            continue;
        const std::optional<int> id = pipeline.model->tokenToId(**name);
        if (!id)
            continue;
        AddedToken t;
        t.id = *id;
        t.content = **name;
        t.special = true;
        t.normalized = false;
        added.push_back(t);
    }
    pipeline.added.setTokens(std::move(added), pipeline.normalizer.get());
}

} // namespace attnscope::tok
