#include "tokenizer/sentencepiecemodel.h"

#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizerjsonreader.h"

#include <sentencepiece_processor.h>
#include <string>

namespace attnscope {

namespace {

// One line: the library's messages may carry newlines or its own source location.
QString oneLine(const char* message)
{
    return QString::fromUtf8(message).simplified();
}

// A .spm of a real model is a few hundred kB to a few MB; anything far larger is not one.
constexpr qint64 kMaxModelBytes = qint64(256) << 20;

} // namespace

SentencePieceModel SentencePieceModel::fromFile(const QString& path)
{
    SentencePieceModel model;
    model.m_path = path;
    // tok::readFile's checks: missing, a folder, a FIFO, over the size limit (named, one line each).
    const QByteArray bytes = tok::readFile(path, kMaxModelBytes);
    if (bytes.isEmpty()) model.fail(QStringLiteral("empty file, not a SentencePiece model"));
    // Handed over as bytes: Qt opens any path the user gave (non-ASCII names included), and the library never
    // touches the file system.
    auto processor = std::make_shared<sentencepiece::SentencePieceProcessor>();
    const auto status =
        processor->LoadFromSerializedProto(std::string_view(bytes.constData(), size_t(bytes.size())));
    if (!status.ok())
        model.fail(QStringLiteral("not a SentencePiece model (%1)").arg(oneLine(status.message())));
    if (processor->GetPieceSize() <= 0) model.fail(QStringLiteral("SentencePiece model without pieces"));
    model.m_processor = std::move(processor);
    return model;
}

void SentencePieceModel::fail(const QString& problem) const
{
    throw TokenizerError((m_path + QStringLiteral(": ") + problem).toStdString());
}

QStringList SentencePieceModel::encodePieces(const QString& text) const
{
    std::vector<std::string> pieces;
    const QByteArray utf8 = text.toUtf8();
    const auto status = m_processor->Encode(std::string_view(utf8.constData(), size_t(utf8.size())), &pieces);
    if (!status.ok()) fail(QStringLiteral("cannot encode the text (%1)").arg(oneLine(status.message())));
    QStringList out;
    out.reserve(qsizetype(pieces.size()));
    for (const std::string& p : pieces)
        out << QString::fromStdString(p);
    return out;
}

std::vector<int> SentencePieceModel::encodeIds(const QString& text) const
{
    std::vector<int> ids;
    const QByteArray utf8 = text.toUtf8();
    const auto status = m_processor->Encode(std::string_view(utf8.constData(), size_t(utf8.size())), &ids);
    if (!status.ok()) fail(QStringLiteral("cannot encode the text (%1)").arg(oneLine(status.message())));
    return ids;
}

QString SentencePieceModel::decodePieces(const QStringList& pieces) const
{
    std::vector<std::string> in;
    in.reserve(size_t(pieces.size()));
    for (const QString& p : pieces)
        in.push_back(p.toStdString());
    std::string text;
    const auto status = m_processor->Decode(in, &text);
    if (!status.ok()) fail(QStringLiteral("cannot decode pieces (%1)").arg(oneLine(status.message())));
    return QString::fromStdString(text);
}

int SentencePieceModel::pieceCount() const
{
    return m_processor->GetPieceSize();
}

QString SentencePieceModel::piece(int id) const
{
    if (id < 0 || id >= pieceCount()) return {};
    return QString::fromStdString(m_processor->IdToPiece(id));
}

} // namespace attnscope
