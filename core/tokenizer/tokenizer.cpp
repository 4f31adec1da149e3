#include "tokenizer/tokenizer.h"

#include "tokenizer/postprocessors.h"
#include "tokenizer/tokenizerloader.h"
#include "tokenizer/tokenizerpipeline.h"
#include "tokenizer/unicodechars.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace attnscope {

using namespace tok;

Tokenizer::Tokenizer() = default;
Tokenizer::~Tokenizer() = default;

namespace {

[[noreturn]] void fail(const QString& path, const QString& problem)
{
    throw TokenizerError((path + QStringLiteral(": ") + problem).toStdString());
}

// A boolean from tokenizer_config.json at `configPath`, or `fallback` when there is none or the key is
// missing or null; anything else is refused (do_lower_case: "yes" was read as the fallback, silently).
bool configFlag(const std::optional<QJsonObject>& config, const QString& configPath, const char* key,
                bool fallback)
{
    const QJsonValue v = config ? config->value(QLatin1String(key)) : QJsonValue();
    if (v.isUndefined() || v.isNull()) return fallback;
    if (!v.isBool()) fail(configPath, QStringLiteral("%1 must be true or false").arg(QLatin1String(key)));
    return v.toBool();
}

} // namespace

std::unique_ptr<Tokenizer> Tokenizer::fromJsonFile(const QString& path)
{
    std::unique_ptr<Tokenizer> tokenizer(new Tokenizer);
    tokenizer->m_pipeline = loadTokenizerJson(path);
    const QString config = QFileInfo(path).dir().filePath(QStringLiteral("tokenizer_config.json"));
    applyTokenizerConfig(*tokenizer->m_pipeline, readTokenizerConfig(config), false);
    return tokenizer;
}

std::unique_ptr<Tokenizer> Tokenizer::fromJsonBytes(const QByteArray& bytes, const QString& sourceName)
{
    std::unique_ptr<Tokenizer> tokenizer(new Tokenizer);
    tokenizer->m_pipeline = loadTokenizerJsonText(bytes, sourceName);
    return tokenizer;
}

std::unique_ptr<Tokenizer> Tokenizer::fromGgufVocabulary(const GgufVocabulary& vocabulary,
                                                         const QString& sourcePath)
{
    std::unique_ptr<Tokenizer> tokenizer(new Tokenizer);
    tokenizer->m_pipeline = loadGgufVocabulary(vocabulary, sourcePath);
    return tokenizer;
}

std::unique_ptr<Tokenizer> Tokenizer::fromFolder(const QString& folder)
{
    const QFileInfo info(folder);
    if (!info.exists())
        fail(folder, QStringLiteral("no such folder"));
    if (info.isFile()) {
        if (info.fileName().endsWith(QLatin1String(".json")))
            return fromJsonFile(folder);
        fail(folder, QStringLiteral("expected a folder holding tokenizer.json (or vocab.txt, or vocab.json + merges.txt)"));
    }
    const QDir dir(folder);
    const QString json = dir.filePath(QStringLiteral("tokenizer.json"));
    if (QFileInfo(json).exists() ||
        QFileInfo(json).isSymLink()) // a dangling link: say so, not "no tokenizer"
        return fromJsonFile(json);
    const QString config = dir.filePath(QStringLiteral("tokenizer_config.json"));
    const QString vocabTxt = dir.filePath(QStringLiteral("vocab.txt"));
    const QString vocabJson = dir.filePath(QStringLiteral("vocab.json"));
    const QString merges = dir.filePath(QStringLiteral("merges.txt"));
    std::unique_ptr<Tokenizer> tokenizer(new Tokenizer);
    std::optional<QJsonObject> configObject;
    if (QFileInfo::exists(vocabTxt) || QFileInfo::exists(vocabJson))
        configObject = readTokenizerConfig(config);
    if (QFileInfo::exists(vocabTxt)) {
        tokenizer->m_pipeline =
            loadWordPieceVocab(vocabTxt, configFlag(configObject, config, "do_lower_case", true));
    } else if (QFileInfo::exists(vocabJson) && QFileInfo::exists(merges)) {
        tokenizer->m_pipeline =
            loadByteLevelBpe(vocabJson, merges, configFlag(configObject, config, "add_prefix_space", false));
    } else if (QFileInfo::exists(vocabJson)) {
        fail(merges, QStringLiteral("no such file (vocab.json needs merges.txt beside it)"));
    } else if (QFileInfo::exists(dir.filePath(QStringLiteral("tokenizer.model")))) {
        fail(dir.filePath(QStringLiteral("tokenizer.model")),
             QStringLiteral("SentencePiece .model files are not supported; the folder needs a tokenizer.json"));
    } else {
        fail(folder, QStringLiteral("no tokenizer.json, vocab.txt or vocab.json + merges.txt in this folder"));
    }
    applyTokenizerConfig(*tokenizer->m_pipeline, configObject, true);
    return tokenizer;
}

