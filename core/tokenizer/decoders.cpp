#include "tokenizer/decoders.h"

#include "tokenizer/unicodechars.h"

namespace attnscope::tok {

namespace {

void replaceAll(std::u32string& s, const std::u32string& from, const std::u32string& to)
{
    if (from.empty())
        return;
    size_t pos = 0;
    while ((pos = s.find(from, pos)) != std::u32string::npos) {
        s.replace(pos, from.size(), to);
        pos += to.size();
    }
}

std::u32string u32(const char* ascii)
{
    std::u32string out;
    for (const char* p = ascii; *p; ++p)
        out.push_back(char32_t(static_cast<unsigned char>(*p)));
    return out;
}

} // namespace

std::vector<std::u32string> WordPieceDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    for (size_t i = 0; i < tokens.size(); ++i) {
        std::u32string& token = tokens[i];
        if (i != 0) {
            if (token.compare(0, m_prefix.size(), m_prefix) == 0)
                token.erase(0, m_prefix.size());
            else
                token.insert(0, U" ");
        }
        if (m_cleanup) {
            static const std::pair<const char*, const char*> rules[] = {
                {" .", "."},   {" ?", "?"},   {" !", "!"},   {" ,", ","},   {" ' ", "'"},   {" n't", "n't"},
                {" 'm", "'m"}, {" do not", " don't"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
            for (const auto& [from, to] : rules)
                replaceAll(token, u32(from), u32(to));
        }
    }
    return tokens;
}

std::vector<std::u32string> ByteLevelDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    std::string bytes;
    for (const std::u32string& token : tokens) {
        std::string tokenBytes;
        bool ok = true;
        for (char32_t c : token) {
            const int b = unicodeToByte(c);
            if (b < 0) {
                ok = false;
                break;
            }
            tokenBytes.push_back(char(b));
        }
        if (!ok) { // not byte-level text (an added token, say): its own UTF-8
            tokenBytes.clear();
            for (char32_t c : token)
                tokenBytes += utf8Bytes(c);
        }
        bytes += tokenBytes;
    }
    return {toCodePoints(fromUtf8Lossy(bytes))};
}

std::vector<std::u32string> MetaspaceDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    for (size_t i = 0; i < tokens.size(); ++i) {
        std::u32string out;
        for (char32_t c : tokens[i]) {
            if (c == m_replacement) {
                if (!(i == 0 && m_scheme != PrependScheme::Never))
                    out.push_back(U' ');
            } else {
                out.push_back(c);
            }
        }
        tokens[i] = std::move(out);
    }
    return tokens;
}

std::vector<std::u32string> BpeDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    for (size_t i = 0; i < tokens.size(); ++i)
        replaceAll(tokens[i], m_suffix, i + 1 == tokens.size() ? std::u32string() : std::u32string(U" "));
    return tokens;
}

std::vector<std::u32string> ReplaceDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    for (std::u32string& t : tokens)
        replaceAll(t, m_pattern, m_content);
    return tokens;
}

std::vector<std::u32string> ByteFallbackDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    std::vector<std::u32string> out;
    std::string pending;
    auto flush = [&] {
        if (pending.empty())
            return;
        bool ok = true;
        std::u32string decoded = fromUtf8Strict(pending, &ok);
        // Valid UTF-8 as a whole, or one U+FFFD per byte, as HF does.
        if (ok)
            out.push_back(std::move(decoded));
        else
            for (size_t i = 0; i < pending.size(); ++i)
                out.push_back(std::u32string(1, 0xFFFD));
        pending.clear();
    };
    for (std::u32string& token : tokens) {
        auto hex = [](char32_t c) -> int {
            if (c >= U'0' && c <= U'9')
                return int(c - U'0');
            if (c >= U'A' && c <= U'F')
                return int(c - U'A') + 10;
            if (c >= U'a' && c <= U'f')
                return int(c - U'a') + 10;
            return -1;
        };
        if (token.size() == 6 && token.compare(0, 3, U"<0x") == 0 && token[5] == U'>' && hex(token[3]) >= 0 &&
            hex(token[4]) >= 0) {
            pending.push_back(char(hex(token[3]) * 16 + hex(token[4])));
        } else {
            flush();
            out.push_back(std::move(token));
        }
    }
    flush();
    return out;
}

std::vector<std::u32string> FuseDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    std::u32string all;
    for (const std::u32string& t : tokens)
        all += t;
    return {all};
}

std::vector<std::u32string> StripDecoder::decodeChain(std::vector<std::u32string> tokens) const
{
    for (std::u32string& token : tokens) {
        const int n = int(token.size());
        int startCut = 0;
        for (int i = 0; i < std::min(m_start, n); ++i) {
            if (token[size_t(i)] != m_content)
                break;
            startCut = i + 1;
        }
        int stopCut = n;
        for (int i = 0; i < std::min(m_stop, n); ++i) {
            const int index = n - i - 1;
            if (token[size_t(index)] != m_content)
                break;
            stopCut = index;
        }
        token = stopCut > startCut ? token.substr(size_t(startCut), size_t(stopCut - startCut)) : std::u32string();
    }
    return tokens;
}

} // namespace attnscope::tok
