// attnscope lesson: one step of the lesson "kedi mindere oturdu" (softmax(QKᵀ/√d_k)·V), headless.
// Without --out it prints the step's formula and matrix; with --out FILE.png it renders the step as the
// lesson view paints it, with --out FILE.csv it writes the matrix. An existing file needs --force.

#include "command.h"
#include "io/outputfile.h"
#include "lesson/lessoncsv.h"
#include "lesson/lessonmodel.h"
#include "lesson/lessonsteppainter.h"

#include <QBuffer>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QImage>

namespace attnscope {

namespace {

int runLesson(const QStringList& arguments)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(
        QStringLiteral("Render one step of the attention lesson (the worked example \"kedi mindere oturdu\").\n"
                       "Steps: 1 scores Q·Kᵀ, 2 scaling /√d_k, 3 mask, 4 softmax, 5 weighted sum of the values."));
    parser.addHelpOption();
    const QCommandLineOption stepOption(QStringLiteral("step"), QStringLiteral("Step 1..5 (default 4, softmax)."),
                                        QStringLiteral("N"), QStringLiteral("4"));
    const QCommandLineOption outOption(QStringLiteral("out"),
                                       QStringLiteral("Write the step to FILE.png (image) or FILE.csv (numbers)."),
                                       QStringLiteral("FILE"));
    const QCommandLineOption causalOption(QStringLiteral("causal"), QStringLiteral("Apply the causal mask."));
    const QCommandLineOption noScaleOption(QStringLiteral("no-scale"), QStringLiteral("Do not divide by √d_k."));
    const QCommandLineOption sizeOption(QStringLiteral("size"), QStringLiteral("Image size WxH (default 1000x640)."),
                                        QStringLiteral("WxH"), QStringLiteral("1000x640"));
    const QCommandLineOption largeOption(QStringLiteral("large-fonts"), QStringLiteral("Projector-sized text."));
    const QCommandLineOption forceOption(QStringLiteral("force"),
                                         QStringLiteral("Overwrite an existing --out file."));
    parser.addOptions(
        {stepOption, outOption, causalOption, noScaleOption, sizeOption, largeOption, forceOption});
    if (const std::optional<int> done = parseCommandLine(parser, arguments, QStringLiteral("lesson")))
        return *done;
    bool ok = false;
    const int step = parser.value(stepOption).toInt(&ok);
    if (!ok || step < 1 || step > kLessonStepCount) {
        printError(QStringLiteral("--step %1: the lesson has steps 1 to %2").arg(parser.value(stepOption)).arg(kLessonStepCount));
        return 2;
    }
    const QStringList size = parser.value(sizeOption).split(QLatin1Char('x'));
    int width = 0, height = 0;
    if (size.size() == 2) {
        width = size[0].toInt();
        height = size[1].toInt();
    }
    if (width < 100 || height < 100 || width > 8000 || height > 8000) {
        printError(QStringLiteral("--size %1: give WxH with each side from 100 to 8000 pixels").arg(parser.value(sizeOption)));
        return 2;
    }

    LessonModel lesson;
    LessonOptions options = lesson.options();
    options.causal = parser.isSet(causalOption);
    options.scaling = !parser.isSet(noScaleOption);
    lesson.setOptions(options);
    const LessonStep& s = lesson.step(step - 1);

    if (!parser.isSet(outOption)) {
        QString text = s.title + QLatin1Char('\n') + s.formula + QLatin1Char('\n');
        for (int r = 0; r < s.rows(); ++r) {
            text += s.rowLabels.value(r).leftJustified(10);
            for (int c = 0; c < s.cols(); ++c)
                text += LessonStepPainter::cellText(s, r, c).rightJustified(9);
            text += QLatin1Char('\n');
        }
        printOut(text);
        return 0;
    }
    const QString path = parser.value(outOption);
    if (const QString problem = outOptionProblem(path, false); !problem.isEmpty()) {
        printError(QStringLiteral("lesson: ") + problem);
        return 2;
    }
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix != QLatin1String("csv") && suffix != QLatin1String("png")) {
        printError(QStringLiteral("%1: unknown format '%2'; use .png or .csv").arg(path, suffix));
        return 2;
    }
    // The same rules as every output (io/outputfile.h): checked before rendering, written whole or not at
    // all.
    if (outputPathRefused(path, parser.isSet(forceOption))) return 1;
    QByteArray bytes;
    if (suffix == QLatin1String("csv")) {
        bytes = lessonStepCsv(s);
    } else {
        LessonPaintStyle style;
        if (parser.isSet(largeOption))
            style.fontPointSize = 20;
        const QImage image = renderLessonStepImage(s, style, QSize(width, height));
        QBuffer buffer(&bytes);
        if (!buffer.open(QIODevice::WriteOnly) || !image.save(&buffer, "PNG")) {
            printError(QStringLiteral("%1: cannot encode the image").arg(path));
            return 1;
        }
    }
    QString error;
    if (!writeOutputFile(path, bytes, parser.isSet(forceOption), &error)) {
        printError(error);
        return 1;
    }
    printOut(path + QLatin1Char('\n'));
    return 0;
}

const CommandRegistration registration(Command{QStringLiteral("lesson"),
                                               QStringLiteral("Render one step of the attention lesson as text, PNG or CSV"),
                                               true, &runLesson});

} // namespace

} // namespace attnscope
