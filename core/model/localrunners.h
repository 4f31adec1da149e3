#pragma once

// The GGUF files other local runners already keep, listed under the runner's own name so the picker can
// open them in place (issue 34, point 3). What each runner writes, read from its public source:
//
//   Ollama     $OLLAMA_MODELS, else ~/.ollama/models (envconfig/config.go, Models(); ollama/ollama
//              4bf0d41c38c7b669bbbd44bf43c08bc4e231432f). manifests/<host>/<namespace>/<model>/<tag> is a
//              JSON manifest (server/manifest.go, Manifests() globs those four levels and ParseNamedManifest
//              decodes one; 02e25b32fdba069014374b20b676d11aeab1f602); its layer of mediaType
//              "application/vnd.ollama.image.model" holds the GGUF, stored as blobs/sha256-<64 hex> for the
//              digest "sha256:<64 hex>". registry.ollama.ai/library/llama3.2/1b is named "llama3.2:1b"
//              (types/model/name.go: the default host and namespace are left out).
//   LM Studio  ~/.lmstudio/models, and the older ~/.cache/lm-studio/models: <publisher>/<repo>/<file>.gguf
//              (lmstudio.ai/docs/basics/import-model, "LM Studio's expected models directory structure";
//              the app is not open source). mmproj-*.gguf (vision projectors) are not language models.
//   llama.cpp  $LLAMA_CACHE, else $XDG_CACHE_HOME/llama.cpp, else ~/.cache/llama.cpp (common/common.cpp,
//              fs_get_cache_directory; ggml-org/llama.cpp 17fce9be15411587700cda558a626e9f53e54a0b). `-hf`
//              downloads land there flat as <org>_<repo>_<file>.gguf (the repo and file joined by "_",
//              every "/" made "_"), with a <file>.json sidecar whose "url" names the Hub file (and a .etag
//              in older versions); newer versions keep a Hugging Face style models--ORG--NAME cache there,
//              listed as the HF cache is.
//
// Listing is best effort and bounded: a manifest that is not JSON, over 1 MiB, a FIFO, a digest that is not
// sha256:<64 hex> (so never a path outside blobs/), a blob that is missing or not a regular file, are
// skipped with a reason; folders are walked to a fixed depth, so a symbolic-link loop cannot recurse.

#include "model/modelinfo.h"

#include <QString>
#include <QStringList>
#include <QVector>

namespace attnscope {

struct SkippedModelFile
{
    QString path;
    QString reason; // one line: "not JSON", "a FIFO (named pipe), not a regular file", ...
};

struct LocalRunnerScan
{
    QVector<ModelInfo>
        models; // name: "Ollama: llama3.2:1b", "LM Studio: pub/repo/file.gguf", "llama.cpp: ..."
    QVector<SkippedModelFile> skipped;
    LocalRunnerScan& operator+=(const LocalRunnerScan& other);
};

class LocalRunners
{
public:
    static QString ollamaModelsDir();
    static QStringList lmStudioModelsDirs(); // the current folder first, then the older one
    static QString llamaCppCacheDir();

    static LocalRunnerScan scanOllama(const QString& modelsDir = ollamaModelsDir());
    static LocalRunnerScan scanLmStudio(const QString& modelsDir);
    static LocalRunnerScan scanLlamaCpp(const QString& cacheDir = llamaCppCacheDir());
    // All three runners at their default places.
    static LocalRunnerScan scanAll();
};

} // namespace attnscope
