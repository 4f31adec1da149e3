#include "census/corpuswindow.h"

#include "census/censusviews.h"
#include "census/corpusreader.h"
#include "census/headmap.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSplitter>
#include <QStandardPaths>
#include <QVBoxLayout>

namespace attnscope {

namespace {
constexpr int kLineRole = Qt::UserRole + 1;

QString duration(double seconds)
{
    if (seconds < 0) return QStringLiteral("?");
    const int s = int(seconds + 0.5);
    return s >= 60 ? QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60) : QStringLiteral("%1 s").arg(s);
}
} // namespace

CorpusWindow::CorpusWindow(const QString& modelFolder, QWidget* parent)
    : QWidget(parent, Qt::Window), m_modelFolder(modelFolder)
{
    setWindowTitle(tr("Corpus census — %1").arg(QFileInfo(modelFolder).fileName()));
    auto* layout = new QVBoxLayout(this);
    auto* bar = new QHBoxLayout;
    m_open = new QPushButton(tr("Open text file…"), this);
    m_pairsBox = new QCheckBox(tr("Sentence pairs"), this);
    m_cancelButton = new QPushButton(tr("Cancel"), this);
    m_cancelButton->setEnabled(false);
    m_resumeButton = new QPushButton(tr("Resume"), this);
    m_resumeButton->setEnabled(false);
    m_resumeButton->setToolTip(tr("Continue the cancelled census from where it stopped"));
    m_openSaved = new QPushButton(tr("Resume saved…"), this);
    m_openSaved->setToolTip(tr("Continue or show a saved census (this window's or attnscope census's "
                               "census.json)"));
    m_resultDirectory = QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
                            .filePath(QStringLiteral("census"));
    m_metricBox = new QComboBox(this);
    for (CensusMetric metric : allCensusMetrics())
        m_metricBox->addItem(censusMetricTitle(metric), censusMetricId(metric));
    m_metricBox->setCurrentIndex(int(CensusMetric::Sep));
    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1000);
    bar->addWidget(m_open);
    bar->addWidget(m_pairsBox);
    bar->addWidget(m_cancelButton);
    bar->addWidget(m_resumeButton);
    bar->addWidget(m_openSaved);
    bar->addWidget(new QLabel(tr("Colour by:"), this));
    bar->addWidget(m_metricBox);
    bar->addWidget(m_progress, 1);
    layout->addLayout(bar);
    m_statusLabel =
        new QLabel(tr("Open a text file: one input per line, or JSONL {\"text\", \"text_b\"}."), this);
    m_statusLabel->setWordWrap(true);
    layout->addWidget(m_statusLabel);

    auto* split = new QSplitter(Qt::Horizontal, this);
    m_grid = new CensusGridView(split);
    auto* right = new QSplitter(Qt::Vertical, split);
    m_curves = new LayerCurvesView(right);
    m_map = new HeadMapView(right);
    layout->addWidget(split, 3);
    m_inputs = new QListWidget(this);
    layout->addWidget(
        new QLabel(tr("Inputs where the chosen head's metric is strongest and weakest (double-click "
                      "to open one in the explorer):"),
                   this));
    layout->addWidget(m_inputs, 1);

    connect(m_open, &QPushButton::clicked, this, &CorpusWindow::openCorpusFile);
    connect(m_cancelButton, &QPushButton::clicked, this, &CorpusWindow::cancel);
    connect(m_resumeButton, &QPushButton::clicked, this, [this] { resumeCensus(m_resultPath); });
    connect(m_openSaved, &QPushButton::clicked, this, &CorpusWindow::openSavedCensus);
    connect(m_metricBox, qOverload<int>(&QComboBox::activated), this,
            [this](int index) { setMetric(allCensusMetrics()[size_t(index)]); });
    connect(m_grid, &CensusGridView::headClicked, this, &CorpusWindow::selectHead);
    connect(m_map, &HeadMapView::headClicked, this, &CorpusWindow::selectHead);
    connect(m_inputs, &QListWidget::itemDoubleClicked, this, &CorpusWindow::openSelectedInput);
    resize(1100, 760);
}

CorpusWindow::~CorpusWindow()
{
    if (m_cancel) m_cancel->store(true);
    joinWorker();
}

void CorpusWindow::joinWorker()
{
    if (m_worker.joinable()) m_worker.join();
}

void CorpusWindow::openCorpusFile()
{
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Corpus text file"), QString(), tr("Text or JSONL (*.txt *.jsonl *.ndjson);;All files (*)"));
    if (!path.isEmpty()) startCensus(path, m_pairsBox->isChecked());
}

void CorpusWindow::openSavedCensus()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Saved census"), m_resultDirectory,
                                                      tr("Census result (*.json);;All files (*)"));
    if (!path.isEmpty()) resumeCensus(path);
}

