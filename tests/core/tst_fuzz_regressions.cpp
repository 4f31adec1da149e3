// Inputs the fuzzers (fuzz/, tools/fuzz.sh) or the issue-18 review found harmful, replayed through the same
// entry points as the harnesses: each must now give its parser's typed error or a valid result, never a
// crash, an out-of-bounds access or undefined behaviour (the asan suite runs this too). One folder per
// harness in tests/data/fuzz/; a file's name says what it was.

#include "hub/hublisting.h"
#include "io/npy.h"
#include "model/ggufmodel.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "model/safetensorsfile.h"
#include "support/testdata.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"

#include <QDir>
#include <QTemporaryDir>
#include <QtTest>
#include <vector>

using namespace attnscope;
using namespace attnscope::testing;

namespace {

const QString kRegressions = QStringLiteral(ATTNSCOPE_FIXTURES_DIR "/fuzz");

QByteArray readAll(const QString& path)
{
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

// What the harness of that name does with the bytes; "" on success, the typed error's text otherwise.
// Any other exception escapes and fails the test.
QString replayInput(const QString& harness, const QByteArray& bytes)
{
    return inputErrorOf([&]() -> QString {
        if (harness == QLatin1String("safetensors")) {
            const auto* data = reinterpret_cast<const unsigned char*>(bytes.constData());
            const SafetensorsHeader header =
                parseSafetensorsHeader(data, bytes.size(), QStringLiteral("input"));
            for (const TensorInfo& tensor : header.tensors) {
                std::vector<float> values(size_t(tensor.elementCount()));
                convertTensorRange(tensor, data + header.dataStart, 0, tensor.elementCount(), values.data());
            }
        } else if (harness == QLatin1String("config")) {
            ModelConfig::fromJsonBytes(bytes, QStringLiteral("config.json"));
        } else if (harness == QLatin1String("npy")) {
            parseNpy(bytes, QStringLiteral("input.npy")).toFloat();
        } else if (harness == QLatin1String("tokenizer")) {
            const qsizetype nul = bytes.indexOf('\0');
            const QByteArray json = nul < 0 ? bytes : bytes.left(nul);
            const QString text = nul < 0 ? QString() : QString::fromUtf8(bytes.mid(nul + 1));
            const auto tokenizer = Tokenizer::fromJsonBytes(json, QStringLiteral("tokenizer.json"));
            const Encoding single = tokenizer->encode(text);
            tokenizer->decode(single.ids, false);
            tokenizer->decode(tokenizer->encode(text, text.left(text.size() / 2)).ids);
        } else if (harness == QLatin1String("hublisting")) {
            QString error;
            const auto listing = hub::parseListing(bytes, &error);
            if (!listing) return error.isEmpty() ? QStringLiteral("?") : error;
            hub::selectFiles(*listing, {});
        } else if (harness == QLatin1String("gguf")) {
            // The harness's stages in order, the first error ending the replay (the harness goes on).
            QTemporaryDir dir;
            const QString path = dir.filePath(QStringLiteral("input.gguf"));
            QFile file(path);
            if (!file.open(QIODevice::WriteOnly) || file.write(bytes) != bytes.size())
                return QStringLiteral("?");
            file.close();
            const GgufFile gguf(path);
            for (const GgufTensor& tensor : gguf.tensors())
                if (tensor.rows() >= 1 && tensor.rowElements() <= (1 << 20)) {
                    std::vector<float> row(size_t(tensor.rowElements()));
                    gguf.dequantizeRows(tensor, 0, 1, row.data());
                }
            ModelConfig::fromJson(describeGgufModel(gguf).config, path);
            const GgufVocabulary vocabulary = readGgufVocabulary(gguf);
            if (!vocabulary.model.isEmpty())
                Tokenizer::fromGgufVocabulary(vocabulary, path)->encode(QStringLiteral("Hello world"));
        }
        return {};
    });
}

} // namespace

class TestFuzzRegressions : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void replay_data()
    {
        QTest::addColumn<QString>("harness");
        QTest::addColumn<QString>("path");
        const QDir root(kRegressions);
        for (const QString& harness : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name))
            for (const QString& file : QDir(root.filePath(harness)).entryList(QDir::Files, QDir::Name))
                QTest::newRow(qPrintable(harness + QLatin1Char('/') + file))
                    << harness << root.filePath(harness + QLatin1Char('/') + file);
    }
    void replay()
    {
        QFETCH(QString, harness);
        QFETCH(QString, path);
        const QString error = replayInput(harness, readAll(path));
        // Inputs named "refused-*" must be refused, with one line naming the problem.
        if (QFileInfo(path).fileName().startsWith(QLatin1String("refused-")))
            QVERIFY2(!error.isEmpty() && !error.contains(QLatin1Char('\n')), qPrintable(error));
    }
};

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
