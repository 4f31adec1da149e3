#pragma once

#include <QString>
#include <QStringList>

namespace attnscope {

// The Examples menu: Winograd-style pairs in English and Turkish, the worked example, and a paragraph
// long enough for attention sinks to show.
QStringList exampleSentences();
QString longExampleParagraph();

} // namespace attnscope
