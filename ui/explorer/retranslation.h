#pragma once

#include <QEvent>
#include <QObject>
#include <QWidget>
#include <functional>
#include <utility>
#include <vector>

namespace attnscope {

// Texts that follow the language: each function given to add() runs at once and again on every
// QEvent::LanguageChange the watched widget receives (installing a translator sends one to every widget).
// The panes of the window hold one each, so that their strings are set where the widgets are built.
class Retranslation : public QObject
{
public:
    explicit Retranslation(QWidget* watched) : QObject(watched) { watched->installEventFilter(this); }

    void add(std::function<void()> retranslate)
    {
        retranslate();
        m_retranslators.push_back(std::move(retranslate));
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override
    {
        if (event->type() == QEvent::LanguageChange)
            for (const auto& retranslate : m_retranslators)
                retranslate();
        return QObject::eventFilter(watched, event);
    }

private:
    std::vector<std::function<void()>> m_retranslators;
};

} // namespace attnscope
