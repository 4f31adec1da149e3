#include "model/modelconfig.h"

#include "io/inputfile.h"
#include "io/strictjson.h"
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
        if (unit.configure) types << unit.modelTypes; // not the encoder-decoder ones (EncoderDecoderModel)
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
    // Line and column of a syntax error; a key given twice refused (QJsonDocument kept the last silently).
    QString problem;
    JsonSyntaxError syntax;
    const std::optional<QJsonDocument> doc = parseStrictJson(bytes, &problem, &syntax);
    if (!doc && syntax.error != QJsonParseError::NoError)
        throw ModelError(
            ModelProblem{ModelProblem::Kind::InvalidJson,
                         file,
                         {QString::number(syntax.place.line), QString::number(syntax.place.column),
                          QString::number(int(syntax.error)), syntax.words}});
    if (!doc) throw ModelError(file, problem);
    if (!doc->isObject()) throw ModelError(file, QStringLiteral("not a JSON object"));
    return fromJson(doc->object(), file);
}

namespace {

// bos_token_id and eos_token_id (a list for some models): transformers' generation stops at them, so an id
// of -7 or 2^40 is a damaged file. Whole numbers below the vocabulary limit; not checked against vocab_size,
// which released tiny test models undercut (Phi-3's keep eos_token_id 32000 over 128 entries).
void checkTokenIds(const ConfigReader& r)
{
    for (const char* key : {"bos_token_id", "eos_token_id"}) {
        const QJsonValue value = r.json().value(QLatin1String(key));
        if (value.isUndefined() || value.isNull()) continue;
        const QJsonArray list = value.isArray() && QLatin1String(key) == QLatin1String("eos_token_id")
                                    ? value.toArray()
                                    : QJsonArray{value};
        for (const QJsonValue& id : list) {
            const double d = id.toDouble(-1);
            if (!id.isDouble() || !(d >= 0 && d < kMaxVocabulary) || std::floor(d) != d)
                r.fail(
                    QStringLiteral("%1 %2 is not a token id (a whole number from 0 to %3)")
                        .arg(QLatin1String(key),
                             QString::fromUtf8(QJsonDocument(QJsonArray{id}).toJson(QJsonDocument::Compact))
                                 .mid(1)
                                 .chopped(1))
                        .arg(kMaxVocabulary - 1));
        }
    }
}

} // namespace

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
    if (unit && !unit->configure)
        r.fail(
            QStringLiteral("model_type '%1' is an encoder-decoder (translation) model; the attention views "
                           "do not open encoder-decoder models yet (attnscope translate and attention --part do)")
                .arg(c.modelType));
    if (!unit) {
        QString named = c.modelType.isEmpty() ? QStringLiteral("(none given)")
                                              : QLatin1Char('\'') + c.modelType + QLatin1Char('\'');
        if (!c.architectureClass.isEmpty()) named += QStringLiteral(" (%1)").arg(c.architectureClass);
        throw ModelError(ModelProblem{ModelProblem::Kind::UnsupportedArchitecture,
                                      file,
                                      {named, supportedModelTypes().join(QStringLiteral(", "))}});
    }
    c.family = unit->name;
    checkTokenIds(r);
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
