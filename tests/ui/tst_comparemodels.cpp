// "Same head, two models": the F32 and the Q8_0 GGUF file of one model (made here from the gpt2_s0 oracle
// case, as llama.cpp's converter would) side by side in the comparison view. Each pane must show that
// model's own attention for the head, as the core runtime computes it, and the third their difference.

#include "explorer/analysisrunner.h"
#include "explorer/comparisonwidget.h"
#include "explorer/heatmapwidget.h"
#include "explorer/transformerengine.h"
#include "model/transformermodel.h"
#include "support/ggufwriter.h"
#include "support/testdata.h"
#include "tokenizer/tokenizer.h"

#include <QJsonDocument>
#include <QJsonObject>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

QString oracleFolder(const QString& name)
{
    return QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/") + name;
}

QString caseText(const QString& name)
{
    QFile f(oracleFolder(name) + QStringLiteral("/case.json"));
    if (!f.open(QIODevice::ReadOnly)) return {};
    return QJsonDocument::fromJson(f.readAll()).object().value(QStringLiteral("text")).toString();
}

std::vector<float> headOf(const QString& path, const QString& text, int layer, int head)
{
    const auto model = TransformerModel::open(path);
    const Encoding e = model->tokenizer()->encode(text);
    return model->run(e.ids, {}).maps->matrix(layer, head);
}

} // namespace

class TestCompareModels : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_f32 = m_dir.filePath(QStringLiteral("gpt2-F32.gguf"));
        m_q8 = m_dir.filePath(QStringLiteral("gpt2-Q8_0.gguf"));
        writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), m_f32, GgmlType::F32);
        writeGgufFromFolder(oracleFolder(QStringLiteral("gpt2_s0")), m_q8, GgmlType::Q8_0);
    }

    void sameHeadOfTwoFiles()
    {
        const QString text = caseText(QStringLiteral("gpt2_s0"));
        const int layer = 1, head = 2;
        const auto first = TransformerEngine::open(m_f32, 1);
        AnalysisRunner runner;
        QSignalSpy ready(&runner, &AnalysisRunner::resultReady);
        runner.start(first, text, std::nullopt, AnalysisOptions{});
        QVERIFY(ready.wait(20000));
        const auto result = ready.at(0).at(0).value<std::shared_ptr<const ExplorerResult>>();

        ComparisonWidget view;
        view.resize(1200, 500);
        view.show();
        view.setEngine(first);
        view.setResult(result);
        view.setModelChoices({{QStringLiteral("gpt2 Q8_0"), m_q8}});
        view.setMode(ComparisonWidget::Mode::TwoModels);
        view.setHeads({{layer, head}});
        QVERIFY(view.setSecondModel(m_q8));
        QTRY_COMPARE_WITH_TIMEOUT(int(view.panes().size()), 3, 20000);

        const std::vector<float> a = headOf(m_f32, text, layer, head);
        const std::vector<float> b = headOf(m_q8, text, layer, head);
        const int n = int(std::lround(std::sqrt(double(a.size()))));
        QCOMPARE(view.panes()[0]->data().rows, n);
        QCOMPARE(maxAbsDifference(view.panes()[0]->data().values, a), 0.0);
        QCOMPARE(maxAbsDifference(view.panes()[1]->data().values, b), 0.0);
        std::vector<float> difference(a.size());
        for (size_t i = 0; i < a.size(); ++i)
            difference[i] = a[i] - b[i];
        QCOMPARE(maxAbsDifference(view.panes()[2]->data().values, difference), 0.0);
        QVERIFY(view.panes()[2]->data().signedValues);
        // The quantized file moves attention, a little (docs/gguf.md: Q8_0 below 0.04 on this case).
        const double moved = maxAbsDifference(a, b);
        QVERIFY2(moved > 0.0 && moved < 0.04, qPrintable(QString::number(moved)));
        QVERIFY(view.panes()[0]->data().title.contains(QStringLiteral("gpt2-F32.gguf")));
        QVERIFY(view.panes()[1]->data().title.contains(QStringLiteral("gpt2-Q8_0.gguf")));
    }

    // A second model that cannot be opened leaves no panes and says why.
    void secondModelThatCannotBeOpened()
    {
        ComparisonWidget view;
        view.setMode(ComparisonWidget::Mode::TwoModels);
        QVERIFY(!view.setSecondModel(m_dir.filePath(QStringLiteral("missing.gguf"))));
        QVERIFY(view.panes().empty());
    }

private:
    QTemporaryDir m_dir;
    QString m_f32, m_q8;
};

QTEST_MAIN(TestCompareModels)
#include "tst_comparemodels.moc"
