#include "support/ggufwriter.h"

#include "model/safetensorsfile.h"
#include "support/testdata.h"

#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QtEndian>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <utility>

namespace attnscope::testing {

namespace {

template <typename T> void put(QByteArray& out, T value)
{
    char bytes[sizeof(T)];
    qToLittleEndian(value, bytes);
    out.append(bytes, sizeof(T));
}

// IEEE half, round to nearest even (normal range and subnormals; the test values stay far from overflow).
std::uint16_t toHalf(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    const std::uint32_t sign = (x >> 16) & 0x8000u;
    x &= 0x7fffffffu;
    if (x >= 0x47800000u) return std::uint16_t(sign | 0x7c00u); // too large: inf
    if (x < 0x33000000u) return std::uint16_t(sign);            // below half the smallest subnormal
    const int exponent = int(x >> 23) - 127;
    std::uint32_t mantissa = (x & 0x7fffffu) | 0x800000u;
    int shift = exponent < -14 ? 13 + (-14 - exponent) : 13;
    std::uint32_t half = exponent < -14 ? 0 : std::uint32_t(exponent + 15) << 10;
    const std::uint32_t rounded = mantissa >> shift;
    const std::uint32_t rest = mantissa & ((1u << shift) - 1);
    const std::uint32_t halfway = 1u << (shift - 1);
    std::uint32_t value = half + (exponent < -14 ? rounded : (rounded & 0x3ffu));
    if (rest > halfway || (rest == halfway && (rounded & 1))) ++value;
    return std::uint16_t(sign | value);
}

std::uint16_t toBfloat16(float f)
{
    std::uint32_t x;
    std::memcpy(&x, &f, 4);
    x += 0x7fffu + ((x >> 16) & 1u);
    return std::uint16_t(x >> 16);
}

void putHalf(QByteArray& out, float f)
{
    put<std::uint16_t>(out, toHalf(f));
}

float roundTrip(float f)
{
    return halfToFloat(toHalf(f));
}

int nearest(float v)
{
    return int(std::lround(v));
}

// A block's 32 quants (0..31): for the 5-bit types the fifth bits first, as one u32 (bit i for quant i), then
// the low nibbles two a byte, quant j with quant j + 16.
void putQuants32(QByteArray& out, const int* q, bool fifthBits)
{
    if (fifthBits) {
        std::uint32_t qh = 0;
        for (int i = 0; i < 32; ++i)
            qh |= std::uint32_t((q[i] >> 4) & 1) << i;
        put<std::uint32_t>(out, qh);
    }
    for (int j = 0; j < 16; ++j)
        out.append(char((q[j] & 0xF) | ((q[j + 16] & 0xF) << 4)));
}

// Q4_0/Q4_1/Q5_0/Q5_1/Q8_0 for one block of 32.
void block32(GgmlType type, const float* x, QByteArray& out)
{
    float lo = x[0], hi = x[0], amax = 0;
    for (int i = 0; i < 32; ++i) {
        lo = std::min(lo, x[i]);
        hi = std::max(hi, x[i]);
        amax = std::max(amax, std::abs(x[i]));
    }
    switch (type) {
    case GgmlType::Q8_0: {
        const float d = roundTrip(amax / 127.0f);
        putHalf(out, d);
        for (int i = 0; i < 32; ++i)
            out.append(char(std::int8_t(d == 0 ? 0 : std::clamp(nearest(x[i] / d), -127, 127))));
        return;
    }
    case GgmlType::Q4_0:
    case GgmlType::Q5_0: {
        const int levels = type == GgmlType::Q4_0 ? 8 : 16; // q − levels in [−levels, levels − 1]
        const float d = roundTrip(amax / float(levels - 1));
        int q[32];
        for (int i = 0; i < 32; ++i)
            q[i] = (d == 0 ? 0 : std::clamp(nearest(x[i] / d), -levels, levels - 1)) + levels;
        putHalf(out, d);
        putQuants32(out, q, type == GgmlType::Q5_0);
        return;
    }
    case GgmlType::Q4_1:
    case GgmlType::Q5_1: {
        const int top = type == GgmlType::Q4_1 ? 15 : 31;
        const float d = roundTrip((hi - lo) / float(top));
        const float m = roundTrip(lo);
        int q[32];
        for (int i = 0; i < 32; ++i)
            q[i] = d == 0 ? 0 : std::clamp(nearest((x[i] - m) / d), 0, top);
        putHalf(out, d);
        putHalf(out, m);
        putQuants32(out, q, type == GgmlType::Q5_1);
        return;
    }
    default:
        qFatal("block32: not a 32-element type");
    }
}

// Affine sub-blocks (Q2_K, Q4_K, Q5_K): value = d·sc·q − dmin·m with q in [0, top], sc and m in [0,
// scaleTop].
struct Affine
{
    float d, dmin;
    std::vector<int> sc, m, q;
};

Affine affine(const float* x, int subBlocks, int subSize, int top, int scaleTop)
{
    std::vector<float> scale(static_cast<size_t>(subBlocks)), offset(static_cast<size_t>(subBlocks));
    for (int s = 0; s < subBlocks; ++s) {
        float lo = 0, hi = x[s * subSize];
        for (int i = 0; i < subSize; ++i) {
            lo = std::min(lo, x[s * subSize + i]);
            hi = std::max(hi, x[s * subSize + i]);
        }
        scale[size_t(s)] = (hi - lo) / float(top);
        offset[size_t(s)] = -lo;
    }
    Affine a;
    a.d = roundTrip(*std::max_element(scale.begin(), scale.end()) / float(scaleTop));
    a.dmin = roundTrip(*std::max_element(offset.begin(), offset.end()) / float(scaleTop));
    for (int s = 0; s < subBlocks; ++s) {
        const int sc = a.d == 0 ? 0 : std::clamp(nearest(scale[size_t(s)] / a.d), 0, scaleTop);
        const int m = a.dmin == 0 ? 0 : std::clamp(nearest(offset[size_t(s)] / a.dmin), 0, scaleTop);
        a.sc.push_back(sc);
        a.m.push_back(m);
        const float step = a.d * float(sc), base = a.dmin * float(m);
        for (int i = 0; i < subSize; ++i)
            a.q.push_back(step == 0 ? 0 : std::clamp(nearest((x[s * subSize + i] + base) / step), 0, top));
    }
    return a;
}

// Symmetric sub-blocks (Q3_K, Q6_K): value = d·sc·q with q in [−qLevels, qLevels − 1], sc in [scaleLo,
// scaleHi].
struct Symmetric
{
    float d;
    std::vector<int> sc, q;
};

Symmetric symmetric(const float* x, int subBlocks, int subSize, int qLevels, int scaleHi)
{
    std::vector<float> scale(static_cast<size_t>(subBlocks));
    for (int s = 0; s < subBlocks; ++s) {
        float amax = 0;
        for (int i = 0; i < subSize; ++i)
            amax = std::max(amax, std::abs(x[s * subSize + i]));
        scale[size_t(s)] = amax / float(qLevels - 1);
    }
    Symmetric r;
    r.d = roundTrip(*std::max_element(scale.begin(), scale.end()) / float(scaleHi));
    for (int s = 0; s < subBlocks; ++s) {
        const int sc = r.d == 0 ? 0 : std::clamp(nearest(scale[size_t(s)] / r.d), 0, scaleHi);
        r.sc.push_back(sc);
        const float step = r.d * float(sc);
        for (int i = 0; i < subSize; ++i)
            r.q.push_back(step == 0 ? 0
                                    : std::clamp(nearest(x[s * subSize + i] / step), -qLevels, qLevels - 1));
    }
    return r;
}

// The 12 scale bytes of Q4_K/Q5_K for eight 6-bit scales and mins (the inverse of ggml's get_scale_min_k4).
QByteArray packScalesK4(const std::vector<int>& sc, const std::vector<int>& m)
{
    unsigned char b[12] = {};
    for (int j = 0; j < 8; ++j) {
        if (j < 4) {
            b[j] |= std::uint8_t(sc[size_t(j)] & 63);
            b[j + 4] |= std::uint8_t(m[size_t(j)] & 63);
        } else {
            b[j + 4] = std::uint8_t((sc[size_t(j)] & 0xF) | ((m[size_t(j)] & 0xF) << 4));
            b[j - 4] |= std::uint8_t((sc[size_t(j)] >> 4) << 6);
            b[j] |= std::uint8_t((m[size_t(j)] >> 4) << 6);
        }
    }
    return QByteArray(reinterpret_cast<const char*>(b), 12);
}

void blockK(GgmlType type, const float* x, QByteArray& out)
{
    switch (type) {
    case GgmlType::Q2_K: {
        const Affine a = affine(x, 16, 16, 3, 15);
        for (int s = 0; s < 16; ++s)
            out.append(char(a.sc[size_t(s)] | (a.m[size_t(s)] << 4)));
        // Element i = 128·h + 32·pass + 16·part + l is bits 2·pass of qs[32·h + 16·part + l].
        unsigned char qs[64] = {};
        for (int i = 0; i < 256; ++i) {
            const int h = i / 128, pass = (i % 128) / 32, within = i % 32;
            qs[32 * h + within] |= std::uint8_t(a.q[size_t(i)] << (2 * pass));
        }
        out.append(reinterpret_cast<const char*>(qs), 64);
        putHalf(out, a.d);
        putHalf(out, a.dmin);
        return;
    }
    case GgmlType::Q3_K: {
        const Symmetric r = symmetric(x, 16, 16, 4, 31);
        unsigned char hmask[32] = {}, qs[64] = {}, scales[12] = {};
        for (int i = 0; i < 256; ++i) {
            const int h = i / 128, pass = (i % 128) / 32, within = i % 32;
            const int stored = r.q[size_t(i)] + 4; // 0..7: 2 low bits + high bit
            qs[32 * h + within] |= std::uint8_t((stored & 3) << (2 * pass));
            if (stored & 4) hmask[within] |= std::uint8_t(1u << (4 * h + pass));
        }
        for (int j = 0; j < 16; ++j) {
            const int s = r.sc[size_t(j)] + 32; // 6 bits
            if (j < 8)
                scales[j] |= std::uint8_t(s & 0xF);
            else
                scales[j - 8] |= std::uint8_t((s & 0xF) << 4);
            scales[8 + j % 4] |= std::uint8_t(((s >> 4) & 3) << (2 * (j / 4)));
        }
        out.append(reinterpret_cast<const char*>(hmask), 32);
        out.append(reinterpret_cast<const char*>(qs), 64);
        out.append(reinterpret_cast<const char*>(scales), 12);
        putHalf(out, r.d);
        return;
    }
    case GgmlType::Q4_K:
    case GgmlType::Q5_K: {
        const bool five = type == GgmlType::Q5_K;
        const Affine a = affine(x, 8, 32, five ? 31 : 15, 63);
        putHalf(out, a.d);
        putHalf(out, a.dmin);
        out.append(packScalesK4(a.sc, a.m));
        unsigned char qh[32] = {}, qs[128] = {};
        for (int i = 0; i < 256; ++i) {
            const int sub = i / 32, l = i % 32, chunk = sub / 2;
            const int q = a.q[size_t(i)];
            qs[32 * chunk + l] |= std::uint8_t((q & 0xF) << (4 * (sub % 2)));
            if (five && (q & 16)) qh[l] |= std::uint8_t(1u << sub);
        }
        if (five) out.append(reinterpret_cast<const char*>(qh), 32);
        out.append(reinterpret_cast<const char*>(qs), 128);
        return;
    }
    case GgmlType::Q6_K: {
        const Symmetric r = symmetric(x, 16, 16, 32, 127);
        unsigned char ql[128] = {}, qh[64] = {};
        for (int i = 0; i < 256; ++i) {
            const int h = i / 128, k = i % 128, quarter = k / 32, l = k % 32;
            const int q = r.q[size_t(i)] + 32; // 0..63
            // quarter 0: ql[l] low, 1: ql[l + 32] low, 2: ql[l] high, 3: ql[l + 32] high; qh bits 2·quarter.
            const int qlIndex = 64 * h + l + (quarter % 2) * 32;
            ql[qlIndex] |= std::uint8_t((q & 0xF) << (4 * (quarter / 2)));
            qh[32 * h + l] |= std::uint8_t(((q >> 4) & 3) << (2 * quarter));
        }
        out.append(reinterpret_cast<const char*>(ql), 128);
        out.append(reinterpret_cast<const char*>(qh), 64);
        for (int s = 0; s < 16; ++s)
            out.append(char(std::int8_t(r.sc[size_t(s)])));
        putHalf(out, r.d);
        return;
    }
    default:
        qFatal("blockK: not a K-quant type");
    }
}

// llama.cpp's LlamaModel.permute: rows of each head reordered from (i, i + d/2) pairs to (2i, 2i + 1).
std::vector<float> permuteForLlamaCpp(const std::vector<float>& w, qint64 rows, qint64 cols, int heads)
{
    std::vector<float> out(w.size());
    const qint64 d = rows / heads;
    for (qint64 r = 0; r < rows; ++r) {
        const qint64 h = r / d, i = r % d;
        const qint64 j = i / (d / 2), k = i % (d / 2); // HF row h·d + j·d/2 + k
        const qint64 to = h * d + 2 * k + j;
        std::copy_n(w.data() + r * cols, cols, out.data() + to * cols);
    }
    return out;
}

std::vector<float> transposed(const std::vector<float>& w, qint64 rows, qint64 cols)
{
    std::vector<float> out(w.size());
    for (qint64 r = 0; r < rows; ++r)
        for (qint64 c = 0; c < cols; ++c)
            out[size_t(c * rows + r)] = w[size_t(r * cols + c)];
    return out;
}

// The GGUF name of a Llama / GPT-2 tensor (llama.cpp's tensor_mapping), "" for tensors the converter drops.
QString ggufName(const QString& hf)
{
    static const std::pair<const char*, const char*> kParts[] = {
        {"input_layernorm.weight", "attn_norm.weight"},
        {"post_attention_layernorm.weight", "ffn_norm.weight"},
        {"self_attn.q_proj.", "attn_q."},
        {"self_attn.k_proj.", "attn_k."},
        {"self_attn.v_proj.", "attn_v."},
        {"self_attn.o_proj.", "attn_output."},
        {"mlp.gate_proj.", "ffn_gate."},
        {"mlp.up_proj.", "ffn_up."},
        {"mlp.down_proj.", "ffn_down."},
        {"ln_1.", "attn_norm."},
        {"ln_2.", "ffn_norm."},
        {"attn.c_attn.", "attn_qkv."},
        {"attn.c_proj.", "attn_output."},
        {"mlp.c_fc.", "ffn_up."},
        {"mlp.c_proj.", "ffn_down."},
    };
    static const std::pair<const char*, const char*> kWhole[] = {
        {"model.embed_tokens.weight", "token_embd.weight"},
        {"model.norm.weight", "output_norm.weight"},
        {"lm_head.weight", "output.weight"},
        {"transformer.wte.weight", "token_embd.weight"},
        {"transformer.wpe.weight", "position_embd.weight"},
        {"transformer.ln_f.weight", "output_norm.weight"},
        {"transformer.ln_f.bias", "output_norm.bias"},
    };
    for (const auto& [from, to] : kWhole)
        if (hf == QLatin1String(from)) return QLatin1String(to);
    static const QRegularExpression layer(
        QStringLiteral("^(?:model\\.layers|transformer\\.h)\\.(\\d+)\\.(.*)$"));
    const QRegularExpressionMatch m = layer.match(hf);
    if (!m.hasMatch()) return {};
    QString rest = m.captured(2);
    for (const auto& [from, to] : kParts)
        if (rest.startsWith(QLatin1String(from))) {
            rest.replace(0, int(std::strlen(from)), QLatin1String(to));
            return QStringLiteral("blk.%1.").arg(m.captured(1)) + rest;
        }
    return {};
}

} // namespace

// tokenizer.ggml.* from a byte-level BPE tokenizer.json (as llama.cpp's _set_vocab_gpt2 writes them).
void addGpt2Vocabulary(GgufWriter& w, const QJsonObject& root, const QString& pre)
{
    const QJsonObject model = root.value(QStringLiteral("model")).toObject();
    const QJsonObject vocab = model.value(QStringLiteral("vocab")).toObject();
    QStringList tokens;
    for (auto it = vocab.begin(); it != vocab.end(); ++it) {
        const int id = it.value().toInt();
        while (tokens.size() <= id)
            tokens << QStringLiteral("[PAD%1]").arg(tokens.size());
        tokens[id] = it.key();
    }
    std::vector<std::int32_t> types(size_t(tokens.size()), 1);
    for (const QJsonValue& a : root.value(QStringLiteral("added_tokens")).toArray()) {
        const QJsonObject t = a.toObject();
        const int id = t.value(QStringLiteral("id")).toInt();
        while (tokens.size() <= id) {
            tokens << QStringLiteral("[PAD%1]").arg(tokens.size());
            types.push_back(1);
        }
        tokens[id] = t.value(QStringLiteral("content")).toString();
        types[size_t(id)] = t.value(QStringLiteral("special")).toBool() ? 3 : 4;
    }
    QStringList merges;
    for (const QJsonValue& m : model.value(QStringLiteral("merges")).toArray())
        merges << (m.isString()
                       ? m.toString()
                       : m.toArray().at(0).toString() + QLatin1Char(' ') + m.toArray().at(1).toString());
    w.addString(QStringLiteral("tokenizer.ggml.model"), QStringLiteral("gpt2"));
    w.addString(QStringLiteral("tokenizer.ggml.pre"), pre);
    w.addStringArray(QStringLiteral("tokenizer.ggml.tokens"), tokens);
    w.addI32Array(QStringLiteral("tokenizer.ggml.token_type"), types);
    w.addStringArray(QStringLiteral("tokenizer.ggml.merges"), merges);
}

QByteArray GgufWriter::encodeString(const QString& s)
{
    const QByteArray utf8 = s.toUtf8();
    QByteArray out;
    put<std::uint64_t>(out, std::uint64_t(utf8.size()));
    return out + utf8;
}

void GgufWriter::addRaw(const QString& key, std::uint32_t valueType, const QByteArray& encodedValue)
{
    m_kv += encodeString(key);
    put<std::uint32_t>(m_kv, valueType);
    m_kv += encodedValue;
    ++m_kvCount;
}

void GgufWriter::addString(const QString& key, const QString& value)
{
    addRaw(key, 8, encodeString(value));
}

void GgufWriter::addU32(const QString& key, std::uint32_t value)
{
    QByteArray b;
    put(b, value);
    addRaw(key, 4, b);
}

void GgufWriter::addI32(const QString& key, std::int32_t value)
{
    QByteArray b;
    put(b, value);
    addRaw(key, 5, b);
}

void GgufWriter::addU64(const QString& key, std::uint64_t value)
{
    QByteArray b;
    put(b, value);
    addRaw(key, 10, b);
}

void GgufWriter::addF32(const QString& key, float value)
{
    QByteArray b;
    put(b, value);
    addRaw(key, 6, b);
}

void GgufWriter::addBool(const QString& key, bool value)
{
    addRaw(key, 7, QByteArray(1, value ? '\1' : '\0'));
}

void GgufWriter::addStringArray(const QString& key, const QStringList& values)
{
    QByteArray b;
    put<std::uint32_t>(b, 8);
    put<std::uint64_t>(b, std::uint64_t(values.size()));
    for (const QString& v : values)
        b += encodeString(v);
    addRaw(key, 9, b);
}

void GgufWriter::addF32Array(const QString& key, const std::vector<float>& values)
{
    QByteArray b;
    put<std::uint32_t>(b, 6);
    put<std::uint64_t>(b, values.size());
    for (float v : values)
        put(b, v);
    addRaw(key, 9, b);
}

void GgufWriter::addI32Array(const QString& key, const std::vector<std::int32_t>& values)
{
    QByteArray b;
    put<std::uint32_t>(b, 5);
    put<std::uint64_t>(b, values.size());
    for (std::int32_t v : values)
        put(b, v);
    addRaw(key, 9, b);
}

void GgufWriter::addTensor(const QString& name, const std::vector<std::int64_t>& ne, std::uint32_t type,
                           const QByteArray& data)
{
    m_tensors.push_back({name, ne, type, data});
}

void GgufWriter::addFloatTensor(const QString& name, const std::vector<qint64>& torchShape,
                                const std::vector<float>& values, GgmlType type)
{
    std::vector<std::int64_t> ne(torchShape.rbegin(), torchShape.rend());
    addTensor(name, ne, std::uint32_t(type), quantize(type, values.data(), std::int64_t(values.size())));
}

QByteArray GgufWriter::build(std::uint32_t alignment) const
{
    QByteArray out("GGUF");
    put<std::uint32_t>(out, m_version);
    put<std::uint64_t>(out, m_tensors.size());
    put<std::uint64_t>(out, m_kvCount);
    out += m_kv;
    std::uint64_t offset = 0;
    std::vector<std::uint64_t> offsets;
    for (const Tensor& t : m_tensors) {
        out += encodeString(t.name);
        put<std::uint32_t>(out, std::uint32_t(t.ne.size()));
        for (std::int64_t n : t.ne)
            put<std::uint64_t>(out, std::uint64_t(n));
        put<std::uint32_t>(out, t.type);
        put<std::uint64_t>(out, offset);
        offsets.push_back(offset);
        offset += (std::uint64_t(t.data.size()) + alignment - 1) / alignment * alignment;
    }
    while (out.size() % alignment != 0)
        out.append('\0');
    for (const Tensor& t : m_tensors) {
        out += t.data;
        while (out.size() % alignment != 0)
            out.append('\0');
    }
    return out;
}

void GgufWriter::write(const QString& path, std::uint32_t alignment) const
{
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(build(alignment)) < 0)
        qFatal("cannot write %s", qPrintable(path));
}

