#include "attentionsourceloader.h"

#include "analysis/modeltext.h"
#include "attention/attention.h"
#include "attention/workedexample.h"
#include "explorer/tokenlabels.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "modelcommandline.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace attnscope {

namespace {

std::optional<AttentionExportSource> workedExample(bool causal, const QString& text, const QString& textB,
                                                   QString* error)
{
    const WorkedExample example;
    QStringList tokens;
    for (const std::string& token : example.tokens)
        tokens << QString::fromStdString(token);
    const QString expected = tokens.join(QLatin1Char(' '));
    if (text.simplified() != expected) {
        *error = QStringLiteral("the worked example has fixed vectors for the text '%1' only; got '%2'")
                     .arg(expected, text);
        return std::nullopt;
    }
    if (!textB.isEmpty()) {
        *error = QStringLiteral("the worked example takes no second sentence (--text-b)");
        return std::nullopt;
    }
    AttentionOptions options;
    options.causal = causal;
    FullAttentionResult result = attentionFull(example.q(), example.k(), example.v(), options);
    AttentionExportSource source;
    source.maps = std::make_shared<DenseAttentionMaps>(1, result.heads, result.queries, result.keys,
                                                       std::move(result.probabilities));
    source.tokens = tokens;
    source.special.assign(size_t(tokens.size()), false);
    source.causal = causal;
    source.model = causal ? QStringLiteral("worked-example-causal") : QStringLiteral("worked-example");
    source.text = text;
    return source;
}

// A model folder, built-in name or cache id: tokenize (special tokens added), run, keep every head.
std::optional<AttentionExportSource> transformer(const QString& name, const QString& text,
                                                 const QString& textB, QString* error)
{
    try {
        const std::unique_ptr<TransformerModel> model = openModelArgument(name);
        const ModelText input =
            encodeForModel(*model, text, textB.isEmpty() ? std::nullopt : std::optional<QString>(textB));
        AttentionCapture capture = model->run(input.ids, input.typeIds);
        AttentionExportSource source;
        source.maps = capture.maps;
        source.causal = capture.causal;
        // Labels as the window's heatmap writes them: the text each token covers with its subword marker
        // kept ("tr" "##oph", "▁ke" "di"), the vocabulary entry for tokens the template added ([CLS], [SEP]).
        source.tokens = tokenLabels(input);
        source.special = input.roles.special;
        source.roles = input.roles;
        // Titles name the model, not the path to it: a folder's own name.
        const QString modelName = model->info().name.isEmpty() ? name : model->info().name;
        source.model = QFileInfo(modelName).isDir() || QFileInfo(modelName).isFile()
                           ? QFileInfo(QDir::cleanPath(modelName)).fileName()
                           : modelName;
        source.text = text;
        source.textB = textB;
        return source;
    } catch (const ModelError& e) {
        *error = e.message();
    } catch (const TokenizerError& e) {
        *error = QString::fromStdString(e.what());
    } catch (const std::exception& e) {
        *error = QStringLiteral("%1: %2").arg(name, QString::fromStdString(e.what()));
    }
    return std::nullopt;
}

} // namespace

std::optional<AttentionExportSource> loadAttentionSource(const QString& model, const QString& text,
                                                         const QString& textB, QString* error)
{
    if (model == QLatin1String("worked-example")) return workedExample(false, text, textB, error);
    if (model == QLatin1String("worked-example-causal")) return workedExample(true, text, textB, error);
    return transformer(model, text, textB, error);
}

} // namespace attnscope
