#pragma once

#include "export/exportformat.h"
#include "io/outputfile.h"
#include "render/headgriddata.h"
#include "render/heatmapdata.h"
#include "render/heatmapgeometry.h"

#include <QByteArray>
#include <QRect>
#include <QSize>
#include <QString>
#include <functional>
#include <optional>
#include <utility>

class QPainter;
class QPaintDevice;
class QRectF;
class QFont;
class QFontMetricsF;

class QJsonObject;

namespace attnscope {

// Where an exported picture or matrix came from: written into JSON, and on every image as its stamp line.
struct ExportMetadata
{
    QString model;
    QString text;
    QString textB;
    QString measure; // what the values are ("attention weight α"); empty: not said
    int layer = -1;  // -1: not one head (the grid)
    int head = -1;
    QString heads; // with layer -1, the heads a view shows, as its stamp names them ("layer 0, head 1 + …")
    bool discountSpecial = false;

    // Nothing known: an image gets no stamp.
    bool isEmpty() const { return model.isEmpty() && text.isEmpty() && textB.isEmpty(); }
};

struct ExportOptions
{
    QSize size{900, 800};     // logical pixels; SVG and PDF pages are this size at 96 dpi
    double scaleFactor = 1.0; // PNG only: device pixels per logical pixel (2 = the same picture, sharper)
    bool overwrite = false;   // false: an existing file is left alone and the export fails
    // Numbers (CSV, JSON, npy) whose estimated size is above this are refused before they are built
    // (io/outputfile.h); images are bounded by kMaxExportSide instead.
    qint64 maxOutputBytes = kDefaultMaxOutputBytes;
    ExportMetadata metadata;
    // The zoomed view's visible cells (x = first key, y = first query, in matrix cells): images show that
    // region filling the plot, numbers hold its values. Empty: the whole matrix.
    QRect region;
    // Images carry a small line at the foot of the page saying what they show (model, text, measure,
    // head: stampText), so that a figure in a paper or a slide keeps its source. Off: the page is the
    // picture alone (--no-stamp, the window's "Stamp exports" setting).
    bool stamp = true;
};

struct ExportResult
{
    ExportResult() = default;
    ExportResult(bool ok, bool refusedExisting, QString error)
        : ok(ok), refusedExisting(refusedExisting), error(std::move(error))
    {}

    bool ok = false;
    bool refusedExisting = false; // the target existed and overwrite was false: nothing was written
    QString error;                // one line naming the file and the problem
    // Written, but not quite as asked: one line naming the file and what changed, for the user (e.g. a grid
    // page enlarged so that every head's number fits). Empty when there is nothing to say.
    QString notice;
};

// Writes what a view shows to PNG, SVG or PDF through the same painters as the screen (HeatmapPainter,
// HeadGridPainter), plus a legend line (colour map and scale); or the matrix itself as CSV, JSON or
// float32 .npy. Every file is written whole or not at all (io/outputfile.h): a failed export leaves no partial file.
class HeatmapExporter
{
public:
    HeatmapExporter(const HeatmapStyle& style, ExportOptions options);

    // data: the matrix (labels, flags and, for short inputs, every value). cells: for long inputs the block
    // of values the view shows (HeatmapPainter's `cells`: an exact tile or a pooled overview), else null.
    ExportResult exportHeatmap(const HeatmapData& data, const QString& path, const HeatmapData* cells = nullptr) const;
    ExportResult exportGrid(const HeadGridData& grid, const QString& path) const;

