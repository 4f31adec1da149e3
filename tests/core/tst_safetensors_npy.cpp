// The file formats under the model runtime: safetensors (header parsing, dtype conversion, zero-copy F32)
// and .npy (read/write round trips, the oracle files).

#include "core/support/modelfixtures.h"
#include "io/npy.h"
#include "model/modelerror.h"
#include "model/safetensorsfile.h"
#include "model/safetensorswriter.h"
#include "model/weightstore.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace attnscope;
using namespace attnscope::testing;

class TestSafetensorsNpy : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void halfToFloat_data();
    void halfToFloat();
    void bfloat16ToFloat();
    void oracleHeaderMatchesCase_data();
    void oracleHeaderMatchesCase();
    void writeReadRoundTrip();
    void largeBf16ReusesBuffers();
    void f32IsUsedInPlace();
    void mappingAsksForLargePages();
    void npyRoundTrip_data();
    void npyRoundTrip();
    void npyReadsOracle();
    void npyRejectsBadFiles();
    void npyHeaderOnBlockBoundaries_data();
    void npyHeaderOnBlockBoundaries();
};

void TestSafetensorsNpy::halfToFloat_data()
{
    QTest::addColumn<int>("bits");
    QTest::addColumn<float>("expected");
    QTest::newRow("1") << 0x3C00 << 1.0f;
    QTest::newRow("-2") << 0xC000 << -2.0f;
    QTest::newRow("max 65504") << 0x7BFF << 65504.0f;
    QTest::newRow("1/3 rounded") << 0x3555 << 0.333251953125f;
    QTest::newRow("smallest normal") << 0x0400 << std::ldexp(1.0f, -14);
    QTest::newRow("smallest subnormal") << 0x0001 << std::ldexp(1.0f, -24);
    QTest::newRow("largest subnormal") << 0x03FF << std::ldexp(1023.0f, -24);
    QTest::newRow("-0") << 0x8000 << -0.0f;
    QTest::newRow("inf") << 0x7C00 << std::numeric_limits<float>::infinity();
}

void TestSafetensorsNpy::halfToFloat()
{
    QFETCH(int, bits);
    QFETCH(float, expected);
    QCOMPARE(attnscope::halfToFloat(std::uint16_t(bits)), expected);
    QCOMPARE(std::signbit(attnscope::halfToFloat(std::uint16_t(bits))), std::signbit(expected));
    // The table-driven bulk conversion agrees.
    const unsigned char raw[2] = {static_cast<unsigned char>(bits & 0xff),
                                  static_cast<unsigned char>(bits >> 8)};
    float out = 0;
    convertHalfToFloat(raw, &out, 1);
    QCOMPARE(out, expected);
    QVERIFY(std::isnan(attnscope::halfToFloat(0x7E00)));
}

void TestSafetensorsNpy::bfloat16ToFloat()
{
    QCOMPARE(attnscope::bfloat16ToFloat(0x3F80), 1.0f);
    QCOMPARE(attnscope::bfloat16ToFloat(0xC040), -3.0f);
    QCOMPARE(attnscope::bfloat16ToFloat(0x3EAB), 0.333984375f);
}

void TestSafetensorsNpy::oracleHeaderMatchesCase_data()
{
    addOracleCaseRows({"bert_s0", "bert_s1", "gpt2_s0", "gpt2_s1", "llama_s0", "llama_s1"});
}

// The header as parsed equals the tensor list transformers wrote into case.json.
void TestSafetensorsNpy::oracleHeaderMatchesCase()
{
    QFETCH(QString, caseName);
    QFile caseFile(oracleFolder(caseName) + QStringLiteral("/case.json"));
    QVERIFY(caseFile.open(QIODevice::ReadOnly));
    const QJsonObject tensors =
        QJsonDocument::fromJson(caseFile.readAll()).object().value(QLatin1String("tensors")).toObject();
    const SafetensorsFile file(oracleFolder(caseName) + QStringLiteral("/model.safetensors"));
    QCOMPARE(file.names().size(), tensors.size());
    for (auto it = tensors.begin(); it != tensors.end(); ++it) {
        const TensorInfo* info = file.find(it.key());
        QVERIFY2(info, qPrintable(it.key()));
        const QJsonArray expected = it.value().toArray();
        QCOMPARE(dtypeName(info->dtype), expected[0].toString());
        std::vector<qint64> shape;
        for (const QJsonValue& d : expected[1].toArray())
            shape.push_back(d.toInteger());
        QCOMPARE(info->shape, shape);
    }
}

