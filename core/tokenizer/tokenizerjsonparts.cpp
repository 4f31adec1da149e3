#include "tokenizer/tokenizerjsonparts.h"

#include "tokenizer/bpemodel.h"
#include "tokenizer/precompilednormalizer.h"
#include "tokenizer/splitpatterns.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/unigrammodel.h"
#include "tokenizer/wordpiecemodel.h"

#include <QJsonArray>
#include <QRegularExpression>
#include <algorithm>
#include <cmath>

namespace attnscope::tok {

namespace {

// "unsupported <part> type '<type>' (supported: <supported>)"
[[noreturn]] void refuseType(const JsonReader& r, const QString& where, const char* part, const QString& type,
                             const char* supported)
{
    r.error(where, QStringLiteral("unsupported %1 type '%2' (supported: %3)")
                       .arg(QLatin1String(part), type, QLatin1String(supported)));
}

// A "Sequence" part's list under `key`, each entry parsed by `parse` ("where.key[i]" in messages); entries
// that parse to nothing are dropped.
template <typename Part>
std::vector<std::unique_ptr<Part>>
parseSequence(const JsonReader& r, const QJsonObject& o, const char* key, const QString& where,
              std::unique_ptr<Part> (*parse)(const JsonReader&, const QJsonValue&, const QString&))
{
    std::vector<std::unique_ptr<Part>> parts;
    const QString at = where + QLatin1Char('.') + QLatin1String(key);
    const QJsonArray list = r.array(o.value(QLatin1String(key)), at);
    for (int i = 0; i < list.size(); ++i)
        if (auto part = parse(r, list.at(i), at + QStringLiteral("[%1]").arg(i)))
            parts.push_back(std::move(part));
    return parts;
}

SplitBehavior parseBehavior(const JsonReader& r, const QString& name, const QString& where)
{
    if (name == QLatin1String("Removed")) return SplitBehavior::Removed;
    if (name == QLatin1String("Isolated")) return SplitBehavior::Isolated;
    if (name == QLatin1String("MergedWithPrevious")) return SplitBehavior::MergedWithPrevious;
    if (name == QLatin1String("MergedWithNext")) return SplitBehavior::MergedWithNext;
    if (name == QLatin1String("Contiguous")) return SplitBehavior::Contiguous;
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
    if (legacy.isBool() && !legacy.toBool()) scheme = PrependScheme::Never;
    return scheme;
}

// {"String": "x"} -> "x"; {"Regex": "..."} -> the regex (in *regex).
std::u32string parseStringPattern(const JsonReader& r, const QJsonValue& v, const QString& where,
                                  QString* regex)
{
    const QJsonObject o = r.object(v, where);
    if (o.contains(QStringLiteral("String"))) return u32(o.value(QStringLiteral("String")).toString());
    if (o.contains(QStringLiteral("Regex")) && regex) {
        *regex = o.value(QStringLiteral("Regex")).toString();
        return {};
    }
    if (o.contains(QStringLiteral("Regex")))
        r.error(where, QStringLiteral("regular expression patterns are not supported here ('%1')")
                           .arg(o.value(QStringLiteral("Regex")).toString()));
    r.error(where, QStringLiteral("expected {\"String\": ...} or {\"Regex\": ...}"));
}

} // namespace

std::unique_ptr<Normalizer> parseNormalizer(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined()) return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("BertNormalizer")) {
        const QJsonValue strip = o.value(QStringLiteral("strip_accents"));
        std::optional<bool> stripAccents;
        if (strip.isBool()) stripAccents = strip.toBool();
        return std::make_unique<BertNormalizer>(
            r.boolean(o, QStringLiteral("clean_text"), true, where),
            r.boolean(o, QStringLiteral("handle_chinese_chars"), true, where), stripAccents,
            r.boolean(o, QStringLiteral("lowercase"), true, where));
    }
    if (type == QLatin1String("Lowercase")) return std::make_unique<LowercaseNormalizer>();
    if (type == QLatin1String("Strip"))
        return std::make_unique<StripNormalizer>(r.boolean(o, QStringLiteral("strip_left"), true, where),
                                                 r.boolean(o, QStringLiteral("strip_right"), true, where));
    if (type == QLatin1String("StripAccents")) return std::make_unique<StripAccentsNormalizer>();
    if (type == QLatin1String("NFC")) return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFC);
    if (type == QLatin1String("NFD")) return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFD);
    if (type == QLatin1String("NFKC")) return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFKC);
    if (type == QLatin1String("NFKD")) return std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFKD);
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
        return std::make_unique<PrependNormalizer>(
            u32(r.string(o, QStringLiteral("prepend"), QString(), where)));
    if (type == QLatin1String("Sequence"))
        return std::make_unique<SequenceNormalizer>(
            parseSequence(r, o, "normalizers", where, &parseNormalizer));
    refuseType(r, where, "normalizer", type,
               "BertNormalizer, Lowercase, Strip, StripAccents, NFC, NFD, NFKC, NFKD, Replace, Prepend, "
               "Precompiled, Sequence");
}

