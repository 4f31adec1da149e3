#pragma once

// --text-file F and --text-b-file F for every command that takes --text / --text-b: main() replaces them by
// --text / --text-b with the file's contents before the command parses its options, so each command gets
// long texts and texts with any character (NUL included, which no argv can carry) without knowing. F = "-"
// reads standard input. The bytes must be UTF-8; they are taken as they are (a final newline included).

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace attnscope {

// Offset of the first byte of the first sequence that is not well-formed UTF-8 (RFC 3629: no overlong forms,
// no surrogates, nothing above U+10FFFF, no truncated sequence); -1 when all of `bytes` is.
qsizetype firstInvalidUtf8(const QByteArray& bytes);

// Rewrites `arguments` in place (arguments[0] is the command); false with *error ("F: invalid UTF-8 at byte
// 17 (0xff)", "F: cannot read: ...") when a file cannot be used, or when both --text and --text-file are
// given.
bool expandTextFileArguments(QStringList& arguments, QString* error);

} // namespace attnscope
