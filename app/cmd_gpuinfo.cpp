// attnscope gpu-info: which CPU kernels run here, which attention backends start here, on which device, and
// (with --check) whether each one's kernels agree with the CPU core on a small problem.

#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "kernels/cpukernelselection.h"
#include "model/tensorops.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <cmath>
#include <random>

namespace attnscope {

namespace {

HeadTensor randomTensor(int tokens, int heads, int dim, std::mt19937& rng)
{
    std::normal_distribution<float> normal(0.0f, 1.3f);
    HeadTensor t(tokens, heads, dim);
    for (float& x : t.values)
        x = normal(rng);
    return t;
}

double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b)
{
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i)
        worst = std::max(worst, double(std::abs(a[i] - b[i])));
    return worst;
}

// A causal GQA attention with RoPE on `backend` against the CPU core: "ok (O 3e-07, P 1e-07)" or what failed.
QString checkBackend(AttentionBackend& backend)
{
    std::mt19937 rng(17);
    const int n = 300, heads = 4, kvHeads = 2, dim = 64;
    const HeadTensor q = randomTensor(n, heads, dim, rng), k = randomTensor(n, kvHeads, dim, rng),
                     v = randomTensor(n, kvHeads, dim, rng);
    AttentionOptions options;
    options.causal = true;
    options.rope.enabled = true;
    const TiledAttentionResult cpu = attentionTiled(q, k, v, options);
    const TiledAttentionResult got = backend.tiledForward(q, k, v, options);
    const RotatedQueryKey rotated = rotateForAttention(q, k, options);
    const double outputError = maxAbsDifference(got.output.values, cpu.output.values);
    const double tileError = maxAbsDifference(
        backend.probabilityTile(rotated.queries, rotated.keys, got.logSumExp, options, 3, 0, n, 0, n),
        probabilityTile(rotated.queries, rotated.keys, cpu.logSumExp, options, 3, 0, n, 0, n));
    const AttentionOverview expected =
        attentionOverview(rotated.queries, rotated.keys, cpu.logSumExp, options, 1, 50, 40);
    const AttentionOverview overview =
        backend.overview(rotated.queries, rotated.keys, cpu.logSumExp, options, 1, 50, 40);
    const double overviewError = std::max({maxAbsDifference(overview.pooledMax, expected.pooledMax),
                                           maxAbsDifference(overview.pooledMean, expected.pooledMean),
                                           maxAbsDifference(overview.columnSums, expected.columnSums),
                                           maxAbsDifference(overview.rowEntropies, expected.rowEntropies)});
    const bool ok = outputError <= 1e-4 && tileError <= 1e-5 && overviewError <= 1e-5;
    return QStringLiteral("%1 (O %2, P %3, overview %4)")
        .arg(ok ? QStringLiteral("ok") : QStringLiteral("WRONG"))
        .arg(outputError, 0, 'g', 2)
        .arg(tileError, 0, 'g', 2)
        .arg(overviewError, 0, 'g', 2);
}

int runGpuInfo(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Names the CPU kernels in use (the instruction-set level picked for this CPU;\n"
        "ATTNSCOPE_CPU_KERNELS=baseline|avx2|avx512 asks for a lower one) and what computes the\n"
        "model's projections.\n"
        "Lists the attention backends: whether each starts here, its device, and with --check\n"
        "whether its kernels agree with the CPU core (O within 1e-4, P and overview within 1e-5)."));
    parser.addHelpOption();
    parser.addOption(
        {QStringLiteral("check"), QStringLiteral("Run each backend's kernels against the CPU core.")});
    parser.addOption(QCommandLineOption(
        QStringLiteral("backend"),
        QStringLiteral("Only this backend: %1.").arg(supportedBackends().join(QStringLiteral(", "))),
        QStringLiteral("name")));
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("gpu-info")))
        return *done;
    QStringList names = {QStringLiteral("cpu"), QStringLiteral("vulkan"), QStringLiteral("opengl"),
                         QStringLiteral("auto")};
    if (parser.isSet(QStringLiteral("backend"))) {
        QString error;
        const QString name = parseBackend(parser.value(QStringLiteral("backend")), &error);
        if (name.isEmpty()) {
            printError(QStringLiteral("gpu-info: ") + error);
            return 2;
        }
        names = {name};
    }
    printOut(QStringLiteral("cpu kernels: %1\n").arg(kernels::cpuKernelChoice().description()));
    printOut(QStringLiteral("projections: %1\n").arg(QString::fromStdString(ops::productLibrary())));
    bool allOk = true;
    for (const QString& name : names) {
        BackendKind kind = BackendKind::Cpu;
        parseBackendKind(name, &kind);
        QElapsedTimer timer;
        timer.start();
        QString notice;
        std::unique_ptr<AttentionBackend> backend = createBackend(kind, &notice);
        const qint64 startMs = timer.elapsed();
        const bool started = kind == BackendKind::Auto || kind == BackendKind::Cpu || backend->kind() == kind;
        QString line =
            QStringLiteral("%1: %2 on %3 (%4 ms to start)")
                .arg(name.leftJustified(6), started ? backend->name() : QStringLiteral("unavailable, cpu"),
                     backend->deviceName())
                .arg(startMs);
        if (!notice.isEmpty()) line += QStringLiteral("; ") + notice;
        if (parser.isSet(QStringLiteral("check")) && !started) {
            // The CPU fallback it runs on is checked on the cpu line: an "ok" here would vouch for kernels
            // that never ran. Asked for by name, an unavailable backend fails the check.
            line += QStringLiteral("; check: not run (%1 is unavailable here)").arg(name);
            if (parser.isSet(QStringLiteral("backend"))) allOk = false;
        } else if (parser.isSet(QStringLiteral("check"))) {
            QStringList notices;
            backend->setNoticeHandler([&](const QString& message) { notices << message; });
            const QString result = checkBackend(*backend);
            allOk = allOk && result.startsWith(QLatin1String("ok"));
            line += QStringLiteral("; check: ") + result;
            if (!notices.isEmpty()) line += QStringLiteral("; ") + notices.join(QStringLiteral("; "));
        }
        printOut(line + QLatin1Char('\n'));
    }
    return allOk ? 0 : 1;
}

const CommandRegistration registration(Command{
    QStringLiteral("gpu-info"),
    QStringLiteral("Attention backends here: devices, compute support, self-check"), true, &runGpuInfo});

} // namespace

} // namespace attnscope
