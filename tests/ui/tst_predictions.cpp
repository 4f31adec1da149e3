// The predictions panel (issue 5: "the app shows the top-5 predictions for a masked or next token"):
// its numbers come from the same forward pass as the attention and must equal the training tool's
// float64 reference (tools/train-builtin-models/reference_outputs_*.json, computed by torch from the same
// F16 weights); its bars use an absolute 0..1 axis; the window shows it for the built-in models.

#include "explorer/predictionpanel.h"
#include "explorer/predictionswidget.h"
#include "explorer/transformerengine.h"
#include "explorer/workedexampleengine.h"
#include "mainwindow.h"

#include <QFile>
#include <QGroupBox>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStandardPaths>
#include <QtTest>
#include <cmath>

using namespace attnscope;

namespace {

QString sourcePath(const QString& relative)
{
    return QStringLiteral(ATTNSCOPE_SOURCE_DIR "/") + relative;
}

QJsonArray referenceItems(const QString& kind)
{
    QFile file(sourcePath(QStringLiteral("tools/train-builtin-models/reference_outputs_%1.json").arg(kind)));
    if (!file.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(file.fileName()));
    return QJsonDocument::fromJson(file.readAll()).object().value(QStringLiteral("items")).toArray();
}

QString modelFolder(const QString& kind)
{
    return sourcePath(kind == QLatin1String("decoder") ? QStringLiteral("resources/models/tiny-llama-en-tr")
                                                       : QStringLiteral("resources/models/tiny-bert-en-tr"));
}

// The reference's predictions of one item as [position, [{id, token, prob}...]] groups.
QJsonArray referenceGroups(const QJsonObject& item)
{
    if (item.contains(QStringLiteral("next_token_top5"))) {
        const QJsonArray next = item.value(QStringLiteral("next_token_top5")).toArray();
        if (next.isEmpty()) return {};
        QJsonObject group;
        group.insert(QStringLiteral("position"), item.value(QStringLiteral("ids")).toArray().size() - 1);
        group.insert(QStringLiteral("top5"), next);
        return QJsonArray{group};
    }
    return item.value(QStringLiteral("mask_top5")).toArray();
}

} // namespace

