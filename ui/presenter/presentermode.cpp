#include "presenter/presentermode.h"

#include "explorer/headheatmap.h"
#include "presenter/presenterbar.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QEvent>
#include <QLabel>
#include <QMainWindow>
#include <QMenu>
#include <QWidget>

namespace attnscope {

PresenterMode::PresenterMode(QMainWindow* window) : QObject(window), m_window(window), m_watched(window)
{
    m_toggle = new QAction(this);
    m_toggle->setObjectName(QStringLiteral("presenterModeAction"));
    m_toggle->setCheckable(true);
    m_toggle->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_P));
    connect(m_toggle, &QAction::toggled, this, &PresenterMode::setActive);

    m_fullScreen = new QAction(this);
    m_fullScreen->setObjectName(QStringLiteral("fullScreenAction"));
    m_fullScreen->setCheckable(true);
    m_fullScreen->setShortcut(QKeySequence(Qt::Key_F11));
    connect(m_fullScreen, &QAction::toggled, this, &PresenterMode::setFullScreen);

    auto makeStep = [this](QAction*& action, const char* name, QKeySequence key, bool layer, int delta) {
        action = new QAction(this);
        action->setObjectName(QLatin1String(name));
        action->setShortcut(key);
        action->setShortcutContext(Qt::WindowShortcut);
        connect(action, &QAction::triggered, this, [this, layer, delta] { step(layer, delta); });
        m_stepActions << action;
    };
    // Page Down/Up are what classroom clickers send.
    makeStep(m_nextHead, "nextHeadAction", QKeySequence(Qt::Key_PageDown), false, +1);
    makeStep(m_previousHead, "previousHeadAction", QKeySequence(Qt::Key_PageUp), false, -1);
    makeStep(m_nextLayer, "nextLayerAction", QKeySequence(Qt::CTRL | Qt::Key_PageDown), true, +1);
    makeStep(m_previousLayer, "previousLayerAction", QKeySequence(Qt::CTRL | Qt::Key_PageUp), true, -1);
    // Views (the window's tabs): Alt+Page Down/Up, free in the text field, unlike Shift (selection).
    auto makeViewStep = [this](QAction*& action, const char* name, QKeySequence key, int delta) {
        action = new QAction(this);
        action->setObjectName(QLatin1String(name));
        action->setShortcut(key);
        action->setShortcutContext(Qt::WindowShortcut);
        connect(action, &QAction::triggered, this, [this, delta] { Q_EMIT viewStepped(delta); });
        m_stepActions << action;
    };
    makeViewStep(m_nextView, "nextViewAction", QKeySequence(Qt::ALT | Qt::Key_PageDown), +1);
    makeViewStep(m_previousView, "previousViewAction", QKeySequence(Qt::ALT | Qt::Key_PageUp), -1);
    if (m_window) {
        m_window->addAction(m_toggle);
        m_window->addAction(m_fullScreen);
        m_window->addActions(m_stepActions);
    }

    // One strip under the view: the sentence, the head and the read-out side by side, so that the view
    // keeps the screen's height.
    m_bar = new PresenterBar(m_previousHead, m_nextHead);
    m_readout = m_bar->readout();
    connect(m_bar, &PresenterBar::textEntered, this, &PresenterMode::textEntered);
    m_dock = new QDockWidget(m_window);
    m_dock->setObjectName(QStringLiteral("presenterReadoutDock"));
    m_dock->setWidget(m_bar);
    m_dock->setFeatures(QDockWidget::DockWidgetMovable);
    m_dock->setTitleBarWidget(new QWidget(m_dock)); // no "Read-out" bar: the screen is for the heatmap
    if (m_window) {
        m_window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
        m_window->installEventFilter(this);
    }
    m_dock->hide();

    m_examples = new QMenu(m_window);
    m_examples->setObjectName(QStringLiteral("presenterExamplesMenu"));
    m_examples->setToolTipsVisible(true);
    m_bar->setExamplesMenu(m_examples);
    retranslate();
}

QPalette PresenterMode::highContrastPalette()
{
    // White on black with yellow selection: readable from the back of a lit room (WCAG contrast 21:1).
    QPalette p;
    const QColor black(0, 0, 0), white(255, 255, 255), yellow(255, 221, 0), grey(160, 160, 160);
    for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive}) {
        p.setColor(group, QPalette::Window, black);
        p.setColor(group, QPalette::WindowText, white);
        p.setColor(group, QPalette::Base, black);
        p.setColor(group, QPalette::AlternateBase, QColor(30, 30, 30));
        p.setColor(group, QPalette::Text, white);
        p.setColor(group, QPalette::Button, QColor(20, 20, 20));
        p.setColor(group, QPalette::ButtonText, white);
        p.setColor(group, QPalette::Highlight, yellow);
        p.setColor(group, QPalette::HighlightedText, black);
        p.setColor(group, QPalette::ToolTipBase, yellow);
        p.setColor(group, QPalette::ToolTipText, black);
        p.setColor(group, QPalette::BrightText, yellow);
        p.setColor(group, QPalette::Link, yellow);
        p.setColor(group, QPalette::PlaceholderText, grey);
    }
    p.setColor(QPalette::Disabled, QPalette::WindowText, grey);
    p.setColor(QPalette::Disabled, QPalette::Text, grey);
    p.setColor(QPalette::Disabled, QPalette::ButtonText, grey);
    p.setColor(QPalette::Disabled, QPalette::Window, black);
    p.setColor(QPalette::Disabled, QPalette::Base, black);
    return p;
}

