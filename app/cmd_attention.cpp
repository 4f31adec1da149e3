// attnscope attention: every layer's and head's attention probabilities for one input, as JSON or .npy.

#include "analysis/contributions.h"
#include "analysiscommandline.h"
#include "attention/attentionmaps.h"
#include "backend/attentionbackend.h"
#include "backendoption.h"
#include "command.h"
#include "io/npy.h"
#include "io/outputfile.h"
#include "modelcommandline.h"
#include "util/operationcancelled.h"

#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QJsonArray>
#include <QJsonDocument>
#include <future>
#include <optional>

namespace attnscope {

namespace {

// --layer / --head: nullopt when not given (all); false with *error when the value is not a number.
bool parseIndexSyntax(const QCommandLineParser& parser, const QString& name, std::optional<int>* value,
                      QString* error)
{
    value->reset();
    if (!parser.isSet(name)) return true;
    bool ok = false;
    const int parsed = parser.value(name).trimmed().toInt(&ok);
    if (!ok) {
        *error = QStringLiteral("--%1 '%2' is not a number").arg(name, parser.value(name));
        return false;
    }
    *value = parsed;
    return true;
}

// The selected index is within [0, count), or none is selected; false with *error otherwise.
bool checkIndexRange(const QString& name, const std::optional<int>& value, int count, QString* error)
{
    if (!value || (*value >= 0 && *value < count)) return true;
    *error = QStringLiteral("--%1 %2 is outside 0..%3").arg(name).arg(*value).arg(count - 1);
    return false;
}

QByteArray jsonString(const QString& text)
{
    // QJsonDocument escapes; strip the surrounding array brackets.
    const QByteArray array = QJsonDocument(QJsonArray{text}).toJson(QJsonDocument::Compact);
    return array.mid(1, array.size() - 2);
}

// An upper bound of the dump's size: a float is at most 14 characters as shortest text ("-1.2345678e-38")
// plus its separator, and each row and matrix adds brackets.
qint64 estimatedBytes(bool npy, qint64 matrices, qint64 n, qint64 tokenTextBytes)
{
    const qint64 values = matrices * n * n;
    if (npy) return 128 + 4 * values;
    return 4096 + tokenTextBytes + 15 * values + 3 * matrices * n + 3 * matrices;
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
        "Inputs longer than the model's max_position_embeddings are refused, not truncated.\n"
        "Dumps over --max-output-size (default 1G) are refused before anything is computed."));
    parser.addHelpOption();
    parser.addOptions(modelInputOptions());
    parser.addOptions({
        {QStringLiteral("layer"), QStringLiteral("Only this layer (0-based)."), QStringLiteral("L")},
        {QStringLiteral("head"), QStringLiteral("Only this head (0-based)."), QStringLiteral("H")},
        {QStringLiteral("format"), QStringLiteral("json (default) or npy."), QStringLiteral("format"),
         QStringLiteral("json")},
        {QStringLiteral("measure"), QStringLiteral("weight (default: alpha) or norm (||alpha f(x)||)."),
         QStringLiteral("measure"), QStringLiteral("weight")},
        {QStringLiteral("out"),
         QStringLiteral("Write to this file instead of stdout (required for npy; - is stdout)."),
         QStringLiteral("file")},
        {QStringLiteral("force"), QStringLiteral("Overwrite an existing --out file.")},
        {QStringLiteral("verbose"), QStringLiteral("Report the backend, device and timings on stderr.")},
    });
    parser.addOption(backendOption());
    parser.addOption(maxOutputSizeOption());
    if (const std::optional<int> done = parseModelCommandLine(parser, arguments, QStringLiteral("attention")))
        return *done;
    QString error;
    const QString format = parser.value(QStringLiteral("format"));
    if (format != QLatin1String("json") && format != QLatin1String("npy")) {
        printError(QStringLiteral("attention: --format must be json or npy, not '%1'").arg(format));
        return 2;
    }
    const bool npy = format == QLatin1String("npy");
    const QString measure = parser.value(QStringLiteral("measure"));
    if (measure != QLatin1String("weight") && measure != QLatin1String("norm")) {
        printError(QStringLiteral("attention: --measure must be weight or norm, not '%1'").arg(measure));
        return 2;
    }
    if (parser.isSet(QStringLiteral("out"))) {
        // An empty --out was standard output, silently.
        if (const QString problem = outOptionProblem(parser.value(QStringLiteral("out")), true);
            !problem.isEmpty()) {
            printError(QStringLiteral("attention: ") + problem);
            return 2;
        }
    }
    if (npy && !parser.isSet(QStringLiteral("out"))) {
        printError(QStringLiteral("attention: --format npy needs --out FILE"));
        return 2;
    }
    const QString backendName = parseBackend(parser.value(QStringLiteral("backend")), &error);
    if (backendName.isEmpty()) {
        printError(QStringLiteral("attention: ") + error);
        return 2;
    }
    std::optional<int> layer, head;
    const std::optional<qint64> maxBytes = maxOutputSize(parser, &error);
    if (!maxBytes || !parseIndexSyntax(parser, QStringLiteral("layer"), &layer, &error) ||
        !parseIndexSyntax(parser, QStringLiteral("head"), &head, &error)) {
        printError(QStringLiteral("attention: ") + error);
        return 2;
    }
    // "--out -" is standard output, as "-" is standard input for --text-file (not a file named "-").
    const QString outPath = isStandardStream(parser.value(QStringLiteral("out")))
                                ? QString()
                                : parser.value(QStringLiteral("out"));
    const bool force = parser.isSet(QStringLiteral("force"));
    if (parser.isSet(QStringLiteral("out")) && !isStandardStream(parser.value(QStringLiteral("out")))) {
        // Refused before the model runs: a device, a FIFO, a folder, or an existing file without --force.
        const OutputCheck check = checkOutputPath(outPath, force);
        if (check.refusal != OutputRefusal::None) {
            printError(check.error + (check.refusal == OutputRefusal::Exists
                                          ? QStringLiteral(" (use --force to overwrite)")
                                          : QString()));
            return 1;
        }
    }
    const bool verbose = parser.isSet(QStringLiteral("verbose"));

