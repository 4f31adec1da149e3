#pragma once

// The data rows of a test that must hold in every language the app ships: a QString column "language" with
// the rows "English" ("en") and "Turkish" ("tr"). Call it from a *_data function; QFETCH(QString, language).
void addLanguageRows();
