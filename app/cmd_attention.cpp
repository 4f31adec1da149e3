// attnscope attention: every layer's and head's attention probabilities for one input, as JSON or .npy.

#include "analysis/contributions.h"
#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "io/npy.h"
#include "io/npywriter.h"
#include "modelcommandline.h"
#include "util/operationcancelled.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <cstdio>

namespace attnscope {

namespace {

// Selected index, or -1 for all; false with *error for a value outside [0, count).
bool parseSelection(const QCommandLineParser& parser, const QString& name, int count, int* selected,
                    QString* error)
{
    *selected = -1;
    if (!parser.isSet(name)) return true;
    bool ok = false;
    const int value = parser.value(name).toInt(&ok);
    if (!ok || value < 0 || value >= count) {
        *error = QStringLiteral("--%1 %2 is outside 0..%3").arg(name, parser.value(name)).arg(count - 1);
        return false;
    }
    *selected = value;
    return true;
}

QByteArray jsonString(const QString& text)
{
    // QJsonDocument escapes; strip the surrounding array brackets.
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

int runAttention(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Computes every layer's and head's attention probabilities for one input.\n"
        "JSON: {\"model\", \"tokens\", \"ids\", \"layers\", \"heads\", \"attentions\": "
        "[layer][head][query][key]}.\n"
        "npy: float32 [layers, heads, n, n] (or the --layer/--head subset).\n"
        "--measure norm: the contributions ||alpha_ij f(x_j)|| (Kobayashi et al. 2020) in the same\n"
        "layout instead of the weights alpha (docs/metrics.md).\n"
        "With --ids the ids are used as given: no special tokens are added.\n"
        "Inputs longer than the model's max_position_embeddings are refused, not truncated."));
    parser.addHelpOption();
    parser.addOptions(modelInputOptions());
    parser.addOptions({
        {QStringLiteral("layer"), QStringLiteral("Only this layer (0-based)."), QStringLiteral("L")},
        {QStringLiteral("head"), QStringLiteral("Only this head (0-based)."), QStringLiteral("H")},
        {QStringLiteral("format"), QStringLiteral("json (default) or npy."), QStringLiteral("format"),
         QStringLiteral("json")},
        {QStringLiteral("measure"), QStringLiteral("weight (default: alpha) or norm (||alpha f(x)||)."),
         QStringLiteral("measure"), QStringLiteral("weight")},
        {QStringLiteral("out"), QStringLiteral("Write to this file instead of stdout (required for npy)."),
         QStringLiteral("file")},
        {QStringLiteral("force"), QStringLiteral("Overwrite an existing --out file.")},
        {QStringLiteral("verbose"), QStringLiteral("Report the backend, device and timings on stderr.")},
    });
    parser.addOption(backendOption());
    if (!parser.parse(arguments)) {
        printError(parser.errorText());
        return 2;
    }
    if (parser.isSet(QStringLiteral("help"))) {
        printOut(parser.helpText());
        return 0;
    }
    QString error;
    if (!parser.isSet(QStringLiteral("model"))) {
        printError(QStringLiteral("attention: --model is required"));
        return 2;
    }
    const bool hasText = parser.isSet(QStringLiteral("text"));
    if (hasText == parser.isSet(QStringLiteral("ids"))) {
        printError(QStringLiteral("attention: give exactly one of --text or --ids"));
        return 2;
    }
    if (parser.isSet(QStringLiteral("text-b")) && !hasText) {
        printError(QStringLiteral("attention: --text-b needs --text"));
        return 2;
    }
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("json") && format != QLatin1String("npy")) {
        printError(QStringLiteral("attention: --format must be json or npy, not '%1'").arg(format));
        return 2;
    }
    const QString measure = parser.value(QStringLiteral("measure"));
    if (measure != QLatin1String("weight") && measure != QLatin1String("norm")) {
        printError(QStringLiteral("attention: --measure must be weight or norm, not '%1'").arg(measure));
        return 2;
    }
    if (format == QLatin1String("npy") && !parser.isSet(QStringLiteral("out"))) {
        printError(QStringLiteral("attention: --format npy needs --out FILE"));
        return 2;
    }
    const QString backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
    if (backendName.isEmpty()) {
        printError(QStringLiteral("attention: ") + error);
        return 2;
    }
    const QString outPath = parser.value(QStringLiteral("out"));
    if (!outPath.isEmpty() && QFileInfo::exists(outPath) && !parser.isSet(QStringLiteral("force"))) {
        printError(outPath + QStringLiteral(": already exists; use --force to overwrite it"));
        return 1;
    }
    const bool verbose = parser.isSet(QStringLiteral("verbose"));

