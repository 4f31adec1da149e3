#include "mainmenus.h"

#include "examplechoice.h"
#include "explorer/explorersession.h"
#include "explorer/heatmaptab.h"
#include "explorer/heatmapwidget.h"
#include "explorer/retranslation.h"
#include "lesson/lessonlauncher.h"
#include "mainwindow.h"

#include <QAction>
#include <QActionGroup>
#include <QCheckBox>
#include <QFileDialog>
#include <QMenu>
#include <QMenuBar>

namespace attnscope {

MainMenus::MainMenus(MainWindow* window, QAction* openInLesson)
    : QObject(window), m_window(window), m_retranslation(new Retranslation(window))
{
    buildFileMenu();
    buildExamplesMenu();
    buildViewMenu();
    QMenuBar* bar = m_window->menuBar();
    m_lessonMenu = bar->addMenu(QString());
    m_lessonMenu->setObjectName(QStringLiteral("lessonMenu"));
    m_lessons = new LessonLauncher(m_window, m_lessonMenu, openInLesson);
    m_exportMenu = bar->addMenu(QString());
    m_exportMenu->setObjectName(QStringLiteral("exportMenu"));
    m_languageMenu = bar->addMenu(QString());
    m_languageMenu->setObjectName(QStringLiteral("languageMenu"));
    m_retranslation->add([this] {
        m_exportMenu->setTitle(tr("E&xport"));
        m_languageMenu->setTitle(tr("&Language"));
    });
    connect(m_window->session(), &ExplorerSession::backendChanged, this, &MainMenus::showBackendChoice);
}

void MainMenus::buildFileMenu()
{
    MainWindow* window = m_window;
    QMenu* file = window->menuBar()->addMenu(QString());
    m_retranslation->add([file] { file->setTitle(tr("&File")); });
    QAction* openAction = file->addAction(QString(), window, [window] {
        const QString dir = QFileDialog::getExistingDirectory(window, tr("Open model folder"));
        if (!dir.isEmpty()) window->openModelFolder(dir);
    });
    QAction* openGgufAction = file->addAction(QString(), window, &MainWindow::openGgufFile);
    QAction* getModelAction = file->addAction(QString(), window, [window] { window->openGetModelDialog(); });
    getModelAction->setObjectName(QStringLiteral("getModel"));
    m_retranslation->add([getModelAction] { getModelAction->setText(tr("Get a model…")); });
    openGgufAction->setObjectName(QStringLiteral("openGguf"));
    QAction* addFolderAction = file->addAction(QString(), window, [window] {
        const QString dir =
            QFileDialog::getExistingDirectory(window, tr("Add a folder of models to the list"));
        if (!dir.isEmpty()) window->addModelListFolder(dir);
    });
    addFolderAction->setObjectName(QStringLiteral("addModelListFolder"));
    QAction* censusAction = file->addAction(QString(), window, [window] { window->openCorpusCensus(); });
    censusAction->setObjectName(QStringLiteral("corpusCensus"));
    m_retranslation->add([censusAction] { censusAction->setText(tr("Corpus census…")); });
    file->addSeparator();
    QAction* quitAction = file->addAction(QString(), QKeySequence::Quit, window, &QWidget::close);
    m_retranslation->add([openAction, openGgufAction, addFolderAction, quitAction] {
        openAction->setText(tr("Open model folder…"));
        openGgufAction->setText(tr("Open GGUF file…"));
        addFolderAction->setText(tr("Add folder to the model list (GGUF files, model folders)…"));
        quitAction->setText(tr("Quit"));
    });
}

void MainMenus::buildExamplesMenu()
{
    MainWindow* window = m_window;
    QMenu* examples = window->menuBar()->addMenu(QString());
    examples->setObjectName(QStringLiteral("examplesMenu"));
    for (const ExampleText& example : attnscope::examples()) {
        QAction* action =
            examples->addAction(example.text, window, [window, example] { openExample(*window, example); });
        if (example.needsDecoder)
            m_retranslation->add([action] {
                action->setText(tr("Long paragraph (attention sinks; opens on a decoder)"));
                action->setToolTip(tr("Attention sinks are a decoder's, and the paragraph is longer than "
                                      "the built-in encoder takes: it runs on a decoder"));
            });
    }
    examples->setToolTipsVisible(true);
    m_retranslation->add([examples] { examples->setTitle(tr("E&xamples")); });
}

void MainMenus::buildViewMenu()
{
    MainWindow* window = m_window;
    m_viewMenu = window->menuBar()->addMenu(QString());
    m_viewMenu->setObjectName(QStringLiteral("viewMenu"));
    QAction* fitAction = m_viewMenu->addAction(QString(), QKeySequence(Qt::CTRL | Qt::Key_0),
                                               window->heatmap(), &HeatmapWidget::fitToView);
    QAction* discount = m_viewMenu->addAction(QString());
    m_retranslation->add([this, fitAction, discount] {
        m_viewMenu->setTitle(tr("&View"));
        fitAction->setText(tr("Fit heatmap"));
        discount->setText(tr("Discount special tokens"));
    });
    discount->setCheckable(true);
    QCheckBox* discountBox = window->heatmapTab()->discountBox();
    connect(discount, &QAction::toggled, discountBox, &QCheckBox::setChecked);
    connect(discountBox, &QCheckBox::toggled, discount, &QAction::setChecked);

    // View > Compute backend: where real models compute attention.
    m_computeMenu = m_viewMenu->addMenu(QString());
    m_computeMenu->setObjectName(QStringLiteral("computeMenu"));
    auto* backends = new QActionGroup(m_computeMenu);
    for (const BackendKind kind :
         {BackendKind::Auto, BackendKind::Cpu, BackendKind::Vulkan, BackendKind::OpenGL}) {
        QAction* action = m_computeMenu->addAction(QString(), window, [window, kind] {
            if (kind != window->session()->backendChoice()) window->setComputeBackend(kind);
        });
        action->setObjectName(QStringLiteral("backend-") + backendKindName(kind));
        action->setData(int(kind));
        action->setCheckable(true);
        backends->addAction(action);
        m_retranslation->add([action, kind] {
            switch (kind) {
            case BackendKind::Auto:
                action->setText(tr("Auto (a hardware GPU if there is one, else the CPU)"));
                break;
            case BackendKind::Cpu:
                action->setText(tr("CPU"));
                break;
            case BackendKind::Vulkan:
                action->setText(QStringLiteral("Vulkan"));
                break;
            case BackendKind::OpenGL:
                action->setText(QStringLiteral("OpenGL"));
                break;
            }
        });
    }
    m_retranslation->add([this] { m_computeMenu->setTitle(tr("Compute backend")); });
}

void MainMenus::showBackendChoice()
{
    for (QAction* action : m_computeMenu->actions())
        if (action->data().toInt() == int(m_window->session()->backendChoice())) action->setChecked(true);
}

} // namespace attnscope
