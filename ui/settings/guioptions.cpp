#include "settings/guioptions.h"

#include "hub/hubnames.h"
#include "i18n/languagemanager.h"

#include <QCommandLineParser>

namespace attnscope {

namespace {

const QString kLang = QStringLiteral("lang");
const QString kModel = QStringLiteral("model");
const QString kText = QStringLiteral("text");
const QString kTextB = QStringLiteral("text-b");
const QString kView = QStringLiteral("view");
const QString kHead = QStringLiteral("head");
const QString kPresenter = QStringLiteral("presenter");
const QString kMeasure = QStringLiteral("measure");
const QString kScanHeads = QStringLiteral("scan-heads");
const QString kLesson = QStringLiteral("lesson");
const QString kScreenshot = QStringLiteral("screenshot");
const QString kSize = QStringLiteral("size");
const QString kGetModel = QStringLiteral("get-model");

std::optional<QString> valueOf(const QCommandLineParser& parser, const QString& name)
{
    return parser.isSet(name) ? std::optional<QString>(parser.value(name)) : std::nullopt;
}

// "W,H" or "WxH": two whole numbers, each in [low, high].
std::optional<std::pair<int, int>> numberPair(const QString& text, QChar separator, int low, int high)
{
    const QStringList parts = text.split(separator);
    if (parts.size() != 2) return std::nullopt;
    bool okA = false, okB = false;
    const int a = parts[0].trimmed().toInt(&okA), b = parts[1].trimmed().toInt(&okB);
    if (!okA || !okB || a < low || a > high || b < low || b > high) return std::nullopt;
    return std::make_pair(a, b);
}

} // namespace

QStringList explorerViewNames()
{
    return {QStringLiteral("heatmap"),    QStringLiteral("comparison"), QStringLiteral("arcs"),
            QStringLiteral("statistics"), QStringLiteral("generate"),   QStringLiteral("streaming"),
            QStringLiteral("flow")};
}

QList<QCommandLineOption> GuiOptions::commandLineOptions()
{
    return {
        {kLang, QStringLiteral("Language of the window for this run: en or tr."), QStringLiteral("code")},
        {kModel,
         QStringLiteral("Open this model: a built-in model's name, a model folder, a Hugging Face cache id, "
                        "worked-example, synthetic-encoder or synthetic-decoder."),
         QStringLiteral("M")},
        {kText, QStringLiteral("Text A to show."), QStringLiteral("T")},
        {kTextB, QStringLiteral("Text B (a second sentence for encoders)."), QStringLiteral("T")},
        {kView,
         QStringLiteral(
             "The tab to show: heatmap, comparison, arcs, statistics, generate, streaming or flow."),
         QStringLiteral("name")},
        {kHead, QStringLiteral("The head to show, as LAYER,HEAD (from 0)."), QStringLiteral("L,H")},
        {kMeasure,
         QStringLiteral("What the views show: weight (the attention weight alpha, default) or norm (the "
                        "contribution ||alpha f(x)||, Kobayashi et al. 2020)."),
         QStringLiteral("measure")},
        {kScanHeads,
         QStringLiteral(
             "Ablate every head once (zero or mean) on the first input shown and colour the grid by "
             "the prediction's KL divergence."),
         QStringLiteral("mode")},
        {kPresenter, QStringLiteral("Start in presenter mode (large type, dark theme, full screen).")},
        {kLesson,
         QStringLiteral("Also open the lesson on the head shown (the seed's numbers with worked-example).")},
        {kScreenshot,
         QStringLiteral(
             "Write a PNG of the window (with --lesson, of the lesson) once the input is shown, then "
             "quit. For documentation and tests; tools/screenshots.sh uses it."),
         QStringLiteral("file.png")},
        {kSize, QStringLiteral("Window size in pixels, WxH (default: remembered, else 1280x800)."),
         QStringLiteral("WxH")},
        {kGetModel,
         QStringLiteral(
             "Open File > Get a model... with this Hugging Face repository id typed in (nothing is "
             "fetched until Download is pressed; with --screenshot the picture shows the dialog)."),
         QStringLiteral("repo")},
    };
}

std::optional<GuiOptions> GuiOptions::fromParser(const QCommandLineParser& parser, QString* error)
{
    GuiOptions options;
    if (const auto language = valueOf(parser, kLang)) {
        if (!LanguageManager::availableLanguages().contains(*language)) {
            *error = QStringLiteral("--lang %1: AttnScope speaks %2")
                         .arg(*language, LanguageManager::availableLanguages().join(QStringLiteral(", ")));
            return std::nullopt;
        }
        options.language = language;
    }
    if ((options.model = valueOf(parser, kModel)) && options.model->trimmed().isEmpty()) {
        *error = QStringLiteral("--model: give a model name or folder");
        return std::nullopt;
    }
    options.textA = valueOf(parser, kText);
    options.textB = valueOf(parser, kTextB);
    if ((options.view = valueOf(parser, kView)) && !explorerViewNames().contains(*options.view)) {
        *error = QStringLiteral("--view %1: use one of %2")
                     .arg(*options.view, explorerViewNames().join(QStringLiteral(", ")));
        return std::nullopt;
    }
    if (const auto head = valueOf(parser, kHead)) {
        options.head = numberPair(*head, QLatin1Char(','), 0, 9999);
        if (!options.head) {
            *error = QStringLiteral("--head %1: give LAYER,HEAD, e.g. --head 2,5").arg(*head);
            return std::nullopt;
        }
    }
    if ((options.measure = valueOf(parser, kMeasure)) && *options.measure != QLatin1String("weight") &&
        *options.measure != QLatin1String("norm")) {
        *error = QStringLiteral("--measure %1: use weight or norm").arg(*options.measure);
        return std::nullopt;
    }
    if ((options.scanHeads = valueOf(parser, kScanHeads)) && *options.scanHeads != QLatin1String("zero") &&
        *options.scanHeads != QLatin1String("mean")) {
        *error = QStringLiteral("--scan-heads %1: use zero or mean").arg(*options.scanHeads);
        return std::nullopt;
    }
    options.presenter = parser.isSet(kPresenter);
    options.lesson = parser.isSet(kLesson);
    options.screenshot = parser.value(kScreenshot);
    if (parser.isSet(kScreenshot) && options.screenshot.trimmed().isEmpty()) {
        *error = QStringLiteral("--screenshot: give a file name");
        return std::nullopt;
    }
    if ((options.getModel = valueOf(parser, kGetModel))) {
        if (const QString problem = hub::repoIdProblem(*options.getModel); !problem.isEmpty()) {
            *error = QStringLiteral("--get-model %1: %2").arg(*options.getModel, problem);
            return std::nullopt;
        }
    }
    if (const auto size = valueOf(parser, kSize)) {
        options.windowSize = numberPair(*size, QLatin1Char('x'), 200, 16000);
        if (!options.windowSize) {
            *error = QStringLiteral("--size %1: give WxH with each side from 200 to 16000 pixels").arg(*size);
            return std::nullopt;
        }
    }
    return options;
}

std::optional<GuiOptions> GuiOptions::parse(const QStringList& arguments, QString* error)
{
    QCommandLineParser parser;
    parser.addOptions(commandLineOptions());
    if (!parser.parse(arguments)) {
        *error = parser.errorText();
        return std::nullopt;
    }
    if (!parser.positionalArguments().isEmpty()) {
        *error = QStringLiteral("unexpected argument '%1'; try attnscope --help")
                     .arg(parser.positionalArguments().first());
        return std::nullopt;
    }
    return fromParser(parser, error);
}

} // namespace attnscope
