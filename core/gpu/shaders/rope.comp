#version 450
// Rotary position embedding as a pass before attention, in place on Q or K ([tokens, heads, d]).
// The cos/sin of every (token, pair) come from the host, computed exactly as the CPU core does, so
// the rotated vectors agree with it to the last bit or two whatever the GPU's sin/cos precision.

layout(local_size_x = 64) in;

layout(std140, binding = 0) uniform Params {
    int tokens;
    int heads;
    int dim;
    int pairs;       // rotary pairs: rotary dimension / 2
    int interleaved; // 0: pair (p, p + pairs) (rotate-half); 1: pair (2p, 2p + 1)
    int invocations; // workgroups x 64 (HLSL has no gl_NumWorkGroups)
} params;

layout(std430, binding = 1) buffer Vectors { float x[]; };            // [tokens, heads, d]
layout(std430, binding = 2) readonly buffer Angles { float cs[]; };   // [tokens, pairs, 2]: cos, sin

void main()
{
    int total = params.tokens * params.heads * params.pairs;
    for (int index = int(gl_GlobalInvocationID.x); index < total; index += params.invocations) {
        int pair = index % params.pairs;
        int vectorIndex = index / params.pairs; // token * heads + head
        int token = vectorIndex / params.heads;
        int a = params.interleaved != 0 ? 2 * pair : pair;
        int b = params.interleaved != 0 ? 2 * pair + 1 : pair + params.pairs;
        float c = cs[(token * params.pairs + pair) * 2];
        float s = cs[(token * params.pairs + pair) * 2 + 1];
        int base = vectorIndex * params.dim;
        float va = x[base + a];
        float vb = x[base + b];
        x[base + a] = va * c - vb * s;
        x[base + b] = vb * c + va * s;
    }
}
