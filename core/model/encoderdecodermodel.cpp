#include "model/encoderdecodermodel.h"

#include "model/configreader.h"
#include "model/familyregistry.h"

#include <QDir>
#include <QFileInfo>
#include <exception>

namespace attnscope {

QStringList EncoderDecoderModel::supportedModelTypes()
{
    QStringList types;
    for (const FamilyUnit& unit : FamilyRegistry::units())
        if (unit.openEncoderDecoder) types << unit.modelTypes;
    types.sort();
    return types;
}

namespace {

// model_type, or without it the class in architectures (as ModelConfig reads single-stack configs).
QString modelTypeOf(const ConfigReader& reader)
{
    const QString modelType = reader.string("model_type", QString()).toLower();
    const QStringList classes = reader.strings("architectures");
    return modelType.isEmpty() && !classes.isEmpty() ? FamilyRegistry::modelTypeFromClass(classes.front())
                                                     : modelType;
}

} // namespace

QString EncoderDecoderModel::encoderDecoderModelType(const QString& path)
{
    if (!QFileInfo(path).isDir()) return {};
    try {
        const QString modelType =
            modelTypeOf(ConfigReader::fromFile(QDir(path).filePath(QStringLiteral("config.json"))));
        const FamilyUnit* unit = FamilyRegistry::find(modelType);
        return unit && unit->openEncoderDecoder ? modelType : QString();
    } catch (const std::exception&) {
        return {}; // no readable config: not an encoder-decoder folder; opening it says why
    }
}

std::unique_ptr<EncoderDecoderModel> EncoderDecoderModel::open(const QString& folder)
{
    const QString file = QDir::toNativeSeparators(QDir(folder).filePath(QStringLiteral("config.json")));
    const ConfigReader reader = ConfigReader::fromFile(file);
    const QString modelType = modelTypeOf(reader);
    const FamilyUnit* unit = FamilyRegistry::find(modelType);
    if (!unit || !unit->openEncoderDecoder)
        reader.fail(QStringLiteral("model_type '%1' is not an encoder-decoder model this runtime opens; "
                                   "supported: %2")
                        .arg(modelType, supportedModelTypes().join(QStringLiteral(", "))));
    return unit->openEncoderDecoder(reader, folder);
}

} // namespace attnscope
