// attnscope translate: an encoder-decoder model's output for one source (greedy or beam search, as
// transformers' generate()), with each output token's cross-attention over the source.

#include "analysiscommandline.h"
#include "command.h"
#include "generation/seq2seqgeneration.h"
#include "model/modelcatalog.h"
#include "modelcommand.h"
#include "modelcommandline.h"
#include "seq2seqcommandline.h"

#include <QCommandLineParser>
#include <QDir>

namespace attnscope {

namespace {

// Far more than any model's positions: a typo, refused before anything runs.
constexpr int kMaxLengthLimit = 1 << 16;
constexpr int kMaxBeamsLimit = 1024;

// --NAME as a whole number in [low, high]; nullopt when not given; false with *error otherwise.
bool parseBounded(const QCommandLineParser& parser, const QString& name, int low, int high,
                  std::optional<int>* value, QString* error)
{
    if (!parser.isSet(name)) return true;
    bool ok = false;
    const int parsed = parser.value(name).trimmed().toInt(&ok);
    if (!ok || parsed < low || parsed > high) {
        *error = QStringLiteral("--%1 must be a whole number from %2 to %3, not '%4'")
                     .arg(name)
                     .arg(low)
                     .arg(high)
                     .arg(parser.value(name));
        return false;
    }
    *value = parsed;
    return true;
}

// The cross-attention of each output token after decoder_start: the row of the decoder position that chose
// it (output token i, 1-based, was predicted at position i - 1), as generate(output_attentions) returns
// them, one per step. [layer][head][output token][source] as JSON.
QByteArray crossAttentionJson(const EncoderDecoderModel& model, const std::vector<int>& sourceIds,
                              const std::vector<int>& output, const Seq2SeqGenerationSettings& settings)
{
    if (output.size() < 2) return "[]";
    // The decoder is causal: the rows of one pass over the output (its last token not needed as a query) are
    // those of each step, the winning beam's for beam search.
    const std::vector<int> queries(output.begin(), output.end() - 1);
    // With generate()'s mask: pad tokens of the source get no attention, as in the steps that chose the
    // output.
    const DenseAttentionMaps cross =
        model.run(sourceIds, queries, 0, sourceVisibility(sourceIds, settings)).cross;
    const int n = cross.queries(), keys = cross.keys();
    QByteArray text = "[";
    for (int l = 0; l < cross.layers(); ++l) {
        text += l ? ",[" : "[";
        for (int h = 0; h < cross.heads(); ++h) {
            text += h ? ",[" : "[";
            const float* m = cross.data(l, h);
            for (int q = 0; q < n; ++q) {
                text += q ? ",[" : "[";
                for (int k = 0; k < keys; ++k)
                    text += (k ? "," : "") + floatText(m[size_t(q) * size_t(keys) + size_t(k)]);
                text += ']';
            }
            text += ']';
        }
        text += ']';
    }
    return text + ']';
}

int runTranslate(const QStringList& arguments)
{
    const QString name = QStringLiteral("translate");
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Translates (or summarises) one source with an encoder-decoder model (Marian, BART, mBART, T5), as\n"
        "transformers' generate() does: greedy, or beam search with --num-beams; generation_config.json's\n"
        "settings (max_length, num_beams, forced BOS/EOS, bad_words_ids, ...) unless overridden here.\n"
        "Prints the source ids, the output ids (decoder_start first, as generate() returns them) and the\n"
        "output's text (where the model has a tokenizer).\n"
        "JSON: {\"model\", \"path\", \"model_type\", \"num_beams\", \"max_length\", \"source_ids\",\n"
        "\"source_tokens\", \"target_ids\", \"target_tokens\", \"target_text\" (null without a tokenizer),\n"
        "\"layers\", \"heads\", \"cross_attention\": [layer][head][output token][source token]}: one row "
        "per\n"
        "output token after decoder_start, the cross-attention of the step that chose it.\n"
        "With --ids the source ids are used as given: no special tokens are added."));
    parser.addHelpOption();
    parser.addOptions({
        {QStringLiteral("model"), QStringLiteral("Encoder-decoder model folder, built-in name or cache id."),
         QStringLiteral("path")},
        {QStringLiteral("text"), QStringLiteral("Source text (tokenized, special tokens added)."),
         QStringLiteral("text")},
        {QStringLiteral("ids"), QStringLiteral("Comma-separated source token ids, used as given."),
         QStringLiteral("ids")},
        {{QStringLiteral("num-beams"), QStringLiteral("beams")},
         QStringLiteral("Beams (1: greedy); default generation_config.json's num_beams."),
         QStringLiteral("N")},
        {QStringLiteral("max-length"),
         QStringLiteral("Most output tokens, decoder_start included; default generation_config.json's."),
         QStringLiteral("L")},
        jsonOption(),
    });
    if (const std::optional<int> done = parseCommandLine(parser, arguments, name)) return *done;
    std::optional<int> beams, maxLength;
    QString error;
    if (!parser.isSet(QStringLiteral("model")))
        error = QStringLiteral("--model is required");
    else if (parser.isSet(QStringLiteral("text")) == parser.isSet(QStringLiteral("ids")))
        error = QStringLiteral("give exactly one of --text or --ids");
    else if (const QString empty = emptyTextProblem(parser); !empty.isEmpty())
        error = empty;
    else
        parseBounded(parser, QStringLiteral("num-beams"), 1, kMaxBeamsLimit, &beams, &error) &&
            parseBounded(parser, QStringLiteral("max-length"), 1, kMaxLengthLimit, &maxLength, &error);
    if (!error.isEmpty()) {
        printError(name + QStringLiteral(": ") + error);
        return 2;
    }

