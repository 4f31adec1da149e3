// attnscope attention: every layer's and head's attention probabilities for one input, as JSON or .npy.

#include "analysis/contributions.h"
#include "analysiscommandline.h"
#include "attention/attentionmaps.h"
#include "backendoption.h"
#include "command.h"
#include "io/npy.h"
#include "io/outputfile.h"
#include "model/encoderdecodermodel.h"
#include "model/modelcatalog.h"
#include "model/transformermodel.h"
#include "modelcommand.h"
#include "seq2seqattention.h"
#include "util/operationcancelled.h"

#include <QDir>
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
    ModelCommand command(
        QStringLiteral("attention"),
        QStringLiteral(
            "Computes every layer's and head's attention probabilities for one input.\n"
            "JSON: {\"model\", \"tokens\", \"ids\", \"layers\", \"heads\", \"attentions\": "
            "[layer][head][query][key]}.\n"
            "npy: float32 [layers, heads, n, n] (or the --layer/--head subset).\n"
            "--measure norm: the contributions ||alpha_ij f(x_j)|| (Kobayashi et al. 2020) in the same\n"
            "layout instead of the weights alpha (docs/metrics.md).\n"
            "With --ids the ids are used as given: no special tokens are added.\n"
            "Inputs longer than the model's max_position_embeddings are refused, not truncated.\n"
            "Dumps over --max-output-size (default 1G) are refused before anything is computed.\n"
            "Encoder-decoder models (Marian, BART, mBART, T5) need --part encoder|decoder|cross, the source\n"
            "as --text or --ids and, for decoder and cross, --target TEXT or --target-ids (the decoder's\n"
            "input as given, decoder_start first); the JSON then has \"part\", \"source_tokens\",\n"
            "\"source_ids\", \"target_tokens\", \"target_ids\" and [layer][head][query][key] (cross: target\n"
            "queries x source keys)."));
    command.options = {
        {QStringLiteral("layer"), QStringLiteral("Only this layer (0-based)."), QStringLiteral("L")},
        {QStringLiteral("head"), QStringLiteral("Only this head (0-based)."), QStringLiteral("H")},
        dumpFormatOption(),
        {QStringLiteral("measure"), QStringLiteral("weight (default: alpha) or norm (||alpha f(x)||)."),
         QStringLiteral("measure"), QStringLiteral("weight")},
    };
    command.options
        << outFileOptions()
        << QCommandLineOption(QStringLiteral("verbose"),
                              QStringLiteral("Report the backend, device and timings on stderr."))
        << backendOption() << maxOutputSizeOption()
        << QCommandLineOption(QStringLiteral("part"),
                              QStringLiteral("encoder, decoder or cross (encoder-decoder models)."),
                              QStringLiteral("part"))
        << QCommandLineOption(QStringLiteral("target"),
                              QStringLiteral("The target text for --part decoder/cross (the decoder's "
                                             "input is made from it as the model's forward does)."),
                              QStringLiteral("text"))
        << QCommandLineOption(QStringLiteral("target-ids"),
                              QStringLiteral("The decoder's input ids for --part decoder/cross."),
                              QStringLiteral("ids"));
    bool npy = false;
    QString measure;
    std::optional<int> layer, head;
    std::optional<qint64> maxBytes;
    command.checkArguments = [&](const QCommandLineParser& parser) {
        QString error = dumpFormatProblem(parser);
        if (!error.isEmpty()) return error;
        npy = parser.value(QStringLiteral("format")) == QLatin1String("npy");
        measure = parser.value(QStringLiteral("measure"));
        if (measure != QLatin1String("weight") && measure != QLatin1String("norm"))
            return QStringLiteral("--measure must be weight or norm, not '%1'").arg(measure);
        if (error = outFileProblem(parser); !error.isEmpty()) return error;
        maxBytes = maxOutputSize(parser, &error);
        if (!maxBytes || !parseIndexSyntax(parser, QStringLiteral("layer"), &layer, &error) ||
            !parseIndexSyntax(parser, QStringLiteral("head"), &head, &error))
            return error;
        return seq2seqAttentionProblem(parser);
    };
    // An encoder-decoder model runs apart (seq2seqattention.h); --part is refused on any other and needed on
    // it.
    command.runOtherModel = [&](const QCommandLineParser& parser,
                                const QString& outPath) -> std::optional<int> {
        const QString folder = ModelCatalog::resolve(parser.value(QStringLiteral("model")));
        const QString modelType = EncoderDecoderModel::encoderDecoderModelType(folder);
        const bool part = parser.isSet(QStringLiteral("part"));
        if (modelType.isEmpty() && !part) return std::nullopt;
        if (modelType.isEmpty())
            throw CommandError(
                2, QStringLiteral("attention: --part is for encoder-decoder models (%1); %2 is not one")
                       .arg(EncoderDecoderModel::supportedModelTypes().join(QStringLiteral(", ")),
                            QDir::toNativeSeparators(folder)));
        if (!part)
            throw CommandError(
                2, QStringLiteral("attention: %1 is an encoder-decoder model (model_type '%2'); give "
                                  "--part encoder, decoder or cross")
                       .arg(QDir::toNativeSeparators(folder), modelType));
        runSeq2SeqAttention(parser, folder,
                            {parser.value(QStringLiteral("part")), layer, head, npy, *maxBytes, outPath,
                             parser.isSet(QStringLiteral("force"))});
        return 0;
    };
    command.run = [&](ModelCommandRun& run) {
        QElapsedTimer timer;
        timer.start();
        TransformerModel* const model = &run.model();
        const ModelInput& input = run.input();
        QString error;
        if (!checkIndexRange(QStringLiteral("layer"), layer, model->info().layers, &error) ||
            !checkIndexRange(QStringLiteral("head"), head, model->info().heads, &error))
            throw CommandError(2, QStringLiteral("attention: ") + error);
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
            throw CommandError(1, QStringLiteral("attention: %1 x %2 x (%3 tokens)^2: %4")
                                      .arg(counted(l1 - l0, "layer", "layers"))
                                      .arg(counted(h1 - h0, "head", "heads"))
                                      .arg(input.ids.size())
                                      .arg(tooLarge));
        }
        RunOptions runOptions = run.runOptions();
        // Nothing after the last layer's attention is written: its feed-forward and the final norm are
        // skipped.
        runOptions.attentionOnly = true;
        const int n = int(input.ids.size());

        // Streamed, one matrix or layer at a time: a dump is never held whole in memory. A file appears only
        // when complete (OutputFile); stdout is checked on every write.
        OutputFile out(run.outPath(), run.force());
        if (!out.open()) throw CommandError(1, out.error());
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
        const qint64 runMs = timer.elapsed();

        if (streamed && layersStreamed != l1 - l0) {
            // Every family's pass hands each layer over; a file with fewer layers than its header says
            // must never appear.
            throw CommandError(1, QStringLiteral("attention: the pass gave %1 of %2 layers' probabilities")
                                      .arg(layersStreamed)
                                      .arg(l1 - l0));
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
            QByteArray text = "{\"model\":" + jsonString(run.modelArgument()) +
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
        if (!out.commit()) throw CommandError(1, out.error());
        if (run.isSet("verbose"))
            printError(QStringLiteral("%1: %2 tokens, open %3 ms, forward %4 ms, %5 layers x %6 heads%7")
                           .arg(model->info().name)
                           .arg(n)
                           .arg(run.openMilliseconds())
                           .arg(runMs)
                           .arg(model->info().layers)
                           .arg(capture.maps->heads())
                           .arg(out.wroteDirect()
                                    ? QStringLiteral(", written past the page cache (%1 MiB of it uncopied)")
                                          .arg(out.writtenInPlace() >> 20)
                                    : QString()));
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{
    QStringLiteral("attention"),
    QStringLiteral("Attention probabilities of every layer and head (JSON or npy)"), true,
    &runAttention}); // needsGui: GPU backends need the platform

} // namespace

} // namespace attnscope
