#include "model/ggufmodel.h"

#include "model/ggmlquants.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "tokenizer/ggufvocabulary.h"

#include <QJsonArray>
#include <charconv>
#include <functional>

namespace attnscope {

namespace {

// Reads "<arch>.<key>" metadata with messages naming the key.
class ArchMetadata
{
public:
    ArchMetadata(const GgufFile& file, QString arch) : m_file(file), m_arch(std::move(arch)) {}

    const GgufFile& file() const { return m_file; }
    QString key(const char* suffix) const { return m_arch + QLatin1Char('.') + QLatin1String(suffix); }
    [[noreturn]] void fail(const QString& problem) const { throw ModelError(m_file.displayPath(), problem); }

    int positive(const char* suffix) const
    {
        const std::optional<std::int64_t> v = m_file.integer(key(suffix));
        if (!v) fail(QStringLiteral("missing metadata %1").arg(key(suffix)));
        return checkedPositive(suffix, *v);
    }
    int positive(const char* suffix, int fallback) const
    {
        const std::optional<std::int64_t> v = m_file.integer(key(suffix));
        return v ? checkedPositive(suffix, *v) : fallback;
    }
    std::optional<double> number(const char* suffix) const { return m_file.number(key(suffix)); }
    // <arch>.block_count, checked before the layers' tensors are named (a count of 10^9 would otherwise
    // build 10^9 mappings): within config.json's limit, and no more layers than the file holds tensors.
    int layers() const
    {
        const int layers = positive("block_count");
        if (layers > kMaxLayers)
            fail(QStringLiteral("metadata %1 = %2 is more than AttnScope supports (at most %3)")
                     .arg(key("block_count"))
                     .arg(layers)
                     .arg(kMaxLayers));
        if (qint64(layers) > qint64(m_file.tensors().size()))
            fail(QStringLiteral("metadata %1 = %2, but the file holds only %3 tensors in all")
                     .arg(key("block_count"))
                     .arg(layers)
                     .arg(m_file.tensors().size()));
        return layers;
    }

private:
    int checkedPositive(const char* suffix, std::int64_t v) const
    {
        if (v < 1 || v > 1'000'000'000)
            fail(QStringLiteral("metadata %1 = %2 is not a positive count").arg(key(suffix)).arg(v));
        return int(v);
    }

    const GgufFile& m_file;
    QString m_arch;
};

// A float32 from the file as the shortest decimal that reads back as the same float (1e-05, not
// 9.99999974738e-06), the way it was written in config.json before conversion.
double shortestDecimal(double value)
{
    const float f = float(value);
    char buffer[64];
    const std::to_chars_result result = std::to_chars(buffer, buffer + sizeof buffer, f);
    return QByteArray(buffer, int(result.ptr - buffer)).toDouble();
}

std::vector<qint64> reversedShape(const GgufTensor& t)
{
    return std::vector<qint64>(t.ne.rbegin(), t.ne.rend());
}

class Mapper
{
public:
    explicit Mapper(const GgufFile& file) : m_file(file) {}

