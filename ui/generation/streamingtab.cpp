#include "generation/streamingtab.h"

#include "analysis/modeltext.h"
#include "analysis/sinkverdict.h"
#include "explorer/backgroundjob.h"
#include "explorer/guidedmodellist.h"
#include "explorer/tokenlabels.h"
#include "explorer/transformerengine.h"
#include "generation/paragraphinput.h"
#include "generation/serieschart.h"
#include "io/inputfile.h"
#include "model/modelconfig.h"
#include "model/transformermodel.h"
#include "tokenizer/tokenizer.h"
#include "util/operationcancelled.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QStringDecoder>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

namespace attnscope {

namespace {
constexpr int kSinkChoices[] = {0, 1, 2, 4, 8};

// The whole file as UTF-8 text; throws a one-line message naming the file and the problem.
QString readTextFile(const QString& path)
{
    const QString shown = path.startsWith(QLatin1Char(':')) ? QFileInfo(path).fileName() : path;
    // The input rules (io/inputfile.h): a regular file within the text limit (a FIFO blocked forever).
    QString problem;
    const std::optional<QByteArray> read = readInputFile(path, kMaxTextFileBytes, &problem);
    if (!read)
        throw std::runtime_error(
            QCoreApplication::translate("attnscope::StreamingTab", "%1: cannot read it (%2)")
                .arg(shown, problem)
                .toStdString());
    const QByteArray& bytes = *read;
    QStringDecoder decoder(QStringDecoder::Utf8);
    QString text = decoder(bytes);
    if (decoder.hasError())
        throw std::runtime_error(QCoreApplication::translate("attnscope::StreamingTab", "%1: not UTF-8 text")
                                     .arg(shown)
                                     .toStdString());
    return text;
}

// The model folder's "paragraphs" setting (throws ModelError naming its attnscope.json when it is bad).
ParagraphJoin paragraphJoinOf(const TransformerModel& model)
{
    return paragraphJoinFromSetting(model.info().paragraphs,
                                    QDir(model.info().path).filePath(QStringLiteral("attnscope.json")));
}

// The text's ids and their labels. As one text: the tokenizer's encoding (with its special tokens). One
// paragraph per line: paragraphPieces in the model's training format, each paragraph labelled on its own text
// and each <s> or </s> by its vocabulary string.
struct LabelledIds
{
    std::vector<int> ids;
    QStringList labels;
};
LabelledIds labelledIds(const TransformerEngine& engine, const QString& text, bool paragraphs)
{
    const Tokenizer& tokenizer = engine.tokenizer();
    LabelledIds result;
    if (!paragraphs) {
        const Encoding encoding = tokenizer.encode(text, std::nullopt);
        result.ids = encoding.ids;
        // Labelled as the heatmap labels them: word-start markers ("▁the", "Ġthe") keep the spaces that
        // decoding each token alone drops.
        result.labels = attnscope::tokenLabels(modelText(encoding, tokenizer, text, std::nullopt));
        return result;
    }
    for (const ParagraphPiece& piece : paragraphPieces(tokenizer, text, paragraphJoinOf(engine.model()))) {
        result.ids.insert(result.ids.end(), piece.encoding.ids.begin(), piece.encoding.ids.end());
        result.labels +=
            piece.text.isEmpty()
                ? piece.encoding.tokens
                : attnscope::tokenLabels(modelText(piece.encoding, tokenizer, piece.text, std::nullopt));
    }
    return result;
}
} // namespace

QString StreamingTab::defaultTextFile()
{
    return QStringLiteral(":/corpus/stream-en.txt");
}

QString StreamingTab::builtinTextLabel()
{
    return tr("built-in: %1").arg(QFileInfo(defaultTextFile()).fileName());
}

QString StreamingTab::textFilePath() const
{
    const QString text = m_file->text().trimmed();
    return text == builtinTextLabel() ? defaultTextFile() : text;
}

StreamingTab::StreamingTab(QWidget* parent) : DecoderTab(parent)
{
    auto* layout = new QVBoxLayout(this);
    auto* fileRow = new QHBoxLayout;
    m_fileLabel = new QLabel(this);
    m_file = new QLineEdit(this);
    connect(m_file, &QLineEdit::textChanged, this,
            [this](const QString& text) { m_fileIsBuiltin = text.trimmed() == builtinTextLabel(); });
    m_browse = new QPushButton(this);
    fileRow->addWidget(m_fileLabel);
    fileRow->addWidget(m_file, 1);
    fileRow->addWidget(m_browse);
    m_paragraphs = new QCheckBox(this);
    m_paragraphs->setChecked(true); // the shipped texts are one paragraph per line
    fileRow->addWidget(m_paragraphs);
    m_cacheLabel = new QLabel(this);
    m_cacheSize = newSpinBox(2, 32768, 256);
    m_maxTokensLabel = new QLabel(this);
    m_maxTokens = newSpinBox(3, 1000000, 2000);
    fileRow->addWidget(m_cacheLabel);
    fileRow->addWidget(m_cacheSize);
    fileRow->addWidget(m_maxTokensLabel);
    fileRow->addWidget(m_maxTokens);
    layout->addLayout(fileRow);

    auto* policyRow = new QHBoxLayout;
    m_policiesLabel = new QLabel(this);
    policyRow->addWidget(m_policiesLabel);
    for (int k : kSinkChoices) {
        auto* box = new QCheckBox(this);
        box->setChecked(k == 0 || k == 4);
        m_sinks.emplace_back(k, box);
        policyRow->addWidget(box);
    }
    m_recompute = new QCheckBox(this);
    m_recompute->setChecked(true);
    m_full = new QCheckBox(this);
    policyRow->addWidget(m_recompute);
    policyRow->addWidget(m_full);
    policyRow->addStretch(1);
    m_run = new QPushButton(this);
    m_cancel = new QPushButton(this);
    policyRow->addWidget(m_run);
    policyRow->addWidget(m_cancel);
    layout->addLayout(policyRow);

    m_progress = new QProgressBar(this);
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    layout->addWidget(m_progress);
    m_messageLabel = new QLabel(this);
    m_messageLabel->setWordWrap(true);
    m_messageLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_messageLabel);
    m_sinkVerdict = new QLabel(this);
    m_sinkVerdict->setObjectName(QStringLiteral("sinkVerdict"));
    m_sinkVerdict->setWordWrap(true);
    m_sinkVerdict->setVisible(false);
    layout->addWidget(m_sinkVerdict);
    m_chart = new SeriesChartWidget(this);
    layout->addWidget(m_chart, 3);

