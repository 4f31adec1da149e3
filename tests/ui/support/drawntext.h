#pragma once

// The text a paint function draws on a given device, recorded instead of rasterised: a paint device that
// answers every metric (size, dpi, device pixel ratio) as the given one does, so the painter code measures,
// elides, drops and wraps its labels exactly as it would there, and whose engine keeps each drawn string.
// For the export tests: the PNG (an image at 96 dpi, device pixel ratio 1 or 2) and the PDF writer must
// draw the same labels.

#include <QPaintDevice>
#include <QPainter>
#include <QStringList>
#include <functional>

// One string per drawText call (the items of one line that Qt splits by font, e.g. for "α" or "⚓", are
// joined again), in drawing order.
QStringList drawnTexts(const QPaintDevice& like, const std::function<void(QPainter&)>& paint);
