#include "tokenizer/seq2seqtokenizer.h"

#include "tokenizer/mariantokenizer.h"
#include "tokenizer/t5tokenizer.h"

#include <QDir>
#include <QFileInfo>

namespace attnscope {

namespace {

class MarianSide final : public Seq2SeqTokenizer
{
public:
    explicit MarianSide(MarianTokenizer tokenizer) : m_tokenizer(std::move(tokenizer)) {}
    Encoding encodeSource(const QString& text) const override { return m_tokenizer.encode(text); }
    Encoding encodeTarget(const QString& text) const override
    {
        return m_tokenizer.encode(text, MarianTokenizer::Side::Target);
    }
    QString decodeTarget(const std::vector<int>& ids) const override { return m_tokenizer.decode(ids); }
    // One joint vocabulary (vocab.json) for both sides.
    QString sourceToken(int id) const override { return m_tokenizer.idToToken(id); }
    QString targetToken(int id) const override { return m_tokenizer.idToToken(id); }

private:
    MarianTokenizer m_tokenizer;
};

class T5Side final : public Seq2SeqTokenizer
{
public:
    explicit T5Side(T5Tokenizer tokenizer) : m_tokenizer(std::move(tokenizer)) {}
    Encoding encodeSource(const QString& text) const override { return m_tokenizer.encode(text); }
    Encoding encodeTarget(const QString& text) const override { return m_tokenizer.encode(text); }
    QString decodeTarget(const std::vector<int>& ids) const override { return m_tokenizer.decode(ids); }
    QString sourceToken(int id) const override { return m_tokenizer.idToToken(id); }
    QString targetToken(int id) const override { return m_tokenizer.idToToken(id); }

private:
    T5Tokenizer m_tokenizer;
};

class JsonSide final : public Seq2SeqTokenizer
{
public:
    explicit JsonSide(std::unique_ptr<Tokenizer> tokenizer) : m_tokenizer(std::move(tokenizer)) {}
    Encoding encodeSource(const QString& text) const override { return m_tokenizer->encode(text); }
    Encoding encodeTarget(const QString& text) const override { return m_tokenizer->encode(text); }
    QString decodeTarget(const std::vector<int>& ids) const override { return m_tokenizer->decode(ids); }
    QString sourceToken(int id) const override { return m_tokenizer->idToToken(id); }
    QString targetToken(int id) const override { return m_tokenizer->idToToken(id); }

private:
    std::unique_ptr<Tokenizer> m_tokenizer;
};

} // namespace

bool Seq2SeqTokenizer::folderHasOne(const QString& folder)
{
    const QDir dir(folder);
    return dir.exists(QStringLiteral("source.spm")) || dir.exists(QStringLiteral("tokenizer.json")) ||
           dir.exists(QStringLiteral("spiece.model"));
}

std::unique_ptr<Seq2SeqTokenizer> Seq2SeqTokenizer::fromFolder(const QString& folder)
{
    const QDir dir(folder);
    auto has = [&](const char* name) { return QFileInfo::exists(dir.filePath(QLatin1String(name))); };
    if (has("source.spm")) return std::make_unique<MarianSide>(MarianTokenizer::fromFolder(folder));
    if (has("tokenizer.json")) return std::make_unique<JsonSide>(Tokenizer::fromFolder(folder));
    if (has("spiece.model")) return std::make_unique<T5Side>(T5Tokenizer::fromFolder(folder));
    throw TokenizerError(QStringLiteral("%1: no tokenizer (none of source.spm, tokenizer.json, spiece.model)")
                             .arg(QDir::toNativeSeparators(folder))
                             .toStdString());
}

} // namespace attnscope
