#pragma once

// The settings a window test starts from: QStandardPaths' test mode (AppSettings and the caches go to a test
// folder, never the user's) and that folder's settings emptied, so the defaults hold.
void useEmptyTestSettings();
