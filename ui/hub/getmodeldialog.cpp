#include "hub/getmodeldialog.h"

#include "hub/hubdownloadflow.h"
#include "model/memoryestimate.h"

#include <QDialogButtonBox>
#include <QDir>
#include <QEvent>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace attnscope {

namespace {
constexpr int kPathRole = Qt::UserRole + 1;
constexpr int kHeightWithFiles = 460;

// "~/.cache/huggingface/hub" rather than the home folder's full path.
QString homeShortened(const QString& path)
{
    const QString home = QDir::homePath();
    if (path == home) return QStringLiteral("~");
    if (path.startsWith(home + QLatin1Char('/'))) return QStringLiteral("~") + path.mid(home.size());
    return path;
}
} // namespace

GetModelDialog::GetModelDialog(const hub::HubSettings& settings, QWidget* parent)
    : QDialog(parent), m_flow(new HubDownloadFlow(settings, this))
{
    setObjectName(QStringLiteral("getModelDialog"));
    auto* layout = new QVBoxLayout(this);
    m_intro = new QLabel(this);
    m_intro->setWordWrap(true);
    layout->addWidget(m_intro);

    auto* form = new QFormLayout;
    m_repo = new QLineEdit(this);
    m_repo->setObjectName(QStringLiteral("repo"));
    m_revision = new QLineEdit(this);
    m_revision->setObjectName(QStringLiteral("revision"));
    m_repoLabel = new QLabel(this);
    m_revisionLabel = new QLabel(this);
    form->addRow(m_repoLabel, m_repo);
    form->addRow(m_revisionLabel, m_revision);
    layout->addLayout(form);

    m_filesLabel = new QLabel(this);
    layout->addWidget(m_filesLabel);
    m_files = new QTreeWidget(this);
    m_files->setObjectName(QStringLiteral("ggufFiles"));
    m_files->setColumnCount(2);
    m_files->setRootIsDecorated(false);
    m_files->header()->setStretchLastSection(false);
    m_files->header()->setSectionResizeMode(0, QHeaderView::Stretch);
    m_files->header()->setSectionResizeMode(1, QHeaderView::ResizeToContents);
    layout->addWidget(m_files, 1);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000); // per mille: byte counts pass int's range
    m_progress->setTextVisible(false);
    layout->addWidget(m_progress);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("status"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_status);
    layout->addStretch(1); // the room left goes below the line, not between the rows

    auto* buttons = new QDialogButtonBox(this);
    m_download = buttons->addButton(QString(), QDialogButtonBox::AcceptRole);
    m_download->setObjectName(QStringLiteral("download"));
    m_cancel = buttons->addButton(QString(), QDialogButtonBox::ActionRole);
    m_cancel->setObjectName(QStringLiteral("cancelDownload"));
    m_close = buttons->addButton(QString(), QDialogButtonBox::RejectRole); // its text is ours: translated
    layout->addWidget(buttons);

    // Not accept(): the dialog stays open through the download and after it.
    connect(m_download, &QPushButton::clicked, this, &GetModelDialog::startOrChoose);
    connect(m_cancel, &QPushButton::clicked, m_flow, &HubDownloadFlow::cancel);
    connect(m_close, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_repo, &QLineEdit::textEdited, this, [this] {
        m_ggufFile.clear(); // another repo: its file is chosen from its own list
        updateView();
    });
    connect(m_revision, &QLineEdit::textEdited, this, &GetModelDialog::updateView);
    connect(m_files, &QTreeWidget::itemSelectionChanged, this, &GetModelDialog::updateView);
    connect(m_files, &QTreeWidget::itemDoubleClicked, this, &GetModelDialog::startOrChoose);
    connect(m_flow, &HubDownloadFlow::changed, this, [this] {
        if (m_flow->state() == HubDownloadFlow::State::ChoosingFile) fillFiles();
        updateView();
    });
    connect(m_flow, &HubDownloadFlow::modelReady, this, &GetModelDialog::modelReady);
    retranslate();
    resize(680, 250); // grows when a file list shows (updateView)
}

void GetModelDialog::prefill(const QString& repoId, const QString& ggufFile)
{
    if (m_flow->state() == HubDownloadFlow::State::Listing ||
        m_flow->state() == HubDownloadFlow::State::Downloading)
        return; // a download is running: it is not replaced under the user's eyes
    m_repo->setText(repoId);
    m_revision->clear();
    m_ggufFile = ggufFile;
    m_files->clear();
    updateView();
}

