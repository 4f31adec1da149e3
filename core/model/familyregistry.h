#pragma once

// The model families the runtime knows, one unit per file in core/model/families/. A unit names the
// config.json model types it runs and reads their config into a ModelConfig and an Architecture.
//
// Adding a family adds a file, families/<name>.cpp, defining `FamilyUnit <name>FamilyUnit()` in namespace
// attnscope::families; the build lists the files (core/CMakeLists.txt writes one
// ATTNSCOPE_FAMILY_UNIT(<name>) line per file) and the registry calls each of them. No switch over families
// exists anywhere else. (A static self-registering object, as the app's commands use, would be dropped by the
// linker from the static core library when nothing else references its file.)

#include "model/modelconfig.h"

#include <QString>
#include <QStringList>
#include <memory>
#include <utility>
#include <vector>

namespace attnscope {

class Architecture;
class ConfigReader;
class EncoderDecoderModel;

struct FamilyUnit
{
    QString name;           // "gemma"
    QStringList modelTypes; // the model_type values it runs: "gemma", "gemma2", "gemma3_text"
    // For a config without model_type: the model type of an architectures[0] class starting with the prefix,
    // e.g. {"GemmaFor", "gemma"} ("...For" so that "Qwen2MoeForCausalLM" is not read as Qwen2).
    std::vector<std::pair<QString, QString>> classPrefixes;
    // Reads config.json (model_type already checked to be one of modelTypes): fills the shared fields of
    // `config` and returns the family's architecture. Throws ModelError "<config.json>: <problem>".
    // Null for an encoder-decoder family, which TransformerModel does not run.
    std::shared_ptr<const Architecture> (*configure)(const ConfigReader& reader,
                                                     ModelConfig& config) = nullptr;
    // Encoder-decoder families (Marian): opens the model folder whose config.json `reader` holds (model_type
    // already checked); null for the single-stack families. Throws ModelError "<file>: <problem>".
    std::unique_ptr<EncoderDecoderModel> (*openEncoderDecoder)(const ConfigReader& reader,
                                                               const QString& folder) = nullptr;
};

// The `configure` of a unit whose architecture reads everything from (reader, config):
// {..., &configureArchitecture<Gpt2Architecture>}.
template <class FamilyArchitecture>
std::shared_ptr<const Architecture> configureArchitecture(const ConfigReader& reader, ModelConfig& config)
{
    return std::make_shared<FamilyArchitecture>(reader, config);
}

// The unit of an encoder-decoder family that runs the one model_type `name` and claims, for a config
// without model_type, the architectures[0] classes starting with one of `classPrefixes` ("BartFor",
// "BartModel").
FamilyUnit encoderDecoderUnit(const QString& name, const QStringList& classPrefixes,
                              std::unique_ptr<EncoderDecoderModel> (*open)(const ConfigReader& reader,
                                                                           const QString& folder));

class FamilyRegistry
{
public:
    static const std::vector<FamilyUnit>& units();
    // The unit that runs `modelType`, or null.
    static const FamilyUnit* find(const QString& modelType);
    // The model type an architectures[0] class implies ("" when no unit claims it).
    static QString modelTypeFromClass(const QString& architectureClass);
};

} // namespace attnscope
