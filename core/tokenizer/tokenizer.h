#pragma once

// A Hugging Face tokenizer.json (or legacy vocab.txt / vocab.json + merges.txt) read natively, giving the
// same ids, tokens and offsets as the Rust `tokenizers` library.

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>
#include <vector>

namespace attnscope {

// Message "<file>: <problem>", one line.
class TokenizerError : public std::runtime_error
{
public:
    using std::runtime_error::runtime_error;
};

struct Encoding
{
    std::vector<int> ids;
    QStringList tokens;                       // vocabulary strings, e.g. "[CLS]", "##ing", "Ġthe", "▁the"
    std::vector<std::pair<int, int>> offsets; // [begin, end) in Unicode code points of its own text (A or B);
                                              // [0,0] for tokens added by the template
    std::vector<int> typeIds;                 // token type / segment ids from the post-processor
    std::vector<int> sequenceIds;             // 0 = text A, 1 = text B, -1 = added by the template
    std::vector<bool> special;                // special tokens ([CLS], [SEP], <s>, special added tokens)

    int size() const { return int(ids.size()); }
};

class TokenizerPipeline;
struct GgufVocabulary;

class Tokenizer
{
public:
    ~Tokenizer();

    // tokenizer.json in the folder, else legacy vocab.txt (WordPiece) or vocab.json + merges.txt (byte-level BPE).
    static std::unique_ptr<Tokenizer> fromFolder(const QString& folder);
    static std::unique_ptr<Tokenizer> fromJsonFile(const QString& path);
    // A tokenizer.json held in memory (no tokenizer_config.json); sourceName names it in errors.
    static std::unique_ptr<Tokenizer> fromJsonBytes(const QByteArray& bytes, const QString& sourceName);
    // The tokenizer a GGUF file's metadata describes (ggufvocabulary.h); `sourcePath` names the file.
    static std::unique_ptr<Tokenizer> fromGgufVocabulary(const GgufVocabulary& vocabulary,
                                                         const QString& sourcePath);

    Encoding encode(const QString& textA, const std::optional<QString>& textB = std::nullopt,
                    bool addSpecialTokens = true) const;
    QString decode(const std::vector<int>& ids, bool skipSpecialTokens = true) const;

    QString idToToken(int id) const;        // empty when out of range
    std::optional<int> tokenToId(const QString& token) const;
    int vocabSize() const;                  // model vocabulary plus added tokens
    QString modelType() const;              // "WordPiece", "BPE"
    QString sourcePath() const;             // the file it was read from

    // Well-known special tokens when the tokenizer has them (from the post-processor, added tokens and
    // tokenizer_config.json).
    std::optional<int> clsId() const;
    std::optional<int> sepId() const;
    std::optional<int> bosId() const;
    std::optional<int> eosId() const;
    std::optional<int> padId() const;
    std::optional<int> unkId() const;
    bool isSpecial(int id) const;

private:
    Tokenizer();
    std::unique_ptr<TokenizerPipeline> m_pipeline;
};

// The exact substring of `text` covering code points [begin, end) (clamped to the text). Scans from the
// start: for the tokens of one text, use a CodePointIndex.
QString substringByCodePoints(const QString& text, int begin, int end);

// Where each code point of a text starts, found in one pass: the substrings of all an encoding's tokens
// ([begin, end) in code points) in time linear in the text (substringByCodePoints per token was quadratic:
// over 60 s for the tokens of 1 MB).
class CodePointIndex
{
public:
    explicit CodePointIndex(const QString& text);
    // As substringByCodePoints(text, begin, end).
    QString substring(int begin, int end) const;
    int size() const { return int(m_starts.size()) - 1; } // code points

private:
    QString m_text;
    std::vector<qsizetype> m_starts; // UTF-16 index of code point i; the last is text.size()
};

// UTF-16 code units that substringByCodePoints and CodePointIndex have stepped over on this thread: tests
// count the work of an analysis with it (a linear one steps a small multiple of its text's length).
qint64 codePointStepsOnThisThread();

// Number of Unicode code points in `text` (a surrogate pair counts once).
int codePointCount(const QString& text);

} // namespace attnscope
