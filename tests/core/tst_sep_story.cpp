// The [SEP] story (docs/metrics.md, "Weight or contribution?"), on the built-in encoder and sentence pairs:
// each middle-layer head's [SEP] weight share (sep_mass) against its [SEP] contribution share (sep_mass_norm,
// Kobayashi et al. 2020), computed by the same functions as `attnscope stats` (analyzeAttention on the
// weights and on the contribution shares) and checked here against the definition applied by hand to P and
// ‖f(x)‖. The table in the docs is this test's output (qInfo); what it shows is a property of the trained
// model, so the test asserts the arithmetic, not the finding.

#include "analysis/contributions.h"
#include "analysis/modeltext.h"
#include "model/transformermodel.h"
#include "stats/attentionanalysis.h"

#include <QtTest>

using namespace attnscope;

namespace {

const std::vector<std::pair<QString, QString>>& sentencePairs()
{
    static const std::vector<std::pair<QString, QString>> pairs{
        {QStringLiteral("the cat sat on the mat."), QStringLiteral("it was warm and quiet.")},
        {QStringLiteral("she opened the window."), QStringLiteral("the room filled with light.")},
        {QStringLiteral("we walked to the station."), QStringLiteral("the train was late again.")},
        {QStringLiteral("he read the old letter twice."), QStringLiteral("then he put it away.")},
        {QStringLiteral("the children played in the park."), QStringLiteral("their parents watched them.")},
        {QStringLiteral("it rained all night."), QStringLiteral("the river rose by morning.")},
    };
    return pairs;
}

struct Shares
{
    double weight = 0, contribution = 0;
};

} // namespace

class TestSepStory : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void sepWeightAgainstContributionShares();
};

void TestSepStory::sepWeightAgainstContributionShares()
{
    const auto model =
        TransformerModel::open(QStringLiteral(ATTNSCOPE_SOURCE_DIR "/resources/models/tiny-bert-en-tr"));
    const int layers = model->config().layers, heads = model->config().heads;
    std::vector<Shares> shares(size_t(layers * heads));
    double sepNorm = 0, otherNorm = 0;
    int sepCount = 0, otherCount = 0;
    for (const auto& [a, b] : sentencePairs()) {
        const ModelText text = encodeForModel(*model, a, b);
        QCOMPARE(int(text.roles.sepPositions.size()), 2);
        const AttentionCapture capture = model->run(text.ids, text.typeIds);
        TokenRoles roles = text.roles;
        roles.causal = capture.causal;
        const auto contributions = contributionMaps(capture, ContributionScale::Share);
        const std::optional<AttentionAnalysis> weight = analyzeAttention(*capture.maps, roles);
        const std::optional<AttentionAnalysis> contribution = analyzeAttention(*contributions, roles);
        QVERIFY(weight && contribution);
        for (int l = 0; l < layers; ++l)
            for (int h = 0; h < heads; ++h) {
                shares[size_t(l * heads + h)].weight +=
                    weight->at(l, h).sepMass / double(sentencePairs().size());
                shares[size_t(l * heads + h)].contribution +=
                    contribution->at(l, h).sepMass / double(sentencePairs().size());
                // The definition by hand: mean over word rows i of Σ_{j∈SEP} α_ij‖f(x_j)‖ / Σ_j α_ij‖f(x_j)‖.
                const std::vector<float> p = capture.maps->matrix(l, h);
                const int n = text.size();
                double byHand = 0;
                int rows = 0;
                for (int i = 0; i < n; ++i) {
                    if (roles.isSpecial(i)) continue;
                    double sep = 0, all = 0;
                    for (int j = 0; j < n; ++j) {
                        const double c =
                            double(p[size_t(i * n + j)]) * contributions->valueNorms().at(l, h, j);
                        all += c;
                        if (std::count(roles.sepPositions.begin(), roles.sepPositions.end(), j)) sep += c;
                    }
                    byHand += sep / all;
                    ++rows;
                }
                QVERIFY(std::abs(byHand / rows - contribution->at(l, h).sepMass) < 1e-5);
                // ‖f(x)‖ at [SEP] against the word tokens, same head.
                for (int j = 0; j < text.size(); ++j) {
                    const double norm = contributions->valueNorms().at(l, h, j);
                    if (text.roles.isSpecial(j) &&
                        std::count(roles.sepPositions.begin(), roles.sepPositions.end(), j)) {
                        sepNorm += norm;
                        ++sepCount;
                    } else if (!text.roles.isSpecial(j)) {
                        otherNorm += norm;
                        ++otherCount;
                    }
                }
            }
    }
    // The middle layers (neither the first nor the last): every head, weight share against contribution
    // share.
    QString table = QStringLiteral(
        "\n| layer.head | [SEP] weight share | [SEP] contribution share | ratio |\n|---|---|---|---|\n");
    int sepHeads = 0;
    double weightSum = 0, contributionSum = 0;
    for (int l = 1; l + 1 < layers; ++l)
        for (int h = 0; h < heads; ++h) {
            const Shares& s = shares[size_t(l * heads + h)];
            table += QStringLiteral("| %1.%2 | %3 | %4 | %5 |\n")
                         .arg(l)
                         .arg(h)
                         .arg(s.weight, 0, 'f', 3)
                         .arg(s.contribution, 0, 'f', 3)
                         .arg(s.weight > 0 ? s.contribution / s.weight : 0.0, 0, 'f', 2);
            if (s.weight >= 0.2) { // "[SEP] heads": at least 20% of their weight on [SEP]
                ++sepHeads;
                weightSum += s.weight;
                contributionSum += s.contribution;
            }
        }
    table += QStringLiteral(
                 "\n[SEP] heads (weight share >= 0.2): %1; mean weight share %2, mean contribution share "
                 "%3; mean ||f(x)|| at [SEP] %4 vs at word tokens %5 (all layers and heads)\n")
                 .arg(sepHeads)
                 .arg(sepHeads ? weightSum / sepHeads : 0.0, 0, 'f', 3)
                 .arg(sepHeads ? contributionSum / sepHeads : 0.0, 0, 'f', 3)
                 .arg(sepNorm / std::max(1, sepCount), 0, 'f', 3)
                 .arg(otherNorm / std::max(1, otherCount), 0, 'f', 3);
    qInfo().noquote() << table;
}

QTEST_GUILESS_MAIN(TestSepStory)
#include "tst_sep_story.moc"
