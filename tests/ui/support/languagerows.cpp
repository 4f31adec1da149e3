#include "ui/support/languagerows.h"

#include <QTest>

void addLanguageRows()
{
    QTest::addColumn<QString>("language");
    QTest::newRow("English") << QStringLiteral("en");
    QTest::newRow("Turkish") << QStringLiteral("tr");
}
