#pragma once

// Names that come from the user (repo id, revision) or from the Hub (file paths in a listing, ETags), checked
// before any of them becomes part of a URL or a path in the cache. The rules are those of huggingface_hub
// (utils/_validators.py: validate_repo_id; file_download.py: _get_pointer_path, _normalize_etag), so that a
// name the official client takes is taken here and nothing can write outside the repo's cache folder.

#include <QByteArray>
#include <QString>

namespace attnscope::hub {

// "" when `repoId` is "name" or "namespace/name" of [A-Za-z0-9_.-], 1..96 characters each part, not starting
// or ending with '.' or '-', without "--" or "..", not ending in ".git"; else the reason.
QString repoIdProblem(const QString& repoId);
// "" for a branch, tag or commit: printable ASCII without spaces, no "..", no empty path segment, not
// starting with '/'; else the reason. (The Hub quotes it in URLs; refs/<revision> is a path in the cache.)
QString revisionProblem(const QString& revision);
// "" for a relative path in the repo: segments separated by '/', none empty, ".", or ".."; no backslash, no
// control character, not absolute; else the reason.
QString repoPathProblem(const QString& path);

// "models--org--name", the repo's folder in the cache.
QString repoFolderName(const QString& repoId);
// 40 lowercase hex digits.
bool isCommitHash(const QString& revision);
// An ETag as the cache names blobs: without W/ and quotes. Empty when it is not a safe file name (only
// [A-Za-z0-9_-], 1..128 characters: a git sha1 or an LFS sha256).
QString blobNameFromEtag(const QByteArray& etag);

} // namespace attnscope::hub
