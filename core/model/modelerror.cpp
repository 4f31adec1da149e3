#include "model/modelerror.h"

namespace attnscope {

QString ModelProblem::english() const
{
    const auto arg = [this](int i) { return arguments.value(i); };
    QString problem;
    switch (kind) {
    case Kind::Other:
        problem = arg(0);
        break;
    case Kind::NoSuchModel:
        problem =
            QStringLiteral("no such model folder, .gguf file, built-in model (%1) or model in the Hugging "
                           "Face cache %2")
                .arg(arg(0).isEmpty() ? QStringLiteral("none installed") : arg(0), arg(1));
        break;
    case Kind::NoSuchFolder:
        problem = QStringLiteral("no such folder");
        break;
    case Kind::NoConfig:
        problem = QStringLiteral("not a model folder (no config.json)");
        break;
    case Kind::InvalidJson:
        problem = QStringLiteral("not valid JSON (line %1, column %2: %3)").arg(arg(0), arg(1), arg(3));
        break;
    case Kind::MissingWeights:
        problem = QStringLiteral("no model.safetensors or model.safetensors.index.json");
        if (arg(0) == QLatin1String("pytorch"))
            problem += QStringLiteral(
                " (only pytorch_model.bin, which AttnScope does not read: convert it to safetensors)");
        break;
    case Kind::UnsupportedArchitecture:
        problem =
            QStringLiteral("unsupported architecture %1; supported model types: %2").arg(arg(0), arg(1));
        break;
    }
    return file.isEmpty() ? problem : file + QStringLiteral(": ") + problem;
}

} // namespace attnscope