    try {
        QElapsedTimer timer;
        timer.start();
        const std::unique_ptr<TransformerModel> model =
            openModelArgument(parser.value(QStringLiteral("model")));
        // The pass reads every weight: map them all in now, in 64 MiB kernel calls, rather than one page
        // fault at a time inside the GEMMs (prefetch.h).
        model->prefetchWeights();
        const qint64 openMs = timer.restart();
        const ModelInput input = modelInput(*model, parser);
        const std::unique_ptr<AttentionBackend> backend = createCommandBackend(backendName, verbose);
        RunOptions runOptions;
        runOptions.backend = backend.get();
        const AttentionCapture capture = model->run(input.ids, input.typeIds, runOptions);
        // What the matrices hold: the weights, or each head's contributions from the same pass.
        const std::shared_ptr<const AttentionMaps> maps =
            measure == QLatin1String("norm") ? contributionMaps(capture, ContributionScale::Norm)
                                             : capture.maps;
        const qint64 runMs = timer.restart();

        int layer = -1, head = -1;
        if (!parseSelection(parser, QStringLiteral("layer"), model->info().layers, &layer, &error) ||
            !parseSelection(parser, QStringLiteral("head"), model->info().heads, &head, &error)) {
            printError(QStringLiteral("attention: ") + error);
            return 2;
        }
        const int l0 = layer < 0 ? 0 : layer, l1 = layer < 0 ? capture.layers() : layer + 1;
        const int h0 = head < 0 ? 0 : head, h1 = head < 0 ? maps->heads() : head + 1;
        const int n = capture.tokens();

        QByteArray output;
        if (format == QLatin1String("npy")) {
            // Header, then each head's matrix copied once into the file's bytes (no vector of every value).
            output = npyFloat32Header({l1 - l0, h1 - h0, n, n});
            output.reserve(output.size() + qsizetype(l1 - l0) * (h1 - h0) * n * n * 4);
            for (int l = l0; l < l1; ++l)
                for (int h = h0; h < h1; ++h) {
                    const std::vector<float> m = maps->matrix(l, h);
                    appendFloat32(output, m.data(), qint64(m.size()));
                }
        } else {
            output.reserve(qsizetype(l1 - l0) * (h1 - h0) * n * n * 12 + 4096);
            output += "{\"model\":" + jsonString(parser.value(QStringLiteral("model"))) +
                      ",\"path\":" + jsonString(model->info().path) +
                      ",\"architecture\":" + jsonString(model->info().architecture) + ",\"tokens\":[";
            for (int i = 0; i < input.tokens.size(); ++i)
                output += (i ? "," : "") + jsonString(input.tokens[i]);
            output += "],\"ids\":[";
            for (size_t i = 0; i < input.ids.size(); ++i)
                output += (i ? "," : "") + QByteArray::number(input.ids[i]);
            output +=
                "],\"layers\":" + QByteArray::number(l1 - l0) + ",\"heads\":" + QByteArray::number(h1 - h0);
            if (layer >= 0) output += ",\"layer\":" + QByteArray::number(layer);
            if (head >= 0) output += ",\"head\":" + QByteArray::number(head);
            output += ",\"causal\":" + QByteArray(capture.causal ? "true" : "false") +
                      ",\"measure\":" + jsonString(measure) + ",\"attentions\":[";
            for (int l = l0; l < l1; ++l) {
                output += (l > l0 ? ",[" : "[");
                for (int h = h0; h < h1; ++h) {
                    output += (h > h0 ? ",[" : "[");
                    const std::vector<float> m = maps->matrix(l, h);
                    for (int q = 0; q < n; ++q) {
                        output += (q ? ",[" : "[");
                        for (int k = 0; k < n; ++k) {
                            if (k) output += ',';
                            output += floatText(m[size_t(q) * n + k]);
                        }
                        output += ']';
                    }
                    output += ']';
                }
                output += ']';
            }
            output += "]}\n";
        }

        if (outPath.isEmpty()) {
            std::fwrite(output.constData(), 1, size_t(output.size()), stdout);
            std::fflush(stdout);
        } else if (!writeOutputFile(outPath, output, parser.isSet(QStringLiteral("force")), &error)) {
            printError(error);
            return 1;
        }
        if (verbose)
            printError(QStringLiteral("%1: %2 tokens, open %3 ms, forward %4 ms, %5 layers x %6 heads")
                           .arg(model->info().name)
                           .arg(n)
                           .arg(openMs)
                           .arg(runMs)
                           .arg(capture.layers())
                           .arg(capture.maps->heads()));
        return 0;
    } catch (const ModelError& e) {
        printError(e.message());
    } catch (const NpyError& e) {
        printError(QString::fromStdString(e.what()));
    } catch (const std::exception& e) {
        printError(QStringLiteral("attention: ") + QString::fromStdString(e.what()));
    }
    return 1;
}

const CommandRegistration registration(Command{
    QStringLiteral("attention"),
    QStringLiteral("Attention probabilities of every layer and head (JSON or npy)"), true,
    &runAttention}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
