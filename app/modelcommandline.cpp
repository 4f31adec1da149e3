#include "modelcommandline.h"

#include "model/modelcatalog.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

#include <charconv>

namespace attnscope {

bool parseIdList(const QString& text, std::vector<int>* ids, QString* error)
{
    ids->clear();
    const QStringList parts = text.split(QLatin1Char(','), Qt::KeepEmptyParts);
    for (const QString& part : parts) {
        bool ok = false;
        const int id = part.trimmed().toInt(&ok);
        if (!ok || id < 0) {
            *error = QStringLiteral("--ids: '%1' is not a non-negative integer (expected e.g. --ids 101,2023,102)").arg(part.trimmed());
            return false;
        }
        ids->push_back(id);
    }
    return true;
}

std::unique_ptr<TransformerModel> openModelArgument(const QString& nameOrPath)
{
    return TransformerModel::open(ModelCatalog::resolve(nameOrPath));
}

ModelInput modelInput(const TransformerModel& model, const QCommandLineParser& parser)
{
    ModelInput input;
    if (parser.isSet(QStringLiteral("ids"))) {
        QString error;
        if (!parseIdList(parser.value(QStringLiteral("ids")), &input.ids, &error))
            throw ModelError(error);
        for (int id : input.ids)
            input.tokens << model.tokenText(id);
        return input;
    }
    // Text needs the tokenizer (core/tokenizer), which this build does not include yet.
    throw ModelError(QDir::toNativeSeparators(model.folder()),
                     QStringLiteral("--text needs the tokenizer, which this build does not have yet; give token ids with --ids"));
}

bool writeOutputFile(const QString& path, const QByteArray& bytes, bool force, QString* error)
{
    const QString file = QDir::toNativeSeparators(path);
    if (QFileInfo::exists(path) && !force) {
        *error = file + QStringLiteral(": already exists; use --force to overwrite it");
        return false;
    }
    QSaveFile out(path);
    if (!out.open(QIODevice::WriteOnly)) {
        *error = file + QStringLiteral(": cannot write: ") + out.errorString();
        return false;
    }
    out.write(bytes);
    if (!out.commit()) {
        *error = file + QStringLiteral(": cannot write: ") + out.errorString();
        return false;
    }
    return true;
}

QByteArray floatText(float value)
{
    char buffer[32];
    const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
    return QByteArray(buffer, int(result.ptr - buffer));
}

} // namespace attnscope