bool CorpusWindow::startCensus(const QString& corpusPath, bool pairs, std::int64_t limit)
{
    if (isRunning()) {
        m_statusLabel->setText(tr("A census is running: cancel it first."));
        return false;
    }
    CensusOptions options;
    options.corpusPath = corpusPath;
    options.pairs = pairs;
    options.limit = limit;
    options.maxTokens = -1; // the default (128), or fewer for a model with fewer positions: set on open
    // One file per model, corpus file and pairing; a new census of the same replaces it.
    const QString key = QFileInfo(m_modelFolder).absoluteFilePath() + QLatin1Char('\n') +
                        QFileInfo(corpusPath).absoluteFilePath() +
                        (pairs ? QStringLiteral("\npairs") : QString());
    const QString name =
        QStringLiteral("%1-%2%3-%4.json")
            .arg(QFileInfo(corpusPath).completeBaseName(), QFileInfo(m_modelFolder).fileName(),
                 pairs ? QStringLiteral("-pairs") : QString(),
                 QString::fromLatin1(
                     QCryptographicHash::hash(key.toUtf8(), QCryptographicHash::Md5).toHex().left(8)));
    if (!m_resultDirectory.isEmpty() && QDir().mkpath(m_resultDirectory))
        options.resultPath = QDir(m_resultDirectory).filePath(name);
    return launch(options, std::nullopt);
}

bool CorpusWindow::resumeCensus(const QString& resultPath)
{
    if (isRunning()) {
        m_statusLabel->setText(tr("A census is running: cancel it first."));
        return false;
    }
    QString error;
    const std::optional<CensusResult> saved = readCensusResult(resultPath, &error);
    if (!saved) {
        m_statusLabel->setText(error);
        return false;
    }
    m_pairsBox->setChecked(saved->pairs);
    if (saved->status == CensusStatus::Complete) { // nothing left to do: show it
        joinWorker();
        m_corpusPath = saved->corpusPath;
        m_pairs = saved->pairs;
        m_resultPath = resultPath;
        m_layer = m_head = -1;
        showFinished(*saved);
        return true;
    }
    CensusOptions options;
    options.corpusPath = saved->corpusPath;
    options.pairs = saved->pairs;
    options.maxTokens = saved->maxTokens;
    options.limit = saved->limit;
    options.overlong = saved->overlong;
    options.resultPath = resultPath;
    return launch(options, saved);
}

bool CorpusWindow::launch(const CensusOptions& options, const std::optional<CensusResult>& resumeFrom)
{
    joinWorker();
    m_corpusPath = options.corpusPath;
    m_pairs = options.pairs;
    m_resultPath = options.resultPath;
    m_resumeButton->setEnabled(false);
    m_openSaved->setEnabled(false);
    m_status.reset();
    m_sums = resumeFrom ? resumeFrom->sums : CensusAccumulator();
    m_layer = m_head = -1;
    m_inputs->clear();
    m_cancel = std::make_shared<std::atomic<bool>>(false);
    m_done = false;
    m_open->setEnabled(false);
    m_cancelButton->setEnabled(true);
    m_progress->setValue(0);
    m_statusLabel->setText(tr("Opening %1…").arg(QFileInfo(m_modelFolder).fileName()));
    QPointer<CorpusWindow> self(this);
    const QString folder = m_modelFolder;
    std::shared_ptr<std::atomic<bool>> cancelFlag = m_cancel;
    m_worker =
        std::thread([self, folder, options = CensusOptions(options), resumeFrom, cancelFlag, this]() mutable {
            CensusResult result;
            try {
                const std::unique_ptr<TransformerModel> model = TransformerModel::open(folder);
                std::unique_ptr<Tokenizer> own;
                const Tokenizer* tokenizer = model->tokenizer();
                if (!tokenizer) {
                    own = Tokenizer::fromFolder(model->folder());
                    tokenizer = own.get();
                }
                if (options.maxTokens < 0) {
                    options.maxTokens = CensusOptions{}.maxTokens;
                    const int positions = model->config().maxPositions;
                    if (positions > 0) options.maxTokens = std::min(options.maxTokens, positions);
                }
                QElapsedTimer sinceShown;
                sinceShown.start();
                result = runCensus(
                    *model, *tokenizer, options, resumeFrom,
                    [&](const CensusProgress& p) {
                        if (m_progressHook) m_progressHook(p); // set before the start; joined before deletion
                        if (sinceShown.elapsed() < 250) return;
                        sinceShown.restart();
                        const CensusAccumulator snapshot = *p.sums; // small: layers × heads × metrics
                        const QString text = tr("%1 inputs, %2 s, about %3 left")
                                                 .arg(p.inputs)
                                                 .arg(int(p.elapsedSeconds))
                                                 .arg(duration(p.etaSeconds));
                        const int value = int(1000 * p.fraction);
                        QMetaObject::invokeMethod(
                            this,
                            [self, snapshot, text, value] {
                                if (!self) return;
                                self->m_progress->setValue(value);
                                self->showSnapshot(snapshot, text);
                            },
                            Qt::QueuedConnection);
                    },
                    cancelFlag.get());
            } catch (const std::exception& e) {
                result.status = CensusStatus::Failed;
                result.message = QString::fromUtf8(e.what());
            }
            QMetaObject::invokeMethod(
                this,
                [self, result] {
                    if (self) self->showFinished(result);
                },
                Qt::QueuedConnection);
            m_done = true;
        });
    return true;
}

