#pragma once

#include "i18n/languagemanager.h"

#include <QTest>

// The data rows of a test that must hold in every language the app ships: a QString column "language" with
// the rows "English" ("en") and "Turkish" ("tr"). Call it from a *_data function; QFETCH(QString, language).
void addLanguageRows();

// In a test function over those rows: the row's language set for the rest of the function, by a
// LanguageManager `manager` of the function's own (as the application's main() has one).
#define SET_ROW_LANGUAGE(manager)                                                                            \
    QFETCH(QString, language);                                                                               \
    attnscope::LanguageManager manager;                                                                      \
    QVERIFY(manager.setLanguage(language))
