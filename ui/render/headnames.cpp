#include "render/headnames.h"

#include <QCoreApplication>

namespace attnscope {

QString headLabelDisplayName(HeadLabel label)
{
    switch (label) {
    case HeadLabel::Sink:
        return QCoreApplication::translate("attnscope", "sink");
    case HeadLabel::NoOp:
        return QCoreApplication::translate("attnscope", "no-op/[SEP]");
    case HeadLabel::PreviousToken:
        return QCoreApplication::translate("attnscope", "previous-token");
    case HeadLabel::NextToken:
        return QCoreApplication::translate("attnscope", "next-token");
    case HeadLabel::Self:
        return QCoreApplication::translate("attnscope", "self");
    case HeadLabel::Broad:
        return QCoreApplication::translate("attnscope", "broad");
    case HeadLabel::Mixed:
        return QCoreApplication::translate("attnscope", "mixed");
    }
    return {};
}

QString headMetricDisplayName(HeadMetric metric)
{
    switch (metric) {
    case HeadMetric::Entropy:
        return QCoreApplication::translate("attnscope", "Entropy (nats)");
    case HeadMetric::NormalizedEntropy:
        return QCoreApplication::translate("attnscope", "Entropy (normalised)");
    case HeadMetric::SinkMass:
        return QCoreApplication::translate("attnscope", "Sink mass (first token)");
    case HeadMetric::Sink4Mass:
        return QCoreApplication::translate("attnscope", "Sink mass (first 4)");
    case HeadMetric::SepMass:
        return QCoreApplication::translate("attnscope", "[SEP] mass");
    case HeadMetric::ClsMass:
        return QCoreApplication::translate("attnscope", "[CLS] mass");
    case HeadMetric::PunctMass:
        return QCoreApplication::translate("attnscope", "Punctuation mass");
    case HeadMetric::Self:
        return QCoreApplication::translate("attnscope", "Self");
    case HeadMetric::Previous:
        return QCoreApplication::translate("attnscope", "Previous token");
    case HeadMetric::Next:
        return QCoreApplication::translate("attnscope", "Next token");
    }
    return {};
}

} // namespace attnscope