std::unique_ptr<PreTokenizer> parsePreTokenizer(const JsonReader& r, const QJsonValue& v,
                                                const QString& where)
{
    if (v.isNull() || v.isUndefined()) return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("BertPreTokenizer")) return std::make_unique<BertPreTokenizer>();
    if (type == QLatin1String("ByteLevel"))
        return std::make_unique<ByteLevelPreTokenizer>(
            r.boolean(o, QStringLiteral("add_prefix_space"), true, where),
            r.boolean(o, QStringLiteral("use_regex"), true, where));
    if (type == QLatin1String("Metaspace"))
        return std::make_unique<MetaspacePreTokenizer>(
            r.character(o, QStringLiteral("replacement"), 0x2581, where), parsePrependScheme(r, o, where),
            r.boolean(o, QStringLiteral("split"), true, where));
    if (type == QLatin1String("Split")) {
        QString regex;
        const std::u32string literal = parseStringPattern(r, o.value(QStringLiteral("pattern")),
                                                          where + QStringLiteral(".pattern"), &regex);
        std::optional<SplitRegex> known;
        if (!regex.isNull()) {
            known = recogniseSplitRegex(regex);
            if (!known)
                r.error(where, QStringLiteral(
                                   "unsupported Split regex '%1' (supported: the GPT-2, Llama-3 and Qwen2 "
                                   "patterns)")
                                   .arg(regex));
        }
        return std::make_unique<SplitPreTokenizer>(
            known, literal,
            parseBehavior(r, r.string(o, QStringLiteral("behavior"), QStringLiteral("Isolated"), where),
                          where),
            r.boolean(o, QStringLiteral("invert"), false, where));
    }
    if (type == QLatin1String("Whitespace")) return std::make_unique<WhitespacePreTokenizer>();
    if (type == QLatin1String("WhitespaceSplit")) return std::make_unique<WhitespaceSplitPreTokenizer>();
    if (type == QLatin1String("Punctuation"))
        return std::make_unique<PunctuationPreTokenizer>(parseBehavior(
            r, r.string(o, QStringLiteral("behavior"), QStringLiteral("Isolated"), where), where));
    if (type == QLatin1String("Digits"))
        return std::make_unique<DigitsPreTokenizer>(
            r.boolean(o, QStringLiteral("individual_digits"), false, where));
    if (type == QLatin1String("Sequence"))
        return std::make_unique<SequencePreTokenizer>(
            parseSequence(r, o, "pretokenizers", where, &parsePreTokenizer));
    refuseType(r, where, "pre-tokenizer", type,
               "BertPreTokenizer, ByteLevel, Metaspace, Split, Whitespace, WhitespaceSplit, Punctuation, "
               "Digits, Sequence");
}

