#include "generation/decodermodel.h"

#include "explorer/transformerengine.h"
#include "model/transformermodel.h"

namespace attnscope {

std::shared_ptr<const TransformerEngine> decoderModel(const std::shared_ptr<const AttentionEngine>& engine,
                                                      const QString& noModel, const QString& encoder,
                                                      QString* unavailable)
{
    auto transformer = std::dynamic_pointer_cast<const TransformerEngine>(engine);
    unavailable->clear();
    if (!transformer)
        *unavailable = noModel;
    else if (transformer->model().info().kind != QLatin1String("decoder"))
        *unavailable = encoder.arg(transformer->displayName());
    if (!unavailable->isEmpty()) transformer.reset();
    return transformer;
}

} // namespace attnscope
