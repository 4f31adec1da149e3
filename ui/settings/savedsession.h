#pragma once

#include "model/modelerror.h"

#include <QString>

class QSettings;

namespace attnscope {

class AttentionEngine;

// What the explorer was showing, remembered between runs and restored at start: the model (as a key,
// see explorerModelKey), the texts, the tab and the head. (ExplorerSession, in explorer/, is the live state.)
struct SavedSession
{
    QString model; // "" when none was remembered
    QString textA;
    QString textB;
    QString view;   // one of explorerViewNames(), "" for the default
    int layer = -1; // -1: the default head
    int head = -1;

    static SavedSession load(const QSettings& settings);
    void save(QSettings& settings) const;
};

// Whether a key or --model value names a model, without a window: a built-in engine's key, or a folder
// with a readable config.json (given, built-in, or in the Hugging Face cache). false with *problem (its
// english() is one line). Opening the model can still fail later (bad weights): selectExplorerModel says so.
bool checkExplorerModel(const QString& key, ModelProblem* problem);
// A problem of what --model named, said as such: its file becomes "--model <file>".
ModelProblem asModelOption(ModelProblem problem);
// True for the key of the worked example, whose text is fixed.
bool isWorkedExampleKey(const QString& key);
// The key of an engine that needs no folder: "worked-example", "synthetic-encoder" or "synthetic-decoder";
// "" for a model's engine.
QString builtinEngineKey(const AttentionEngine* engine);

} // namespace attnscope
