// libFuzzer harness: a whole .gguf file through GgufFile (header, metadata, tensor table: every count,
// length, dimension, type and offset checked against the file's size), then what the app reads from it:
// every metadata value through each typed accessor, the first row of every tensor dequantized, the
// architecture's config.json (describeGgufModel -> ModelConfig) and the tokenizer metadata
// (readGgufVocabulary
// -> Tokenizer, encoding a short text). A bad file must give ModelError or TokenizerError, nothing else.
//
// GgufFile maps a path, so each input is written to one temporary file first (rewritten in place).

#include "model/ggufmodel.h"
#include "model/modelconfig.h"
#include "model/modelerror.h"
#include "tokenizer/ggufvocabulary.h"
#include "tokenizer/tokenizer.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

const std::string& inputPath()
{
    static const std::string path = [] {
        const char* dir = std::getenv("TMPDIR");
        return std::string(dir && *dir ? dir : "/tmp") + "/attnscope-fuzz-gguf-" + std::to_string(getpid()) +
               ".gguf";
    }();
    return path;
}

template <typename F> void quietly(F&& f)
{
    try {
        f();
    } catch (const attnscope::ModelError&) {
    } catch (const attnscope::TokenizerError&) {
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, size_t size)
{
    using namespace attnscope;
    FILE* f = std::fopen(inputPath().c_str(), "wb");
    if (!f) std::abort();
    if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
    std::fclose(f);
    const QString path = QString::fromStdString(inputPath());
    quietly([&] {
        const GgufFile file(path);
        for (const QString& key : file.keys()) {
            quietly([&] { file.string(key); });
            quietly([&] { file.integer(key); });
            quietly([&] { file.number(key); });
            quietly([&] { file.boolean(key); });
            quietly([&] { file.stringArray(key); });
            quietly([&] { file.floatArray(key); });
            quietly([&] { file.intArray(key); });
            quietly([&] { file.byteArray(key); });
        }
        for (const GgufTensor& tensor : file.tensors()) {
            if (tensor.rows() < 1 || tensor.rowElements() > (1 << 20)) continue;
            std::vector<float> row(size_t(tensor.rowElements()));
            quietly([&] { file.dequantizeRows(tensor, 0, 1, row.data()); });
        }
        quietly([&] {
            const GgufModelDescription description = describeGgufModel(file);
            ModelConfig::fromJson(description.config, path);
        });
        quietly([&] {
            const GgufVocabulary vocabulary = readGgufVocabulary(file);
            if (vocabulary.model.isEmpty()) return;
            const std::unique_ptr<Tokenizer> tokenizer = Tokenizer::fromGgufVocabulary(vocabulary, path);
            const Encoding encoding = tokenizer->encode(QStringLiteral("Hello world, merhaba dünya 123"));
            tokenizer->decode(encoding.ids);
        });
    });
    return 0;
}
