// The Corpus window (issue 17, point 2): a census of the built-in encoder fills in live, can be cancelled,
// colours the grid by the chosen metric, lists a head's strongest and weakest inputs and hands one to the
// explorer; the explorer's File menu opens it for the current model.

#include "census/censusrun.h"
#include "census/censusviews.h"
#include "census/corpuswindow.h"
#include "mainwindow.h"
#include "settings/appsettings.h"
#include "ui/support/testsettings.h"

#include <QAction>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QThread>
#include <QtTest>
#include <atomic>
#include <memory>

using namespace attnscope;

namespace {

const QString kEncoder = QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr");

// The first `count` single sentences of the shipped corpus, as plain text; their texts in `texts`.
QString writeSentences(const QTemporaryDir& dir, int count, QStringList* texts = nullptr)
{
    QFile in(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/corpus/census-sentences.jsonl"));
    in.open(QIODevice::ReadOnly);
    const QString path = dir.filePath(QStringLiteral("corpus.txt"));
    QFile out(path);
    out.open(QIODevice::WriteOnly);
    for (int i = 0; i < count && !in.atEnd(); ++i) {
        const QString text =
            QJsonDocument::fromJson(in.readLine()).object().value(QStringLiteral("text")).toString();
        out.write(text.toUtf8() + '\n');
        if (texts) *texts << text;
    }
    return path;
}

// Holds the census after `count` inputs until released (or the hold goes out of scope): a cancel then lands
// at that input on any machine, however fast or loaded. The flags are shared with the hook, which the window
// keeps for later runs.
class CensusHold
{
public:
    CensusHold(CorpusWindow& window, std::int64_t count)
    {
        window.setProgressHook([flags = m_flags, count](const CensusProgress& p) {
            if (p.inputs != count) return;
            flags->held.store(true);
            while (!flags->released.load())
                QThread::msleep(2);
        });
    }
    ~CensusHold() { release(); }
    bool isHeld() const { return m_flags->held.load(); }
    void release() { m_flags->released.store(true); }

private:
    struct Flags
    {
        std::atomic<bool> held{false}, released{false};
    };
    std::shared_ptr<Flags> m_flags = std::make_shared<Flags>();
};

} // namespace

class TestCorpusWindow : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { useEmptyTestSettings(); }

    void fillsLiveAndListsInputs()
    {
        QTemporaryDir dir;
        QStringList texts;
        const QString corpus = writeSentences(dir, 400, &texts);
        CorpusWindow window(kEncoder);
        window.setResultDirectory(dir.filePath(QStringLiteral("results")));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QSignalSpy finished(&window, &CorpusWindow::finished);
        QVERIFY(window.startCensus(corpus, false));
        QVERIFY(!window.startCensus(corpus, false)); // one at a time
        // Live: a partial snapshot is shown before the end.
        QTRY_VERIFY_WITH_TIMEOUT(window.shownSums().inputs() > 0 || !finished.isEmpty(), 120000);
        const bool sawPartial = finished.isEmpty() && window.shownSums().inputs() < 400;
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 180000);
        QCOMPARE(*window.finalStatus(), CensusStatus::Complete);
        QCOMPARE(window.shownSums().inputs(), 400);
        if (!sawPartial) qWarning("the census finished before a partial snapshot was seen");

        window.setMetric(CensusMetric::Sep);
        // Clicking the grid's L1 H3 cell selects that head.
        CensusGridView* grid = window.gridView();
        QPoint hit;
        for (int y = 0; y < grid->height() && hit.isNull(); y += 2)
            for (int x = 0; x < grid->width(); x += 2)
                if (grid->headAt(QPointF(x, y)) == std::pair{1, 3}) {
                    hit = QPoint(x + 4, y + 4);
                    break;
                }
        QVERIFY(!hit.isNull());
        QTest::mouseClick(grid, Qt::LeftButton, {}, hit);
        QCOMPARE(window.inputList()->count(), 2 * CensusAccumulator::kExtremes);
        // The first row is the input where L1 H3's [SEP] share was highest; it names its line and text.
        const CensusExtreme top = window.shownSums().strongest(1, 3, CensusMetric::Sep).front();
        const QString first = window.inputList()->item(0)->text();
        QVERIFY2(first.contains(QStringLiteral("line %1").arg(top.input)), qPrintable(first));
        QVERIFY(first.contains(texts.at(int(top.input) - 1).left(40)));

