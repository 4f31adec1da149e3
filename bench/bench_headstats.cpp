// Per-head statistics (core/stats analyzeAttention) on long inputs held as TiledAttentionMaps: the explorer's
// background work after a model run. Prints one JSON line per size:
//   {"bench":"headstats","tokens":n,"heads":H,"dim":d,"threads":t,"median_s":...,"peak_rss_growth_mib":...,
//    "dense_maps_mib":...}
// dense_maps_mib is what n×n for every head would take; the statistics must stay far below it.

#include "attention/tiledattentionmaps.h"
#include "stats/attentionanalysis.h"
#include "support/benchutil.h"
#include "util/parallel.h"

#include <cstdio>
#include <cstring>
#include <random>

using namespace attnscope;

int main(int argc, char** argv)
{
    const bool quick = argc > 1 && std::strcmp(argv[1], "--quick") == 0;
    const int heads = 12, dim = 64;
    const int threads = defaultThreadCount();
    for (int n : quick ? std::vector<int>{512} : std::vector<int>{512, 1024, 2048}) {
        std::mt19937 rng(42);
        std::normal_distribution<float> normal(0.0f, 1.0f);
        HeadTensor q(n, heads, dim), k(n, heads, dim);
        for (float& v : q.values)
            v = normal(rng);
        for (float& v : k.values)
            v = normal(rng);
        AttentionOptions options;
        options.causal = true;
        const TiledAttentionResult tiled = attentionTiled(q, k, k, options);
        TiledAttentionMaps::Layer layer{q, k, tiled.logSumExp, options};
        const TiledAttentionMaps maps({layer});
        TokenRoles roles;
        roles.special.assign(size_t(n), false);
        roles.special[0] = true;
        roles.clsPositions = {0};
        roles.causal = true;
        bench::resetPeakResidentMemory();
        const double before = bench::residentMemoryMiB();
        AnalysisOptions analysisOptions;
        analysisOptions.threads = threads;
        const double seconds =
            bench::medianSeconds([&] { (void)analyzeAttention(maps, roles, analysisOptions); }, 5);
        const double growth = bench::peakResidentMemoryMiB() - before;
        const double dense = double(n) * n * heads * 4 / (1024.0 * 1024.0);
        std::printf(
            "{\"bench\":\"headstats\",\"tokens\":%d,\"heads\":%d,\"dim\":%d,\"threads\":%d,\"median_s\":%.4f,"
            "\"peak_rss_growth_mib\":%.1f,\"dense_maps_mib\":%.1f}\n",
            n, heads, dim, threads, seconds, growth, dense);
        std::fflush(stdout);
    }
    return 0;
}
