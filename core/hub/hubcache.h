#pragma once

// The official client's cache layout for one model repo (huggingface_hub file_download.py, v0.19.4):
//   <cache>/models--org--name/blobs/<etag>                  the file's bytes (etag: LFS sha256 or git sha1)
//   <cache>/models--org--name/blobs/<etag>.incomplete       during a transfer, appended to on resume
//   <cache>/models--org--name/snapshots/<commit>/<path>     relative symlink to ../../blobs/<etag>
//   <cache>/models--org--name/refs/<revision>               the commit hash a branch or tag points to
//   <cache>/.locks/models--org--name/<etag>.lock            held while the blob is written
// Python tools and AttnScope share downloads both ways through it.

#include <QString>
#include <QStringList>

namespace attnscope::hub {

class HubRepoCache
{
public:
    HubRepoCache(const QString& cacheDir, const QString& repoId);

    QString cacheDir() const { return m_cacheDir; }
    QString repoDir() const { return m_repoDir; }
    QString blobPath(const QString& blob) const;
    QString incompletePath(const QString& blob) const;
    QString lockPath(const QString& blob) const;
    QString snapshotDir(const QString& commit) const;
    QString pointerPath(const QString& commit, const QString& path) const;

    // The commit refs/<revision> names, or "" (a commit hash is its own answer).
    QString commitOf(const QString& revision) const;
    bool writeRef(const QString& revision, const QString& commit, QString* error) const;
    // snapshots/<commit>/<path> -> the blob, relative, replacing what was there; false with *error.
    bool linkIntoSnapshot(const QString& blob, const QString& commit, const QString& path,
                          QString* error) const;

    // For HF_HUB_OFFLINE: the snapshot folder of `revision` when it holds what a run needs (config.json, and
    // every shard model.safetensors.index.json names, or some *.safetensors; with include globs a matching
    // file), every link resolving; else "" with *why.
    QString completeSnapshot(const QString& revision, const QStringList& includeGlobs, QString* why) const;

private:
    QString m_cacheDir;
    QString m_repoDir;
    QString m_repoFolder;
};

// An exclusive lock on a blob's lock file, as the official client takes it (the filelock package's
// UnixFileLock: open, then flock(LOCK_EX | LOCK_NB); the file stays). flock and not QLockFile: QLockFile
// treats the empty lock file filelock leaves behind as held for 30 s before calling it stale, while filelock
// itself would not see QLockFile's lock on Windows; flock makes the two clients exclude each other exactly.
class BlobLock
{
public:
    explicit BlobLock(QString path) : m_path(std::move(path)) {}
    ~BlobLock() { unlock(); }
    BlobLock(const BlobLock&) = delete;
    BlobLock& operator=(const BlobLock&) = delete;

    enum class Result { Locked, Busy, Failed };
    Result tryLock(QString* error);
    void unlock();

private:
    QString m_path;
    int m_fd = -1;
};

} // namespace attnscope::hub
