// ExplorerSession, the explorer's state without a window: its model list (checked by QAbstractItemModelTester
// through every change), choosing a model, typing, a failing and a too-long input, cancelling a run, a stale
// result dropped, switching the measure and ablating a head. No widget is made. The timing is the test's own:
// a test engine blocks inside its run at a known point until the test lets it go, and every wait is on a
// signal or on the runner becoming idle (the bounds are for liveness, never a speed target).

#include "analysis/headablation.h"
#include "attention/attentionmaps.h"
#include "explorer/explorerresult.h"
#include "explorer/explorersession.h"
#include "explorer/modellist.h"
#include "explorer/syntheticengine.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "model/modelcatalog.h"

#include <QAbstractItemModelTester>
#include <QSemaphore>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

constexpr int kLiveness = 120000; // ms: a bound for a hung run, not a speed target

// The synthetic encoder, except for three texts: "block" waits inside the run until release() (after
// saying so through entered), "fail" throws EngineError, "long" throws InputTooLongError (limit 4).
class GatedEngine : public AttentionEngine
{
public:
    QString displayName() const override { return QStringLiteral("gated test engine"); }
    QString architecture() const override { return m_inner.architecture(); }
    bool supportsTextB() const override { return true; }
    int maxTokens() const override { return 0; }

    mutable QSemaphore entered, gate;
    void release() const { gate.release(); }

protected:
    AttentionRun compute(const QString& textA, const std::optional<QString>& textB,
                         const std::atomic<bool>* cancel, const TokenWindow& window,
                         const LayerProgress& progress) const override
    {
        if (textA == QStringLiteral("fail")) throw EngineError("gated test engine: this input fails");
        if (textA == QStringLiteral("long")) throw InputTooLongError(displayName(), 9, 4);
        if (textA.startsWith(QStringLiteral("block"))) {
            entered.release();
            gate.acquire();
            // The cancel flag is not polled: the run finishes, and only the runner can drop it.
            return m_inner.run(textA, textB, nullptr, window, progress);
        }
        return m_inner.run(textA, textB, cancel, window, progress);
    }

private:
    SyntheticEngine m_inner{SyntheticEngine::Config{}};
};

// Waits for the next result of a session (or fails the test on a failure signal).
std::shared_ptr<const ExplorerResult> nextResult(ExplorerSession& session)
{
    QSignalSpy results(&session, &ExplorerSession::resultChanged);
    if (!results.wait(kLiveness)) return nullptr;
    return results.first().first().value<std::shared_ptr<const ExplorerResult>>();
}

// A session with a GatedEngine of its own chosen, on the text "the cat sat" (typed first: an empty text runs
// nothing); `first` is that first run's result, null where the engine could not be chosen or no result came.
struct GatedSession
{
    ExplorerSession session;
    std::shared_ptr<GatedEngine> engine = std::make_shared<GatedEngine>();
    std::shared_ptr<const ExplorerResult> first;
    GatedSession()
    {
        session.setTexts(QStringLiteral("the cat sat"));
        if (session.select(session.models()->addEngine(engine))) first = nextResult(session);
    }
};

} // namespace