void GetModelDialog::present(const QString& repoId, const QString& ggufFile)
{
    if (!repoId.isEmpty()) prefill(repoId, ggufFile);
    show();
    raise();
    activateWindow();
}

void GetModelDialog::startOrChoose()
{
    if (m_flow->state() == HubDownloadFlow::State::ChoosingFile) {
        const auto selected = m_files->selectedItems();
        if (!selected.isEmpty()) m_flow->chooseFile(selected.front()->data(0, kPathRole).toString());
        return;
    }
    m_files->clear();
    m_flow->start(m_repo->text(), m_revision->text(), m_ggufFile);
}

void GetModelDialog::fillFiles()
{
    m_files->clear();
    const QLocale locale;
    for (const hub::HubFile& file : m_flow->choices()) {
        auto* item = new QTreeWidgetItem(
            m_files, {file.path, file.size >= 0 ? formatBytes(file.size, locale) : QStringLiteral("?")});
        item->setData(0, kPathRole, file.path);
        item->setTextAlignment(1, Qt::AlignRight | Qt::AlignVCenter);
    }
}

void GetModelDialog::updateView()
{
    using State = HubDownloadFlow::State;
    const State state = m_flow->state();
    const bool busy = state == State::Listing || state == State::Downloading;
    const bool choosing = state == State::ChoosingFile;
    m_repo->setEnabled(!busy);
    m_revision->setEnabled(!busy);
    m_cancel->setEnabled(busy);
    m_filesLabel->setVisible(choosing);
    m_files->setVisible(choosing);
    if (choosing && height() < kHeightWithFiles) resize(width(), kHeightWithFiles);
    m_progress->setVisible(busy || state == State::Done);
    if (state == State::Downloading && m_flow->bytesTotal() > 0)
        m_progress->setValue(int(1000 * m_flow->bytesDone() / m_flow->bytesTotal()));
    else if (state == State::Done)
        m_progress->setValue(1000);
    else
        m_progress->setValue(0);
    // What is typed is checked as it is typed: a bad name never reaches the network.
    const QString problem = HubDownloadFlow::requestProblem(m_repo->text(), m_revision->text());
    const bool typedAnother = m_repo->text().trimmed() != m_flow->repoId();
    const bool fresh = typedAnother || (state == State::Idle && m_flow->message().isEmpty());
    if (!busy && !problem.isEmpty() && !m_repo->text().isEmpty())
        m_status->setText(problem);
    else if (!busy && fresh && problem.isEmpty())
        m_status->setText(tr("Press Download to fetch %1.").arg(m_repo->text().trimmed()));
    else if (!busy && typedAnother)
        m_status->setText(HubDownloadFlow::tr("Type a Hugging Face repository id and press Download."));
    else
        m_status->setText(m_flow->statusText());
    m_download->setEnabled(!busy && problem.isEmpty() &&
                           (!choosing || typedAnother || !m_files->selectedItems().isEmpty()));
}

void GetModelDialog::retranslate()
{
    setWindowTitle(tr("Get a model"));
    m_intro->setText(tr("Download a model from the Hugging Face Hub into its cache (%1), shared with Python "
                        "tools. Only what a run needs is fetched: config.json, the tokenizer and the "
                        "safetensors weights, or the one GGUF file you choose.")
                         .arg(QDir::toNativeSeparators(homeShortened(m_flow->settings().cacheDir))));
    m_repoLabel->setText(tr("Repository:"));
    m_repo->setPlaceholderText(tr("org/name, e.g. HuggingFaceTB/SmolLM2-360M"));
    m_revisionLabel->setText(tr("Revision:"));
    m_revision->setPlaceholderText(tr("main (a branch, tag or commit)"));
    m_filesLabel->setText(tr("The repository holds several GGUF files; choose one:"));
    m_files->setHeaderLabels({tr("File"), tr("Size")});
    m_download->setText(tr("Download"));
    m_cancel->setText(tr("Cancel download"));
    m_close->setText(tr("Close"));
    fillFiles();
    updateView();
}

void GetModelDialog::changeEvent(QEvent* event)
{
    if (event->type() == QEvent::LanguageChange) retranslate();
    QDialog::changeEvent(event);
}

} // namespace attnscope