    auto* tokenRow = new QHBoxLayout;
    m_tokenLabel = new QLabel(this);
    m_token = new QSpinBox(this);
    m_token->setRange(0, 0);
    m_policyLabel = new QLabel(this);
    m_contentsPolicy = new QComboBox(this);
    m_contentsPolicy->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    tokenRow->addWidget(m_tokenLabel);
    tokenRow->addWidget(m_token);
    tokenRow->addWidget(m_policyLabel);
    tokenRow->addWidget(m_contentsPolicy);
    tokenRow->addStretch(1);
    layout->addLayout(tokenRow);
    m_contents = new QLabel(this);
    m_contents->setWordWrap(true);
    m_contents->setTextFormat(Qt::RichText);
    m_contents->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    m_contents->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_contents, 1);

    connect(m_run, &QPushButton::clicked, this, &StreamingTab::run);
    connect(m_cancel, &QPushButton::clicked, this, &StreamingTab::cancel);
    connect(m_browse, &QPushButton::clicked, this, &StreamingTab::browse);
    connect(m_token, &QSpinBox::valueChanged, this, [this](int t) {
        m_chart->setHighlightedX(t);
        updateContents();
    });
    connect(m_chart, &SeriesChartWidget::xClicked, this, &StreamingTab::setInspectedToken);
    connect(m_contentsPolicy, &QComboBox::currentIndexChanged, this, &StreamingTab::updateContents);
    connect(m_cacheSize, &QSpinBox::valueChanged, this, &StreamingTab::retranslate);
    connect(m_job, &BackgroundJob::finished, this, [this](quint64, bool cancelled) {
        if (cancelled && m_ending.isEmpty()) m_ending = tr("Cancelled.");
        setMessage(m_ending);
        m_sinkVerdict->setText(sinkVerdictText());
        m_sinkVerdict->setVisible(!m_sinkVerdict->text().isEmpty());
        updateControls();
        Q_EMIT runFinished();
    });
    retranslate();
    updateControls();
    updateChart();
}

