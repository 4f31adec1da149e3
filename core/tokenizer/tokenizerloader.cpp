#include "tokenizer/tokenizerloader.h"

#include "io/inputfile.h"
#include "tokenizer/bpemodel.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizerjsonparts.h"
#include "tokenizer/wordpiecemodel.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <algorithm>

namespace attnscope::tok {

namespace {

std::optional<std::u32string> configToken(const QJsonObject& config, const char* key)
{
    const QJsonValue v = config.value(QLatin1String(key));
    if (v.isString())
        return u32(v.toString());
    if (v.isObject() && v.toObject().value(QStringLiteral("content")).isString())
        return u32(v.toObject().value(QStringLiteral("content")).toString());
    return std::nullopt;
}

} // namespace

std::unique_ptr<TokenizerPipeline> loadTokenizerJson(const QString& path)
{
    return loadTokenizerJsonText(readFile(path, kMaxJsonFileBytes), path);
}

std::unique_ptr<TokenizerPipeline> loadTokenizerJsonText(const QByteArray& json, const QString& path)
{
    const QJsonDocument doc = parseJson(json, path);
    JsonReader r(path);
    if (!doc.isObject())
        fail(path, QStringLiteral("expected a JSON object at the top level"));
    const QJsonObject root = doc.object();
    if (!root.contains(QStringLiteral("model")))
        fail(path, QStringLiteral("no \"model\" section: this is not a Hugging Face tokenizer.json"));
    const QString version = root.value(QStringLiteral("version")).toString(QStringLiteral("1.0"));
    if (version != QLatin1String("1.0"))
        fail(path, QStringLiteral("unknown tokenizer.json version '%1'").arg(version));

    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = path;
    pipeline->model = parseModel(r, root.value(QStringLiteral("model")));
    pipeline->normalizer = parseNormalizer(r, root.value(QStringLiteral("normalizer")), QStringLiteral("normalizer"));
    pipeline->preTokenizer =
        parsePreTokenizer(r, root.value(QStringLiteral("pre_tokenizer")), QStringLiteral("pre_tokenizer"));
    pipeline->postProcessor =
        parsePostProcessor(r, root.value(QStringLiteral("post_processor")), QStringLiteral("post_processor"));
    pipeline->decoder = parseDecoder(r, root.value(QStringLiteral("decoder")), QStringLiteral("decoder"));

    std::vector<AddedToken> added;
    const QJsonValue addedValue = root.value(QStringLiteral("added_tokens"));
    if (!addedValue.isNull() && !addedValue.isUndefined()) {
        const QJsonArray list = r.array(addedValue, QStringLiteral("added_tokens"));
        // Ids index tables, like the vocabulary's (parseVocab): one far beyond the vocabulary is a damaged
        // file.
        const qint64 idLimit =
            std::max<qint64>(qint64(1) << 20, (qint64(pipeline->model->vocabSize()) + list.size()) * 16);
        qint64 nextId = pipeline->model->vocabSize();
        for (int i = 0; i < list.size(); ++i) {
            const QString where = QStringLiteral("added_tokens[%1]").arg(i);
            const QJsonObject o = r.object(list.at(i), where);
            AddedToken t;
            t.content = u32(r.string(o, QStringLiteral("content"), QString(), where));
            t.special = r.boolean(o, QStringLiteral("special"), false, where);
            t.singleWord = r.boolean(o, QStringLiteral("single_word"), false, where);
            t.lstrip = r.boolean(o, QStringLiteral("lstrip"), false, where);
            t.rstrip = r.boolean(o, QStringLiteral("rstrip"), false, where);
            t.normalized = r.boolean(o, QStringLiteral("normalized"), !t.special, where);
            // HF gives an added token the model's id for the same string, else the id in the file.
            qint64 id = nextId;
            if (const std::optional<int> modelId = pipeline->model->tokenToId(t.content))
                id = *modelId;
            else if (o.contains(QStringLiteral("id")))
                id = r.integer(o.value(QStringLiteral("id")), where + QStringLiteral(".id"));
            if (id >= idLimit)
                r.error(where + QStringLiteral(".id"),
                        QStringLiteral("id %1 is far beyond the vocabulary's %2 entries")
                            .arg(id)
                            .arg(pipeline->model->vocabSize()));
            t.id = int(id);
            nextId = std::max(nextId, id + 1);
            added.push_back(t);
        }
    }
    pipeline->added.setTokens(std::move(added), pipeline->normalizer.get());
    return pipeline;
}

std::unique_ptr<TokenizerPipeline> loadWordPieceVocab(const QString& vocabPath, bool lowercase)
{
    const QByteArray data = readFile(vocabPath, kMaxVocabularyFileBytes);
    Vocabulary vocab;
    const QList<QByteArray> lines = data.split('\n');
    int id = 0;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (i == lines.size() - 1 && line.isEmpty())
            break; // the newline at the end of the file
        if (line.endsWith('\r'))
            line.chop(1);
        vocab.insert(u32(QString::fromUtf8(line)), id++);
    }
    if (vocab.size() == 0)
        fail(vocabPath, QStringLiteral("the vocabulary is empty"));
    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = vocabPath;
    const std::u32string unk = U"[UNK]";
    auto model = std::make_unique<WordPieceModel>(std::move(vocab), unk, U"##", 100);
    pipeline->normalizer = std::make_unique<BertNormalizer>(true, true, std::nullopt, lowercase);
    pipeline->preTokenizer = std::make_unique<BertPreTokenizer>();
    pipeline->decoder = std::make_unique<WordPieceDecoder>(U"##", true);
    const std::optional<int> cls = model->tokenToId(U"[CLS]");
    const std::optional<int> sep = model->tokenToId(U"[SEP]");
    if (cls && sep)
        pipeline->postProcessor = std::make_unique<BertProcessor>(IdToken{U"[SEP]", *sep}, IdToken{U"[CLS]", *cls});
    std::vector<AddedToken> added;
    for (const char32_t* name : {U"[PAD]", U"[UNK]", U"[CLS]", U"[SEP]", U"[MASK]"}) {
        if (const std::optional<int> tokenId = model->tokenToId(name)) {
            AddedToken t;
            t.id = *tokenId;
            t.content = name;
            t.special = true;
            t.normalized = false;
            added.push_back(t);
        }
    }
    pipeline->model = std::move(model);
    pipeline->added.setTokens(std::move(added), pipeline->normalizer.get());
    return pipeline;
}

