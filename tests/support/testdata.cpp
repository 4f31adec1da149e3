#include "support/testdata.h"

#include "io/npy.h"
#include "model/modelerror.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <algorithm>
#include <cmath>

#ifdef Q_OS_UNIX
#include <sys/stat.h>
#endif

namespace attnscope::testing {

QJsonObject readJsonObject(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(file.readAll()).object();
}

QJsonObject readRequiredJsonObject(const QString& path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
    return QJsonDocument::fromJson(file.readAll()).object();
}

void writeJsonObject(const QString& path, const QJsonObject& object)
{
    writeRequiredFile(path, QJsonDocument(object).toJson());
}

QByteArray readFileBytes(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

bool writeFileBytes(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly | QIODevice::Truncate) && file.write(bytes) == bytes.size();
}

void writeRequiredFile(const QString& path, const QByteArray& bytes)
{
    if (!writeFileBytes(path, bytes)) qFatal("cannot write %s", qPrintable(path));
}

QJsonObject testTokenizerJson(const QString& set)
{
    const QString folder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/tests/data/tokenizers/") + set;
    if (QFile::exists(folder + QStringLiteral("/tokenizer.json")))
        return readRequiredJsonObject(folder + QStringLiteral("/tokenizer.json"));
    const QJsonObject overlay = readRequiredJsonObject(folder + QStringLiteral("/overlay.json"));
    QJsonObject base =
        readRequiredJsonObject(QDir(folder).filePath(overlay.value(QStringLiteral("base")).toString()));
    const QJsonObject replace = overlay.value(QStringLiteral("replace")).toObject();
    for (auto it = replace.begin(); it != replace.end(); ++it)
        base.insert(it.key(), it.value());
    QJsonObject model = base.value(QStringLiteral("model")).toObject();
    const QJsonObject modelReplace = overlay.value(QStringLiteral("model")).toObject();
    for (auto it = modelReplace.begin(); it != modelReplace.end(); ++it)
        model.insert(it.key(), it.value());
    base.insert(QStringLiteral("model"), model);
    return base;
}

QByteArray censusSentences(int count)
{
    QFile in(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/census-sentences.jsonl"));
    if (!in.open(QIODevice::ReadOnly)) return {};
    QByteArray out;
    for (int i = 0; i < count && !in.atEnd(); ++i)
        out += QJsonDocument::fromJson(in.readLine())
                   .object()
                   .value(QStringLiteral("text"))
                   .toString()
                   .toUtf8() +
               '\n';
    return out;
}

bool makeFifo(const QString& path)
{
#ifdef Q_OS_UNIX
    return ::mkfifo(QFile::encodeName(path).constData(), 0600) == 0;
#else
    Q_UNUSED(path);
    return false;
#endif
}

QStringList filesUnder(const QString& dir)
{
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << QDir(dir).relativeFilePath(it.next());
    files.sort();
    return files;
}

bool copyFileReplacing(const QString& from, const QString& to)
{
    QDir().mkpath(QFileInfo(to).absolutePath());
    QFile::remove(to);
    return QFile::copy(from, to);
}

QString modelErrorOf(const std::function<void()>& f)
{
    try {
        f();
    } catch (const ModelError& e) {
        return e.message();
    }
    return QString();
}

QString inputErrorOf(const std::function<QString()>& f)
{
    try {
        return f();
    } catch (const ModelError& e) {
        return e.message();
    } catch (const TokenizerError& e) {
        return QString::fromStdString(e.what());
    } catch (const NpyError& e) {
        return QString::fromStdString(e.what());
    }
}

HeadTensor randomHeadTensor(int tokens, int heads, int dim, std::mt19937& rng, float stddev)
{
    std::normal_distribution<float> normal(0.0f, stddev);
    HeadTensor t(tokens, heads, dim);
    for (float& x : t.values)
        x = normal(rng);
    return t;
}

double referenceActivation(double x, Activation activation)
{
    switch (activation) {
    case Activation::GeluErf:
        return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::GeluTanh:
        return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    case Activation::Relu:
        return std::max(0.0, x);
    case Activation::Silu:
        return x / (1.0 + std::exp(-x));
    }
    return x;
}

double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b)
{
    if (a.size() != b.size()) return INFINITY;
    double worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = std::abs(double(a[i]) - double(b[i]));
        if (!(d <= worst)) // NaN counts as the worst
            worst = std::isnan(d) ? INFINITY : d;
    }
    return worst;
}

TokenizerVectorCase tokenizerVectorCase(const QJsonObject& c)
{
    TokenizerVectorCase v;
    v.text = c.value(QStringLiteral("text")).toString();
    if (c.value(QStringLiteral("text_b")).isString()) v.textB = c.value(QStringLiteral("text_b")).toString();
    v.addSpecialTokens = c.value(QStringLiteral("add_special_tokens")).toBool();
    for (const QJsonValue& x : c.value(QStringLiteral("ids")).toArray())
        v.ids.push_back(x.toInt());
    for (const QJsonValue& x : c.value(QStringLiteral("tokens")).toArray())
        v.tokens << x.toString();
    for (const QJsonValue& o : c.value(QStringLiteral("offsets")).toArray())
        v.offsets.emplace_back(o.toArray().at(0).toInt(), o.toArray().at(1).toInt());
    return v;
}

std::vector<HeadWithFixtureP> headsWithFixtureP(const QJsonArray& heads, const QJsonObject& fixture)
{
    const QJsonArray attentions = fixture.value(QStringLiteral("attentions")).toArray();
    std::vector<HeadWithFixtureP> out;
    for (const QJsonValue& value : heads) {
        const QJsonObject h = value.toObject();
        const QJsonArray p = attentions.at(h.value(QStringLiteral("layer")).toInt())
                                 .toArray()
                                 .at(h.value(QStringLiteral("head")).toInt())
                                 .toArray();
        out.push_back({h, p});
    }
    return out;
}

int fixtureHeadCount(const QJsonObject& fixture)
{
    const QJsonArray attentions = fixture.value(QStringLiteral("attentions")).toArray();
    return attentions.size() * attentions.at(0).toArray().size();
}

std::pair<int, int> strongestSinkOrSepHeadByHand(const std::vector<HeadStats>& stats)
{
    std::pair<int, int> best{-1, -1};
    double mass = -1;
    for (const HeadStats& s : stats)
        if (std::max(s.sinkMass, s.sepMass) > mass) {
            mass = std::max(s.sinkMass, s.sepMass);
            best = {s.layer, s.head};
        }
    return best;
}

} // namespace attnscope::testing
