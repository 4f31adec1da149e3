#include "settings/appsettings.h"

#include "backend/attentionbackend.h"

#include <QMainWindow>

namespace attnscope {

namespace {
const QString kLastModel = QStringLiteral("models/last");
const QString kRecentModels = QStringLiteral("models/recent");
const QString kColorMap = QStringLiteral("view/colorMap");
const QString kScale = QStringLiteral("view/scale");
const QString kMeasure = QStringLiteral("view/measure");
const QString kLanguage = QStringLiteral("ui/language");
const QString kPresenter = QStringLiteral("ui/presenterMode");
const QString kExportStamp = QStringLiteral("export/stamp");
const QString kComputeBackend = QStringLiteral("ui/computeBackend");
const QString kFirstRunHintDismissed = QStringLiteral("ui/firstRunHintDismissed");

QString windowKey(const QMainWindow& window, const char* what)
{
    const QString name = window.objectName().isEmpty() ? QStringLiteral("mainWindow") : window.objectName();
    return QStringLiteral("windows/%1/%2").arg(name, QLatin1String(what));
}
} // namespace

AppSettings::AppSettings() : m_settings(std::make_unique<QSettings>()) {}

AppSettings::AppSettings(std::unique_ptr<QSettings> settings) : m_settings(std::move(settings)) {}

QString AppSettings::lastModel() const
{
    return m_settings->value(kLastModel).toString();
}

void AppSettings::setLastModel(const QString& model)
{
    m_settings->setValue(kLastModel, model);
    addRecentModel(model);
}

QStringList AppSettings::recentModels() const
{
    return m_settings->value(kRecentModels).toStringList();
}

void AppSettings::addRecentModel(const QString& model)
{
    if (model.isEmpty())
        return;
    QStringList recent = recentModels();
    recent.removeAll(model);
    recent.prepend(model);
    while (recent.size() > kMaxRecentModels)
        recent.removeLast();
    m_settings->setValue(kRecentModels, recent);
}

void AppSettings::clearRecentModels()
{
    m_settings->remove(kRecentModels);
}

ColorMapKind AppSettings::colorMap() const
{
    return colorMapFromName(m_settings->value(kColorMap).toString()).value_or(ColorMapKind::Viridis);
}

void AppSettings::setColorMap(ColorMapKind kind)
{
    m_settings->setValue(kColorMap, colorMapName(kind));
}

HeatmapScale AppSettings::scale() const
{
    const QString name = m_settings->value(kScale).toString();
    for (HeatmapScale s : {HeatmapScale::Absolute, HeatmapScale::RowMax, HeatmapScale::Log})
        if (heatmapScaleName(s) == name)
            return s;
    return HeatmapScale::Absolute;
}

void AppSettings::setScale(HeatmapScale scale)
{
    m_settings->setValue(kScale, heatmapScaleName(scale));
}

AttentionMeasure AppSettings::measure() const
{
    // Anything else (an older or hand-edited file) reads as the weights.
    return m_settings->value(kMeasure).toString() == QLatin1String("norm") ? AttentionMeasure::Contribution
                                                                           : AttentionMeasure::Weight;
}

void AppSettings::setMeasure(AttentionMeasure measure)
{
    m_settings->setValue(kMeasure, measure == AttentionMeasure::Contribution ? QStringLiteral("norm")
                                                                             : QStringLiteral("weight"));
}

QString AppSettings::language() const
{
    return m_settings->value(kLanguage).toString();
}

void AppSettings::setLanguage(const QString& code)
{
    if (code.isEmpty())
        m_settings->remove(kLanguage);
    else
        m_settings->setValue(kLanguage, code);
}

bool AppSettings::firstRunHintDismissed() const
{
    return m_settings->value(kFirstRunHintDismissed, false).toBool();
}

void AppSettings::setFirstRunHintDismissed(bool dismissed)
{
    m_settings->setValue(kFirstRunHintDismissed, dismissed);
}

bool AppSettings::presenterMode() const
{
    return m_settings->value(kPresenter, false).toBool();
}

void AppSettings::setPresenterMode(bool on)
{
    m_settings->setValue(kPresenter, on);
}

bool AppSettings::exportStamp() const
{
    return m_settings->value(kExportStamp, true).toBool();
}

void AppSettings::setExportStamp(bool on)
{
    m_settings->setValue(kExportStamp, on);
}

QString AppSettings::computeBackend() const
{
    // Anything unknown (an older or hand-edited file) reads as auto.
    BackendKind kind = BackendKind::Auto;
    parseBackendKind(m_settings->value(kComputeBackend).toString(), &kind);
    return backendKindName(kind);
}

void AppSettings::setComputeBackend(const QString& name)
{
    m_settings->setValue(kComputeBackend, name);
}

void AppSettings::saveWindow(const QMainWindow& window)
{
    m_settings->setValue(windowKey(window, "geometry"), window.saveGeometry());
    m_settings->setValue(windowKey(window, "state"), window.saveState());
}

bool AppSettings::restoreWindow(QMainWindow& window) const
{
    const QByteArray geometry = m_settings->value(windowKey(window, "geometry")).toByteArray();
    const QByteArray state = m_settings->value(windowKey(window, "state")).toByteArray();
    bool restored = false;
    if (!geometry.isEmpty())
        restored = window.restoreGeometry(geometry);
    if (!state.isEmpty())
        restored = window.restoreState(state) || restored;
    return restored;
}

} // namespace attnscope
