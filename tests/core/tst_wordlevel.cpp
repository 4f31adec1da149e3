// Word-level attention (Clark et al. 2019, §2): pieces grouped into words from their vocabulary markers,
// and a 5×5 matrix merged by hand: attention to a word sums its pieces, attention from a word averages them.

#include "attention/wordlevel.h"

#include <QtTest>

using namespace attnscope;

class TestWordLevel : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void groupsWordPiece()
    {
        // [CLS] ke ##di mindere [SEP]: "##di" continues "ke".
        const QStringList tokens{QStringLiteral("[CLS]"), QStringLiteral("ke"), QStringLiteral("##di"),
                                 QStringLiteral("mindere"), QStringLiteral("[SEP]")};
        const WordGroups g = groupWords(tokens, {true, false, false, false, true});
        QCOMPARE(g.wordOfToken, (std::vector<int>{0, 1, 1, 2, 3}));
        QCOMPARE(g.words, (QStringList{QStringLiteral("[CLS]"), QStringLiteral("kedi"),
                                       QStringLiteral("mindere"), QStringLiteral("[SEP]")}));
        QCOMPARE(g.special, (std::vector<bool>{true, false, false, true}));
    }

    void groupsSentencePiece()
    {
        // <s> ▁ke di ▁oturdu: "▁" starts a word, "di" continues it; the first piece after <s> starts one
        // even without a marker.
        const QStringList tokens{QStringLiteral("<s>"), QStringLiteral("▁ke"), QStringLiteral("di"),
                                 QStringLiteral("▁oturdu"), QStringLiteral("x")};
        const WordGroups g = groupWords(tokens, {true, false, false, false, false});
        QCOMPARE(g.wordOfToken, (std::vector<int>{0, 1, 1, 2, 2}));
        QCOMPARE(g.words,
                 (QStringList{QStringLiteral("<s>"), QStringLiteral("kedi"), QStringLiteral("oturdux")}));
        QCOMPARE(detectSubwordScheme(tokens), SubwordScheme::WordStartMarker);
        // Byte-level BPE (GPT-2) marks word starts with Ġ; the first word has no marker.
        const WordGroups bpe =
            groupWords({QStringLiteral("The"), QStringLiteral("Ġtro"), QStringLiteral("phy")}, {});
        QCOMPARE(bpe.wordOfToken, (std::vector<int>{0, 1, 1}));
    }

    void noMarkersKeepsEveryToken()
    {
        const WordGroups g = groupWords({QStringLiteral("a"), QStringLiteral("b")}, {});
        QCOMPARE(g.wordOfToken, (std::vector<int>{0, 1}));
        QCOMPARE(detectSubwordScheme({QStringLiteral("##")}), SubwordScheme::None); // "##" alone is a token
    }

    void mergesByHand()
    {
        // Tokens: [CLS] ke ##di mindere [SEP] → words [CLS] kedi mindere [SEP].
        const QStringList tokens{QStringLiteral("[CLS]"), QStringLiteral("ke"), QStringLiteral("##di"),
                                 QStringLiteral("mindere"), QStringLiteral("[SEP]")};
        const WordGroups g = groupWords(tokens, {true, false, false, false, true});
        // Rows sum to 1.
        const std::vector<float> p{
            0.50f, 0.10f, 0.10f, 0.20f, 0.10f, // [CLS]
            0.20f, 0.30f, 0.10f, 0.30f, 0.10f, // ke
            0.00f, 0.40f, 0.40f, 0.10f, 0.10f, // ##di
            0.10f, 0.20f, 0.20f, 0.40f, 0.10f, // mindere
            0.25f, 0.25f, 0.25f, 0.00f, 0.25f, // [SEP]
        };
        const std::vector<float> w = mergeAttentionToWords(p, g);
        QCOMPARE(w.size(), size_t(16));
        auto at = [&](int a, int b) { return double(w[size_t(a * 4 + b)]); };
        // From [CLS] (one piece): to kedi = 0.10 + 0.10.
        QVERIFY(qAbs(at(0, 0) - 0.50) < 1e-6);
        QVERIFY(qAbs(at(0, 1) - 0.20) < 1e-6);
        // From kedi = mean of the rows of ke and ##di: to [CLS] (0.2 + 0.0)/2 = 0.10;
        // to kedi ((0.3 + 0.1) + (0.4 + 0.4))/2 = 0.60; to mindere (0.3 + 0.1)/2 = 0.20; to [SEP] 0.10.
        QVERIFY(qAbs(at(1, 0) - 0.10) < 1e-6);
        QVERIFY(qAbs(at(1, 1) - 0.60) < 1e-6);
        QVERIFY(qAbs(at(1, 2) - 0.20) < 1e-6);
        QVERIFY(qAbs(at(1, 3) - 0.10) < 1e-6);
        // From mindere: to kedi 0.2 + 0.2.
        QVERIFY(qAbs(at(2, 1) - 0.40) < 1e-6);
        QVERIFY(qAbs(at(3, 1) - 0.50) < 1e-6);
        // Property: every word row still sums to 1.
        for (int a = 0; a < 4; ++a)
            QVERIFY(qAbs(at(a, 0) + at(a, 1) + at(a, 2) + at(a, 3) - 1.0) < 1e-6);
    }

    void rejectsAWrongShape()
    {
        const WordGroups g = groupWords({QStringLiteral("a"), QStringLiteral("b")}, {});
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, mergeAttentionToWords({1.0f}, g));
    }
};

QTEST_APPLESS_MAIN(TestWordLevel)
#include "tst_wordlevel.moc"
