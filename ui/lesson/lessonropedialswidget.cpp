#include "lesson/lessonropedialswidget.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

LessonRopeDialsWidget::LessonRopeDialsWidget(QWidget* parent) : QWidget(parent)
{
    setMinimumHeight(100);
}

void LessonRopeDialsWidget::setAngles(const Eigen::MatrixXd& angles, const QStringList& tokens)
{
    m_angles = angles;
    m_tokens = tokens;
    updateGeometry();
    update();
}

void LessonRopeDialsWidget::setFontPointSize(double size)
{
    m_fontPointSize = size;
    update();
}

QSize LessonRopeDialsWidget::sizeHint() const
{
    return QSize(320, int(std::max<Eigen::Index>(2, m_angles.rows()) * 44 + 30));
}

void LessonRopeDialsWidget::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    painter.fillRect(rect(), Qt::white);
    painter.setRenderHint(QPainter::Antialiasing);
    QFont font = painter.font();
    font.setPointSizeF(m_fontPointSize);
    painter.setFont(font);
    const QFontMetricsF metrics(font);
    if (m_angles.size() == 0)
        return;
    double labelWidth = 0;
    for (const QString& token : m_tokens)
        labelWidth = std::max(labelWidth, metrics.horizontalAdvance(token));
    labelWidth += 10;
    const int rows = int(m_angles.rows()), pairs = int(m_angles.cols());
    const double header = metrics.height() * 1.4;
    const double size = std::max(12.0, std::min((height() - header - 4) / rows, (width() - labelWidth - 4) / pairs));
    painter.setPen(Qt::black);
    for (int p = 0; p < pairs; ++p)
        painter.drawText(QRectF(labelWidth + p * size, 0, size, header), Qt::AlignCenter, tr("pair %1").arg(p + 1));
    for (int m = 0; m < rows; ++m) {
        const double y = header + m * size;
        painter.setPen(Qt::black);
        painter.drawText(QRectF(0, y, labelWidth - 6, size), Qt::AlignRight | Qt::AlignVCenter,
                         m < m_tokens.size() ? m_tokens[m] : QString::number(m));
        for (int p = 0; p < pairs; ++p) {
            const QPointF centre(labelWidth + (p + 0.5) * size, y + size / 2);
            const double radius = size * 0.4;
            painter.setPen(QPen(QColor(120, 120, 120), 1));
            painter.setBrush(QColor(245, 245, 250));
            painter.drawEllipse(centre, radius, radius);
            // The swept angle as a filled wedge, the hand on top: angle 0 points right, counter-clockwise.
            const double angle = std::fmod(m_angles(m, p), 2 * kPi);
            QPainterPath wedge;
            wedge.moveTo(centre);
            wedge.arcTo(QRectF(centre.x() - radius, centre.y() - radius, 2 * radius, 2 * radius), 0, angle * 180 / kPi);
            wedge.closeSubpath();
            painter.setPen(Qt::NoPen);
            painter.setBrush(QColor(253, 231, 37, 160));
            painter.drawPath(wedge);
            painter.setPen(QPen(QColor(68, 1, 84), 2));
            painter.drawLine(centre, centre + QPointF(radius * std::cos(angle), -radius * std::sin(angle)));
        }
    }
}

} // namespace attnscope
