#include "lesson/multiheadlesson.h"

#include "lesson/lessonmodel.h"

#include <stdexcept>
#include <string>

namespace attnscope {

MultiHeadLesson MultiHeadLesson::example()
{
    MultiHeadLesson m;
    m.tokens = {QStringLiteral("kedi"), QStringLiteral("mindere"), QStringLiteral("oturdu")};
    m.x = lessonMatrix({{1, 0, 1, 0}, {0, 2, 0, 1}, {1, 1, 1, 0}});
    m.wq = lessonMatrix({{1, 0, 0, 1}, {0, 1, 1, 0}, {1, 0, 1, 0}, {0, 1, 0, 1}});
    m.wk = lessonMatrix({{1, 1, 0, 0}, {0, 0, 1, 1}, {1, 0, 0, 1}, {0, 1, 1, 0}});
    m.wv = lessonMatrix({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}});
    m.wo = lessonMatrix({{1, 0, 1, 0}, {0, 1, 0, 1}, {1, 0, 0, 0}, {0, 1, 0, 0}});
    m.heads = 2;
    return m;
}

MultiHeadLesson MultiHeadLesson::fromLesson(const LessonModel& lesson, int heads)
{
    MultiHeadLesson m;
    m.tokens = lesson.tokens();
    m.queries = lesson.queries();
    m.keys = lesson.keys();
    m.values = lesson.values();
    m.heads = heads;
    m.causal = lesson.options().causal;
    return m;
}

MultiHeadResult MultiHeadLesson::compute() const
{
    const bool projected = x.size() > 0;
    if (projected) {
        const Eigen::Index dModel = x.cols();
        for (const Eigen::MatrixXd* w : {&wq, &wk, &wv})
            if (w->rows() != dModel || w->cols() != dModel)
                throw std::invalid_argument("every weight matrix must be d_model × d_model = " +
                                            std::to_string(dModel) + "×" + std::to_string(dModel));
    }
    const Eigen::MatrixXd q = projected ? Eigen::MatrixXd(x * wq) : queries;
    const Eigen::MatrixXd k = projected ? Eigen::MatrixXd(x * wk) : keys;
    const Eigen::MatrixXd v = projected ? Eigen::MatrixXd(x * wv) : values;
    if (q.rows() < 1 || k.rows() != q.rows() || v.rows() != q.rows() || k.cols() != q.cols())
        throw std::invalid_argument("Q and K must be n × d_k and V n × d_v for the same n tokens");
    if (heads < 1 || q.cols() % heads != 0 || v.cols() % heads != 0)
        throw std::invalid_argument("h = " + std::to_string(heads) + " heads must divide d_k = " +
                                    std::to_string(q.cols()) + " and d_v = " + std::to_string(v.cols()));
    if (hasOutputProjection() && wo.rows() != v.cols())
        throw std::invalid_argument("W_O must have d_v = " + std::to_string(v.cols()) + " rows");
    MultiHeadResult r;
    r.heads = heads;
    r.headDim = int(q.cols() / heads);
    r.valueHeadDim = int(v.cols() / heads);
    r.concat.resize(q.rows(), v.cols());
    for (int h = 0; h < heads; ++h) {
        const Eigen::Index first = Eigen::Index(h) * r.headDim;
        const Eigen::Index firstValue = Eigen::Index(h) * r.valueHeadDim;
        r.queries.push_back(q.middleCols(first, r.headDim));
        r.keys.push_back(k.middleCols(first, r.headDim));
        r.values.push_back(v.middleCols(firstValue, r.valueHeadDim));
        // Each head is an ordinary single-head lesson with 1/√d_head.
        const LessonModel head = LessonModel::fromMatrices(r.queries.back(), r.keys.back(), r.values.back(), tokens,
                                                           std::nullopt, causal);
        r.probabilities.push_back(head.probabilities());
        r.headOutputs.push_back(head.output());
        r.concat.middleCols(firstValue, r.valueHeadDim) = head.output();
    }
    r.output = hasOutputProjection() ? Eigen::MatrixXd(r.concat * wo) : r.concat;
    return r;
}

} // namespace attnscope
