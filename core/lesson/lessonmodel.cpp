#include "lesson/lessonmodel.h"

#include "attention/rope.h"
#include "attention/workedexample.h"
#include "lesson/lessonnumbers.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace attnscope {

namespace {

constexpr double kMinusInfinity = -std::numeric_limits<double>::infinity();
const QChar kDot(0x00B7);

Eigen::MatrixXd fromRows(const std::vector<std::array<float, 4>>& rows)
{
    Eigen::MatrixXd m(Eigen::Index(rows.size()), 4);
    for (size_t r = 0; r < rows.size(); ++r)
        for (int c = 0; c < 4; ++c)
            m(Eigen::Index(r), c) = double(rows[r][size_t(c)]);
    return m;
}

std::string shape(const Eigen::MatrixXd& m)
{
    return std::to_string(m.rows()) + "×" + std::to_string(m.cols());
}

Eigen::MatrixXd resizedRows(const Eigen::MatrixXd& m, int rows)
{
    Eigen::MatrixXd out = Eigen::MatrixXd::Zero(rows, m.cols());
    const Eigen::Index keep = std::min<Eigen::Index>(rows, m.rows());
    out.topRows(keep) = m.topRows(keep);
    return out;
}

Eigen::MatrixXd headSlice(const HeadTensor& t, int head, int first, int count)
{
    Eigen::MatrixXd m(count, t.dim);
    for (int r = 0; r < count; ++r)
        for (int c = 0; c < t.dim; ++c)
            m(r, c) = double(t.at(first + r, head, c));
    return m;
}

QStringList defaultTokenNames(int count, int first = 0)
{
    QStringList names;
    for (int i = 0; i < count; ++i)
        names << QStringLiteral("t%1").arg(first + i);
    return names;
}

} // namespace

QString lessonInputName(LessonInput which)
{
    switch (which) {
    case LessonInput::Q:
        return QStringLiteral("Q");
    case LessonInput::K:
        return QStringLiteral("K");
    case LessonInput::V:
        return QStringLiteral("V");
    case LessonInput::X:
        return QStringLiteral("X");
    case LessonInput::WQ:
        return QStringLiteral("W_Q");
    case LessonInput::WK:
        return QStringLiteral("W_K");
    case LessonInput::WV:
        return QStringLiteral("W_V");
    }
    return {};
}

Eigen::MatrixXd lessonMatrix(std::initializer_list<std::initializer_list<double>> rows)
{
    Eigen::MatrixXd m(Eigen::Index(rows.size()), Eigen::Index(rows.begin()->size()));
    Eigen::Index r = 0;
    for (const auto& row : rows) {
        Eigen::Index c = 0;
        for (double v : row)
            m(r, c++) = v;
        ++r;
    }
    return m;
}

Eigen::MatrixXd lessonRopeAngles(int tokens, int dim, double theta)
{
    RopeConfig rope;
    rope.enabled = true;
    rope.theta = theta;
    const std::vector<float> inverse = ropeInverseFrequencies(rope, dim);
    Eigen::MatrixXd angles(tokens, Eigen::Index(inverse.size()));
    for (int m = 0; m < tokens; ++m)
        for (size_t p = 0; p < inverse.size(); ++p)
            angles(m, Eigen::Index(p)) = double(m) * double(inverse[p]);
    return angles;
}

