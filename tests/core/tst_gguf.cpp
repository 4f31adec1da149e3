// llama.cpp's GGUF files: ggml's block formats against values worked out by hand from the format; the
// reader on well-formed and damaged files written here; and GGUF files made from the oracle cases (as
// llama.cpp's converter makes them) giving the oracle's attention.

#include "core/support/modelfixtures.h"
#include "model/ggmlquants.h"
#include "model/gguffile.h"
#include "model/ggufmodel.h"
#include "model/modelerror.h"
#include "model/safetensorsfile.h"
#include "model/transformermodel.h"
#include "support/ggufwriter.h"
#include "support/testdata.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QByteArray halfBytes(std::uint16_t h)
{
    QByteArray b(2, '\0');
    qToLittleEndian(h, b.data());
    return b;
}

std::vector<float> dequantize(GgmlType type, const QByteArray& block, int elements)
{
    std::vector<float> out(static_cast<size_t>(elements));
    dequantizeRow(type, reinterpret_cast<const unsigned char*>(block.constData()), out.data(), elements);
    return out;
}

// ---------------------------------------------------------------- GGUF from an oracle case, as
// convert_hf_to_gguf.py

double meanAbsError(const AttentionMaps& maps, const NpyArray& expected)
{
    const int n = maps.queries();
    double sum = 0;
    qint64 count = 0;
    for (int l = 0; l < maps.layers(); ++l)
        for (int h = 0; h < maps.heads(); ++h) {
            const std::vector<float> p = maps.matrix(l, h);
            for (int i = 0; i < n * n; ++i, ++count)
                sum += std::abs(double(p[size_t(i)]) -
                                expected.values[size_t((qint64(l) * maps.heads() + h) * n * n + i)]);
        }
    return sum / double(count);
}

// The small random Llama (writeSmallLlama) written straight as GGUF, its matrices as `type`.
void writeRandomLlamaGguf(const QString& path, GgmlType type)
{
    std::mt19937 rng(1234);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    auto random = [&](qint64 count, float scale) {
        std::vector<float> v(static_cast<size_t>(count));
        for (float& x : v)
            x = scale * normal(rng);
        return v;
    };
    GgufWriter w;
    w.addString(QStringLiteral("general.architecture"), QStringLiteral("llama"));
    auto matrix = [&](const QString& name, qint64 rows, qint64 cols, float scale) {
        w.addFloatTensor(name, {rows, cols}, random(rows * cols, scale), type);
    };
    auto ones = [&](const QString& name, qint64 n) {
        w.addFloatTensor(name, {n}, std::vector<float>(size_t(n), 1.0f), GgmlType::F32);
    };
    writeSmallLlama(w, matrix, ones);
    w.write(path);
}

} // namespace

class TestGguf : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void knownBlocks();
    void kQuantBlocks();
    void quantizeRoundTrip_data();
    void quantizeRoundTrip();
    void metadataReadsBack_data();
    void metadataReadsBack();
    void damagedFilesAreRefused_data();
    void damagedFilesAreRefused();
    void unsupportedArchitecture();
    void oracleAttention_data();
    void oracleAttention();
    void kQuantAttention_data();
    void kQuantAttention();
    void tensorsAreNotConvertedUpFront();
    void mappingAsksForLargePages();
    void biasesAndTiedEmbeddings();
    void gemmaNormsAndQwen2Layout();
    void gpt2TokenizerFromMetadata();
    void tokenizerFromMetadata_data();
    void tokenizerFromMetadata();
    void overlappingTensorsAreRefused();
    void tokenIdsOutsideTheVocabularyAreRefused_data();
    void tokenIdsOutsideTheVocabularyAreRefused();
    void tensorsAreNamedAsTheFileNamesThem();
};

// Blocks of 32 built byte by byte; each expected value is worked out from the block's fields.
void TestGguf::knownBlocks()
{
    // Q8_0: d = 0.5 (f16 0x3800), q = i − 16.
    {
        QByteArray b = halfBytes(0x3800);
        for (int i = 0; i < 32; ++i)
            b.append(char(std::int8_t(i - 16)));
        const std::vector<float> y = dequantize(GgmlType::Q8_0, b, 32);
        for (int i = 0; i < 32; ++i)
            QCOMPARE(y[size_t(i)], 0.5f * float(i - 16));
    }
    // Q4_0: d = 0.25 (0x3400); byte j = low nibble j, high nibble 15 − j: element j = (j − 8)·0.25,
    // element j + 16 = (7 − j)·0.25.
    {
        QByteArray b = halfBytes(0x3400);
        for (int j = 0; j < 16; ++j)
            b.append(char(j | ((15 - j) << 4)));
        const std::vector<float> y = dequantize(GgmlType::Q4_0, b, 32);
        QCOMPARE(y[0], -2.0f);
        QCOMPARE(y[15], 1.75f);
        QCOMPARE(y[16], 1.75f);
        QCOMPARE(y[31], -2.0f);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(y[size_t(j)], 0.25f * float(j - 8));
            QCOMPARE(y[size_t(j + 16)], 0.25f * float(7 - j));
        }
    }
    // Q4_1: d = 0.5, m = −1 (0xBC00): element j = j·0.5 − 1, element j + 16 = (15 − j)·0.5 − 1.
    {
        QByteArray b = halfBytes(0x3800) + halfBytes(0xBC00);
        for (int j = 0; j < 16; ++j)
            b.append(char(j | ((15 - j) << 4)));
        const std::vector<float> y = dequantize(GgmlType::Q4_1, b, 32);
        QCOMPARE(y[0], -1.0f);
        QCOMPARE(y[16], 6.5f);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(y[size_t(j)], 0.5f * float(j) - 1.0f);
            QCOMPARE(y[size_t(j + 16)], 0.5f * float(15 - j) - 1.0f);
        }
    }
    // Q5_0: d = 0.125 (0x3000), qh = 0xAAAAAAAA (the fifth bit set for odd elements), byte j = j | (3j mod
    // 16) << 4.
    {
        QByteArray b = halfBytes(0x3000);
        b += QByteArray::fromHex("aaaaaaaa");
        for (int j = 0; j < 16; ++j)
            b.append(char(j | (((3 * j) & 15) << 4)));
        const std::vector<float> y = dequantize(GgmlType::Q5_0, b, 32);
        QCOMPARE(y[0], -2.0f);          // q = 0 → (0 − 16)·0.125
        QCOMPARE(y[1], 0.125f * 1.0f);  // q = 1 + 16
        QCOMPARE(y[17], 0.125f * 3.0f); // element 17: low nibble 3, fifth bit set → 19 − 16
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(y[size_t(j)], 0.125f * float((j | ((j & 1) << 4)) - 16));
            QCOMPARE(y[size_t(j + 16)], 0.125f * float((((3 * j) & 15) | ((j & 1) << 4)) - 16));
        }
    }
    // Q5_1: d = 0.25, m = 0.5, qh = 0x0000FFFF (fifth bit for elements 0-15 only).
    {
        QByteArray b = halfBytes(0x3400) + halfBytes(0x3800);
        b += QByteArray::fromHex("ffff0000");
        for (int j = 0; j < 16; ++j)
            b.append(char(j | (((3 * j) & 15) << 4)));
        const std::vector<float> y = dequantize(GgmlType::Q5_1, b, 32);
        QCOMPARE(y[0], 16 * 0.25f + 0.5f);
        QCOMPARE(y[31], 0.25f * float((3 * 15) & 15) + 0.5f);
        for (int j = 0; j < 16; ++j) {
            QCOMPARE(y[size_t(j)], 0.25f * float(j + 16) + 0.5f);
            QCOMPARE(y[size_t(j + 16)], 0.25f * float((3 * j) & 15) + 0.5f);
        }
    }
}

