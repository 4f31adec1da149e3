#include "explorer/modelpickerdelegate.h"

#include <QPainter>

namespace attnscope {

namespace {
constexpr int kGap = 24; // between the name and the details
}

void ModelPickerDelegate::paint(QPainter* painter, const QStyleOptionViewItem& option,
                                const QModelIndex& index) const
{
    QStyledItemDelegate::paint(painter, option, index);
    const QString details = index.data(kModelDetailsRole).toString();
    if (details.isEmpty()) return;
    painter->save();
    const bool selected = option.state & QStyle::State_Selected;
    QColor colour = option.palette.color(selected ? QPalette::HighlightedText : QPalette::Text);
    colour.setAlphaF(0.65f);
    painter->setPen(colour);
    painter->setFont(option.font);
    const QRect area = option.rect.adjusted(0, 0, -6, 0);
    painter->drawText(area, Qt::AlignRight | Qt::AlignVCenter, details);
    painter->restore();
}

QSize ModelPickerDelegate::sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const
{
    QSize size = QStyledItemDelegate::sizeHint(option, index);
    const QString details = index.data(kModelDetailsRole).toString();
    if (!details.isEmpty()) size.rwidth() += kGap + option.fontMetrics.horizontalAdvance(details) + 6;
    return size;
}

} // namespace attnscope
