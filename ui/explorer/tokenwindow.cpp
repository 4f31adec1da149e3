#include "explorer/attentionengine.h"

#include <QCoreApplication>
#include <algorithm>

namespace attnscope {

InputTooLongError::InputTooLongError(const QString& model, int tokens, int limit)
    : EngineError(QCoreApplication::translate("attnscope", "%1 tokens > %2 positions of %3")
                      .arg(tokens)
                      .arg(limit)
                      .arg(model)
                      .toStdString()),
      m_model(model), m_tokens(tokens), m_limit(limit)
{}

std::vector<int> keptTokenPositions(const std::vector<bool>& special, const TokenWindow& window)
{
    const int total = int(special.size());
    std::vector<int> kept;
    if (window.isWhole() || window.count >= total) {
        for (int i = 0; i < total; ++i)
            kept.push_back(i);
        return kept;
    }
    // [CLS] / <s> at the start and [SEP] / </s> at the end frame every input the model was trained on.
    const int lead = total > 0 && special[0] ? 1 : 0;
    const int trail = total > 1 && special[size_t(total - 1)] ? 1 : 0;
    const int content = std::max(0, std::min(window.count - lead - trail, total - lead - trail));
    const int first = window.fromEnd ? total - trail - content : lead;
    if (lead) kept.push_back(0);
    for (int i = first; i < first + content; ++i)
        kept.push_back(i);
    if (trail && int(kept.size()) < window.count) kept.push_back(total - 1);
    return kept;
}

} // namespace attnscope
