#include "model/modelconfig.h"

#include "io/inputfile.h"
#include "model/architecture.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <cmath>

namespace attnscope {

QStringList ModelConfig::supportedModelTypes()
{
    QStringList types;
    for (const FamilyUnit& unit : FamilyRegistry::units())
        types << unit.modelTypes;
    types.sort();
    return types;
}

ModelConfig ModelConfig::fromFile(const QString& configPath)
{
    const QString file = QDir::toNativeSeparators(configPath);
    QString problem;
    const std::optional<QByteArray> bytes = readInputFile(configPath, kMaxJsonFileBytes, &problem);
    if (!bytes) throw ModelError(file, problem);
    return fromJsonBytes(*bytes, file);
}

ModelConfig ModelConfig::fromJsonBytes(const QByteArray& bytes, const QString& file)
{
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(bytes, &error);
    if (error.error != QJsonParseError::NoError)
        throw ModelError(
            file, QStringLiteral("invalid JSON at byte %1: %2").arg(error.offset).arg(error.errorString()));
    if (!doc.isObject()) throw ModelError(file, QStringLiteral("not a JSON object"));
    return fromJson(doc.object(), file);
}

ModelConfig ModelConfig::fromJson(const QJsonObject& json, const QString& file)
{
    const ConfigReader r(json, file);
    ModelConfig c;
    const QJsonValue architectures = json.value(QLatin1String("architectures"));
    if (!architectures.isUndefined() && !architectures.isNull() &&
        (!architectures.isArray() || (!architectures.toArray().isEmpty() && !architectures[0].isString())))
        r.fail(QStringLiteral("architectures must be a list of class names"));
    c.architectureClass = architectures.toArray().isEmpty() ? QString() : architectures[0].toString();
    c.modelType = r.string("model_type", QString()).toLower();
    if (c.modelType.isEmpty()) c.modelType = FamilyRegistry::modelTypeFromClass(c.architectureClass);
    const FamilyUnit* unit = FamilyRegistry::find(c.modelType);
    if (!unit) {
        QString named = c.modelType.isEmpty() ? QStringLiteral("(none given)")
                                              : QLatin1Char('\'') + c.modelType + QLatin1Char('\'');
        if (!c.architectureClass.isEmpty()) named += QStringLiteral(" (%1)").arg(c.architectureClass);
        r.fail(QStringLiteral("unsupported architecture %1; supported model types: %2")
                   .arg(named, supportedModelTypes().join(QStringLiteral(", "))));
    }
    c.family = unit->name;
    c.architecture = unit->configure(r, c);
    c.ropeCacheLimit = r.ropeCacheLimit();

    // What every family must have given.
    if (c.layers <= 0 || c.heads <= 0 || c.hidden <= 0 || c.vocabSize <= 0 || c.maxPositions <= 0)
        r.fail(QStringLiteral("the %1 reader left a size unset")
                   .arg(unit->name)); // a unit's bug, not the user's
    r.completeShape(c);
    return c;
}

} // namespace attnscope