// Super-blocks of 256. The expected value of element i is worked out from where the format puts its
// quant bits and its sub-block's scale (see ggmlquants.h); a few are also written out as numbers.
void TestGguf::kQuantBlocks()
{
    auto byteAt = [](int k) { return std::uint8_t((k * 37 + 11) & 0xFF); }; // arbitrary, fixed quant bytes
    // Q2_K: scales[s] = (s mod 15 + 1) | (s mod 4) << 4; qs[k] = byteAt(k); d = 0.5, dmin = 0.25.
    {
        QByteArray b;
        for (int s = 0; s < 16; ++s)
            b.append(char((s % 15 + 1) | ((s % 4) << 4)));
        for (int k = 0; k < 64; ++k)
            b.append(char(byteAt(k)));
        b += halfBytes(0x3800) + halfBytes(0x3400);
        QCOMPARE(b.size(), 84);
        const std::vector<float> y = dequantize(GgmlType::Q2_K, b, 256);
        for (int i = 0; i < 256; ++i) {
            const int half = i / 128, pass = (i % 128) / 32, within = i % 32, sub = i / 16;
            const int q = (byteAt(32 * half + within) >> (2 * pass)) & 3;
            const float expected = 0.5f * float(sub % 15 + 1) * float(q) - 0.25f * float(sub % 4);
            QCOMPARE(y[size_t(i)], expected);
        }
        // Element 0: byte 11 = 0b00001011, bits 0-1 = 3; sub-block 0: scale 1, min 0 → 1.5.
        QCOMPARE(y[0], 1.5f);
    }
    // Q3_K: scale j (6 bits) = j + 20 stored as sc − 32 ... the block holds sc = j + 20, so the factor is j
    // − 12.
    {
        unsigned char hmask[32], qs[64], scales[12] = {};
        for (int k = 0; k < 32; ++k)
            hmask[k] = byteAt(k + 100);
        for (int k = 0; k < 64; ++k)
            qs[k] = byteAt(k);
        for (int j = 0; j < 16; ++j) {
            const int s = j + 20;
            if (j < 8)
                scales[j] |= std::uint8_t(s & 0xF);
            else
                scales[j - 8] |= std::uint8_t((s & 0xF) << 4);
            scales[8 + j % 4] |= std::uint8_t(((s >> 4) & 3) << (2 * (j / 4)));
        }
        QByteArray b(reinterpret_cast<const char*>(hmask), 32);
        b += QByteArray(reinterpret_cast<const char*>(qs), 64);
        b += QByteArray(reinterpret_cast<const char*>(scales), 12);
        b += halfBytes(0x3C00); // d = 1
        QCOMPARE(b.size(), 110);
        const std::vector<float> y = dequantize(GgmlType::Q3_K, b, 256);
        for (int i = 0; i < 256; ++i) {
            const int half = i / 128, pass = (i % 128) / 32, within = i % 32, sub = i / 16;
            const int low = (qs[32 * half + within] >> (2 * pass)) & 3;
            const bool high = hmask[within] & (1 << (4 * half + pass));
            QCOMPARE(y[size_t(i)], float(sub + 20 - 32) * float(low - (high ? 0 : 4)));
        }
        // Element 0: qs[0] = 11 → low 3; hmask[0] = byteAt(100) = 0x8F... bit 0 set → q = 3; scale 20 − 32.
        QCOMPARE(y[0], -36.0f);
    }
    // Q4_K / Q5_K: d = 1, dmin = 0.5; sub-block scales sc = {1, 2, 3, 4, 17, 18, 19, 20}, mins m = {0, 1, 2,
    // 3, 33, 34, 35, 36}; qs all 0x73 (low nibble 3, high 7); Q5_K: qh[l] = l (fifth bit of sub-block s = bit
    // s of l).
    for (const bool five : {false, true}) {
        const int sc[8] = {1, 2, 3, 4, 17, 18, 19, 20}, mn[8] = {0, 1, 2, 3, 33, 34, 35, 36};
        unsigned char packed[12] = {};
        for (int j = 0; j < 4; ++j) {
            packed[j] = std::uint8_t(sc[j] | ((sc[j + 4] >> 4) << 6));
            packed[j + 4] = std::uint8_t(mn[j] | ((mn[j + 4] >> 4) << 6));
            packed[j + 8] = std::uint8_t((sc[j + 4] & 0xF) | ((mn[j + 4] & 0xF) << 4));
        }
        QByteArray b = halfBytes(0x3C00) + halfBytes(0x3800);
        b += QByteArray(reinterpret_cast<const char*>(packed), 12);
        if (five)
            for (int l = 0; l < 32; ++l)
                b.append(char(l));
        b += QByteArray(128, char(0x73));
        QCOMPARE(b.size(), five ? 176 : 144);
        const std::vector<float> y = dequantize(five ? GgmlType::Q5_K : GgmlType::Q4_K, b, 256);
        for (int i = 0; i < 256; ++i) {
            const int sub = i / 32, l = i % 32;
            int q = sub % 2 == 0 ? 3 : 7;
            if (five && (l & (1 << sub))) q += 16;
            QCOMPARE(y[size_t(i)], 1.0f * float(sc[sub]) * float(q) - 0.5f * float(mn[sub]));
        }
        // Element 133 (sub-block 4, l = 5): 17·3 − 0.5·33 = 34.5; Q5_K: l = 5 has bit 4 clear → the same.
        QCOMPARE(y[133], 34.5f);
        // Element 48 (sub-block 1, l = 16): Q4_K 2·7 − 0.5 = 13.5; Q5_K bit 1 of 16 is clear → 13.5.
        QCOMPARE(y[48], 13.5f);
        // Element 18 (sub-block 0, l = 18 = 0b10010): Q5_K bit 0 clear → 3; element 19 (bit 0 set) → 19.
        QCOMPARE(y[19], five ? 19.0f : 3.0f);
    }
    // Q6_K: ql[k] = byteAt(k), qh[k] = byteAt(k + 7), scales[s] = s − 8 (int8), d = 0.5.
    {
        QByteArray b;
        for (int k = 0; k < 128; ++k)
            b.append(char(byteAt(k)));
        for (int k = 0; k < 64; ++k)
            b.append(char(byteAt(k + 7)));
        for (int s = 0; s < 16; ++s)
            b.append(char(std::int8_t(s - 8)));
        b += halfBytes(0x3800);
        QCOMPARE(b.size(), 210);
        const std::vector<float> y = dequantize(GgmlType::Q6_K, b, 256);
        for (int i = 0; i < 256; ++i) {
            const int half = i / 128, quarter = (i % 128) / 32, l = i % 32, sub = i / 16;
            const int qlByte = byteAt(64 * half + l + 32 * (quarter % 2));
            const int low = quarter < 2 ? (qlByte & 0xF) : (qlByte >> 4);
            const int high = (byteAt(32 * half + l + 7) >> (2 * quarter)) & 3;
            QCOMPARE(y[size_t(i)], 0.5f * float(sub - 8) * float((low | (high << 4)) - 32));
        }
    }
}