Encoding Tokenizer::encode(const QString& textA, const std::optional<QString>& textB, bool addSpecialTokens) const
{
    const TokenizerPipeline& p = *m_pipeline;
    RawEncoding raw;
    try {
        RawEncoding a = p.encodeSequence(toCodePoints(textA), 0);
        std::optional<RawEncoding> b;
        if (textB)
            b = p.encodeSequence(toCodePoints(*textB), 1);
        raw = p.postProcess(std::move(a), std::move(b), addSpecialTokens);
    } catch (const TokenizerError& e) {
        fail(p.path, QString::fromStdString(e.what()));
    }
    Encoding out;
    out.ids = raw.ids;
    out.tokens.reserve(qsizetype(raw.tokens.size()));
    for (const std::u32string& t : raw.tokens)
        out.tokens.append(fromCodePoints(t));
    out.offsets = raw.offsets;
    out.typeIds = raw.typeIds;
    out.sequenceIds = raw.sequenceIds;
    out.special.resize(raw.special.size());
    for (size_t i = 0; i < raw.special.size(); ++i)
        out.special[i] = raw.special[i] || p.added.isSpecialId(raw.ids[i]);
    return out;
}

QString Tokenizer::decode(const std::vector<int>& ids, bool skipSpecialTokens) const
{
    const TokenizerPipeline& p = *m_pipeline;
    std::vector<std::u32string> tokens;
    tokens.reserve(ids.size());
    for (int id : ids) {
        std::optional<std::u32string> token = p.idToToken(id);
        if (!token)
            continue;
        if (skipSpecialTokens && p.added.isSpecialId(id))
            continue;
        tokens.push_back(std::move(*token));
    }
    if (!p.decoder) {
        QStringList parts;
        for (const std::u32string& t : tokens)
            parts.append(fromCodePoints(t));
        return parts.join(QLatin1Char(' '));
    }
    std::u32string out;
    for (const std::u32string& t : p.decoder->decodeChain(std::move(tokens)))
        out += t;
    return fromCodePoints(out);
}

QString Tokenizer::idToToken(int id) const
{
    const std::optional<std::u32string> t = m_pipeline->idToToken(id);
    return t ? fromCodePoints(*t) : QString();
}

std::optional<int> Tokenizer::tokenToId(const QString& token) const
{
    return m_pipeline->tokenToId(toCodePoints(token));
}

int Tokenizer::vocabSize() const
{
    // HF get_vocab_size(with_added_tokens=true): the model vocabulary plus added tokens it does not contain.
    int size = m_pipeline->model->vocabSize();
    for (const AddedToken& t : m_pipeline->added.tokens())
        if (!m_pipeline->model->tokenToId(t.content))
            ++size;
    return size;
}

QString Tokenizer::modelType() const
{
    return QString::fromLatin1(m_pipeline->model->typeName());
}

