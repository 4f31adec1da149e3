#include "tokenizer/precompilednormalizer.h"

#include "tokenizer/tokenizer.h"
#include "tokenizer/unicodechars.h"

#include <QTextBoundaryFinder>
#include <QtEndian>

namespace attnscope::tok {

namespace {

// darts-clone unit fields.
bool hasLeaf(std::uint32_t unit)
{
    return (unit >> 8) & 1;
}
std::uint32_t value(std::uint32_t unit)
{
    return unit & ((1u << 31) - 1);
}
std::uint32_t label(std::uint32_t unit)
{
    return unit & ((1u << 31) | 0xFFu);
}
std::uint32_t offset(std::uint32_t unit)
{
    return (unit >> 10) << ((unit & (1u << 9)) >> 6);
}

std::u32string decodeUtf8(const std::string& s)
{
    return toCodePoints(QString::fromUtf8(s.data(), qsizetype(s.size())));
}

} // namespace

PrecompiledNormalizer::PrecompiledNormalizer(const QByteArray& charsmap)
{
    if (charsmap.size() < 4)
        throw TokenizerError("Precompiled: the charsmap is shorter than its 4-byte header");
    const std::uint32_t trieBytes = qFromLittleEndian<std::uint32_t>(charsmap.constData());
    if (trieBytes % 4 != 0 || qint64(trieBytes) > qint64(charsmap.size()) - 4)
        throw TokenizerError(
            QStringLiteral("Precompiled: the charsmap's trie of %1 bytes does not fit its %2 bytes")
                .arg(trieBytes)
                .arg(charsmap.size())
                .toStdString());
    m_units.resize(trieBytes / 4);
    for (size_t i = 0; i < m_units.size(); ++i)
        m_units[i] = qFromLittleEndian<std::uint32_t>(charsmap.constData() + 4 + 4 * i);
    m_replacements.assign(charsmap.constData() + 4 + trieBytes, size_t(charsmap.size()) - 4 - trieBytes);
}

std::optional<std::string> PrecompiledNormalizer::transform(const std::string& utf8) const
{
    // Units outside the array end the search (a damaged charsmap gives no match rather than a crash).
    auto unitAt = [&](std::uint32_t pos) -> std::optional<std::uint32_t> {
        if (pos >= m_units.size()) return std::nullopt;
        return m_units[pos];
    };
    std::optional<std::uint32_t> unit = unitAt(0);
    if (!unit) return std::nullopt;
    std::uint32_t node = offset(*unit);
    for (unsigned char c : utf8) {
        if (c == 0) break;
        node ^= c;
        unit = unitAt(node);
        if (!unit || label(*unit) != c) return std::nullopt;
        node ^= offset(*unit);
        if (hasLeaf(*unit)) {
            const std::optional<std::uint32_t> leaf = unitAt(node);
            if (!leaf) return std::nullopt;
            const size_t begin = value(*leaf);
            if (begin > m_replacements.size()) return std::nullopt;
            const size_t end = m_replacements.find('\0', begin);
            return m_replacements.substr(begin,
                                         (end == std::string::npos ? m_replacements.size() : end) - begin);
        }
    }
    return std::nullopt;
}

void PrecompiledNormalizer::normalize(NormalizedString& s) const
{
    const std::u32string& text = s.get();
    if (text.empty()) return;
    std::vector<std::pair<char32_t, int>> dest;
    dest.reserve(text.size());
    bool modified = false;
    // A replacement of `oldCount` characters by `replacement`: its characters replace the old ones in turn;
    // extra ones are insertions; when it is shorter, the last character so far (possibly one before this
    // replacement, or none at the very start) removes the rest.
    auto replace = [&](const std::u32string& replacement, int oldCount) {
        modified = true;
        const int diff = int(replacement.size()) - oldCount;
        for (char32_t c : replacement)
            dest.emplace_back(c, 0);
        if (diff > 0) {
            for (int i = 0; i < diff; ++i)
                dest[dest.size() - 1 - size_t(i)].second = 1;
        } else if (diff < 0 && !dest.empty()) {
            dest.back().second += diff;
        }
    };
    const QString qtext = fromCodePoints(text);
    QTextBoundaryFinder graphemes(QTextBoundaryFinder::Grapheme, qtext);
    qsizetype from = 0; // UTF-16 position in qtext
    while (from < qtext.size()) {
        qsizetype to = graphemes.toNextBoundary();
        if (to <= from) to = qtext.size();
        const QString cluster = qtext.mid(from, to - from);
        const std::u32string chars = toCodePoints(cluster);
        const std::string utf8 = cluster.toStdString();
        from = to;
        if (utf8.size() < 6) {
            if (const std::optional<std::string> norm = transform(utf8)) {
                replace(decodeUtf8(*norm), int(chars.size()));
                continue;
            }
        }
        for (char32_t c : chars) {
            if (const std::optional<std::string> norm = transform(utf8Bytes(c)))
                replace(decodeUtf8(*norm), 1);
            else
                dest.emplace_back(c, 0);
        }
    }
    if (modified) s.transform(dest, 0);
}

} // namespace attnscope::tok
