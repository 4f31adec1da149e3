// ops::linear, the projection every model layer runs (Eigen, or OpenBLAS's sgemm when the build found it):
// checked against a plain double-precision loop for both weight layouts, column ranges, row strides,
// bias and each activation, on the sizes the model uses (one block and the threaded split).

#include "model/tensorops.h"
#include "support/testdata.h"

#include <QtTest>
#include <cmath>
#include <random>

using namespace attnscope;
using namespace attnscope::testing;
using namespace attnscope::ops;

class TestTensorOps : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void linearMatchesLoop_data()
    {
        QTest::addColumn<int>("n");
        QTest::addColumn<int>("in");
        QTest::addColumn<int>("out");
        QTest::addColumn<int>("c0");
        QTest::addColumn<int>("c1");
        QTest::addColumn<bool>("inputMajor");
        QTest::addColumn<int>("activation"); // -1 none
        QTest::addColumn<int>("threads");
        QTest::newRow("small out-in") << 5 << 16 << 24 << 0 << 24 << false << -1 << 1;
        QTest::newRow("bert-like, threaded")
            << 130 << 128 << 512 << 0 << 512 << false << int(Activation::GeluErf) << 2;
        QTest::newRow("column range out-in") << 64 << 96 << 300 << 100 << 237 << false << -1 << 2;
        QTest::newRow("conv1d in-out") << 70 << 64 << 192 << 0 << 192 << true << -1 << 2;
        QTest::newRow("conv1d column range")
            << 70 << 64 << 192 << 64 << 128 << true << int(Activation::GeluTanh) << 2;
        QTest::newRow("silu, one row") << 1 << 200 << 50 << 0 << 50 << false << int(Activation::Silu) << 2;
        QTest::newRow("relu, odd sizes")
            << 33 << 47 << 129 << 3 << 129 << false << int(Activation::Relu) << 3;
    }

    void linearMatchesLoop()
    {
        QFETCH(int, n);
        QFETCH(int, in);
        QFETCH(int, out);
        QFETCH(int, c0);
        QFETCH(int, c1);
        QFETCH(bool, inputMajor);
        QFETCH(int, activation);
        QFETCH(int, threads);
        std::mt19937 random(7);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        const int xStride = in + 5, yStride = (c1 - c0) + 3; // rows are strided on both sides
        std::vector<float> x(size_t(n) * xStride), weight(size_t(in) * out), bias(static_cast<size_t>(out));
        for (float& v : x)
            v = normal(random);
        for (float& v : weight)
            v = normal(random) / std::sqrt(float(in));
        for (float& v : bias)
            v = normal(random);
        LinearWeight w{weight.data(), bias.data(), in, out,
                       inputMajor ? WeightLayout::InOut : WeightLayout::OutIn};
        const std::optional<Activation> act =
            activation < 0 ? std::nullopt : std::optional<Activation>(Activation(activation));
        const float sentinel = 12345.0f;
        std::vector<float> y(size_t(n) * yStride, sentinel);
        linear(x.data(), n, xStride, w, c0, c1, y.data(), yStride, act, threads);

        double worst = 0;
        for (int r = 0; r < n; ++r) {
            for (int c = c0; c < c1; ++c) {
                double sum = bias[size_t(c)];
                for (int i = 0; i < in; ++i) {
                    const float wi = inputMajor ? weight[size_t(i) * out + c] : weight[size_t(c) * in + i];
                    sum += double(x[size_t(r) * xStride + i]) * wi;
                }
                const double expected = act ? referenceActivation(sum, *act) : sum;
                worst = std::max(worst, std::abs(double(y[size_t(r) * yStride + (c - c0)]) - expected) /
                                            std::max(1.0, std::abs(expected)));
            }
            for (int pad = c1 - c0; pad < yStride; ++pad) // the stride's gap is never written
                QCOMPARE(y[size_t(r) * yStride + pad], sentinel);
        }
        // float32 products of length `in` against double: a few ulps times sqrt(in)
        QVERIFY2(worst < 2e-5, qPrintable(QStringLiteral("max relative error %1").arg(worst)));
    }
};

QTEST_MAIN(TestTensorOps)
#include "tst_tensorops.moc"