StreamingTab::~StreamingTab()
{
    m_job->cancel();
    m_job->waitForIdle(-1);
}

QCheckBox* StreamingTab::sinksBox(int k) const
{
    for (const auto& [sinks, box] : m_sinks)
        if (sinks == k) return box;
    return nullptr;
}

void StreamingTab::retranslate()
{
    m_fileLabel->setText(tr("Text file"));
    if (m_fileIsBuiltin) m_file->setText(builtinTextLabel());
    m_file->setToolTip(tr("A long UTF-8 text; %1 is the English text shipped with AttnScope")
                           .arg(QFileInfo(defaultTextFile()).fileName()));
    m_browse->setText(tr("Choose…"));
    m_paragraphs->setText(tr("Paragraph per line"));
    QString format = tr("<s> p1 </s> p2 </s> …, each paragraph followed by the end-of-text token");
    if (m_engine) {
        try {
            if (paragraphJoinOf(m_engine->model()) == ParagraphJoin::Space)
                format = tr("<s> p1 p2 …, the paragraphs joined by a space");
        } catch (const std::exception&) {
            // a bad setting is reported when the run starts
        }
    }
    m_paragraphs->setToolTip(
        tr("Checked: each line is a paragraph, fed as the model was trained (%1; its attnscope.json "
           "\"paragraphs\"). Unchecked: the whole file as one text, line breaks included.")
            .arg(format.toHtmlEscaped()));
    m_cacheLabel->setText(tr("Cache size"));
    m_maxTokensLabel->setText(tr("Tokens"));
    m_maxTokens->setToolTip(tr("Read at most this many tokens of the text"));
    m_policiesLabel->setText(tr("Policies:"));
    const int cache = m_cacheSize->value();
    for (const auto& [k, box] : m_sinks) {
        box->setText(k == 0 ? tr("window only") : tr("%n sink(s)", nullptr, k));
        box->setToolTip(k == 0
                            ? tr("The %1 most recent tokens, the oldest evicted").arg(cache)
                            : tr("The first %1 tokens kept, plus the %2 most recent").arg(k).arg(cache - k));
    }
    m_recompute->setText(tr("recompute"));
    m_recompute->setToolTip(tr("Sliding window with re-computation: each token is predicted by a fresh pass "
                               "over the previous %1 tokens (the costly gold standard)")
                                .arg(cache));
    m_full->setText(tr("full"));
    m_full->setToolTip(tr("Every earlier token, up to the model's positions"));
    m_run->setText(tr("Run"));
    m_cancel->setText(tr("Cancel"));
    m_tokenLabel->setText(tr("Cache at token"));
    m_policyLabel->setText(tr("for"));
    setMessage(m_ending.isEmpty() ? m_unavailable : m_ending);
    updateChart();
    updateContents();
}

void StreamingTab::setEngine(std::shared_ptr<const AttentionEngine> engine)
{
    chooseDecoder(engine,
                  tr("The streaming experiment needs a decoder model (a built-in decoder or an opened "
                     "folder); the worked example and the demos have no KV cache."),
                  tr("%1 is an encoder: it has no KV cache to stream through. Choose a decoder (e.g. "
                     "tiny-llama-en-tr)."));
    retranslate(); // the paragraph format's tooltip names the model's
    setMessage(m_unavailable);
    updateControls();
}

