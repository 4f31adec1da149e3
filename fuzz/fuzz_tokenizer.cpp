// libFuzzer harness: a tokenizer.json and a text, separated by the first NUL byte (JSON holds none):
// the JSON through Tokenizer::fromJsonBytes (every normalizer, pre-tokenizer, model, post-processor and
// decoder the loader knows), then the text (bytes as UTF-8, invalid sequences included) encoded alone and
// as a pair, and the ids decoded back. A bad file must give TokenizerError, nothing else.

#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope;
    const char* bytes = reinterpret_cast<const char*>(data);
    const char* nul = static_cast<const char*>(std::memchr(bytes, 0, size));
    const size_t jsonSize = nul ? size_t(nul - bytes) : size;
    const QByteArray json(bytes, qsizetype(jsonSize));
    const QString text = nul ? QString::fromUtf8(nul + 1, qsizetype(size - jsonSize - 1)) : QString();
    std::unique_ptr<Tokenizer> tokenizer;
    try {
        tokenizer = Tokenizer::fromJsonBytes(json, QStringLiteral("tokenizer.json"));
    } catch (const TokenizerError&) {
        return 0;
    }
    try {
        const Encoding single = tokenizer->encode(text);
        // Every token has an offset, a type id, a flag and a sequence id.
        if (single.tokens.size() != single.size() || single.offsets.size() != single.ids.size() ||
            single.typeIds.size() != single.ids.size() || single.special.size() != single.ids.size())
            std::abort();
        tokenizer->decode(single.ids, true);
        tokenizer->decode(single.ids, false);
        const Encoding pair = tokenizer->encode(text, text.left(text.size() / 2), true);
        tokenizer->decode(pair.ids);
    } catch (const TokenizerError&) {
    }
    return 0;
}
