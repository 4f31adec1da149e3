#include "lesson/multiheadlesson.h"

#include "lesson/lessonmodel.h"

#include <stdexcept>
#include <string>

namespace attnscope {

MultiHeadLesson MultiHeadLesson::example()
{
    MultiHeadLesson m;
    m.tokens = {QStringLiteral("kedi"), QStringLiteral("mindere"), QStringLiteral("oturdu")};
    m.x.resize(3, 4);
    m.x << 1, 0, 1, 0, //
        0, 2, 0, 1,    //
        1, 1, 1, 0;
    m.wq.resize(4, 4);
    m.wq << 1, 0, 0, 1, //
        0, 1, 1, 0,     //
        1, 0, 1, 0,     //
        0, 1, 0, 1;
    m.wk.resize(4, 4);
    m.wk << 1, 1, 0, 0, //
        0, 0, 1, 1,     //
        1, 0, 0, 1,     //
        0, 1, 1, 0;
    m.wv.resize(4, 4);
    m.wv << 1, 0, 0, 0, //
        0, 1, 0, 0,     //
        0, 0, 1, 0,     //
        0, 0, 0, 1;
    m.wo.resize(4, 4);
    m.wo << 1, 0, 1, 0, //
        0, 1, 0, 1,     //
        1, 0, 0, 0,     //
        0, 1, 0, 0;
    m.heads = 2;
    return m;
}

MultiHeadResult MultiHeadLesson::compute() const
{
    const Eigen::Index dModel = x.cols();
    if (heads < 1 || dModel % heads != 0)
        throw std::invalid_argument("h = " + std::to_string(heads) + " heads must divide d_model = " +
                                    std::to_string(dModel));
    for (const Eigen::MatrixXd* w : {&wq, &wk, &wv, &wo})
        if (w->rows() != dModel || w->cols() != dModel)
            throw std::invalid_argument("every weight matrix must be d_model × d_model = " + std::to_string(dModel) +
                                        "×" + std::to_string(dModel));
    MultiHeadResult r;
    r.heads = heads;
    r.headDim = int(dModel / heads);
    const Eigen::MatrixXd q = x * wq, k = x * wk, v = x * wv;
    r.concat.resize(x.rows(), dModel);
    for (int h = 0; h < heads; ++h) {
        const Eigen::Index first = Eigen::Index(h) * r.headDim;
        r.queries.push_back(q.middleCols(first, r.headDim));
        r.keys.push_back(k.middleCols(first, r.headDim));
        r.values.push_back(v.middleCols(first, r.headDim));
        // Each head is an ordinary single-head lesson with 1/√d_head.
        const LessonModel head = LessonModel::fromMatrices(r.queries.back(), r.keys.back(), r.values.back(), tokens,
                                                           std::nullopt, causal);
        r.probabilities.push_back(head.probabilities());
        r.headOutputs.push_back(head.output());
        r.concat.middleCols(first, r.headDim) = head.output();
    }
    r.output = r.concat * wo;
    return r;
}

} // namespace attnscope
