#pragma once

#include <QString>

namespace attnscope {

// The comparison's "Same head, two sentences" starts with a second sentence in the language of Text A, so
// that its tokens line up with A's (an English A beside a Turkish B shares only [CLS], [SEP] and ".").
enum class SentenceLanguage { English, Turkish };

// Turkish when the text has Turkish letters (ç ğ ı İ ö ş ü), or more Turkish cues (function words such as
// "ve", "bir", "bu"; verb endings such as -du, -yor) than English function words ("the", "is", "of");
// else English. Plain text in, no model needed.
SentenceLanguage guessSentenceLanguage(const QString& text);

// The default second sentence for a Text A: the Winograd pair's other half in A's language ("... too small"
// beside the shipped "... too big").
QString defaultSecondSentence(const QString& textA);

} // namespace attnscope