QByteArray quantize(GgmlType type, const float* values, std::int64_t count)
{
    QByteArray out;
    switch (type) {
    case GgmlType::F32:
        for (std::int64_t i = 0; i < count; ++i)
            put(out, values[i]);
        return out;
    case GgmlType::F16:
        for (std::int64_t i = 0; i < count; ++i)
            putHalf(out, values[i]);
        return out;
    case GgmlType::BF16:
        for (std::int64_t i = 0; i < count; ++i)
            put<std::uint16_t>(out, toBfloat16(values[i]));
        return out;
    default:
        break;
    }
    const GgmlTypeTraits traits = *ggmlTypeTraits(std::uint32_t(type));
    for (std::int64_t b = 0; b < count / traits.blockElements; ++b) {
        const float* x = values + b * traits.blockElements;
        if (traits.blockElements == 32)
            block32(type, x, out);
        else
            blockK(type, x, out);
    }
    return out;
}

std::vector<float> floatsOf(const TensorToWrite& tensor)
{
    qint64 count = 1;
    for (qint64 d : tensor.shape)
        count *= d;
    std::vector<float> out(static_cast<size_t>(count));
    const auto* in = reinterpret_cast<const unsigned char*>(tensor.data.constData());
    switch (tensor.dtype) {
    case TensorDtype::F32:
        std::memcpy(out.data(), in, size_t(count) * 4);
        break;
    case TensorDtype::F16:
        convertHalfToFloat(in, out.data(), count);
        break;
    case TensorDtype::BF16:
        convertBfloat16ToFloat(in, out.data(), count);
        break;
    default:
        qFatal("floatsOf: not a float tensor");
    }
    return out;
}