void TestGguf::quantizeRoundTrip_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("bound"); // largest |x − dequantized| allowed for values in [−1, 1]
    QTest::newRow("F32") << int(GgmlType::F32) << 0.0;
    QTest::newRow("F16") << int(GgmlType::F16) << 1.0 / 2048;
    QTest::newRow("BF16") << int(GgmlType::BF16) << 1.0 / 256;
    QTest::newRow("Q8_0") << int(GgmlType::Q8_0) << 1.0 / 127;
    QTest::newRow("Q5_0") << int(GgmlType::Q5_0) << 1.0 / 15 + 1e-3;
    QTest::newRow("Q5_1") << int(GgmlType::Q5_1) << 1.0 / 31 + 1e-3;
    QTest::newRow("Q4_0") << int(GgmlType::Q4_0) << 1.0 / 7 + 1e-3;
    QTest::newRow("Q4_1") << int(GgmlType::Q4_1) << 1.0 / 15 + 1e-3;
    QTest::newRow("Q6_K") << int(GgmlType::Q6_K) << 0.05;
    QTest::newRow("Q5_K") << int(GgmlType::Q5_K) << 0.1;
    QTest::newRow("Q4_K") << int(GgmlType::Q4_K) << 0.15;
    QTest::newRow("Q3_K") << int(GgmlType::Q3_K) << 0.35;
    QTest::newRow("Q2_K") << int(GgmlType::Q2_K) << 0.6;
}

// Whatever the scales, a value comes back within about one quantization step of [−1, 1] values.
void TestGguf::quantizeRoundTrip()
{
    QFETCH(int, type);
    QFETCH(double, bound);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(1024);
    for (float& v : x)
        v = u(rng);
    const QByteArray q = quantize(GgmlType(type), x.data(), 1024);
    const GgmlTypeTraits traits = *ggmlTypeTraits(std::uint32_t(type));
    QCOMPARE(q.size(), 1024 / traits.blockElements * traits.blockBytes);
    const std::vector<float> y = dequantize(GgmlType(type), q, 1024);
    double worst = 0;
    for (size_t i = 0; i < x.size(); ++i)
        worst = std::max(worst, std::abs(double(x[i]) - double(y[i])));
    QVERIFY2(
        worst <= bound,
        qPrintable(
            QStringLiteral("%1: max error %2 > %3").arg(QLatin1String(traits.name)).arg(worst).arg(bound)));
}

void TestGguf::metadataReadsBack_data()
{
    QTest::addColumn<int>("version");
    QTest::addColumn<int>("alignment");
    QTest::newRow("v3, alignment 32") << 3 << 32;
    QTest::newRow("v2, alignment 64") << 2 << 64;
}

void TestGguf::metadataReadsBack()
{
    QFETCH(int, version);
    QFETCH(int, alignment);
    QTemporaryDir dir;
    GgufWriter w(static_cast<std::uint32_t>(version));
    w.addString(QStringLiteral("general.name"), QStringLiteral("çalışma ✓"));
    if (alignment != 32) w.addU32(QStringLiteral("general.alignment"), std::uint32_t(alignment));
    w.addI32(QStringLiteral("x.i32"), -5);
    w.addU64(QStringLiteral("x.u64"), 1ull << 40);
    w.addF32(QStringLiteral("x.f32"), 0.5f);
    w.addBool(QStringLiteral("x.bool"), true);
    w.addStringArray(QStringLiteral("x.strings"), {QStringLiteral("a"), QString(), QStringLiteral("▁b")});
    w.addF32Array(QStringLiteral("x.floats"), {1.5f, -2.0f});
    w.addI32Array(QStringLiteral("x.ints"), {3, -4});
    std::vector<float> values(64 * 3);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = float(i) * 0.25f - 5.0f;
    w.addFloatTensor(QStringLiteral("a"), {3, 64}, values, GgmlType::F32);
    w.addFloatTensor(QStringLiteral("b"), {3, 64}, values, GgmlType::Q8_0);
    const QString path = dir.filePath(QStringLiteral("m.gguf"));
    w.write(path, std::uint32_t(alignment));

    const GgufFile f(path);
    QCOMPARE(int(f.version()), version);
    QCOMPARE(int(f.alignment()), alignment);
    QCOMPARE(*f.string(QStringLiteral("general.name")), QStringLiteral("çalışma ✓"));
    QCOMPARE(*f.integer(QStringLiteral("x.i32")), std::int64_t(-5));
    QCOMPARE(*f.integer(QStringLiteral("x.u64")), std::int64_t(1) << 40);
    QCOMPARE(*f.number(QStringLiteral("x.f32")), 0.5);
    QCOMPARE(*f.boolean(QStringLiteral("x.bool")), true);
    QCOMPARE(f.stringArray(QStringLiteral("x.strings")),
             (QStringList{QStringLiteral("a"), QString(), QStringLiteral("▁b")}));
    QCOMPARE(f.floatArray(QStringLiteral("x.floats")), (std::vector<float>{1.5f, -2.0f}));
    QCOMPARE(f.intArray(QStringLiteral("x.ints")), (std::vector<std::int32_t>{3, -4}));
    QVERIFY(!f.string(QStringLiteral("absent")));
    QVERIFY(!modelErrorOf([&] { f.integer(QStringLiteral("general.name")); }).isEmpty()); // wrong type
    const GgufTensor* a = f.tensor(QStringLiteral("a"));
    QVERIFY(a);
    QCOMPARE(a->ne, (std::vector<std::int64_t>{64, 3}));
    QCOMPARE(a->offset % alignment, std::int64_t(0));
    std::vector<float> row(64);
    f.dequantizeRows(*a, 2, 1, row.data());
    QCOMPARE(row[0], values[128]);
    const GgufTensor* b = f.tensor(QStringLiteral("b"));
    QCOMPARE(b->bytes, std::int64_t(3 * 2 * 34));
    f.dequantizeRows(*b, 1, 1, row.data());
    for (int i = 0; i < 64; ++i)
        QVERIFY(std::abs(row[size_t(i)] - values[size_t(64 + i)]) <=
                27.0f / 127); // a step of amax / 127, amax < 27
    QVERIFY(!modelErrorOf([&] { f.dequantizeRows(*b, 2, 2, row.data()); }).isEmpty());
}

