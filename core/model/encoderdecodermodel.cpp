#include "model/encoderdecodermodel.h"

#include "model/configreader.h"
#include "model/familyregistry.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
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

QString EncoderDecoderModel::encoderDecoderModelType(const QString& path)
{
    if (!QFileInfo(path).isDir()) return {};
    QString problem;
    const std::optional<QByteArray> bytes =
        readInputFile(QDir(path).filePath(QStringLiteral("config.json")), kMaxJsonFileBytes, &problem);
    if (!bytes) return {};
    const std::optional<QJsonDocument> doc = parseStrictJson(*bytes, &problem);
    if (!doc || !doc->isObject()) return {};
    const QJsonObject config = doc->object();
    QString modelType = config.value(QStringLiteral("model_type")).toString().toLower();
    const QJsonArray classes = config.value(QStringLiteral("architectures")).toArray();
    if (modelType.isEmpty() && !classes.isEmpty())
        modelType = FamilyRegistry::modelTypeFromClass(classes.first().toString());
    const FamilyUnit* unit = FamilyRegistry::find(modelType);
    return unit && unit->openEncoderDecoder ? modelType : QString();
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
