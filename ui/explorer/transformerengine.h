#pragma once

#include "explorer/attentionengine.h"

#include <memory>

namespace attnscope {

class ExplorerBackend;
class Tokenizer;
class TransformerModel;

// A real model folder (core/model's TransformerModel) with its tokenizer. Token labels are the exact
// substrings of the typed text (Encoding offsets), special tokens keep their vocabulary text.
class TransformerEngine final : public AttentionEngine
{
public:
    // Up to this many tokens a run keeps every layer's Q, K, V for "Open in lesson" (for a 1B Llama at
    // 256 tokens about 40 MiB); longer inputs keep only P.
    static constexpr int kQueryKeyLimit = 256;
    static constexpr int kPredictionCount = 5; // the predictions panel's top-k
    // Throws EngineError with the runtime's one-line message when the folder cannot be opened.
    // backend: where attention is computed (read at every run); null = the CPU core.
    static std::shared_ptr<TransformerEngine> open(const QString& folder, int threads = 0,
                                                   std::shared_ptr<const ExplorerBackend> backend = nullptr);
    ~TransformerEngine() override;

    QString displayName() const override;
    QString architecture() const override;
    bool supportsTextB() const override;
    int maxTokens() const override; // max_position_embeddings (or the sliding window when smaller)

protected:
    AttentionRun compute(const QString& textA, const std::optional<QString>& textB,
                         const std::atomic<bool>* cancel, const TokenWindow& window, const LayerProgress& progress) const override;

public:
    const TransformerModel& model() const { return *m_model; }
    const Tokenizer& tokenizer() const { return *m_tokenizer; }

private:
    TransformerEngine() = default;
    std::unique_ptr<TransformerModel> m_model;
    std::unique_ptr<Tokenizer> m_ownTokenizer; // when the model does not carry one itself
    const Tokenizer* m_tokenizer = nullptr;
    int m_threads = 0;
    std::shared_ptr<const ExplorerBackend> m_backend;
};

} // namespace attnscope
