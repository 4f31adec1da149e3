#pragma once

#include "backend/attentionbackend.h"
#include "explorer/ablationrunner.h"
#include "explorer/analysisrunner.h"
#include "explorer/attentionmeasure.h"
#include "explorer/modellist.h"
#include "model/modelerror.h"

#include <QObject>
#include <QString>
#include <memory>
#include <optional>
#include <vector>

class QTimer;

namespace attnscope {

class ExplorerBackend;
class ModelLoader;
class TransformerEngine;

// The explorer's state, with no widget: the models and the chosen one, texts A and B, the measure, the token
// window, the compute backend, the last result or failure, and the ablation of the shown input. It schedules
// runs (typing is debounced; AnalysisRunner's job counter drops the results of outdated runs) and says what
// changed by signals. The window's panes show it and hand it what the user does; tests drive it alone.
class ExplorerSession : public QObject
{
    Q_OBJECT
public:
    explicit ExplorerSession(QObject* parent = nullptr);
    ~ExplorerSession() override;

    // --- models
    ModelList* models() const { return m_models; }
    // The picker's entries: built-in models, recent folders, the Hugging Face cache, the added folders'
    // models, the local runners' (Ollama, LM Studio, llama.cpp) GGUF files, then the worked example and the
    // synthetic demos.
    void populate();
    // True when populate() found no model beyond the built-in ones (the window then shows the guided list).
    bool onlyBuiltinModels() const { return m_onlyBuiltinModels; }
    int currentIndex() const { return m_current; }
    std::shared_ptr<const AttentionEngine> currentEngine() const;
    // Opens the row's model if needed and chooses it. A model whose memory estimate exceeds MemAvailable is
    // refused with the numbers (selectFailed), as is one that cannot be opened; what config.json alone
    // refuses (ModelCatalog::configProblem) is refused before either, whatever the size. Models with at least
    // kBackgroundLoadBytes of weights load on a worker (loader()): then this returns true at once
    // (loadingStarted) and the model is chosen when it has loaded.
    bool select(int row);
    // Why the last select() refused its row when the model could not be opened: core's problem (kind, file,
    // arguments), which selectFailed words in the window's language. nullopt after a select() that did not
    // fail so, and for a memory refusal (not a problem of the model's files).
    const std::optional<ModelProblem>& selectProblem() const { return m_selectProblem; }
    static constexpr qint64 kBackgroundLoadBytes = 64LL * 1000 * 1000;
    bool isLoading() const { return m_loadingIndex >= 0; }
    int loadingIndex() const { return m_loadingIndex; }
    ModelLoader* loader() const { return m_loader; }
    // A model folder or a .gguf file: chosen when listed, else added and chosen (and remembered as recent);
    // notAModel when it is neither.
    void openModel(const QString& path);
    // File > Add folder to the model list: its models join the list before the demos. Returns how many.
    int addModelListFolder(const QString& folder);

    // --- input
    QString textA() const { return m_textA; }
    QString textB() const { return m_textB; }
    // Both texts at once, run at once. On a model with fixed text (the worked example) the first model that
    // takes text is chosen first, so that the texts show.
    void setTexts(const QString& textA, const QString& textB = {});
    // On a model with fixed text, chooses the first model that takes text (setTexts does this first).
    void leaveFixedText();
    // What is typed: run after a pause (debounceInterval) so that each key does not start a pass.
    void typeTextA(const QString& text);
    void typeTextB(const QString& text);
    void setDebounceInterval(int msecs);
    AttentionMeasure measure() const { return m_measure; }
    // The shown run under another measure, off the GUI thread (no new forward pass); a run that is still
    // computing is rerun under it.
    void setMeasure(AttentionMeasure measure);
    // Runs a window of the input; kept until another model is chosen.
    void setTokenWindow(const TokenWindow& window);
    TokenWindow tokenWindow() const { return m_tokenWindow; }
    void runNow();
    void cancelRun() { m_runner->cancel(); }
    AnalysisRunner* runner() const { return m_runner; }

    // --- output
    std::shared_ptr<const ExplorerResult> result() const { return m_result; }
    // The last run's failure ("" after a result); failureLimit() > 0 when the input was too long for it.
    QString failure() const { return m_failure; }
    // Text A is empty or spaces only on a model that takes text: nothing is run (a pass over [CLS] [SEP]
    // alone would give heads that mean nothing) and textEmpty() said so.
    bool waitsForText() const { return m_waitsForText; }
    int failureLimit() const { return m_failureLimit; }

