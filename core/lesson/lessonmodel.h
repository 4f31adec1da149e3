#pragma once

#include "attention/headtensor.h"
#include "lesson/lessonstep.h"

#include <Eigen/Core>

#include <QStringList>

#include <array>
#include <initializer_list>
#include <optional>
#include <vector>

namespace attnscope {

// Where Q, K and V come from: typed in directly, or projected from token vectors X.
enum class LessonInputMode { QueryKeyValue, Projections };
// The matrices a teacher edits. Q, K, V are n×d_k, n×d_k, n×d_v; X is n×d_model; W_Q and W_K are
// d_model×d_k and W_V is d_model×d_v (Q = X·W_Q, ...).
enum class LessonInput { Q = 0, K = 1, V = 2, X = 3, WQ = 4, WK = 5, WV = 6 };
constexpr int kLessonInputCount = 7;
enum class LessonPositions { None, Rope };

struct LessonOptions
{
    bool scaling = true;  // divide the scores by √d_k (or multiply by scaleOverride)
    bool causal = false;  // −∞ above the diagonal: token i sees tokens 0..i
    LessonPositions positions = LessonPositions::None;
    double ropeTheta = 10000.0; // RoPE base; token i sits at position i
    // A real head's score scale ("Open in lesson"); empty: 1/√d_k.
    std::optional<double> scaleOverride;
};

// The lesson's data model: scaled dot-product attention for a handful of tokens, computed exactly in
// double precision, step by step, with the arithmetic of every cell written out.
//   1 S  = Q·Kᵀ               scores
//   2 S' = S / √d_k            scaling (skipped when options.scaling is off)
//   3 S" = S' + M              M = −∞ above the diagonal when causal, else 0
//   4 P  = softmax(S") by row  every row sums to 1
//   5 O  = P·V                 the weighted sum of the values
// With positions = RoPE, Q and K are rotated (token i at position i, rotate-half pairing, core's
// inverse frequencies) before step 1.
// Bad input (shapes that disagree, an odd d_k for RoPE, too many tokens from a head) throws
// std::invalid_argument with a message a user can act on.
class LessonModel
{
public:
    // The worked example "kedi mindere oturdu" (core/attention/workedexample.h).
    LessonModel();

    // Q, K, V given directly (n×d_k, n×d_k, n×d_v), with the scale the head uses (a scale of exactly
    // 1/√d_k is the usual scaling and is explained as S / √d_k).
    static LessonModel fromMatrices(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                                    const QStringList& tokens, std::optional<double> scale, bool causal);
    // "Open in lesson": head `head` of real Q, K, V ([tokens, heads, dim] as the attention core takes them,
    // Q and K already rotated by RoPE; K and V may have fewer heads, GQA) for tokens
    // [firstToken, firstToken + tokenCount), at most kMaxHeadTokens. The lesson sees only the keys of that
    // range: for a prefix (firstToken = 0) its softmax is exactly the head's attention; for a later range
    // under the causal mask each row is the head's attention renormalised over the keys in the range.
    static constexpr int kMaxHeadTokens = 16; // a 16×16 step still shows every number at 1280×800
    static LessonModel fromHead(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, int head, int firstToken,
                                int tokenCount, const QStringList& tokens, double scale, bool causal);

    // The tokens of the lesson, rows permuted: row i of the result is row permutation[i] of this one
    // (X or Q, K, V and the token names). Weights are shared. Without positions and without the causal
    // mask, the output is permuted the same way: attention alone does not know word order.
    LessonModel permuted(const std::vector<int>& permutation) const;

    LessonInputMode inputMode() const { return m_mode; }
    void setInputMode(LessonInputMode mode);

    int tokenCount() const { return int(m_tokens.size()); }
    const QStringList& tokens() const { return m_tokens; }
    void setToken(int index, const QString& name);
    // Adds zero rows or drops the last rows of X, Q, K and V; new tokens are named "t5", ...
    void setTokenCount(int count);

    const Eigen::MatrixXd& input(LessonInput which) const { return m_inputs[size_t(which)]; }
    // Replaces a whole input; the shape must fit the others.
    void setInput(LessonInput which, const Eigen::MatrixXd& matrix);
    void setInputValue(LessonInput which, int row, int col, double value);

    const LessonOptions& options() const { return m_options; }
    void setOptions(const LessonOptions& options);
    void setScaling(bool on);
    void setCausal(bool on);
    void setPositions(LessonPositions positions, double theta = 10000.0);

    // What the steps use: Q, K, V after the projections (in Projections mode) and RoPE.
    const Eigen::MatrixXd& queries() const { return m_q; }
    const Eigen::MatrixXd& keys() const { return m_k; }
    const Eigen::MatrixXd& values() const { return m_v; }
    int keyDimension() const { return int(m_q.cols()); }
    // The factor the scores are multiplied by in step 2: 1/√d_k, the head's scale, or 1 when off.
    double scale() const;

    // Builds the step titles and explanations again in the current language (after a translator change).
    void retranslate() { recompute(); }

    const LessonStep& step(LessonStepKind kind) const { return m_steps[size_t(kind)]; }
    const LessonStep& step(int index) const { return m_steps[size_t(index)]; }
    const Eigen::MatrixXd& probabilities() const { return step(LessonStepKind::Softmax).matrix; }
    const Eigen::MatrixXd& output() const { return step(LessonStepKind::Output).matrix; }

private:
    void checkShapes(const std::array<Eigen::MatrixXd, kLessonInputCount>& inputs, LessonInputMode mode) const;
    void recompute();
    void rotate(Eigen::MatrixXd& x) const;

    LessonInputMode m_mode = LessonInputMode::QueryKeyValue;
    QStringList m_tokens;
    std::array<Eigen::MatrixXd, kLessonInputCount> m_inputs;
    LessonOptions m_options;
    Eigen::MatrixXd m_q, m_k, m_v;
    std::array<LessonStep, kLessonStepCount> m_steps;
};

QString lessonInputName(LessonInput which); // "Q", "W_Q", ...

// A matrix written row by row, every row as long as the first: the worked examples' inputs.
Eigen::MatrixXd lessonMatrix(std::initializer_list<std::initializer_list<double>> rows);

// RoPE angles m·θ^(−2p/d) in radians for tokens m = 0..tokens−1 and pairs p = 0..d/2−1: [tokens × d/2],
// from core's inverse frequencies. The lesson draws them as dials.
Eigen::MatrixXd lessonRopeAngles(int tokens, int dim, double theta);

} // namespace attnscope
