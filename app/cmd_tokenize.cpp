// attnscope tokenize: the tokenizer of a model folder on one text (or a pair), as one line of JSON.

#include "command.h"
#include "model/gguffile.h"
#include "model/ggufmodel.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"

#include <QCommandLineParser>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

namespace attnscope {

// Where the tokenizer files of --model PATH are: an existing folder (or tokenizer.json file) as given, else what
// the model catalog makes of it (a built-in model's name, a Hugging Face cache id). Throws ModelError.
QString resolveTokenizerFolder(const QString& path)
{
    if (QFileInfo::exists(path))
        return path;
    return ModelCatalog::resolve(path);
}

namespace {

int runTokenize(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Tokenizes a text with a model's tokenizer (tokenizer.json, legacy vocab.txt / vocab.json + "
        "merges.txt, or the "
        "tokenizer a llama.cpp .gguf file carries) "
        "and prints one line of JSON:\n"
        "  "
        "{\"ids\":[...],\"tokens\":[...],\"offsets\":[[begin,end],...],\"type_ids\":[...],\"special\":[...]}"
        "\n"
        "Offsets are half-open [begin, end) spans in Unicode code points (not bytes, not UTF-16 units) of "
        "the text "
        "the token came from (--text-b offsets count from the start of --text-b), exactly as Hugging Face "
        "tokenizers reports them; tokens added by the template ([CLS], [SEP], <s>) have [0,0]."));
    parser.addHelpOption();
    const QCommandLineOption modelOption(
        QStringLiteral("model"),
        QStringLiteral("Model folder holding tokenizer.json or legacy vocabulary files, a .gguf "
                       "file, a built-in model's name or a Hugging Face cache id."),
        QStringLiteral("PATH"));
    const QCommandLineOption textOption(QStringLiteral("text"), QStringLiteral("The text to tokenize."),
                                        QStringLiteral("T"));
    const QCommandLineOption textBOption(QStringLiteral("text-b"), QStringLiteral("Optional second text (a pair)."),
                                         QStringLiteral("T2"));
    const QCommandLineOption noSpecialOption(QStringLiteral("no-special-tokens"),
                                             QStringLiteral("Do not add the template's special tokens."));
    parser.addOptions({modelOption, textOption, textBOption, noSpecialOption});
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("tokenize")))
        return *done;
    if (!parser.isSet(modelOption) || !parser.isSet(textOption)) {
        printError(QStringLiteral("tokenize needs --model PATH and --text T (see attnscope tokenize --help)"));
        return 2;
    }
    try {
        const QString source = resolveTokenizerFolder(parser.value(modelOption));
        std::unique_ptr<Tokenizer> tokenizer;
        if (GgufFile::isGgufPath(source)) {
            const GgufFile file(source);
            tokenizer = Tokenizer::fromGgufVocabulary(readGgufVocabulary(file), file.displayPath());
        } else {
            tokenizer = Tokenizer::fromFolder(source);
        }
        std::optional<QString> textB;
        if (parser.isSet(textBOption))
            textB = parser.value(textBOption);
        const Encoding e = tokenizer->encode(parser.value(textOption), textB, !parser.isSet(noSpecialOption));
        QJsonArray ids, tokens, offsets, typeIds, special;
        for (int i = 0; i < e.size(); ++i) {
            ids.append(e.ids[size_t(i)]);
            tokens.append(e.tokens[i]);
            offsets.append(QJsonArray{e.offsets[size_t(i)].first, e.offsets[size_t(i)].second});
            typeIds.append(e.typeIds[size_t(i)]);
            special.append(bool(e.special[size_t(i)]));
        }
        const QJsonObject out{{QStringLiteral("ids"), ids},
                              {QStringLiteral("tokens"), tokens},
                              {QStringLiteral("offsets"), offsets},
                              {QStringLiteral("type_ids"), typeIds},
                              {QStringLiteral("special"), special}};
        printOut(QString::fromUtf8(QJsonDocument(out).toJson(QJsonDocument::Compact)) + QLatin1Char('\n'));
        return 0;
    } catch (const TokenizerError& e) {
        printError(QString::fromStdString(e.what()));
        return 1;
    } catch (const ModelError& e) {
        printError(e.message());
        return 1;
    }
}

const CommandRegistration registration(Command{QStringLiteral("tokenize"),
                                                QStringLiteral("Tokenize a text; JSON ids, tokens, code-point offsets"),
                                                false, runTokenize});

} // namespace
} // namespace attnscope