class TestExplorerSessionModel : public QObject
{
    Q_OBJECT

private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true); // the model list's recent folders: a test location
        qputenv("ATTNSCOPE_RESOURCES_DIR", QByteArray(ATTNSCOPE_SOURCE_DIR "/resources"));
        qputenv("HF_HUB_CACHE", QByteArray("/nonexistent/attnscope-test-hub"));
    }

    // The list: the built-in models (ModelCatalog's, in its order), then the worked example and the two
    // demos; an added folder's model goes before the demos and the chosen row moves with it; a folder that is
    // not a model is refused with its path; every change passes QAbstractItemModelTester.
    void modelList()
    {
        ExplorerSession session;
        QAbstractItemModelTester tester(session.models(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        session.populate();
        const auto builtins = ModelCatalog::builtinModels();
        QVERIFY(!builtins.empty());
        ModelList& models = *session.models();
        QCOMPARE(models.count(), int(builtins.size()) + 3);
        for (int i = 0; i < int(builtins.size()); ++i) {
            QCOMPARE(models.data(models.index(i)).toString(), builtins[size_t(i)].name);
            QCOMPARE(models.data(models.index(i), ModelList::kFolderRole).toString(),
                     builtins[size_t(i)].path);
            QVERIFY(models.at(i).engine == nullptr); // opened when chosen
        }
        QCOMPARE(models.data(models.index(int(builtins.size()))).toString(),
                 WorkedExampleEngine().displayName());
        QCOMPARE(models.find(WorkedExampleEngine().displayName()), int(builtins.size()));
        QVERIFY(models.data(models.index(models.count() - 1), ModelList::kFolderRole).toString().isEmpty());

        const int demo = models.count() - 1;
        QVERIFY(session.select(demo));
        QCOMPARE(session.currentIndex(), demo);

        // A folder holding one copy of a built-in model: listed before the engines, the chosen row moves on.
        QTemporaryDir folder;
        QVERIFY(folder.isValid());
        const QString copy = folder.filePath(QStringLiteral("copy"));
        QVERIFY(QDir().mkpath(copy));
        for (const QFileInfo& file : QDir(builtins.front().path).entryInfoList(QDir::Files))
            QVERIFY(QFile::copy(file.absoluteFilePath(), copy + QLatin1Char('/') + file.fileName()));
        QCOMPARE(session.addModelListFolder(folder.path()), 1);
        QCOMPARE(models.count(), int(builtins.size()) + 4);
        QCOMPARE(QFileInfo(models.at(int(builtins.size())).folder).canonicalFilePath(),
                 QFileInfo(copy).canonicalFilePath());
        QCOMPARE(session.currentIndex(), demo + 1);
        QCOMPARE(session.currentEngine(), models.at(demo + 1).engine);
        QCOMPARE(session.addModelListFolder(folder.path()), 0); // listed once

        QSignalSpy refused(&session, &ExplorerSession::notAModel);
        session.openModel(folder.path() + QStringLiteral("/nothing-here"));
        QCOMPARE(refused.count(), 1);
        QVERIFY(refused.first().first().toString().contains(QStringLiteral("nothing-here")));
        QCOMPARE(models.count(), int(builtins.size()) + 4);
        QVERIFY(session.runner()->waitForIdle(kLiveness));
    }

    // Choosing a model runs the text on it: the result is the engine's own run of that text.
    void loadAndType()
    {
        ExplorerSession session;
        auto engine = std::make_shared<GatedEngine>();
        const int row = session.models()->addEngine(engine);
        QSignalSpy chosen(&session, &ExplorerSession::currentModelChanged);
        session.setTexts(QStringLiteral("the cat sat"));
        QVERIFY(session.result() == nullptr); // no model yet: nothing runs
        QVERIFY(session.select(row));
        QCOMPARE(chosen.count(), 1);
        QCOMPARE(chosen.first().at(1).toBool(), true);
        auto result = nextResult(session);
        QVERIFY(result);
        const AttentionRun direct = engine->run(QStringLiteral("the cat sat"), std::nullopt, nullptr);
        QCOMPARE(result->run.labels, direct.labels);
        QCOMPARE(result->modelName, engine->displayName());
        QCOMPARE(session.result(), result);

        // Typing runs after the pause, on the text typed last.
        session.setDebounceInterval(0);
        session.typeTextA(QStringLiteral("a dog"));
        session.typeTextA(QStringLiteral("a dog ran home"));
        result = nextResult(session);
        QVERIFY(result);
        QCOMPARE(result->run.labels,
                 engine->run(QStringLiteral("a dog ran home"), std::nullopt, nullptr).labels);
        QCOMPARE(session.textA(), QStringLiteral("a dog ran home"));
    }

    // A failing input: runFailed with the engine's message, no result kept; a too-long one carries the limit
    // (the window actions); a token window then runs.
    void failAndTooLong()
    {
        GatedSession gated;
        QVERIFY(gated.first);
        ExplorerSession& session = gated.session;
        QSignalSpy failed(&session, &ExplorerSession::runFailed);
        session.setTexts(QStringLiteral("fail"));
        QVERIFY(failed.wait(kLiveness));
        QCOMPARE(failed.first().at(0).toString(), QStringLiteral("gated test engine: this input fails"));
        QCOMPARE(failed.first().at(1).toInt(), 0);
        QVERIFY(session.result() == nullptr);
        QCOMPARE(session.failure(), QStringLiteral("gated test engine: this input fails"));

        failed.clear();
        session.setTexts(QStringLiteral("long"));
        QVERIFY(failed.wait(kLiveness));
        QVERIFY(session.runner()->waitForIdle(kLiveness));
        QCOMPARE(failed.count(), 1); // the job's own failure after inputTooLong is not said twice
        QCOMPARE(failed.first().at(1).toInt(), 4);
        QCOMPARE(session.failureLimit(), 4);

        session.setTexts(QStringLiteral("a b c"));
        QVERIFY(nextResult(session));
        QVERIFY(session.failure().isEmpty());
    }

    // Cancel while the run is inside the engine: nothing is shown for it, the previous result stays.
    void cancel()
    {
        GatedSession gated;
        QVERIFY(gated.first);
        ExplorerSession& session = gated.session;
        const std::shared_ptr<const ExplorerResult> before = gated.first;
        GatedEngine& engine = *gated.engine;
        QSignalSpy results(&session, &ExplorerSession::resultChanged);
        QSignalSpy failed(&session, &ExplorerSession::runFailed);
        session.setTexts(QStringLiteral("block here"));
        QVERIFY(engine.entered.tryAcquire(1, kLiveness)); // the run is inside compute()
        session.cancelRun();
        engine.release();
        QVERIFY(session.runner()->waitForIdle(kLiveness));
        QCOMPARE(results.count(), 0);
        QCOMPARE(failed.count(), 0);
        QCOMPARE(session.result(), before);
    }

    // A run outdated by a newer one finishes later: its result is dropped, never shown over the newer one.
    void staleResultDropped()
    {
        GatedSession gated;
        QVERIFY(gated.first);
        ExplorerSession& session = gated.session;
        GatedEngine& engine = *gated.engine;
        QSignalSpy results(&session, &ExplorerSession::resultChanged);
        session.setTexts(QStringLiteral("block old words"));
        QVERIFY(engine.entered.tryAcquire(1, kLiveness));
        session.setTexts(QStringLiteral("new words"));
        QVERIFY(results.wait(kLiveness)); // the newer run, while the old one still waits at the gate
        const int droppedBefore = session.runner()->droppedResults();
        engine.release();
        QVERIFY(session.runner()->waitForIdle(kLiveness));
        QCOMPARE(results.count(), 1);
        QCOMPARE(session.runner()->droppedResults(), droppedBefore + 1);
        QCOMPARE(session.result()->run.labels,
                 engine.run(QStringLiteral("new words"), std::nullopt, nullptr).labels);
    }

    // The measure: on the built-in BERT the contribution ‖αf(x)‖ replaces the weights without a new forward
    // pass (each row's shares sum to 1 and differ from α); on a demo (no value vectors) nothing reruns.
    void switchMeasure()
    {
        ExplorerSession session;
        session.populate();
        QSignalSpy measures(&session, &ExplorerSession::measureChanged);
        const int bert = session.models()->find(QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(bert >= 0);
        session.setTexts(QStringLiteral("Kupa bavula sığmadı."));
        QVERIFY(session.select(bert));
        const auto weights = nextResult(session);
        QVERIFY(weights && weights->run.measure == AttentionMeasure::Weight);
        session.setMeasure(AttentionMeasure::Contribution);
        QCOMPARE(measures.count(), 1);
        const auto contributions = nextResult(session);
        QVERIFY(contributions);
        QCOMPARE(contributions->run.measure, AttentionMeasure::Contribution);
        QCOMPARE(contributions->run.labels, weights->run.labels);
        const AttentionMaps& shares = *contributions->run.maps;
        const AttentionMaps& alpha = *weights->run.maps;
        double largestChange = 0;
        for (int layer = 0; layer < shares.layers(); ++layer)
            for (int head = 0; head < shares.heads(); ++head) {
                const std::vector<float> s = shares.matrix(layer, head), a = alpha.matrix(layer, head);
                for (int q = 0; q < shares.queries(); ++q) {
                    double sum = 0;
                    for (int k = 0; k < shares.keys(); ++k) {
                        sum += s[size_t(q * shares.keys() + k)];
                        largestChange =
                            std::max(largestChange, double(std::abs(s[size_t(q * shares.keys() + k)] -
                                                                    a[size_t(q * shares.keys() + k)])));
                    }
                    QVERIFY2(std::abs(sum - 1.0) < 1e-4, qPrintable(QString::number(sum)));
                }
            }
        QVERIFY(largestChange > 1e-3);
        session.setMeasure(AttentionMeasure::Contribution);
        QCOMPARE(measures.count(), 1); // no change, no signal

        // The demo has no value vectors: the measure is kept, the weights stay, no run starts.
        session.setMeasure(AttentionMeasure::Weight);
        QVERIFY(nextResult(session));
        QVERIFY(session.select(session.models()->count() - 2)); // the synthetic encoder
        QVERIFY(nextResult(session));
        QSignalSpy started(session.runner(), &AnalysisRunner::started);
        session.setMeasure(AttentionMeasure::Contribution);
        QCoreApplication::processEvents();
        QCOMPARE(started.count(), 0);
        QCOMPARE(session.result()->run.measure, AttentionMeasure::Weight);
        QVERIFY(session.runner()->waitForIdle(kLiveness));
    }

    // Ablation: refused with a reason on a demo; on the built-in BERT with [MASK] a head's ablation is shown
    // for that input, its unablated top prediction is the run's own, and its KL is core's AblationStudy's;
    // another input drops it.
    void ablate()
    {
        ExplorerSession session;
        session.populate();
        session.setTexts(QStringLiteral("the cat sat")); // an empty text runs nothing
        QVERIFY(session.select(session.models()->count() - 2)); // the synthetic encoder
        QVERIFY(nextResult(session));
        QVERIFY(!session.ablationUnavailableReason().isEmpty());
        QSignalSpy started(&session, &ExplorerSession::ablationStarted);
        session.ablateHeads({{0, 0, AblationMode::Zero}}, QStringLiteral("L0 H0"));
        QCOMPARE(started.count(), 0);

        const int bert = session.models()->find(QStringLiteral("tiny-bert-en-tr"));
        QVERIFY(bert >= 0);
        const QString text = QStringLiteral("Kupa [MASK] sığmadı çünkü çok büyüktü.");
        session.setTexts(text);
        QVERIFY(session.select(bert));
        std::shared_ptr<const ExplorerResult> result;
        while (!result || result->modelName != session.currentEngine()->displayName())
            QVERIFY(result = nextResult(session));
        QVERIFY2(session.ablationUnavailableReason().isEmpty(),
                 qPrintable(session.ablationUnavailableReason()));
        QSignalSpy shown(&session, &ExplorerSession::ablationShown);
        session.ablateHeads({{3, 2, AblationMode::Mean}}, QStringLiteral("L3 H2 (mean)"));
        QCOMPARE(started.count(), 1);
        QCOMPARE(session.ablationDescription(), QStringLiteral("L3 H2 (mean)"));
        QVERIFY(shown.wait(kLiveness));
        const AblationOutcome outcome = shown.first().first().value<AblationOutcome>();
        QCOMPARE(outcome.originalTop.front().top.front().id, result->run.predictions.front().top.front().id);
        const auto engine = std::dynamic_pointer_cast<const TransformerEngine>(session.currentEngine());
        QVERIFY(engine);
        AblationStudyOptions options;
        options.topK = TransformerEngine::kPredictionCount;
        const AblationStudy study(engine->model(), result->run.ids, result->run.typeIds, options);
        const double kl = study.ablate({{3, 2, AblationMode::Mean}}).kl;
        QVERIFY2(std::abs(outcome.effect.kl - kl) <= 1e-7 + 1e-5 * std::abs(kl),
                 qPrintable(QStringLiteral("%1 vs %2").arg(outcome.effect.kl).arg(kl)));

        // Another input: the ablation no longer applies.
        QSignalSpy results(&session, &ExplorerSession::resultChanged);
        session.setTexts(QStringLiteral("Kupa [MASK] sığmadı."));
        QVERIFY(results.wait(kLiveness));
        QCOMPARE(results.first().at(1).toBool(), false);
        QVERIFY(session.ablationDescription().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestExplorerSessionModel)
#include "tst_explorer_session_model.moc"