void TestGguf::damagedFilesAreRefused_data()
{
    QTest::addColumn<QByteArray>("bytes");
    QTest::addColumn<QString>("problem"); // part of the expected message
    auto valid = [] {
        GgufWriter w;
        w.addString(QStringLiteral("general.architecture"), QStringLiteral("llama"));
        std::vector<float> v(64, 1.0f);
        w.addFloatTensor(QStringLiteral("t"), {2, 32}, v, GgmlType::Q8_0);
        return w.build();
    };
    const QByteArray good = valid();
    QTest::newRow("empty") << QByteArray() << QStringLiteral("too short");
    QTest::newRow("not GGUF") << QByteArray(64, 'x') << QStringLiteral("not a GGUF file");
    QByteArray v1 = good;
    qToLittleEndian<std::uint32_t>(1, v1.data() + 4);
    QTest::newRow("v1") << v1 << QStringLiteral("v1 is not supported");
    QByteArray v9 = good;
    qToLittleEndian<std::uint32_t>(9, v9.data() + 4);
    QTest::newRow("v9") << v9 << QStringLiteral("version 9");
    QByteArray swapped = good;
    qToLittleEndian<std::uint32_t>(0x03000000, swapped.data() + 4);
    QTest::newRow("big-endian") << swapped << QStringLiteral("big-endian");
    QByteArray manyTensors = good;
    qToLittleEndian<std::uint64_t>(1ull << 60, manyTensors.data() + 8);
    QTest::newRow("tensor count") << manyTensors << QStringLiteral("tensors cannot fit");
    QByteArray manyKeys = good;
    qToLittleEndian<std::uint64_t>(~0ull, manyKeys.data() + 16);
    QTest::newRow("key count") << manyKeys << QStringLiteral("not a valid count");
    QByteArray longKey = good;
    qToLittleEndian<std::uint64_t>(1ull << 40, longKey.data() + 24); // first key's length
    QTest::newRow("key length") << longKey << QStringLiteral("bytes long");
    QTest::newRow("truncated header") << good.left(40) << QStringLiteral("cannot fit in the file's 40 bytes");
    QTest::newRow("truncated data") << good.left(good.size() - 40) << QStringLiteral("truncated");
    {
        GgufWriter w;
        w.addRaw(QStringLiteral("s"), 8, QByteArray::fromHex("ffffffff00000000") + "abc");
        QTest::newRow("string length")
            << w.build() << QStringLiteral("value of 's' is 4294967295 bytes long");
    }
    {
        GgufWriter w;
        QByteArray array;
        array += QByteArray::fromHex("04000000");         // uint32 elements
        array += QByteArray::fromHex("ffffffffffffff0f"); // a huge count
        w.addRaw(QStringLiteral("a"), 9, array);
        QTest::newRow("array count") << w.build() << QStringLiteral("more than the file holds");
    }
    {
        GgufWriter w;
        w.addRaw(QStringLiteral("a"), 9,
                 QByteArray::fromHex("09000000") + QByteArray::fromHex("0100000000000000"));
        QTest::newRow("nested array") << w.build() << QStringLiteral("array of arrays");
    }
    {
        GgufWriter w;
        w.addRaw(QStringLiteral("t"), 77, QByteArray(4, '\0'));
        QTest::newRow("value type") << w.build() << QStringLiteral("unknown value type 77");
    }
    {
        GgufWriter w;
        w.addRaw(QStringLiteral("b"), 7, QByteArray(1, '\x05'));
        QTest::newRow("bool") << w.build() << QStringLiteral("not 0 or 1");
    }
    {
        GgufWriter w;
        w.addU32(QStringLiteral("general.alignment"), 24);
        QTest::newRow("alignment") << w.build() << QStringLiteral("not a power of two");
    }
    {
        GgufWriter w;
        w.addTensor(QStringLiteral("t"), {1, 1, 1, 1, 1}, 0, QByteArray(4, '\0'));
        QTest::newRow("dimensions") << w.build() << QStringLiteral("5 dimensions");
    }
    {
        GgufWriter w;
        w.addTensor(QStringLiteral("t"), {1ll << 20, 1ll << 20}, 0, QByteArray(4, '\0'));
        QTest::newRow("elements") << w.build() << QStringLiteral("past the end");
    }
    {
        GgufWriter w;
        w.addTensor(QStringLiteral("t"), {3ll << 61, 4}, 0, QByteArray(4, '\0'));
        QTest::newRow("element overflow") << w.build() << QStringLiteral("too many elements");
    }
    {
        GgufWriter w;
        w.addTensor(QStringLiteral("t"), {33}, std::uint32_t(GgmlType::Q8_0), QByteArray(68, '\0'));
        QTest::newRow("partial block") << w.build() << QStringLiteral("not a multiple of its block");
    }
    {
        GgufWriter w;
        w.addTensor(QStringLiteral("t"), {4}, 0, QByteArray(16, '\0'));
        w.addTensor(QStringLiteral("t"), {4}, 0, QByteArray(16, '\0'));
        QTest::newRow("duplicate tensor") << w.build() << QStringLiteral("appears twice");
    }
    QByteArray misaligned = good;
    {
        // The tensor offset is the last u64 before the padding: set it to 3.
        const int offsetAt =
            int(good.indexOf(QByteArray("t", 1) + QByteArray::fromHex("02000000"))) + 1 + 4 + 16 + 4;
        qToLittleEndian<std::uint64_t>(3, misaligned.data() + offsetAt);
    }
    QTest::newRow("tensor offset") << misaligned << QStringLiteral("not a multiple of the alignment");
}

// Every damaged file gives one line naming the file and the problem, never a crash or a huge allocation.
void TestGguf::damagedFilesAreRefused()
{
    QFETCH(QByteArray, bytes);
    QFETCH(QString, problem);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.gguf"));
    QVERIFY(writeFileBytes(path, bytes));
    const QString message = modelErrorOf([&] { GgufFile file(path); });
    QVERIFY2(message.startsWith(QDir::toNativeSeparators(path) + QStringLiteral(": ")), qPrintable(message));
    QVERIFY2(message.contains(problem), qPrintable(message));
    QVERIFY(!message.contains(QLatin1Char('\n')));
    // The model loader says the same.
    const QString fromModel = modelErrorOf([&] { TransformerModel::open(path); });
    QVERIFY2(fromModel.contains(problem), qPrintable(fromModel));
}