Vocabulary parseVocab(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    const QJsonObject o = r.object(v, where);
    Vocabulary vocab;
    // Ids index a table: one far beyond the vocabulary's size is a damaged file, not a 2-billion-entry
    // vocabulary.
    const int limit = std::max(1 << 20, int(o.size()) * 16);
    for (auto it = o.begin(); it != o.end(); ++it) {
        const QString at = where + QStringLiteral("[\"%1\"]").arg(it.key());
        const int id = r.integer(it.value(), at);
        if (id >= limit)
            r.error(at,
                    QStringLiteral("id %1 is far beyond the vocabulary's %2 entries").arg(id).arg(o.size()));
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
            maxChars.isUndefined() || maxChars.isNull()
                ? 100
                : r.integer(maxChars, where + QStringLiteral(".max_input_chars_per_word")));
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
                r.error(where + QStringLiteral(".merges[%1]").arg(i),
                        QStringLiteral("expected \"a b\" or [\"a\", \"b\"]"));
            }
        }
        BpeOptions options;
        auto optionalString = [&](const char* key) -> std::optional<std::u32string> {
            const QJsonValue value = o.value(QLatin1String(key));
            if (value.isString()) return u32(value.toString());
            return std::nullopt;
        };
        options.unkToken = optionalString("unk_token");
        options.continuingSubwordPrefix = optionalString("continuing_subword_prefix");
        options.endOfWordSuffix = optionalString("end_of_word_suffix");
        if (options.continuingSubwordPrefix && options.continuingSubwordPrefix->empty())
            options.continuingSubwordPrefix.reset();
        if (options.endOfWordSuffix && options.endOfWordSuffix->empty()) options.endOfWordSuffix.reset();
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
    refuseType(r, where, "tokenizer model", type, "WordPiece, BPE, Unigram");
}

namespace {

IdToken parseIdToken(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    const QJsonArray a = r.array(v, where);
    if (a.size() != 2 || !a.at(0).isString()) r.error(where, QStringLiteral("expected [token, id]"));
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
                if (!ok) r.error(at, QStringLiteral("bad type id in '%1'").arg(s));
                s = s.left(colon);
            }
            if (s.startsWith(QLatin1Char('$'))) {
                piece.isSequence = true;
                const QString rest = s.mid(1);
                piece.sequence = (rest == QLatin1String("B") || rest == QLatin1String("b")) ? 1 : 0;
                bool numeric = false;
                const int typeId = rest.toInt(&numeric);
                if (numeric) piece.typeId = typeId;
            } else {
                piece.specialId = u32(s);
            }
        } else {
            const QJsonObject o = r.object(item, at);
            if (o.contains(QStringLiteral("Sequence"))) {
                const QJsonObject seq = r.object(o.value(QStringLiteral("Sequence")), at);
                piece.isSequence = true;
                piece.sequence = seq.value(QStringLiteral("id")).toString() == QLatin1String("B") ? 1 : 0;
                piece.typeId =
                    r.integer(seq.value(QStringLiteral("type_id")), at + QStringLiteral(".type_id"));
            } else if (o.contains(QStringLiteral("SpecialToken"))) {
                const QJsonObject sp = r.object(o.value(QStringLiteral("SpecialToken")), at);
                piece.specialId = u32(sp.value(QStringLiteral("id")).toString());
                piece.typeId =
                    r.integer(sp.value(QStringLiteral("type_id")), at + QStringLiteral(".type_id"));
            } else {
                r.error(at, QStringLiteral("expected {\"Sequence\": ...} or {\"SpecialToken\": ...}"));
            }
        }
        pieces.push_back(piece);
    }
    return pieces;
}

} // namespace

