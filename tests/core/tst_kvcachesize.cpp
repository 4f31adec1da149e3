// The KV-cache calculator against hand computation: bytes per token = layers × cached elements per layer ×
// bytes per element, for the presets (published configs) and for loaded models' shapes.

#include "core/support/modelfixtures.h"
#include "generation/kvcachesize.h"
#include "model/transformermodel.h"

#include <QtTest>

using namespace attnscope;

class TestKvCacheSize : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void presetsByHand();
    void loadedModels();
};

void TestKvCacheSize::presetsByHand()
{
    const std::vector<KvCacheShape> presets = kvCachePresets();
    QCOMPARE(presets.size(), size_t(5));
    // Llama-3-8B in bf16: 2 (K, V) × 32 layers × 8 kv heads × 128 × 2 bytes = 131,072 = 128 KiB per token.
    QCOMPARE(presets[0].name, QStringLiteral("Llama-3-8B"));
    QCOMPARE(presets[0].bytesPerToken(2), std::int64_t(131072));
    QCOMPARE(presets[0].bytesPerToken(2), std::int64_t(128 * 1024));
    // 8,192 tokens: 1 GiB; its MHA form (32 kv heads) 4× as much.
    QCOMPARE(presets[0].bytes(8192, 2), std::int64_t(1) << 30);
    QCOMPARE(presets[0].mhaElementsPerToken(), 4 * presets[0].elementsPerToken());
    QCOMPARE(presets[1].name, QStringLiteral("Mistral-7B"));
    QCOMPARE(presets[1].bytesPerToken(2), std::int64_t(128 * 1024));
    // Qwen2.5-7B: 2 × 28 × 4 × 128 × 2 = 57,344 = 56 KiB; fp32 twice that.
    QCOMPARE(presets[2].name, QStringLiteral("Qwen2.5-7B"));
    QCOMPARE(presets[2].bytesPerToken(2), std::int64_t(56 * 1024));
    QCOMPARE(presets[2].bytesPerToken(4), std::int64_t(112 * 1024));
    // DeepSeek-V2: (512 + 64) = 576 elements per token per layer × 60 layers × 2 bytes = 69,120.
    QCOMPARE(presets[3].name, QStringLiteral("DeepSeek-V2"));
    QCOMPARE(presets[3].elementsPerTokenPerLayer(), std::int64_t(576));
    QCOMPARE(presets[3].bytesPerToken(2), std::int64_t(576 * 60 * 2));
    QCOMPARE(presets[3].bytesPerToken(2), std::int64_t(69120));
    // DeepSeek-V3: 576 × 61 × 2 = 70,272; at 128K tokens (131,072) 8.58 GiB, batch 2 twice.
    QCOMPARE(presets[4].name, QStringLiteral("DeepSeek-V3"));
    QCOMPARE(presets[4].bytesPerToken(2), std::int64_t(70272));
    QCOMPARE(presets[4].bytes(131072, 2, 2), std::int64_t(70272) * 131072 * 2);
    // Against 128 heads keeping keys and values of 128 each (2 × 128 × 128 = 32,768 per layer): 576 is 1.76%.
    QCOMPARE(presets[4].mhaElementsPerToken(), std::int64_t(32768) * 61);
    QCOMPARE(QLatin1String(cacheAttentionName(presets[4].attention)), QLatin1String("MLA"));
}

void TestKvCacheSize::loadedModels()
{
    // llama_s0: 2 layers, 4 heads, 2 kv heads, head_dim 8 -> GQA, 2 × 2 × 8 × 2 layers = 64 elements per
    // token.
    const auto gqa = TransformerModel::open(testing::oracleFolder(QStringLiteral("llama_s0")));
    const KvCacheShape s = kvCacheShape(gqa->config(), QStringLiteral("llama_s0"));
    QCOMPARE(s.attention, CacheAttention::GQA);
    QCOMPARE(s.elementsPerToken(),
             std::int64_t(2 * gqa->config().kvHeads * gqa->config().headDim * gqa->config().layers));
    QCOMPARE(s.elementsPerToken(), std::int64_t(2 * 2 * 8 * 2));
    QCOMPARE(s.bytesPerToken(4), std::int64_t(256));
    // llama_s1: one kv head (MQA); gpt2_s0: every head its own (MHA).
    QCOMPARE(
        kvCacheShape(TransformerModel::open(testing::oracleFolder(QStringLiteral("llama_s1")))->config(), {})
            .attention,
        CacheAttention::MQA);
    const auto gpt2 = TransformerModel::open(testing::oracleFolder(QStringLiteral("gpt2_s0")));
    const KvCacheShape m = kvCacheShape(gpt2->config(), {});
    QCOMPARE(m.attention, CacheAttention::MHA);
    QCOMPARE(m.elementsPerToken(), m.mhaElementsPerToken());
}

QTEST_GUILESS_MAIN(TestKvCacheSize)
#include "tst_kvcachesize.moc"
