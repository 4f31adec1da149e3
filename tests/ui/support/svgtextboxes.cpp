#include "svgtextboxes.h"

#include <QFont>
#include <QFontMetricsF>
#include <QImage>
#include <QRegularExpression>
#include <QStringList>
#include <QTransform>
#include <QXmlStreamReader>
#include <cmath>
#include <vector>

namespace {

struct Style
{
    QTransform transform;
    QString family;
    double pixelSize = 12;
    int weight = 400;
    bool italic = false;
};

QTransform parseMatrix(const QString& value)
{
    // "matrix(a,b,c,d,e,f)"
    const int open = value.indexOf(QLatin1Char('(')), close = value.indexOf(QLatin1Char(')'));
    if (!value.startsWith(QLatin1String("matrix")) || open < 0 || close < open) return {};
    const QStringList parts = value.mid(open + 1, close - open - 1)
                                  .split(QRegularExpression(QStringLiteral("[ ,]+")), Qt::SkipEmptyParts);
    if (parts.size() != 6) return {};
    return QTransform(parts[0].toDouble(), parts[1].toDouble(), parts[2].toDouble(), parts[3].toDouble(),
                      parts[4].toDouble(), parts[5].toDouble());
}

void applyAttributes(const QXmlStreamAttributes& attributes, Style& style)
{
    if (attributes.hasAttribute(QLatin1String("transform")))
        style.transform =
            parseMatrix(attributes.value(QLatin1String("transform")).toString()) * style.transform;
    if (attributes.hasAttribute(QLatin1String("font-family")))
        style.family = attributes.value(QLatin1String("font-family")).toString();
    if (attributes.hasAttribute(QLatin1String("font-size")))
        style.pixelSize =
            attributes.value(QLatin1String("font-size")).toString().remove(QLatin1String("px")).toDouble();
    if (attributes.hasAttribute(QLatin1String("font-weight")))
        style.weight = attributes.value(QLatin1String("font-weight")).toInt();
    if (attributes.hasAttribute(QLatin1String("font-style")))
        style.italic = attributes.value(QLatin1String("font-style")) == QLatin1String("italic");
}

std::vector<QPointF> axesOf(const QPolygonF& p)
{
    std::vector<QPointF> axes;
    for (int i = 0; i < p.size(); ++i) {
        const QPointF edge = p[(i + 1) % p.size()] - p[i];
        const double length = std::hypot(edge.x(), edge.y());
        if (length > 1e-9) axes.emplace_back(-edge.y() / length, edge.x() / length);
    }
    return axes;
}

} // namespace

QVector<SvgTextBox> svgTextBoxes(const QByteArray& svg, QString* error)
{
    QVector<SvgTextBox> boxes;
    QXmlStreamReader xml(svg);
    std::vector<Style> stack{Style{}};
    // A 96-dpi device: QSvgGenerator writes font sizes in pixels at its resolution (96 in the exporter).
    QImage device(1, 1, QImage::Format_ARGB32);
    device.setDotsPerMeterX(int(std::lround(96 / 0.0254)));
    device.setDotsPerMeterY(int(std::lround(96 / 0.0254)));
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement()) {
            Style style = stack.back();
            applyAttributes(xml.attributes(), style);
            if (xml.name() == QLatin1String("text")) {
                const double x = xml.attributes().value(QLatin1String("x")).toDouble();
                const double y = xml.attributes().value(QLatin1String("y")).toDouble();
                const QString text = xml.readElementText(QXmlStreamReader::IncludeChildElements);
                QFont font(style.family);
                font.setPointSizeF(style.pixelSize * 72.0 / 96.0);
                font.setWeight(QFont::Weight(style.weight));
                font.setItalic(style.italic);
                const QFontMetricsF metrics(font, &device);
                const QRectF local(x, y - metrics.ascent(), metrics.horizontalAdvance(text),
                                   metrics.ascent() + metrics.descent());
                if (!text.trimmed().isEmpty())
                    boxes.push_back(SvgTextBox{text, style.transform.map(QPolygonF(local))});
                continue; // readElementText consumed the end element
            }
            stack.push_back(style);
        } else if (xml.isEndElement()) {
            if (stack.size() > 1) stack.pop_back();
        }
    }
    if (xml.hasError() && error) *error = xml.errorString();
    return boxes;
}