    try {
        const QString folder = ModelCatalog::resolve(parser.value(QStringLiteral("model")));
        if (EncoderDecoderModel::encoderDecoderModelType(folder).isEmpty())
            throw CommandError(
                2, QStringLiteral("%1: %2 is not an encoder-decoder model (supported: %3); "
                                  "`attnscope generate` continues text with the others")
                       .arg(name, QDir::toNativeSeparators(folder),
                            EncoderDecoderModel::supportedModelTypes().join(QStringLiteral(", "))));
        const Seq2SeqModelArgument opened = openSeq2SeqModel(
            folder,
            parser.isSet(QStringLiteral("text")) ? QStringLiteral("give the source as --ids") : QString(),
            name);
        const EncoderDecoderModel& model = *opened.model;
        const Seq2SeqSource source = seq2seqSource(parser, opened);
        Seq2SeqGenerationSettings settings = Seq2SeqGenerationSettings::fromFolder(folder, model);
        if (beams) settings.numBeams = *beams;
        if (maxLength) settings.maxLength = *maxLength;
        // generate() searches beams whenever num_beams > 1, and greedily otherwise.
        const std::vector<int> output = settings.numBeams > 1
                                            ? beamSearchGenerate(model, source.ids, settings)
                                            : greedyGenerate(model, source.ids, settings);
        const bool hasText = opened.tokenizer != nullptr;
        const QString text = hasText ? opened.tokenizer->decodeTarget(output) : QString();
        if (!parser.isSet(QStringLiteral("json"))) {
            printOut(QStringLiteral("source ids: %1\ntarget ids: %2\n")
                         .arg(QString::fromLatin1(jsonIdList(source.ids).mid(1).chopped(1)),
                              QString::fromLatin1(jsonIdList(output).mid(1).chopped(1))));
            if (hasText) printOut(QStringLiteral("target text: %1\n").arg(text));
            return 0;
        }
        const EncoderDecoderConfig& c = model.config();
        const QByteArray json =
            "{\"model\":" + jsonText(parser.value(QStringLiteral("model"))) +
            ",\"path\":" + jsonText(folder) + ",\"model_type\":" + jsonText(c.modelType) +
            ",\"num_beams\":" + QByteArray::number(settings.numBeams) +
            ",\"max_length\":" + QByteArray::number(settings.maxLength) +
            ",\"source_ids\":" + jsonIdList(source.ids) +
            ",\"source_tokens\":" + jsonTextList(source.tokens) + ",\"target_ids\":" + jsonIdList(output) +
            ",\"target_tokens\":" + jsonTextList(targetTokens(opened, output)) +
            ",\"target_text\":" + (hasText ? jsonText(text) : QByteArray("null")) +
            ",\"layers\":" + QByteArray::number(c.decoderLayers) +
            ",\"heads\":" + QByteArray::number(c.decoderHeads) +
            ",\"cross_attention\":" + crossAttentionJson(model, source.ids, output, settings) + "}\n";
        printOut(QString::fromUtf8(json));
        return 0;
    } catch (...) {
        return reportFailure(name, std::current_exception(), ModelErrorText::AsIs);
    }
}

const CommandRegistration registration(Command{
    QStringLiteral("translate"),
    QStringLiteral("Translate with an encoder-decoder model (greedy or beam search), with cross-attention"),
    false, &runTranslate});

} // namespace

} // namespace attnscope