    // --- compute backend (created here, on the GUI thread, as GPU backends need)
    // When the one chosen cannot start the CPU is used and backendNotice() says why in one line.
    void startBackend(BackendKind kind);
    BackendKind backendChoice() const { return m_backendChoice; }
    std::shared_ptr<AttentionBackend> backend() const;
    std::shared_ptr<ExplorerBackend> explorerBackend() const { return m_explorerBackend; }
    QString backendNotice() const { return m_backendNotice; }
    QString backendNoticeDetails() const { return m_backendNoticeDetails; }

    // --- ablation of the shown input (core's AblationStudy, off the GUI thread)
    // Why ablation is not offered for the shown run ("" when it is): nothing shown, the demos, a model
    // without an LM head, an encoder input without [MASK].
    QString ablationUnavailableReason() const;
    void ablateHeads(const std::vector<HeadAblation>& heads, const QString& description);
    void scanAllHeads(AblationMode mode);
    void clearAblation();
    AblationRunner* ablationRunner() const { return m_ablation; }
    QString ablationDescription() const { return m_ablationDescription; }
    // The scan runs on the CPU although a GPU backend is chosen: said while and after ("" otherwise).
    QString scanBackendNote() const { return m_scanBackendNote; }

Q_SIGNALS:
    void loadingStarted(int row);
    // The background load ended: chosen (loadingFinished, then currentModelChanged), failed (loadingEnded
    // with the message) or cancelled (loadingEnded with "").
    void loadingFinished();
    void loadingEnded(const QString& message);
    // Another model was chosen while one loaded: that load is cancelled.
    void loadingAbandoned();
    // select() refused the row (memory, or it cannot be opened): the chosen model stays.
    void selectFailed(const QString& message);
    // openModel() was given neither a model folder nor a .gguf file.
    void notAModel(const QString& message);
    // `switched`: another model than before (the token window was reset).
    void currentModelChanged(int row, bool switched);
    void textsChanged();
    void measureChanged(attnscope::AttentionMeasure measure);
    void resultChanged(std::shared_ptr<const attnscope::ExplorerResult> result, bool sameAblatedInput);
    // The run failed: limit > 0 when the input was longer than the model takes (a window of it can run).
    void runFailed(const QString& message, int limit);
    // Text A is empty: no run, no result; the views say "type a sentence".
    void textEmpty();
    void backendChanged();
    // A backend's notice after it started (a GPU failing mid-run), shown on the GUI thread.
    void backendNoticeRaised(const QString& message);
    void ablationStarted(const QString& description);
    void scanStarted(int heads);
    // The finished ablation or scan, when it is of the input shown.
    void ablationShown(const attnscope::AblationOutcome& outcome);
    void scanShown(const attnscope::AblationScan& scan);
    void ablationCleared();

private:
    void finishLoading(const QString& folder, std::shared_ptr<TransformerEngine> engine);
    void endLoading(const QString& message);
    void takeResult(std::shared_ptr<const ExplorerResult> result);
    void takeFailure(const QString& message, int limit);
    void waitForText();
    void remeasure();

    ModelList* m_models;
    bool m_onlyBuiltinModels = true;
    int m_current = -1;
    int m_loadingIndex = -1; // the row being loaded in the background
    std::optional<ModelProblem> m_selectProblem;
    ModelLoader* m_loader;
    AnalysisRunner* m_runner;
    QTimer* m_debounce;
    QString m_textA, m_textB;
    AttentionMeasure m_measure = AttentionMeasure::Weight;
    TokenWindow m_tokenWindow;
    std::shared_ptr<const ExplorerResult> m_result;
    QString m_failure;
    int m_failureLimit = 0;
    bool m_waitsForText = false;
    quint64 m_tooLongJob = 0;

    std::shared_ptr<ExplorerBackend> m_explorerBackend;
    // Backends switched away from: destroyed with the session, on the GUI thread where they were made.
    std::vector<std::shared_ptr<AttentionBackend>> m_retiredBackends;
    BackendKind m_backendChoice = BackendKind::Auto;
    QString m_backendNotice, m_backendNoticeDetails;

    AblationRunner* m_ablation;
    std::vector<int> m_ablationInput; // the ids the shown ablation or scan belongs to
    QString m_ablationDescription;
    QString m_scanBackendNote;
};

} // namespace attnscope
