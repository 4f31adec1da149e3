#pragma once

// Reads a census corpus one input at a time, never holding the file:
//  - plain text: one input per line; with pairs, "A<TAB>B" on one line, else two consecutive lines;
//  - JSONL (.jsonl / .ndjson, or a first line starting with '{'): {"text": A, "text_b": B (optional)}.
// Empty lines are skipped and counted; lines that are not valid UTF-8 (or not a JSON object with a "text"
// string) are skipped, counted and their line numbers kept (the first kMaxListedLines). So is a line longer
// than kMaxLineBytes: no sentence needs more for a few hundred tokens, and a cut JSON line is invalid anyway.

#include <QFile>
#include <QString>
#include <cstdint>
#include <optional>
#include <vector>

namespace attnscope {

struct CorpusInput
{
    std::int64_t line = 0; // 1-based line of text A
    QString textA;
    std::optional<QString> textB;
};

struct CorpusProblems
{
    static constexpr int kMaxListedLines = 100;
    std::int64_t emptyLines = 0;
    std::int64_t invalidUtf8 = 0;
    std::vector<std::int64_t> invalidUtf8Lines;
    std::int64_t invalidJson = 0;
    std::vector<std::int64_t> invalidJsonLines;
    std::int64_t cutLines = 0; // longer than kMaxLineBytes: skipped
    std::vector<std::int64_t> cutLineNumbers;
    std::int64_t unpaired = 0; // --pairs: a line left without a partner
};

enum class CorpusFormat { PlainText, Jsonl };

class CorpusReader
{
public:
    static constexpr qint64 kMaxLineBytes = 1 << 20;

    CorpusReader(const QString& path, bool pairs);

    // False with *error ("<file>: <problem>") when it cannot be read.
    bool open(QString* error);
    // Continues at a byte offset and line count an earlier reader reported after a whole input.
    bool seek(std::int64_t offset, std::int64_t linesRead);
    // The next input, or nullopt at the end of the file.
    std::optional<CorpusInput> next();

    // The input that starts on `line` (a CensusExtreme's id), read again from the file; nullopt when there
    // is none (the file changed or cannot be read).
    static std::optional<CorpusInput> inputAtLine(const QString& path, bool pairs, std::int64_t line);

    CorpusFormat format() const { return m_format; }
    std::int64_t offset() const { return m_offset; } // bytes read, after the last whole input
    std::int64_t linesRead() const { return m_lines; }
    std::int64_t fileSize() const { return m_file.size(); }
    const CorpusProblems& problems() const { return m_problems; }
    CorpusProblems& problems() { return m_problems; }

private:
    // The next non-empty, decodable line (text, 1-based number), or nullopt at the end.
    std::optional<std::pair<QString, std::int64_t>> nextLine();
    std::optional<CorpusInput> fromJson(const QString& line, std::int64_t number);

    QString m_path;
    bool m_pairs;
    QFile m_file;
    CorpusFormat m_format = CorpusFormat::PlainText;
    std::int64_t m_offset = 0, m_lines = 0;
    CorpusProblems m_problems;
};

} // namespace attnscope
