#pragma once

// Helpers for the model tests: the oracle cases in ATTNSCOPE_FIXTURES_DIR/oracle and modified copies of them.

#include "attention/attentionmaps.h"
#include "io/npy.h"
#include "model/safetensorswriter.h"

#include <QJsonValue>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <functional>
#include <vector>

namespace attnscope {
class TransformerModel;
}

namespace attnscope::testing {

QString oracleFolder(const QString& caseName);
// The QString column "caseName" of a data function, with one row per case, named as the case.
void addOracleCaseRows(const std::vector<const char*>& caseNames);
std::vector<int> oracleInputIds(const QString& caseName);
// attentions.npy of a case, [layers, heads, n, n] float64.
NpyArray oracleAttentions(const QString& caseName);
// Largest |P − expected| over every layer/head/query/key; +inf when the shapes differ.
double maxAbsError(const AttentionMaps& maps, const NpyArray& expected);
double maxAbsError(const AttentionMaps& a, const AttentionMaps& b);
// Runs model on the input_ids of oracle case caseName and checks its attention against the case's
// (transformers' own): the same layers, heads and queries, every probability within 1e-5, causal exactly
// where the model is a decoder. The checks are QTest's: a failure is recorded on the running test function.
void checkMatchesOracle(const TransformerModel& model, const QString& caseName);

// Every tensor of a .safetensors file with its raw bytes.
std::vector<TensorToWrite> readTensors(const QString& safetensorsPath);
// Copies every file of `from` into `to` (created), except model.safetensors.
void copyFolderWithoutWeights(const QString& from, const QString& to);
// Copies a model folder, passing its tensors through `edit` (rename, drop, add) before writing
// model.safetensors.
void copyModel(const QString& from, const QString& to,
               const std::function<void(std::vector<TensorToWrite>&)>& edit = {});
// A copy of oracle case caseName (copyModel) in dir's folder `name`: the setup of the tests that break one
// file of a model; the copy's path.
QString copyOracleCase(const QTemporaryDir& dir, const QString& caseName,
                       const QString& name = QStringLiteral("model"));
// Sets `key` of folder/config.json to value, or removes it where value is undefined; the test program stops
// (qFatal) when the file cannot be read or written.
void editModelConfig(const QString& folder, const QString& key, const QJsonValue& value);
// The message of the ModelError that opening the model folder throws; empty when it opens.
QString modelOpenError(const QString& folder);
// A safetensors file from a raw JSON header and `dataBytes` zero bytes of data; its 8-byte length prefix says
// declaredLength where that is not 0 (a lie about the header), else the header's true length.
QByteArray rawSafetensors(const QByteArray& header, int dataBytes, quint64 declaredLength = 0);

// The kernel's flags of the mapping that holds `address` (the VmFlags of /proc/self/smaps, e.g. "rd",
// "sh", "hg" for MADV_HUGEPAGE); empty where there is no such file or mapping.
QStringList mappingFlags(const void* address);
// Whether this kernel has transparent huge pages at all (madvise(MADV_HUGEPAGE) is refused without them).
bool kernelHasTransparentHugePages();

} // namespace attnscope::testing
