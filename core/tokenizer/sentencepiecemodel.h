#pragma once

// A SentencePiece model file (.model / .spm: a serialized ModelProto) through Debian's libsentencepiece, the
// library that trained it: Marian's source.spm/target.spm, T5's spiece.model. The library's own normaliser
// (nmt_nfkc, the precompiled charsmap in the file) and segmentation run, so the pieces are those the Python
// binding gives (sentencepiece.SentencePieceProcessor.encode(text, out_type=str)).

#include <QString>
#include <QStringList>
#include <memory>
#include <vector>

namespace sentencepiece {
class SentencePieceProcessor;
}

namespace attnscope {

class SentencePieceModel
{
public:
    // Throws TokenizerError "<path>: <problem>" (one line) when the file is missing, unreadable or not a
    // SentencePiece model.
    static SentencePieceModel fromFile(const QString& path);

    // The pieces of `text` as the model segments it ("▁k", "edi", ...). Pieces the model does not know are
    // given as their surface text (what the Python binding's out_type=str gives, which vocab.json then maps
    // to <unk>).
    QStringList encodePieces(const QString& text) const;
    // The model's own ids of the same segmentation (its unknown id for unknown pieces).
    std::vector<int> encodeIds(const QString& text) const;
    // The text of pieces, "▁" turned back into spaces (sentencepiece's DecodePieces).
    QString decodePieces(const QStringList& pieces) const;

    int pieceCount() const;
    QString piece(int id) const; // "" when out of range
    const QString& path() const { return m_path; }

private:
    SentencePieceModel() = default;
    [[noreturn]] void fail(const QString& problem) const;

    QString m_path;
    std::shared_ptr<const sentencepiece::SentencePieceProcessor> m_processor; // immutable once loaded
};

} // namespace attnscope
