#include "lesson/lessoncsv.h"

#include <cmath>

namespace attnscope {

namespace {
QString csvField(const QString& text)
{
    if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')))
        return text;
    QString quoted = text;
    quoted.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + quoted + QLatin1Char('"');
}

QString csvNumber(double v)
{
    if (std::isinf(v))
        return v < 0 ? QStringLiteral("-inf") : QStringLiteral("inf");
    return QString::number(v, 'g', 17);
}
} // namespace

QByteArray lessonMatrixCsv(const Eigen::MatrixXd& matrix, const QStringList& rowLabels, const QStringList& colLabels)
{
    QString text;
    for (int c = 0; c < matrix.cols(); ++c)
        text += QLatin1Char(',') + csvField(c < colLabels.size() ? colLabels[c] : QString::number(c + 1));
    text += QLatin1Char('\n');
    for (int r = 0; r < matrix.rows(); ++r) {
        text += csvField(r < rowLabels.size() ? rowLabels[r] : QString::number(r + 1));
        for (int c = 0; c < matrix.cols(); ++c)
            text += QLatin1Char(',') + csvNumber(matrix(r, c));
        text += QLatin1Char('\n');
    }
    return text.toUtf8();
}

QByteArray lessonStepCsv(const LessonStep& step)
{
    return lessonMatrixCsv(step.matrix, step.rowLabels, step.colLabels);
}

} // namespace attnscope
