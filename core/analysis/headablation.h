#pragma once

// Does this head matter? Switch heads off (RunOptions::ablations: zero, or the head's mean over positions)
// and measure how the model's own prediction changes: the next token for decoders, every [MASK] for
// encoders. One baseline pass keeps the residual stream at every layer boundary, so a pass with heads of
// layer l ablated starts at layer l from the stored stream: the layers below run once for the whole study.
//
// The scan runs the heads of a layer as copies of one batched pass (ScanMethod::Batched): the layer's
// attention output is reused from the baseline with the head replaced, the layers above run once over every
// copy's rows, the last one for the scored rows only (their queries, attention, W_O, MLP; every row's keys
// and values); the LM head then scores many batches' copies in one product, and each effect is read from
// the logits. The result is each head's exact effect, as ablate() gives it one head at a time
// (ScanMethod::OnePassPerHead), to float rounding.
//
// Usable off the GUI thread: every call takes the study's cancel flag (OperationCancelled) and the scan
// reports progress after each batch of heads (a layer's, or fewer on long inputs).

#include "model/prediction.h"
#include "model/runoptions.h"

#include <QString>
#include <atomic>
#include <functional>
#include <vector>

namespace attnscope {

class TransformerModel;

struct AblationStudyOptions
{
    AttentionBackend* backend = nullptr;
    int threads = 0; // 0 = all cores
    const std::atomic<bool>* cancel = nullptr;
    int topK = 5; // the new top list of each ablated pass
    // The batched scan scores many batches' copies with one LM-head product, holding up to this many logits
    // (floats) at once; at least one batch's (a layer's heads on short inputs).
    size_t scanLogitsHeld = size_t(4) << 20;
};

// What ablating a set of heads changed, over the scored positions (every [MASK], or the last token).
struct AblationEffect
{
    std::vector<HeadAblation> heads;
    double kl = 0; // Σ over positions of KL(p_original ‖ p_ablated), nats
    std::vector<double>
        topProbDelta;            // per position: p_ablated(t) − p_original(t), t = the original top token
    std::vector<Prediction> top; // per position: the ablated pass's top-k
};

// The effect of every head of the model, one at a time: [layers][heads], layer-major.
struct AblationScan
{
    AblationMode mode = AblationMode::Zero;
    int layers = 0, heads = 0;
    std::vector<AblationEffect> effects;

    const AblationEffect& at(int layer, int head) const { return effects[size_t(layer * heads + head)]; }
};

// KL(p ‖ q) in nats; q entries of 0 where p > 0 count as 1e-300 (a finite, very large term).
double klDivergence(const std::vector<double>& p, const std::vector<double>& q);

enum class ScanMethod {
    Batched,        // a layer's heads as copies of one pass (RunOptions::ablationBatch)
    OnePassPerHead, // ablate() for every head: the reference the batched scan is checked against
};

class AblationStudy
{
public:
    // Runs the baseline pass (residual stream kept, distributions scored). Throws ModelError for input the
    // model refuses or when it has nothing to predict (no LM head, an encoder input without [MASK]: the
    // message says which), OperationCancelled when the cancel flag turns true.
    AblationStudy(const TransformerModel& model, std::vector<int> ids, std::vector<int> typeIds,
                  AblationStudyOptions options = {});

    const std::vector<int>& positions() const { return m_positions; }            // the scored positions
    const std::vector<Prediction>& originalTop() const { return m_originalTop; } // the unablated top-k
    int layers() const;
    int heads() const;

    // One ablated pass, started at the lowest ablated layer. Throws ModelError for a layer/head the model
    // lacks, OperationCancelled.
    AblationEffect ablate(const std::vector<HeadAblation>& heads) const;

    // Every head alone, layer by layer; progress(done heads, total) after each batch of heads (each head
    // with OnePassPerHead), from the calling thread. The attention runs on the CPU (the options' backend is
    // not used by the batched passes).
    AblationScan scan(AblationMode mode, const std::function<void(int done, int total)>& progress = {},
                      ScanMethod method = ScanMethod::Batched) const;

private:
    // What the ablated pass's distributions and top-k mean against the baseline's.
    // logDistributions: log q per position when the pass has them (else taken from the distributions).
    AblationEffect effectOf(std::vector<HeadAblation> heads,
                            const std::vector<std::vector<double>>& distributions,
                            const std::vector<std::vector<double>>* logDistributions,
                            std::vector<Prediction> top) const;
    // The same from an ablated pass's logits [positions, vocab] (no distributions built).
    AblationEffect effectOfLogits(std::vector<HeadAblation> heads, const float* logits) const;
    void scanBatched(AblationScan& result, const std::function<void(int, int)>& progress) const;

    const TransformerModel& m_model;
    std::vector<int> m_ids, m_typeIds;
    AblationStudyOptions m_options;
    std::vector<std::vector<float>> m_residuals; // the baseline's stream at each boundary [n · hidden]
    std::vector<HeadTensor> m_headOutputs;       // the baseline's attention output per layer, O [n, H, d]
    std::vector<int> m_positions;
    std::vector<std::vector<double>> m_distributions;
    std::vector<std::vector<double>> m_logDistributions; // log p, 0 where p is 0 (such terms are skipped)
    std::vector<size_t> m_topIds;                        // the original top token per scored position
    std::vector<Prediction> m_originalTop;
};

// Parses "3.2,5.7" (layer.head pairs) or "3" (every head of layer 3); false with *error for anything else or
// for a layer/head outside layers × heads.
bool parseHeadList(const QString& text, int layers, int heads, AblationMode mode,
                   std::vector<HeadAblation>* out, QString* error);

} // namespace attnscope