std::vector<CachePolicy> StreamingTab::chosenPolicies() const
{
    std::vector<CachePolicy> policies;
    const int cache = m_cacheSize->value();
    for (const auto& [k, box] : m_sinks)
        if (box->isChecked() && k < cache) policies.push_back(CachePolicy::sinksWindow(cache, k));
    if (m_recompute->isChecked()) policies.push_back(CachePolicy::recompute(cache));
    if (m_full->isChecked()) policies.push_back(CachePolicy::full());
    return policies;
}

void StreamingTab::updateControls()
{
    const bool running = m_job->isRunning();
    m_run->setEnabled(m_engine && !running);
    m_cancel->setEnabled(running);
}

void StreamingTab::browse()
{
    const QString path = QFileDialog::getOpenFileName(this, tr("Choose a long text"), QString(),
                                                      tr("Text files (*.txt);;All files (*)"));
    if (!path.isEmpty()) m_file->setText(path);
}

void StreamingTab::run()
{
    if (!m_engine) {
        setMessage(m_unavailable);
        return;
    }
    const std::vector<CachePolicy> policies = chosenPolicies();
    if (policies.empty()) {
        setMessage(tr("Choose at least one policy."));
        return;
    }
    const int cache = m_cacheSize->value();
    const int positions = m_engine->model().config().maxPositions;
    if (positions > 0 && cache > positions) {
        setMessage(tr("A cache of %1 entries is larger than the %2 positions of %3.")
                       .arg(cache)
                       .arg(positions)
                       .arg(m_engine->displayName()));
        return;
    }
    const std::shared_ptr<const TransformerEngine> engine = m_engine;
    const QString path = textFilePath();
    const int maxTokens = m_maxTokens->value();
    const bool paragraphs = m_paragraphs->isChecked();
    m_evaluations.clear();
    m_tokens.clear();
    m_ending.clear();
    m_progress->setRange(0, 1);
    m_progress->setValue(0);
    setMessage(tr("Reading %1…").arg(QFileInfo(path).fileName()));
    updateChart();
    updateContents();

    m_job->start([this, engine, path, maxTokens, paragraphs, policies](const std::atomic<bool>& cancelFlag,
                                                                       const BackgroundJob::Post& post) {
        QString ending;
        try {
            const QString text = readTextFile(path);
            LabelledIds input = labelledIds(*engine, text, paragraphs);
            std::vector<int>& ids = input.ids;
            if (int(ids.size()) > maxTokens) ids.resize(size_t(maxTokens));
            const QStringList tokens = input.labels.mid(0, int(ids.size()));
            post([this, tokens] { m_tokens = tokens; });
            const int count = int(ids.size());
            for (size_t p = 0; p < policies.size(); ++p) {
                StreamOptions options;
                options.threads = 1; // one of the two cores stays with the GUI
                options.cancel = &cancelFlag;
                StreamEvaluation partial;
                partial.policy = policies[p];
                partial.tokens = count;
                post([this, partial] {
                    m_evaluations.push_back(partial);
                    updateChart();
                });
                options.progress = [this, &post, p, &policies](const StreamProgress& progress) {
                    std::vector<float> nll = progress.nll ? *progress.nll : std::vector<float>();
                    const int done = progress.done, total = progress.total;
                    const QString name = policyLabel(policies[p]);
                    const int policyCount = int(policies.size());
                    post([this, nll, done, total, p, name, policyCount] {
                        m_evaluations.back().nll = nll;
                        m_progress->setRange(0, policyCount * std::max(1, total));
                        m_progress->setValue(int(p) * std::max(1, total) + done);
                        setMessage(tr("%1: %2 of %3 tokens").arg(name).arg(done).arg(total));
                        updateChart();
                        Q_EMIT progressed(done, total);
                    });
                };
                StreamEvaluation result = evaluateStream(engine->model(), ids, policies[p], options);
                post([this, result] {
                    m_evaluations.back() = result;
                    updateChart();
                    updateContents();
                });
            }
            ending = paragraphs ? tr("%n token(s) of the text, a paragraph per line as the model was trained",
                                     nullptr, count)
                                : tr("%n token(s) of the text", nullptr, count);
        } catch (const OperationCancelled&) {
            return;
        } catch (const std::exception& e) {
            ending = QString::fromUtf8(e.what());
        }
        post([this, ending] {
            m_ending = ending;
            if (!m_evaluations.empty()) {
                QStringList lines{ending};
                for (const StreamEvaluation& e : m_evaluations)
                    lines << tr("%1: perplexity %2 (%3 s)")
                                 .arg(policyLabel(e.policy), QLocale().toString(e.perplexity(), 'f', 2),
                                      QLocale().toString(e.seconds, 'f', 1));
                m_ending = lines.join(QStringLiteral(" · "));
            }
        });
    });
    updateControls();
}