LessonModel::LessonModel()
{
    const WorkedExample example;
    for (const std::string& token : example.tokens)
        m_tokens << QString::fromStdString(token);
    m_inputs[size_t(LessonInput::Q)] = fromRows(example.queries);
    m_inputs[size_t(LessonInput::K)] = fromRows(example.keys);
    m_inputs[size_t(LessonInput::V)] = fromRows(example.values);
    // For the projection mode: three 4-dimensional token vectors and small integer weights, so that
    // Q = X·W_Q can still be followed by hand.
    m_inputs[size_t(LessonInput::X)] = lessonMatrix({{1, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 1, 0}});
    m_inputs[size_t(LessonInput::WQ)] =
        lessonMatrix({{1, 0, 1, 0}, {1, 1, 0, 0}, {0, 1, 1, 0}, {0, 0, 0, 1}});
    m_inputs[size_t(LessonInput::WK)] =
        lessonMatrix({{0, 1, 0, 1}, {1, 0, 0, 0}, {1, 0, 1, 0}, {0, 0, 1, 1}});
    m_inputs[size_t(LessonInput::WV)] =
        lessonMatrix({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
    recompute();
}

LessonModel LessonModel::fromMatrices(const Eigen::MatrixXd& q, const Eigen::MatrixXd& k, const Eigen::MatrixXd& v,
                                      const QStringList& tokens, std::optional<double> scale, bool causal)
{
    const int n = int(q.rows());
    if (n < 1)
        throw std::invalid_argument("the lesson needs at least one token");
    if (!tokens.isEmpty() && tokens.size() != n)
        throw std::invalid_argument("there are " + std::to_string(tokens.size()) + " token names for " +
                                    std::to_string(n) + " rows of Q");
    if (scale && !(std::isfinite(*scale) && *scale > 0))
        throw std::invalid_argument("the score scale must be a positive number");
    LessonModel lesson;
    std::array<Eigen::MatrixXd, kLessonInputCount> inputs;
    inputs[size_t(LessonInput::Q)] = q;
    inputs[size_t(LessonInput::K)] = k;
    inputs[size_t(LessonInput::V)] = v;
    // The projection mode starts as X = I-like rows with identity weights; it is not in use.
    inputs[size_t(LessonInput::X)] = Eigen::MatrixXd::Zero(n, q.cols());
    inputs[size_t(LessonInput::WQ)] = Eigen::MatrixXd::Identity(q.cols(), q.cols());
    inputs[size_t(LessonInput::WK)] = Eigen::MatrixXd::Identity(q.cols(), k.cols());
    inputs[size_t(LessonInput::WV)] = Eigen::MatrixXd::Identity(q.cols(), v.cols());
    lesson.checkShapes(inputs, LessonInputMode::QueryKeyValue);
    lesson.m_inputs = inputs;
    lesson.m_mode = LessonInputMode::QueryKeyValue;
    lesson.m_tokens = tokens.isEmpty() ? defaultTokenNames(n) : tokens;
    lesson.m_options = LessonOptions{};
    lesson.m_options.causal = causal;
    // The usual 1/√d_k is written as such ("S / √d_k = S / 8"); only another scale is the head's own.
    const double usual = 1.0 / std::sqrt(double(q.cols()));
    if (scale && std::abs(*scale - usual) > 1e-9 * usual) lesson.m_options.scaleOverride = scale;
    lesson.recompute();
    return lesson;
}

LessonModel LessonModel::fromHead(const HeadTensor& q, const HeadTensor& k, const HeadTensor& v, int head,
                                  int firstToken, int tokenCount, const QStringList& tokens, double scale, bool causal)
{
    if (tokenCount < 1 || tokenCount > kMaxHeadTokens)
        throw std::invalid_argument("a lesson shows 1 to " + std::to_string(kMaxHeadTokens) + " tokens; " +
                                    std::to_string(tokenCount) + " were asked for: select a shorter range");
    if (head < 0 || head >= q.heads)
        throw std::invalid_argument("head " + std::to_string(head) + " does not exist (the layer has " +
                                    std::to_string(q.heads) + " heads)");
    if (k.heads < 1 || q.heads % k.heads != 0 || v.heads != k.heads)
        throw std::invalid_argument("the key/value heads (" + std::to_string(k.heads) + ", " + std::to_string(v.heads) +
                                    ") do not divide the " + std::to_string(q.heads) + " query heads");
    if (q.dim != k.dim)
        throw std::invalid_argument("queries have " + std::to_string(q.dim) + " dimensions but keys have " +
                                    std::to_string(k.dim));
    const int end = firstToken + tokenCount;
    if (firstToken < 0 || end > q.tokens || end > k.tokens || end > v.tokens)
        throw std::invalid_argument("tokens " + std::to_string(firstToken) + ".." + std::to_string(end - 1) +
                                    " are outside the text (" + std::to_string(q.tokens) + " tokens)");
    const int kvHead = head / (q.heads / k.heads);
    return fromMatrices(headSlice(q, head, firstToken, tokenCount), headSlice(k, kvHead, firstToken, tokenCount),
                        headSlice(v, kvHead, firstToken, tokenCount),
                        tokens.isEmpty() ? defaultTokenNames(tokenCount, firstToken) : tokens, scale, causal);
}

LessonModel LessonModel::permuted(const std::vector<int>& permutation) const
{
    const int n = tokenCount();
    std::vector<bool> seen(size_t(n), false);
    if (int(permutation.size()) != n)
        throw std::invalid_argument("a permutation of " + std::to_string(n) + " tokens needs " + std::to_string(n) +
                                    " entries");
    for (int p : permutation) {
        if (p < 0 || p >= n || seen[size_t(p)])
            throw std::invalid_argument("not a permutation: each token 0.." + std::to_string(n - 1) +
                                        " must appear once");
        seen[size_t(p)] = true;
    }
    LessonModel out = *this;
    for (LessonInput which : {LessonInput::Q, LessonInput::K, LessonInput::V, LessonInput::X}) {
        const Eigen::MatrixXd& source = input(which);
        Eigen::MatrixXd& target = out.m_inputs[size_t(which)];
        for (int i = 0; i < n; ++i)
            target.row(i) = source.row(permutation[size_t(i)]);
    }
    for (int i = 0; i < n; ++i)
        out.m_tokens[i] = m_tokens[permutation[size_t(i)]];
    out.recompute();
    return out;
}

void LessonModel::setInputMode(LessonInputMode mode)
{
    checkShapes(m_inputs, mode);
    m_mode = mode;
    recompute();
}

void LessonModel::setToken(int index, const QString& name)
{
    if (index < 0 || index >= tokenCount())
        throw std::invalid_argument("token " + std::to_string(index) + " does not exist");
    m_tokens[index] = name;
    recompute();
}

void LessonModel::setTokenCount(int count)
{
    if (count < 1 || count > kMaxHeadTokens)
        throw std::invalid_argument("a lesson has 1 to " + std::to_string(kMaxHeadTokens) + " tokens");
    for (LessonInput which : {LessonInput::Q, LessonInput::K, LessonInput::V, LessonInput::X})
        m_inputs[size_t(which)] = resizedRows(m_inputs[size_t(which)], count);
    while (m_tokens.size() > count)
        m_tokens.removeLast();
    while (m_tokens.size() < count)
        m_tokens << QStringLiteral("t%1").arg(m_tokens.size());
    recompute();
}

void LessonModel::checkShapes(const std::array<Eigen::MatrixXd, kLessonInputCount>& inputs, LessonInputMode mode) const
{
    auto at = [&](LessonInput which) -> const Eigen::MatrixXd& { return inputs[size_t(which)]; };
    const Eigen::MatrixXd& q = at(LessonInput::Q);
    const Eigen::MatrixXd& k = at(LessonInput::K);
    const Eigen::MatrixXd& v = at(LessonInput::V);
    if (q.cols() < 1 || v.cols() < 1)
        throw std::invalid_argument("Q and V need at least one column");
    if (k.rows() != q.rows() || v.rows() != q.rows())
        throw std::invalid_argument("Q, K and V need one row per token; they are " + shape(q) + ", " + shape(k) +
                                    " and " + shape(v));
    if (k.cols() != q.cols())
        throw std::invalid_argument("Q is " + shape(q) + " but K is " + shape(k) +
                                    ": queries and keys need the same dimension d_k");
    if (mode == LessonInputMode::Projections) {
        const Eigen::MatrixXd& x = at(LessonInput::X);
        const Eigen::MatrixXd& wq = at(LessonInput::WQ);
        const Eigen::MatrixXd& wk = at(LessonInput::WK);
        const Eigen::MatrixXd& wv = at(LessonInput::WV);
        if (x.rows() != q.rows() || x.cols() < 1)
            throw std::invalid_argument("X is " + shape(x) + ": it needs one row per token");
        for (const Eigen::MatrixXd* w : {&wq, &wk, &wv})
            if (w->rows() != x.cols() || w->cols() < 1)
                throw std::invalid_argument("X is " + shape(x) + ", so each weight matrix needs " +
                                            std::to_string(x.cols()) + " rows; one is " + shape(*w));
        if (wq.cols() != wk.cols())
            throw std::invalid_argument("W_Q is " + shape(wq) + " but W_K is " + shape(wk) +
                                        ": queries and keys need the same dimension d_k");
    }
}

void LessonModel::setInput(LessonInput which, const Eigen::MatrixXd& m)
{
    std::array<Eigen::MatrixXd, kLessonInputCount> inputs = m_inputs;
    inputs[size_t(which)] = m;
    const bool projection = which == LessonInput::X || which == LessonInput::WQ || which == LessonInput::WK ||
                            which == LessonInput::WV;
    checkShapes(inputs, projection ? LessonInputMode::Projections : LessonInputMode::QueryKeyValue);
    m_inputs = inputs;
    recompute();
}

void LessonModel::setInputValue(LessonInput which, int row, int col, double value)
{
    Eigen::MatrixXd& m = m_inputs[size_t(which)];
    if (row < 0 || row >= m.rows() || col < 0 || col >= m.cols())
        throw std::invalid_argument("cell (" + std::to_string(row) + ", " + std::to_string(col) + ") is outside " +
                                    shape(m));
    if (!std::isfinite(value))
        throw std::invalid_argument("matrix entries must be finite numbers");
    m(row, col) = value;
    recompute();
}

void LessonModel::setOptions(const LessonOptions& options)
{
    if (options.positions == LessonPositions::Rope && !(options.ropeTheta > 1.0))
        throw std::invalid_argument("the RoPE base θ must be larger than 1");
    const LessonOptions previous = m_options;
    m_options = options;
    try {
        recompute();
    } catch (...) {
        m_options = previous;
        recompute();
        throw;
    }
}

void LessonModel::setScaling(bool on)
{
    LessonOptions o = m_options;
    o.scaling = on;
    setOptions(o);
}

void LessonModel::setCausal(bool on)
{
    LessonOptions o = m_options;
    o.causal = on;
    setOptions(o);
}

void LessonModel::setPositions(LessonPositions positions, double theta)
{
    LessonOptions o = m_options;
    o.positions = positions;
    o.ropeTheta = theta;
    setOptions(o);
}

double LessonModel::scale() const
{
    if (!m_options.scaling)
        return 1.0;
    return m_options.scaleOverride ? *m_options.scaleOverride : 1.0 / std::sqrt(double(keyDimension()));
}

void LessonModel::rotate(Eigen::MatrixXd& x) const
{
    const int dim = int(x.cols());
    if (dim % 2 != 0)
        throw std::invalid_argument("RoPE rotates pairs of components: d_k must be even, it is " +
                                    std::to_string(dim));
    const Eigen::MatrixXd angles = lessonRopeAngles(int(x.rows()), dim, m_options.ropeTheta);
    const int half = dim / 2;
    // Rotate-half pairing (Llama): component p turns with component p + d/2 by the angle of pair p.
    for (int m = 0; m < x.rows(); ++m)
        for (int p = 0; p < half; ++p) {
            const double c = std::cos(angles(m, p)), s = std::sin(angles(m, p));
            const double a = x(m, p), b = x(m, p + half);
            x(m, p) = a * c - b * s;
            x(m, p + half) = b * c + a * s;
        }
}

void LessonModel::recompute()
{
    auto tr = [](const char* text) { return QCoreApplication::translate("attnscope::LessonModel", text); };
    if (m_mode == LessonInputMode::Projections) {
        const Eigen::MatrixXd& x = input(LessonInput::X);
        m_q = x * input(LessonInput::WQ);
        m_k = x * input(LessonInput::WK);
        m_v = x * input(LessonInput::WV);
    } else {
        m_q = input(LessonInput::Q);
        m_k = input(LessonInput::K);
        m_v = input(LessonInput::V);
    }
    if (m_options.positions == LessonPositions::Rope) {
        rotate(m_q);
        rotate(m_k);
    }
    const int n = tokenCount();
    const int dk = keyDimension();
    const int dv = int(m_v.cols());
    const double factor = scale();
    QStringList dimensionLabels;
    for (int c = 0; c < dv; ++c)
        dimensionLabels << QStringLiteral("d%1").arg(c + 1);

    auto prepare = [&](LessonStepKind kind, const QString& title, int cols) -> LessonStep& {
        LessonStep& s = m_steps[size_t(kind)];
        s = LessonStep{};
        s.kind = kind;
        s.title = title;
        s.matrix = Eigen::MatrixXd::Zero(n, cols);
        s.rowLabels = m_tokens;
        s.colLabels = kind == LessonStepKind::Output ? dimensionLabels : m_tokens;
        s.explanations.assign(size_t(n) * size_t(cols), QString());
        return s;
    };
    auto explain = [](LessonStep& s, int r, int c, const QString& text) {
        s.explanations[size_t(r) * size_t(s.cols()) + size_t(c)] = text;
    };

    // 1. Scores.
    LessonStep& scores = prepare(LessonStepKind::Scores, tr("1. Scores"), n);
    scores.formula = QStringLiteral("S = Q") + kDot + QStringLiteral("Kᵀ");
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            double sum = 0;
            QStringList terms;
            for (int c = 0; c < dk; ++c) {
                sum += m_q(i, c) * m_k(j, c);
                terms << lessonFactor(m_q(i, c)) + kDot + lessonFactor(m_k(j, c));
            }
            scores.matrix(i, j) = sum;
            explain(scores, i, j, terms.join(QStringLiteral(" + ")) + QStringLiteral(" = ") + lessonNumber(sum));
        }

    // 2. Scaling.
    LessonStep& scaled = prepare(LessonStepKind::Scaling, tr("2. Scaling"), n);
    const double root = std::sqrt(double(dk));
    const bool byRoot = m_options.scaling && !m_options.scaleOverride;
    if (!m_options.scaling)
        scaled.formula = tr("S, not scaled (scaling is off)");
    else if (byRoot)
        scaled.formula = QStringLiteral("S / √d_k = S / ") + lessonNumber(root);
    else
        scaled.formula = QStringLiteral("S ") + kDot + QStringLiteral(" ") + lessonNumber(factor) + QLatin1Char(' ') +
                         tr("(the head's scale)");
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const double s = scores.matrix(i, j);
            const double value = byRoot ? s / root : s * factor;
            scaled.matrix(i, j) = value;
            QString text;
            if (!m_options.scaling)
                text = lessonNumber(s) + QLatin1Char(' ') + tr("(scaling is off)");
            else if (byRoot)
                text = lessonNumber(s) + QStringLiteral(" / ") + lessonNumber(root) + QStringLiteral(" = ") +
                       lessonNumber(value);
            else
                text = lessonFactor(s) + kDot + lessonFactor(factor) + QStringLiteral(" = ") + lessonNumber(value);
            explain(scaled, i, j, text);
        }

    // 3. Mask.
    LessonStep& masked = prepare(LessonStepKind::Mask, tr("3. Mask"), n);
    masked.formula = m_options.causal
                         ? tr("S' + M, M = −∞ above the diagonal")
                         : tr("S' (no mask: every token sees every token)");
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const bool hidden = m_options.causal && j > i;
            masked.matrix(i, j) = hidden ? kMinusInfinity : scaled.matrix(i, j);
            if (hidden) {
                masked.masked.resize(size_t(n) * size_t(n), false);
                masked.masked[size_t(i) * size_t(n) + size_t(j)] = true;
            }
            QString text;
            if (hidden)
                text = lessonNumber(kMinusInfinity) + QLatin1Char(' ') +
                       tr("(“%1” comes after “%2”: masked)").arg(m_tokens[j], m_tokens[i]);
            else
                text = lessonNumber(scaled.matrix(i, j)) + QLatin1Char(' ') +
                       (m_options.causal ? tr("(visible)") : tr("(no mask)"));
            explain(masked, i, j, text);
        }

    // 4. Softmax, row by row, with the row maximum subtracted for exactness on large scores.
    LessonStep& softmax = prepare(LessonStepKind::Softmax, tr("4. Softmax"), n);
    softmax.probabilities = true;
    softmax.masked = masked.masked;
    softmax.formula = QStringLiteral("P = softmax(S') : P_ij = e^S'_ij / Σ_k e^S'_ik");
    for (int i = 0; i < n; ++i) {
        double rowMax = kMinusInfinity;
        for (int j = 0; j < n; ++j)
            rowMax = std::max(rowMax, masked.matrix(i, j));
        double sum = 0;
        QStringList denominator;
        for (int j = 0; j < n; ++j)
            if (!masked.isMinusInfinity(i, j)) {
                sum += std::exp(masked.matrix(i, j) - rowMax);
                denominator << QStringLiteral("e^") + lessonNumber(masked.matrix(i, j));
            }
        const QString sumText = QStringLiteral(" / (") + denominator.join(QStringLiteral(" + ")) + QLatin1Char(')');
        for (int j = 0; j < n; ++j) {
            if (masked.isMinusInfinity(i, j) || sum == 0) {
                softmax.matrix(i, j) = 0;
                explain(softmax, i, j, QStringLiteral("e^") + lessonNumber(kMinusInfinity) + sumText +
                                           QStringLiteral(" = 0 ") + tr("(masked)"));
                continue;
            }
            const double p = std::exp(masked.matrix(i, j) - rowMax) / sum;
            softmax.matrix(i, j) = p;
            explain(softmax, i, j,
                    QStringLiteral("e^") + lessonNumber(masked.matrix(i, j)) + sumText + QStringLiteral(" = ") +
                        lessonFixed(p));
        }
    }

    // 5. Output: the weighted sum of the value rows.
    LessonStep& output = prepare(LessonStepKind::Output, tr("5. Weighted sum of the values"), dv);
    output.formula = QStringLiteral("O = P") + kDot + QStringLiteral("V");
    for (int i = 0; i < n; ++i)
        for (int c = 0; c < dv; ++c) {
            double sum = 0;
            QStringList terms;
            for (int j = 0; j < n; ++j) {
                if (masked.isMinusInfinity(i, j))
                    continue;
                sum += softmax.matrix(i, j) * m_v(j, c);
                terms << lessonFixed(softmax.matrix(i, j)) + kDot + lessonFactor(m_v(j, c));
            }
            output.matrix(i, c) = sum;
            explain(output, i, c, terms.join(QStringLiteral(" + ")) + QStringLiteral(" = ") + lessonFixed(sum));
        }
}

} // namespace attnscope
