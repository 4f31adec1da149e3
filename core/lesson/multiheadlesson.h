#pragma once

#include <Eigen/Core>

#include <QStringList>

#include <vector>

namespace attnscope {

struct MultiHeadResult
{
    int heads = 0;
    int headDim = 0;                             // d_model / h
    std::vector<Eigen::MatrixXd> queries;        // per head: n × d_head, X·W_Q restricted to the head's columns
    std::vector<Eigen::MatrixXd> keys;
    std::vector<Eigen::MatrixXd> values;
    std::vector<Eigen::MatrixXd> probabilities;  // per head: n × n softmax(Q_h·K_hᵀ/√d_head + M)
    std::vector<Eigen::MatrixXd> headOutputs;    // per head: n × d_head
    Eigen::MatrixXd concat;                      // n × d_model: [O_1 | O_2 | ... | O_h]
    Eigen::MatrixXd output;                      // n × d_model: concat · W_O
};

// Multi-head attention for the lesson: h heads of d_model/h dimensions each. Head i uses columns
// [i·d_head, (i+1)·d_head) of X·W_Q, X·W_K and X·W_V, as a fused projection in a real model does.
struct MultiHeadLesson
{
    QStringList tokens;
    Eigen::MatrixXd x;   // n × d_model
    Eigen::MatrixXd wq;  // d_model × d_model
    Eigen::MatrixXd wk;
    Eigen::MatrixXd wv;
    Eigen::MatrixXd wo;  // d_model × d_model
    int heads = 2;
    bool causal = false;

    // "kedi mindere oturdu" with d_model = 4 and small integer weights, two heads of two dimensions.
    static MultiHeadLesson example();

    // Throws std::invalid_argument when h does not divide d_model or the shapes disagree.
    MultiHeadResult compute() const;
};

} // namespace attnscope
