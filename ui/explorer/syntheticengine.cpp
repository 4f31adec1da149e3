#include "explorer/syntheticengine.h"

#include "attention/tiledattentionmaps.h"
#include "explorer/backenddescription.h"
#include "explorer/wordtokenizer.h"

#include <QCoreApplication>
#include <array>
#include <cmath>

namespace attnscope {

namespace {
constexpr int kDim = 32;
constexpr int kFrequencies = 12; // dims 0..23: sin/cos positional pairs
constexpr int kSinkDim = 24;     // key 0 carries a 1 here
constexpr int kSepDim = 25;      // [SEP] keys carry a 1 here
constexpr int kContentDim = 26;  // 26..31: a hash of the token text

constexpr std::array<HeadLabel, 6> kPatterns{HeadLabel::PreviousToken, HeadLabel::Sink, HeadLabel::NextToken,
                                             HeadLabel::NoOp,          HeadLabel::Self, HeadLabel::Broad};

double frequency(int f)
{
    return M_PI /
           std::pow(2.0, f * 0.5); // π, π/√2, π/2, ...: neighbours differ clearly, far tokens do not alias
}

void positional(float* out, double position, float scale)
{
    for (int f = 0; f < kFrequencies; ++f) {
        out[2 * f] = scale * float(std::sin(frequency(f) * position));
        out[2 * f + 1] = scale * float(std::cos(frequency(f) * position));
    }
}

void content(float* out, const QString& token, float scale)
{
    uint h = qHash(token.toLower());
    for (int c = 0; c < kDim - kContentDim; ++c) {
        h = h * 1664525u + 1013904223u;
        out[c] = scale * (float((h >> 9) & 1023) / 511.5f - 1.0f);
    }
}
} // namespace

SyntheticEngine::SyntheticEngine(Config config) : m_config(config) {}

QString SyntheticEngine::displayName() const
{
    return m_config.causal ? QCoreApplication::translate("attnscope", "Synthetic decoder demo (no weights)")
                           : QCoreApplication::translate("attnscope", "Synthetic encoder demo (no weights)");
}

QString SyntheticEngine::architecture() const
{
    return QCoreApplication::translate("attnscope", "synthetic %1, %2 layers × %3 heads")
        .arg(m_config.causal ? QCoreApplication::translate("attnscope", "decoder")
                             : QCoreApplication::translate("attnscope", "encoder"))
        .arg(m_config.layers)
        .arg(m_config.heads);
}

HeadLabel SyntheticEngine::designedPattern(int layer, int head) const
{
    HeadLabel pattern = kPatterns[size_t(head + layer) % kPatterns.size()];
    if (m_config.causal && pattern == HeadLabel::NextToken)
        return HeadLabel::PreviousToken; // a causal head cannot look ahead
    if (m_config.causal && pattern == HeadLabel::NoOp)
        return HeadLabel::Sink; // no [SEP] in a decoder: the BOS sink plays that role
    return pattern;
}

AttentionRun SyntheticEngine::compute(const QString& textA, const std::optional<QString>& textB,
                                      const std::atomic<bool>* cancel, const TokenWindow&) const
{
    const WordTokens words = wordTokenize(textA, m_config.causal ? std::nullopt : textB, !m_config.causal);
    const int n = words.tokens.size();
    AttentionRun run;
    run.tokens = words.tokens;
    run.roles.special = words.special;
    run.roles.causal = m_config.causal;
    run.roles.clsPositions = {0};
    for (int i = 0; i < n; ++i) {
        const auto [b, e] = words.offsets[size_t(i)];
        Q_UNUSED(b);
        Q_UNUSED(e);
        run.labels << words.tokens.at(i); // the word tokenizer's tokens are the exact substrings
        if (words.special[size_t(i)] && i > 0) run.roles.sepPositions.push_back(i);
    }
    AttentionOptions options;
    options.scale = 1.0f;
    options.causal = m_config.causal;
    options.threads = m_config.threads;
    std::vector<TiledAttentionMaps::Layer> layers;
    for (int l = 0; l < m_config.layers; ++l) {
        if (cancel && cancel->load()) return run;
        HeadTensor q(n, m_config.heads, kDim), k(n, m_config.heads, kDim);
        for (int h = 0; h < m_config.heads; ++h) {
            const HeadLabel pattern = designedPattern(l, h);
            for (int i = 0; i < n; ++i) {
                float* qi = q.vector(i, h);
                float* ki = k.vector(i, h);
                const bool isSep = words.special[size_t(i)] && i > 0;
                positional(ki, i, 1.0f);
                ki[kSinkDim] = i == 0 ? 1.0f : 0.0f;
                ki[kSepDim] = isSep ? 1.0f : 0.0f;
                content(ki + kContentDim, words.tokens.at(i), 1.0f);
                // Positional dot products peak at 12 for equal positions and drop by >= 2 for a neighbour.
                switch (pattern) {
                case HeadLabel::PreviousToken:
                    positional(qi, i - 1, 2.5f);
                    qi[kSinkDim] = 2.0f;
                    break;
                case HeadLabel::NextToken:
                    positional(qi, i + 1, 2.5f);
                    qi[kSepDim] = 2.0f;
                    break;
                case HeadLabel::Self:
                    positional(qi, i, 2.0f);
                    break;
                case HeadLabel::Sink:
                    positional(qi, i, 0.3f);
                    qi[kSinkDim] = 9.0f + 0.5f * float(l);
                    break;
                case HeadLabel::NoOp:
                    positional(qi, i, 0.3f);
                    qi[kSepDim] = 8.0f;
                    break;
                default:
                    content(qi + kContentDim, words.tokens.at(i), 0.6f);
                    qi[kSinkDim] = 1.0f;
                    break;
                }
            }
        }
        const TiledAttentionResult tiled = attentionTiled(q, k, k, options);
        TiledAttentionMaps::Layer layer;
        layer.rotatedQueries = std::move(q);
        layer.rotatedKeys = std::move(k);
        layer.logSumExp = tiled.logSumExp;
        layer.options = options;
        layers.push_back(std::move(layer));
    }
    if (cancel && cancel->load()) return run;
    run.maps = std::make_shared<TiledAttentionMaps>(std::move(layers));
    run.backend = cpuBackendDescription();
    return run;
}

} // namespace attnscope
