#pragma once

// How the window tests put a window on the screen (Xvfb or offscreen) before they look at it.

#include <QSize>
#include <QString>
#include <optional>

class QWidget;

namespace attnscope {
class MainWindow;
}

// Shows a top-level window, resized first where a size is given, and waits until the screen exposes it;
// false where it never is.
bool showExposed(QWidget& window, std::optional<QSize> size = std::nullopt);

// The explorer shown so (showExposed) and settled: the run on the example it opens with has finished.
bool showSettled(attnscope::MainWindow& window, std::optional<QSize> size = std::nullopt);

// The explorer shown at 1280 × 800 (showExposed) with `model`, a name of its model list, selected; false
// where the list has no such model.
bool showWithModel(attnscope::MainWindow& window, const QString& model);

// Waits (up to a minute) until the explorer is idle and shows the result of its newest job, and, where
// `textA` is given, that result is of that text; false where it never does.
bool waitForShownResult(attnscope::MainWindow& window, const QString& textA = {});