void TestGguf::unsupportedArchitecture()
{
    QTemporaryDir dir;
    GgufWriter w;
    w.addString(QStringLiteral("general.architecture"), QStringLiteral("mamba"));
    const QString path = dir.filePath(QStringLiteral("m.gguf"));
    w.write(path);
    const QString message = modelErrorOf([&] { TransformerModel::open(path); });
    QVERIFY2(message.contains(QStringLiteral(
                 "GGUF architecture 'mamba' is not supported (supported: llama, qwen2, gemma, gpt2)")),
             qPrintable(message));
    // A tensor in a type AttnScope does not convert is named when the model is opened.
    writeGgufFromFolder(oracleFolder(QStringLiteral("llama_s0")), path, GgmlType::F32);
    const QByteArray bytes = [&] {
        QFile f(path);
        f.open(QIODevice::ReadOnly);
        return f.readAll();
    }();
    QByteArray patched = bytes;
    const qsizetype at = patched.indexOf(GgufWriter::encodeString(QStringLiteral("blk.1.ffn_up.weight")));
    QVERIFY(at > 0);
    // name, n_dims (2), ne[0], ne[1], then the type.
    const qsizetype typeAt = at + 8 + 19 + 4 + 16;
    QCOMPARE(qFromLittleEndian<std::uint32_t>(patched.constData() + typeAt), std::uint32_t(0));
    qToLittleEndian<std::uint32_t>(16, patched.data() + typeAt); // IQ2_XXS
    QVERIFY(writeFileBytes(path, patched));
    const QString iqMessage = modelErrorOf([&] { TransformerModel::open(path); });
    QVERIFY2(iqMessage.contains(QStringLiteral(
                 "tensor 'blk.1.ffn_up.weight' has type IQ2_XXS, which AttnScope does not convert")),
             qPrintable(iqMessage));
}

void TestGguf::oracleAttention_data()
{
    QTest::addColumn<QString>("caseName");
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("bound");
    // Lossless: the case's own storage type, to the oracle tolerance. Then ggml's 32-element formats (the
    // oracle's rows are 32 and 64 long, too short for the K-quants' 256). The oracle's random weights are
    // drawn wide so that attention is peaked: a few logits move by whole units under 4-5 bit weights and
    // some probabilities move a lot. The bounds are the measured maxima (these quantizers are deterministic)
    // with ~30% margin; docs/gguf.md lists the figures.
    QTest::newRow("llama_s0 F32") << QStringLiteral("llama_s0") << int(GgmlType::F32) << 1e-5;
    QTest::newRow("llama_s1 BF16") << QStringLiteral("llama_s1") << int(GgmlType::BF16) << 1e-5;
    QTest::newRow("gpt2_s0 F32") << QStringLiteral("gpt2_s0") << int(GgmlType::F32) << 1e-5;
    QTest::newRow("gpt2_s1 F16") << QStringLiteral("gpt2_s1") << int(GgmlType::F16) << 1e-5;
    QTest::newRow("llama_s0 F16") << QStringLiteral("llama_s0") << int(GgmlType::F16) << 4.5e-3;
    QTest::newRow("llama_s0 Q8_0") << QStringLiteral("llama_s0") << int(GgmlType::Q8_0) << 0.065;
    QTest::newRow("llama_s0 Q5_1") << QStringLiteral("llama_s0") << int(GgmlType::Q5_1) << 0.57;
    QTest::newRow("llama_s0 Q5_0") << QStringLiteral("llama_s0") << int(GgmlType::Q5_0) << 0.7;
    QTest::newRow("llama_s0 Q4_1") << QStringLiteral("llama_s0") << int(GgmlType::Q4_1) << 0.97;
    QTest::newRow("llama_s0 Q4_0") << QStringLiteral("llama_s0") << int(GgmlType::Q4_0) << 0.98;
    QTest::newRow("gpt2_s0 Q8_0") << QStringLiteral("gpt2_s0") << int(GgmlType::Q8_0) << 0.036;
    QTest::newRow("gpt2_s0 Q4_0") << QStringLiteral("gpt2_s0") << int(GgmlType::Q4_0) << 0.61;
}

// A GGUF file made from an oracle case as llama.cpp's converter makes it gives the case's attention.
void TestGguf::oracleAttention()
{
    QFETCH(QString, caseName);
    QFETCH(int, type);
    QFETCH(double, bound);
    QTemporaryDir dir;
    const QString path = dir.filePath(caseName + QStringLiteral(".gguf"));
    writeGgufFromFolder(oracleFolder(caseName), path, GgmlType(type));
    const auto model = TransformerModel::open(path);
    const ModelConfig reference =
        ModelConfig::fromFile(oracleFolder(caseName) + QStringLiteral("/config.json"));
    QCOMPARE(model->config().modelType, reference.modelType);
    QCOMPARE(model->config().layers, reference.layers);
    QCOMPARE(model->config().heads, reference.heads);
    QCOMPARE(model->config().kvHeads, reference.kvHeads);
    QCOMPARE(model->config().headDim, reference.headDim);
    QCOMPARE(model->config().normEps, reference.normEps);
    QCOMPARE(model->config().ropeTheta, reference.ropeTheta);
    QCOMPARE(model->config().tieWordEmbeddings, reference.tieWordEmbeddings);
    const AttentionCapture capture = model->run(oracleInputIds(caseName), {});
    const double error = maxAbsError(*capture.maps, oracleAttentions(caseName));
    qInfo("%s: max |P - oracle| = %.3g, mean %.3g (bound %.3g)", QTest::currentDataTag(), error,
          meanAbsError(*capture.maps, oracleAttentions(caseName)), bound);
    QVERIFY2(error <= bound, qPrintable(QStringLiteral("max abs error %1 > %2").arg(error).arg(bound)));
}

void TestGguf::kQuantAttention_data()
{
    QTest::addColumn<int>("type");
    QTest::addColumn<double>("bound");
    QTest::addColumn<double>("meanBound");
    // Measured max and mean |ΔP| with ~30% margin; docs/gguf.md lists the figures. The weights are drawn
    // so that attention is peaked, where a few probabilities move a lot under 2-4 bit weights.
    QTest::newRow("F16") << int(GgmlType::F16) << 1.1e-3 << 3e-5;
    QTest::newRow("Q8_0") << int(GgmlType::Q8_0) << 0.027 << 7.5e-4;
    QTest::newRow("Q6_K") << int(GgmlType::Q6_K) << 0.075 << 2.5e-3;
    QTest::newRow("Q5_K") << int(GgmlType::Q5_K) << 0.135 << 4.8e-3;
    QTest::newRow("Q4_K") << int(GgmlType::Q4_K) << 0.38 << 1e-2;
    QTest::newRow("Q3_K") << int(GgmlType::Q3_K) << 0.87 << 3e-2;
    QTest::newRow("Q2_K") << int(GgmlType::Q2_K) << 0.94 << 5e-2;
}

