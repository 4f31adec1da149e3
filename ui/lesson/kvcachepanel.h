#pragma once

#include "generation/kvcachesize.h"

#include <QWidget>
#include <optional>
#include <vector>

class QComboBox;
class QLabel;
class QSpinBox;
class QTableWidget;

namespace attnscope {

// The lesson's KV-cache calculator (issue 16): for MHA, GQA, MQA and MLA models, the bytes one token adds to
// the cache and the bytes of a whole context, with what each saves against MHA, and a short text on GQA and
// MLA. The numbers come from core/generation/kvcachesize. Columns: model, attention, layers, cached per
// layer, per token, whole context, against MHA.
class KvCachePanel : public QWidget
{
    Q_OBJECT
public:
    explicit KvCachePanel(QWidget* parent = nullptr);

    // The model the explorer has loaded, shown first (none: only the published presets).
    void setLoadedModel(std::optional<KvCacheShape> shape);
    std::vector<KvCacheShape> shapes() const;
    void setContext(int tokens);
    void setBytesPerElement(int bytes); // 1 (FP8), 2 (FP16/BF16), 4 (FP32)
    QTableWidget* table() const { return m_table; }
    QLabel* explanation() const { return m_explanation; }

private:
    void refresh();

    std::optional<KvCacheShape> m_loaded;
    QSpinBox* m_context = nullptr;
    QComboBox* m_precision = nullptr;
    QTableWidget* m_table = nullptr;
    QLabel* m_explanation = nullptr;
};

// "128 KiB", "1,00 GiB": binary units in the language's number format.
QString formatBytesForPeople(std::int64_t bytes);

} // namespace attnscope
