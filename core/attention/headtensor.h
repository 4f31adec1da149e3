#pragma once

#include <cstddef>
#include <vector>

namespace attnscope {

// Per-token, per-head vectors: the layout of Q, K, V and O in the attention core.
// values is [tokens, heads, dim], row-major: the vector of token t in head h starts at (t*heads + h)*dim.
// This is the layout a linear projection produces ([tokens, heads*dim]) with no transpose.
struct HeadTensor
{
    int tokens = 0;
    int heads = 0;
    int dim = 0;
    std::vector<float> values;

    HeadTensor() = default;
    HeadTensor(int tokenCount, int headCount, int headDim)
        : tokens(tokenCount), heads(headCount), dim(headDim),
          values(size_t(tokenCount) * size_t(headCount) * size_t(headDim), 0.0f)
    {
    }

    size_t offset(int token, int head) const { return (size_t(token) * size_t(heads) + size_t(head)) * size_t(dim); }
    float* vector(int token, int head) { return values.data() + offset(token, head); }
    const float* vector(int token, int head) const { return values.data() + offset(token, head); }
    float& at(int token, int head, int component) { return values[offset(token, head) + size_t(component)]; }
    float at(int token, int head, int component) const { return values[offset(token, head) + size_t(component)]; }
    // Distance in floats between the vectors of consecutive tokens in one head.
    int tokenStride() const { return heads * dim; }
};

} // namespace attnscope
