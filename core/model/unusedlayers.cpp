#include "model/unusedlayers.h"

#include "model/architecture.h"
#include "model/gguffile.h"
#include "model/modelconfig.h"
#include "model/modelweights.h"
#include "model/weightstore.h"

#include <QDir>
#include <set>

namespace attnscope {

namespace {

int layerOf(const QString& name)
{
    for (const QStringView part : QStringView(name).split(QLatin1Char('.'))) {
        bool ok = false;
        const int number = part.toInt(&ok);
        if (ok && number >= 0) return number;
    }
    return -1;
}

// "1 to 3" for a run, "2, 5, 7" otherwise.
QString layerList(const std::set<int>& layers)
{
    if (*layers.rbegin() - *layers.begin() + 1 == int(layers.size()))
        return layers.size() == 1 ? QString::number(*layers.begin())
                                  : QStringLiteral("%1 to %2").arg(*layers.begin()).arg(*layers.rbegin());
    QStringList list;
    for (int layer : layers)
        list << QString::number(layer);
    return list.join(QStringLiteral(", "));
}

} // namespace

QString unusedLayerTensors(const QStringList& names, const QSet<QString>& declared, int layers)
{
    std::set<int> unused;
    int tensors = 0;
    for (const QString& name : names) {
        const int layer = layerOf(name);
        if (layer < layers || declared.contains(name)) continue;
        unused.insert(layer);
        ++tensors;
    }
    if (unused.empty()) return {};
    return QStringLiteral("%1 %2 (%3 %4)")
        .arg(unused.size() == 1 ? QStringLiteral("layer") : QStringLiteral("layers"), layerList(unused))
        .arg(tensors)
        .arg(tensors == 1 ? QStringLiteral("tensor") : QStringLiteral("tensors"));
}

QString unusedLayersNote(const ModelWeights& weights, const ModelConfig& config, const QString& folder)
{
    const WeightStore& store = weights.store();
    QString layers;
    QString source;
    if (const GgufFile* gguf = store.ggufFile().get()) {
        // Its tensors were mapped for block_count layers only: the file's own names tell what is left.
        QStringList names;
        for (const GgufTensor& t : gguf->tensors())
            names << t.name;
        layers = unusedLayerTensors(names, {}, config.layers);
        source = QStringLiteral("%1: block_count %2").arg(gguf->displayPath()).arg(config.layers);
    } else {
        TensorChecklist list(weights);
        config.architecture->declareTensors(list);
        QSet<QString> declared;
        for (const TensorChecklist::Item& item : list.items())
            declared.insert(item.name);
        layers = unusedLayerTensors(store.names(), declared, config.layers);
        source = QStringLiteral("%1: %2 %3")
                     .arg(QDir::toNativeSeparators(QDir(folder).filePath(QStringLiteral("config.json"))))
                     .arg(config.layers)
                     .arg(config.layers == 1 ? QStringLiteral("layer") : QStringLiteral("layers"));
    }
    if (layers.isEmpty()) return {};
    return QStringLiteral("%1, but the weights also hold %2, which are not used").arg(source, layers);
}

} // namespace attnscope