        QSignalSpy open(&window, &CorpusWindow::openInExplorer);
        window.inputList()->setCurrentRow(0);
        Q_EMIT window.inputList()->itemDoubleClicked(window.inputList()->item(0));
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.at(0).at(0).toString(), texts.at(int(top.input) - 1));
        // The map's labels: the selected head keeps its label, no label covers another or another head's
        // point, and every head is named by its tooltip even where its label is left out.
        const HeadMapView* map = window.mapView();
        const std::vector<HeadMapPoint>& points = map->points();
        QCOMPARE(int(points.size()), 6 * 8);
        const std::vector<std::optional<QRectF>> boxes = map->labelBoxes();
        QCOMPARE(boxes.size(), points.size());
        int labelled = 0;
        for (size_t i = 0; i < points.size(); ++i) {
            if (points[i].layer == 1 && points[i].head == 3) QVERIFY(boxes[i].has_value());
            if (!boxes[i]) continue;
            ++labelled;
            QVERIFY(QRectF(map->rect()).contains(*boxes[i]));
            const bool selected = points[i].layer == 1 && points[i].head == 3; // drawn on a box, over a crowd
            for (size_t j = 0; j < points.size(); ++j) {
                const QPointF at = map->position(points[j]);
                if (!selected || j == i)
                    QVERIFY2(!boxes[i]->intersects(QRectF(at - QPointF(4, 4), QSizeF(8, 8))),
                             qPrintable(HeadMapView::headLabel(points[i]) + QStringLiteral(" covers ") +
                                        HeadMapView::headLabel(points[j])));
                if (j != i && boxes[j])
                    QVERIFY2(!boxes[i]->intersects(*boxes[j]),
                             qPrintable(HeadMapView::headLabel(points[i]) + QStringLiteral(" overlaps ") +
                                        HeadMapView::headLabel(points[j])));
            }
        }
        QVERIFY2(labelled >= 12, qPrintable(QString::number(labelled))); // not an empty map either
        window.grab().save(QDir::temp().filePath(QStringLiteral("attnscope-corpuswindow.png")));
    }

    void cancels()
    {
        QTemporaryDir dir;
        const QString corpus = writeSentences(dir, 3000);
        CorpusWindow window(kEncoder);
        window.setResultDirectory(dir.filePath(QStringLiteral("results")));
        QSignalSpy finished(&window, &CorpusWindow::finished);
        CensusHold hold(window, 40);
        QVERIFY(window.startCensus(corpus, false));
        QTRY_VERIFY_WITH_TIMEOUT(hold.isHeld(), 120000); // a hang guard: the census waits here
        window.cancel();
        hold.release();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(*window.finalStatus(), CensusStatus::Cancelled);
        QCOMPARE(window.shownSums().inputs(), 40);
    }

    // Cancel, then Resume: the census goes on from its saved file to the end of the corpus; a later window
    // shows the finished file; a broken one is named in the status line.
    void resumesWhereItStopped()
    {
        QTemporaryDir dir;
        const QString corpus = writeSentences(dir, 300);
        CorpusWindow window(kEncoder);
        window.setResultDirectory(dir.filePath(QStringLiteral("results")));
        QSignalSpy finished(&window, &CorpusWindow::finished);
        QVERIFY(!window.resumeButton()->isEnabled());
        CensusHold hold(window, 100);
        QVERIFY(window.startCensus(corpus, false));
        QTRY_VERIFY_WITH_TIMEOUT(hold.isHeld(), 120000); // a hang guard: the census waits here
        window.cancel();
        hold.release();
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(*window.finalStatus(), CensusStatus::Cancelled);
        const std::int64_t before = window.shownSums().inputs();
        QCOMPARE(before, 100);
        QVERIFY(window.resultPath().startsWith(dir.filePath(QStringLiteral("results"))));
        QString error;
        const std::optional<CensusResult> saved = readCensusResult(window.resultPath(), &error);
        QVERIFY2(saved, qPrintable(error));
        QCOMPARE(saved->status, CensusStatus::Cancelled);
        QCOMPARE(saved->inputs(), before);
        QVERIFY(window.resumeButton()->isEnabled());

        QTest::mouseClick(window.resumeButton(), Qt::LeftButton);
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 2, 180000);
        QCOMPARE(*window.finalStatus(), CensusStatus::Complete);
        QCOMPARE(window.shownSums().inputs(), 300);
        QCOMPARE(window.shownSums().head(1, 3, CensusMetric::Sep).count, 300);
        QCOMPARE(window.shownSums().head(1, 3, CensusMetric::SepContribution).count, 300);
        QVERIFY(!window.resumeButton()->isEnabled());
        const std::optional<CensusResult> done = readCensusResult(window.resultPath(), &error);
        QVERIFY2(done, qPrintable(error));
        QCOMPARE(done->status, CensusStatus::Complete);
        QCOMPARE(done->inputs(), 300);
        QCOMPARE(done->singleInputs, 300);

        // A later session: the saved, finished census is shown without running the model.
        CorpusWindow later(kEncoder);
        QSignalSpy laterFinished(&later, &CorpusWindow::finished);
        QVERIFY(later.resumeCensus(window.resultPath()));
        QCOMPARE(laterFinished.size(), 1);
        QCOMPARE(later.shownSums().inputs(), 300);

        const QString broken = dir.filePath(QStringLiteral("broken.json"));
        QFile file(broken);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.write("{\"format\": \"attnscope-census\"");
        file.close();
        QVERIFY(!later.resumeCensus(broken));
        QVERIFY(later.statusLabel()->text().contains(QStringLiteral("broken.json")));
    }

    void badFileSaysSo()
    {
        QTemporaryDir dir;
        CorpusWindow window(kEncoder);
        window.setResultDirectory(dir.filePath(QStringLiteral("results")));
        QSignalSpy finished(&window, &CorpusWindow::finished);
        QVERIFY(window.startCensus(QStringLiteral("/nonexistent/corpus.txt"), false));
        QTRY_COMPARE_WITH_TIMEOUT(finished.size(), 1, 60000);
        QCOMPARE(*window.finalStatus(), CensusStatus::Failed);
        QVERIFY(window.statusLabel()->text().contains(QStringLiteral("corpus.txt")));
    }

    void explorerMenuOpensIt()
    {
        MainWindow window;
        const int index = window.findModel(QStringLiteral("tiny-bert"));
        if (index < 0) QSKIP("the built-in encoder is not in the model list");
        QVERIFY(window.selectEngine(index));
        QAction* action = window.findChild<QAction*>(QStringLiteral("corpusCensus"));
        QVERIFY(action);
        action->trigger();
        CorpusWindow* corpus = window.findChild<CorpusWindow*>();
        QVERIFY(corpus);
        QVERIFY(corpus->isVisible());
        corpus->close();
    }
};

QTEST_MAIN(TestCorpusWindow)
#include "tst_corpuswindow.moc"
