#include "explorer/modelproblemtext.h"

#include <QCoreApplication>

namespace attnscope {

QString modelProblemText(const ModelProblem& problem)
{
    using Kind = ModelProblem::Kind;
    const auto arg = [&problem](int i) { return problem.arguments.value(i); };
    QString text;
    switch (problem.kind) {
    case Kind::Other:
        return problem.english();
    case Kind::NoSuchModel:
        text =
            QCoreApplication::translate("attnscope", "%1: no such model folder, .gguf file, built-in model "
                                                     "(%2) or model in the Hugging Face cache %3")
                .arg(problem.file,
                     arg(0).isEmpty() ? QCoreApplication::translate("attnscope", "none installed") : arg(0),
                     arg(1));
        break;
    case Kind::NoSuchFolder:
        text = QCoreApplication::translate("attnscope", "%1: no such folder").arg(problem.file);
        break;
    case Kind::NoConfig:
        text = QCoreApplication::translate("attnscope", "%1: not a model folder (no config.json)")
                   .arg(problem.file);
        break;
    case Kind::MissingWeights:
        text = arg(0) == QLatin1String("pytorch")
                   ? QCoreApplication::translate(
                         "attnscope",
                         "%1: no model.safetensors or model.safetensors.index.json (only pytorch_model.bin, "
                         "which AttnScope does not read: convert it to safetensors)")
                   : QCoreApplication::translate("attnscope",
                                                 "%1: no model.safetensors or model.safetensors.index.json");
        text = text.arg(problem.file);
        break;
    case Kind::UnsupportedArchitecture:
        text = QCoreApplication::translate("attnscope",
                                           "%1: unsupported architecture %2; supported model types: %3")
                   .arg(problem.file,
                        arg(0) == QLatin1String("(none given)")
                            ? QCoreApplication::translate("attnscope", "(none given)")
                            : arg(0),
                        arg(1));
        break;
    }
    return text;
}

} // namespace attnscope
