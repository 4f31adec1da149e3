#pragma once

// One line for an error answer of the Hub, by its X-Error-Code header as huggingface_hub's
// hf_raise_for_status reads it (utils/_errors.py): GatedRepo, RepoNotFound (also any 401 without a code:
// the Hub answers 401 for private and missing repos alike), RevisionNotFound, EntryNotFound.

#include <QByteArray>
#include <QString>
#include <QUrl>

namespace attnscope::hub {

struct HubErrorContext
{
    QUrl endpoint;
    QString repoId;
    QString revision;
    QString path; // the file asked for, "" for the listing
    bool hasToken = false;
};

QString hubErrorMessage(int httpStatus, const QByteArray& errorCode, const HubErrorContext& context);

} // namespace attnscope::hub
