#pragma once

// A model's tensors as its family names them: base names ("layers.0.mlp.up_proj.weight") resolved against
// the prefix the checkpoint put before them ("model.", "bert.", or none), and the shapes the family expects.

#include "model/weightstore.h"

#include <QString>
#include <memory>
#include <vector>

namespace attnscope {

class ModelWeights
{
public:
    ModelWeights() = default;
    ModelWeights(std::shared_ptr<const WeightStore> store, QString prefix);

    const QString& prefix() const { return m_prefix; }
    const WeightStore& store() const { return *m_store; }
    const std::shared_ptr<const WeightStore>& sharedStore() const { return m_store; }

    // The store's name for a base name: prefix + base; checkpoints converted from TensorFlow name LayerNorm
    // parameters gamma/beta, which are accepted for ".LayerNorm.weight/bias".
    QString name(const QString& base) const;
    bool has(const QString& base) const { return m_store->contains(name(base)); }
    // fp32 tensors (WeightStore::load); throws ModelError naming the tensor when it is missing.
    WeightTensor load(const QString& base) const { return m_store->load(name(base)); }
    // A projection's weights for ops::linear, possibly as stored (WeightStore::loadForProduct).
    WeightTensor loadForProduct(const QString& base) const { return m_store->loadForProduct(name(base)); }
    WeightTensor loadRows(const QString& base, qint64 firstRow, qint64 rowCount) const
    {
        return m_store->loadRows(name(base), firstRow, rowCount);
    }

private:
    std::shared_ptr<const WeightStore> m_store;
    QString m_prefix;
};

// The tensors a family's forward pass reads, with the shapes config.json implies: checked once when the
// model opens, so a wrong checkpoint fails there with "tensor X has shape ... but config.json implies ...".
class TensorChecklist
{
public:
    struct Item
    {
        QString name; // full name in the store
        std::vector<qint64> shape;
        bool required = true;
    };

    explicit TensorChecklist(const ModelWeights& weights) : m_weights(weights) {}

    // Base names, under the model's prefix.
    void require(const QString& base, std::vector<qint64> shape);
    void optional(const QString& base, std::vector<qint64> shape);
    // A projection's or a LayerNorm's pair, in this order: prefix + "weight" of weightShape and
    // prefix + "bias" of [biasLength] ("h.0.ln_1." -> "h.0.ln_1.weight", "h.0.ln_1.bias").
    void requireWithBias(const QString& prefix, std::vector<qint64> weightShape, qint64 biasLength);
    // Full names outside the base model ("lm_head.weight", "cls.predictions.bias").
    void optionalFullName(const QString& name, std::vector<qint64> shape);

    const std::vector<Item>& items() const { return m_items; }
    const ModelWeights& weights() const { return m_weights; }

private:
    const ModelWeights& m_weights;
    std::vector<Item> m_items;
};

} // namespace attnscope
