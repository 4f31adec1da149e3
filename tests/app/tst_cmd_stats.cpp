// attnscope stats --json on the oracle BERT fixture (and gpt_oss_s0's learned sinks): the statistics must
// match the definitions in docs/metrics.md applied by hand to the upstream attention probabilities
// (case.json, attentions.npy).

#include "io/npy.h"
#include "support/testdata.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>
#include <algorithm>
#include <cmath>

using namespace attnscope::testing;

class TestCmdStats : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void matchesHandComputationOnOracleBert()
    {
        const QString folder = QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/bert_s0");
        QFile caseFile(folder + QStringLiteral("/case.json"));
        if (!caseFile.open(QIODevice::ReadOnly)) QSKIP("oracle fixtures not available");
        const QJsonObject fixture = QJsonDocument::fromJson(caseFile.readAll()).object();
        const QString text = fixture.value(QStringLiteral("text")).toString();

        QProcess process;
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("stats"), QStringLiteral("--model"), folder, QStringLiteral("--text"),
                       text, QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(60000));
        QCOMPARE(process.exitCode(), 0);
        const QJsonObject out = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
        QCOMPARE(out.value(QStringLiteral("tokens")).toArray(),
                 fixture.value(QStringLiteral("tokens")).toArray());

        // Independent truth: the definitions applied to upstream's P, special rows ([CLS], [SEP]) excluded.
        const QJsonArray tokens = fixture.value(QStringLiteral("tokens")).toArray();
        const int n = tokens.size();
        auto special = [&](int i) { return tokens.at(i).toString().startsWith(QLatin1Char('[')); };
        // "... lazy dog.": by hand, the one punctuation token is "." just before [SEP].
        QCOMPARE(tokens.at(n - 2).toString(), QStringLiteral("."));
        const QJsonArray heads = out.value(QStringLiteral("heads")).toArray();
        QCOMPARE(heads.size(), fixtureHeadCount(fixture));
        for (const auto& [h, p] : headsWithFixtureP(heads, fixture)) {
            double entropy = 0, sink = 0, sink4 = 0, sep = 0, cls = 0, punct = 0, self = 0, prev = 0,
                   next = 0;
            int rows = 0;
            for (int i = 0; i < n; ++i) {
                if (special(i)) continue;
                const QJsonArray row = p.at(i).toArray();
                ++rows;
                for (int j = 0; j < n; ++j) {
                    const double v = row.at(j).toDouble();
                    if (v > 0) entropy -= v * std::log(v);
                }
                sink += row.at(0).toDouble();
                for (int j = 0; j < 4; ++j)
                    sink4 += row.at(j).toDouble();
                sep += row.at(n - 1).toDouble(); // the only [SEP]
                cls += row.at(0).toDouble();
                punct += row.at(n - 2).toDouble(); // the "."
                self += row.at(i).toDouble();
                prev += row.at(i - 1).toDouble(); // i >= 1 for every word row
                next += row.at(i + 1).toDouble(); // i + 1 < n for every word row
            }
            const std::vector<std::pair<QString, double>> expected{
                {QStringLiteral("entropy"), entropy / rows},  {QStringLiteral("sink_mass"), sink / rows},
                {QStringLiteral("sink4_mass"), sink4 / rows}, {QStringLiteral("sep_mass"), sep / rows},
                {QStringLiteral("cls_mass"), cls / rows},     {QStringLiteral("punct_mass"), punct / rows},
                {QStringLiteral("self"), self / rows},        {QStringLiteral("prev"), prev / rows},
                {QStringLiteral("next"), next / rows}};
            for (const auto& [key, want] : expected)
                QVERIFY2(std::abs(h.value(key).toDouble() - want) < 1e-4,
                         qPrintable(QStringLiteral("L%1 H%2 %3: %4 vs %5")
                                        .arg(h.value(QStringLiteral("layer")).toInt())
                                        .arg(h.value(QStringLiteral("head")).toInt())
                                        .arg(key)
                                        .arg(h.value(key).toDouble())
                                        .arg(want)));
            QVERIFY(!h.value(QStringLiteral("label")).toString().isEmpty());
        }
    }

    void takesTheWorkedExampleAsExportDoes()
    {
        // kedi mindere oturdu, one head, d = 4: scores q·k / 2 give rows (3, 1, 2), (1, 3, 1), (3, 1.5, 2.5);
        // P[i, 0] = e^3 / (e^3 + e + e^2) = 0.665241, e / (2e + e^3) = 0.106507, e^3 / (e^3 + e^1.5 + e^2.5)
        // = 0.546549: the sink mass is their mean, 0.439432.
        QProcess process;
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("stats"), QStringLiteral("--model"), QStringLiteral("worked-example"),
                       QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QJsonObject root = QJsonDocument::fromJson(process.readAllStandardOutput()).object();
        QCOMPARE(root.value(QStringLiteral("labels")).toArray().size(), 3);
        const QJsonObject head = root.value(QStringLiteral("heads")).toArray().at(0).toObject();
        QVERIFY(std::abs(head.value(QStringLiteral("sink_mass")).toDouble() - 0.4394324) < 1e-6);
        // A text other than the worked example's is refused in one line, as export refuses it.
        QProcess other;
        other.start(QStringLiteral(ATTNSCOPE_BINARY),
                    {QStringLiteral("stats"), QStringLiteral("--model"), QStringLiteral("worked-example"),
                     QStringLiteral("--text"), QStringLiteral("hello")});
        QVERIFY(other.waitForFinished(30000));
        QCOMPARE(other.exitCode(), 2);
        QVERIFY(
            QString::fromUtf8(other.readAllStandardError()).contains(QStringLiteral("kedi mindere oturdu")));
    }

    // gpt-oss's learned sinks: learned_sink_mass, beside sink_mass, is 1 − the row sum of the reference's P
    // (float64 numpy, tools/oracle/reference_gpt_oss.py), averaged over the rows by hand; no row is special
    // for ids without a tokenizer.
    void learnedSinkMassOfGptOss()
    {
        const QString folder = QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/oracle/gpt_oss_s0");
        QFile caseFile(folder + QStringLiteral("/case.json"));
        QVERIFY(caseFile.open(QIODevice::ReadOnly));
        QStringList ids;
        for (const QJsonValue& v : QJsonDocument::fromJson(caseFile.readAll())
                                       .object()
                                       .value(QStringLiteral("input_ids"))
                                       .toArray())
            ids << QString::number(v.toInt());
        QProcess process;
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("stats"), QStringLiteral("--model"), folder, QStringLiteral("--ids"),
                       ids.join(QLatin1Char(',')), QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(60000));
        QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
        const QJsonArray heads = QJsonDocument::fromJson(process.readAllStandardOutput())
                                     .object()
                                     .value(QStringLiteral("heads"))
                                     .toArray();
        const attnscope::NpyArray p = attnscope::readNpyFile(folder + QStringLiteral("/attentions.npy"));
        const int H = int(p.shape[1]), n = int(p.shape[2]);
        QCOMPARE(heads.size(), int(p.shape[0]) * H);
        double largest = 0;
        for (const QJsonValue& value : heads) {
            const QJsonObject head = value.toObject();
            const int l = head.value(QStringLiteral("layer")).toInt(),
                      h = head.value(QStringLiteral("head")).toInt();
            double deficit = 0;
            for (int i = 0; i < n; ++i) {
                double sum = 0;
                for (int j = 0; j < n; ++j)
                    sum += p.values[((size_t(l) * H + h) * n + i) * n + j];
                deficit += 1.0 - sum;
            }
            const double mass = head.value(QStringLiteral("learned_sink_mass")).toDouble(-1);
            QVERIFY2(
                std::abs(mass - deficit / n) < 1e-5,
                qPrintable(QStringLiteral("L%1 H%2: %3 vs %4").arg(l).arg(h).arg(mass).arg(deficit / n)));
            QVERIFY(head.contains(QStringLiteral("sink_mass")));
            largest = std::max(largest, mass);
        }
        QVERIFY(largest > 0.3);
    }

    void badModelIsOneLineError()
    {
        QProcess process;
        process.start(QStringLiteral(ATTNSCOPE_BINARY),
                      {QStringLiteral("stats"), QStringLiteral("--model"),
                       QStringLiteral("/nonexistent/model"), QStringLiteral("--text"),
                       QStringLiteral("hello"), QStringLiteral("--json")});
        QVERIFY(process.waitForFinished(30000));
        QVERIFY(process.exitCode() != 0);
        const QString err = QString::fromUtf8(process.readAllStandardError()).trimmed();
        QVERIFY(!err.isEmpty());
        QCOMPARE(err.count(QLatin1Char('\n')), 0);
        QVERIFY(process.readAllStandardOutput().isEmpty());
    }
};

QTEST_GUILESS_MAIN(TestCmdStats)
#include "tst_cmd_stats.moc"
