#pragma once

#include <QCommandLineOption>
#include <QList>
#include <QString>
#include <QStringList>
#include <optional>
#include <utility>

class QCommandLineParser;

namespace attnscope {

// What `attnscope [options]` (the window, no command) is asked for on the command line. Every field left
// unset falls back to what the last session remembered (SavedSession), then to the defaults.
struct GuiOptions
{
    std::optional<QString> language; // "en" or "tr" for this run (the Language menu's choice is saved)
    std::optional<QString> model;    // a built-in model's name, a model folder, "worked-example", ...
    std::optional<QString> textA;
    std::optional<QString> textB;
    std::optional<QString> view; // "heatmap", "comparison", "arcs", "statistics", "generate" or "streaming"
    std::optional<std::pair<int, int>> head; // layer, head
    std::optional<QString>
        measure; // "weight" (α) or "norm" (the contribution ‖αf(x)‖), as `attention --measure`
    std::optional<QString> scanHeads; // "zero" or "mean": run the ablation scan on the first input shown
    bool presenter = false;                  // start in presenter mode
    bool lesson = false;                     // also open the lesson on the head shown (or the worked example)
    QString screenshot;                      // write this PNG once the first result is shown, then quit
    std::optional<std::pair<int, int>> windowSize; // width, height
    std::optional<QString> getModel;               // open File > Get a model… with this repo id typed in

    // The options, for QCommandLineParser::addOptions.
    static QList<QCommandLineOption> commandLineOptions();
    // Reads a processed parser. Returns nullopt and sets *error (one line naming the option) on bad values.
    static std::optional<GuiOptions> fromParser(const QCommandLineParser& parser, QString* error);
    // Parses arguments (the first is the program name) with the options above only.
    static std::optional<GuiOptions> parse(const QStringList& arguments, QString* error);
};

// The explorer's tabs by the names --view and the settings use, in tab order.
QStringList explorerViewNames();

} // namespace attnscope
