#include "ui/support/shownwindow.h"

#include "explorer/analysisrunner.h"
#include "mainwindow.h"

#include <QTest>
#include <QWidget>

bool showExposed(QWidget& window, std::optional<QSize> size)
{
    if (size) window.resize(*size);
    window.show();
    return QTest::qWaitForWindowExposed(&window);
}

bool showSettled(attnscope::MainWindow& window, std::optional<QSize> size)
{
    return showExposed(window, size) && window.runner()->waitForIdle(60000);
}

bool showWithModel(attnscope::MainWindow& window, const QString& model)
{
    return showExposed(window, QSize(1280, 800)) && window.selectEngine(window.findModel(model));
}

bool waitForShownResult(attnscope::MainWindow& window, const QString& textA)
{
    return QTest::qWaitFor(
        [&] {
            const auto result = window.currentResult();
            return window.runner()->waitForIdle(50) && result && result->job == window.runner()->currentJob() &&
                   (textA.isEmpty() || result->textA == textA);
        },
        60000);
}