std::unique_ptr<TokenizerPipeline> loadByteLevelBpe(const QString& vocabPath, const QString& mergesPath,
                                                    bool addPrefixSpace)
{
    const QJsonDocument doc = readJson(vocabPath);
    JsonReader r(vocabPath);
    if (!doc.isObject())
        fail(vocabPath, QStringLiteral("expected a JSON object mapping tokens to ids"));
    Vocabulary vocab = parseVocab(r, doc.object(), QStringLiteral("vocabulary"));

    const QByteArray data = readFile(mergesPath, kMaxVocabularyFileBytes);
    std::vector<std::pair<std::u32string, std::u32string>> merges;
    const QList<QByteArray> lines = data.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        QByteArray line = lines[i];
        if (line.endsWith('\r'))
            line.chop(1);
        if (line.startsWith("#version") || line.isEmpty())
            continue;
        const QList<QByteArray> parts = line.split(' ');
        if (parts.size() != 2)
            fail(mergesPath, QStringLiteral("line %1: expected two tokens separated by a space").arg(i + 1));
        merges.emplace_back(u32(QString::fromUtf8(parts[0])), u32(QString::fromUtf8(parts[1])));
    }
    auto pipeline = std::make_unique<TokenizerPipeline>();
    pipeline->path = vocabPath;
    try {
        pipeline->model = std::make_unique<BpeModel>(std::move(vocab), merges, BpeOptions{});
    } catch (const TokenizerError& e) {
        fail(mergesPath, QString::fromStdString(e.what()));
    }
    pipeline->preTokenizer = std::make_unique<ByteLevelPreTokenizer>(addPrefixSpace, true);
    pipeline->postProcessor = std::make_unique<ByteLevelProcessor>(false, true);
    pipeline->decoder = std::make_unique<ByteLevelDecoder>();
    std::vector<AddedToken> added;
    if (const std::optional<int> eot = pipeline->model->tokenToId(U"<|endoftext|>")) {
        AddedToken t;
        t.id = *eot;
        t.content = U"<|endoftext|>";
        t.special = true;
        t.normalized = true;
        added.push_back(t);
    }
    pipeline->added.setTokens(std::move(added), nullptr);
    return pipeline;
}

std::optional<QJsonObject> readTokenizerConfig(const QString& configPath)
{
    if (!QFileInfo(configPath).exists() && !QFileInfo(configPath).isSymLink()) return std::nullopt;
    const QJsonDocument doc = readJson(configPath);
    if (!doc.isObject()) fail(configPath, QStringLiteral("expected a JSON object at the top level"));
    return doc.object();
}

void applyTokenizerConfig(TokenizerPipeline& pipeline, const std::optional<QJsonObject>& tokenizerConfig,
                          bool addMissing)
{
    if (!tokenizerConfig) return;
    const QJsonObject& config = *tokenizerConfig;
    pipeline.bosToken = configToken(config, "bos_token");
    pipeline.eosToken = configToken(config, "eos_token");
    pipeline.unkToken = configToken(config, "unk_token");
    pipeline.sepToken = configToken(config, "sep_token");
    pipeline.padToken = configToken(config, "pad_token");
    pipeline.clsToken = configToken(config, "cls_token");
    pipeline.maskToken = configToken(config, "mask_token");
    if (!addMissing)
        return;
    std::vector<AddedToken> added = pipeline.added.tokens();
    for (const auto* name : {&pipeline.bosToken, &pipeline.eosToken, &pipeline.unkToken, &pipeline.sepToken,
                             &pipeline.padToken, &pipeline.clsToken, &pipeline.maskToken}) {
        if (!*name || pipeline.added.byContent(**name))
            continue;
        const std::optional<int> id = pipeline.model->tokenToId(**name);
        if (!id)
            continue;
        AddedToken t;
        t.id = *id;
        t.content = **name;
        t.special = true;
        t.normalized = false;
        added.push_back(t);
    }
    pipeline.added.setTokens(std::move(added), pipeline.normalizer.get());
}

} // namespace attnscope::tok
