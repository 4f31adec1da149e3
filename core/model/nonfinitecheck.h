#pragma once

// NaN and ±Inf in a model's numbers, found and named instead of drawn. A weight file holding NaN, or
// weights so large that a product overflows (1e30 × 1e30), would otherwise give plausible pictures:
// softmax turns NaN scores into rows the heatmap paints as 0, statistics call the head "mixed", the LM head
// ranks "nan". The forward pass checks its activations after each stage of each layer (a pass over n × hidden
// floats, small beside the stage itself) and only when something is found scans that stage's weights for
// the culprit, so the message can say where the NaN came from:
//   "<file>: layer 3: NaN in the attention scores (from weight h.3.attn.c_attn.weight?)".

#include "model/modelerror.h"
#include "model/weightstore.h"

#include <QString>
#include <QStringList>
#include <vector>

namespace attnscope {

class NonFiniteCheck
{
public:
    NonFiniteCheck(const WeightStore& weights, QString folder)
        : m_weights(weights), m_folder(std::move(folder))
    {}

    // Throws ModelError "<file>: <where>: NaN in <what> (from weight W?)" when values[0, count) hold a NaN
    // or ±Inf. suspects: the names (or name prefixes, "transformer.h.3.") of the tensors that fed this stage,
    // scanned in name order for the first non-finite value, else for the largest magnitude (overflow).
    // threads: the scan's (firstNonFinite), the pass's own count.
    void check(const float* values, size_t count, const QString& where, const QString& what,
               const QStringList& suspects, int threads = 1) const;
    void check(const std::vector<float>& values, const QString& where, const QString& what,
               const QStringList& suspects, int threads = 1) const
    {
        check(values.data(), values.size(), where, what, suspects, threads);
    }
    // Log-sum-exps of the attention rows: every row sees at least its own key, so -inf means its scores
    // were all NaN (the online softmax skips those as if masked) and is reported like NaN.
    void check(const std::vector<double>& values, const QString& where, const QString& what,
               const QStringList& suspects) const;

private:
    [[noreturn]] void fail(bool isNaN, const QString& where, const QString& what,
                           const QStringList& suspects) const;

    const WeightStore& m_weights;
    QString m_folder;
};

// For the weights that are cheap to scan at open (norms and biases, at most `maxElements`): throws
// ModelError "<file>: tensor W holds NaN at element i" when tensor `name` holds a NaN or ±Inf.
void checkTensorFinite(const WeightStore& weights, const QString& name, qint64 maxElements = 1 << 16);

} // namespace attnscope