// Tensors of 4 MiB and more are converted over all cores into buffers that are reused once freed (a later
// tensor of the same size gets the memory of an earlier one, with its old values): every value must still be
// the bf16 bit pattern shifted up by 16 (the definition of bf16), rows and the SIMD tail included.
void TestSafetensorsNpy::largeBf16ReusesBuffers()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("big.safetensors"));
    const qint64 rows = 1027, cols = 1023; // 1,050,621 values (4.2 MB as f32), not a multiple of 8
    const auto pattern = [&](std::uint16_t seed) {
        QByteArray bytes(int(rows * cols * 2), Qt::Uninitialized);
        for (qint64 i = 0; i < rows * cols; ++i) {
            const std::uint16_t v = std::uint16_t(seed + i * 40503u);
            std::memcpy(bytes.data() + 2 * i, &v, 2);
        }
        return bytes;
    };
    writeSafetensors(path, {{QStringLiteral("a"), TensorDtype::BF16, {rows, cols}, pattern(7)},
                            {QStringLiteral("b"), TensorDtype::BF16, {rows, cols}, pattern(11)}});
    const WeightStore store = WeightStore::openFiles({path});
    for (const char* name : {"a", "b", "a", "b"}) {
        const std::uint16_t seed = name[0] == 'a' ? 7 : 11;
        const WeightTensor t = store.load(QString::fromLatin1(name));
        QCOMPARE(t.size(), rows * cols);
        qint64 wrong = 0;
        for (qint64 i = 0; i < rows * cols; ++i) {
            std::uint32_t bits;
            std::memcpy(&bits, t.data() + i, 4);
            wrong += bits != (std::uint32_t(std::uint16_t(seed + i * 40503u)) << 16);
        }
        QCOMPARE(wrong, qint64(0));
    }
    const WeightTensor rowsOnly = store.loadRows(QStringLiteral("b"), 3, 2);
    std::uint32_t bits;
    std::memcpy(&bits, rowsOnly.data() + 5, 4);
    QCOMPARE(bits, std::uint32_t(std::uint16_t(11 + (3 * cols + 5) * 40503u)) << 16);
}

void TestSafetensorsNpy::writeReadRoundTrip()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.safetensors"));
    // 1.5, -0.25 as F16 (0x3E00, 0xB400) and as BF16 (0x3FC0, 0xBE80); F32 values as given.
    const QByteArray f16("\x00\x3E\x00\xB4", 4);
    const QByteArray bf16("\xC0\x3F\x80\xBE", 4);
    writeSafetensors(path, {{QStringLiteral("f32"), TensorDtype::F32, {3}, floatBytes({1.0f, -2.5f, 1e-8f})},
                            {QStringLiteral("f16"), TensorDtype::F16, {2, 1}, f16},
                            {QStringLiteral("bf16"), TensorDtype::BF16, {1, 2}, bf16},
                            {QStringLiteral("ids"), TensorDtype::I64, {1}, QByteArray(8, '\0')}});
    const WeightStore store = WeightStore::openFiles({path});
    QCOMPARE(store.load(QStringLiteral("f32")).data()[1], -2.5f);
    QCOMPARE(store.load(QStringLiteral("f32")).data()[2], 1e-8f);
    const WeightTensor half = store.load(QStringLiteral("f16"));
    QCOMPARE(half.shape(), (std::vector<qint64>{2, 1}));
    QCOMPARE(half.data()[0], 1.5f);
    QCOMPARE(half.data()[1], -0.25f);
    QVERIFY(!half.isView());
    const WeightTensor b = store.load(QStringLiteral("bf16"));
    QCOMPARE(b.data()[0], 1.5f);
    QCOMPARE(b.data()[1], -0.25f);
    const WeightTensor row = store.loadRows(QStringLiteral("f16"), 1, 1);
    QCOMPARE(row.data()[0], -0.25f);
    // Integer tensors are indexed but not read as weights.
    QVERIFY(store.contains(QStringLiteral("ids")));
    QVERIFY_THROWS_EXCEPTION(ModelError, store.load(QStringLiteral("ids")));
    QVERIFY_THROWS_EXCEPTION(ModelError, store.load(QStringLiteral("absent")));
}

