#pragma once

// "Models that show it" (issue 34, point 2): the guided list (model/guidedmodels.h) as a page of the main
// window, one row per entry: the repository, what it shows and where (in the UI's language), the source of
// that claim, the download size, the memory a 512-token pass needs, the licence and a gated mark, and a
// Download button. The button emits downloadRequested (the window opens File > Get a model… prefilled); the
// page also shows the equivalent command line, selected, ready to copy.

#include "model/guidedmodels.h"

#include <QVector>
#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QVBoxLayout;

namespace attnscope {

class GuidedModelList : public QWidget
{
    Q_OBJECT
public:
    // The shipped list; an empty page with the reason if it cannot be read (a damaged build).
    explicit GuidedModelList(QWidget* parent = nullptr);
    GuidedModelList(QVector<GuidedModel> models, QWidget* parent = nullptr);

    const QVector<GuidedModel>& models() const { return m_models; }
    // The Download button of entry `index`, and what the rows say (for tests and screenshots).
    QPushButton* downloadButton(int index) const;
    QString rowText(int index) const;
    // The command line of the last Download pressed ("" before).
    QString commandText() const;
    // The row of the entry with this id (GuidedModelCatalog::streamingDecoderId()), -1 when absent.
    int indexOf(const QString& id) const;

Q_SIGNALS:
    // repo "ORG/NAME"; file: the one GGUF file of a GGUF repository, else "".
    void downloadRequested(const QString& repo, const QString& file);

protected:
    void changeEvent(QEvent* event) override;

private:
    void build();
    void retranslate();

    QVector<GuidedModel> m_models;
    QString m_loadError;
    QLabel* m_title = nullptr;
    QLabel* m_intro = nullptr;
    QVector<QLabel*> m_rows;
    QVector<QPushButton*> m_buttons;
    QLabel* m_commandLabel = nullptr;
    QLineEdit* m_command = nullptr;
};

// The repository of the guided list's real decoder for the StreamingLLM experiment (the entry
// GuidedModelCatalog::streamingDecoderId() names), for the views that point to it; "" if the list is damaged.
QString guidedStreamingDecoder();
// The repository of the guided entry with this id (GuidedModelCatalog's ids); "" if absent or damaged.
QString guidedModelRepo(const QString& id);

} // namespace attnscope
