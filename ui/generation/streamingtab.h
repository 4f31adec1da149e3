#pragma once

#include "generation/decodertab.h"
#include "generation/streamingevaluation.h"

#include <QStringList>
#include <memory>
#include <vector>

class QCheckBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QComboBox;

namespace attnscope {

class AttentionEngine;
class BackgroundJob;
class SeriesChartWidget;
class TransformerEngine;

// The "Streaming" tab: the StreamingLLM experiment on the chosen decoder. A long text is read token by
// token under the chosen KV-cache policies (core/generation/streamingevaluation) on a worker thread, with
// progress and cancel; the running perplexity curves are drawn together as they grow (log y) with a mark
// where eviction begins, and the cache's contents are listed for a chosen token.
class StreamingTab : public DecoderTab
{
    Q_OBJECT
public:
    // The text shipped with the app (resources/corpus/stream-en.txt, a Qt resource).
    static QString defaultTextFile();
    // What the file field shows for it, in words ("built-in: stream-en.txt"), not the resource path.
    static QString builtinTextLabel();
    // The file a run reads: the field's path, or defaultTextFile() while the field names the shipped text.
    QString textFilePath() const;

    explicit StreamingTab(QWidget* parent = nullptr);
    ~StreamingTab() override;

    void setEngine(std::shared_ptr<const AttentionEngine> engine);
    // The policies the check boxes choose, in chart order.
    std::vector<CachePolicy> chosenPolicies() const;
    void run();

    // Finished (and, while running, partial) evaluations, in policy order.
    const std::vector<StreamEvaluation>& evaluations() const { return m_evaluations; }
    // The token whose cache contents are listed; the chart marks it.
    void setInspectedToken(int token);
    int inspectedToken() const;
    QString cacheContentsText() const;
    // The last run's tokens as the list names them: tokenLabels, as the heatmap labels tokens.
    const QStringList& tokenLabels() const { return m_tokens; }

    QLineEdit* fileEdit() const { return m_file; }
    QSpinBox* cacheSizeBox() const { return m_cacheSize; }
    QSpinBox* maxTokensBox() const { return m_maxTokens; }
    // Checked: one paragraph per line, fed as the model was trained (generation/paragraphinput.h, the model
    // folder's "paragraphs" setting), as `attnscope stream --paragraphs` does. Unchecked: the file as one
    // text.
    QCheckBox* paragraphsBox() const { return m_paragraphs; }
    QCheckBox* sinksBox(int k) const; // k among 0, 1, 2, 4, 8 (0: window only)
    QCheckBox* recomputeBox() const { return m_recompute; }
    QCheckBox* fullBox() const { return m_full; }
    QPushButton* runButton() const { return m_run; }
    QPushButton* cancelButton() const { return m_cancel; }
    QProgressBar* progressBar() const { return m_progress; }
    SeriesChartWidget* chart() const { return m_chart; }
    QSpinBox* tokenBox() const { return m_token; }
    QComboBox* contentsPolicyBox() const { return m_contentsPolicy; } // whose cache is listed
    // One line after a run whose window-only and sinks curves agree (analysis/sinkverdict.h): this model has
    // no sinks, and the guided list's decoder does. "" otherwise.
    QString sinkVerdictText() const;

Q_SIGNALS:
    void progressed(int done, int total);
    void runFinished();

private:
    void retranslate() override;
    void updateControls();
    void updateChart();
    void updateContents();
    void browse();

    std::vector<StreamEvaluation> m_evaluations;
    QStringList m_tokens; // the labels of the last run's tokens (explorer/tokenlabels.h)

    QLabel* m_fileLabel = nullptr;
    QLineEdit* m_file = nullptr;
    bool m_fileIsBuiltin = true; // the field shows builtinTextLabel() (kept in step across languages)
    QPushButton* m_browse = nullptr;
    QCheckBox* m_paragraphs = nullptr;
    QLabel* m_cacheLabel = nullptr;
    QSpinBox* m_cacheSize = nullptr;
    QLabel* m_maxTokensLabel = nullptr;
    QSpinBox* m_maxTokens = nullptr;
    QLabel* m_policiesLabel = nullptr;
    std::vector<std::pair<int, QCheckBox*>> m_sinks;
    QCheckBox* m_recompute = nullptr;
    QCheckBox* m_full = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QProgressBar* m_progress = nullptr;
    SeriesChartWidget* m_chart = nullptr;
    QLabel* m_tokenLabel = nullptr;
    QSpinBox* m_token = nullptr;
    QLabel* m_policyLabel = nullptr;
    QComboBox* m_contentsPolicy = nullptr;
    QLabel* m_contents = nullptr;
    QLabel* m_sinkVerdict = nullptr;
};

} // namespace attnscope
