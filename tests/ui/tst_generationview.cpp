// Issue 16's GUI: the "Generate" and "Streaming" tabs. The data they paint from is checked against the core
// (a Generation's steps, an evaluateStream run) and against hand computation; the tabs are driven in a
// MainWindow with the built-in decoder tiny-llama-en-tr, and the GUI thread keeps running during a run.

#include "analysis/sinkverdict.h"
#include "explorer/heatmapwidget.h"
#include "explorer/predictionswidget.h"
#include "generation/generatetab.h"
#include "generation/generationtrace.h"
#include "generation/paragraphinput.h"
#include "generation/serieschart.h"
#include "generation/streamingtab.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "model/transformermodel.h"
#include "support/testdata.h"
#include "tokenizer/tokenizer.h"
#include "ui/support/shownwindow.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSlider>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QString decoderFolder()
{
    return QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-llama-en-tr");
}

const QString kPrompt = QStringLiteral("The cat sat on the mat and");

// A trace from the core directly, as the tab builds it.
GenerationTrace coreTrace(const TransformerModel& model, int newTokens)
{
    const std::vector<int> ids = model.tokenizer()->encode(kPrompt, std::nullopt).ids;
    GenerationOptions options;
    options.maxNewTokens = newTokens;
    options.sampling.temperature = 0;
    GenerationTrace trace;
    trace.layers = model.info().layers;
    trace.heads = model.info().heads;
    trace.promptTokens = int(ids.size());
    for (int id : ids)
        trace.labels << model.tokenizer()->decode({id}, false);
    trace.steps = generate(model, ids, options);
    for (const GenerationStep& s : trace.steps)
        trace.labels << model.tokenizer()->decode({s.id}, false);
    return trace;
}

int tabIndex(MainWindow& window, QWidget* page)
{
    return window.tabs()->indexOf(page);
}

} // namespace

