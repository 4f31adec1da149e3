#version 450
// Overview of one head, part 2: the per-key max and sum over each cell row (from
// attention_overview.comp) pooled over each cell column's keys into the cell's max and mean.
// Workgroup r is cell row r; invocations stride over its cells.

layout(local_size_x = 64) in;

layout(std140, binding = 0) uniform Params {
    int queries;
    int keys;
    int rows; // cell rows
    int cols; // cell columns
} params;

layout(std430, binding = 1) readonly buffer KeyPartial { float keyPartial[]; }; // [rows, n_k, 2]: max, sum
layout(std430, binding = 2) writeonly buffer Pooled { float pooled[]; };        // [rows, cols, 2]: max, mean

int cellStart(int cell, int count, int cells)
{
    return int((uint(cell) * uint(count) + uint(cells) - 1u) / uint(cells));
}

void main()
{
    int cellRow = int(gl_WorkGroupID.x);
    int cellQueries = cellStart(cellRow + 1, params.queries, params.rows) - cellStart(cellRow, params.queries, params.rows);
    int partialBase = cellRow * params.keys * 2;
    for (int cell = int(gl_LocalInvocationID.x); cell < params.cols; cell += 64) {
        int k0 = cellStart(cell, params.keys, params.cols);
        int k1 = cellStart(cell + 1, params.keys, params.cols);
        float cellMax = 0.0;
        float cellSum = 0.0;
        for (int key = k0; key < k1; ++key) {
            cellMax = max(cellMax, keyPartial[partialBase + key * 2]);
            cellSum += keyPartial[partialBase + key * 2 + 1];
        }
        int at = (cellRow * params.cols + cell) * 2;
        pooled[at] = cellMax;
        pooled[at + 1] = cellSum / (float(cellQueries) * float(k1 - k0));
    }
}