void CorpusWindow::cancel()
{
    if (m_cancel) m_cancel->store(true);
}

void CorpusWindow::showSnapshot(const CensusAccumulator& sums, const QString& progress)
{
    m_sums = sums;
    m_statusLabel->setText(progress);
    refreshViews();
}

void CorpusWindow::showFinished(const CensusResult& result)
{
    joinWorker();
    m_status = result.status;
    m_open->setEnabled(true);
    m_openSaved->setEnabled(true);
    m_cancelButton->setEnabled(false);
    // Only a cancelled census stopped where it can go on (a changed corpus cannot be resumed).
    m_resumeButton->setEnabled(result.status == CensusStatus::Cancelled && !m_resultPath.isEmpty() &&
                               QFileInfo::exists(m_resultPath));
    if (result.sums.layers() > 0) m_sums = result.sums;
    QString text;
    switch (result.status) {
    case CensusStatus::Complete:
        m_progress->setValue(1000);
        text = tr("Done: %1 inputs in %2.").arg(result.inputs()).arg(duration(result.seconds));
        break;
    case CensusStatus::Cancelled:
        // Nothing is saved before the first input is counted (census/censusrun.h).
        text = m_resultPath.isEmpty() || !QFileInfo::exists(m_resultPath)
                   ? tr("Cancelled after %1 inputs.").arg(result.inputs())
                                      : tr("Cancelled after %1 inputs; saved in %2: Resume continues it.")
                                            .arg(result.inputs())
                                            .arg(QDir::toNativeSeparators(m_resultPath));
        break;
    default:
        text = result.message;
        break;
    }
    if (result.truncated)
        text += QLatin1Char(' ') + tr("%n input(s) cut to the token limit.", nullptr, int(result.truncated));
    if (result.problems.invalidUtf8)
        text += QLatin1Char(' ') +
                tr("%n line(s) of invalid UTF-8 skipped.", nullptr, int(result.problems.invalidUtf8));
    m_statusLabel->setText(text);
    refreshViews();
    Q_EMIT finished();
}

void CorpusWindow::setMetric(CensusMetric metric)
{
    m_metric = metric;
    m_metricBox->setCurrentIndex(int(metric));
    refreshViews();
}

void CorpusWindow::selectHead(int layer, int head)
{
    m_layer = layer;
    m_head = head;
    m_grid->setSelected(layer, head);
    m_map->setSelected(layer, head);
    refreshInputs();
}

void CorpusWindow::refreshViews()
{
    if (m_sums.layers() == 0) return;
    const QString what = tr("%1 inputs").arg(m_sums.inputs());
    m_grid->setData(m_sums, m_metric, tr("Mean %1 per head (%2)").arg(censusMetricTitle(m_metric), what));
    // A contribution metric shows the contribution curves, any other the attention weights'.
    if (censusMetricIsContribution(m_metric))
        m_curves->setData(m_sums, tr("Contribution by layer (%1)").arg(what),
                          LayerCurveMeasure::Contributions);
    else
        m_curves->setData(m_sums, tr("Attention by layer (%1)").arg(what));
    m_map->setPoints(censusHeadMap(m_sums));
    refreshInputs();
}

void CorpusWindow::refreshInputs()
{
    m_inputs->clear();
    if (m_layer < 0 || m_sums.layers() == 0 || m_layer >= m_sums.layers() || m_head >= m_sums.heads()) return;
    const bool running = isRunning();
    auto add = [&](const QString& kind, const CensusExtreme& e) {
        QString text;
        if (!running) // the file is read again only once the census has let go of it
            if (auto input = CorpusReader::inputAtLine(m_corpusPath, m_pairs, e.input))
                text = input->textA + (input->textB ? QStringLiteral("  ‖  ") + *input->textB : QString());
        auto* item = new QListWidgetItem(tr("%1  L%2 H%3  %4 = %5  line %6  %7")
                                             .arg(kind)
                                             .arg(m_layer)
                                             .arg(m_head)
                                             .arg(censusMetricId(m_metric))
                                             .arg(e.value, 0, 'f', 3)
                                             .arg(e.input)
                                             .arg(text.left(160)),
                                         m_inputs);
        item->setData(kLineRole, qint64(e.input));
    };
    for (const CensusExtreme& e : m_sums.strongest(m_layer, m_head, m_metric))
        add(tr("strongest"), e);
    for (const CensusExtreme& e : m_sums.weakest(m_layer, m_head, m_metric))
        add(tr("weakest"), e);
}

void CorpusWindow::openSelectedInput()
{
    const QListWidgetItem* item = m_inputs->currentItem();
    if (!item) return;
    const auto input = CorpusReader::inputAtLine(m_corpusPath, m_pairs, item->data(kLineRole).toLongLong());
    if (!input) {
        m_statusLabel->setText(tr("%1: line %2 cannot be read again (did the file change?)")
                                   .arg(m_corpusPath)
                                   .arg(item->data(kLineRole).toLongLong()));
        return;
    }
    Q_EMIT openInExplorer(input->textA, input->textB.value_or(QString()));
}

} // namespace attnscope
