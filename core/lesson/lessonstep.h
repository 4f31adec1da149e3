#pragma once

#include <Eigen/Core>

#include <QString>
#include <QStringList>

#include <cmath>
#include <vector>

namespace attnscope {

// The five steps of softmax(Q·Kᵀ/√d_k + M)·V, in the order the lesson shows them.
enum class LessonStepKind { Scores = 0, Scaling = 1, Mask = 2, Softmax = 3, Output = 4 };
constexpr int kLessonStepCount = 5;

// One step as the lesson shows it: the matrix, the formula that produced it and, for every cell,
// the arithmetic that gives its number ("3·1 + 1·1 + 3·0 + 1·0 = 4"). Plain data: the view paints
// it, the CLI exports it, the tests re-evaluate the explanations.
struct LessonStep
{
    LessonStepKind kind = LessonStepKind::Scores;
    QString title;           // "1. Scores"
    QString formula;         // "S = Q·Kᵀ"
    Eigen::MatrixXd matrix;  // rows × cols; masked cells hold -inf in the mask step, 0 after the softmax
    QStringList rowLabels;   // query tokens
    QStringList colLabels;   // key tokens, or value dimensions in the output step
    std::vector<QString> explanations; // row-major rows × cols
    bool probabilities = false;        // the softmax step: values are weights in [0, 1]
    std::vector<bool> masked;          // row-major; empty when nothing is masked. Set in the mask and
                                       // softmax steps for the cells the causal mask removed.

    int rows() const { return int(matrix.rows()); }
    int cols() const { return int(matrix.cols()); }
    double value(int row, int col) const { return matrix(row, col); }
    QString explanation(int row, int col) const { return explanations[size_t(row) * size_t(cols()) + size_t(col)]; }
    bool isMasked(int row, int col) const
    {
        return !masked.empty() && masked[size_t(row) * size_t(cols()) + size_t(col)];
    }
    // A cell the causal mask removed: -inf in the mask step.
    bool isMinusInfinity(int row, int col) const { return std::isinf(matrix(row, col)) && matrix(row, col) < 0; }
};

} // namespace attnscope
