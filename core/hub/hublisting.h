#pragma once

// The answer of GET /api/models/{id}/revision/{rev}?blobs=true, and which of its files a run needs.
// The listing is hostile input (fuzz/ has a harness for parseListing): any file name that is not a plain
// relative path refuses the whole listing, so nothing derived from it can point outside the cache.
//
// Shape of the JSON (huggingface_hub hf_api.py ModelInfo / RepoSibling):
//   {"id": "gpt2", "sha": "<commit>", "siblings": [
//       {"rfilename": "config.json", "size": 665, "blobId": "<git sha1>"},
//       {"rfilename": "model.safetensors", "size": 548105171, "blobId": "...",
//        "lfs": {"sha256": "<64 hex>", "size": 548105171, "pointerSize": 135}}, ...]}

#include <QByteArray>
#include <QString>
#include <QStringList>
#include <optional>
#include <vector>

namespace attnscope::hub {

struct HubFile
{
    QString path;      // relative, checked (hubnames.h repoPathProblem)
    qint64 size = -1;  // bytes, -1 when the listing did not say
    QString lfsSha256; // lowercase hex, "" for a file stored in git itself
    bool isLfs() const { return !lfsSha256.isEmpty(); }
};

struct HubListing
{
    QString commit; // "sha": the commit the revision points to (40 hex)
    std::vector<HubFile> files;
};

// nullopt with *error ("listing: <problem>") for anything but the shape above.
std::optional<HubListing> parseListing(const QByteArray& json, QString* error);

// What to fetch, config.json first when the repo has one.
struct HubSelection
{
    std::vector<HubFile> files;
    std::vector<HubFile> ggufChoices; // a repo of .gguf files without --include: the files to pick from
    QString problem;                  // non-empty: nothing to fetch, and why (one line)
};

// Without include globs: config.json, the tokenizer files and the top-level *.safetensors with their index;
// never pytorch_model.bin, onnx/, tf_model.h5, flax_model.msgpack. A repo of .gguf files needs a glob naming
// one (problem set, ggufChoices filled). With globs: config.json and the tokenizer files plus every file a
// glob matches ('*' and '?' match across '/', as fnmatch does).
HubSelection selectFiles(const HubListing& listing, const QStringList& includeGlobs);

bool matchesGlob(const QString& path, const QString& glob);

} // namespace attnscope::hub
