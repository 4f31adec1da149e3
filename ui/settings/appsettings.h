#pragma once

#include "explorer/attentionengine.h"
#include "render/colormap.h"
#include "render/heatmapdata.h"
#include "settings/savedsession.h"

#include <QSettings>
#include <QString>
#include <QStringList>
#include <memory>

class QMainWindow;

namespace attnscope {

// What AttnScope remembers between runs: the last session (model, texts, tab, head), recent models,
// colour map, scale, measure, language and the window layout. A thin typed layer over QSettings (the platform's place
// by default, or a given QSettings, e.g. an .ini file in tests), so keys and defaults live in one place.
class AppSettings
{
public:
    AppSettings();                                   // QSettings() of the application
    explicit AppSettings(std::unique_ptr<QSettings> settings);

    static constexpr int kMaxRecentModels = 10; // same key and limit as ModelCatalog::recent()

    QString lastModel() const; // the last session's model (explorerModelKey)
    // Also puts the model first in the recent list.
    void setLastModel(const QString& model);
    QStringList recentModels() const; // most recent first, no duplicates
    void addRecentModel(const QString& model);
    void clearRecentModels();

    ColorMapKind colorMap() const; // viridis unless set
    void setColorMap(ColorMapKind kind);
    HeatmapScale scale() const;    // absolute unless set
    void setScale(HeatmapScale scale);

    // The explorer's Measure switch: weight α unless set; stored as `attention --measure` names it
    // ("weight", "norm").
    AttentionMeasure measure() const;
    void setMeasure(AttentionMeasure measure);

    QString language() const;      // "en", "tr", or empty for the system's language
    void setLanguage(const QString& code);

    // The explorer's last model, texts, tab and head (restored at start by app/main.cpp).
    SavedSession explorerSession() const { return SavedSession::load(*m_settings); }
    void setExplorerSession(const SavedSession& session) { session.save(*m_settings); }

    // The first start's hint (what to do first) was closed for good.
    bool firstRunHintDismissed() const;
    void setFirstRunHintDismissed(bool dismissed);

    bool presenterMode() const;
    void setPresenterMode(bool on);

    // Exported images carry their stamp line (model, text, measure, head); on unless turned off.
    bool exportStamp() const;
    void setExportStamp(bool on);

    // Where the explorer computes attention: "auto" (default), "cpu", "vulkan" or "opengl".
    QString computeBackend() const;
    void setComputeBackend(const QString& name);

    // Geometry and dock/toolbar state of a main window, under its objectName.
    void saveWindow(const QMainWindow& window);
    bool restoreWindow(QMainWindow& window) const;

    QSettings& settings() { return *m_settings; }
    void sync() { m_settings->sync(); }

private:
    std::unique_ptr<QSettings> m_settings;
};

} // namespace attnscope
