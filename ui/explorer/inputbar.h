#pragma once

#include <QWidget>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace attnscope {

class AttentionEngine;
class ExplorerSession;
class Retranslation;

// The explorer's input bar: the model picker (the session's model list, then "Open folder…" and "Open GGUF
// file…"), the chosen model's size and memory beside it, Text A, and Text B. What the user types goes to the
// session; texts the session sets elsewhere show here. Choosing a model or an "Open …" entry is signalled:
// the window decides what opening means.
class InputBar : public QWidget
{
    Q_OBJECT
public:
    InputBar(ExplorerSession* session, QWidget* parent = nullptr);

    QComboBox* modelBox() const { return m_modelBox; }
    QLabel* modelDetailsLabel() const { return m_modelDetails; }
    QPlainTextEdit* textAEdit() const { return m_textA; }
    QLineEdit* textBEdit() const { return m_textB; }
    // Shown under Text A while the model has fixed text (the worked example): why typing does nothing.
    QLabel* fixedTextNote() const { return m_fixedTextNote; }

    // Both texts as the user would type them, then the session runs them as the boxes hold them
    // (QPlainTextEdit turns U+00A0 into a space).
    void setTexts(const QString& textA, const QString& textB);
    // Parameters and memory estimate of the picker's entry, and the memory available.
    void showModelDetails(int row);
    // The session chose this model: the picker, its details, Text B (encoders only), and Text A fixed (read
    // only, with the note beneath) when the engine has its own text.
    void showModel(int row, const AttentionEngine& engine);

Q_SIGNALS:
    void modelChosen(int row);
    void openFolderRequested();
    void openGgufRequested();

private:
    ExplorerSession* m_session;
    Retranslation* m_retranslation;
    QComboBox* m_modelBox = nullptr;
    QLabel* m_modelDetails = nullptr;
    QPlainTextEdit* m_textA = nullptr;
    QLabel* m_fixedTextNote = nullptr;
    QLineEdit* m_textB = nullptr;
};

} // namespace attnscope