// The same random weights stored as F32 and in each format: how far the quantized file moves attention.
void TestGguf::kQuantAttention()
{
    QFETCH(int, type);
    QFETCH(double, bound);
    QFETCH(double, meanBound);
    QTemporaryDir dir;
    const QString reference = dir.filePath(QStringLiteral("f32.gguf"));
    const QString quantized = dir.filePath(QStringLiteral("q.gguf"));
    writeRandomLlamaGguf(reference, GgmlType::F32);
    writeRandomLlamaGguf(quantized, GgmlType(type));
    std::vector<int> ids;
    for (int i = 0; i < 24; ++i)
        ids.push_back((i * 7 + 3) % 64);
    const AttentionCapture exact = TransformerModel::open(reference)->run(ids, {});
    const AttentionCapture approx = TransformerModel::open(quantized)->run(ids, {});
    const double error = maxAbsError(*exact.maps, *approx.maps);
    double sum = 0;
    int count = 0;
    for (int l = 0; l < exact.maps->layers(); ++l)
        for (int h = 0; h < exact.maps->heads(); ++h) {
            const std::vector<float> a = exact.maps->matrix(l, h), b = approx.maps->matrix(l, h);
            for (size_t i = 0; i < a.size(); ++i, ++count)
                sum += std::abs(double(a[i]) - double(b[i]));
        }
    const double mean = sum / count;
    qInfo("%s: max |P - P_f32| = %.3g, mean %.3g (bounds %.3g, %.3g)", QTest::currentDataTag(), error, mean,
          bound, meanBound);
    QVERIFY2(error <= bound, qPrintable(QStringLiteral("max abs error %1 > %2").arg(error).arg(bound)));
    QVERIFY2(mean <= meanBound,
             qPrintable(QStringLiteral("mean abs error %1 > %2").arg(mean).arg(meanBound)));
    QVERIFY(error > 0 || type == int(GgmlType::F32));
}

// Opening maps the file and converts nothing: tensors are dequantized when asked for, row by row.
// As for safetensors (util/prefetch.h): the GGUF's mapping carries MADV_HUGEPAGE once its metadata is read.
void TestGguf::mappingAsksForLargePages()
{
#ifndef Q_OS_LINUX
    QSKIP("madvise(MADV_HUGEPAGE) is Linux's");
#endif
    if (!kernelHasTransparentHugePages()) QSKIP("this kernel has no transparent huge pages");
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("m.gguf"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("llama_s0")), path, GgmlType::F32);
    const GgufFile file(path);
    const QStringList flags = mappingFlags(file.mapping());
    QVERIFY2(!flags.isEmpty(), "the mapping is not in /proc/self/smaps");
    QVERIFY2(flags.contains(QStringLiteral("hg")), qPrintable(flags.join(QLatin1Char(' '))));
}

void TestGguf::tensorsAreNotConvertedUpFront()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("m.gguf"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("llama_s0")), path, GgmlType::Q8_0);
    const auto file = std::make_shared<const GgufFile>(path);
    const GgufModelDescription d = describeGgufModel(*file);
    const WeightStore store = WeightStore::openGguf(file, d);
    const QString q = QStringLiteral("model.layers.0.self_attn.q_proj.weight");
    QCOMPARE(store.storageType(q), QStringLiteral("Q8_0"));
    QCOMPARE(store.info(q)->shape, (std::vector<qint64>{32, 32}));
    // Rows of q_proj come back in Hugging Face order: row 5 of head 0 (d = 8) is GGUF row 2·1 + 1 = 3.
    const WeightTensor whole = store.load(q);
    const WeightTensor row5 = store.loadRows(q, 5, 1);
    QCOMPARE(std::memcmp(row5.data(), whole.data() + 5 * 32, 32 * sizeof(float)), 0);
    std::vector<float> stored(32);
    file->dequantizeRows(*file->tensor(QStringLiteral("blk.0.attn_q.weight")), 3, 1, stored.data());
    QCOMPARE(std::memcmp(stored.data(), row5.data(), 32 * sizeof(float)), 0);
    // And against the original: within Q8_0's step.
    const std::vector<TensorToWrite> original =
        readTensors(oracleFolder(QStringLiteral("llama_s0")) + QStringLiteral("/model.safetensors"));
    for (const TensorToWrite& t : original)
        if (t.name == q) {
            const std::vector<float> v = floatsOf(t);
            for (int i = 0; i < 32 * 32; ++i)
                QVERIFY(std::abs(v[size_t(i)] - whole.data()[i]) <= 0.02f * std::abs(v[size_t(i)]) + 0.05f);
        }
}

// llama_s0 with random q/k/v/o biases (attention_bias) and without lm_head (tied embeddings), as a folder and
// as the GGUF file llama.cpp's converter makes of it (biases of q/k permuted like their rows): the same
// tensors under the same names, and the same attention.
void TestGguf::biasesAndTiedEmbeddings()
{
    QTemporaryDir dir;
    const QString folder = dir.filePath(QStringLiteral("biased"));
    std::mt19937 rng(5);
    std::normal_distribution<float> normal(0.0f, 0.5f);
    copyModel(oracleFolder(QStringLiteral("llama_s0")), folder, [&](std::vector<TensorToWrite>& tensors) {
        tensors.erase(std::remove_if(tensors.begin(), tensors.end(),
                                     [](const TensorToWrite& t) { return t.name == QLatin1String("lm_head.weight"); }),
                      tensors.end());
        for (int l = 0; l < 2; ++l)
            for (const auto& [which, size] : {std::pair<const char*, int>{"q_proj", 32}, {"k_proj", 16}, {"v_proj", 16}, {"o_proj", 32}}) {
                std::vector<float> values(static_cast<size_t>(size));
                for (float& v : values)
                    v = normal(rng);
                tensors.push_back({QStringLiteral("model.layers.%1.self_attn.%2.bias").arg(l).arg(QLatin1String(which)),
                                   TensorDtype::F32, {size}, floatBytes(values)});
            }
    });
    QJsonObject config = readJsonObject(folder + QStringLiteral("/config.json"));
    config.insert(QStringLiteral("attention_bias"), true);
    config.insert(QStringLiteral("tie_word_embeddings"), true);
    writeJsonObject(folder + QStringLiteral("/config.json"), config);
    const QString path = dir.filePath(QStringLiteral("biased.gguf"));
    writeGgufFromFolder(folder, path, GgmlType::F32);

    const auto fromFolder = TransformerModel::open(folder);
    const auto fromGguf = TransformerModel::open(path);
    const auto file = std::make_shared<const GgufFile>(path);
    // The biases are the Llama unit's (attention_bias: q, k, v and o): the description must set it.
    QVERIFY(describeGgufModel(*file).config.value(QLatin1String("attention_bias")).toBool() &&
            fromGguf->config().tieWordEmbeddings);
    const WeightStore gguf = WeightStore::openGguf(file, describeGgufModel(*file));
    const WeightStore original = WeightStore::openFolder(folder);
    for (const char* name : {"model.layers.1.self_attn.q_proj.bias", "model.layers.1.self_attn.k_proj.bias",
                             "model.layers.0.self_attn.k_proj.weight", "model.layers.0.self_attn.o_proj.bias"}) {
        const WeightTensor a = original.load(QLatin1String(name)), b = gguf.load(QLatin1String(name));
        QCOMPARE(a.shape(), b.shape());
        QCOMPARE(std::memcmp(a.data(), b.data(), size_t(a.size()) * sizeof(float)), 0);
    }
    QVERIFY(!gguf.contains(QStringLiteral("lm_head.weight")));
    const std::vector<int> ids = oracleInputIds(QStringLiteral("llama_s0"));
    const double error = maxAbsError(*fromFolder->run(ids, {}).maps, *fromGguf->run(ids, {}).maps);
    QVERIFY2(error <= 1e-6, qPrintable(QString::number(error)));
    QCOMPARE(fromGguf->predict(ids, {}, 3)[0].top[0].id, fromFolder->predict(ids, {}, 3)[0].top[0].id);
}

