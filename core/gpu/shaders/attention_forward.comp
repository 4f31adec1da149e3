#version 450
// Tiled attention forward (FlashAttention) for every head in one dispatch.
// Workgroup (x, y) = (block of 64 queries, query head y). Each invocation owns one query row: its
// scaled query and its output accumulator live in registers with the online-softmax state (running
// max m and running sum l of exp(s - m)). Keys and values stream through shared memory 16 at a time,
// so no score matrix is ever written. Under the causal mask the key blocks past the last key the
// block's final query may see are never loaded.
//
// Key chunks: Mesa's llvmpipe/lavapipe stop any shader invocation after 65535 loop iterations in all
// (gallivm's loop limiter), silently. On such devices the host splits the keys into chunks, one
// dispatch each; between chunks the state (m, l and the unnormalised output in O) stays in the
// buffers. On a real GPU there is one chunk: one dispatch for all heads.
//
// Portability (GLSL ES 3.10 is generated from this): no infinities (MASKED stands for -inf), barrier()
// only in uniform control flow (the key-block loop bounds are the same for the whole workgroup).

layout(local_size_x = 64) in;

const int BLOCK_Q = 64;
const int BLOCK_K = 16;
const int MAX_DIM4 = 32; // head dimension up to 128, in vec4s (d must be a multiple of 4)
const float MASKED = -3.0e38;

layout(std140, binding = 0) uniform Params {
    int queries;
    int keys;
    int heads;
    int kvHeads;
    int dim;
    int causal;
    int queryOffset;
    int hasPadding;
    float scale;
    int chunkBegin; // keys [chunkBegin, chunkEnd) in this dispatch; multiples of BLOCK_K
    int chunkEnd;
    int lastChunk;  // 1: normalise O; else O keeps the unnormalised accumulator for the next chunk
} params;

layout(std430, binding = 1) readonly buffer Queries { vec4 q[]; };           // [n_q, H, d/4], after RoPE
layout(std430, binding = 2) readonly buffer Keys { vec4 k[]; };              // [n_k, H_kv, d/4], after RoPE
layout(std430, binding = 3) readonly buffer Values { vec4 v[]; };            // [n_k, H_kv, d/4]
layout(std430, binding = 4) readonly buffer KeyVisible { uint keyVisible[]; }; // [n_k]: 0 = padding
layout(std430, binding = 5) buffer Output { vec4 o[]; };          // [n_q, H, d]
layout(std430, binding = 6) buffer RowState { float rowState[]; }; // [H, n_q, 2]: m, l

shared vec4 keyTile[BLOCK_K * MAX_DIM4];
shared vec4 valueTile[BLOCK_K * MAX_DIM4];

void main()
{
    int head = int(gl_WorkGroupID.y);
    int firstQuery = int(gl_WorkGroupID.x) * BLOCK_Q;
    int lane = int(gl_LocalInvocationID.x);
    int query = firstQuery + lane;
    bool hasRow = query < params.queries;
    int dim = params.dim / 4; // in vec4s
    int kvHead = head / (params.heads / params.kvHeads);

    vec4 scaledQuery[MAX_DIM4];
    vec4 accumulator[MAX_DIM4];
    for (int c = 0; c < dim; ++c) {
        scaledQuery[c] = hasRow ? q[(query * params.heads + head) * dim + c] * params.scale : vec4(0.0);
        accumulator[c] = vec4(0.0);
    }
    float runningMax = MASKED;
    float runningSum = 0.0;
    if (hasRow && params.chunkBegin > 0) {
        runningMax = rowState[(head * params.queries + query) * 2];
        runningSum = rowState[(head * params.queries + query) * 2 + 1];
        for (int c = 0; c < dim; ++c)
            accumulator[c] = o[(query * params.heads + head) * dim + c];
    }

    int keyEnd = params.keys;
    if (params.causal != 0)
        keyEnd = clamp(min(params.queries, firstQuery + BLOCK_Q) + params.queryOffset, 0, params.keys);
    int keyBlocks = min((keyEnd + BLOCK_K - 1) / BLOCK_K, params.chunkEnd / BLOCK_K);

    for (int block = params.chunkBegin / BLOCK_K; block < keyBlocks; ++block) {
        int firstKey = block * BLOCK_K;
        barrier(); // the previous tile has been used by every invocation
        for (int i = lane; i < BLOCK_K * dim; i += BLOCK_Q) {
            int row = i / dim;
            int c = i - row * dim;
            int key = firstKey + row;
            int source = (key * params.kvHeads + kvHead) * dim + c;
            keyTile[row * MAX_DIM4 + c] = key < keyEnd ? k[source] : vec4(0.0);
            valueTile[row * MAX_DIM4 + c] = key < keyEnd ? v[source] : vec4(0.0);
        }
        barrier();
        if (hasRow) {
            float p[BLOCK_K];
            float blockMax = MASKED;
            for (int j = 0; j < BLOCK_K; ++j) {
                int key = firstKey + j;
                bool visible = key < keyEnd && (params.causal == 0 || key <= query + params.queryOffset) &&
                               (params.hasPadding == 0 || keyVisible[key] != 0u);
                float score = MASKED;
                if (visible) {
                    score = 0.0;
                    for (int c = 0; c < dim; ++c)
                        score += dot(scaledQuery[c], keyTile[j * MAX_DIM4 + c]);
                }
                p[j] = score;
                blockMax = max(blockMax, score);
            }
            float newMax = max(runningMax, blockMax);
            if (newMax > MASKED) {
                float rescale = runningMax > MASKED ? exp(runningMax - newMax) : 0.0;
                float blockSum = 0.0;
                for (int j = 0; j < BLOCK_K; ++j) {
                    p[j] = p[j] > MASKED ? exp(p[j] - newMax) : 0.0;
                    blockSum += p[j];
                }
                runningSum = runningSum * rescale + blockSum;
                for (int c = 0; c < dim; ++c) {
                    vec4 a = accumulator[c] * rescale;
                    for (int j = 0; j < BLOCK_K; ++j)
                        a += p[j] * valueTile[j * MAX_DIM4 + c];
                    accumulator[c] = a;
                }
                runningMax = newMax;
            }
        }
    }

    if (hasRow) {
        for (int c = 0; c < dim; ++c)
            o[(query * params.heads + head) * dim + c] =
                params.lastChunk == 0 ? accumulator[c] : (runningSum > 0.0 ? accumulator[c] / runningSum : vec4(0.0));
        rowState[(head * params.queries + query) * 2] = runningMax;
        rowState[(head * params.queries + query) * 2 + 1] = runningSum;
    }
}
