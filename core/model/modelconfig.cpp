#include "model/modelconfig.h"

#include "model/architecture.h"
#include "model/configreader.h"
#include "model/familyregistry.h"
#include "model/modelerror.h"

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>

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
    QFile f(configPath);
    if (!f.exists()) throw ModelError(file, QStringLiteral("file not found"));
    if (!f.open(QIODevice::ReadOnly))
        throw ModelError(file, QStringLiteral("cannot open: %1").arg(f.errorString()));
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &error);
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
    const QJsonArray architectures = json.value(QLatin1String("architectures")).toArray();
    c.architectureClass = architectures.isEmpty() ? QString() : architectures.first().toString();
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