// gemma stores RMSNorm weights as 1 + w (convert_hf_to_gguf.py's GemmaModel) and keeps Q/K rows in HF order;
// qwen2 keeps them too. Read back: w, and the rows as stored.
void TestGguf::gemmaNormsAndQwen2Layout()
{
    for (const char* arch : {"gemma", "qwen2"}) {
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("m.gguf"));
        GgufWriter w;
        const QString a = QLatin1String(arch);
        w.addString(QStringLiteral("general.architecture"), a);
        w.addU32(a + QStringLiteral(".block_count"), 1);
        w.addU32(a + QStringLiteral(".context_length"), 64);
        w.addU32(a + QStringLiteral(".embedding_length"), 32);
        w.addU32(a + QStringLiteral(".feed_forward_length"), 64);
        w.addU32(a + QStringLiteral(".attention.head_count"), 2);
        w.addU32(a + QStringLiteral(".attention.head_count_kv"), 1);
        w.addU32(a + QStringLiteral(".attention.key_length"), 16);
        w.addF32(a + QStringLiteral(".attention.layer_norm_rms_epsilon"), 1e-6f);
        std::vector<float> norm(32), q(32 * 32);
        for (size_t i = 0; i < norm.size(); ++i)
            norm[i] = 1.0f + 0.01f * float(i);
        for (size_t i = 0; i < q.size(); ++i)
            q[i] = float(i);
        w.addFloatTensor(QStringLiteral("token_embd.weight"), {10, 32}, std::vector<float>(320, 0.5f), GgmlType::F32);
        w.addFloatTensor(QStringLiteral("blk.0.attn_norm.weight"), {32}, norm, GgmlType::F32);
        w.addFloatTensor(QStringLiteral("blk.0.attn_q.weight"), {32, 32}, q, GgmlType::F32);
        w.write(path);
        const auto file = std::make_shared<const GgufFile>(path);
        const GgufModelDescription d = describeGgufModel(*file);
        QCOMPARE(d.config.value(QStringLiteral("model_type")).toString(), a);
        QCOMPARE(d.config.value(QStringLiteral("head_dim")).toInt(), 16);
        QCOMPARE(d.config.value(QStringLiteral("tie_word_embeddings")).toBool(), true);
        QCOMPARE(d.config.value(QStringLiteral("rms_norm_eps")).toDouble(), 1e-6);
        const WeightStore store = WeightStore::openGguf(file, d);
        const WeightTensor n = store.load(QStringLiteral("model.layers.0.input_layernorm.weight"));
        for (int i = 0; i < 32; ++i)
            QCOMPARE(n.data()[i], a == QLatin1String("gemma") ? norm[size_t(i)] - 1.0f : norm[size_t(i)]);
        const WeightTensor rows = store.load(QStringLiteral("model.layers.0.self_attn.q_proj.weight"));
        QCOMPARE(std::memcmp(rows.data(), q.data(), q.size() * sizeof(float)), 0);
    }
}

// gpt2_s0's tokenizer.json stored as tokenizer.ggml.* gives the oracle's ids.
void TestGguf::gpt2TokenizerFromMetadata()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("gpt2.gguf"));
    writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), path, GgmlType::F32);
    const auto model = TransformerModel::open(path);
    QVERIFY2(model->tokenizer(), qPrintable(model->tokenizerError()));
    const QJsonObject c =
        readJsonObject(oracleFolder(QStringLiteral("gpt2_s0")) + QStringLiteral("/case.json"));
    const Encoding e = model->tokenizer()->encode(c.value(QStringLiteral("text")).toString());
    QCOMPARE(e.ids, oracleInputIds(QStringLiteral("gpt2_s0")));
}

void TestGguf::tokenizerFromMetadata_data()
{
    QTest::addColumn<QString>("set");
    QTest::addColumn<QString>("pre"); // tokenizer.ggml.pre; "" for a SentencePiece (llama) vocabulary
    QTest::newRow("gpt2") << QStringLiteral("gpt2") << QStringLiteral("gpt-2");
    QTest::newRow("llama3-style") << QStringLiteral("llama3-style") << QStringLiteral("llama-bpe");
    QTest::newRow("qwen2-style") << QStringLiteral("qwen2-style") << QStringLiteral("qwen2");
    QTest::newRow("llama-spm") << QStringLiteral("llama-spm") << QString();
}

// The tokenizer stored as tokenizer.ggml.* (as llama.cpp's converter stores it) gives the same ids, tokens
// and offsets as the tokenizer.json it stands for, on the reference vectors of that tokenizer.json (computed
// by the Rust tokenizers).
void TestGguf::tokenizerFromMetadata()
{
    QFETCH(QString, set);
    QFETCH(QString, pre);
    const QString folder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/data/tokenizers/") + set;
    GgufWriter w;
    w.addString(QStringLiteral("general.architecture"), QStringLiteral("llama"));
    if (pre.isEmpty()) {
        // SentencePiece: the pieces, scores and types llama.cpp reads from tokenizer.model.
        const QJsonObject v = readJsonObject(folder + QStringLiteral("/gguf-vocab.json"));
        QStringList tokens;
        for (const QJsonValue& t : v.value(QStringLiteral("tokens")).toArray())
            tokens << t.toString();
        std::vector<float> scores;
        for (const QJsonValue& x : v.value(QStringLiteral("scores")).toArray())
            scores.push_back(float(x.toDouble()));
        std::vector<std::int32_t> types;
        for (const QJsonValue& x : v.value(QStringLiteral("token_type")).toArray())
            types.push_back(x.toInt());
        w.addString(QStringLiteral("tokenizer.ggml.model"), QStringLiteral("llama"));
        w.addStringArray(QStringLiteral("tokenizer.ggml.tokens"), tokens);
        w.addF32Array(QStringLiteral("tokenizer.ggml.scores"), scores);
        w.addI32Array(QStringLiteral("tokenizer.ggml.token_type"), types);
        w.addU32(QStringLiteral("tokenizer.ggml.bos_token_id"),
                 std::uint32_t(v.value(QStringLiteral("bos_token_id")).toInt()));
        w.addU32(QStringLiteral("tokenizer.ggml.eos_token_id"),
                 std::uint32_t(v.value(QStringLiteral("eos_token_id")).toInt()));
        w.addU32(QStringLiteral("tokenizer.ggml.unknown_token_id"),
                 std::uint32_t(v.value(QStringLiteral("unknown_token_id")).toInt()));
        w.addBool(QStringLiteral("tokenizer.ggml.add_bos_token"),
                  v.value(QStringLiteral("add_bos_token")).toBool());
        w.addBool(QStringLiteral("tokenizer.ggml.add_eos_token"),
                  v.value(QStringLiteral("add_eos_token")).toBool());
    } else {
        const QJsonObject json = testTokenizerJson(set);
        addGpt2Vocabulary(w, json, pre);
        if (set == QLatin1String("llama3-style")) {
            w.addU32(QStringLiteral("tokenizer.ggml.bos_token_id"), 50257);
            w.addBool(QStringLiteral("tokenizer.ggml.add_bos_token"), true);
        }
    }
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("vocab.gguf"));
    w.write(path);
    const GgufFile file(path);
    const std::unique_ptr<Tokenizer> tokenizer =
        Tokenizer::fromGgufVocabulary(readGgufVocabulary(file), path);

    const QJsonArray cases =
        readJsonObject(folder + QStringLiteral("/vectors.json")).value(QStringLiteral("cases")).toArray();
    QVERIFY(cases.size() >= 30);
    int checked = 0;
    for (const QJsonValue& item : cases) {
        const TokenizerVectorCase c = tokenizerVectorCase(item.toObject());
        const Encoding e = tokenizer->encode(c.text, c.textB, c.addSpecialTokens);
        const QByteArray label = c.text.left(40).toUtf8();
        QVERIFY2(e.ids == c.ids, label.constData());
        QCOMPARE(e.tokens, c.tokens);
        QVERIFY2(e.offsets == c.offsets, label.constData());
        ++checked;
    }
    QCOMPARE(checked, int(cases.size()));
}

