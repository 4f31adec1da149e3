#include "attentionsourceloader.h"

#include "attention/attention.h"
#include "attention/workedexample.h"

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

} // namespace

std::optional<AttentionExportSource> loadAttentionSource(const QString& model, const QString& text, const QString& textB,
                                                         QString* error)
{
    if (model == QLatin1String("worked-example"))
        return workedExample(false, text, textB, error);
    if (model == QLatin1String("worked-example-causal"))
        return workedExample(true, text, textB, error);
    *error = QStringLiteral("unknown model '%1'; known: worked-example, worked-example-causal").arg(model);
    return std::nullopt;
}

} // namespace attnscope
