#version 450
// Column sums of one head's P (attention received per key): the per-cell-row key sums that
// attention_overview.comp left in keyPartial, added over the cell rows in order.

layout(local_size_x = 64) in;

layout(std140, binding = 0) uniform Params {
    int keys;
    int rows; // cell rows
} params;

layout(std430, binding = 1) readonly buffer KeyPartial { float keyPartial[]; }; // [rows, n_k, 2]: max, sum
layout(std430, binding = 2) writeonly buffer ColumnSums { float columnSums[]; }; // [n_k]

void main()
{
    int key = int(gl_GlobalInvocationID.x);
    if (key >= params.keys)
        return;
    float sum = 0.0;
    for (int r = 0; r < params.rows; ++r)
        sum += keyPartial[(r * params.keys + key) * 2 + 1];
    columnSums[key] = sum;
}