QSizeF svgPageSize(const QByteArray& svg)
{
    QXmlStreamReader xml(svg);
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("svg")) {
            const QStringList box = xml.attributes()
                                        .value(QLatin1String("viewBox"))
                                        .toString()
                                        .split(QLatin1Char(' '), Qt::SkipEmptyParts);
            if (box.size() == 4) return QSizeF(box[2].toDouble(), box[3].toDouble());
            return QSizeF(xml.attributes()
                              .value(QLatin1String("width"))
                              .toString()
                              .remove(QLatin1String("mm"))
                              .toDouble(),
                          xml.attributes()
                              .value(QLatin1String("height"))
                              .toString()
                              .remove(QLatin1String("mm"))
                              .toDouble());
        }
    }
    return {};
}

bool boxesOverlap(const QPolygonF& a, const QPolygonF& b, double tolerance)
{
    std::vector<QPointF> axes = axesOf(a);
    const std::vector<QPointF> more = axesOf(b);
    axes.insert(axes.end(), more.begin(), more.end());
    for (const QPointF& axis : axes) {
        double minA = 1e18, maxA = -1e18, minB = 1e18, maxB = -1e18;
        for (const QPointF& p : a) {
            const double d = p.x() * axis.x() + p.y() * axis.y();
            minA = std::min(minA, d), maxA = std::max(maxA, d);
        }
        for (const QPointF& p : b) {
            const double d = p.x() * axis.x() + p.y() * axis.y();
            minB = std::min(minB, d), maxB = std::max(maxB, d);
        }
        if (std::min(maxA, maxB) - std::max(minA, minB) <= tolerance)
            return false; // a separating axis (touching within the tolerance counts as apart)
    }
    return true;
}

namespace {
QString describe(const QPolygonF& box)
{
    QStringList corners;
    for (const QPointF& p : box)
        corners << QStringLiteral("%1,%2").arg(p.x(), 0, 'f', 1).arg(p.y(), 0, 'f', 1);
    return corners.join(QLatin1Char(' '));
}
} // namespace

QStringList svgTextProblems(const QByteArray& svg, double tolerance)
{
    QString error;
    const QVector<SvgTextBox> boxes = svgTextBoxes(svg, &error);
    if (!error.isEmpty()) return {QStringLiteral("not XML: ") + error};
    const QSizeF page = svgPageSize(svg);
    QStringList problems;
    for (const SvgTextBox& box : boxes) {
        const QRectF bounds = box.box.boundingRect();
        if (bounds.left() < -tolerance || bounds.top() < -tolerance ||
            bounds.right() > page.width() + tolerance || bounds.bottom() > page.height() + tolerance)
            problems << QStringLiteral("'%1' outside the %2×%3 page: (%4, %5)–(%6, %7)")
                            .arg(box.text)
                            .arg(page.width())
                            .arg(page.height())
                            .arg(bounds.left(), 0, 'f', 1)
                            .arg(bounds.top(), 0, 'f', 1)
                            .arg(bounds.right(), 0, 'f', 1)
                            .arg(bounds.bottom(), 0, 'f', 1);
    }
    for (int i = 0; i < boxes.size(); ++i)
        for (int j = i + 1; j < boxes.size(); ++j)
            if (boxes[i].box.boundingRect().intersects(boxes[j].box.boundingRect().adjusted(-1, -1, 1, 1)) &&
                boxesOverlap(boxes[i].box, boxes[j].box, tolerance))
                problems << QStringLiteral("'%1' overlaps '%2' (%3 and %4)")
                                .arg(boxes[i].text, boxes[j].text, describe(boxes[i].box),
                                     describe(boxes[j].box));
    return problems;
}
