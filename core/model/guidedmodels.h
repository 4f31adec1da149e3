#pragma once

// "Models that show it": the guided list shipped as resources/guided/guided-models.json (a Qt resource,
// :/guided/guided-models.json), read and validated here. Each entry names a Hub repository (and, for a GGUF
// repository, the one file to fetch), what the model shows and where in English and Turkish, the source of
// that claim, the bytes a download fetches (config, tokenizer, weights: only what a run needs), the memory
// a 512-token pass needs (estimateMemory over the config shapes stored with the entry) and the licence.
//
// The file's shape:
//   {"format": "attnscope-guided-models", "version": 1, "models": [
//     {"id", "repo", "file", "shows": {"en", "tr"}, "source", "licence", "gated",
//      "download": {"files": {name: bytes}, "estimated", "basis"},
//      "shape": {"architecture", "kind", "layers", "heads", "kvHeads", "hidden", "headDim", "intermediate",
//                "vocabSize", "maxPositions", "weightBytes", "largestTensorElements", "storedAsF32"},
//      "memoryBytes"}, ...]}

#include "model/modelinfo.h"

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QVector>

namespace attnscope {

struct GuidedModel
{
    QString id;           // stable name of the entry ("streaming-llm-decoder")
    QString repo;         // Hub repository id, "ORG/NAME" or a legacy "NAME"
    QString file;         // GGUF repositories: the one file to fetch; else ""
    QString showsEnglish; // what it shows and where
    QString showsTurkish;
    QString source;              // where the claim comes from ("measured by ..., paper, table ...")
    QString licence;             // the Hub's licence id ("apache-2.0", "mit", "llama3.2")
    bool gated = false;          // the Hub asks to accept the licence first
    QMap<QString, qint64> files; // what a download fetches, name -> bytes
    bool sizeEstimated = false;  // some of those bytes derived from the config, not a listing
    QString sizeBasis;
    ModelInfo shape;        // the config's shapes and the weights' bytes, as describe() would fill them
    qint64 memoryBytes = 0; // estimateMemory(shape).total(), as the file states it

    qint64 downloadBytes() const;
    QString shows(const QString& language) const; // "tr" -> Turkish, anything else -> English
    // The command that fetches it: "attnscope download REPO [--include FILE]".
    QString downloadCommand() const;
};

class GuidedModelCatalog
{
public:
    // The shipped list (:/guided/guided-models.json). Throws ModelError if it is damaged (a build error).
    static QVector<GuidedModel> shipped();
    // Throws ModelError "<file>: <problem>" naming the entry and field at fault.
    static QVector<GuidedModel> parse(const QByteArray& json, const QString& fileName);
    static QVector<GuidedModel> load(const QString& path);
    // The entry a "this model has no sinks" verdict points to: the one with id "streaming-llm-decoder".
    static QString streamingDecoderId();
    // The entries the other small-model lines point to (analysis/modellimits.h): an encoder with [SEP] no-op
    // heads whose norm measure differs from its weights ("bert-sep-no-op"), and a decoder with first-token
    // sinks and sensible next-token guesses ("gpt2-first-token-sink").
    static QString sepHeadEncoderId();
    static QString sinkDecoderId();
};

} // namespace attnscope
