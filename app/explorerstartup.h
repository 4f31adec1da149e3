#pragma once

#include "settings/guioptions.h"

class QApplication;

namespace attnscope {

// `attnscope [options]`: the explorer window, brought to what was asked. In order: the language (--lang,
// else the saved choice, else the system's); the last session (model, texts, tab, head); the command
// line's --model/--text/--text-b/--view/--head over it; --size; presenter mode; the lesson. From then on
// a SessionKeeper remembers the session. A --model that cannot be opened, --text with the worked
// example (its text is fixed), or a --screenshot path the output policy refuses (no such folder, a folder,
// a device, a FIFO) is one line on stderr and exit code 2, before any window shows.
// With --screenshot the window (or the lesson) is written as PNG once the input is shown, one line names
// it on stdout, and the application quits (exit code 1 when the run failed or the file cannot be written);
// a last session's model (not --model) that cannot be opened is on the picture's banner, as at a person's
// start.
int runExplorer(QApplication& app, const GuiOptions& options);

} // namespace attnscope
