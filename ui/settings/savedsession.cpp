#include "settings/savedsession.h"

#include "explorer/syntheticengine.h"
#include "explorer/workedexampleengine.h"
#include "model/modelcatalog.h"
#include "model/modelerror.h"
#include "settings/guioptions.h"

#include <QDir>
#include <QSettings>

namespace attnscope {

namespace {

// "models/last" is AppSettings::lastModel's key: the session's model is that last model.
const QString kModel = QStringLiteral("models/last");
const QString kTextA = QStringLiteral("session/textA");
const QString kTextB = QStringLiteral("session/textB");
const QString kView = QStringLiteral("session/view");
const QString kLayer = QStringLiteral("session/layer");
const QString kHead = QStringLiteral("session/head");

const QString kWorkedExample = QStringLiteral("worked-example");
const QString kSyntheticEncoder = QStringLiteral("synthetic-encoder");
const QString kSyntheticDecoder = QStringLiteral("synthetic-decoder");

} // namespace

QString builtinEngineKey(const AttentionEngine* engine)
{
    if (dynamic_cast<const WorkedExampleEngine*>(engine)) return kWorkedExample;
    if (dynamic_cast<const SyntheticEngine*>(engine))
        return engine->supportsTextB() ? kSyntheticEncoder : kSyntheticDecoder; // the decoder takes no text B
    return {};
}

SavedSession SavedSession::load(const QSettings& settings)
{
    SavedSession s;
    s.model = settings.value(kModel).toString();
    s.textA = settings.value(kTextA).toString();
    s.textB = settings.value(kTextB).toString();
    s.view = settings.value(kView).toString();
    if (!explorerViewNames().contains(s.view)) s.view.clear();
    bool okLayer = false, okHead = false;
    s.layer = settings.value(kLayer, -1).toInt(&okLayer);
    s.head = settings.value(kHead, -1).toInt(&okHead);
    if (!okLayer || !okHead || s.layer < 0 || s.head < 0) s.layer = s.head = -1;
    return s;
}

void SavedSession::save(QSettings& settings) const
{
    settings.setValue(kModel, model);
    settings.setValue(kTextA, textA);
    settings.setValue(kTextB, textB);
    settings.setValue(kView, view);
    settings.setValue(kLayer, layer);
    settings.setValue(kHead, head);
}

bool isWorkedExampleKey(const QString& key)
{
    return key == kWorkedExample;
}

ModelProblem asModelOption(ModelProblem problem)
{
    problem.file = QStringLiteral("--model ") + problem.file;
    return problem;
}

bool checkExplorerModel(const QString& key, ModelProblem* problem)
{
    if (key == kWorkedExample || key == kSyntheticEncoder || key == kSyntheticDecoder) return true;
    QString folder;
    try {
        folder = ModelCatalog::resolve(key);
    } catch (const ModelError& e) {
        *problem = asModelOption(e.problem());
        return false;
    }
    if (!ModelCatalog::describe(folder)) {
        *problem = ModelCatalog::diagnose(folder);
        return false;
    }
    return true;
}

} // namespace attnscope
