#include "lesson/kvcachepanel.h"

#include <QComboBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>

namespace attnscope {

QString formatBytesForPeople(std::int64_t bytes)
{
    return QLocale().formattedDataSize(bytes, bytes < 1024 ? 0 : 2, QLocale::DataSizeIecFormat);
}

KvCachePanel::KvCachePanel(QWidget* parent) : QWidget(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* form = new QFormLayout;
    m_context = new QSpinBox(this);
    m_context->setRange(1, 10000000);
    m_context->setValue(8192);
    m_context->setGroupSeparatorShown(true);
    m_precision = new QComboBox(this);
    m_precision->addItem(tr("FP16 / BF16 (2 bytes)"), 2);
    m_precision->addItem(tr("FP8 (1 byte)"), 1);
    m_precision->addItem(tr("FP32 (4 bytes)"), 4);
    form->addRow(tr("Context (tokens)"), m_context);
    form->addRow(tr("Cache precision"), m_precision);
    layout->addLayout(form);
    m_table = new QTableWidget(this);
    m_table->setColumnCount(7);
    m_table->setHorizontalHeaderLabels({tr("Model"), tr("Attention"), tr("Layers"), tr("Cached per layer"),
                                        tr("Per token"), tr("Whole context"), tr("Against MHA")});
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    layout->addWidget(m_table, 1);
    m_explanation = new QLabel(this);
    m_explanation->setWordWrap(true);
    m_explanation->setText(tr(
        "Each generated token leaves its keys and values in every layer's cache. MHA keeps them for every "
        "head: 2 × heads × head size per layer. GQA lets a group of query heads share one key/value head "
        "(Llama-3-8B: 32 query heads, 8 key/value heads), so the cache shrinks by heads ÷ key/value heads; "
        "MQA is the extreme, one key/value head for all. MLA (DeepSeek-V2/V3) caches one compressed latent "
        "per token (512 numbers) plus a small key that carries the rotary position (64), shared by all 128 "
        "heads; the keys and values are rebuilt from the latent when attention is computed."));
    layout->addWidget(m_explanation);
    connect(m_context, &QSpinBox::valueChanged, this, &KvCachePanel::refresh);
    connect(m_precision, &QComboBox::currentIndexChanged, this, &KvCachePanel::refresh);
    refresh();
}

void KvCachePanel::setLoadedModel(std::optional<KvCacheShape> shape)
{
    m_loaded = std::move(shape);
    refresh();
}

std::vector<KvCacheShape> KvCachePanel::shapes() const
{
    std::vector<KvCacheShape> all;
    if (m_loaded) all.push_back(*m_loaded);
    for (const KvCacheShape& s : kvCachePresets())
        all.push_back(s);
    return all;
}

void KvCachePanel::setContext(int tokens)
{
    m_context->setValue(tokens);
}

void KvCachePanel::setBytesPerElement(int bytes)
{
    const int index = m_precision->findData(bytes);
    if (index >= 0) m_precision->setCurrentIndex(index);
}

void KvCachePanel::refresh()
{
    const std::vector<KvCacheShape> all = shapes();
    const int bytesPerElement = m_precision->currentData().toInt();
    const std::int64_t context = m_context->value();
    const QLocale locale;
    m_table->setRowCount(int(all.size()));
    for (int r = 0; r < int(all.size()); ++r) {
        const KvCacheShape& s = all[size_t(r)];
        const QString attention = QString::fromLatin1(cacheAttentionName(s.attention));
        const QString cached = s.attention == CacheAttention::MLA
                                   ? tr("latent %1 + RoPE key %2").arg(s.latentRank).arg(s.ropeDim)
                                   : tr("2 × %1 KV heads × %2").arg(s.kvHeads).arg(s.headDim);
        const double saving =
            double(s.mhaElementsPerToken()) / double(std::max<std::int64_t>(1, s.elementsPerToken()));
        const QStringList cells{s.name,
                                attention,
                                locale.toString(s.layers),
                                cached,
                                formatBytesForPeople(s.bytesPerToken(bytesPerElement)),
                                formatBytesForPeople(s.bytes(context, bytesPerElement)),
                                s.attention == CacheAttention::MHA
                                    ? QStringLiteral("1×")
                                    : tr("%1× smaller").arg(locale.toString(saving, 'f', 1))};
        for (int c = 0; c < cells.size(); ++c) {
            auto* item = new QTableWidgetItem(cells[c]);
            if (c == 2 || c >= 4) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(r, c, item);
        }
    }
}

} // namespace attnscope
