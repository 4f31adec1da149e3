#version 450
// One rectangle [q0, q0 + rows) x [k0, k0 + cols) of one head's P, recomputed as exp(S - L).
// One invocation per cell. L arrives split as hi + lo (two floats carrying the CPU's double), so
// S - L loses nothing to the rounding of L even when L is large.

layout(local_size_x = 16, local_size_y = 16) in;

layout(std140, binding = 0) uniform Params {
    int rows;
    int cols;
    int dim;
    int q0;
    int k0;
    int causal;
    int queryOffset;
    int hasPadding;
    float scale;
} params;

layout(std430, binding = 1) readonly buffer Queries { float q[]; };          // [rows, d]: this head's rows
layout(std430, binding = 2) readonly buffer Keys { float k[]; };             // [cols, d]: its kv head's keys
layout(std430, binding = 3) readonly buffer RowLse { float lse[]; };         // [rows, 2]: hi, lo
layout(std430, binding = 4) readonly buffer KeyVisible { uint keyVisible[]; }; // [cols]: 0 = padding
layout(std430, binding = 5) writeonly buffer Tile { float p[]; };            // [rows, cols]

void main()
{
    int col = int(gl_GlobalInvocationID.x);
    int row = int(gl_GlobalInvocationID.y);
    if (row >= params.rows || col >= params.cols)
        return;
    int query = params.q0 + row;
    int key = params.k0 + col;
    bool masked = (params.causal != 0 && key > query + params.queryOffset) ||
                  (params.hasPadding != 0 && keyVisible[col] == 0u);
    float probability = 0.0;
    if (!masked) {
        float score = 0.0;
        for (int c = 0; c < params.dim; ++c)
            score += (q[row * params.dim + c] * params.scale) * k[col * params.dim + c];
        probability = exp((score - lse[row * 2]) - lse[row * 2 + 1]);
    }
    p[row * params.cols + col] = probability;
}
