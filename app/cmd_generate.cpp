// attnscope generate: a decoder continues a text token by token (greedy or sampled, with a KV cache); per
// step the chosen token, its probability, the top 5 and, with --attention, the query's attention row of every
// head.

#include "analysiscommandline.h"
#include "command.h"
#include "generation/generation.h"
#include "model/transformermodel.h"
#include "modelcommand.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

namespace {

// [layers][heads][keys] of one step.
QJsonArray attentionJson(const GenerationStep& step, int layers, int heads)
{
    QJsonArray perLayer;
    for (int l = 0; l < layers; ++l) {
        QJsonArray perHead;
        for (int h = 0; h < heads; ++h) {
            const float* row = step.attentionRow(l, h, heads);
            QJsonArray values;
            for (int j = 0; j < step.keys(); ++j)
                values.append(double(row[j]));
            perHead.append(values);
        }
        perLayer.append(perHead);
    }
    return perLayer;
}

bool readNumber(const QCommandLineParser& parser, const char* name, double low, double high, double* value,
                QString* error)
{
    if (!parser.isSet(QLatin1String(name))) return true;
    bool ok = false;
    *value = parser.value(QLatin1String(name)).toDouble(&ok);
    if (!ok || !(*value >= low && *value <= high)) {
        *error =
            QStringLiteral("--%1 must be a number from %2 to %3").arg(QLatin1String(name)).arg(low).arg(high);
        return false;
    }
    return true;
}

int runGenerate(const QStringList& arguments)
{
    ModelCommand command(
        QStringLiteral("generate"),
        QStringLiteral(
            "Continues a text with a decoder, one token at a time with a KV cache: greedy (--temperature 0) "
            "or "
            "sampled (temperature, top-k, top-p, seed; the same seed gives the same text). Per step: the "
            "chosen "
            "token, its probability and the top 5; with --attention the attention row of the query that "
            "chose "
            "it (every layer and head). The prompt's special tokens (<s>) are added as the tokenizer says."));
    command.options = {
        {QStringLiteral("max-new-tokens"), QStringLiteral("Tokens to generate (default 20)."),
         QStringLiteral("n"), QStringLiteral("20")},
        {QStringLiteral("temperature"), QStringLiteral("Softmax temperature; 0 = greedy (default 1)."),
         QStringLiteral("t")},
        {QStringLiteral("top-k"), QStringLiteral("Sample among the k most probable tokens (0 = all)."),
         QStringLiteral("k")},
        {QStringLiteral("top-p"),
         QStringLiteral("Sample among the fewest tokens whose mass reaches p (1 = all)."),
         QStringLiteral("p")},
        {QStringLiteral("seed"), QStringLiteral("Random seed (default 0)."), QStringLiteral("n")},
        {QStringLiteral("ignore-eos"), QStringLiteral("Go on past the end-of-text token.")},
        {QStringLiteral("attention"), QStringLiteral("JSON: add each step's attention rows.")},
        jsonOption(),
    };
    command.inputRule = QStringLiteral("give --model and exactly one of --text, --text-file or --ids");
    command.namesModelErrors = true;
    GenerationOptions options;
    bool json = false;
    command.checkArguments = [&](const QCommandLineParser& parser) {
        QString error;
        bool ok = false;
        options.maxNewTokens = parser.value(QStringLiteral("max-new-tokens")).toInt(&ok);
        if (!ok || options.maxNewTokens < 1 || options.maxNewTokens > 100000)
            return QStringLiteral("--max-new-tokens must be an integer from 1 to 100000");
        double topK = 0, seed = 0;
        if (!readNumber(parser, "temperature", 0.0, 100.0, &options.sampling.temperature, &error) ||
            !readNumber(parser, "top-p", 0.0, 1.0, &options.sampling.topP, &error) ||
            !readNumber(parser, "top-k", 0.0, 1e9, &topK, &error) ||
            !readNumber(parser, "seed", 0.0, 9007199254740992.0, &seed, &error) || topK != std::floor(topK) ||
            seed != std::floor(seed))
            return error.isEmpty() ? QStringLiteral("--top-k and --seed must be whole numbers") : error;
        if (parser.isSet(QStringLiteral("top-p")) && options.sampling.topP <= 0.0)
            return QStringLiteral("--top-p must be above 0");
        options.sampling.topK = int(topK);
        options.sampling.seed = std::uint64_t(seed);
        json = parser.isSet(QStringLiteral("json"));
        options.keepAttention = json && parser.isSet(QStringLiteral("attention"));
        return QString();
    };
    command.run = [&](ModelCommandRun& run) {
        TransformerModel* const model = &run.model();
        const ModelInput& input = run.input();
        const Tokenizer* tokenizer = model->tokenizer();
        if (tokenizer && !run.isSet("ignore-eos"))
            if (const std::optional<int> eos = tokenizer->eosId()) options.stopIds.push_back(*eos);
        GenerationStop stop = GenerationStop::Running;
        const std::vector<GenerationStep> steps = generate(*model, input.ids, options, {}, &stop);

        std::vector<int> ids = input.ids, generated;
        for (const GenerationStep& s : steps)
            generated.push_back(s.id);
        ids.insert(ids.end(), generated.begin(), generated.end());
        // The generated text as the whole sequence decodes it (a decoder may drop a leading space on its
        // own).
        QString text, whole;
        if (tokenizer) {
            whole = tokenizer->decode(ids, true);
            const QString prompt = tokenizer->decode(input.ids, true);
            text = whole.startsWith(prompt) ? whole.mid(prompt.size()) : tokenizer->decode(generated, true);
        }
        if (!json) {
            if (tokenizer) printOut(whole + QLatin1Char('\n'));
            for (size_t i = 0; i < steps.size(); ++i) {
                const GenerationStep& s = steps[i];
                QStringList top;
                for (const PredictedToken& t : s.top.top)
                    top << QStringLiteral("%1 %2").arg(t.text).arg(double(t.probability), 0, 'f', 3);
                printOut(QStringLiteral("%1  %2  p=%3  top: %4\n")
                             .arg(int(i), 3)
                             .arg(model->tokenText(s.id).leftJustified(14))
                             .arg(double(s.probability), 0, 'f', 4)
                             .arg(top.join(QStringLiteral(", "))));
            }
            printOut(QStringLiteral("stopped: %1\n").arg(QLatin1String(generationStopName(stop))));
            return;
        }
        QJsonArray idsJson, generatedJson, tokens, probabilities, tops, attention;
        for (int id : ids) {
            idsJson.append(id);
            tokens.append(model->tokenText(id));
        }
        for (const GenerationStep& s : steps) {
            generatedJson.append(s.id);
            probabilities.append(double(s.probability));
            tops.append(topJson(s.top));
            if (options.keepAttention)
                attention.append(attentionJson(s, model->config().layers, model->config().heads));
        }
        QJsonObject root{
            {QStringLiteral("model"), model->info().name},
            {QStringLiteral("prompt_tokens"), int(input.ids.size())},
            {QStringLiteral("ids"), idsJson},
            {QStringLiteral("generated"), generatedJson},
            {QStringLiteral("tokens"), tokens},
            {QStringLiteral("text"), text},
            {QStringLiteral("probabilities"), probabilities},
            {QStringLiteral("top"), tops},
            {QStringLiteral("stop"), QLatin1String(generationStopName(stop))},
            {QStringLiteral("sampling"),
             QJsonObject{{QStringLiteral("temperature"), options.sampling.temperature},
                         {QStringLiteral("top_k"), options.sampling.topK},
                         {QStringLiteral("top_p"), options.sampling.topP},
                         {QStringLiteral("seed"), double(options.sampling.seed)},
                         {QStringLiteral("greedy"), options.sampling.greedy()}}},
        };
        if (options.keepAttention) {
            // attention[step][layer][head][key]: the row of the query that chose the step's token
            // (sequence index prompt_tokens − 1 + step) over every token up to it.
            root.insert(QStringLiteral("layers"), model->config().layers);
            root.insert(QStringLiteral("heads"), model->config().heads);
            root.insert(QStringLiteral("attention"), attention);
        }
        printOut(QString::fromUtf8(QJsonDocument(root).toJson(
            options.keepAttention ? QJsonDocument::Compact : QJsonDocument::Indented)));
    };
    return runModelCommand(command, arguments);
}

const CommandRegistration registration(Command{QStringLiteral("generate"),
                                               QStringLiteral("Continue a text with a decoder, step by step"),
                                               false, &runGenerate});

} // namespace

} // namespace attnscope
