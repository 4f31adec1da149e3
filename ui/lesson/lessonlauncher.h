#pragma once

#include "generation/kvcachesize.h"

#include <QObject>
#include <QPointer>
#include <optional>

class QAction;
class QMainWindow;
class QMenu;

namespace attnscope {

class AttentionEngine;
struct ExplorerResult;
class LessonWindow;

// The explorer's Lesson menu and the lesson windows it opens:
//   Lesson ▸ Worked example (kedi mindere oturdu): the seed's own Q, K and V, step by step;
//   Lesson ▸ Open in lesson: the head on screen, its real Q, K (after RoPE) and V for
//   LessonModel::kMaxHeadTokens consecutive tokens (the first ones, then the window the user picks above
//   the lesson), labelled with the tokens.
// For causal models that prefix reproduces the head's attention exactly; for bidirectional ones only when
// the whole input fits (else each row is renormalised over the keys shown, and the notice says so).
// The windows are children of the explorer window and delete themselves when closed. Each one's KV-cache
// calculator shows the explorer's model (setLoadedModel), those open already and those opened later.
// A lesson on a model whose head statistics show no sink (analysis/sinkverdict.h) says so above the lesson
// and names the guided list's real decoder, as the Streaming tab does (issue 34, point 5).
class LessonLauncher : public QObject
{
    Q_OBJECT
public:
    // Fills `menu` (owned by the window) with the worked example and `openHeadAction` (owned by the
    // window, which enables it when the result on screen has Q, K and V).
    LessonLauncher(QMainWindow* window, QMenu* menu, QAction* openHeadAction);

    QAction* workedExampleAction() const { return m_workedExample; }

    LessonWindow* openWorkedExample();
    // A lesson on layer/head of `result`. Returns null when the result has no Q, K and V (the demos,
    // inputs longer than the capture limit) or they do not fit; *message then says why. On success
    // *message is empty or, for an input longer than the lesson keeps, which tokens it keeps of how many
    // (windowMessage). Such a lesson has a bar above it that moves its window (LessonTokenWindowBar).
    // firstToken: the window's first token (0-based, clamped so that the window is full).
    LessonWindow* openHead(const ExplorerResult* result, int layer, int head, QString* message,
                           int firstToken = 0);
    static QString windowMessage(int first, int count, int total, bool causal);

    // The decoder the explorer has chosen, for the KV-cache calculators (none: a demo, an encoder).
    void setLoadedModel(std::optional<KvCacheShape> shape);
    // The same for the explorer's chosen engine: its KV cache when it is a decoder model (an encoder keeps
    // no cache, a demo has no model).
    void setLoadedEngine(const AttentionEngine& engine);
    const std::optional<KvCacheShape>& loadedModel() const { return m_loadedModel; }

    // The lesson's note on a model whose head statistics show no sink (analysis/sinkverdict.h), pointing to
    // the guided list's real decoder; openHead shows it above the lesson.
    static QString noSinkNote(double largestSinkMass);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;

private:
    void retranslate();
    LessonWindow* newWindow();
    void addTokenWindow(LessonWindow* window, const ExplorerResult& result, int layer, int head, int first,
                        int count);

    QPointer<QMainWindow> m_window;
    QMenu* m_menu;
    QAction* m_workedExample;
    QAction* m_openHead;
    std::optional<KvCacheShape> m_loadedModel;
};

} // namespace attnscope
