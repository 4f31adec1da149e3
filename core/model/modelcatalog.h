#pragma once

// Where models come from: the built-in models shipped in resources/models/, folders the user opened
// recently, and the local Hugging Face cache. Also resolves what a user types after --model.

#include "model/modelerror.h"
#include "model/modelinfo.h"

#include <QString>
#include <QStringList>
#include <QVector>
#include <optional>

namespace attnscope {

class ModelCatalog
{
public:
    // The resources folder: $ATTNSCOPE_RESOURCES_DIR, else <exe>/../share/attnscope, else the source tree's
    // resources/ (compile-time ATTNSCOPE_SOURCE_RESOURCES_DIR). The first that exists; "" when none does.
    static QString resourcesDir();
    // The Hugging Face hub cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
    // ${XDG_CACHE_HOME:-~/.cache}/huggingface/hub (hub/hubsettings.h, as huggingface_hub resolves it).
    static QString huggingFaceHubDir();

    // Folders under <resources>/models/ with a config.json; description from their attnscope.json.
    static QVector<ModelInfo> builtinModels();
    // Every models--ORG--NAME/snapshots/REV/ with a config.json (the revision refs/main names, else the
    // newest snapshot), named "ORG/NAME" (or "NAME" without an organisation); and every .gguf file of such
    // a snapshot, named "ORG/NAME/FILE.gguf".
    static QVector<ModelInfo> cachedModels(const QString& hubDir = huggingFaceHubDir());
    // The GGUF files of Ollama, LM Studio and llama.cpp's cache (model/localrunners.h), named
    // "Ollama: llama3.2:1b", "LM Studio: pub/repo/file.gguf", "llama.cpp: org/repo/file.gguf".
    static QVector<ModelInfo> localRunnerModels();
    // Built-ins first, then the cache, then the local runners' files.
    static QVector<ModelInfo> allModels();

    // Name, architecture, size, layers and heads of a model folder from config.json and the file sizes,
    // without mapping the weights. nullopt when the folder has no readable config.json. Folders whose
    // architecture the runtime does not support are described too (architecture = their model_type).
    // `folder` may also be a llama.cpp .gguf file (described from its metadata; unsupported architectures
    // keep their general.architecture).
    static std::optional<ModelInfo> describe(const QString& folder);
    // Why describe(folder) gives nullopt, as one line naming the file: "<folder>: not a model folder (no
    // config.json)", "<config.json>: not valid JSON (line 3, column 7: ...)", "<config.json>: not a regular
    // file but a FIFO ...".
    static QString describeProblem(const QString& folder);
    // The same, as data, for a window that words it in its language (model/modelerror.h).
    static ModelProblem diagnose(const QString& folder);
    // What config.json alone says against opening a described model folder: an architecture the runtime
    // lacks, an encoder-decoder, a value it cannot run. Known before any weight is mapped, so a start can
    // refuse at once a model that would otherwise fail only after a background load. nullopt when
    // config.json does not stand in the way, and for a .gguf file (opening it says).
    static std::optional<ModelProblem> configProblem(const QString& folder);
    static std::optional<ModelInfo> describeGguf(const QString& path);

    // Folders the user added to the model list (QSettings "models/folders"), in the order added; those that
    // no longer exist are dropped.
    static QStringList modelFolders();
    static void addModelFolder(const QString& folder);
    // The models inside such a folder: every .gguf file (up to three folders deep) and every folder (itself
    // or a direct subfolder) with a config.json, sorted by path; named by their path relative to `folder`.
    static QVector<ModelInfo> modelsInFolder(const QString& folder);

    // Recently opened model folders and .gguf files (QSettings "models/recent"), newest first, at most 10;
    // those that no longer exist are dropped.
    static QStringList recent();
    static void addRecent(const QString& folder);

    // What --model accepts: an existing folder or .gguf file; a built-in model's name; a cache id such as
    // "bert-base-uncased", "TinyLlama/TinyLlama-1.1B-Chat-v1.0" or "ORG/NAME-GGUF/FILE.gguf". Returns the
    // folder (or file); throws ModelError naming what was tried.
    static QString resolve(const QString& nameOrPath);
};

} // namespace attnscope
