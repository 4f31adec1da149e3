#pragma once

#include <Eigen/Core>

#include <QStringList>

#include <vector>

namespace attnscope {

struct MultiHeadResult
{
    int heads = 0;
    int headDim = 0;                             // d_k / h
    int valueHeadDim = 0;                        // d_v / h
    std::vector<Eigen::MatrixXd> queries;        // per head: n × d_head, X·W_Q restricted to the head's columns
    std::vector<Eigen::MatrixXd> keys;
    std::vector<Eigen::MatrixXd> values;
    std::vector<Eigen::MatrixXd> probabilities;  // per head: n × n softmax(Q_h·K_hᵀ/√d_head + M)
    std::vector<Eigen::MatrixXd> headOutputs;    // per head: n × d_v/h
    Eigen::MatrixXd concat;                      // n × d_v: [O_1 | O_2 | ... | O_h]
    Eigen::MatrixXd output;                      // n × d_out: concat · W_O (concat itself without W_O)
};

class LessonModel;

// Multi-head attention for the lesson: h heads of d/h dimensions each. Head i uses columns
// [i·d_head, (i+1)·d_head) of Q = X·W_Q, K = X·W_K and V = X·W_V, as a fused projection in a real model
// does. Q, K and V come from X and the weights, or are given directly (fromLesson: the lesson's own).
struct MultiHeadLesson
{
    QStringList tokens;
    Eigen::MatrixXd x;   // n × d_model; empty when Q, K and V are given directly
    Eigen::MatrixXd wq;  // d_model × d_model
    Eigen::MatrixXd wk;
    Eigen::MatrixXd wv;
    Eigen::MatrixXd wo;      // d_v × d_out; empty: no output projection (output = concat)
    Eigen::MatrixXd queries; // n × d_k, used when x is empty
    Eigen::MatrixXd keys;    // n × d_k
    Eigen::MatrixXd values;  // n × d_v
    int heads = 2;
    bool causal = false;

    // "kedi mindere oturdu" with d_model = 4 and small integer weights, two heads of two dimensions.
    static MultiHeadLesson example();
    // The lesson's own tokens and the Q, K, V its steps use (after the projections and RoPE), split
    // into `heads` heads, with its causal mask and no W_O.
    static MultiHeadLesson fromLesson(const LessonModel& lesson, int heads);

    bool hasOutputProjection() const { return wo.size() > 0; }
    // Throws std::invalid_argument when h does not divide d_k and d_v or the shapes disagree.
    MultiHeadResult compute() const;
};

} // namespace attnscope