void StreamingTab::updateChart()
{
    SeriesChartData data = streamChartData(m_evaluations);
    if (m_evaluations.empty()) data.title = tr("Running perplexity (press Run)");
    m_chart->setData(std::move(data));
    const int tokens = m_tokens.size();
    {
        const QSignalBlocker blocker(m_token);
        m_token->setRange(0, std::max(0, tokens - 1));
    }
    // Policies whose cache can be listed: the sinks+window ones.
    const QString chosen = m_contentsPolicy->currentText();
    const QSignalBlocker blocker(m_contentsPolicy);
    m_contentsPolicy->clear();
    for (const StreamEvaluation& e : m_evaluations)
        if (e.policy.kind == CachePolicyKind::SinksWindow) m_contentsPolicy->addItem(policyLabel(e.policy));
    if (const int i = m_contentsPolicy->findText(chosen); i >= 0) m_contentsPolicy->setCurrentIndex(i);
}

void StreamingTab::setInspectedToken(int token)
{
    m_token->setValue(token);
}

int StreamingTab::inspectedToken() const
{
    return m_token->value();
}

QString StreamingTab::cacheContentsText() const
{
    return m_contents->text();
}

void StreamingTab::updateContents()
{
    const StreamEvaluation* chosen = nullptr;
    for (const StreamEvaluation& e : m_evaluations)
        if (e.policy.kind == CachePolicyKind::SinksWindow &&
            policyLabel(e.policy) == m_contentsPolicy->currentText())
            chosen = &e;
    if (!chosen || m_tokens.isEmpty()) {
        m_contents->setText(tr("Run a window or sinks policy to see which tokens its cache holds."));
        return;
    }
    const int t = std::clamp(m_token->value(), 0, int(m_tokens.size()) - 1);
    const std::vector<int> held = sinksWindowContents(chosen->policy, t);
    QStringList pieces;
    int previous = -1;
    for (int index : held) {
        if (previous >= 0 && index != previous + 1) pieces << QStringLiteral("<b>…</b>");
        const QString token = index < m_tokens.size() ? m_tokens.at(index).toHtmlEscaped() : QString();
        const bool sink = index < chosen->policy.sinks;
        pieces << QStringLiteral("<span style=\"color:%1\">%2:%3</span>")
                      .arg(sink ? QStringLiteral("#d55e00") : QStringLiteral("#0072b2"))
                      .arg(index)
                      .arg(token.isEmpty() ? QStringLiteral("∅") : token);
        previous = index;
    }
    m_contents->setText(
        tr("At token %1 the cache of %2 holds %n token(s) (sinks in orange): ", nullptr, int(held.size()))
            .arg(t)
            .arg(policyLabel(chosen->policy).toHtmlEscaped()) +
        pieces.join(QLatin1Char(' ')));
}

QString StreamingTab::sinkVerdictText() const
{
    const StreamingSinkEvidence evidence = streamingSinkVerdict(m_evaluations);
    if (evidence.verdict != SinkVerdict::NoSinks) return QString();
    return tr("No attention sink in this model: window-only and %1 sinks stay within 5% of each other "
              "(perplexity %2 and %3). For the StreamingLLM effect, get %4 (Get a model tab).")
        .arg(evidence.sinks)
        .arg(QLocale().toString(evidence.windowPerplexity, 'f', 2),
             QLocale().toString(evidence.sinksPerplexity, 'f', 2), guidedStreamingDecoder());
}

} // namespace attnscope