// F32 tensors are views into the mapping: no fp32 copy of F32 weights.
void TestSafetensorsNpy::f32IsUsedInPlace()
{
    const QString path = oracleFolder(QStringLiteral("gpt2_s0")) + QStringLiteral("/model.safetensors");
    const WeightStore store = WeightStore::openFiles({path});
    const WeightTensor wte = store.load(QStringLiteral("transformer.wte.weight"));
    QVERIFY(wte.isView());
    const SafetensorsFile& file = *store.files().front();
    const TensorInfo& info = *file.find(QStringLiteral("transformer.wte.weight"));
    QCOMPARE(static_cast<const void*>(wte.data()), static_cast<const void*>(file.bytes(info)));
    QCOMPARE(wte.rows(), 361);
    QCOMPARE(wte.cols(), 32);
}

// The mapped weights carry MADV_HUGEPAGE (util/prefetch.h): read through it, a model file is cached in
// 2 MiB pages, which later runs map with one entry each.
void TestSafetensorsNpy::mappingAsksForLargePages()
{
#ifndef Q_OS_LINUX
    QSKIP("madvise(MADV_HUGEPAGE) is Linux's");
#endif
    if (!kernelHasTransparentHugePages()) QSKIP("this kernel has no transparent huge pages");
    const SafetensorsFile file(oracleFolder(QStringLiteral("gpt2_s0")) +
                               QStringLiteral("/model.safetensors"));
    const QStringList flags = mappingFlags(file.mapping());
    QVERIFY2(!flags.isEmpty(), "the mapping is not in /proc/self/smaps");
    QVERIFY2(flags.contains(QStringLiteral("hg")), qPrintable(flags.join(QLatin1Char(' '))));
}

void TestSafetensorsNpy::npyRoundTrip_data()
{
    QTest::addColumn<QVector<qint64>>("shape");
    QTest::newRow("scalar") << QVector<qint64>{};
    QTest::newRow("1-D") << QVector<qint64>{5};
    QTest::newRow("4-D") << QVector<qint64>{2, 3, 4, 4};
    QTest::newRow("empty") << QVector<qint64>{0, 3};
}

void TestSafetensorsNpy::npyRoundTrip()
{
    QFETCH(QVector<qint64>, shape);
    const std::vector<qint64> dims(shape.begin(), shape.end());
    qint64 count = 1;
    for (qint64 d : dims)
        count *= d;
    std::vector<float> f(static_cast<size_t>(count));
    std::vector<double> d(static_cast<size_t>(count));
    for (qint64 i = 0; i < count; ++i) {
        f[size_t(i)] = float(i) / 7.0f - 1.0f;
        d[size_t(i)] = double(i) / 7.0 - 1.0;
    }
    const QByteArray fb = npyBytes(f, dims);
    QCOMPARE((fb.indexOf('\n') + 1) % 64, 0); // data starts 64-byte aligned, as numpy writes it
    const NpyArray a = parseNpy(fb, QStringLiteral("f"));
    QCOMPARE(a.type, NpyArray::Type::Float32);
    QCOMPARE(a.shape, dims);
    QCOMPARE(a.toFloat(), f);
    const NpyArray b = parseNpy(npyBytes(d, dims), QStringLiteral("d"));
    QCOMPARE(b.type, NpyArray::Type::Float64);
    QCOMPARE(b.values, d);
}