    // Maps `gguf` to `hf` when the file has it; false when it does not.
    bool map(const QString& gguf, const QString& hf,
             GgufTensorMapping::Layout layout = GgufTensorMapping::Layout::AsStored, int ropeHeads = 0,
             float addend = 0.0f)
    {
        m_names.insert(hf, gguf);
        const GgufTensor* t = m_file.tensor(gguf);
        if (!t) return false;
        if (!ggmlTypeTraits(t->type))
            throw ModelError(
                m_file.displayPath(),
                QStringLiteral("tensor '%1' has type %2, which AttnScope does not convert (supported: %3)")
                    .arg(gguf, ggmlTypeName(t->type), supportedGgmlTypeNames()));
        GgufTensorMapping m;
        m.hfName = hf;
        m.source = t;
        m.layout = layout;
        m.ropeHeads = ropeHeads;
        m.addend = addend;
        if (layout == GgufTensorMapping::Layout::Transposed) {
            if (t->ne.size() != 2)
                throw ModelError(m_file.displayPath(),
                                 QStringLiteral("tensor '%1' has shape %2; expected 2 dimensions")
                                     .arg(gguf, t->shapeText()));
            m.hfShape = {t->ne[0], t->ne[1]};
        } else {
            m.hfShape = reversedShape(*t);
        }
        if (layout == GgufTensorMapping::Layout::InterleavedRopeRows) {
            const qint64 rows = m.hfShape.front();
            if (ropeHeads <= 0 || rows % (2 * ropeHeads) != 0)
                throw ModelError(
                    m_file.displayPath(),
                    QStringLiteral("tensor '%1' has %2 rows, not a whole number of %3 heads of even size")
                        .arg(gguf)
                        .arg(rows)
                        .arg(ropeHeads));
        }
        m_tensors.push_back(std::move(m));
        return true;
    }
    bool has(const QString& gguf) const { return m_file.tensor(gguf) != nullptr; }
    std::vector<GgufTensorMapping> take() { return std::move(m_tensors); }
    QHash<QString, QString> takeNames() { return std::move(m_names); }

private:
    const GgufFile& m_file;
    std::vector<GgufTensorMapping> m_tensors;
    QHash<QString, QString> m_names; // every map() asked for: Hugging Face name -> GGUF name
};

QString blk(int layer, const char* rest)
{
    return QStringLiteral("blk.%1.").arg(layer) + QLatin1String(rest);
}

// ---------------------------------------------------------------- the RMSNorm + RoPE + gated-MLP families
// llama (Llama 1/2/3, Mistral, converted through LlamaModel), qwen2 and gemma share llama.cpp's tensor
// names; they differ in the Q/K permutation, the norm offset, the biases and their config.

struct LlamaLikeQuirks
{
    const char* modelType;
    const char* hfClass;
    bool permutedQueryKey; // llama: rows interleaved for llama.cpp's RoPE
    float normAddend;      // gemma: −1
    const char* activationKey;
    const char* activation;
};

GgufModelDescription describeLlamaLike(const GgufFile& file, const QString& arch,
                                       const LlamaLikeQuirks& quirks)
{
    const ArchMetadata meta(file, arch);
    const int layers = meta.layers();
    const int hidden = meta.positive("embedding_length");
    const int heads = meta.positive("attention.head_count");
    const int kvHeads = meta.positive("attention.head_count_kv", heads);
    const int headDim = meta.positive("attention.key_length", hidden / heads);
    const int ropeDims = meta.positive("rope.dimension_count", headDim);
    if (ropeDims != headDim)
        meta.fail(QStringLiteral("%1 = %2 rotates part of each head of %3; partial rotary embeddings are not "
                                 "supported for this architecture")
                      .arg(meta.key("rope.dimension_count"))
                      .arg(ropeDims)
                      .arg(headDim));
    if (file.tensor(QStringLiteral("rope_freqs.weight")))
        meta.fail(
            QStringLiteral("rope_freqs.weight (Llama 3.1-style RoPE frequency factors) is not supported yet "
                           "for GGUF files"));

    const GgufTensor* embedding = file.tensor(QStringLiteral("token_embd.weight"));
    if (!embedding || embedding->ne.size() != 2)
        meta.fail(QStringLiteral("no 2-dimensional token_embd.weight tensor"));

    QJsonObject c;
    c.insert(QStringLiteral("architectures"), QJsonArray{QLatin1String(quirks.hfClass)});
    c.insert(QStringLiteral("model_type"), QLatin1String(quirks.modelType));
    c.insert(QStringLiteral("num_hidden_layers"), layers);
    c.insert(QStringLiteral("hidden_size"), hidden);
    c.insert(QStringLiteral("intermediate_size"), meta.positive("feed_forward_length"));
    c.insert(QStringLiteral("num_attention_heads"), heads);
    c.insert(QStringLiteral("num_key_value_heads"), kvHeads);
    c.insert(QStringLiteral("head_dim"), headDim);
    c.insert(QStringLiteral("vocab_size"), double(embedding->ne[1]));
    c.insert(QStringLiteral("max_position_embeddings"), meta.positive("context_length", 2048));
    c.insert(QStringLiteral("rms_norm_eps"),
             shortestDecimal(meta.number("attention.layer_norm_rms_epsilon").value_or(1e-6)));
    c.insert(QStringLiteral("rope_theta"), shortestDecimal(meta.number("rope.freq_base").value_or(10000.0)));
    c.insert(QLatin1String(quirks.activationKey), QLatin1String(quirks.activation));
    const bool tied = !file.tensor(QStringLiteral("output.weight"));
    c.insert(QStringLiteral("tie_word_embeddings"), tied);
    const bool qBias = file.tensor(QStringLiteral("blk.0.attn_q.bias")) != nullptr;
    if (QLatin1String(quirks.modelType) == QLatin1String("llama")) {
        c.insert(QStringLiteral("attention_bias"), qBias);
        c.insert(QStringLiteral("mlp_bias"), file.tensor(QStringLiteral("blk.0.ffn_gate.bias")) != nullptr);
    }
    const std::optional<QString> scaling = file.string(meta.key("rope.scaling.type"));
    std::optional<double> factor = meta.number("rope.scaling.factor");
    if (!factor) factor = meta.number("rope.scale_linear");
    if (scaling && *scaling == QLatin1String("yarn")) {
        c.insert(QStringLiteral("rope_scaling"),
                 QJsonObject{{QStringLiteral("type"), QStringLiteral("yarn")},
                             {QStringLiteral("factor"), shortestDecimal(factor.value_or(1.0))},
                             {QStringLiteral("original_max_position_embeddings"),
                              meta.positive("rope.scaling.original_context_length")}});
    } else if ((scaling && *scaling == QLatin1String("linear")) || (!scaling && factor && *factor != 1.0)) {
        c.insert(QStringLiteral("rope_scaling"),
                 QJsonObject{{QStringLiteral("type"), QStringLiteral("linear")},
                             {QStringLiteral("factor"), shortestDecimal(*factor)}});
    } else if (scaling && *scaling != QLatin1String("none")) {
        meta.fail(QStringLiteral("rope scaling type '%1' is not supported for GGUF files").arg(*scaling));
    }

    Mapper m(file);
    using Layout = GgufTensorMapping::Layout;
    const QString model = QStringLiteral("model.");
    m.map(QStringLiteral("token_embd.weight"), model + QStringLiteral("embed_tokens.weight"));
    m.map(QStringLiteral("output_norm.weight"), model + QStringLiteral("norm.weight"), Layout::AsStored, 0,
          quirks.normAddend);
    if (!tied) m.map(QStringLiteral("output.weight"), QStringLiteral("lm_head.weight"));
    const Layout qkLayout = quirks.permutedQueryKey ? Layout::InterleavedRopeRows : Layout::AsStored;
    for (int l = 0; l < layers; ++l) {
        const QString hf = model + QStringLiteral("layers.%1.").arg(l);
        m.map(blk(l, "attn_norm.weight"), hf + QStringLiteral("input_layernorm.weight"), Layout::AsStored, 0,
              quirks.normAddend);
        m.map(blk(l, "ffn_norm.weight"), hf + QStringLiteral("post_attention_layernorm.weight"),
              Layout::AsStored, 0, quirks.normAddend);
        for (const char* kind : {"weight", "bias"}) {
            const QString suffix = QLatin1Char('.') + QLatin1String(kind);
            m.map(blk(l, "attn_q") + suffix, hf + QStringLiteral("self_attn.q_proj") + suffix, qkLayout,
                  heads);
            m.map(blk(l, "attn_k") + suffix, hf + QStringLiteral("self_attn.k_proj") + suffix, qkLayout,
                  kvHeads);
            m.map(blk(l, "attn_v") + suffix, hf + QStringLiteral("self_attn.v_proj") + suffix);
            m.map(blk(l, "attn_output") + suffix, hf + QStringLiteral("self_attn.o_proj") + suffix);
            m.map(blk(l, "ffn_gate") + suffix, hf + QStringLiteral("mlp.gate_proj") + suffix);
            m.map(blk(l, "ffn_up") + suffix, hf + QStringLiteral("mlp.up_proj") + suffix);
            m.map(blk(l, "ffn_down") + suffix, hf + QStringLiteral("mlp.down_proj") + suffix);
        }
    }
    std::vector<GgufTensorMapping> tensors = m.take();
    return {arch, c, std::move(tensors), m.takeNames()};
}

// ---------------------------------------------------------------- gpt2

GgufModelDescription describeGpt2(const GgufFile& file, const QString& arch)
{
    const ArchMetadata meta(file, arch);
    const int layers = meta.layers();
    const int hidden = meta.positive("embedding_length");
    const GgufTensor* embedding = file.tensor(QStringLiteral("token_embd.weight"));
    if (!embedding || embedding->ne.size() != 2)
        meta.fail(QStringLiteral("no 2-dimensional token_embd.weight tensor"));
    const GgufTensor* up = file.tensor(QStringLiteral("blk.0.ffn_up.weight"));
    QJsonObject c;
    c.insert(QStringLiteral("architectures"), QJsonArray{QStringLiteral("GPT2LMHeadModel")});
    c.insert(QStringLiteral("model_type"), QStringLiteral("gpt2"));
    c.insert(QStringLiteral("n_layer"), layers);
    c.insert(QStringLiteral("n_embd"), hidden);
    c.insert(QStringLiteral("n_head"), meta.positive("attention.head_count"));
    c.insert(QStringLiteral("n_inner"),
             up && up->ne.size() == 2 ? double(up->ne[1]) : double(meta.positive("feed_forward_length")));
    c.insert(QStringLiteral("n_positions"), meta.positive("context_length"));
    c.insert(QStringLiteral("vocab_size"), double(embedding->ne[1]));
    c.insert(QStringLiteral("layer_norm_epsilon"),
             shortestDecimal(meta.number("attention.layer_norm_epsilon").value_or(1e-5)));
    c.insert(QStringLiteral("activation_function"), QStringLiteral("gelu_new"));
    c.insert(QStringLiteral("tie_word_embeddings"), true);

    Mapper m(file);
    using Layout = GgufTensorMapping::Layout;
    const QString t = QStringLiteral("transformer.");
    m.map(QStringLiteral("token_embd.weight"), t + QStringLiteral("wte.weight"));
    m.map(QStringLiteral("position_embd.weight"), t + QStringLiteral("wpe.weight"));
    m.map(QStringLiteral("output_norm.weight"), t + QStringLiteral("ln_f.weight"));
    m.map(QStringLiteral("output_norm.bias"), t + QStringLiteral("ln_f.bias"));
    for (int l = 0; l < layers; ++l) {
        const QString hf = t + QStringLiteral("h.%1.").arg(l);
        for (const char* kind : {"weight", "bias"}) {
            const QString suffix = QLatin1Char('.') + QLatin1String(kind);
            const Layout conv1d =
                QLatin1String(kind) == QLatin1String("weight") ? Layout::Transposed : Layout::AsStored;
            m.map(blk(l, "attn_norm") + suffix, hf + QStringLiteral("ln_1") + suffix);
            m.map(blk(l, "ffn_norm") + suffix, hf + QStringLiteral("ln_2") + suffix);
            m.map(blk(l, "attn_qkv") + suffix, hf + QStringLiteral("attn.c_attn") + suffix, conv1d);
            m.map(blk(l, "attn_output") + suffix, hf + QStringLiteral("attn.c_proj") + suffix, conv1d);
            m.map(blk(l, "ffn_up") + suffix, hf + QStringLiteral("mlp.c_fc") + suffix, conv1d);
            m.map(blk(l, "ffn_down") + suffix, hf + QStringLiteral("mlp.c_proj") + suffix, conv1d);
        }
    }
    std::vector<GgufTensorMapping> tensors = m.take();
    return {arch, c, std::move(tensors), m.takeNames()};
}

struct GgufArchitecture
{
    const char* name;
    std::function<GgufModelDescription(const GgufFile&, const QString&)> describe;
};

const std::vector<GgufArchitecture>& architectures()
{
    static const std::vector<GgufArchitecture> list = {
        {"llama",
         [](const GgufFile& f, const QString& a) {
             return describeLlamaLike(f, a, {"llama", "LlamaForCausalLM", true, 0.0f, "hidden_act", "silu"});
         }},
        {"qwen2",
         [](const GgufFile& f, const QString& a) {
             return describeLlamaLike(f, a, {"qwen2", "Qwen2ForCausalLM", false, 0.0f, "hidden_act", "silu"});
         }},
        {"gemma",
         [](const GgufFile& f, const QString& a) {
             return describeLlamaLike(
                 f, a, {"gemma", "GemmaForCausalLM", false, -1.0f, "hidden_activation", "gelu_pytorch_tanh"});
         }},
        {"gpt2", describeGpt2},
    };
    return list;
}

} // namespace

QStringList supportedGgufArchitectures()
{
    QStringList names;
    for (const GgufArchitecture& a : architectures())
        names << QLatin1String(a.name);
    return names;
}

GgufModelDescription describeGgufModel(const GgufFile& file)
{
    const std::optional<QString> arch = file.string(QStringLiteral("general.architecture"));
    if (!arch)
        throw ModelError(file.displayPath(), QStringLiteral("no general.architecture in the metadata"));
    for (const GgufArchitecture& a : architectures())
        if (*arch == QLatin1String(a.name)) return a.describe(file, *arch);
    throw ModelError(file.displayPath(),
                     QStringLiteral("GGUF architecture '%1' is not supported (supported: %2)")
                         .arg(*arch, supportedGgufArchitectures().join(QStringLiteral(", "))));
}

GgufVocabulary readGgufVocabulary(const GgufFile& file)
{
    GgufVocabulary v;
    const QString p = QStringLiteral("tokenizer.ggml.");
    v.model = file.string(p + QStringLiteral("model")).value_or(QString());
    if (v.model.isEmpty()) return v;
    v.pre = file.string(p + QStringLiteral("pre")).value_or(QString());
    v.tokens = file.stringArray(p + QStringLiteral("tokens"));
    v.scores = file.floatArray(p + QStringLiteral("scores"));
    for (std::int32_t t : file.intArray(p + QStringLiteral("token_type")))
        v.tokenTypes.push_back(t);
    v.merges = file.stringArray(p + QStringLiteral("merges"));
    // An id outside the vocabulary is refused, naming the key: llama.cpp ignores it, and with add_bos_token
    // a bos_token_id of 2^31 silently dropped the BOS, so the model saw another input.
    auto id = [&](const char* key) -> std::optional<int> {
        const std::optional<std::int64_t> value = file.integer(p + QLatin1String(key));
        if (!value) return std::nullopt;
        if (*value < 0 || *value >= v.tokens.size())
            throw ModelError(
                file.displayPath(),
                QStringLiteral("metadata %1%2 = %3 is not a token id (the vocabulary has %4 tokens)")
                    .arg(p, QLatin1String(key))
                    .arg(*value)
                    .arg(v.tokens.size()));
        return int(*value);
    };
    v.bosId = id("bos_token_id");
    v.eosId = id("eos_token_id");
    v.unkId = id("unknown_token_id");
    v.padId = id("padding_token_id");
    v.sepId = id("seperator_token_id");
    if (!v.sepId) v.sepId = id("separator_token_id");
    v.addBos = file.boolean(p + QStringLiteral("add_bos_token"));
    v.addEos = file.boolean(p + QStringLiteral("add_eos_token"));
    v.addSpacePrefix = file.boolean(p + QStringLiteral("add_space_prefix"));
    v.huggingFaceJson = file.string(QStringLiteral("tokenizer.huggingface.json")).value_or(QString());
    return v;
}

} // namespace attnscope
