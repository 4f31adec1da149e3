// Builds the Hugging Face tokenizer a GGUF file's tokenizer.ggml.* metadata stands for (ggufvocabulary.h).

#include "tokenizer/bpemodel.h"
#include "tokenizer/decoders.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/normalizers.h"
#include "tokenizer/postprocessors.h"
#include "tokenizer/pretokenizers.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizerloader.h"
#include "tokenizer/unicodechars.h"

#include <QStringList>
#include <algorithm>
#include <map>

namespace attnscope::tok {

namespace {

[[noreturn]] void fail(const QString& path, const QString& problem)
{
    throw TokenizerError((path + QStringLiteral(": ") + problem).toStdString());
}

// The split pattern (and whether NFC comes first, as in Qwen2's tokenizer.json) for llama.cpp's
// tokenizer.ggml.pre names; llama-vocab.cpp lists which names share a pattern.
struct PreTokenizerChoice
{
    SplitRegex regex;
    bool nfc = false;
    bool ignoreMerges = false;
    bool addBosByDefault = false;
};

std::optional<PreTokenizerChoice> preTokenizerFor(const QString& pre)
{
    static const QStringList gpt2 = {
        QStringLiteral("default"),      QStringLiteral("gpt-2"),       QStringLiteral("phi-2"),
        QStringLiteral("roberta-bpe"),  QStringLiteral("mpt"),         QStringLiteral("olmo"),
        QStringLiteral("jais"),         QStringLiteral("jina-es"),     QStringLiteral("jina-de"),
        QStringLiteral("jina-v1-en"),   QStringLiteral("jina-v2-es"),  QStringLiteral("jina-v2-de"),
        QStringLiteral("jina-v2-code"), QStringLiteral("modern-bert"), QStringLiteral("exaone4")};
    static const QStringList llama3 = {QStringLiteral("llama3"),    QStringLiteral("llama-v3"),
                                       QStringLiteral("llama-bpe"), QStringLiteral("falcon3"),
                                       QStringLiteral("falcon-h1"), QStringLiteral("pixtral"),
                                       QStringLiteral("dbrx"),      QStringLiteral("smaug-bpe")};
    static const QStringList qwen2 = {QStringLiteral("qwen2"), QStringLiteral("deepseek-r1-qwen"),
                                      QStringLiteral("megrez")};
    if (pre.isEmpty() || gpt2.contains(pre)) return PreTokenizerChoice{SplitRegex::Gpt2};
    if (llama3.contains(pre)) {
        // llama.cpp sets ignore_merges and add_bos for the Llama-3 family (smaug/dbrx share only the regex).
        const bool family = pre != QLatin1String("dbrx") && pre != QLatin1String("smaug-bpe");
        return PreTokenizerChoice{SplitRegex::Llama3, false, family, family};
    }
    if (qwen2.contains(pre)) return PreTokenizerChoice{SplitRegex::Qwen2, true};
    return std::nullopt;
}

Vocabulary vocabularyOf(const GgufVocabulary& v, const QString& path)
{
    Vocabulary vocab;
    for (int id = 0; id < v.tokens.size(); ++id) {
        const std::u32string token = toCodePoints(v.tokens[id]);
        if (const std::optional<int> earlier = vocab.find(token))
            fail(path, QStringLiteral("tokenizer.ggml.tokens has '%1' twice (ids %2 and %3)")
                           .arg(v.tokens[id])
                           .arg(*earlier)
                           .arg(id));
        vocab.insert(token, id);
    }
    return vocab;
}

int typeOf(const GgufVocabulary& v, int id)
{
    return id < int(v.tokenTypes.size()) ? v.tokenTypes[size_t(id)] : GgufVocabulary::Normal;
}

// Control and unknown tokens are the special added tokens of the tokenizer.json the file was converted from;
// user-defined ones its other added tokens.
std::vector<AddedToken> addedTokensOf(const GgufVocabulary& v)
{
    std::vector<AddedToken> added;
    for (int id = 0; id < v.tokens.size(); ++id) {
        const int type = typeOf(v, id);
        if (type != GgufVocabulary::Control && type != GgufVocabulary::Unknown &&
            type != GgufVocabulary::UserDefined)
            continue;
        AddedToken t;
        t.id = id;
        t.content = toCodePoints(v.tokens[id]);
        t.special = type != GgufVocabulary::UserDefined;
        t.normalized = !t.special;
        added.push_back(t);
    }
    return added;
}

// Hugging Face's SentencePieceExtractor with vocab_scores: every split of every piece into two pieces of the
// vocabulary is a merge ranked by the piece's score (best first); equal scores keep the pieces' id order,
// and a piece's own splits are ordered by the ids of their halves.
std::vector<std::pair<std::u32string, std::u32string>> mergesFromScores(const GgufVocabulary& v,
                                                                        const Vocabulary& vocab)
{
    struct Merge
    {
        int left, right;
        float score;
    };
    std::vector<Merge> merges;
    for (int id = 0; id < v.tokens.size(); ++id) {
        const std::u32string piece = *vocab.token(id);
        std::vector<Merge> local;
        for (size_t split = 1; split < piece.size(); ++split) {
            const std::optional<int> left = vocab.find(piece.substr(0, split));
            const std::optional<int> right = vocab.find(piece.substr(split));
            if (left && right) local.push_back({*left, *right, v.scores[size_t(id)]});
        }
        std::sort(local.begin(), local.end(), [](const Merge& a, const Merge& b) {
            return a.left != b.left ? a.left < b.left : a.right < b.right;
        });
        merges.insert(merges.end(), local.begin(), local.end());
    }
    std::stable_sort(merges.begin(), merges.end(),
                     [](const Merge& a, const Merge& b) { return a.score > b.score; });
    std::vector<std::pair<std::u32string, std::u32string>> out;
    out.reserve(merges.size());
    for (const Merge& m : merges)
        out.emplace_back(*vocab.token(m.left), *vocab.token(m.right));
    return out;
}

// HF TemplateProcessing as LlamaTokenizerFast sets it up: [bos] $A [eos], and for pairs [bos] $A [eos]
// [bos] $B [eos] with type id 1 on the second half.
std::unique_ptr<PostProcessor> bosEosTemplate(const GgufVocabulary& v, bool addBos, bool addEos)
{
    std::map<std::u32string, TemplateSpecialToken> special;
    auto specialPiece = [&](int id, int typeId) {
        const std::u32string token = toCodePoints(v.tokens[id]);
        special[token] = TemplateSpecialToken{{id}, {token}};
        TemplatePiece p;
        p.specialId = token;
        p.typeId = typeId;
        return p;
    };
    auto sequence = [](int which) {
        TemplatePiece p;
        p.isSequence = true;
        p.sequence = which;
        p.typeId = which;
        return p;
    };
    std::vector<TemplatePiece> single, pair;
    for (int part = 0; part < 2; ++part) {
        std::vector<TemplatePiece>& out = part == 0 ? single : pair;
        for (int which = 0; which <= part; ++which) {
            if (addBos && v.bosId) out.push_back(specialPiece(*v.bosId, which));
            out.push_back(sequence(which));
            if (addEos && v.eosId) out.push_back(specialPiece(*v.eosId, which));
        }
    }
    return std::make_unique<TemplateProcessor>(std::move(single), std::move(pair), std::move(special));
}

std::unique_ptr<TokenizerPipeline> sentencePiece(const GgufVocabulary& v, const QString& path)
{
    if (v.scores.size() != size_t(v.tokens.size()))
        fail(path, QStringLiteral("tokenizer.ggml.scores has %1 entries for %2 tokens")
                       .arg(v.scores.size())
                       .arg(v.tokens.size()));
    Vocabulary vocab = vocabularyOf(v, path);
    const std::vector<std::pair<std::u32string, std::u32string>> merges = mergesFromScores(v, vocab);
    BpeOptions options;
    std::optional<int> unk = v.unkId;
    if (!unk)
        for (int id = 0; id < v.tokens.size() && !unk; ++id)
            if (typeOf(v, id) == GgufVocabulary::Unknown) unk = id;
    if (unk) options.unkToken = toCodePoints(v.tokens[*unk]);
    options.fuseUnk = true;
    options.byteFallback = true;

    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = path;
    pipeline->model = std::make_unique<BpeModel>(std::move(vocab), merges, options);
    const bool prefix = v.addSpacePrefix.value_or(true); // llama.cpp's default for SentencePiece
    std::vector<std::unique_ptr<Normalizer>> normalizers;
    if (prefix) normalizers.push_back(std::make_unique<PrependNormalizer>(U"\u2581"));
    normalizers.push_back(std::make_unique<ReplaceNormalizer>(U" ", U"\u2581"));
    pipeline->normalizer = std::make_unique<SequenceNormalizer>(std::move(normalizers));
    std::vector<std::unique_ptr<Decoder>> decoders;
    decoders.push_back(std::make_unique<ReplaceDecoder>(U"\u2581", U" "));
    decoders.push_back(std::make_unique<ByteFallbackDecoder>());
    decoders.push_back(std::make_unique<FuseDecoder>());
    if (prefix) decoders.push_back(std::make_unique<StripDecoder>(U' ', 1, 0));
    pipeline->decoder = std::make_unique<SequenceDecoder>(std::move(decoders));
    pipeline->postProcessor = bosEosTemplate(v, v.addBos.value_or(true), v.addEos.value_or(false));
    return pipeline;
}

std::unique_ptr<TokenizerPipeline> byteLevelBpe(const GgufVocabulary& v, const QString& path)
{
    const std::optional<PreTokenizerChoice> choice = preTokenizerFor(v.pre);
    if (!choice)
        fail(path, QStringLiteral(
                       "tokenizer.ggml.pre '%1' is not supported (supported: the GPT-2, Llama-3 and Qwen2 "
                       "split patterns and the names llama.cpp gives them)")
                       .arg(v.pre));
    Vocabulary vocab = vocabularyOf(v, path);
    std::vector<std::pair<std::u32string, std::u32string>> merges;
    merges.reserve(size_t(v.merges.size()));
    for (int i = 0; i < v.merges.size(); ++i) {
        const QString& m = v.merges[i];
        const qsizetype space =
            m.indexOf(QLatin1Char(' '), 1); // as llama.cpp: a merge's left part may be " "
        if (space < 0)
            fail(path, QStringLiteral("tokenizer.ggml.merges[%1] '%2' has no space").arg(i).arg(m));
        merges.emplace_back(toCodePoints(m.left(space)), toCodePoints(m.mid(space + 1)));
    }
    BpeOptions options;
    options.ignoreMerges = choice->ignoreMerges;
    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = path;
    try {
        pipeline->model = std::make_unique<BpeModel>(std::move(vocab), merges, options);
    } catch (const TokenizerError& e) {
        fail(path, QStringLiteral("tokenizer.ggml.merges: ") + QString::fromStdString(e.what()));
    }
    if (choice->nfc) pipeline->normalizer = std::make_unique<UnicodeNormalizer>(UnicodeNormalizer::NFC);
    if (choice->regex == SplitRegex::Gpt2) {
        pipeline->preTokenizer = std::make_unique<ByteLevelPreTokenizer>(false, true);
    } else {
        std::vector<std::unique_ptr<PreTokenizer>> parts;
        parts.push_back(std::make_unique<SplitPreTokenizer>(choice->regex, std::u32string(),
                                                            SplitBehavior::Isolated, false));
        parts.push_back(std::make_unique<ByteLevelPreTokenizer>(false, false));
        pipeline->preTokenizer = std::make_unique<SequencePreTokenizer>(std::move(parts));
    }
    pipeline->decoder = std::make_unique<ByteLevelDecoder>();
    const bool addBos = v.addBos.value_or(choice->addBosByDefault);
    const bool addEos = v.addEos.value_or(false);
    if (addBos || addEos)
        pipeline->postProcessor = bosEosTemplate(v, addBos, addEos);
    else
        pipeline->postProcessor = std::make_unique<ByteLevelProcessor>(false, true);
    return pipeline;
}

} // namespace

std::unique_ptr<TokenizerPipeline> loadGgufVocabulary(const GgufVocabulary& v, const QString& path)
{
    if (!v.huggingFaceJson.isEmpty()) return loadTokenizerJsonText(v.huggingFaceJson.toUtf8(), path);
    if (v.model.isEmpty()) fail(path, QStringLiteral("no tokenizer in the metadata (tokenizer.ggml.model)"));
    if (v.tokens.isEmpty()) fail(path, QStringLiteral("tokenizer.ggml.tokens is missing or empty"));
    if (!v.tokenTypes.empty() && v.tokenTypes.size() != size_t(v.tokens.size()))
        fail(path, QStringLiteral("tokenizer.ggml.token_type has %1 entries for %2 tokens")
                       .arg(v.tokenTypes.size())
                       .arg(v.tokens.size()));
    std::unique_ptr<TokenizerPipeline> pipeline;
    if (v.model == QLatin1String("llama"))
        pipeline = sentencePiece(v, path);
    else if (v.model == QLatin1String("gpt2"))
        pipeline = byteLevelBpe(v, path);
    else
        fail(path, QStringLiteral("tokenizer.ggml.model '%1' is not supported (supported: llama, gpt2)")
                       .arg(v.model));
    pipeline->added.setTokens(addedTokensOf(v), pipeline->normalizer.get());
    auto name = [&](const std::optional<int>& id) -> std::optional<std::u32string> {
        if (!id) return std::nullopt;
        return toCodePoints(v.tokens[*id]);
    };
    pipeline->bosToken = name(v.bosId);
    pipeline->eosToken = name(v.eosId);
    pipeline->unkToken = name(v.unkId);
    pipeline->padToken = name(v.padId);
    pipeline->sepToken = name(v.sepId);
    return pipeline;
}

} // namespace attnscope::tok
