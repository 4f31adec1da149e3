#pragma once

// Examples ▸ <example> (issue 36, point 3): every example runs on the model it opens with. One that needs a
// decoder moves the window to one (explorer/examplesentences.h exampleModel) and opens on its strongest
// sink head, which is what the example is for.

#include "explorer/examplesentences.h"

namespace attnscope {

class MainWindow;

// Returns false (the window says why on its banner) when the model it needs cannot be selected.
bool openExample(MainWindow& window, const ExampleText& example);

} // namespace attnscope