// A GGUF file of an oracle case's weights, 2-D tensors stored as `type` (vectors stay F32, as llama.cpp keeps
// them), with llama.cpp's Q/K permutation (llama) or Conv1D transposition (gpt2).
void writeGgufFromFolder(const QString& folder, const QString& path, GgmlType type)
{
    const QString caseName = QFileInfo(folder).fileName();
    const QJsonObject config = readJsonObject(folder + QStringLiteral("/config.json"));
    const bool gpt2 = config.value(QStringLiteral("model_type")).toString() == QLatin1String("gpt2");
    GgufWriter w;
    const QString arch = gpt2 ? QStringLiteral("gpt2") : QStringLiteral("llama");
    w.addString(QStringLiteral("general.architecture"), arch);
    w.addString(QStringLiteral("general.name"), caseName);
    w.addU32(QStringLiteral("general.quantization_version"), 2);
    auto key = [&](const char* k) { return arch + QLatin1Char('.') + QLatin1String(k); };
    int heads = 0, kvHeads = 0;
    if (gpt2) {
        const int h = config.value(QStringLiteral("n_embd")).toInt();
        heads = config.value(QStringLiteral("n_head")).toInt();
        w.addU32(key("block_count"), std::uint32_t(config.value(QStringLiteral("n_layer")).toInt()));
        w.addU32(key("context_length"), std::uint32_t(config.value(QStringLiteral("n_positions")).toInt()));
        w.addU32(key("embedding_length"), std::uint32_t(h));
        w.addU32(key("feed_forward_length"), std::uint32_t(4 * h));
        w.addU32(key("attention.head_count"), std::uint32_t(heads));
        w.addF32(key("attention.layer_norm_epsilon"),
                 float(config.value(QStringLiteral("layer_norm_epsilon")).toDouble()));
        if (QFile::exists(folder + QStringLiteral("/tokenizer.json")))
            addGpt2Vocabulary(w, readJsonObject(folder + QStringLiteral("/tokenizer.json")),
                              QStringLiteral("gpt-2"));
    } else {
        const int h = config.value(QStringLiteral("hidden_size")).toInt();
        heads = config.value(QStringLiteral("num_attention_heads")).toInt();
        kvHeads = config.value(QStringLiteral("num_key_value_heads")).toInt();
        w.addU32(key("block_count"),
                 std::uint32_t(config.value(QStringLiteral("num_hidden_layers")).toInt()));
        w.addU32(key("context_length"),
                 std::uint32_t(config.value(QStringLiteral("max_position_embeddings")).toInt()));
        w.addU32(key("embedding_length"), std::uint32_t(h));
        w.addU32(key("feed_forward_length"),
                 std::uint32_t(config.value(QStringLiteral("intermediate_size")).toInt()));
        w.addU32(key("attention.head_count"), std::uint32_t(heads));
        w.addU32(key("attention.head_count_kv"), std::uint32_t(kvHeads));
        w.addU32(key("rope.dimension_count"), std::uint32_t(h / heads));
        w.addF32(key("rope.freq_base"), float(config.value(QStringLiteral("rope_theta")).toDouble()));
        w.addF32(key("attention.layer_norm_rms_epsilon"),
                 float(config.value(QStringLiteral("rms_norm_eps")).toDouble()));
    }
    const SafetensorsFile weights(folder + QStringLiteral("/model.safetensors"));
    for (const QString& hfName : weights.names()) {
        const TensorInfo& t = *weights.find(hfName);
        const QString name = ggufName(hfName);
        if (name.isEmpty()) continue;
        std::vector<float> values(static_cast<size_t>(t.elementCount()));
        weights.convertToFloat(t, values.data());
        std::vector<qint64> shape = t.shape;
        if (!gpt2 && (name.contains(QLatin1String("attn_q.")) || name.contains(QLatin1String("attn_k.")))) {
            const int groups = name.contains(QLatin1String("attn_q.")) ? heads : kvHeads;
            values = permuteForLlamaCpp(values, shape[0], shape.size() > 1 ? shape[1] : 1, groups);
        }
        if (gpt2 && shape.size() == 2 && !name.startsWith(QLatin1String("token_embd")) &&
            !name.startsWith(QLatin1String("position_embd"))) {
            values = transposed(values, shape[0], shape[1]);
            std::swap(shape[0], shape[1]);
        }
        w.addFloatTensor(name, shape, values, shape.size() == 2 ? type : GgmlType::F32);
    }
    w.write(path);
}

} // namespace attnscope::testing
