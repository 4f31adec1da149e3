#include "render/headlabelframe.h"

#include "render/headgriddata.h"

#include <QPainter>
#include <QPen>

namespace attnscope {

HeadLabelFrame headLabelFrame(HeadLabel label)
{
    const QColor color = headLabelColor(label);
    switch (label) {
    case HeadLabel::Sink: // the anchor: the heaviest frame, a double line
        return {color, Qt::SolidLine, 1.0, true};
    case HeadLabel::NoOp:
        return {color, Qt::DashLine, 1.0, false};
    case HeadLabel::PreviousToken:
        return {color, Qt::DotLine, 1.0, false};
    case HeadLabel::NextToken:
        return {color, Qt::DashDotLine, 1.0, false};
    case HeadLabel::Self:
        return {color, Qt::DashDotDotLine, 1.0, false};
    case HeadLabel::Broad:
        return {color, Qt::SolidLine, 1.0, false};
    case HeadLabel::Mixed: // says least: the lightest frame
        return {color, Qt::SolidLine, 0.4, false};
    }
    return {color, Qt::SolidLine, 1.0, false};
}

void paintHeadLabelFrame(QPainter& painter, QRectF rect, HeadLabel label, double lineWidth)
{
    const HeadLabelFrame frame = headLabelFrame(label);
    const double width = std::max(1.0, lineWidth * frame.weight);
    QPen pen(frame.color, width, frame.line);
    pen.setCapStyle(Qt::FlatCap); // dots and dashes as drawn, not grown into each other by round caps
    pen.setJoinStyle(Qt::MiterJoin);
    painter.save();
    painter.setPen(pen);
    painter.setBrush(Qt::NoBrush);
    const double inset = width / 2;
    painter.drawRect(rect.adjusted(inset, inset, -inset, -inset));
    if (frame.doubled) {
        const double inner = inset + 2 * width;
        const QRectF innerRect = rect.adjusted(inner, inner, -inner, -inner);
        if (innerRect.width() > width && innerRect.height() > width) painter.drawRect(innerRect);
    }
    painter.restore();
}

} // namespace attnscope
