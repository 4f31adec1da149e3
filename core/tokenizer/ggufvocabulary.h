#pragma once

// The tokenizer a llama.cpp .gguf file carries in its metadata (tokenizer.ggml.*), as plain data. The model
// code reads it from the file; Tokenizer::fromGgufVocabulary() builds the Hugging Face tokenizer it stands
// for:
//
//   model "llama" (SentencePiece BPE): pieces with scores; merges are derived from the scores as Hugging
//     Face's converter does (every split of a piece into two pieces, best score first); byte fallback to
//     <0xNN>, <unk>, "▁" for spaces and a leading "▁" when add_space_prefix.
//   model "gpt2" (byte-level BPE): tokens and merges; the split regex comes from `pre` (gpt-2, llama-bpe,
//     qwen2, ...).
//
// Token types (llama.cpp): 1 normal, 2 unknown, 3 control (special), 4 user defined, 5 unused, 6 byte.

#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace attnscope {

struct GgufVocabulary
{
    enum TokenType { Normal = 1, Unknown = 2, Control = 3, UserDefined = 4, Unused = 5, Byte = 6 };

    QString model; // tokenizer.ggml.model; empty when the file has no tokenizer
    QString pre;   // tokenizer.ggml.pre
    QStringList tokens;
    std::vector<float> scores;   // empty or one per token
    std::vector<int> tokenTypes; // empty or one per token
    QStringList merges;          // "left right"
    std::optional<int> bosId, eosId, unkId, padId, sepId;
    std::optional<bool> addBos, addEos, addSpacePrefix;
    QString huggingFaceJson; // tokenizer.huggingface.json when present: the original tokenizer.json
};

} // namespace attnscope