// Issue 35: two tensors sharing bytes were accepted (each would read the other's weights).
void TestGguf::overlappingTensorsAreRefused()
{
    GgufWriter w;
    w.addTensor(QStringLiteral("a"), {16}, 0, QByteArray(64, '\0'));
    w.addTensor(QStringLiteral("b"), {8}, 0, QByteArray(32, '\0'));
    QByteArray bytes = w.build();
    // b's entry: its name (length, bytes), n_dims 1, ne[0], the type, then the offset (relative to the data).
    const QByteArray entry = QByteArray::fromHex("0100000000000000") + "b" + QByteArray::fromHex("01000000");
    const qsizetype at = bytes.indexOf(entry);
    QVERIFY(at > 0);
    QCOMPARE(qFromLittleEndian<std::uint64_t>(bytes.constData() + at + entry.size() + 8 + 4), 64u);
    qToLittleEndian<std::uint64_t>(32, bytes.data() + at + entry.size() + 8 + 4); // inside a's 64 bytes
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("overlap.gguf"));
    QVERIFY(writeFileBytes(path, bytes));
    const QString message = modelErrorOf([&] { GgufFile file(path); });
    QVERIFY2(message.startsWith(QDir::toNativeSeparators(path) + QStringLiteral(": tensors 'a' (bytes ")) &&
                 message.contains(QLatin1String(") and 'b' (from byte ")) &&
                 message.endsWith(QLatin1String("overlap")),
             qPrintable(message));
}

void TestGguf::tokenIdsOutsideTheVocabularyAreRefused_data()
{
    QTest::addColumn<QString>("key");
    QTest::addColumn<qint64>("id");
    QTest::newRow("bos 2^31 (with add_bos_token)") << QStringLiteral("bos_token_id") << (qint64(1) << 31);
    QTest::newRow("eos one past the end") << QStringLiteral("eos_token_id") << qint64(-1); // -1: the size
    QTest::newRow("unknown -7") << QStringLiteral("unknown_token_id") << qint64(-7);
}

// bos_token_id 2^31 with add_bos_token true dropped the BOS silently, so the model saw another input. An id
// outside the vocabulary is refused, naming the key and the file (a model opened from the file keeps its
// weights and reports this as its tokenizer's error).
void TestGguf::tokenIdsOutsideTheVocabularyAreRefused()
{
    QFETCH(QString, key);
    QFETCH(qint64, id);
    GgufWriter w;
    addGpt2Vocabulary(w, testTokenizerJson(QStringLiteral("gpt2")), QStringLiteral("gpt-2"));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("vocab.gguf"));
    w.write(path);
    const qint64 size = GgufFile(path).stringArray(QStringLiteral("tokenizer.ggml.tokens")).size();
    QVERIFY(size > 1000);
    if (id == -1) id = size;
    if (id < 0)
        w.addI32(QStringLiteral("tokenizer.ggml.") + key, std::int32_t(id));
    else
        w.addU32(QStringLiteral("tokenizer.ggml.") + key, std::uint32_t(id));
    w.addBool(QStringLiteral("tokenizer.ggml.add_bos_token"), true);
    w.write(path);
    const GgufFile file(path);
    const QString message = modelErrorOf([&] { readGgufVocabulary(file); });
    QVERIFY2(message ==
                 QStringLiteral("%1: metadata tokenizer.ggml.%2 = %3 is not a token id (the vocabulary has "
                                "%4 tokens)")
                     .arg(QDir::toNativeSeparators(path), key)
                     .arg(id)
                     .arg(size),
             qPrintable(message));
}

// A wrong or missing tensor was named by its Hugging Face name and blamed on a config.json the user never
// gave: the GGUF tensor, the .gguf file and its metadata are named.
void TestGguf::tensorsAreNamedAsTheFileNamesThem()
{
    QTemporaryDir dir;
    for (const bool missing : {true, false}) {
        const QString folder = dir.filePath(missing ? QStringLiteral("missing") : QStringLiteral("shape"));
        copyModel(oracleFolder(QStringLiteral("llama_s0")), folder, [&](std::vector<TensorToWrite>& tensors) {
            for (auto it = tensors.begin(); it != tensors.end(); ++it) {
                if (missing && it->name == QLatin1String("model.layers.1.self_attn.v_proj.weight")) {
                    tensors.erase(it);
                    return;
                }
                if (!missing && it->name == QLatin1String("model.layers.0.mlp.up_proj.weight")) {
                    it->shape = {32, 32}; // [64, 32] in the file: its first half
                    it->data = it->data.left(it->data.size() / 2);
                    return;
                }
            }
        });
        const QString path = folder + QStringLiteral(".gguf");
        writeGgufFromFolder(folder, path, GgmlType::F32);
        const QString message = modelErrorOf([&] { TransformerModel::open(path); });
        const QString expected =
            missing ? QStringLiteral(
                          "%1: tensor blk.1.attn_v.weight (model.layers.1.self_attn.v_proj.weight once "
                          "converted) is missing (needed by this llama model with 2 layers in its "
                          "metadata)")
                    : QStringLiteral("%1: tensor blk.0.ffn_up.weight (model.layers.0.mlp.up_proj.weight once "
                                     "converted) has shape [32, 32] but its metadata implies [64, 32]");
        QVERIFY2(message == expected.arg(QDir::toNativeSeparators(path)), qPrintable(message));
    }
}

QTEST_GUILESS_MAIN(TestGguf)
#include "tst_gguf.moc"
