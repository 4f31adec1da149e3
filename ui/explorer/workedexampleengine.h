#pragma once

#include "explorer/attentionengine.h"

namespace attnscope {

// The classroom example "kedi mindere oturdu" (core/attention/workedexample.h): one head, three tokens,
// fixed Q, K, V. The explorer opens on it when no model is available.
class WorkedExampleEngine final : public AttentionEngine
{
public:
    QString displayName() const override;
    QString architecture() const override;
    bool supportsTextB() const override { return false; }
    std::optional<QString> fixedText() const override { return QStringLiteral("kedi mindere oturdu"); }

protected:
    AttentionRun compute(const QString& textA, const std::optional<QString>& textB,
                         const std::atomic<bool>* cancel, const TokenWindow& window) const override;
};

} // namespace attnscope
