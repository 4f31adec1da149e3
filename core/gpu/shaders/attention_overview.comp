#version 450
// Overview of one head without n x n, part 1: workgroup r owns cell row r, i.e. the queries [a, b)
// that pool into it. Its work is a list of pairs (tile of 16 queries, block of 64 keys), tile-major;
// one dispatch does pairs [pairBegin, pairEnd) (the host splits the list where a driver limits the
// loop iterations of one invocation, as llvmpipe does; on a real GPU one dispatch does them all).
// Invocation t owns key firstKey + t and recomputes P = exp(S - L) for the 16 rows:
//   - per key: max and sum of P over the cell row accumulate in keyPartial[r] (only invocation t
//     touches its keys, so nothing needs synchronising);
//   - per row: the entropy terms -P (S - L) of the 64 keys are summed through shared memory and added
//     to rowEntropy (only invocation i < 16 of this workgroup touches row firstRow + i).
// overview_pool.comp then pools the key partials into cells; column_sums.comp adds them over cell rows.

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
    int pairBegin;
    int pairEnd;
} params;

layout(std430, binding = 1) readonly buffer Queries { float q[]; };          // [n_q, d]: this head
layout(std430, binding = 2) readonly buffer Keys { float k[]; };             // [n_k, d]: its kv head
layout(std430, binding = 3) readonly buffer RowLse { float lse[]; };         // [n_q, 2]: hi, lo
layout(std430, binding = 4) readonly buffer KeyVisible { uint keyVisible[]; }; // [n_k]: 0 = padding
layout(std430, binding = 5) buffer KeyPartial { float keyPartial[]; };       // [rows, n_k, 2]: max, sum
layout(std430, binding = 6) buffer RowEntropy { float rowEntropy[]; };       // [n_q]

shared float queryTile[ROWS * MAX_DIM];
shared float entropyTerms[ROWS * KEYS];

int cellStart(int cell, int count, int cells)
{
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

    if (params.pairBegin == 0) {
        for (int key = lane; key < params.keys; key += KEYS) {
            keyPartial[partialBase + key * 2] = 0.0;
            keyPartial[partialBase + key * 2 + 1] = 0.0;
        }
        for (int row = a + lane; row < b; row += KEYS)
            rowEntropy[row] = 0.0;
    }

    // Keys past the last one query b - 1 may see hold P = 0 under the causal mask: skipped.
    int keyEnd = params.keys;
    if (params.causal != 0)
        keyEnd = clamp(b + params.queryOffset, 0, params.keys);
    int keyBlocks = max((keyEnd + KEYS - 1) / KEYS, 1);
    int pairEnd = min(params.pairEnd, ((b - a + ROWS - 1) / ROWS) * keyBlocks);
    float keyVector[MAX_DIM];

    for (int pair = params.pairBegin; pair < pairEnd; ++pair) {
        int firstRow = a + (pair / keyBlocks) * ROWS;
        int key = (pair % keyBlocks) * KEYS + lane;
        barrier();
        for (int i = lane; i < ROWS * dim; i += KEYS) {
            int row = i / dim;
            int c = i - row * dim;
            queryTile[row * MAX_DIM + c] = firstRow + row < b ? q[(firstRow + row) * dim + c] * params.scale : 0.0;
        }
        barrier();
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
        if (lane < ROWS && firstRow + lane < b) {
            // Pairwise over the 64 keys (four runs of 16), then one addition to the row's total.
            float s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
            for (int j = 0; j < 16; ++j) {
                s0 += entropyTerms[lane * KEYS + j];
                s1 += entropyTerms[lane * KEYS + 16 + j];
                s2 += entropyTerms[lane * KEYS + 32 + j];
                s3 += entropyTerms[lane * KEYS + 48 + j];
            }
            rowEntropy[firstRow + lane] += (s0 + s1) + (s2 + s3);
        }
    }
}
