#include "explorer/explorersession.h"

#include "explorer/backenddescription.h"
#include "explorer/explorerbackend.h"
#include "explorer/modeldetails.h"
#include "explorer/modelloader.h"
#include "explorer/modelproblemtext.h"
#include "explorer/predictionpanel.h"
#include "explorer/syntheticengine.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "kernels/cpukernelselection.h"
#include "model/modelcatalog.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QTimer>

namespace attnscope {

// The messages below were the window's before the session held the state: they keep its translation
// context ("attnscope::MainWindow"), spelled out at each call so that lupdate finds them, and
// resources/translations keep translating them.

ExplorerSession::ExplorerSession(QObject* parent)
    : QObject(parent), m_models(new ModelList(this)), m_loader(new ModelLoader(this)),
      m_runner(new AnalysisRunner(this)), m_debounce(new QTimer(this)),
      m_explorerBackend(std::make_shared<ExplorerBackend>()), m_ablation(new AblationRunner(this))
{
    qRegisterMetaType<std::shared_ptr<const ExplorerResult>>();
    m_debounce->setSingleShot(true);
    m_debounce->setInterval(300);
    connect(m_debounce, &QTimer::timeout, this, &ExplorerSession::runNow);
    connect(m_runner, &AnalysisRunner::resultReady, this, &ExplorerSession::takeResult);
    connect(m_runner, &AnalysisRunner::inputTooLong, this,
            [this](quint64 job, const QString& message, int, int limit) {
                m_tooLongJob = job;
                takeFailure(message, limit);
            });
    // A too-long input also fails its job: the message with the window's actions is already shown.
    connect(m_runner, &AnalysisRunner::failed, this, [this](quint64 job, const QString& message) {
        if (job != m_tooLongJob) takeFailure(message, 0);
    });
    connect(m_loader, &ModelLoader::loaded, this,
            [this](quint64, const QString& folder, std::shared_ptr<TransformerEngine> engine) {
                finishLoading(folder, std::move(engine));
            });
    connect(m_loader, &ModelLoader::failed, this,
            [this](quint64, const QString&, const QString& message) { endLoading(message); });
    connect(m_loader, &ModelLoader::cancelled, this, [this] { endLoading(QString()); });
    connect(m_ablation, &AblationRunner::ablated, this, [this](const AblationOutcome& outcome) {
        if (m_result && m_result->run.ids == m_ablationInput) emit ablationShown(outcome);
    });
    connect(m_ablation, &AblationRunner::scanFinished, this, [this](const AblationScan& scan) {
        if (m_result && m_result->run.ids == m_ablationInput) emit scanShown(scan);
    });
}

ExplorerSession::~ExplorerSession() = default;

void ExplorerSession::populate()
{
    QStringList seen;
    for (const ModelInfo& info : ModelCatalog::builtinModels()) {
        m_models->addFolder(info.path, info.name);
        seen << QDir(info.path).canonicalPath();
    }
    const int builtins = m_models->rowCount();
    for (const QString& folder : ModelCatalog::recent()) {
        if (seen.contains(QDir(folder).canonicalPath())) continue;
        const auto info = ModelCatalog::describe(folder);
        m_models->addFolder(folder, QFileInfo(folder).isFile() ? QFileInfo(folder).fileName()
                                    : info                     ? info->name
                                                               : QDir(folder).dirName());
        seen << QDir(folder).canonicalPath();
    }
    for (const ModelInfo& info : ModelCatalog::cachedModels())
        if (!seen.contains(QDir(info.path).canonicalPath())) {
            m_models->addFolder(info.path, info.name);
            seen << QDir(info.path).canonicalPath();
        }
    for (const QString& folder : ModelCatalog::modelFolders())
        for (const ModelInfo& info : ModelCatalog::modelsInFolder(folder))
            if (!seen.contains(QFileInfo(info.path).canonicalFilePath())) {
                m_models->addFolder(info.path, info.name);
                seen << QFileInfo(info.path).canonicalFilePath();
            }
    for (const ModelInfo& info : ModelCatalog::localRunnerModels())
        if (!seen.contains(QFileInfo(info.path).canonicalFilePath())) {
            m_models->addFolder(info.path, info.name);
            seen << QFileInfo(info.path).canonicalFilePath();
        }
    m_onlyBuiltinModels = m_models->rowCount() == builtins;
    m_models->addEngine(std::make_shared<WorkedExampleEngine>());
    SyntheticEngine::Config encoder;
    encoder.threads = explorerWorkerThreads();
    m_models->addEngine(std::make_shared<SyntheticEngine>(encoder));
    SyntheticEngine::Config decoder = encoder;
    decoder.causal = true;
    m_models->addEngine(std::make_shared<SyntheticEngine>(decoder));
}

std::shared_ptr<const AttentionEngine> ExplorerSession::currentEngine() const
{
    return m_models->contains(m_current) ? m_models->at(m_current).engine : nullptr;
}

bool ExplorerSession::select(int row)
{
    m_selectProblem.reset();
    if (!m_models->contains(row)) return false;
    if (!m_models->at(row).engine) {
        const ModelList::Entry& entry = m_models->at(row);
        // What config.json alone refuses (an architecture the runtime lacks, ...) is said now, also for a
        // model large enough to load in the background, whose failure would otherwise come after the
        // caller (a start, a script) has moved on.
        if (auto refused = ModelCatalog::configProblem(entry.folder)) {
            m_selectProblem = std::move(refused);
            emit selectFailed(modelProblemText(*m_selectProblem));
            return false;
        }
        // Refused before anything is mapped, with the numbers, rather than left to the OOM killer.
        const QString refusal = memoryRefusalText(entry.info, availableMemoryBytes());
        if (!refusal.isEmpty()) {
            emit selectFailed(refusal);
            return false;
        }
        if (entry.info.weightBytes >= kBackgroundLoadBytes) {
            m_loadingIndex = row;
            emit loadingStarted(row);
            m_loader->load(entry.folder, explorerWorkerThreads(), m_explorerBackend);
            return true; // finishLoading selects it
        }
        try {
            m_models->setEngine(
                row, TransformerEngine::open(entry.folder, explorerWorkerThreads(), m_explorerBackend));
        } catch (const EngineError& e) {
            m_selectProblem = e.problem();
            emit selectFailed(QString::fromStdString(e.what()));
            return false;
        }
    }
    if (isLoading() && row != m_loadingIndex) { // another model chosen while one loads
        m_loader->cancel();
        m_loadingIndex = -1;
        emit loadingAbandoned();
    }
    const bool switched = row != m_current;
    m_current = row;
    if (switched) m_tokenWindow = {}; // a window chosen for one model's positions is not another's
    if (const auto fixed = m_models->at(row).engine->fixedText()) m_textA = *fixed;
    emit currentModelChanged(row, switched);
    runNow();
    return true;
}

void ExplorerSession::finishLoading(const QString& folder, std::shared_ptr<TransformerEngine> engine)
{
    const int row = m_loadingIndex;
    m_loadingIndex = -1;
    emit loadingFinished();
    if (!m_models->contains(row) || m_models->at(row).folder != folder) return;
    m_models->setEngine(row, std::move(engine));
    select(row);
}

void ExplorerSession::endLoading(const QString& message)
{
    m_loadingIndex = -1;
    emit loadingEnded(message);
}

void ExplorerSession::openModel(const QString& path)
{
    if (const int listed = m_models->findFolder(path); listed >= 0) {
        select(listed);
        return;
    }
    const auto info = ModelCatalog::describe(path);
    if (!info) {
        emit notAModel(QFileInfo(path).isFile()
                           ? QCoreApplication::translate(
                                 "attnscope::MainWindow",
                                 "%1: not a model (a folder with config.json, or a llama.cpp .gguf file)")
                                 .arg(QDir::toNativeSeparators(path))
                           : modelProblemText(ModelCatalog::diagnose(path)));
        return;
    }
    const int row =
        m_models->addFolder(path, QFileInfo(path).isFile() ? QFileInfo(path).fileName() : info->name);
    if (select(row))
        ModelCatalog::addRecent(path);
    else
        m_models->remove(row);
}

int ExplorerSession::addModelListFolder(const QString& folder)
{
    ModelCatalog::addModelFolder(folder);
    QStringList known;
    for (int i = 0; i < m_models->count(); ++i)
        if (!m_models->at(i).folder.isEmpty()) known << QFileInfo(m_models->at(i).folder).canonicalFilePath();
    int added = 0;
    for (const ModelInfo& info : ModelCatalog::modelsInFolder(folder))
        if (!known.contains(QFileInfo(info.path).canonicalFilePath())) {
            const int at = m_models->insertFolderBeforeEngines(info.path, info);
            if (m_current >= at) ++m_current;
            if (m_loadingIndex >= at) ++m_loadingIndex;
            ++added;
        }
    return added;
}

void ExplorerSession::leaveFixedText()
{
    if (!currentEngine() || !currentEngine()->fixedText()) return;
    for (int i = 0; i < m_models->count(); ++i)
        if ((!m_models->at(i).engine || !m_models->at(i).engine->fixedText()) && select(i)) break;
}

void ExplorerSession::setTexts(const QString& textA, const QString& textB)
{
    leaveFixedText();
    m_textA = textA;
    m_textB = textB;
    emit textsChanged();
    runNow();
}

void ExplorerSession::typeTextA(const QString& text)
{
    m_textA = text;
    m_debounce->start();
}

void ExplorerSession::typeTextB(const QString& text)
{
    m_textB = text;
    m_debounce->start();
}

void ExplorerSession::setDebounceInterval(int msecs)
{
    m_debounce->setInterval(msecs);
}

void ExplorerSession::runNow()
{
    m_debounce->stop();
    const auto engine = currentEngine();
    if (!engine) return;
    if (!engine->fixedText() && m_textA.trimmed().isEmpty()) {
        waitForText();
        return;
    }
    m_waitsForText = false;
    std::optional<QString> textB;
    if (engine->supportsTextB() && !m_textB.trimmed().isEmpty()) textB = m_textB;
    AnalysisOptions options;
    options.threads = explorerWorkerThreads();
    options.overviewSize = 128; // the zoomed-out heatmap of a long input shows this overview
    m_runner->start(engine, m_textA, textB, options, m_tokenWindow, m_measure);
}

void ExplorerSession::setMeasure(AttentionMeasure measure)
{
    if (measure == m_measure) return;
    m_measure = measure;
    emit measureChanged(measure);
    remeasure();
}

void ExplorerSession::remeasure()
{
    if (m_runner->isBusy()) {
        runNow(); // a newer input is computing: rerun it under the new measure
        return;
    }
    if (!m_result) return;
    if (m_result->run.measure == m_measure) return;
    if (m_measure == AttentionMeasure::Contribution &&
        !contributionUnavailableReason(m_result->run).isEmpty())
        return; // the views say why; the weights stay
    AnalysisOptions options;
    options.threads = explorerWorkerThreads();
    options.overviewSize = 128;
    m_runner->remeasure(m_result, m_measure, options);
}

void ExplorerSession::setTokenWindow(const TokenWindow& window)
{
    m_tokenWindow = window;
    runNow();
}

void ExplorerSession::takeResult(std::shared_ptr<const ExplorerResult> result)
{
    if (m_waitsForText) return; // a run the emptied text cancelled, finished before it saw that
    m_result = std::move(result);
    m_failure.clear();
    m_failureLimit = 0;
    const bool sameInput = m_result->run.ids == m_ablationInput;
    if (!sameInput) {
        // Another input: an ablation or scan of the previous one no longer applies.
        m_ablation->cancel();
        m_ablationInput.clear();
        m_ablationDescription.clear();
    } // else: the same input under another measure keeps its ablation and scan
    emit resultChanged(m_result, sameInput);
}

void ExplorerSession::waitForText()
{
    m_runner->cancel();
    m_result.reset();
    m_failure.clear();
    m_failureLimit = 0;
    m_waitsForText = true;
    m_ablation->cancel();
    m_ablationInput.clear();
    m_ablationDescription.clear();
    emit textEmpty();
}

void ExplorerSession::takeFailure(const QString& message, int limit)
{
    if (m_waitsForText) return;
    m_result.reset();
    m_failure = message;
    m_failureLimit = limit;
    m_ablation->cancel();
    m_ablationInput.clear();
    m_ablationDescription.clear();
    emit runFailed(message, limit);
}

void ExplorerSession::startBackend(BackendKind kind)
{
    QString notice;
    std::shared_ptr<AttentionBackend> backend = createBackend(kind, &notice);
    // Notices after start (a GPU failing mid-run) come from worker threads: said on the GUI thread.
    QPointer<ExplorerSession> self(this);
    backend->setNoticeHandler([self](const QString& message) {
        QMetaObject::invokeMethod(QCoreApplication::instance(), [self, message] {
            if (!self) return;
            self->m_backendNotice = message;
            emit self->backendNoticeRaised(message);
        });
    });
    if (auto previous = m_explorerBackend->current()) m_retiredBackends.push_back(std::move(previous));
    m_explorerBackend->set(backend);
    m_backendChoice = kind;
    // Auto choosing the CPU is the normal case without a hardware GPU: no notice for that. Kernels slower
    // than the CPU allows (a binary copied without lib/attnscope) are always worth a notice.
    // The kernels' warning names paths: the notice says it short, the details in full.
    QStringList notices, details;
    if (!notice.isEmpty()) details << notice;
    if (kind != BackendKind::Auto && !notice.isEmpty()) notices << notice;
    if (const QString slow = kernels::unloadedKernelsWarning(); !slow.isEmpty()) {
        notices << QCoreApplication::translate("attnscope::MainWindow",
                                               "Slow CPU kernels (%1): modules missing, see the tooltip")
                       .arg(kernels::cpuKernelChoice().variant);
        details << slow;
    }
    m_backendNotice = notices.join(QStringLiteral("; "));
    m_backendNoticeDetails = details.join(QLatin1Char('\n'));
    emit backendChanged();
    if (currentEngine()) runNow();
}

std::shared_ptr<AttentionBackend> ExplorerSession::backend() const
{
    return m_explorerBackend->current();
}

QString ExplorerSession::ablationUnavailableReason() const
{
    if (!m_result) return QCoreApplication::translate("attnscope::MainWindow", "Nothing is shown yet.");
    if (!std::dynamic_pointer_cast<const TransformerEngine>(currentEngine()) || m_result->run.ids.empty())
        return QCoreApplication::translate("attnscope::MainWindow",
                                           "Ablation needs a real model; the demos have none.");
    if (m_result->run.predictions.empty())
        return predictionGapMessage(m_result->run.predictionGap).isEmpty()
                   ? QCoreApplication::translate("attnscope::MainWindow",
                                                 "The model has nothing to predict for this input.")
                   : (m_result->run.predictionGap == PredictionGap::NoMaskToken
                          ? QCoreApplication::translate(
                                "attnscope::MainWindow",
                                "Type [MASK] in the text: ablation measures the change of the model's "
                                "prediction.")
                          : predictionGapMessage(m_result->run.predictionGap));
    return {};
}

void ExplorerSession::ablateHeads(const std::vector<HeadAblation>& heads, const QString& description)
{
    if (!ablationUnavailableReason().isEmpty() || m_ablation->isScanning()) return;
    auto engine = std::dynamic_pointer_cast<const TransformerEngine>(currentEngine());
    m_ablationInput = m_result->run.ids;
    m_ablationDescription = description;
    emit ablationStarted(description);
    m_ablation->ablate(engine, m_result->run.ids, m_result->run.typeIds, heads);
}

void ExplorerSession::scanAllHeads(AblationMode mode)
{
    if (!ablationUnavailableReason().isEmpty() || m_ablation->isScanning()) return;
    auto engine = std::dynamic_pointer_cast<const TransformerEngine>(currentEngine());
    m_ablationInput = m_result->run.ids;
    // The scan's passes run on the CPU core whatever the views use: said, not left to guess.
    m_scanBackendNote = attnscope::scanBackendNote(m_explorerBackend->current().get());
    emit scanStarted(m_result->analysis.layers * m_result->analysis.heads);
    m_ablation->scan(engine, m_result->run.ids, m_result->run.typeIds, mode);
}

void ExplorerSession::clearAblation()
{
    m_ablation->cancel();
    m_ablationDescription.clear();
    emit ablationCleared();
}

} // namespace attnscope
