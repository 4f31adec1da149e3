#include "model/attentioncapture.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace attnscope {

std::vector<float> transformedValueNorms(const AttentionCapture& capture, int layer, int head)
{
    if (layer < 0 || layer >= int(capture.values.size()) || layer >= int(capture.outputProjections.size()) ||
        head < 0 || head >= capture.heads)
        throw std::invalid_argument("transformedValueNorms: layer " + std::to_string(layer) + " head " +
                                    std::to_string(head) + " is outside the capture");
    const HeadTensor& v = capture.values[size_t(layer)];
    const OutputProjection& projection = capture.outputProjections[size_t(layer)];
    const int d = capture.headDim;
    const int hidden = capture.hidden;
    const int kvHead = head / (capture.heads / capture.kvHeads);
    const qint64 inputs = qint64(capture.heads) * d;
    const WeightTensor weight = projection.weight();
    const float* w = weight.data();
    std::vector<float> norms(static_cast<size_t>(v.tokens));
    std::vector<double> f(static_cast<size_t>(hidden));
    for (int j = 0; j < v.tokens; ++j) {
        const float* vj = v.vector(j, kvHead);
        std::fill(f.begin(), f.end(), 0.0);
        for (int c = 0; c < d; ++c) {
            const qint64 input = qint64(head) * d + c;
            for (int o = 0; o < hidden; ++o) {
                // W_O element (out o, in `input`), in whichever order it is stored.
                const float wo =
                    projection.inputMajor ? w[input * hidden + o] : w[qint64(o) * inputs + input];
                f[size_t(o)] += double(wo) * double(vj[c]);
            }
        }
        double sum = 0;
        for (double x : f)
            sum += x * x;
        norms[size_t(j)] = float(std::sqrt(sum));
    }
    return norms;
}

std::vector<float> normWeightedAttention(const AttentionCapture& capture, int layer, int head)
{
    const std::vector<float> norms = transformedValueNorms(capture, layer, head);
    std::vector<float> matrix = capture.maps->matrix(layer, head);
    const size_t n = norms.size();
    for (size_t i = 0; i < size_t(capture.maps->queries()); ++i)
        for (size_t j = 0; j < n; ++j)
            matrix[i * n + j] *= norms[j];
    return matrix;
}

} // namespace attnscope
