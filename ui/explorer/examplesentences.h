#pragma once

#include <QString>
#include <QStringList>
#include <QVector>

namespace attnscope {

class ModelList;

// One entry of the Examples menu. An example that needs a decoder (the long paragraph: attention sinks are
// a decoder's, and its ~200 tokens pass the built-in encoder's 128 positions) opens on one.
struct ExampleText
{
    QString text;
    bool needsDecoder = false;
};

// The Examples menu: Winograd-style pairs in English and Turkish, the worked example, and a paragraph
// long enough for attention sinks to show.
QVector<ExampleText> examples();
QStringList exampleSentences(); // the texts of examples()
QString longExampleParagraph();

// The model list's row an example runs on when `current` is chosen: `current` unless the example needs a
// decoder and `current` is not a real decoder; then the first real decoder (a model folder whose kind is
// "decoder") with the most positions, -1 when the list has none.
int exampleModel(const ModelList& models, int current, const ExampleText& example);

} // namespace attnscope
