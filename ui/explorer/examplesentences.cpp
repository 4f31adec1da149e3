#include "explorer/examplesentences.h"

#include "explorer/modellist.h"

namespace attnscope {

QString longExampleParagraph()
{
    return QStringLiteral(
        "Attention sinks appear when a model has read enough text. In a long passage, many heads send most "
        "of "
        "their attention to the very first token, whatever it says, because softmax must put its mass "
        "somewhere "
        "and the first position is always visible. The trophy in the old school hall had been polished for "
        "the "
        "ceremony, but nobody could find the suitcase it was meant to travel in. The teachers searched the "
        "classrooms, the library and the gymnasium, and the students helped them look under every bench. "
        "When "
        "the suitcase was finally found behind the stage curtains, it was clear that the trophy would not "
        "fit, "
        "because it was far too big, and so the headmaster carried it in his arms all the way to the "
        "station, "
        "where the train to the city was already waiting on the platform.");
}

QVector<ExampleText> examples()
{
    return {
        {QStringLiteral("The trophy didn't fit into the suitcase because it was too big.")},
        {QStringLiteral("The trophy didn't fit into the suitcase because it was too small.")},
        {QStringLiteral("Kupa bavula sığmadı çünkü çok büyüktü.")},
        {QStringLiteral("Kupa bavula sığmadı çünkü çok küçüktü.")},
        {QStringLiteral("kedi mindere oturdu")},
        {QStringLiteral("The animal didn't cross the street because it was too tired.")},
        {longExampleParagraph(), true},
    };
}

QStringList exampleSentences()
{
    QStringList texts;
    for (const ExampleText& example : examples())
        texts << example.text;
    return texts;
}

int exampleModel(const ModelList& models, int current, const ExampleText& example)
{
    const auto isDecoder = [&models](int row) {
        return models.contains(row) && !models.at(row).folder.isEmpty() &&
               models.at(row).info.kind == QLatin1String("decoder");
    };
    if (!example.needsDecoder || isDecoder(current)) return current;
    int best = -1;
    for (int row = 0; row < models.count(); ++row)
        if (isDecoder(row) &&
            (best < 0 || models.at(row).info.maxPositions > models.at(best).info.maxPositions))
            best = row;
    return best;
}

} // namespace attnscope
