#include "ui/support/testsettings.h"

#include "settings/appsettings.h"

#include <QStandardPaths>

void useEmptyTestSettings()
{
    QStandardPaths::setTestModeEnabled(true);
    attnscope::AppSettings().settings().clear();
}
