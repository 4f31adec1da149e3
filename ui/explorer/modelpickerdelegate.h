#pragma once

#include <QStyledItemDelegate>

namespace attnscope {

// The model picker's list: each model's name, and at the right, in a muted colour, what
// kModelDetailsRole holds ("1.24 B parameters · needs ≈ 3.41 GB at 512 tokens").
class ModelPickerDelegate : public QStyledItemDelegate
{
    Q_OBJECT
public:
    static constexpr int kModelDetailsRole = Qt::UserRole + 17;
    using QStyledItemDelegate::QStyledItemDelegate;

    void paint(QPainter* painter, const QStyleOptionViewItem& option,
               const QModelIndex& index) const override;
    QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;
};

} // namespace attnscope
