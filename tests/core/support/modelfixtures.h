#pragma once

// Helpers for the model tests: the oracle cases in ATTNSCOPE_FIXTURES_DIR/oracle and modified copies of them.

#include "attention/attentionmaps.h"
#include "io/npy.h"
#include "model/safetensorswriter.h"

#include <QString>
#include <QStringList>
#include <functional>
#include <vector>

namespace attnscope::testing {

QString oracleFolder(const QString& caseName);
std::vector<int> oracleInputIds(const QString& caseName);
// attentions.npy of a case, [layers, heads, n, n] float64.
NpyArray oracleAttentions(const QString& caseName);
// Largest |P − expected| over every layer/head/query/key; +inf when the shapes differ.
double maxAbsError(const AttentionMaps& maps, const NpyArray& expected);
double maxAbsError(const AttentionMaps& a, const AttentionMaps& b);

// Every tensor of a .safetensors file with its raw bytes.
std::vector<TensorToWrite> readTensors(const QString& safetensorsPath);
// Copies every file of `from` into `to` (created), except model.safetensors.
void copyFolderWithoutWeights(const QString& from, const QString& to);
// Copies a model folder, passing its tensors through `edit` (rename, drop, add) before writing
// model.safetensors.
void copyModel(const QString& from, const QString& to,
               const std::function<void(std::vector<TensorToWrite>&)>& edit = {});

// The kernel's flags of the mapping that holds `address` (the VmFlags of /proc/self/smaps, e.g. "rd",
// "sh", "hg" for MADV_HUGEPAGE); empty where there is no such file or mapping.
QStringList mappingFlags(const void* address);
// Whether this kernel has transparent huge pages at all (madvise(MADV_HUGEPAGE) is refused without them).
bool kernelHasTransparentHugePages();

} // namespace attnscope::testing