class TestGenerationView : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    // The growing heatmap's row r is step r's attention row of the head shown; past a row's own query the
    // cells are masked; every row sums to 1 over its keys (softmax).
    void growingMatrixEqualsSteps()
    {
        const auto model = TransformerModel::open(decoderFolder());
        const GenerationTrace trace = coreTrace(*model, 4);
        QCOMPARE(trace.stepCount(), 4);
        for (int shown = 0; shown < trace.stepCount(); ++shown) {
            const int layer = trace.layers - 1, head = shown % trace.heads;
            const HeatmapData data = growingHeatmap(trace, shown, layer, head);
            QCOMPARE(data.rows, shown + 1);
            QCOMPARE(data.cols, trace.promptTokens + shown); // the last shown step's keys
            for (int r = 0; r < data.rows; ++r) {
                const GenerationStep& s = trace.steps[size_t(r)];
                QCOMPARE(data.matrixRow(r) + data.queryOffset, trace.promptTokens - 1 + r);
                const float* row = s.attentionRow(layer, head, trace.heads);
                double sum = 0;
                for (int c = 0; c < data.cols; ++c) {
                    QCOMPARE(data.isMasked(r, c), c > s.query);
                    if (c <= s.query) {
                        QCOMPARE(data.value(r, c), row[c]);
                        sum += data.value(r, c);
                    }
                }
                QVERIFY(std::abs(sum - 1.0) < 1e-4);
            }
            QCOMPARE(data.colLabels.size(), data.cols);
            QCOMPARE(data.colLabels.at(0), trace.labels.at(0));
        }
        const HeadGridData grid = growingGrid(trace, 2);
        QCOMPARE(int(grid.thumbnails.size()), trace.layers * trace.heads);
        QCOMPARE(grid.at(1, 2).values, growingHeatmap(trace, 2, 1, 2).values);
    }

    // Sink share: the first key's weight per step, for the chosen head and as the mean over every head.
    void sinkShareSeriesFromSteps()
    {
        const auto model = TransformerModel::open(decoderFolder());
        const GenerationTrace trace = coreTrace(*model, 3);
        const SinkShareSeries series = sinkShareSeries(trace, 1, 0);
        QCOMPARE(int(series.chosenHead.size()), 3);
        for (int s = 0; s < 3; ++s) {
            const GenerationStep& step = trace.steps[size_t(s)];
            QCOMPARE(series.chosenHead[size_t(s)], double(step.attentionRow(1, 0, trace.heads)[0]));
            double sum = 0;
            for (int l = 0; l < trace.layers; ++l)
                for (int h = 0; h < trace.heads; ++h)
                    sum +=
                        step.attention[(size_t(l) * size_t(trace.heads) + size_t(h)) * size_t(step.keys())];
            QVERIFY(std::abs(series.meanOverHeads[size_t(s)] - sum / (trace.layers * trace.heads)) < 1e-12);
        }
        const SeriesChartData chart = sinkShareChartData(series, 1, 0, 3);
        QCOMPARE(int(chart.curves.size()), 2);
        QCOMPARE(chart.yMin, 0.0);
        QCOMPARE(chart.yMax, 1.0);
        const PredictionPanel panel = stepPredictionPanel(trace, 1);
        QCOMPARE(panel.groups.size(), 1);
        QCOMPARE(panel.groups[0].rows.size(), trace.steps[1].top.top.size());
        QCOMPARE(panel.groups[0].rows[0].probability, double(trace.steps[1].top.top[0].probability));
        QVERIFY(panel.groups[0].heading.contains(formatProbability(trace.steps[1].probability)));
    }

    // The chart of a StreamEvaluation: running perplexity exp(mean nll[0..i]) by hand, one curve per policy,
    // the eviction mark at the first prediction made with a full cache, decades around the values.
    void streamChartFromEvaluations()
    {
        StreamEvaluation window;
        window.policy = CachePolicy::sinksWindow(4, 0);
        window.nll = {std::log(2.0f), std::log(8.0f), std::log(500.0f)};
        window.fullCacheFrom = 3;
        StreamEvaluation sinks;
        sinks.policy = CachePolicy::sinksWindow(4, 2);
        sinks.nll = {std::log(3.0f), std::log(3.0f)};
        sinks.fullCacheFrom = 2;
        const SeriesChartData chart = streamChartData({window, sinks});
        QCOMPARE(int(chart.curves.size()), 2);
        QVERIFY(chart.logY);
        // exp(mean(ln 2, ln 8)) = 4; exp(mean(ln 2, ln 8, ln 500)) = 2000^(1/3)
        QVERIFY(std::abs(chart.curves[0].values[0] - 2.0) < 1e-5);
        QVERIFY(std::abs(chart.curves[0].values[1] - 4.0) < 1e-5);
        QVERIFY(std::abs(chart.curves[0].values[2] - std::cbrt(8000.0)) < 1e-3);
        QCOMPARE(chart.curves[0].firstX, 1); // nll[i] predicts token i + 1
        QVERIFY(std::abs(chart.curves[1].values[1] - 3.0) < 1e-5);
        QCOMPARE(int(chart.marks.size()), 1);
        QCOMPARE(chart.marks[0].x, 3.0); // the sinks policy's fullCacheFrom 2, at token 3
        QCOMPARE(chart.yMin, 1.0);
        QCOMPARE(chart.yMax, 100.0);
        QCOMPARE(chart.xCount, 4);
        QCOMPARE(chart.curves[0].name, policyLabel(window.policy));
        QVERIFY(policyLabel(sinks.policy).contains(QLatin1String("2")));

        // The log axis: the decades at the plot's bottom and top, their geometric mean in the middle.
        const QRectF plot(10, 20, 300, 200);
        const SeriesChartGeometry geometry(plot, chart);
        QCOMPARE(geometry.yFor(1.0), plot.bottom());
        QCOMPARE(geometry.yFor(100.0), plot.top());
        QVERIFY(std::abs(geometry.yFor(10.0) - plot.center().y()) < 1e-9);
        QCOMPARE(geometry.xFor(0), plot.left());
        QCOMPARE(geometry.xFor(3), plot.right());
        QCOMPARE(geometry.indexAt(plot.right()), 3);
    }

    // The Generate tab in the window: greedy on the built-in decoder gives the core's tokens, rows and top 5;
    // a timer keeps firing on the GUI thread while it runs; stepping moves through the steps.
    void generateTabInWindow()
    {
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-llama-en-tr")));
        window.setTexts(kPrompt);
        GenerateTab* tab = window.generateTab();
        window.tabs()->setCurrentIndex(tabIndex(window, tab));
        QVERIFY(tab->message().isEmpty());
        QVERIFY(tab->generateButton()->isEnabled());
        tab->maxNewTokensBox()->setValue(5);
        tab->samplingBox()->setChecked(false);
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(1);
        QSignalSpy steps(tab, &GenerateTab::stepAdded);
        QSignalSpy finished(tab, &GenerateTab::runFinished);
        QTest::mouseClick(tab->generateButton(), Qt::LeftButton);
        QVERIFY(tab->isRunning());
        QVERIFY(tab->cancelButton()->isEnabled());
        QVERIFY(finished.wait(60000));
        QVERIFY(ticks > 0);
        QCOMPARE(steps.count(), tab->trace().stepCount());

        const auto model = TransformerModel::open(decoderFolder());
        const GenerationTrace expected = coreTrace(*model, 5);
        QCOMPARE(tab->trace().stepCount(), expected.stepCount());
        // The labels joined are the decoded sequence (spaces included).
        std::vector<int> all = model->tokenizer()->encode(kPrompt, std::nullopt).ids;
        for (const GenerationStep& s : expected.steps)
            all.push_back(s.id);
        QCOMPARE(tab->trace().labels.join(QString()), model->tokenizer()->decode(all, false));
        QCOMPARE(tab->trace().labels.size(), int(all.size()));
        for (int s = 0; s < expected.stepCount(); ++s) {
            QCOMPARE(tab->trace().steps[size_t(s)].id, expected.steps[size_t(s)].id);
            // The tab runs on one thread, the reference on all: the same sums in another order.
            const std::vector<float>& got = tab->trace().steps[size_t(s)].attention;
            const std::vector<float>& want = expected.steps[size_t(s)].attention;
            QCOMPARE(got.size(), want.size());
            for (size_t i = 0; i < got.size(); ++i)
                QVERIFY(std::abs(got[i] - want[i]) < 1e-5f);
        }
        // It follows the newest step; the views show that step.
        QCOMPARE(tab->currentStep(), expected.stepCount() - 1);
        QCOMPARE(tab->heatmap()->data().rows, expected.stepCount());
        QCOMPARE(tab->heatmap()->data().values,
                 growingHeatmap(tab->trace(), expected.stepCount() - 1, tab->layer(), tab->head()).values);
        QCOMPARE(tab->predictions()->panel().groups.size(), 1);
        QCOMPARE(int(tab->sinkChart()->data().curves[0].values.size()), expected.stepCount());
        QCOMPARE(int(tab->grid()->data().thumbnails.size()), expected.layers * expected.heads);

        // Back with the key and the button, forward with the slider.
        tab->setFocus();
        QTest::keyClick(tab, Qt::Key_Left);
        QCOMPARE(tab->currentStep(), expected.stepCount() - 2);
        QCOMPARE(tab->heatmap()->data().rows, expected.stepCount() - 1);
        tab->setStep(0);
        QCOMPARE(tab->heatmap()->data().rows, 1);
        tab->stepSlider()->setValue(2);
        QCOMPARE(tab->currentStep(), 2);
        QCOMPARE(tab->sinkChart()->highlightedX(), 2);
        tab->setHead(1, 3);
        QCOMPARE(tab->heatmap()->data().values, growingHeatmap(tab->trace(), 2, 1, 3).values);
    }

    // Cancel stops a run: no step arrives after it, the run ends and says so.
    void generateCancel()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))));
        window.setTexts(kPrompt);
        GenerateTab* tab = window.generateTab();
        tab->maxNewTokensBox()->setValue(200);
        tab->samplingBox()->setChecked(true);
        tab->seedBox()->setValue(7);
        QSignalSpy finished(tab, &GenerateTab::runFinished);
        connect(tab, &GenerateTab::stepAdded, tab, [tab] { tab->cancel(); });
        tab->generate();
        QVERIFY(finished.wait(60000));
        QVERIFY(!tab->isRunning());
        const int steps = tab->trace().stepCount();
        QVERIFY(steps >= 1);
        QTest::qWait(50);
        QCOMPARE(tab->trace().stepCount(), steps);
        QVERIFY(tab->generateButton()->isEnabled());
    }

    // Encoders and the demos cannot generate: the tabs say why and offer nothing to run.
    void encoderGetsAMessage()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-bert-en-tr"))));
        QVERIFY(window.generateTab()->message().contains(QLatin1String("encoder")));
        QVERIFY(!window.generateTab()->generateButton()->isEnabled());
        QVERIFY(window.streamingTab()->message().contains(QLatin1String("encoder")));
        QVERIFY(!window.streamingTab()->runButton()->isEnabled());
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("Synthetic decoder"))));
        QVERIFY(window.generateTab()->message().contains(QLatin1String("decoder model")));
        QVERIFY(!window.generateTab()->generateButton()->isEnabled());
    }

    // The Streaming tab on the shipped text: the curves are the core's evaluateStream results, the mark
    // where eviction begins, and the cache's contents at a token are sinksWindowContents.
    void streamingTabInWindow()
    {
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-llama-en-tr")));
        StreamingTab* tab = window.streamingTab();
        window.tabs()->setCurrentIndex(tabIndex(window, tab));
        // The field names the shipped text in words; the run reads the resource.
        QCOMPARE(tab->fileEdit()->text(), QStringLiteral("built-in: stream-en.txt"));
        QCOMPARE(tab->textFilePath(), StreamingTab::defaultTextFile());
        QCOMPARE(tab->cacheSizeBox()->value(), 256);
        QVERIFY(tab->paragraphsBox()->isChecked()); // the shipped text is one paragraph per line
        tab->paragraphsBox()->setChecked(false);    // here: the file as one text
        tab->cacheSizeBox()->setValue(16);
        tab->maxTokensBox()->setValue(60);
        tab->sinksBox(0)->setChecked(true);
        tab->sinksBox(4)->setChecked(true);
        tab->recomputeBox()->setChecked(true);
        tab->fullBox()->setChecked(false);
        const std::vector<CachePolicy> policies = tab->chosenPolicies();
        QCOMPARE(int(policies.size()), 3);
        int ticks = 0;
        QTimer timer;
        connect(&timer, &QTimer::timeout, [&ticks] { ++ticks; });
        timer.start(1);
        QSignalSpy finished(tab, &StreamingTab::runFinished);
        QTest::mouseClick(tab->runButton(), Qt::LeftButton);
        QVERIFY(finished.wait(120000));
        QVERIFY(ticks > 0);
        QVERIFY2(tab->evaluations().size() == 3, qPrintable(tab->message()));

        const auto model = TransformerModel::open(decoderFolder());
        QFile file(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/stream-en.txt"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QString fileText = QString::fromUtf8(file.readAll());
        std::vector<int> ids = model->tokenizer()->encode(fileText, std::nullopt).ids;
        ids.resize(60);
        std::vector<StreamEvaluation> expected;
        for (const CachePolicy& policy : policies)
            expected.push_back(evaluateStream(*model, ids, policy));
        for (size_t p = 0; p < expected.size(); ++p) {
            const StreamEvaluation& got = tab->evaluations()[p];
            QCOMPARE(got.nll.size(), expected[p].nll.size());
            QCOMPARE(got.fullCacheFrom, expected[p].fullCacheFrom);
            for (size_t i = 0; i < got.nll.size(); ++i)
                QVERIFY(std::abs(got.nll[i] - expected[p].nll[i]) < 1e-4);
        }
        // The one-line verdict (issue 34): what core decides from these curves, computed here independently.
        const StreamingSinkEvidence sinks = streamingSinkVerdict(expected);
        QVERIFY(sinks.verdict != SinkVerdict::Unknown);
        QCOMPARE(tab->sinkVerdictText().isEmpty(), sinks.verdict != SinkVerdict::NoSinks);
        QCOMPARE(tab->findChild<QLabel*>(QStringLiteral("sinkVerdict"))->isVisibleTo(tab),
                 !tab->sinkVerdictText().isEmpty());
        if (sinks.verdict == SinkVerdict::NoSinks)
            QVERIFY(tab->sinkVerdictText().contains(QLatin1String("HuggingFaceTB/SmolLM2-135M")));
        const SeriesChartData& chart = tab->chart()->data();
        QCOMPARE(int(chart.curves.size()), 3);
        QCOMPARE(int(chart.marks.size()), 1);
        QCOMPARE(chart.marks[0].x, double(expected[0].fullCacheFrom + 1));
        QCOMPARE(tab->progressBar()->value(), tab->progressBar()->maximum());

        // The cache of "4 sinks + 12" at token 40: tokens 0..3 and 29..40.
        const int choice = tab->contentsPolicyBox()->findText(policyLabel(CachePolicy::sinksWindow(16, 4)));
        QVERIFY(choice >= 0);
        tab->contentsPolicyBox()->setCurrentIndex(choice);
        tab->setInspectedToken(40);
        QCOMPARE(tab->chart()->highlightedX(), 40);
        const std::vector<int> held = sinksWindowContents(CachePolicy::sinksWindow(16, 4), 40);
        QCOMPARE(int(held.size()), 16);
        const QString text = tab->cacheContentsText();
        QVERIFY(text.contains(QStringLiteral("16")));
        QVERIFY2(text.contains(QStringLiteral(">3:")) && text.contains(QStringLiteral(">29:")) &&
                     text.contains(QStringLiteral(">40:")) && !text.contains(QStringLiteral(">28:")),
                 qPrintable(text));

        // Each token is listed as the heatmap labels it: the text it covers, with the vocabulary's word-start
        // marker "▁" where it begins a word (decoding a token alone drops that space). With the marker read
        // as a space, the labels of tokens 29..40 spell the text they cover, spaces included.
        const Encoding encoding = model->tokenizer()->encode(fileText, std::nullopt);
        const QStringList& labels = tab->tokenLabels();
        QCOMPARE(labels.size(), 60);
        const std::u32string points = fileText.toStdU32String();
        const size_t from = size_t(encoding.offsets[29].first), to = size_t(encoding.offsets[40].second);
        const QString covered = QString::fromStdU32String(points.substr(from, to - from));
        QString spelled, wordStarts;
        for (int i = 29; i <= 40; ++i) {
            spelled += QString(labels[i]).replace(QChar(0x2581), QLatin1Char(' '));
            if (labels[i].startsWith(QChar(0x2581))) wordStarts += labels[i];
            QVERIFY2(text.contains(QStringLiteral(">%1:%2<").arg(i).arg(labels[i].toHtmlEscaped())),
                     qPrintable(labels[i]));
        }
        QVERIFY2(!wordStarts.isEmpty(), qPrintable(covered)); // the span has words to separate
        QCOMPARE(spelled.trimmed(), covered.trimmed());
    }

    // "Paragraph per line" (the default) feeds the text as the model was trained, as `attnscope stream
    // --paragraphs` does: the curves are evaluateStream on paragraphIds in the model's format (for the
    // shipped decoder "<s> p1 </s> p2 </s> ...", built here by hand from each line's own encoding), every
    // </s> is listed as "</s>", and each paragraph's labels spell its own text.
    void streamingTabFeedsParagraphsAsTrained()
    {
        MainWindow window;
        QVERIFY(showWithModel(window, QStringLiteral("tiny-llama-en-tr")));
        StreamingTab* tab = window.streamingTab();
        QVERIFY(tab->paragraphsBox()->isChecked());
        QVERIFY2(tab->paragraphsBox()->toolTip().contains(QStringLiteral("&lt;/s&gt;")),
                 qPrintable(tab->paragraphsBox()->toolTip()));
        tab->cacheSizeBox()->setValue(16);
        tab->maxTokensBox()->setValue(120);
        for (int k : {0, 1, 2, 4, 8})
            tab->sinksBox(k)->setChecked(k == 0 || k == 4);
        tab->recomputeBox()->setChecked(false);
        tab->fullBox()->setChecked(false);
        const std::vector<CachePolicy> policies = tab->chosenPolicies();
        QCOMPARE(int(policies.size()), 2);
        QSignalSpy finished(tab, &StreamingTab::runFinished);
        tab->run();
        QVERIFY(finished.wait(120000));
        QVERIFY2(tab->evaluations().size() == 2, qPrintable(tab->message()));
        QVERIFY2(tab->message().contains(QStringLiteral("paragraph per line")), qPrintable(tab->message()));

        const auto model = TransformerModel::open(decoderFolder());
        const Tokenizer& tokenizer = *model->tokenizer();
        QFile file(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/stream-en.txt"));
        QVERIFY(file.open(QIODevice::ReadOnly));
        const QStringList lines = QString::fromUtf8(file.readAll()).split(QLatin1Char('\n'));
        const int eos = tokenizer.eosId().value();
        std::vector<int> ids{tokenizer.bosId().value()};
        QStringList paragraphs;
        for (const QString& line : lines) {
            if (line.trimmed().isEmpty()) continue;
            paragraphs << line.trimmed();
            const std::vector<int> encoded = tokenizer.encode(line.trimmed(), std::nullopt, false).ids;
            ids.insert(ids.end(), encoded.begin(), encoded.end());
            ids.push_back(eos);
            if (ids.size() >= 120) break;
        }
        ids.resize(120);
        QVERIFY2(std::count(ids.begin(), ids.end(), eos) >= 1, "the first 120 tokens should end a paragraph");
        for (size_t p = 0; p < policies.size(); ++p) {
            const StreamEvaluation expected = evaluateStream(*model, ids, policies[p]);
            const StreamEvaluation& got = tab->evaluations()[p];
            QCOMPARE(got.nll.size(), expected.nll.size());
            for (size_t i = 0; i < got.nll.size(); ++i)
                QVERIFY(std::abs(got.nll[i] - expected.nll[i]) < 1e-4);
        }

        const QStringList& labels = tab->tokenLabels();
        QCOMPARE(labels.size(), 120);
        QCOMPARE(labels.front(), tokenizer.idToToken(tokenizer.bosId().value()));
        const int firstEnd = int(std::find(ids.begin(), ids.end(), eos) - ids.begin());
        for (int i = 0; i < 120; ++i)
            QCOMPARE(labels[i] == QStringLiteral("</s>"), ids[size_t(i)] == eos);
        QString spelled;
        for (int i = 1; i < firstEnd; ++i)
            spelled += QString(labels[i]).replace(QChar(0x2581), QLatin1Char(' '));
        QCOMPARE(spelled.trimmed(), paragraphs.front());
    }

    // A long recompute run cancels within a moment, and the GUI keeps running meanwhile.
    void streamingCancel()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))));
        StreamingTab* tab = window.streamingTab();
        tab->cacheSizeBox()->setValue(256);
        tab->maxTokensBox()->setValue(4000);
        for (int k : {0, 1, 2, 4, 8})
            tab->sinksBox(k)->setChecked(false);
        tab->recomputeBox()->setChecked(true);
        QSignalSpy finished(tab, &StreamingTab::runFinished);
        QSignalSpy progressed(tab, &StreamingTab::progressed);
        tab->run();
        QVERIFY(progressed.wait(60000));
        QTest::mouseClick(tab->cancelButton(), Qt::LeftButton);
        // A hang guard, not a speed limit: the verdict is that the run ends cancelled, not how soon.
        QVERIFY(finished.wait(120000));
        QVERIFY(!tab->isRunning());
        QVERIFY(tab->message().contains(QLatin1String("Cancel")));
        QVERIFY(tab->runButton()->isEnabled());
    }

    // A file that is missing or not UTF-8: one line naming it.
    void streamingBadFile()
    {
        MainWindow window;
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))));
        StreamingTab* tab = window.streamingTab();
        QTemporaryDir dir;
        const QString bad = dir.filePath(QStringLiteral("latin1.txt"));
        QVERIFY(writeFileBytes(bad, "caf\xe9 au lait\n"));
        for (const QString& path : {bad, dir.filePath(QStringLiteral("missing.txt"))}) {
            tab->fileEdit()->setText(path);
            QSignalSpy finished(tab, &StreamingTab::runFinished);
            tab->run();
            QVERIFY(finished.wait(10000));
            QVERIFY2(tab->message().startsWith(path), qPrintable(tab->message()));
            QVERIFY(!tab->message().contains(QLatin1Char('\n')));
            QVERIFY(tab->evaluations().empty());
        }
    }

    // Not a check: with ATTNSCOPE_SHOT_DIR set, both tabs after a run at 1280×800 and 1920×1080 in English
    // and Turkish, saved there to look at.
    void screenshots()
    {
        const QString dir = qEnvironmentVariable("ATTNSCOPE_SHOT_DIR");
        if (dir.isEmpty()) QSKIP("ATTNSCOPE_SHOT_DIR not set");
        for (const QString& language : {QStringLiteral("en"), QStringLiteral("tr")}) {
            LanguageManager languages;
            QVERIFY(languages.setLanguage(language));
            for (const QSize size : {QSize(1280, 800), QSize(1920, 1080)}) {
                MainWindow window;
                window.resize(size);
                window.show();
                QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-llama-en-tr"))));
                window.setTexts(kPrompt);
                GenerateTab* generate = window.generateTab();
                window.tabs()->setCurrentWidget(generate);
                generate->maxNewTokensBox()->setValue(12);
                QSignalSpy generated(generate, &GenerateTab::runFinished);
                generate->generate();
                QVERIFY(generated.wait(60000));
                generate->setStep(8);
                QTest::qWait(100);
                const QString suffix =
                    QStringLiteral("%1-%2x%3.png").arg(language).arg(size.width()).arg(size.height());
                QVERIFY(window.grab().save(dir + QStringLiteral("/generate-") + suffix));
                StreamingTab* streaming = window.streamingTab();
                window.tabs()->setCurrentWidget(streaming);
                streaming->cacheSizeBox()->setValue(64);
                streaming->maxTokensBox()->setValue(400);
                streaming->sinksBox(1)->setChecked(true);
                QSignalSpy streamed(streaming, &StreamingTab::runFinished);
                streaming->run();
                QVERIFY(streamed.wait(300000));
                streaming->setInspectedToken(200);
                QTest::qWait(100);
                QVERIFY(window.grab().save(dir + QStringLiteral("/streaming-") + suffix));
            }
        }
    }
};

QTEST_MAIN(TestGenerationView)
#include "tst_generationview.moc"