bool PresenterMode::showsWords(int tokens)
{
    return tokens > kPieceLabelLimit && tokens <= kDenseHeatmapLimit;
}

HeatmapStyle PresenterMode::presenterStyle(HeatmapStyle base)
{
    base.minimumLabelPixels = kMinimumLabelPixels;
    base.fontPointSize *= kFontScale;
    base.lineWidth = std::max(2.0, base.lineWidth * 3.0);
    base.showColorBar = true;
    base.dark = true;         // the same black page as the rest of the window
    base.stretchCells = true; // a wide projector screen: cells fill it rather than stay square
    return base;
}

void PresenterMode::setActive(bool active)
{
    if (!m_window || active == m_active) return;
    m_active = active;
    if (active) {
        m_savedPalette = m_window->palette();
        m_savedFont = m_window->font();
        m_wasFullScreen = m_window->isFullScreen();
        // The window first drops what the classroom screen does not show (the input bar, the grid...):
        // with those still there the large fonts make its minimum taller than a 1280×800 screen, and the
        // window grows past the screen's bottom edge and stays so.
        m_toggle->setChecked(true);
        Q_EMIT activeChanged(true);
        QFont font = m_savedFont;
        font.setPointSizeF(font.pointSizeF() * kFontScale);
        m_window->setFont(font);
        m_window->setPalette(highContrastPalette());
        // The style draws a check box's frame a shade darker than the window: on black, black on black.
        // The check boxes get a light "window" colour, which only that frame is drawn from (they fill no
        // background), so the box shows in light grey around the black field.
        for (QCheckBox* box : m_window->findChildren<QCheckBox*>()) {
            QPalette palette = box->palette();
            for (QPalette::ColorGroup group : {QPalette::Active, QPalette::Inactive})
                palette.setColor(group, QPalette::Window, QColor(240, 240, 240));
            palette.setColor(QPalette::Disabled, QPalette::Window, QColor(160, 160, 160));
            box->setPalette(palette);
        }
        m_dock->show();
        setFullScreen(true);
        return;
    }
    for (QCheckBox* box : m_window->findChildren<QCheckBox*>())
        box->setPalette(QPalette()); // inherit the window's again
    m_window->setPalette(m_savedPalette);
    m_window->setFont(m_savedFont);
    m_dock->hide();
    setFullScreen(m_wasFullScreen);
    m_toggle->setChecked(false);
    Q_EMIT activeChanged(false);
}

void PresenterMode::setFullScreen(bool on)
{
    if (!m_window) return;
    if (on && !m_window->isFullScreen())
        m_window->showFullScreen();
    else if (!on && m_window->isFullScreen())
        m_window->showNormal();
    m_fullScreen->setChecked(on);
}

void PresenterMode::showReadout(const QString& text)
{
    m_readout->setText(text);
}

void PresenterMode::setExamples(const QStringList& sentences, const QStringList& titles)
{
    m_examples->clear();
    for (qsizetype i = 0; i < sentences.size(); ++i) {
        const QString& sentence = sentences.at(i);
        const QString title = titles.value(i);
        QAction* action = m_examples->addAction(title.isEmpty() ? sentence : title);
        if (!title.isEmpty()) action->setToolTip(sentence);
        action->setData(sentence);
        connect(action, &QAction::triggered, this, [this, sentence] { Q_EMIT exampleChosen(sentence); });
    }
}

void PresenterMode::step(bool layer, int delta)
{
    if (!m_cursor.isValid()) return;
    if (layer)
        m_cursor.stepLayer(delta);
    else
        m_cursor.stepHead(delta);
    m_bar->setHead(m_cursor.layer(), m_cursor.head());
    Q_EMIT headChanged(m_cursor.layer(), m_cursor.head());
}

void PresenterMode::setHeadCursor(const HeadCursor& cursor)
{
    m_cursor = cursor;
    if (m_cursor.isValid()) m_bar->setHead(m_cursor.layer(), m_cursor.head());
}

bool PresenterMode::eventFilter(QObject* watched, QEvent* event)
{
    if (watched == m_watched && event->type() == QEvent::LanguageChange) retranslate();
    return QObject::eventFilter(watched, event);
}

void PresenterMode::retranslate()
{
    m_toggle->setText(tr("&Presenter mode"));
    m_toggle->setToolTip(tr("Large fonts, high contrast and full screen for teaching with a projector"));
    m_fullScreen->setText(tr("&Full screen"));
    m_nextHead->setText(tr("Next head"));
    m_previousHead->setText(tr("Previous head"));
    m_nextLayer->setText(tr("Next layer"));
    m_previousLayer->setText(tr("Previous layer"));
    m_nextView->setText(tr("Next view"));
    m_previousView->setText(tr("Previous view"));
    m_bar->retranslate();
    m_dock->setWindowTitle(tr("Read-out"));
    m_examples->setTitle(tr("&Examples"));
}

} // namespace attnscope
