#include "census/censusaccumulator.h"

#include "attention/attentionmaps.h"
#include "stats/headstatsaccumulator.h"
#include "stats/tokenimportance.h"
#include "util/parallel.h"

#include <QJsonArray>
#include <algorithm>

namespace attnscope {

namespace {

QJsonArray statJson(const RunningStat& s)
{
    return QJsonArray{qint64(s.count), s.mean, s.m2};
}

bool statFromJson(const QJsonValue& value, RunningStat* s)
{
    const QJsonArray a = value.toArray();
    if (a.size() != 3 || !a[0].isDouble() || !a[1].isDouble() || !a[2].isDouble()) return false;
    s->count = a[0].toInteger();
    s->mean = a[1].toDouble();
    s->m2 = a[2].toDouble();
    return s->count >= 0;
}

QJsonArray statsJson(const std::vector<RunningStat>& stats, size_t begin, size_t step, size_t count)
{
    QJsonArray out;
    for (size_t i = 0; i < count; ++i)
        out.append(statJson(stats[begin + i * step]));
    return out;
}

bool statsFromJson(const QJsonValue& value, std::vector<RunningStat>& stats, size_t begin, size_t step,
                   size_t count)
{
    const QJsonArray a = value.toArray();
    if (size_t(a.size()) != count) return false;
    for (size_t i = 0; i < count; ++i)
        if (!statFromJson(a[qsizetype(i)], &stats[begin + i * step])) return false;
    return true;
}

// Keeps the kExtremes largest (or smallest) values, ties broken by the earlier input.
void keepExtreme(std::vector<CensusExtreme>& list, CensusExtreme item, bool highest)
{
    const auto better = [highest](const CensusExtreme& a, const CensusExtreme& b) {
        if (a.value != b.value) return highest ? a.value > b.value : a.value < b.value;
        return a.input < b.input;
    };
    list.insert(std::upper_bound(list.begin(), list.end(), item, better), item);
    if (list.size() > size_t(CensusAccumulator::kExtremes)) list.pop_back();
}

} // namespace

CensusAccumulator::CensusAccumulator(int layers, int heads, int positions)
    : m_layers(layers), m_heads(heads), m_positions(positions), m_metrics(int(allCensusMetrics().size()))
{
    const size_t headSlots = size_t(layers) * size_t(heads) * size_t(m_metrics);
    m_head.resize(headSlots);
    m_layer.resize(size_t(layers) * size_t(m_metrics));
    m_sinkRate.resize(size_t(positions));
    m_importance.resize(size_t(positions));
    m_strongest.resize(headSlots);
    m_weakest.resize(headSlots);
}

size_t CensusAccumulator::headIndex(int layer, int head, CensusMetric metric) const
{
    return (size_t(layer) * size_t(m_heads) + size_t(head)) * size_t(m_metrics) + size_t(metric);
}

const RunningStat& CensusAccumulator::head(int layer, int head, CensusMetric metric) const
{
    return m_head[headIndex(layer, head, metric)];
}

const RunningStat& CensusAccumulator::layer(int layer, CensusMetric metric) const
{
    return m_layer[size_t(layer) * size_t(m_metrics) + size_t(metric)];
}

const std::vector<CensusExtreme>& CensusAccumulator::strongest(int layer, int head, CensusMetric metric) const
{
    return m_strongest[headIndex(layer, head, metric)];
}

const std::vector<CensusExtreme>& CensusAccumulator::weakest(int layer, int head, CensusMetric metric) const
{
    return m_weakest[headIndex(layer, head, metric)];
}

void CensusAccumulator::addInput(const AttentionMaps& maps, const TokenRoles& roles, std::int64_t input,
                                 int threads, const AttentionMaps* contributionShares)
{
    const int headCount = maps.layers() * maps.heads();
    const int queries = maps.queries(), keys = maps.keys();
    std::vector<HeadStats> stats(static_cast<size_t>(headCount));
    std::vector<HeadStats> contributionStats(contributionShares ? static_cast<size_t>(headCount) : 0);
    std::vector<std::vector<double>> importance(static_cast<size_t>(headCount));
    parallelFor(headCount, threads, [&](int index) {
        const int layer = index / maps.heads(), head = index % maps.heads();
        // P is (queries, keys) for one head; held only while this head is summed.
        const std::vector<float> p = maps.matrix(layer, head);
        HeadStatsAccumulator accumulator(roles, queries, keys);
        accumulator.addRows(0, p.data(), queries);
        stats[size_t(index)] = accumulator.finish(layer, head, LabelThresholds{});
        importance[size_t(index)] = keyImportance(p.data(), queries, keys);
        if (contributionShares) {
            // The contribution shares C (queries, keys), rows summing to 1 like P's: the same statistics.
            const std::vector<float> c = contributionShares->matrix(layer, head);
            HeadStatsAccumulator shares(roles, queries, keys, /*withEntropy=*/false);
            shares.addRows(0, c.data(), queries);
            contributionStats[size_t(index)] = shares.finish(layer, head, LabelThresholds{});
        }
    });
    addHeadStats(stats, importance, input, contributionStats);
}

void CensusAccumulator::addHeadStats(const std::vector<HeadStats>& stats,
                                     const std::vector<std::vector<double>>& importance, std::int64_t input,
                                     const std::vector<HeadStats>& contributionStats)
{
    const std::vector<CensusMetric> metrics = allCensusMetrics();
    const bool withContributions = contributionStats.size() == stats.size();
    // The statistics a metric reads for head index i, or null when this input has none.
    const auto source = [&](size_t i, CensusMetric metric) -> const HeadStats* {
        if (!censusMetricIsContribution(metric)) return &stats[i];
        return withContributions ? &contributionStats[i] : nullptr;
    };
    for (size_t i = 0; i < stats.size(); ++i) {
        const HeadStats& s = stats[i];
        if (s.layer < 0 || s.layer >= m_layers || s.head < 0 || s.head >= m_heads) continue;
        for (CensusMetric metric : metrics) {
            const HeadStats* from = source(i, metric);
            if (!from) continue;
            const double value = censusMetricValue(*from, metric);
            const size_t slot = headIndex(s.layer, s.head, metric);
            m_head[slot].add(value);
            keepExtreme(m_strongest[slot], {input, value}, true);
            keepExtreme(m_weakest[slot], {input, value}, false);
        }
    }
    for (int layer = 0; layer < m_layers; ++layer)
        for (CensusMetric metric : metrics) {
            double sum = 0;
            int count = 0;
            for (size_t i = 0; i < stats.size(); ++i) {
                const HeadStats* from = source(i, metric);
                if (stats[i].layer == layer && from) {
                    sum += censusMetricValue(*from, metric);
                    ++count;
                }
            }
            if (count > 0) m_layer[size_t(layer) * size_t(m_metrics) + size_t(metric)].add(sum / count);
        }
    size_t reach = 0;
    for (const std::vector<double>& alpha : importance)
        reach = std::max(reach, alpha.size());
    reach = std::min(reach, size_t(m_positions));
    for (size_t k = 0; k < reach; ++k) {
        int heads = 0, sinks = 0;
        double sum = 0;
        for (const std::vector<double>& alpha : importance) {
            if (k >= alpha.size()) continue;
            ++heads;
            sum += alpha[k];
            if (alpha[k] > kSinkImportanceThreshold) ++sinks;
        }
        if (heads == 0) continue;
        m_sinkRate[k].add(double(sinks) / heads);
        m_importance[k].add(sum / heads);
    }
    ++m_inputs;
}

QJsonObject CensusAccumulator::toJson() const
{
    QJsonObject root{{QStringLiteral("layers"), m_layers},
                     {QStringLiteral("heads"), m_heads},
                     {QStringLiteral("positions"), m_positions},
                     {QStringLiteral("inputs"), qint64(m_inputs)}};
    QJsonObject heads, layers, strongest, weakest;
    const size_t headCount = size_t(m_layers) * size_t(m_heads);
    for (CensusMetric metric : allCensusMetrics()) {
        const QString id = censusMetricId(metric);
        heads.insert(id, statsJson(m_head, size_t(metric), size_t(m_metrics), headCount));
        layers.insert(id, statsJson(m_layer, size_t(metric), size_t(m_metrics), size_t(m_layers)));
        QJsonArray high, low;
        for (size_t h = 0; h < headCount; ++h) {
            QJsonArray hi, lo;
            for (const CensusExtreme& e : m_strongest[h * size_t(m_metrics) + size_t(metric)])
                hi.append(QJsonArray{qint64(e.input), e.value});
            for (const CensusExtreme& e : m_weakest[h * size_t(m_metrics) + size_t(metric)])
                lo.append(QJsonArray{qint64(e.input), e.value});
            high.append(hi);
            low.append(lo);
        }
        strongest.insert(id, high);
        weakest.insert(id, low);
    }
    root.insert(QStringLiteral("head_stats"), heads);
    root.insert(QStringLiteral("layer_stats"), layers);
    root.insert(QStringLiteral("strongest"), strongest);
    root.insert(QStringLiteral("weakest"), weakest);
    root.insert(QStringLiteral("sink_rate"), statsJson(m_sinkRate, 0, 1, size_t(m_positions)));
    root.insert(QStringLiteral("importance"), statsJson(m_importance, 0, 1, size_t(m_positions)));
    return root;
}

std::optional<CensusAccumulator> CensusAccumulator::fromJson(const QJsonObject& object, QString* error)
{
    const int layers = object.value(QStringLiteral("layers")).toInt(-1);
    const int heads = object.value(QStringLiteral("heads")).toInt(-1);
    const int positions = object.value(QStringLiteral("positions")).toInt(-1);
    if (layers < 0 || heads < 0 || positions < 0 || layers > 4096 || heads > 4096 || positions > (1 << 24)) {
        *error = QStringLiteral("no census sums (layers, heads, positions)");
        return std::nullopt;
    }
    CensusAccumulator a(layers, heads, positions);
    a.m_inputs = object.value(QStringLiteral("inputs")).toInteger(-1);
    const size_t headCount = size_t(layers) * size_t(heads);
    bool ok = a.m_inputs >= 0;
    const QJsonObject headStats = object.value(QStringLiteral("head_stats")).toObject();
    const QJsonObject layerStats = object.value(QStringLiteral("layer_stats")).toObject();
    const QJsonObject strongest = object.value(QStringLiteral("strongest")).toObject();
    const QJsonObject weakest = object.value(QStringLiteral("weakest")).toObject();
    for (CensusMetric metric : allCensusMetrics()) {
        const QString id = censusMetricId(metric);
        ok = ok &&
             statsFromJson(headStats.value(id), a.m_head, size_t(metric), size_t(a.m_metrics), headCount);
        ok = ok && statsFromJson(layerStats.value(id), a.m_layer, size_t(metric), size_t(a.m_metrics),
                                 size_t(layers));
        for (auto [source, target] :
             {std::pair{&strongest, &a.m_strongest}, std::pair{&weakest, &a.m_weakest}}) {
            const QJsonArray lists = source->value(id).toArray();
            ok = ok && size_t(lists.size()) == headCount;
            for (size_t h = 0; ok && h < headCount; ++h)
                for (const QJsonValue& e : lists[qsizetype(h)].toArray())
                    (*target)[h * size_t(a.m_metrics) + size_t(metric)].push_back(
                        {e.toArray().at(0).toInteger(), e.toArray().at(1).toDouble()});
        }
    }
    ok =
        ok && statsFromJson(object.value(QStringLiteral("sink_rate")), a.m_sinkRate, 0, 1, size_t(positions));
    ok = ok &&
         statsFromJson(object.value(QStringLiteral("importance")), a.m_importance, 0, 1, size_t(positions));
    if (!ok) {
        *error = QStringLiteral("the census sums are incomplete or of another version");
        return std::nullopt;
    }
    return a;
}

} // namespace attnscope
