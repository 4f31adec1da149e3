#include "render/headgriddata.h"

namespace attnscope {

QString headLabelSymbol(HeadLabel label)
{
    switch (label) {
    case HeadLabel::Sink:
        return QStringLiteral("⚓");
    case HeadLabel::NoOp:
        return QStringLiteral("∅");
    case HeadLabel::PreviousToken:
        return QStringLiteral("←");
    case HeadLabel::NextToken:
        return QStringLiteral("→");
    case HeadLabel::Self:
        return QStringLiteral("●");
    case HeadLabel::Broad:
        return QStringLiteral("≈");
    case HeadLabel::Mixed:
        return QStringLiteral("·");
    }
    return {};
}

QColor headLabelColor(HeadLabel label)
{
    // Okabe–Ito colours: distinguishable with the common colour-vision deficiencies.
    switch (label) {
    case HeadLabel::Sink:
        return QColor(0, 114, 178);
    case HeadLabel::NoOp:
        return QColor(213, 94, 0);
    case HeadLabel::PreviousToken:
        return QColor(0, 158, 115);
    case HeadLabel::NextToken:
        return QColor(204, 121, 167);
    case HeadLabel::Self:
        return QColor(240, 228, 66);
    case HeadLabel::Broad:
        return QColor(86, 180, 233);
    case HeadLabel::Mixed:
        return QColor(150, 150, 150);
    }
    return Qt::gray;
}

} // namespace attnscope
