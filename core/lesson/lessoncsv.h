#pragma once

#include "lesson/lessonstep.h"

#include <Eigen/Core>

#include <QByteArray>
#include <QStringList>

namespace attnscope {

// A matrix as CSV (RFC 4180): a header row "" + column labels, then one row per label with the values
// at full double precision ("-inf" for a masked cell), so the numbers round-trip exactly.
QByteArray lessonMatrixCsv(const Eigen::MatrixXd& matrix, const QStringList& rowLabels, const QStringList& colLabels);
QByteArray lessonStepCsv(const LessonStep& step);

} // namespace attnscope