std::unique_ptr<PostProcessor> parsePostProcessor(const JsonReader& r, const QJsonValue& v,
                                                  const QString& where)
{
    if (v.isNull() || v.isUndefined()) return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("TemplateProcessing")) {
        std::map<std::u32string, TemplateSpecialToken> special;
        const QJsonObject map =
            r.object(o.value(QStringLiteral("special_tokens")), where + QStringLiteral(".special_tokens"));
        for (auto it = map.begin(); it != map.end(); ++it) {
            const QString at = where + QStringLiteral(".special_tokens[\"%1\"]").arg(it.key());
            const QJsonObject t = r.object(it.value(), at);
            TemplateSpecialToken token;
            const QJsonArray ids = r.array(t.value(QStringLiteral("ids")), at + QStringLiteral(".ids"));
            const QJsonArray tokens =
                r.array(t.value(QStringLiteral("tokens")), at + QStringLiteral(".tokens"));
            if (ids.size() != tokens.size()) r.error(at, QStringLiteral("ids and tokens differ in length"));
            for (int i = 0; i < ids.size(); ++i) {
                token.ids.push_back(r.integer(ids.at(i), at + QStringLiteral(".ids")));
                token.tokens.push_back(u32(tokens.at(i).toString()));
            }
            special[u32(t.value(QStringLiteral("id")).toString(it.key()))] = token;
        }
        std::vector<TemplatePiece> single =
            parseTemplate(r, o.value(QStringLiteral("single")), where + QStringLiteral(".single"));
        std::vector<TemplatePiece> pair =
            parseTemplate(r, o.value(QStringLiteral("pair")), where + QStringLiteral(".pair"));
        for (const auto* list : {&single, &pair})
            for (const TemplatePiece& p : *list)
                if (!p.isSequence && !special.count(p.specialId))
                    r.error(where, QStringLiteral(
                                       "template uses special token '%1' that special_tokens does not define")
                                       .arg(fromCodePoints(p.specialId)));
        return std::make_unique<TemplateProcessor>(std::move(single), std::move(pair), std::move(special));
    }
    if (type == QLatin1String("BertProcessing"))
        return std::make_unique<BertProcessor>(
            parseIdToken(r, o.value(QStringLiteral("sep")), where + QStringLiteral(".sep")),
            parseIdToken(r, o.value(QStringLiteral("cls")), where + QStringLiteral(".cls")));
    if (type == QLatin1String("RobertaProcessing"))
        return std::make_unique<RobertaProcessor>(
            parseIdToken(r, o.value(QStringLiteral("sep")), where + QStringLiteral(".sep")),
            parseIdToken(r, o.value(QStringLiteral("cls")), where + QStringLiteral(".cls")),
            r.boolean(o, QStringLiteral("trim_offsets"), true, where),
            r.boolean(o, QStringLiteral("add_prefix_space"), true, where));
    if (type == QLatin1String("ByteLevel"))
        return std::make_unique<ByteLevelProcessor>(
            r.boolean(o, QStringLiteral("trim_offsets"), true, where),
            r.boolean(o, QStringLiteral("add_prefix_space"), true, where));
    if (type == QLatin1String("Sequence"))
        return std::make_unique<SequenceProcessor>(
            parseSequence(r, o, "processors", where, &parsePostProcessor));
    refuseType(r, where, "post-processor", type,
               "TemplateProcessing, BertProcessing, RobertaProcessing, ByteLevel, Sequence");
}

std::unique_ptr<Decoder> parseDecoder(const JsonReader& r, const QJsonValue& v, const QString& where)
{
    if (v.isNull() || v.isUndefined()) return nullptr;
    const QJsonObject o = r.object(v, where);
    const QString type = r.string(o, QStringLiteral("type"), QString(), where);
    if (type == QLatin1String("WordPiece"))
        return std::make_unique<WordPieceDecoder>(
            u32(r.string(o, QStringLiteral("prefix"), QStringLiteral("##"), where)),
            r.boolean(o, QStringLiteral("cleanup"), true, where));
    if (type == QLatin1String("ByteLevel")) return std::make_unique<ByteLevelDecoder>();
    if (type == QLatin1String("Metaspace"))
        return std::make_unique<MetaspaceDecoder>(
            r.character(o, QStringLiteral("replacement"), 0x2581, where), parsePrependScheme(r, o, where));
    if (type == QLatin1String("BPEDecoder"))
        return std::make_unique<BpeDecoder>(
            u32(r.string(o, QStringLiteral("suffix"), QStringLiteral("</w>"), where)));
    if (type == QLatin1String("Replace"))
        return std::make_unique<ReplaceDecoder>(
            parseStringPattern(r, o.value(QStringLiteral("pattern")), where + QStringLiteral(".pattern"),
                               nullptr),
            u32(r.string(o, QStringLiteral("content"), QString(), where)));
    if (type == QLatin1String("ByteFallback")) return std::make_unique<ByteFallbackDecoder>();
    if (type == QLatin1String("Fuse")) return std::make_unique<FuseDecoder>();
    if (type == QLatin1String("Strip")) {
        const QJsonValue start = o.value(QStringLiteral("start"));
        const QJsonValue stop = o.value(QStringLiteral("stop"));
        return std::make_unique<StripDecoder>(
            r.character(o, QStringLiteral("content"), U' ', where),
            start.isUndefined() ? 0 : r.integer(start, where + QStringLiteral(".start")),
            stop.isUndefined() ? 0 : r.integer(stop, where + QStringLiteral(".stop")));
    }
    if (type == QLatin1String("Sequence"))
        return std::make_unique<SequenceDecoder>(parseSequence(r, o, "decoders", where, &parseDecoder));
    refuseType(r, where, "decoder", type,
               "WordPiece, ByteLevel, Metaspace, BPEDecoder, Replace, ByteFallback, Fuse, Strip, Sequence");
}

} // namespace attnscope::tok
