#include "model/modelweights.h"

namespace attnscope {

ModelWeights::ModelWeights(std::shared_ptr<const WeightStore> store, QString prefix)
    : m_store(std::move(store)), m_prefix(std::move(prefix))
{}

QString ModelWeights::name(const QString& base) const
{
    const QString name = m_prefix + base;
    if (m_store->contains(name)) return name;
    if (name.endsWith(QLatin1String("LayerNorm.weight"))) {
        QString gamma = name;
        gamma.replace(gamma.size() - 6, 6, QStringLiteral("gamma"));
        if (m_store->contains(gamma)) return gamma;
    } else if (name.endsWith(QLatin1String("LayerNorm.bias"))) {
        QString beta = name;
        beta.replace(beta.size() - 4, 4, QStringLiteral("beta"));
        if (m_store->contains(beta)) return beta;
    }
    return name;
}

void TensorChecklist::require(const QString& base, std::vector<qint64> shape)
{
    m_items.push_back({m_weights.name(base), std::move(shape), true});
}

void TensorChecklist::requireWithBias(const QString& prefix, std::vector<qint64> weightShape,
                                      qint64 biasLength)
{
    require(prefix + QLatin1String("weight"), std::move(weightShape));
    require(prefix + QLatin1String("bias"), {biasLength});
}

void TensorChecklist::optional(const QString& base, std::vector<qint64> shape)
{
    m_items.push_back({m_weights.name(base), std::move(shape), false});
}

void TensorChecklist::optionalFullName(const QString& name, std::vector<qint64> shape)
{
    m_items.push_back({name, std::move(shape), false});
}

} // namespace attnscope
