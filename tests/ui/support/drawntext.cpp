#include "ui/support/drawntext.h"

#include <QPaintEngine>
#include <QTextItem>
#include <cmath>
#include <memory>

namespace {

struct DrawnItem
{
    QString text;
    QTransform transform;
    QPointF start;
    double width = 0;
};

// Keeps the text items and draws nothing else. All features: QPainter then hands text over as text
// (not as paths) and needs no emulation.
class RecordingEngine : public QPaintEngine
{
public:
    RecordingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState& state) override
    {
        if (state.state() & QPaintEngine::DirtyTransform) m_transform = state.transform();
    }
    void drawTextItem(const QPointF& p, const QTextItem& item) override
    {
        items.push_back({item.text(), m_transform, p, item.width()});
    }
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {}
    void drawTiledPixmap(const QRectF&, const QPixmap&, const QPointF&) override {}
    void drawRects(const QRectF*, int) override {}
    void drawRects(const QRect*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawLines(const QLine*, int) override {}
    void drawEllipse(const QRectF&) override {}
    void drawEllipse(const QRect&) override {}
    void drawPath(const QPainterPath&) override {}
    void drawPoints(const QPointF*, int) override {}
    void drawPoints(const QPoint*, int) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPolygon(const QPoint*, int, PolygonDrawMode) override {}
    Type type() const override { return QPaintEngine::User; }

    std::vector<DrawnItem> items;

private:
    QTransform m_transform;
};

class RecordingDevice : public QPaintDevice
{
public:
    explicit RecordingDevice(const QPaintDevice& like) : m_like(like) {}
    QPaintEngine* paintEngine() const override { return &m_engine; }
    std::vector<DrawnItem>& items() { return m_engine.items; }

protected:
    int metric(PaintDeviceMetric m) const override
    {
        switch (m) {
        case PdmWidth:
            return m_like.width();
        case PdmHeight:
            return m_like.height();
        case PdmWidthMM:
            return m_like.widthMM();
        case PdmHeightMM:
            return m_like.heightMM();
        case PdmNumColors:
            return m_like.colorCount();
        case PdmDepth:
            return m_like.depth();
        case PdmDpiX:
            return m_like.logicalDpiX();
        case PdmDpiY:
            return m_like.logicalDpiY();
        case PdmPhysicalDpiX:
            return m_like.physicalDpiX();
        case PdmPhysicalDpiY:
            return m_like.physicalDpiY();
        case PdmDevicePixelRatio:
            return int(std::lround(m_like.devicePixelRatio()));
        case PdmDevicePixelRatioScaled:
            return int(std::lround(m_like.devicePixelRatio() * QPaintDevice::devicePixelRatioFScale()));
        }
        return 0;
    }

private:
    const QPaintDevice& m_like;
    mutable RecordingEngine m_engine;
};

} // namespace

QStringList drawnTexts(const QPaintDevice& like, const std::function<void(QPainter&)>& paint)
{
    RecordingDevice device(like);
    {
        QPainter painter(&device);
        paint(painter);
    }
    // Items that continue one another on the same baseline under the same transform were one string.
    QStringList texts;
    const DrawnItem* previous = nullptr;
    for (const DrawnItem& item : device.items()) {
        const bool continues = previous && previous->transform == item.transform &&
                               std::abs(previous->start.y() - item.start.y()) < 0.01 &&
                               std::abs(previous->start.x() + previous->width - item.start.x()) < 0.5;
        if (continues)
            texts.back() += item.text;
        else
            texts << item.text;
        previous = &item;
    }
    return texts;
}
