#pragma once

// Per-head attention statistics (definitions and sources in docs/metrics.md).

#include <QString>
#include <optional>
#include <vector>

namespace attnscope {

// What each token position is, as far as the statistics care.
struct TokenRoles
{
    std::vector<bool> special; // one flag per position: [CLS], [SEP], BOS, EOS... (excluded as query rows)
    std::vector<int> clsPositions;         // [CLS] (BERT) or BOS (decoders) positions: "cls_mass"
    std::vector<int> sepPositions;         // [SEP] / EOS positions: "sep_mass"
    std::vector<int> punctuationPositions; // tokens that are only punctuation ("." ","): "punct_mass"
    bool causal = false;                   // query i sees keys 0..i only (decoders)

    bool isSpecial(int position) const
    {
        return position >= 0 && size_t(position) < special.size() && special[size_t(position)];
    }
};

enum class HeadLabel { Sink, NoOp, PreviousToken, NextToken, Self, Broad, Mixed };

// Thresholds of the automatic label. A head gets the pattern label with the largest score among those
// at or above their threshold; else "broad" when its normalised entropy reaches broadEntropy; else "mixed".
struct LabelThresholds
{
    double sink = 0.5;         // sink_mass (attention to position 0)
    double noOp = 0.5;         // sep_mass
    double previous = 0.5;     // prev
    double next = 0.5;         // next
    double self = 0.5;         // self
    double broadEntropy = 0.8; // normalised entropy, 0 (one-hot) .. 1 (uniform over visible keys)
};

struct HeadStats
{
    int layer = 0;
    int head = 0;
    int rowsUsed = 0;             // query rows the means run over
    double entropy = 0;           // mean row entropy in nats
    double normalizedEntropy = 0; // mean of H(row) / ln(visible keys) over rows with >= 2 visible keys
    double sinkMass = 0;          // mean P[i, 0]
    double sink4Mass = 0;         // mean sum_{j<4} P[i, j]
    double sepMass = 0;           // mean sum_{j in [SEP]} P[i, j]
    double clsMass = 0;           // mean sum_{j in [CLS]/BOS} P[i, j]
    double punctMass = 0;         // mean sum_{j in punctuation} P[i, j] (0 when no position is given)
    double self = 0;              // mean P[i, i]
    double previous = 0;          // mean P[i, i-1] over rows i >= 1
    double next = 0;              // mean P[i, i+1] over rows i + 1 < n_k (0 under a causal mask)
    // Mean 1 − sum_j P[i, j]: the mass a learned sink (gpt-oss) took from the row; 0 up to float rounding
    // (|x| < 1e-6) where the rows sum to 1.
    double learnedSinkMass = 0;
    HeadLabel label = HeadLabel::Mixed;
};

HeadLabel classifyHead(const HeadStats& stats, const LabelThresholds& thresholds);
QString headLabelName(HeadLabel label); // stable ids used in JSON: "sink", "no-op", "previous-token", ...
std::optional<HeadLabel> headLabelFromName(const QString& name);

// The metrics in a fixed order, for tables, sorting and colouring the grid.
enum class HeadMetric {
    Entropy,
    NormalizedEntropy,
    SinkMass,
    Sink4Mass,
    SepMass,
    ClsMass,
    PunctMass,
    Self,
    Previous,
    Next
};
std::vector<HeadMetric> allHeadMetrics();
double headMetricValue(const HeadStats& stats, HeadMetric metric);
QString headMetricId(HeadMetric metric); // JSON key: "entropy", "sink_mass", ...

} // namespace attnscope
