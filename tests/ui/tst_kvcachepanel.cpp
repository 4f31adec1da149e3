// The lesson's KV-cache calculator (issue 16): its table against hand computation from the published
// configs (bytes = layers × cached numbers per layer × bytes per number × tokens), formatted for people.

#include "lesson/kvcachepanel.h"
#include "lesson/lessonview.h"

#include <QLabel>
#include <QLocale>
#include <QTabWidget>
#include <QTableWidget>
#include <QtTest>

using namespace attnscope;

namespace {
int rowOf(const KvCachePanel& panel, const QString& name)
{
    for (int r = 0; r < panel.table()->rowCount(); ++r)
        if (panel.table()->item(r, 0)->text() == name) return r;
    return -1;
}
QString cell(const KvCachePanel& panel, const QString& name, int column)
{
    const int r = rowOf(panel, name);
    return r < 0 ? QString() : panel.table()->item(r, column)->text();
}
} // namespace

class TestKvCachePanel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedStates)); }

    void bytesByHand()
    {
        KvCachePanel panel;
        panel.setContext(8192);
        panel.setBytesPerElement(2);
        // Llama-3-8B: 32 layers × 2 × 8 KV heads × 128 = 65,536 numbers = 131,072 bytes per token; 8,192
        // tokens: 2^30 bytes; 32 query heads over 8 KV heads: 4× smaller than MHA.
        QCOMPARE(cell(panel, QStringLiteral("Llama-3-8B"), 4), QStringLiteral("128.00 KiB"));
        QCOMPARE(cell(panel, QStringLiteral("Llama-3-8B"), 5), QStringLiteral("1.00 GiB"));
        QCOMPARE(cell(panel, QStringLiteral("Llama-3-8B"), 6), QStringLiteral("4.0× smaller"));
        QCOMPARE(cell(panel, QStringLiteral("Mistral-7B"), 4), QStringLiteral("128.00 KiB"));
        // Qwen2.5-7B: 28 × 2 × 4 × 128 × 2 bytes = 57,344 bytes = 56 KiB; 7× smaller (28 / 4).
        QCOMPARE(cell(panel, QStringLiteral("Qwen2.5-7B"), 4), QStringLiteral("56.00 KiB"));
        QCOMPARE(cell(panel, QStringLiteral("Qwen2.5-7B"), 6), QStringLiteral("7.0× smaller"));
        // DeepSeek-V3: 61 layers × (512 latent + 64 RoPE key) × 2 bytes = 70,272 bytes = 68.625 KiB; against
        // 2 × 128 heads × 128 per layer: 32,768 / 576 = 56.9× smaller.
        QCOMPARE(cell(panel, QStringLiteral("DeepSeek-V3"), 1), QStringLiteral("MLA"));
        QCOMPARE(cell(panel, QStringLiteral("DeepSeek-V3"), 4), QStringLiteral("68.63 KiB"));
        QCOMPARE(cell(panel, QStringLiteral("DeepSeek-V3"), 6), QStringLiteral("56.9× smaller"));
        // DeepSeek-V2: 60 × 576 × 2 × 8,192 = 566,231,040 bytes = 540.00 MiB.
        QCOMPARE(cell(panel, QStringLiteral("DeepSeek-V2"), 5), QStringLiteral("540.00 MiB"));
        // FP8 halves every figure.
        panel.setBytesPerElement(1);
        QCOMPARE(cell(panel, QStringLiteral("Llama-3-8B"), 5), QStringLiteral("512.00 MiB"));
    }

    // The explorer's model comes first; MHA (kv heads = heads) and MQA (one KV head) by hand.
    void loadedModel()
    {
        KvCachePanel panel;
        panel.setContext(256);
        KvCacheShape tiny{QStringLiteral("tiny"), CacheAttention::MHA, 4, 8, 8, 32, 0, 0};
        panel.setLoadedModel(tiny);
        QCOMPARE(panel.table()->item(0, 0)->text(), QStringLiteral("tiny"));
        // 4 × 2 × 8 × 32 × 2 bytes = 4,096 bytes per token; × 256 = 1 MiB.
        QCOMPARE(cell(panel, QStringLiteral("tiny"), 4), QStringLiteral("4.00 KiB"));
        QCOMPARE(cell(panel, QStringLiteral("tiny"), 5), QStringLiteral("1.00 MiB"));
        KvCacheShape mqa{QStringLiteral("mqa"), CacheAttention::MQA, 4, 8, 1, 32, 0, 0};
        panel.setLoadedModel(mqa);
        QCOMPARE(cell(panel, QStringLiteral("mqa"), 4), QStringLiteral("512 bytes"));
        QCOMPARE(cell(panel, QStringLiteral("mqa"), 6), QStringLiteral("8.0× smaller"));
        QVERIFY(panel.explanation()->text().contains(QLatin1String("GQA")));
        QVERIFY(panel.explanation()->text().contains(QLatin1String("MLA")));
    }

    // The panel is one of the lesson's experiment tabs.
    void inTheLesson()
    {
        LessonView view;
        QVERIFY(view.findChild<KvCachePanel*>());
    }
};

QTEST_MAIN(TestKvCachePanel)
#include "tst_kvcachepanel.moc"
