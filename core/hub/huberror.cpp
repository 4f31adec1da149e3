#include "hub/huberror.h"

namespace attnscope::hub {

QString hubErrorMessage(int status, const QByteArray& code, const HubErrorContext& c)
{
    const QString page = c.endpoint.toString() + QLatin1Char('/') + c.repoId;
    if (code == "GatedRepo")
        return c.hasToken
                   ? QStringLiteral(
                         "%1 is gated and the token in use has no access to it: accept its licence "
                         "at %2 with the account the token belongs to")
                         .arg(c.repoId, page)
                   : QStringLiteral("%1 is gated: accept its licence at %2, then set HF_TOKEN to a token of "
                                    "that account (%3/settings/tokens)")
                         .arg(c.repoId, page, c.endpoint.toString());
    if (code == "RevisionNotFound")
        return QStringLiteral("revision '%1' not found in %2 (a branch, tag or commit of %3)")
            .arg(c.revision, c.repoId, page);
    if (code == "EntryNotFound")
        return QStringLiteral("%1 not found in %2 at revision '%3'").arg(c.path, c.repoId, c.revision);
    if (code == "RepoNotFound" || status == 401)
        return c.hasToken
                   ? QStringLiteral("repository %1 not found on %2, or the token in use cannot see it")
                         .arg(c.repoId, c.endpoint.toString())
                   : QStringLiteral("repository %1 not found on %2 (a private repository needs HF_TOKEN)")
                         .arg(c.repoId, c.endpoint.toString());
    if (status == 403)
        return QStringLiteral("%1: access denied (HTTP 403) to %2")
            .arg(c.repoId, c.path.isEmpty() ? page : c.path);
    if (status == 404)
        return QStringLiteral("%1: not found (HTTP 404)").arg(c.path.isEmpty() ? c.repoId : c.path);
    return QStringLiteral("%1: the Hub answered HTTP %2")
        .arg(c.path.isEmpty() ? c.repoId : c.path)
        .arg(status);
}

} // namespace attnscope::hub