QString Tokenizer::sourcePath() const
{
    return m_pipeline->path;
}

namespace {

std::optional<int> firstKnown(const TokenizerPipeline& p, const std::optional<std::u32string>& configured,
                              std::initializer_list<const char32_t*> fallbacks)
{
    if (configured)
        if (const std::optional<int> id = p.tokenToId(*configured))
            return id;
    for (const char32_t* name : fallbacks)
        if (const std::optional<int> id = p.tokenToId(name))
            return id;
    return std::nullopt;
}

} // namespace

std::optional<int> Tokenizer::clsId() const
{
    return firstKnown(*m_pipeline, m_pipeline->clsToken, {U"[CLS]", U"<s>"});
}

std::optional<int> Tokenizer::sepId() const
{
    return firstKnown(*m_pipeline, m_pipeline->sepToken, {U"[SEP]", U"</s>"});
}

std::optional<int> Tokenizer::bosId() const
{
    return firstKnown(*m_pipeline, m_pipeline->bosToken, {U"<s>", U"<|begin_of_text|>", U"<|endoftext|>"});
}

std::optional<int> Tokenizer::eosId() const
{
    return firstKnown(*m_pipeline, m_pipeline->eosToken, {U"</s>", U"<|end_of_text|>", U"<|endoftext|>"});
}

std::optional<int> Tokenizer::padId() const
{
    return firstKnown(*m_pipeline, m_pipeline->padToken, {U"[PAD]", U"<pad>"});
}

std::optional<int> Tokenizer::unkId() const
{
    if (const std::optional<int> id = firstKnown(*m_pipeline, m_pipeline->unkToken, {}))
        return id;
    if (const std::optional<std::u32string> unk = m_pipeline->model->unkToken())
        return m_pipeline->tokenToId(*unk);
    return std::nullopt;
}

bool Tokenizer::isSpecial(int id) const
{
    return m_pipeline->added.isSpecialId(id);
}

namespace {
thread_local qint64 codePointSteps = 0;

bool isSecondOfPair(const QString& text, qsizetype i)
{
    return i > 0 && i < text.size() && text.at(i).isLowSurrogate() && text.at(i - 1).isHighSurrogate();
}
} // namespace

qint64 codePointStepsOnThisThread()
{
    return codePointSteps;
}

QString substringByCodePoints(const QString& text, int begin, int end)
{
    qsizetype start = -1;
    qsizetype stop = text.size();
    int cp = 0;
    qsizetype i = 0;
    for (; i <= text.size(); ++i) {
        if (isSecondOfPair(text, i)) continue; // inside a surrogate pair
        if (cp == begin && start < 0)
            start = i;
        if (cp == end) {
            stop = i;
            break;
        }
        ++cp;
    }
    codePointSteps += i;
    if (start < 0 || begin >= end)
        return QString();
    return text.mid(start, stop - start);
}

CodePointIndex::CodePointIndex(const QString& text) : m_text(text)
{
    m_starts.reserve(size_t(text.size()) + 1);
    for (qsizetype i = 0; i < text.size(); ++i)
        if (!isSecondOfPair(text, i)) m_starts.push_back(i);
    m_starts.push_back(text.size());
    codePointSteps += text.size();
}

QString CodePointIndex::substring(int begin, int end) const
{
    const int n = size();
    if (begin >= end || begin < 0 || begin >= n) return QString();
    const qsizetype start = m_starts[size_t(begin)];
    const qsizetype stop = m_starts[size_t(std::min(end, n))];
    codePointSteps += stop - start;
    return m_text.mid(start, stop - start);
}

int codePointCount(const QString& text)
{
    int n = 0;
    for (qsizetype i = 0; i < text.size(); ++i)
        if (!(text.at(i).isLowSurrogate() && i > 0 && text.at(i - 1).isHighSurrogate()))
            ++n;
    return n;
}

} // namespace attnscope
