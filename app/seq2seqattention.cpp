#include "seq2seqattention.h"

#include "command.h"
#include "generation/seq2seqgeneration.h"
#include "io/npy.h"
#include "io/outputfile.h"
#include "model/modelerror.h"
#include "modelcommandline.h"
#include "seq2seqcommandline.h"

#include <algorithm>

namespace attnscope {

QString seq2seqAttentionProblem(const QCommandLineParser& parser)
{
    const bool hasIds = parser.isSet(QStringLiteral("target-ids"));
    const bool hasTarget = hasIds || parser.isSet(QStringLiteral("target"));
    if (!parser.isSet(QStringLiteral("part")))
        return hasTarget ? QStringLiteral("--%1 needs --part (an encoder-decoder model's part)")
                               .arg(hasIds ? QStringLiteral("target-ids") : QStringLiteral("target"))
                         : QString();
    if (hasIds && parser.isSet(QStringLiteral("target")))
        return QStringLiteral("give one of --target or --target-ids");
    if (parser.isSet(QStringLiteral("target")) && parser.value(QStringLiteral("target")).trimmed().isEmpty())
        return QStringLiteral("--target is empty; give the target sentence (or --target-ids)");
    const QString part = parser.value(QStringLiteral("part"));
    if (part != QLatin1String("encoder") && part != QLatin1String("decoder") &&
        part != QLatin1String("cross"))
        return QStringLiteral("--part must be encoder, decoder or cross, not '%1'").arg(part);
    if (part != QLatin1String("encoder") && !hasTarget)
        return QStringLiteral("--part %1 needs --target TEXT or --target-ids (the decoder's input ids, "
                              "decoder_start first)")
            .arg(part);
    if (parser.value(QStringLiteral("measure")) != QLatin1String("weight"))
        return QStringLiteral("--measure norm is not available with --part (encoder-decoder models)");
    if (parser.isSet(QStringLiteral("backend")) &&
        parser.value(QStringLiteral("backend")) != QLatin1String("cpu") &&
        parser.value(QStringLiteral("backend")) != QLatin1String("auto"))
        return QStringLiteral(
                   "--part runs on the CPU; --backend %1 is not available for encoder-decoder models")
            .arg(parser.value(QStringLiteral("backend")));
    if (hasIds) {
        std::vector<int> ids;
        QString error;
        if (!parseIdList(parser.value(QStringLiteral("target-ids")), &ids, &error))
            return error.replace(QStringLiteral("--ids"), QStringLiteral("--target-ids"));
    }
    return {};
}

void runSeq2SeqAttention(const QCommandLineParser& parser, const QString& folder,
                         const Seq2SeqAttentionRequest& request)
{
    const QString name = QStringLiteral("attention");
    const bool targetText = parser.isSet(QStringLiteral("target"));
    const Seq2SeqModelArgument opened =
        openSeq2SeqModel(folder,
                         parser.isSet(QStringLiteral("text")) ? QStringLiteral("give the source as --ids")
                         : targetText ? QStringLiteral("give the target as --target-ids")
                                      : QString(),
                         name);
    const EncoderDecoderModel& model = *opened.model;
    const EncoderDecoderConfig& c = model.config();
    const bool encoder = request.part == QLatin1String("encoder");
    const int layers = encoder ? c.encoderLayers : c.decoderLayers;
    const int heads = encoder ? c.encoderHeads : c.decoderHeads;
    auto checkRange = [&](const char* option, const std::optional<int>& value, int count) {
        if (value && (*value < 0 || *value >= count))
            throw CommandError(2, QStringLiteral("%1: --%2 %3 is outside 0..%4 (the %5's)")
                                      .arg(name, QLatin1String(option))
                                      .arg(*value)
                                      .arg(count - 1)
                                      .arg(encoder ? QStringLiteral("encoder") : QStringLiteral("decoder")));
    };
    checkRange("layer", request.layer, layers);
    checkRange("head", request.head, heads);

    const Seq2SeqSource source = seq2seqSource(parser, opened);
    std::vector<int> target;
    if (parser.isSet(QStringLiteral("target-ids"))) {
        QString error;
        parseIdList(parser.value(QStringLiteral("target-ids")), &target, &error); // checked before
    } else if (targetText) {
        // As the model's forward makes decoder_input_ids from labels (the target through the tokenizer).
        target = decoderInputFromLabels(
            model, opened.tokenizer->encodeTarget(parser.value(QStringLiteral("target"))).ids,
            Seq2SeqGenerationSettings::fromFolder(folder, model).decoderStartId);
    } else {
        // The encoder part does not depend on the target; the pass still takes one token.
        target = {std::max(0, c.decoderStartId >= 0 ? c.decoderStartId : c.padId)};
    }
    const int l0 = request.layer.value_or(0), l1 = request.layer ? *request.layer + 1 : layers;
    const int h0 = request.head.value_or(0), h1 = request.head ? *request.head + 1 : heads;
    const qint64 queries = qint64(encoder ? source.ids.size() : target.size());
    const qint64 keys = qint64(request.part == QLatin1String("decoder") ? target.size() : source.ids.size());
    // As the single-stack dump bounds itself: at most 15 characters a value as JSON.
    const qint64 values = qint64(l1 - l0) * (h1 - h0) * queries * keys;
    const qint64 estimate =
        request.npy ? 128 + 4 * values : 4096 + 15 * values + 3 * (l1 - l0) * (h1 - h0) * queries;
    if (const QString tooLarge = outputSizeProblem(estimate, request.maxBytes); !tooLarge.isEmpty())
        throw CommandError(1, QStringLiteral("%1: %2 layers x %3 heads x %4 x %5 tokens: %6")
                                  .arg(name)
                                  .arg(l1 - l0)
                                  .arg(h1 - h0)
                                  .arg(queries)
                                  .arg(keys)
                                  .arg(tooLarge));

    const EncoderDecoderAttention attention = model.run(source.ids, target);
    const DenseAttentionMaps& maps = encoder                                    ? attention.encoder
                                     : request.part == QLatin1String("decoder") ? attention.decoder
                                                                                : attention.cross;
    OutputFile out(request.outPath, request.force);
    if (!out.open()) throw CommandError(1, out.error());
    const size_t matrix = size_t(maps.queries()) * size_t(maps.keys());
    if (request.npy) {
        out.write(npyHeader({l1 - l0, h1 - h0, maps.queries(), maps.keys()}));
        for (int l = l0; l < l1; ++l)
            for (int h = h0; h < h1; ++h)
                out.write(reinterpret_cast<const char*>(maps.data(l, h)), qint64(matrix * sizeof(float)));
    } else {
        QByteArray text = "{\"model\":" + jsonText(parser.value(QStringLiteral("model"))) +
                          ",\"path\":" + jsonText(folder) + ",\"architecture\":" + jsonText(c.modelType) +
                          ",\"part\":" + jsonText(request.part) +
                          ",\"source_tokens\":" + jsonTextList(source.tokens) +
                          ",\"source_ids\":" + jsonIdList(source.ids);
        if (!encoder || parser.isSet(QStringLiteral("target-ids")) || targetText)
            text += ",\"target_tokens\":" + jsonTextList(targetTokens(opened, target)) +
                    ",\"target_ids\":" + jsonIdList(target);
        text += ",\"queries\":" + QByteArray(encoder ? "\"source\"" : "\"target\"") + ",\"keys\":" +
                QByteArray(request.part == QLatin1String("decoder") ? "\"target\"" : "\"source\"") +
                ",\"layers\":" + QByteArray::number(l1 - l0) + ",\"heads\":" + QByteArray::number(h1 - h0);
        if (request.layer) text += ",\"layer\":" + QByteArray::number(*request.layer);
        if (request.head) text += ",\"head\":" + QByteArray::number(*request.head);
        text += ",\"causal\":" + QByteArray(request.part == QLatin1String("decoder") ? "true" : "false") +
                ",\"measure\":\"weight\",\"attentions\":[";
        for (int l = l0; l < l1; ++l) {
            text += l > l0 ? ",[" : "[";
            for (int h = h0; h < h1; ++h) {
                text += h > h0 ? ",[" : "[";
                const float* m = maps.data(l, h);
                for (int q = 0; q < maps.queries(); ++q) {
                    text += q ? ",[" : "[";
                    for (int k = 0; k < maps.keys(); ++k)
                        text += (k ? "," : "") + floatText(m[size_t(q) * size_t(maps.keys()) + size_t(k)]);
                    text += ']';
                }
                text += ']';
            }
            text += ']';
            if (!out.write(text)) break;
            text.clear();
        }
        out.write(QByteArrayLiteral("]}\n"));
    }
    if (!out.commit()) throw CommandError(1, out.error());
}

} // namespace attnscope
