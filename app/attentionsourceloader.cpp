#include "attentionsourceloader.h"

#include "attention/attention.h"
#include "attention/workedexample.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QFileInfo>
#include <QStringList>

namespace attnscope {

namespace {

std::optional<AttentionExportSource> workedExample(bool causal, const QString& text, const QString& textB, QString* error)
{
    const WorkedExample example;
    QStringList tokens;
    for (const std::string& token : example.tokens)
        tokens << QString::fromStdString(token);
    const QString expected = tokens.join(QLatin1Char(' '));
    if (text.simplified() != expected) {
        *error = QStringLiteral("the worked example has fixed vectors for the text '%1' only; got '%2'").arg(expected, text);
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
    source.maps = std::make_shared<DenseAttentionMaps>(1, result.heads, result.queries, result.keys, std::move(result.probabilities));
    source.tokens = tokens;
    source.special.assign(size_t(tokens.size()), false);
    source.causal = causal;
    source.model = causal ? QStringLiteral("worked-example-causal") : QStringLiteral("worked-example");
    source.text = text;
    return source;
}

// A model folder, built-in name or cache id: tokenize (special tokens added), run, keep every head.
std::optional<AttentionExportSource> transformer(const QString& name, const QString& text, const QString& textB, QString* error)
{
    try {
        const std::unique_ptr<TransformerModel> model = TransformerModel::open(ModelCatalog::resolve(name));
        // The model's own tokenizer when it loaded one, else the folder's (tokenizer.json, vocab files).
        std::unique_ptr<Tokenizer> ownTokenizer;
        const Tokenizer* tokenizer = model->tokenizer();
        if (!tokenizer) {
            ownTokenizer = Tokenizer::fromFolder(model->folder());
            tokenizer = ownTokenizer.get();
        }
        if (!tokenizer) {
            *error = QStringLiteral("%1: the model folder has no tokenizer (tokenizer.json, vocab.txt or vocab.json)").arg(model->folder());
            return std::nullopt;
        }
        const Encoding encoding = tokenizer->encode(text, textB.isEmpty() ? std::nullopt : std::optional<QString>(textB));
        if (encoding.size() == 0) {
            *error = QStringLiteral("the text gives no tokens");
            return std::nullopt;
        }
        AttentionCapture capture = model->run(encoding.ids, encoding.typeIds);
        AttentionExportSource source;
        source.maps = capture.maps;
        source.causal = capture.causal;
        // Labels: the exact substring of the user's text each token covers; the vocabulary entry for
        // tokens the template added ([CLS], [SEP], BOS).
        for (int i = 0; i < encoding.size(); ++i) {
            const auto [begin, end] = encoding.offsets[size_t(i)];
            const int sequence = encoding.sequenceIds.empty() ? 0 : encoding.sequenceIds[size_t(i)];
            const QString& own = sequence == 1 ? textB : text;
            source.tokens << (sequence >= 0 && end > begin ? substringByCodePoints(own, begin, end) : encoding.tokens.at(i));
            source.special.push_back(encoding.special.empty() ? false : bool(encoding.special[size_t(i)]));
        }
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

std::optional<AttentionExportSource> loadAttentionSource(const QString& model, const QString& text, const QString& textB,
                                                         QString* error)
{
    if (model == QLatin1String("worked-example"))
        return workedExample(false, text, textB, error);
    if (model == QLatin1String("worked-example-causal"))
        return workedExample(true, text, textB, error);
    return transformer(model, text, textB, error);
}

} // namespace attnscope
