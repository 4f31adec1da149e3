#version 450
// Overview of one head without n x n: workgroup r owns cell row r, i.e. the queries [a, b) that
// pool into it. It walks those queries 16 at a time (staged in shared memory) against every key
// 64 at a time; invocation t owns key firstKey + t and recomputes P = exp(S - L) for the 16 rows.
//   - per key: max and sum of P over the cell row go to keyPartial[r] (only invocation t touches
//     its keys, so no synchronisation is needed until the end);
//   - per row: the entropy terms -P (S - L) of the 64 keys are summed through shared memory;
//   - at the end the key partials are pooled over each cell column's keys into max and mean.
// column_sums.comp then adds keyPartial over the cell rows to give the column sums.

layout(local_size_x = 64) in;

const int ROWS = 16;
const int KEYS = 64;
const int MAX_DIM = 128;

layout(std140, binding = 0) uniform Params {
    int queries;
    int keys;
    int dim;
    int causal;
    int queryOffset;
    int hasPadding;
    int rows; // cell rows
    int cols; // cell columns
    float scale;
} params;

layout(std430, binding = 1) readonly buffer Queries { float q[]; };          // [n_q, d]: this head
layout(std430, binding = 2) readonly buffer Keys { float k[]; };             // [n_k, d]: its kv head
layout(std430, binding = 3) readonly buffer RowLse { float lse[]; };         // [n_q, 2]: hi, lo
layout(std430, binding = 4) readonly buffer KeyVisible { uint keyVisible[]; }; // [n_k]: 0 = padding
layout(std430, binding = 5) coherent buffer KeyPartial { float keyPartial[]; }; // [rows, n_k, 2]: max, sum
layout(std430, binding = 6) writeonly buffer Pooled { float pooled[]; };     // [rows, cols, 2]: max, mean
layout(std430, binding = 7) writeonly buffer RowEntropy { float rowEntropy[]; }; // [n_q]

shared float queryTile[ROWS * MAX_DIM];
shared float entropyTerms[ROWS * KEYS];

int cellStart(int cell, int count, int cells)
{
    // ceil(cell * count / cells) without overflow for the sizes a heatmap meets
    return int((uint(cell) * uint(count) + uint(cells) - 1u) / uint(cells));
}

void main()
{
    int cellRow = int(gl_WorkGroupID.x);
    int lane = int(gl_LocalInvocationID.x);
    int dim = params.dim;
    int a = cellStart(cellRow, params.queries, params.rows);
    int b = cellStart(cellRow + 1, params.queries, params.rows);
    int partialBase = cellRow * params.keys * 2;

    for (int key = lane; key < params.keys; key += KEYS) {
        keyPartial[partialBase + key * 2] = 0.0;
        keyPartial[partialBase + key * 2 + 1] = 0.0;
    }

    // Keys past the last one query b - 1 may see hold P = 0 under the causal mask: skipped.
    int keyEnd = params.keys;
    if (params.causal != 0)
        keyEnd = clamp(b + params.queryOffset, 0, params.keys);
    int keyBlocks = (keyEnd + KEYS - 1) / KEYS;
    int rowTiles = (b - a + ROWS - 1) / ROWS;
    float keyVector[MAX_DIM];

    for (int tile = 0; tile < rowTiles; ++tile) {
        int firstRow = a + tile * ROWS;
        barrier();
        for (int i = lane; i < ROWS * dim; i += KEYS) {
            int row = i / dim;
            int c = i - row * dim;
            queryTile[row * MAX_DIM + c] = firstRow + row < b ? q[(firstRow + row) * dim + c] * params.scale : 0.0;
        }
        barrier();
        float entropy = 0.0; // invocation lane < ROWS: row firstRow + lane
        for (int block = 0; block < keyBlocks; ++block) {
            int key = block * KEYS + lane;
            bool keyVisibleHere = key < keyEnd && (params.hasPadding == 0 || keyVisible[key] != 0u);
            for (int c = 0; c < dim; ++c)
                keyVector[c] = key < keyEnd ? k[key * dim + c] : 0.0;
            float pMax = 0.0;
            float pSum = 0.0;
            for (int i = 0; i < ROWS; ++i) {
                int query = firstRow + i;
                float term = 0.0;
                if (keyVisibleHere && query < b && (params.causal == 0 || key <= query + params.queryOffset)) {
                    float score = 0.0;
                    for (int c = 0; c < dim; ++c)
                        score += queryTile[i * MAX_DIM + c] * keyVector[c];
                    float x = (score - lse[query * 2]) - lse[query * 2 + 1];
                    float p = exp(x);
                    pMax = max(pMax, p);
                    pSum += p;
                    term = -p * x;
                }
                entropyTerms[i * KEYS + lane] = term;
            }
            if (key < keyEnd) {
                int at = partialBase + key * 2;
                keyPartial[at] = max(keyPartial[at], pMax);
                keyPartial[at + 1] = keyPartial[at + 1] + pSum;
            }
            barrier();
            if (lane < ROWS) {
                for (int j = 0; j < KEYS; ++j)
                    entropy += entropyTerms[lane * KEYS + j];
            }
            barrier();
        }
        if (lane < ROWS && firstRow + lane < b)
            rowEntropy[firstRow + lane] = entropy;
    }

    memoryBarrierBuffer();
    barrier();
    int cellQueries = b - a;
    for (int cell = lane; cell < params.cols; cell += KEYS) {
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