    // The pieces, public for the GUI and tests.
    void paintHeatmapPage(QPainter& painter, const QRectF& page, const HeatmapData& data, const HeatmapData* cells = nullptr) const;
    // Where paintHeatmapPage puts the cells on a page of the given device (for tests and picking).
    HeatmapGeometry heatmapPageGeometry(const QPaintDevice& device, const QRectF& page, const HeatmapData& data) const;
    void paintGridPage(QPainter& painter, const QRectF& page, const HeadGridData& grid) const;
    // The smallest grid page whose thumbnails carry every head's number (HeadGridPainter's minimumSlot): an
    // image export of the grid on a smaller page grows to it.
    QSize minimumGridPageSize(const HeadGridData& grid) const;
    QString legendText() const;
    // The stamp line fitted to `width` with `metrics`: "model · “text” · measure · layer 2, head 5", the text
    // elided first, then the whole line. "" when there is no stamp (options.stamp off, or nothing known).
    // heads: what to say of the heads instead of the metadata's (the grid page: "all heads").
    QString stampText(const QFontMetricsF& metrics, double width, const QString& heads = QString()) const;
    QFont stampFont(const QFont& base) const;
    bool hasStamp() const { return m_options.stamp && !m_options.metadata.isEmpty(); }
    // What is left of `page` for the picture above the stamp (the page itself without one), and the
    // stamp's line, inside the page's margin.
    QRectF contentRect(const QPaintDevice& device, const QRectF& page) const;
    void paintStamp(QPainter& painter, const QRectF& page, const QString& heads = QString()) const;
    // What every image page has around its plot: the stamp (heads as paintStamp takes it), the margins and
    // the legend line below; paintPlot draws the heatmap or the grid into the rectangle left for it.
    void paintPage(QPainter& painter, const QRectF& page, const QString& heads,
                   const std::function<void(const QRectF& plot)>& paintPlot) const;
    // The numbers of the region (or the whole matrix) as one dense block with its labels.
    HeatmapData regionValues(const HeatmapData& data, const HeatmapData* cells, QString* error) const;
    QByteArray heatmapCsv(const HeatmapData& block) const;
    QByteArray heatmapJson(const HeatmapData& block) const;
    QByteArray heatmapNpy(const HeatmapData& block) const;
    QByteArray gridCsv(const HeadGridData& grid) const;
    QByteArray gridJson(const HeadGridData& grid) const;
    QByteArray gridNpy(const HeadGridData& grid) const;

    // Any view's own paint code onto PNG, SVG or PDF (format from path's suffix) at options.size, written
    // atomically like the heatmap. paint gets the page rect in logical pixels; description goes into the SVG.
    using PagePainter = std::function<void(QPainter&, const QRectF&)>;
    ExportResult exportView(const QString& path, const QString& title, const QString& description, const PagePainter& paint) const;

    // Checks the size against 1..kMaxExportSide (after the scale factor); empty when fine.
    static QString sizeError(QSize size, double scaleFactor);
    // Written under the output policy (io/outputfile.h): atomic, a new regular file or, with overwrite, over
    // a regular one; devices, FIFOs and folders refused.
    static ExportResult writeAtomically(const QString& path, const QByteArray& bytes, bool overwrite);
    // An upper bound of a numbers export's size: `values` weights, their labels' UTF-8 bytes; grid: the long
    // CSV format / compact JSON of exportGrid. 0 for images.
    static qint64 estimatedBytes(ExportFormat format, qint64 values, qint64 labelBytes, bool grid);
    static qint64 estimatedGridBytes(const HeadGridData& grid, ExportFormat format);

private:
    QJsonObject metadataJson() const;
    // The policy's verdict on the target, before anything is painted or built: ok, or why not.
    ExportResult checkTarget(const QString& path) const;
    ExportResult checkPage(QSize size, ExportFormat format, const QString& path) const;
    static ExportResult unknownFormat(const QString& path);
    // Before a heatmap's or a grid's export to `path`: its *format (none when unknown), then the verdicts of
    // checkTarget and, for an image, of checkPage at the options' size. Ok, or the first refusal.
    ExportResult checkOutput(const QString& path, std::optional<ExportFormat>* format) const;
    // pageSize: the page's size when not the options' (invalid: the options').
    ExportResult exportImage(ExportFormat format, const QString& path, const QString& title,
                             const QString& description, const PagePainter& paint, QSize pageSize = {}) const;

    HeatmapStyle m_style;
    ExportOptions m_options;
};

} // namespace attnscope