class TestPredictions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void panelMatchesReference_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QJsonObject>("item");
        int rows = 0;
        for (const QString& kind : {QStringLiteral("decoder"), QStringLiteral("encoder")})
            for (const QJsonValue& value : referenceItems(kind)) {
                const QJsonObject item = value.toObject();
                if (referenceGroups(item).isEmpty()) continue;
                QTest::addRow("%s: %s", qPrintable(kind),
                              qPrintable(item.value(QStringLiteral("text")).toString()))
                    << kind << item;
                ++rows;
            }
        QVERIFY2(rows >= 3, "the reference files have fewer predictions than expected");
    }

    void panelMatchesReference()
    {
        QFETCH(QString, kind);
        QFETCH(QJsonObject, item);
        const auto engine = TransformerEngine::open(modelFolder(kind), 1);
        const QJsonValue pair = item.value(QStringLiteral("pair"));
        const AttentionRun run =
            engine->run(item.value(QStringLiteral("text")).toString(),
                        pair.isString() ? std::optional<QString>(pair.toString()) : std::nullopt, nullptr);
        const PredictionPanel panel = buildPredictionPanel(run);
        const QJsonArray expected = referenceGroups(item);
        QCOMPARE(panel.groups.size(), expected.size());
        QVERIFY(panel.note.isEmpty());
        for (int g = 0; g < expected.size(); ++g) {
            const QJsonObject group = expected.at(g).toObject();
            const int position = group.value(QStringLiteral("position")).toInt();
            QCOMPARE(run.predictions.at(size_t(g)).position, position);
            // The heading names the token predicted from: the last token (decoder) or the [MASK].
            QVERIFY2(panel.groups.at(g).heading.contains(run.labels.at(position)),
                     qPrintable(panel.groups.at(g).heading));
            const QJsonArray top = group.value(QStringLiteral("top5")).toArray();
            QCOMPARE(panel.groups.at(g).rows.size(), top.size());
            for (int r = 0; r < top.size(); ++r) {
                const QJsonObject want = top.at(r).toObject();
                const PredictionPanelRow& row = panel.groups.at(g).rows.at(r);
                QCOMPARE(run.predictions.at(size_t(g)).top.at(r).id,
                         want.value(QStringLiteral("id")).toInt());
                QCOMPARE(row.vocabEntry, want.value(QStringLiteral("token")).toString());
                // fp32 from the F16 weights against float64 from the same weights
                QVERIFY2(std::abs(row.probability - want.value(QStringLiteral("prob")).toDouble()) < 2e-5,
                         qPrintable(QStringLiteral("%1: %2 vs %3")
                                        .arg(row.vocabEntry)
                                        .arg(row.probability)
                                        .arg(want.value(QStringLiteral("prob")).toDouble())));
                if (r > 0) QVERIFY(row.probability <= panel.groups.at(g).rows.at(r - 1).probability);
            }
        }
    }

    // The row text is the tokenizer's decoding of the id: for the SentencePiece-style decoder "▁the" reads
    // "the" (its decoder turns ▁ into a space and strips one leading space); the vocabulary entry is kept.
    void rowTextIsDecoded()
    {
        const auto engine = TransformerEngine::open(modelFolder(QStringLiteral("decoder")), 1);
        const AttentionRun run =
            engine->run(QStringLiteral("The old man walked slowly to the"), std::nullopt, nullptr);
        const PredictionPanel panel = buildPredictionPanel(run);
        QCOMPARE(panel.groups.size(), 1);
        QCOMPARE(panel.groups.front().rows.size(), TransformerEngine::kPredictionCount);
        const QChar metaspace(0x2581);
        for (const PredictionPanelRow& row : panel.groups.front().rows) {
            if (row.vocabEntry.startsWith(QLatin1String("<0x"))) continue; // a byte alone may not be UTF-8
            QString expected = row.vocabEntry;
            expected.replace(metaspace, QLatin1Char(' '));
            if (expected.startsWith(QLatin1Char(' '))) expected.remove(0, 1);
            QCOMPARE(row.text, expected);
        }
        // Probabilities are the softmax's, not renormalised over the five shown.
        double shown = 0;
        for (const PredictionPanelRow& row : panel.groups.front().rows)
            shown += row.probability;
        QVERIFY(shown > 0 && shown < 1.0);
    }

    void twoMasksGiveTwoGroups()
    {
        const auto engine = TransformerEngine::open(modelFolder(QStringLiteral("encoder")), 1);
        const AttentionRun run = engine->run(QStringLiteral("[MASK] mindere [MASK]."), std::nullopt, nullptr);
        const PredictionPanel panel = buildPredictionPanel(run);
        QCOMPARE(panel.groups.size(), 2);
        QCOMPARE(run.predictions.at(0).position, 1); // [CLS] [MASK] mind ##ere [MASK] . [SEP]
        QCOMPARE(run.predictions.at(1).position, 4);
        QVERIFY(panel.groups.at(0).heading.contains(QLatin1String("1")));
        QVERIFY(panel.groups.at(1).heading.contains(QLatin1String("2")));
    }

    void encoderWithoutMaskExplainsWhy()
    {
        const auto engine = TransformerEngine::open(modelFolder(QStringLiteral("encoder")), 1);
        const AttentionRun run = engine->run(QStringLiteral("kedi mindere oturdu"), std::nullopt, nullptr);
        QVERIFY(run.predictions.empty());
        const PredictionPanel panel = buildPredictionPanel(run);
        QVERIFY(panel.groups.isEmpty());
        QVERIFY2(panel.note.contains(QLatin1String("[MASK]")), qPrintable(panel.note));
    }

    void demosHaveNoPanel()
    {
        const AttentionRun run = WorkedExampleEngine().run(QString(), std::nullopt, nullptr);
        const PredictionPanel panel = buildPredictionPanel(run);
        QVERIFY(panel.groups.isEmpty());
        QVERIFY(panel.note.isEmpty());
    }

    void formatsThreeSignificantDigits_data()
    {
        QTest::addColumn<double>("probability");
        QTest::addColumn<QString>("text");
        QTest::newRow("large") << 0.4312 << QStringLiteral("43.1%");
        QTest::newRow("one") << 1.0 << QStringLiteral("100.0%");
        QTest::newRow("few percent") << 0.05234 << QStringLiteral("5.23%");
        QTest::newRow("below one percent") << 0.000523 << QStringLiteral("0.0523%");
        QTest::newRow("zero") << 0.0 << QStringLiteral("0%");
    }

    void formatsThreeSignificantDigits()
    {
        QFETCH(double, probability);
        QFETCH(QString, text);
        QCOMPARE(formatProbability(probability), text);
    }

    // Bars are drawn on a fixed 0..1 axis: the filled part is probability × the full bar.
    void barsUseAnAbsoluteAxis()
    {
        PredictionPanel panel;
        panel.groups.push_back({QStringLiteral("next"),
                                {{QStringLiteral("a"), QStringLiteral("a"), 0.5},
                                 {QStringLiteral("b"), QStringLiteral("b"), 0.125}}});
        panel.groups.push_back({QStringLiteral("second"), {{QStringLiteral("c"), QStringLiteral("c"), 1.0}}});
        const PredictionPanelGeometry geometry(QRectF(0, 0, 400, 300));
        for (int g = 0; g < panel.groups.size(); ++g)
            for (int r = 0; r < panel.groups.at(g).rows.size(); ++r) {
                const QRectF full = geometry.barRect(panel, g, r);
                const QRectF filled = geometry.filledBarRect(panel, g, r);
                QVERIFY(full.width() > 100);
                QCOMPARE(filled.left(), full.left());
                QVERIFY(std::abs(filled.width() - full.width() * panel.groups.at(g).rows.at(r).probability) <
                        1e-9);
                QVERIFY(geometry.textRect(panel, g, r).right() < full.left());
            }
        // Groups stack without overlapping.
        QVERIFY(geometry.groupTop(panel, 1) >= geometry.textRect(panel, 0, 1).bottom());
        QVERIFY(geometry.contentHeight(panel) >= geometry.textRect(panel, 1, 0).bottom());
    }

    // The window shows the panel for the built-in decoder with the reference's top-5, and paints it.
    void windowShowsPredictions()
    {
        MainWindow window;
        window.resize(1280, 800);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.runner()->waitForIdle(20000));
        const int decoder = window.findModel(QStringLiteral("tiny-llama-en-tr"));
        QVERIFY(decoder >= 0);
        QVERIFY(window.selectEngine(decoder));
        const QJsonObject item = referenceItems(QStringLiteral("decoder")).at(0).toObject();
        window.setTexts(item.value(QStringLiteral("text")).toString());
        QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() && window.currentResult()->textA ==
                                                               item.value(QStringLiteral("text")).toString(),
                                 20000);
        QVERIFY(window.runner()->waitForIdle(20000));
        QVERIFY(window.predictionsBox()->isVisible());
        const PredictionPanel& panel = window.predictions()->panel();
        QCOMPARE(panel.groups.size(), 1);
        const QJsonArray top = item.value(QStringLiteral("next_token_top5")).toArray();
        QCOMPARE(panel.groups.front().rows.size(), top.size());
        for (int r = 0; r < top.size(); ++r)
            QCOMPARE(panel.groups.front().rows.at(r).vocabEntry,
                     top.at(r).toObject().value(QStringLiteral("token")).toString());
        // Painted: the first bar's pixels are the bar colour up to its probability, not beyond.
        const QImage image = window.predictions()->grab().toImage();
        const PredictionPanelGeometry geometry(QRectF(window.predictions()->rect()).adjusted(2, 2, -2, -2));
        const QRectF filled = geometry.filledBarRect(panel, 0, 0);
        const QRectF full = geometry.barRect(panel, 0, 0);
        const qreal dpr = image.devicePixelRatio();
        const QPoint inside((filled.left() + filled.width() / 2) * dpr, full.center().y() * dpr);
        const QPoint beyond((filled.right() + (full.right() - filled.right()) / 2) * dpr,
                            full.center().y() * dpr);
        QCOMPARE(image.pixelColor(inside), QColor(0, 114, 178));
        QVERIFY(image.pixelColor(beyond) != QColor(0, 114, 178));

        // An encoder without [MASK]: the panel says how to get predictions.
        QVERIFY(window.selectEngine(window.findModel(QStringLiteral("tiny-bert-en-tr"))));
        window.setTexts(QStringLiteral("kedi mindere oturdu"));
        QTRY_VERIFY_WITH_TIMEOUT(window.currentResult() &&
                                     window.currentResult()->modelName.contains(QLatin1String("bert")),
                                 20000);
        QVERIFY(window.runner()->waitForIdle(20000));
        QVERIFY(window.predictionsBox()->isVisible());
        QVERIFY(window.predictions()->panel().groups.isEmpty());
        QVERIFY(window.predictions()->panel().note.contains(QLatin1String("[MASK]")));

        // The worked example is not a model: no panel.
        QVERIFY(window.selectEngine(window.findModel(WorkedExampleEngine().displayName())));
        QTRY_VERIFY_WITH_TIMEOUT(!window.predictionsBox()->isVisible(), 20000);
    }
};

QTEST_MAIN(TestPredictions)
#include "tst_predictions.moc"