    try {
        QElapsedTimer timer;
        timer.start();
        const std::unique_ptr<TransformerModel> model =
            openModelArgument(parser.value(QStringLiteral("model")));
        const qint64 openMs = timer.restart();
        const ModelInput input = modelInput(*model, parser);
        if (!checkIndexRange(QStringLiteral("layer"), layer, model->info().layers, &error) ||
            !checkIndexRange(QStringLiteral("head"), head, model->info().heads, &error)) {
            printError(QStringLiteral("attention: ") + error);
            return 2;
        }
        const int l0 = layer.value_or(0), l1 = layer ? *layer + 1 : model->info().layers;
        const int h0 = head.value_or(0), h1 = head ? *head + 1 : model->info().heads;
        const qint64 tokenBytes =
            input.tokens.join(QString()).toUtf8().size() * 2 + 16 * qint64(input.ids.size());
        const qint64 estimate =
            estimatedBytes(npy, qint64(l1 - l0) * (h1 - h0), qint64(input.ids.size()), tokenBytes);
        if (const QString tooLarge = outputSizeProblem(estimate, *maxBytes); !tooLarge.isEmpty()) {
            // (No "²" after a placeholder: QString::arg reads superscript digits as part of the number.)
            auto counted = [](int n, const char* one, const char* many) {
                return QString::number(n) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
            };
            printError(QStringLiteral("attention: %1 x %2 x (%3 tokens)^2: %4")
                           .arg(counted(l1 - l0, "layer", "layers"))
                           .arg(counted(h1 - h0, "head", "heads"))
                           .arg(input.ids.size())
                           .arg(tooLarge));
            return 1;
        }
        const std::unique_ptr<AttentionBackend> backend = createCommandBackend(backendName, verbose);
        RunOptions runOptions;
        runOptions.backend = backend.get();
        // Nothing after the last layer's attention is written: its feed-forward and the final norm are
        // skipped.
        runOptions.attentionOnly = true;
        const int n = int(input.ids.size());

        // Streamed, one matrix or layer at a time: a dump is never held whole in memory. A file appears only
        // when complete (OutputFile); stdout is checked on every write.
        OutputFile out(outPath, force);
        if (!out.open()) {
            printError(out.error());
            return 1;
        }
        // 150 MB for BERT-base at 512 tokens: past the page cache, where copying it in cost the most
        // erratic part of a run's time (io/directwriter.h).
        if (npy) out.preferDirectWrites();
        // Declared after `out`: a write in flight ends before the file is discarded.
        std::future<void> writing;
        // The npy of the weights takes each layer's P from the pass as soon as it is computed (RunOptions::
        // takeLayerProbabilities) and writes it on a thread of its own while the next layer computes: P is
        // computed once, and at most two layers are held (one being written, one just computed). A layer
        // whose P would pass kStreamedLayerBytes keeps the tiled pass instead, which holds Q, K and the row
        // logsumexp per layer and recomputes P = exp(S − L) one head at a time as it writes (issue 15's
        // memory target: 512 MiB of P for a Llama-3.2-1B shape at 512 tokens).
        constexpr qint64 kStreamedLayerBytes = qint64(256) << 20;
        const bool streamed =
            npy && measure == QLatin1String("weight") &&
            qint64(model->info().heads) * n * n * qint64(sizeof(float)) <= kStreamedLayerBytes;
        int layersStreamed = 0;
        // A dump of a MiB or more gets a 4 KiB header (still a valid npy: the format asks for a multiple of
        // 64), so that each P starts on a block boundary of the file and goes out from the pass's
        // page-aligned buffer uncopied (io/directwriter.h). Decided by the shape alone: a file and stdout get
        // the same bytes.
        const qint64 dumpBytes = qint64(l1 - l0) * (h1 - h0) * n * n * qint64(sizeof(float));
        if (npy)
            out.write(npyHeader({l1 - l0, h1 - h0, n, n}, false, dumpBytes >= (qint64(1) << 20) ? 4096 : 64));
        if (streamed) {
            runOptions.denseLimit = n;
            runOptions.takeLayerProbabilities = [&](int l, FloatBuffer probabilities) {
                if (l < l0 || l >= l1) return;
                ++layersStreamed;
                if (writing.valid()) writing.get();
                writing = std::async(std::launch::async, [&out, h0, h1, n, p = std::move(probabilities)] {
                    // P is [heads, n, n]: heads [h0, h1) are one contiguous run.
                    const size_t matrix = size_t(n) * size_t(n);
                    out.write(reinterpret_cast<const char*>(p.data() + size_t(h0) * matrix),
                              qint64(size_t(h1 - h0) * matrix * sizeof(float)));
                });
            };
        } else {
            runOptions.denseLimit = 0;
        }
        // Map the weights in ahead of the pass in large reads, not one page fault at a time inside the
        // GEMMs (prefetch.h).
        model->prefetchWeights();
        const AttentionCapture capture = model->run(input.ids, input.typeIds, runOptions);
        if (writing.valid()) writing.get();
        // What the matrices hold: the weights, or each head's contributions from the same pass.
        const std::shared_ptr<const AttentionMaps> maps =
            measure == QLatin1String("norm") ? contributionMaps(capture, ContributionScale::Norm)
                                             : capture.maps;
        const qint64 runMs = timer.restart();

        if (streamed && layersStreamed != l1 - l0) {
            // Every family's pass hands each layer over; a file with fewer layers than its header says
            // must never appear.
            printError(QStringLiteral("attention: the pass gave %1 of %2 layers' probabilities")
                           .arg(layersStreamed)
                           .arg(l1 - l0));
            return 1;
        }
        if (npy && !streamed) {
            // A layer's heads are computed on every core (a tiled map recomputes each P) while the layer
            // before is written on a thread of its own: the write is mostly the kernel copying into the
            // page cache, which otherwise ran alone after the pass (docs/benchmarks.md).
            for (int l = l0; l < l1; ++l) {
                std::vector<std::vector<float>> matrices = headMatrices(*maps, l, h0, h1);
                if (writing.valid()) writing.get();
                writing = std::async(std::launch::async, [&out, layerMatrices = std::move(matrices)] {
                    for (const std::vector<float>& m : layerMatrices)
                        out.write(reinterpret_cast<const char*>(m.data()), qint64(m.size() * sizeof(float)));
                });
            }
            if (writing.valid()) writing.get();
        } else if (!npy) {
            QByteArray text = "{\"model\":" + jsonString(parser.value(QStringLiteral("model"))) +
                              ",\"path\":" + jsonString(model->info().path) +
                              ",\"architecture\":" + jsonString(model->info().architecture) + ",\"tokens\":[";
            for (int i = 0; i < input.tokens.size(); ++i)
                text += (i ? "," : "") + jsonString(input.tokens[i]);
            text += "],\"ids\":[";
            for (size_t i = 0; i < input.ids.size(); ++i)
                text += (i ? "," : "") + QByteArray::number(input.ids[i]);
            text +=
                "],\"layers\":" + QByteArray::number(l1 - l0) + ",\"heads\":" + QByteArray::number(h1 - h0);
            if (layer) text += ",\"layer\":" + QByteArray::number(*layer);
            if (head) text += ",\"head\":" + QByteArray::number(*head);
            text += ",\"causal\":" + QByteArray(capture.causal ? "true" : "false") +
                    ",\"measure\":" + jsonString(measure) + ",\"attentions\":[";
            out.write(text);
            for (int l = l0; l < l1 && out.error().isEmpty(); ++l) {
                text = l > l0 ? ",[" : "[";
                for (int h = h0; h < h1; ++h) {
                    text += h > h0 ? ",[" : "[";
                    const std::vector<float> m = maps->matrix(l, h);
                    for (int q = 0; q < n; ++q) {
                        text += q ? ",[" : "[";
                        for (int k = 0; k < n; ++k) {
                            if (k) text += ',';
                            text += floatText(m[size_t(q) * n + k]);
                        }
                        text += ']';
                    }
                    text += ']';
                    if (!out.write(text)) break;
                    text.clear();
                }
                text += ']';
                out.write(text);
            }
            out.write(QByteArrayLiteral("]}\n"));
        }
        if (!out.commit()) {
            printError(out.error());
            return 1;
        }
        if (verbose)
            printError(QStringLiteral("%1: %2 tokens, open %3 ms, forward %4 ms, %5 layers x %6 heads%7")
                           .arg(model->info().name)
                           .arg(n)
                           .arg(openMs)
                           .arg(runMs)
                           .arg(model->info().layers)
                           .arg(capture.maps->heads())
                           .arg(out.wroteDirect()
                                    ? QStringLiteral(", written past the page cache (%1 MiB of it uncopied)")
                                          .arg(out.writtenInPlace() >> 20)
                                    : QString()));
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