void TestSafetensorsNpy::npyReadsOracle()
{
    const NpyArray a = oracleAttentions(QStringLiteral("gpt2_s0"));
    QCOMPARE(a.type, NpyArray::Type::Float64);
    QCOMPARE(a.shape, (std::vector<qint64>{2, 4, 11, 11}));
    // Rows of a softmax sum to 1; causal: the first row is [1, 0, ...].
    double rowSum = 0;
    for (int k = 0; k < 11; ++k)
        rowSum += a.values[size_t(5 * 11 + k)];
    QVERIFY(std::abs(rowSum - 1.0) < 1e-12);
    QCOMPARE(a.values[0], 1.0);
    QCOMPARE(a.values[1], 0.0);
}

void TestSafetensorsNpy::npyRejectsBadFiles()
{
    QVERIFY_THROWS_EXCEPTION(NpyError, parseNpy(QByteArray("hello"), QStringLiteral("x")));
    QByteArray bytes = npyBytes(std::vector<float>{1, 2, 3}, {3});
    QVERIFY_THROWS_EXCEPTION(NpyError, parseNpy(bytes.left(bytes.size() - 1), QStringLiteral("x")));
    QByteArray intArray = bytes;
    intArray.replace("<f4", "<i4");
    QVERIFY_THROWS_EXCEPTION(NpyError, parseNpy(intArray, QStringLiteral("x")));
    QByteArray fortran = bytes;
    fortran.replace("False", "True ");
    QVERIFY_THROWS_EXCEPTION(NpyError, parseNpy(fortran, QStringLiteral("x")));
    QVERIFY_THROWS_EXCEPTION(NpyError, readNpyFile(QStringLiteral("/nonexistent/a.npy")));
}

void TestSafetensorsNpy::npyHeaderOnBlockBoundaries_data()
{
    QTest::addColumn<int>("alignment");
    QTest::newRow("64, the format's") << 64;
    QTest::newRow("4096, a page") << 4096;
    QTest::newRow("32768, the largest") << 32768;
}

// A header padded to a larger power of two is still a valid npy (the format asks for a multiple of 64 and
// a dict padded with spaces, ended by '\n'): parseNpy reads the values after it, and so does numpy.
void TestSafetensorsNpy::npyHeaderOnBlockBoundaries()
{
    QFETCH(int, alignment);
    const std::vector<qint64> shape{1, 2, 3, 3};
    const QByteArray header = npyHeader(shape, false, alignment);
    QCOMPARE(header.size() % alignment, 0);
    QVERIFY(header.size() < alignment + 128); // padded to the next boundary, not past it
    QVERIFY(header.startsWith(QByteArray("\x93NUMPY\x01\x00", 8)));
    const int dictLength = quint8(header[8]) | (quint8(header[9]) << 8);
    QCOMPARE(10 + dictLength, header.size());
    QVERIFY(header.endsWith('\n'));
    const QByteArray dict = header.mid(10, dictLength - 1);
    const int closing = dict.lastIndexOf('}');
    QVERIFY(closing > 0);
    QCOMPARE(dict.mid(closing + 1), QByteArray(dict.size() - closing - 1, ' '));
    // The same dict as the 64-byte header, only more padding.
    const QByteArray plain = npyHeader(shape);
    QCOMPARE(dict.left(closing + 1), plain.mid(10, plain.lastIndexOf('}') - 9));
    std::vector<float> values(18);
    for (size_t i = 0; i < values.size(); ++i)
        values[i] = float(i) * 0.5f - 3.0f;
    const NpyArray read =
        parseNpy(header + QByteArray(reinterpret_cast<const char*>(values.data()), int(values.size() * 4)),
                 QStringLiteral("aligned"));
    QCOMPARE(read.shape, shape);
    QCOMPARE(read.toFloat(), values);
    // Not a power of two, below the format's 64, or past a 16-bit header length: refused.
    for (int bad : {0, 32, 100, 4095, 65536})
        QVERIFY_THROWS_EXCEPTION(NpyError, npyHeader(shape, false, bad));
}

QTEST_GUILESS_MAIN(TestSafetensorsNpy)
#include "tst_safetensors_npy.moc"
