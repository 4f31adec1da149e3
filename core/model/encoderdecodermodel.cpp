#include "model/encoderdecodermodel.h"

#include "model/configreader.h"
#include "model/familyregistry.h"

#include <QDir>
#include <QJsonObject>

namespace attnscope {

QStringList EncoderDecoderModel::supportedModelTypes()
{
    QStringList types;
    for (const FamilyUnit& unit : FamilyRegistry::units())
        if (unit.openEncoderDecoder) types << unit.modelTypes;
    types.sort();
    return types;
}

std::unique_ptr<EncoderDecoderModel> EncoderDecoderModel::open(const QString& folder)
{
    const QString file = QDir::toNativeSeparators(QDir(folder).filePath(QStringLiteral("config.json")));
    const ConfigReader reader = ConfigReader::fromFile(file);
    QString modelType = reader.string("model_type", QString()).toLower();
    // Without model_type, the class in architectures names it (as ModelConfig reads single-stack configs).
    const QStringList classes = reader.strings("architectures");
    if (modelType.isEmpty() && !classes.isEmpty())
        modelType = FamilyRegistry::modelTypeFromClass(classes.front());
    const FamilyUnit* unit = FamilyRegistry::find(modelType);
    if (!unit || !unit->openEncoderDecoder)
        reader.fail(QStringLiteral("model_type '%1' is not an encoder-decoder model this runtime opens; "
                                   "supported: %2")
                        .arg(modelType, supportedModelTypes().join(QStringLiteral(", "))));
    return unit->openEncoderDecoder(reader, folder);
}

} // namespace attnscope
