// Issue 36: the window speaks its language about a model that cannot be opened and in its status bar.
// Core says what is wrong as data (ModelProblem: kind, file, arguments) and prints it in English for the
// command line; the window words it (modelProblemText). Each failure the issue names (a missing folder, a
// config.json that is not JSON, missing weights, an unsupported architecture) is checked on the banner at
// start in English and in Turkish, naming the file, with the Turkish written out here by hand.

#include "explorer/explorersession.h"
#include "explorer/modelproblemtext.h"
#include "explorer/runstatebanner.h"
#include "i18n/languagemanager.h"
#include "mainwindow.h"
#include "model/modelcatalog.h"
#include "sessionkeeper.h"
#include "ui/support/shownwindow.h"

#include <QDir>
#include <QFile>
#include <QJsonParseError>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtEndian>
#include <QtTest>

using namespace attnscope;

namespace {

bool writeFile(const QString& path, const QByteArray& bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

QString native(const QString& path)
{
    return QDir::toNativeSeparators(path);
}

} // namespace

class TestLoadErrors : public QObject
{
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    // Each broken model's folder, by case.
    QString folder(const QString& name) const { return m_dir.filePath(name); }

private Q_SLOTS:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QVERIFY(m_dir.isValid());
        // A config.json with a syntax error at a known place: line 2 is `  "hidden_size" 8}`, the 8 (where a
        // colon should be) in column 17.
        QVERIFY(QDir().mkpath(folder(QStringLiteral("badjson"))));
        QVERIFY(writeFile(folder(QStringLiteral("badjson/config.json")),
                          "{\"model_type\": \"bert\",\n  \"hidden_size\" 8}\n"));
        // A good config.json (the built-in model's) and no weights.
        const QVector<ModelInfo> builtins = ModelCatalog::builtinModels();
        QVERIFY(!builtins.isEmpty());
        QVERIFY(QDir().mkpath(folder(QStringLiteral("noweights"))));
        QVERIFY(QFile::copy(QDir(builtins.front().path).filePath(QStringLiteral("config.json")),
                            folder(QStringLiteral("noweights/config.json"))));
        QVERIFY(QDir().mkpath(folder(QStringLiteral("mamba"))));
        QVERIFY(writeFile(folder(QStringLiteral("mamba/config.json")),
                          R"({"model_type": "mamba", "architectures": ["MambaForCausalLM"]})"));
        // The same architecture with weights large enough to load in the background
        // (ExplorerSession::kBackgroundLoadBytes): a safetensors header for one F32 tensor, its data a
        // sparse file.
        QVERIFY(QDir().mkpath(folder(QStringLiteral("bigmamba"))));
        QVERIFY(QFile::copy(folder(QStringLiteral("mamba/config.json")),
                            folder(QStringLiteral("bigmamba/config.json"))));
        const qint64 floats = ExplorerSession::kBackgroundLoadBytes / 4 + 1;
        QByteArray header =
            QStringLiteral(R"({"w": {"dtype": "F32", "shape": [%1], "data_offsets": [0, %2]}})")
                .arg(floats)
                .arg(floats * 4)
                .toUtf8();
        while (header.size() % 8)
            header += ' ';
        QFile weights(folder(QStringLiteral("bigmamba/model.safetensors")));
        QVERIFY(weights.open(QIODevice::WriteOnly));
        const quint64 length = qToLittleEndian(quint64(header.size()));
        QVERIFY(weights.write(reinterpret_cast<const char*>(&length), 8) == 8 &&
                weights.write(header) == header.size());
        QVERIFY(weights.resize(8 + header.size() + floats * 4));
        weights.close();
        const auto big = ModelCatalog::describe(folder(QStringLiteral("bigmamba")));
        QVERIFY(big && big->weightBytes >= ExplorerSession::kBackgroundLoadBytes);
    }

