#pragma once

#include "explorer/attentionengine.h"

namespace attnscope {

// A demo "model" with no weights: each head's Q and K are built from positional and token-role features
// so that it shows one textbook pattern (previous token, next token, attention sink, [SEP] no-op, self,
// broad), then real scaled-dot-product attention runs on them (attentionTiled, recomputed tiles). It lets
// the explorer work, and be tested at 2,048 tokens, with no model installed. It is labelled as synthetic.
class SyntheticEngine final : public AttentionEngine
{
public:
    struct Config
    {
        int layers = 4;
        int heads = 6;
        bool causal = false; // decoder flavour: causal mask, a BOS token, no [SEP]
        int threads = 0;
    };
    explicit SyntheticEngine(Config config);

    QString displayName() const override;
    QString architecture() const override;
    bool supportsTextB() const override { return !m_config.causal; }

protected:
    AttentionRun compute(const QString& textA, const std::optional<QString>& textB,
                         const std::atomic<bool>* cancel, const TokenWindow& window) const override;

public:
    // The pattern head `head` of layer `layer` is built to show (for tests): a HeadLabel.
    HeadLabel designedPattern(int layer, int head) const;

private:
    Config m_config;
};

} // namespace attnscope
