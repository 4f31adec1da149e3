#include "model/nonfinitecheck.h"

#include "util/nonfinite.h"

#include <QDir>
#include <cmath>
#include <optional>

namespace attnscope {

namespace {

struct Suspect
{
    QString name;
    QString file;
    QString finding; // "holds NaN" / "holds values up to 1e+30"
};

bool matches(const QString& name, const QStringList& suspects)
{
    for (const QString& s : suspects)
        if (!s.isEmpty() && name.startsWith(s)) return true; // "" (no such tensor) suspects nothing
    return false;
}

// The first suspect tensor (in name order) holding a NaN or Inf; else the one of largest magnitude, when
// that is large enough to overflow float products (above 1e15: squared it leaves float's range).
std::optional<Suspect> findSuspect(const WeightStore& weights, const QStringList& suspects)
{
    std::optional<Suspect> largest;
    float largestMagnitude = 1e15f;
    for (const QString& name : weights.names()) {
        if (!matches(name, suspects)) continue;
        const TensorInfo* info = weights.info(name);
        if (!info || (info->dtype != TensorDtype::F32 && info->dtype != TensorDtype::F16 &&
                      info->dtype != TensorDtype::BF16))
            continue;
        const WeightTensor tensor = weights.load(name);
        const size_t count = size_t(tensor.size());
        if (const std::optional<size_t> bad = firstNonFinite(tensor.data(), count))
            return Suspect{name, weights.fileOf(name),
                           QStringLiteral("holds %1").arg(nonFiniteName(tensor.data()[*bad]))};
        for (size_t i = 0; i < count; ++i)
            if (std::abs(tensor.data()[i]) > largestMagnitude) {
                largestMagnitude = std::abs(tensor.data()[i]);
                largest =
                    Suspect{name, weights.fileOf(name),
                            QStringLiteral("holds values up to %1").arg(double(largestMagnitude), 0, 'g', 3)};
            }
    }
    return largest;
}

} // namespace

void NonFiniteCheck::check(const float* values, size_t count, const QString& where, const QString& what,
                           const QStringList& suspects, int threads) const
{
    const std::optional<size_t> bad = firstNonFinite(values, count, threads);
    if (bad) fail(std::isnan(values[*bad]), where, what, suspects);
}

void NonFiniteCheck::check(const std::vector<double>& values, const QString& where, const QString& what,
                           const QStringList& suspects) const
{
    const std::optional<size_t> bad = firstNonFinite(values.data(), values.size());
    if (bad) fail(std::isnan(values[*bad]) || values[*bad] < 0, where, what, suspects);
}

void NonFiniteCheck::fail(bool isNaN, const QString& where, const QString& what,
                          const QStringList& suspects) const
{
    const QString kind = isNaN ? QStringLiteral("NaN") : QStringLiteral("Inf");
    QString problem = QStringLiteral("%1: %2 in %3").arg(where, kind, what);
    QString file = QDir::toNativeSeparators(m_folder);
    if (const std::optional<Suspect> suspect = findSuspect(m_weights, suspects)) {
        file = suspect->file;
        problem += QStringLiteral(" (from weight %1, which %2?)").arg(suspect->name, suspect->finding);
    } else {
        problem += QStringLiteral(" (its weights are finite and moderate: the values overflowed on the way)");
    }
    throw ModelError(file, problem);
}

void checkTensorFinite(const WeightStore& weights, const QString& name, qint64 maxElements)
{
    const TensorInfo* info = weights.info(name);
    if (!info || info->elementCount() > maxElements) return;
    const WeightTensor tensor = weights.load(name);
    if (const std::optional<size_t> bad = firstNonFinite(tensor.data(), size_t(tensor.size())))
        throw ModelError(weights.fileOf(name), QStringLiteral("tensor %1 holds %2 at element %3")
                                                   .arg(name, nonFiniteName(tensor.data()[*bad]))
                                                   .arg(*bad));
}

} // namespace attnscope
