#include "census/corpusreader.h"

#include "io/inputfile.h"

#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringDecoder>

namespace attnscope {

namespace {

void listLine(std::vector<std::int64_t>& lines, std::int64_t number)
{
    if (lines.size() < size_t(CorpusProblems::kMaxListedLines)) lines.push_back(number);
}

} // namespace

CorpusReader::CorpusReader(const QString& path, bool pairs) : m_path(path), m_pairs(pairs), m_file(path) {}

bool CorpusReader::open(QString* error)
{
    const QFileInfo info(m_path);
    if (!info.exists() && !info.isSymLink()) {
        *error = QStringLiteral("%1: no such file").arg(m_path);
        return false;
    }
    if (info.isDir()) {
        *error = QStringLiteral("%1: is a folder, not a corpus file").arg(m_path);
        return false;
    }
    // The input rules (io/inputfile.h), checked before open(): a FIFO without a writer blocks there. Read
    // line by line, so no size limit.
    QString problem;
    if (!openInputFile(m_file, m_path, &problem)) {
        *error = QStringLiteral("%1: %2").arg(m_path, problem);
        return false;
    }
    const QString suffix = info.suffix().toLower();
    m_format = suffix == QLatin1String("jsonl") || suffix == QLatin1String("ndjson")
                   ? CorpusFormat::Jsonl
                   : CorpusFormat::PlainText;
    if (m_format == CorpusFormat::PlainText) {
        const QByteArray head = m_file.peek(64).trimmed();
        if (head.startsWith("{\"") || head.startsWith("\xEF\xBB\xBF{")) m_format = CorpusFormat::Jsonl;
    }
    return true;
}

bool CorpusReader::seek(std::int64_t offset, std::int64_t linesRead)
{
    if (offset < 0 || offset > m_file.size() || !m_file.seek(offset)) return false;
    m_offset = offset;
    m_lines = linesRead;
    return true;
}

std::optional<std::pair<QString, std::int64_t>> CorpusReader::nextLine()
{
    while (!m_file.atEnd()) {
        // readLine(n) returns at most n - 1 bytes: with n = kMaxLineBytes + 1 every longer line came back
        // as pieces of 1 MiB, each taken for a line of its own. kMaxLineBytes + 2 lets a longer line show.
        QByteArray bytes = m_file.readLine(kMaxLineBytes + 2);
        if (bytes.size() > kMaxLineBytes && !bytes.endsWith('\n')) {
            while (!m_file.atEnd()) { // skip the rest of the line, a block at a time
                const QByteArray rest = m_file.readLine(kMaxLineBytes + 2);
                if (rest.endsWith('\n')) break;
            }
            ++m_lines;
            ++m_problems.cutLines;
            listLine(m_problems.cutLineNumbers, m_lines);
            continue;
        }
        ++m_lines;
        const std::int64_t number = m_lines;
        if (m_lines == 1 && bytes.startsWith("\xEF\xBB\xBF")) bytes.remove(0, 3);
        while (bytes.endsWith('\n') || bytes.endsWith('\r'))
            bytes.chop(1);
        QStringDecoder decoder(QStringDecoder::Utf8, QStringDecoder::Flag::Stateless);
        const QString text = decoder.decode(bytes);
        if (decoder.hasError() || bytes.contains('\0')) {
            ++m_problems.invalidUtf8;
            listLine(m_problems.invalidUtf8Lines, number);
            continue;
        }
        if (text.trimmed().isEmpty()) {
            ++m_problems.emptyLines;
            continue;
        }
        return std::pair{text, number};
    }
    return std::nullopt;
}

std::optional<CorpusInput> CorpusReader::fromJson(const QString& line, std::int64_t number)
{
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(line.toUtf8(), &parseError);
    const QJsonObject object = document.object();
    const QJsonValue text = object.value(QStringLiteral("text"));
    const QJsonValue textB = object.value(QStringLiteral("text_b"));
    if (parseError.error != QJsonParseError::NoError || !document.isObject() || !text.isString() ||
        !(textB.isUndefined() || textB.isNull() || textB.isString())) {
        ++m_problems.invalidJson;
        listLine(m_problems.invalidJsonLines, number);
        return std::nullopt;
    }
    CorpusInput input{number, text.toString(), std::nullopt};
    if (textB.isString()) input.textB = textB.toString();
    if (input.textA.trimmed().isEmpty()) {
        ++m_problems.emptyLines;
        return std::nullopt;
    }
    return input;
}

std::optional<CorpusInput> CorpusReader::inputAtLine(const QString& path, bool pairs, std::int64_t line)
{
    CorpusReader reader(path, pairs);
    QString error;
    if (!reader.open(&error)) return std::nullopt;
    while (auto input = reader.next()) {
        if (input->line == line) return input;
        if (input->line > line) break;
    }
    return std::nullopt;
}

std::optional<CorpusInput> CorpusReader::next()
{
    std::optional<CorpusInput> pending; // --pairs over consecutive lines: text A waiting for its B
    while (auto line = nextLine()) {
        auto [text, number] = *line;
        if (m_format == CorpusFormat::Jsonl) {
            if (auto input = fromJson(text, number)) {
                m_offset = m_file.pos();
                return input;
            }
            continue;
        }
        const int tab = m_pairs ? int(text.indexOf(QLatin1Char('\t'))) : -1;
        if (tab >= 0) {
            if (pending) ++m_problems.unpaired;
            m_offset = m_file.pos();
            return CorpusInput{number, text.left(tab), text.mid(tab + 1)};
        }
        if (!m_pairs) {
            m_offset = m_file.pos();
            return CorpusInput{number, text, std::nullopt};
        }
        if (!pending) {
            pending = CorpusInput{number, text, std::nullopt};
            continue;
        }
        pending->textB = text;
        m_offset = m_file.pos();
        return pending;
    }
    if (pending) ++m_problems.unpaired;
    m_offset = m_file.pos();
    return std::nullopt;
}

} // namespace attnscope