    void cleanup() { QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("en"))); }

    void bannerAtStartIsInTheWindowsLanguage_data()
    {
        QTest::addColumn<QString>("language");
        QTest::addColumn<QString>("model");    // what --model names
        QTest::addColumn<QString>("expected"); // the banner's failure line starts so
        QTest::addColumn<QString>("english");  // words that must not be left in the Turkish line
        QTest::addColumn<QString>("terminal"); // the terminal's line starts so, in either language
        const QString absent = folder(QStringLiteral("absent"));
        const QString badJson = native(folder(QStringLiteral("badjson/config.json")));
        const QString noWeights = native(folder(QStringLiteral("noweights")));
        const QString mamba = native(folder(QStringLiteral("mamba/config.json")));
        const QString bigMamba = native(folder(QStringLiteral("bigmamba/config.json")));
        // The CLI's words (`attnscope stats --model ...` prints the same after "attnscope: ").
        const QString absentLine =
            QStringLiteral("--model %1: no such model folder, .gguf file, built-in model (").arg(absent);
        const QString badJsonLine =
            badJson + QStringLiteral(": not valid JSON (line 2, column 17: missing name separator)");
        const QString noWeightsLine =
            noWeights + QStringLiteral(": no model.safetensors or model.safetensors.index.json");
        const QString mambaLine = mamba + QStringLiteral(": unsupported architecture 'mamba' "
                                                   "(MambaForCausalLM); supported model types: ");
        QTest::newRow("missing folder, en")
            << QStringLiteral("en") << absent
            << QStringLiteral("--model %1: no such model folder, .gguf file, built-in model (").arg(absent)
            << QString() << absentLine;
        QTest::newRow("missing folder, tr")
            << QStringLiteral("tr") << absent
            << QStringLiteral("--model %1: böyle bir model klasörü, .gguf dosyası, yerleşik model (")
                   .arg(absent)
            << QStringLiteral("no such") << absentLine;
        QTest::newRow("bad JSON, en")
            << QStringLiteral("en") << folder(QStringLiteral("badjson"))
            << badJson + QStringLiteral(": not valid JSON (line 2, column 17: missing name separator)")
            << QString() << badJsonLine;
        QTest::newRow("bad JSON, tr")
            << QStringLiteral("tr") << folder(QStringLiteral("badjson"))
            << badJson + QStringLiteral(": geçerli JSON değil (satır 2, sütun 17: ad ayırıcı (:) eksik)")
            << QStringLiteral("line") << badJsonLine;
        QTest::newRow("no weights, en")
            << QStringLiteral("en") << folder(QStringLiteral("noweights"))
            << noWeights + QStringLiteral(": no model.safetensors or model.safetensors.index.json")
            << QString() << noWeightsLine;
        QTest::newRow("no weights, tr")
            << QStringLiteral("tr") << folder(QStringLiteral("noweights"))
            << noWeights + QStringLiteral(": model.safetensors ya da model.safetensors.index.json yok")
            << QStringLiteral(" or ") << noWeightsLine;
        QTest::newRow("unsupported, en")
            << QStringLiteral("en") << folder(QStringLiteral("mamba"))
            << mamba + QStringLiteral(": unsupported architecture 'mamba' (MambaForCausalLM); supported "
                                   "model types: ")
            << QString() << mambaLine;
        QTest::newRow("unsupported, tr")
            << QStringLiteral("tr") << folder(QStringLiteral("mamba"))
            << mamba + QStringLiteral(": desteklenmeyen mimari 'mamba' (MambaForCausalLM); desteklenen "
                                   "model türleri: ")
            << QStringLiteral("supported") << mambaLine;
        // ... and one large enough to load in the background (found from config.json before that load).
        QTest::newRow("unsupported, large, en")
            << QStringLiteral("en") << folder(QStringLiteral("bigmamba"))
            << bigMamba + QStringLiteral(": unsupported architecture 'mamba' (MambaForCausalLM); "
                                      "supported model types: ")
            << QString()
            << bigMamba + QStringLiteral(": unsupported architecture 'mamba' (MambaForCausalLM); "
                                      "supported model types: ");
        QTest::newRow("unsupported, large, tr")
            << QStringLiteral("tr") << folder(QStringLiteral("bigmamba"))
            << bigMamba +
                   QStringLiteral(": desteklenmeyen mimari 'mamba' (MambaForCausalLM); desteklenen "
                                  "model türleri: ")
            << QStringLiteral("supported")
            << bigMamba + QStringLiteral(": unsupported architecture 'mamba' (MambaForCausalLM); "
                                      "supported model types: ");
    }

    void bannerAtStartIsInTheWindowsLanguage()
    {
        QFETCH(QString, language);
        QFETCH(QString, model);
        QFETCH(QString, expected);
        QFETCH(QString, english);
        QFETCH(QString, terminal);
        QVERIFY(LanguageManager::shared()->setLanguage(language));
        MainWindow window;
        window.show();
        QVERIFY(waitForShownResult(window));
        SavedSession session;
        session.model = model;
        ModelProblem problem;
        QVERIFY(!startExplorerSession(window, session, &problem));
        // The terminal's line is the CLI's, in English, in either language and for every kind: also for
        // missing weights and an architecture the runtime lacks, which only opening the model finds. One
        // line, naming the file.
        QVERIFY2(problem.english().startsWith(terminal), qPrintable(problem.english()));
        QVERIFY(!problem.english().contains(QLatin1Char('\n')));
        QCOMPARE(window.runStateBanner()->state(), RunStateBanner::State::Failure);
        const QString banner = window.runStateBanner()->failureMessage();
        // The banner words that same problem in the window's language.
        QVERIFY2(banner.startsWith(modelProblemText(problem)), qPrintable(banner));
        QVERIFY2(window.runStateBanner()->text().contains(banner),
                 qPrintable(window.runStateBanner()->text()));
        // For a person to look at (ATTNSCOPE_TEST_OUTPUT): the window at 1280×800 with its banner.
        if (const QString out = qEnvironmentVariable("ATTNSCOPE_TEST_OUTPUT"); !out.isEmpty()) {
            window.resize(1280, 800);
            QCoreApplication::processEvents();
            window.grab().save(
                QDir(out).filePath(QStringLiteral("banner-%1.png")
                                       .arg(QString::fromLatin1(QTest::currentDataTag())
                                                .replace(QLatin1Char(' '), QString())
                                                .replace(QLatin1Char(','), QLatin1Char('-')))));
        }
        QVERIFY2(banner.startsWith(expected), qPrintable(banner));
        if (!english.isEmpty()) {
            const QString line = banner.left(banner.indexOf(QStringLiteral(" — ")));
            QVERIFY2(!line.contains(english), qPrintable(line));
        } else {
            QVERIFY2(banner.startsWith(problem.english()), qPrintable(banner)); // the same line as the CLI's
        }
    }

    // Every JSON syntax error Qt names has Turkish words; in English they are Qt's own (errorString), so the
    // window and the command line say the same.
    void jsonSyntaxErrorsAreTranslated()
    {
        for (int code = QJsonParseError::UnterminatedObject; code <= QJsonParseError::GarbageAtEnd; ++code) {
            QJsonParseError error;
            error.error = QJsonParseError::ParseError(code);
            QCOMPARE(jsonSyntaxErrorText(code, QStringLiteral("?")), error.errorString());
        }
        QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("tr")));
        for (int code = QJsonParseError::UnterminatedObject; code <= QJsonParseError::GarbageAtEnd; ++code) {
            QJsonParseError error;
            error.error = QJsonParseError::ParseError(code);
            const QString turkish = jsonSyntaxErrorText(code, QStringLiteral("?"));
            QVERIFY2(turkish != error.errorString() && !turkish.isEmpty(), qPrintable(turkish));
        }
    }

    // The status bar in Turkish: the token count with Turkish plural ("5 token", never "tokens"), the CPU's
    // threads and kernels in Turkish words.
    void statusBarIsTurkish()
    {
        QVERIFY(LanguageManager::shared()->setLanguage(QStringLiteral("tr")));
        MainWindow window;
        window.show();
        window.setTexts(QStringLiteral("bir iki üç"));
        QVERIFY(waitForShownResult(window));
        const int tokens = window.currentResult()->run.maps->queries();
        QVERIFY2(window.statusText().contains(QStringLiteral("%1 token ").arg(tokens)) ||
                     window.statusText().startsWith(QStringLiteral("%1 token").arg(tokens)),
                 qPrintable(window.statusText()));
        QVERIFY2(!window.statusText().contains(QStringLiteral("tokens")), qPrintable(window.statusText()));
        const QString backend = window.backendStatus();
        if (!backend.contains(QStringLiteral("CPU"))) QSKIP("the window computes on a GPU here");
        QVERIFY2(backend.contains(QStringLiteral("iş parçacığı")) &&
                     !backend.contains(QStringLiteral("threads")) &&
                     !backend.contains(QStringLiteral(" kernels")),
                 qPrintable(backend));
    }
};

QTEST_MAIN(TestLoadErrors)
#include "tst_load_errors.moc"
