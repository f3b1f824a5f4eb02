// cv::cuda::HoughLinesDetector semantics (OpenCV's CUDA Hough lines), for cvgpu.cuda.
//
// Algorithm (OpenCV's cudaimgproc hough_lines): every nonzero pixel votes, for each angle n, into
// bin r = round(x * cos + y * sin) (float32, OpenCV's nvcc arithmetic below) shifted by
// (numrho - 1) / 2; a line is a cell above the threshold that beats its left and upper neighbours
// and is not beaten by its right and lower ones. The voting machinery is shared with HoughLines
// (kernels/hough/voting.cuh); cvgpu/cuda/hough.py builds the launch plan.
//
// Pipeline: three launches on one stream, one host synchronisation (the line count, written by the
// last kernel into pinned host memory together with a host copy of the lines):
//   ch_collect   compact nonzero pixels into a point list (any order: integer atomic adds
//                commute, so the order never changes a vote count)
//   ch_vote_shared_K / ch_vote_global
//                votes of K angles per block (1 with ch_vote_global; grid.y splits the points), in
//                shared-memory rows (flushed with atomic adds) or straight into global memory for very
//                long rows; the grid is cvgpu.hough._voting.one_wave_vote_config's where it applies
//   ch_maxima    the 4-neighbour local-maximum rule over the columns votes can reach (ch_row_bounds,
//                computed once per buffer set); blocks append the maxima's sort keys in any order,
//                the last block to finish orders them and writes the lines. Then its blocks zero
//                those columns of the other accumulator, the next detect's (alternate detects use
//                alternate accumulators, cvgpu/cuda/hough.py: the plan's parity)
//   ch_emit      host path used only when there are more than `smem_cap` local maxima
//
// ---------------------------------------------------------------------------------------------
// Arithmetic, reproduced bit for bit from OpenCV's CUDA build (nvcc defaults, FMA contraction on):
//   ang    = (float)n * theta                                      (float32 product)
//   sincosf(ang) — CUDA's accurate sincosf (libdevice), so this file must not be compiled with
//                  -use_fast_math (NVRTC's default is the accurate one)
//   cosVal = cos * irho, sinVal = sin * irho, irho = 1.0f / rho    (float32, irho from the host)
//   r      = __float2int_rn(x * cosVal + y * sinVal) + (numrho - 1) / 2
// nvcc contracted `x * cosVal + y * sinVal` into ONE fused multiply-add. Which product is fused was
// established against shared/golden/opencv_cuda_houghlines_golden.npz with an exact CPU model
// (tests/cuda/test_cuda_hough.py: libdevice's sinf/cosf reduction and polynomials with exact FMAs):
//   fmaf(x, cosVal, y * sinVal)  — x*cosVal fused, y*sinVal rounded first:   240/240 cases match
//   fmaf(y, sinVal, x * cosVal)  — y*sinVal fused:                            10 cases differ
//   no FMA (two rounded products and a rounded add):                          7 cases differ
// (and with correctly rounded sin/cos instead of CUDA's sincosf, the fused-x model fails 8 cases).
// So the bin is __float2int_rn(f32_fma(x, cosVal, f32_mul(y, sinVal))), written with explicit
// intrinsics so that no compiler flag (-fmad) can change it.
//   output: rho   = ((float)r - (float)(numrho - 1) * 0.5f) * rho,  theta = (float)n * theta
//
// Accumulator: (numangle + 2) x (numrho + 2) int32 with a zero border, interior cell (n, r) at
// (n + 1) * (numrho + 2) + r + 1. A bin r (after the shift) lands in column r + 1. OpenCV keeps
// columns 0 .. numrho when it votes in shared memory (its rule: (numrho + 1) * 4 <
// sharedMemPerBlock - 1000) and columns 0 .. numrho + 1 when it votes with global atomics; the
// host passes that last kept column as `hi_col`, whichever kernel variant cvgpu runs. Columns 0
// and numrho + 1 are borders: they can only be reached when rho is large against the image, and
// then take part in the neighbour comparisons exactly as in OpenCV. Other out-of-range bins are
// dropped.
//
// Output order (cvgpu's documented, deterministic choice; OpenCV's is whatever atomics produce):
//   doSort:    votes descending, equal votes in raster order of the accumulator (n, then r)
//   no doSort: raster order of the accumulator (n ascending, then r ascending)
//   more local maxima than maxLines: the strongest maxLines are kept (votes descending, ties in
//   raster order), then ordered as above. OpenCV keeps an arbitrary subset.
// ---------------------------------------------------------------------------------------------

// counters[0]: number of points; counters[2..3]: ch_maxima's 64-bit tally (local maxima, finished
// blocks). Both are reset to 0 by the last ch_maxima block, so the buffers are ready for the next detect.

// Point loads in flight per voting thread (hough_vote_safe_run); kernels/hough/lines.cu keeps 8.
// The detector's one-wave grid gives each thread more points, so more loads in flight pay here
// (bench row: cuda 1024x1024 horizontal segments, 163840 pts).
#ifndef HOUGH_UNROLL
#define HOUGH_UNROLL 16
#endif
#include "hough/voting.cuh"
#include "chain_scan.cuh"

// Graph mode (kernels/graphs.cuh): the per-call values come from `call`, the image's words
// (HOUGH_WORD_*, kernels/hough/voting.cuh), then the output pointer; cvgpu/cuda/hough.py: WORDS
// declares the same names in the same order. NULL: the arguments as given.
#define CH_WORD_OUT_PTR 3
#define CH_WORDS 4

// The next detect's accumulator is zeroed by ch_maxima (hough_zero_windows, kernels/hough/voting.cuh)
// once this detect's count is published: done in the collection, it would delay the first point of
// every detect.

extern "C" __global__ void __launch_bounds__(256) ch_collect(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, const long long* __restrict__ call)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, call, nullptr, HOUGH_IMAGE_WORDS,
                       CH_WORDS);
}

// The first kernel of a lean graph (fresh_word_load): ch_collect that also brings the output
// pointer (as kernels/hough/lines.cu: hough_collect_points_lean).
extern "C" __global__ void __launch_bounds__(256) ch_collect_lean(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, const long long* __restrict__ call,
    const long long* __restrict__ fresh)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, call, fresh, HOUGH_IMAGE_WORDS,
                       CH_WORDS);
}

// Scaled cos and sin of angle n, as OpenCV's voting kernel computes them (see the header).
__device__ __forceinline__ void ch_trig(int n, float theta, float irho, float* c, float* s)
{
    const float ang = f32_mul((float)n, theta);
    float sv, cv;
    sincosf(ang, &sv, &cv);
    *c = f32_mul(cv, irho);
    *s = f32_mul(sv, irho);
}

// OpenCV-CUDA's float32 sum: x * cos fused with the rounded y * sin (see the header).
struct HoughSumCuda {
    __device__ __forceinline__ float operator()(float x, float y, float c, float s) const
    {
        return f32_fma(x, c, f32_mul(y, s));
    }
};

// The accumulator column of a point for one angle (before the +1 of the border).
__device__ __forceinline__ int ch_bin(point_t p, float c, float s, int shift)
{
    const float x = (float)(long long)(p & POINT_MASK);
    const float y = (float)(long long)(p >> POINT_SHIFT);
    return __float2int_rn(HoughSumCuda()(x, y, c, s)) + shift;
}

// Per accumulator row n (angle n): the columns [lo, hi] its votes can reach, at bounds[1 + 2n] and
// bounds[2 + 2n], within the kept columns [0, hi_col] (lo > hi: none); bounds[0] (zeroed by the
// host) becomes the widest row's width. Run once per buffer set. The corners bound the votes
// (hough_corner_columns, kernels/hough/voting.cuh); where they give no bound the whole row is kept.
extern "C" __global__ void ch_row_bounds(int numangle, int numrho, int hi_col, float theta, float irho, long long rows,
                                         long long cols, int* __restrict__ bounds)
{
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= numangle)
        return;
    float c, s;
    ch_trig(n, theta, irho, &c, &s);
    long long lo = 0, hi = hi_col;
    long long lo_bin = 0, hi_bin = 0;
    const bool exact = hough_corner_columns<HoughSumCuda>(c, s, rows, cols, numrho, &lo_bin, &hi_bin);
    if (exact) {
        lo = max(lo_bin, 0ll);
        hi = min(hi_bin, (long long)hi_col);
    }
    bounds[1 + 2 * n] = (int)lo;
    bounds[2 + 2 * n] = (int)hi;
    if (hi >= lo)
        atomicMax(&bounds[0], (int)(hi - lo + 1));
}

// Debug/test kernel: the scaled (cos, sin) table exactly as the voting kernels use it.
extern "C" __global__ void ch_trig_table(int numangle, float theta, float irho, float* __restrict__ out)
{
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n < numangle) {
        float c, s;
        ch_trig(n, theta, irho, &c, &s);
        out[2 * n] = c;
        out[2 * n + 1] = s;
    }
}

__device__ __forceinline__ void ch_chunk(int npoints, int* begin, int* end)
{
    // Chunks are multiples of 32 points so that warps see runs of the collecting warps.
    int chunk = (npoints + gridDim.y - 1) / gridDim.y;
    chunk = (chunk + 31) & ~31;
    *begin = min(npoints, (int)blockIdx.y * chunk);
    *end = min(npoints, *begin + chunk);
}

// grid (ceil(numangle / K), splits): block (a, s) votes the points of slice s for angles
// [a * K, a * K + K) into K shared-memory rows and adds its nonzero cells to the accumulator. One
// point load serves K angles and HOUGH_UNROLL loads are in flight at once; plain shared
// atomics, and no range test where every bin of the block provably lands in [0, hi_col] (the
// shape of kernels/hough/lines.cu's hough_vote_block, and its reasons).
template <int K>
__device__ __forceinline__ void ch_vote_block(
    const point_t* __restrict__ points, const int* __restrict__ counters, float theta, float irho,
    int numangle, int numrho, int hi_col, int window, int min_points, int rows, int cols,
    int* __restrict__ accum)
{
    extern __shared__ int rows_sh[];
    await_previous_kernel();
    int begin, end;
    if (!hough_vote_slice(counters[0], min_points, &begin, &end))
        return;
    const int width = numrho + 2;
    const int n0 = blockIdx.x * K;
    const int nk = min(K, numangle - n0);
    const int shift = (numrho - 1) / 2;
    float c[K], s[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        c[k] = 0.0f;
        s[k] = 0.0f;
        if (k < nk)
            ch_trig(n0 + k, theta, irho, &c[k], &s[k]);
    }
    // Columns 0..hi_col take votes (see shared_vote_semantics); the window lies among them.
    const int lo = hough_window_lo<K>(c, s, nk, rows, cols, shift + 1, window, hi_col + 1);
    const int cells = nk * window;
    for (int i = threadIdx.x; i < cells; i += blockDim.x)
        rows_sh[i] = 0;
    bool safe = nk == K && window <= hi_col + 1;
#pragma unroll
    for (int k = 0; k < K; k++)
        safe = safe && hough_in_window(c[k], s[k], rows, cols, shift + 1, lo, window);
    __syncthreads();

    int* accum_rows = accum + (long long)(n0 + 1) * width;
    const int lane = threadIdx.x & 31;
    int base = begin + (threadIdx.x & ~31);
    if (safe) {
        const int full_end = begin + ((end - begin) & ~31);
        hough_vote_safe_run<K>(points, begin, full_end, c, s, window, shift + 1 - lo, rows_sh, HoughSumCuda());
        base = full_end + (threadIdx.x & ~31);  // the partial last chunk: the loop below, warp 0
    }
    for (; base < end; base += blockDim.x) {
        const int i = base + lane;
        if (i < end) {
            const point_t p = points[i];
#pragma unroll
            for (int k = 0; k < K; k++) {
                const int col = ch_bin(p, c[k], s[k], shift) + 1;
                if (k < nk && col >= 0 && col <= hi_col) {
                    if (col >= lo && col < lo + window)
                        atomicAdd(&rows_sh[k * window + col - lo], 1);
                    else
                        atomicAdd(&accum_rows[k * width + col], 1);
                }
            }
        }
    }
    __syncthreads();
    for (int k = 0; k < nk; k++) {
        int* accum_row = accum_rows + (long long)k * width + lo;
        for (int j = threadIdx.x; j < window; j += blockDim.x) {
            const int v = rows_sh[k * window + j];
            if (v)
                atomicAdd(&accum_row[j], v);
        }
    }
}

#define CH_VOTE_KERNEL(K)                                                                          \
    extern "C" __global__ void __launch_bounds__(512) ch_vote_shared_##K(                           \
        const point_t* __restrict__ points, const int* __restrict__ counters, float theta,          \
        float irho, int numangle, int numrho, int hi_col, int window, int min_points, int rows,     \
        int cols, int* __restrict__ accum)                                                          \
    {                                                                                               \
        ch_vote_block<K>(points, counters, theta, irho, numangle, numrho, hi_col, window, min_points, \
                         rows, cols, accum);                                                        \
    }
CH_VOTE_KERNEL(1)
CH_VOTE_KERNEL(2)
CH_VOTE_KERNEL(3)
CH_VOTE_KERNEL(4)

extern "C" __global__ void ch_vote_global(
    const point_t* __restrict__ points, const int* __restrict__ counters, float theta, float irho,
    int numrho, int hi_col, int* __restrict__ accum)
{
    const int width = numrho + 2;
    await_previous_kernel();
    const int n = blockIdx.x;
    int begin, end;
    ch_chunk(counters[0], &begin, &end);
    float c, s;
    ch_trig(n, theta, irho, &c, &s);
    const int shift = (numrho - 1) / 2;
    int* accum_row = accum + (long long)(n + 1) * width;
    for (int base = begin; base < end; base += blockDim.x) {
        const int i = base + threadIdx.x;
        const bool active = i < end;
        const int col = active ? ch_bin(points[i], c, s, shift) + 1 : 0;
        const int total = hough_warp_runs(col, active, 1, false);
        if (total && col >= 0 && col <= hi_col)
            atomicAdd(&accum_row[col], total);
    }
}

// The votes of a hough_key.
__device__ __forceinline__ int ch_key_votes(unsigned long long key)
{
    return (int)(~(unsigned int)(key >> 32) ^ 0x80000000u);
}

// A key with its halves swapped: ascending order is then raster order (flat index; flat indices
// are distinct, so the votes half never decides).
__device__ __forceinline__ unsigned long long ch_swap(unsigned long long key)
{
    return (key << 32) | (key >> 32);
}

// Writes line i: (rho, theta) into row 0 of the result, votes into the first half of row 1,
// zeros into the second half of row 1 (count >= 0); the same into the pinned host mirror when given.
__device__ __forceinline__ void ch_write_line(
    unsigned long long key, int i, int count, int numrho, float rho, float theta,
    float* __restrict__ out, long long out_step_floats, float* __restrict__ host_lines,
    int* __restrict__ host_votes)
{
    const unsigned int flat = (unsigned int)(key & 0xffffffffu);
    const int votes = ch_key_votes(key);
    const unsigned int width = (unsigned int)(numrho + 2);
    const int n = (int)(flat / width) - 1;
    const int r = (int)(flat % width) - 1;
    const float radius = f32_mul(f32_sub((float)r, f32_mul((float)(numrho - 1), 0.5f)), rho);
    const float angle = f32_mul((float)n, theta);
    out[2 * (long long)i] = radius;
    out[2 * (long long)i + 1] = angle;
    int* out_votes = reinterpret_cast<int*>(out + out_step_floats);
    out_votes[i] = votes;
    if (count >= 0)  // (the direct write leaves the zeros to the last block, which knows the count)
        out_votes[count + i] = 0;
    if (host_lines) {
        host_lines[2 * i] = radius;
        host_lines[2 * i + 1] = angle;
        host_votes[i] = votes;
    }
}

// ---- The direct write (no doSort: raster order; cvgpu/cuda/hough.py passes `direct`).
// Each block scans a contiguous range of the accumulator (hough_find_maxima<.., Chunked>), so the
// lines' raster order is the blocks' order, then each block's own order. A block keeps its keys in
// shared memory, learns how many lines the blocks before it found by a chained scan over `chain`
// (one word a block: a decoupled look-back, which needs only that lower blocks were scheduled
// first, never that all blocks are resident at once), ranks its few keys among themselves and
// writes its lines at their final places, in parallel with the other blocks. Before, the last block
// ranked and wrote every line alone: ~1,900 lines took it ~20 us (compat_matrix/HISTORY.md, "Up to
// 2,000 lines"). The last block then only writes the votes row's zeros and publishes the count.
// The write is speculative: a block does not know the total. When the lines are more than
// maxLines, or a block found more keys than its shared slots (`direct`), the last block orders and
// writes them as without `direct` (every place a block wrote is then written again).
// chain[b]: kernels/chain_scan.cuh; chain[gridDim.x]: nonzero when a block's keys did not fit.
// All reset by the last block.

// Every block: scan its range, write its lines where they go, take the ticket. True in the last
// block only, with *found every block's maxima (as hough_maxima_last_block).
__device__ __forceinline__ bool ch_maxima_direct(
    const int* __restrict__ accum, int numangle, int numrho, int threshold, unsigned long long* __restrict__ keys,
    unsigned long long* __restrict__ tally, const int* __restrict__ bounds, unsigned long long* own, int own_cap,
    unsigned long long* __restrict__ chain, int limit, float rho, float theta, float* __restrict__ out,
    long long out_step_floats, float* __restrict__ host_lines, int* __restrict__ host_votes, int* found)
{
    __shared__ int s_count, s_prefix;
    if (threadIdx.x == 0)
        s_count = 0;
    __syncthreads();
    hough_find_maxima<true, true>(accum, numangle, numrho, threshold, keys, tally, bounds, own, &s_count, own_cap);
    __syncthreads();
    const int n = s_count;
    if (threadIdx.x < 32) {
        const int prefix = chain_scan_prefix(chain, n);
        if (threadIdx.x == 0) {
            s_prefix = prefix;
            if (n > own_cap)
                atomicOr(&chain[gridDim.x], 1ull);
        }
    }
    __syncthreads();
    const int prefix = s_prefix;
    bool wrote = false;
    if (n <= own_cap && prefix < limit) {
        for (int i = threadIdx.x; i < n; i += blockDim.x) {
            const unsigned long long key = own[i];
            const unsigned int flat = (unsigned int)key;  // distinct: one accumulator cell each
            int rank = 0;
            for (int j = 0; j < n; j++)
                rank += (unsigned int)own[j] < flat;
            if (prefix + rank < limit) {
                ch_write_line(key, prefix + rank, -1, numrho, rho, theta, out, out_step_floats, host_lines,
                              host_votes);
                wrote = true;
            }
        }
    }
    // The lines reach the host before the ticket's release: the last block publishes the count
    // after acquiring it (as the last block's own threads fence before its barrier).
    if (wrote)
        __threadfence_system();
    __syncthreads();
    return hough_last_block(tally, found);
}

// Keys a thread ranks in ch_maxima's raster-order tail: SMEM_CAP (cvgpu/cuda/hough.py) over 1024.
#define CH_RANK_ITEMS 8

// grid: up to TUNING.detector_maxima_blocks_per_sm 1024-thread blocks per SM; dynamic shared memory:
// smem_cap * 8 bytes (smem_cap a power of two, at most CH_RANK_ITEMS * 1024). Every block appends
// its local maxima's keys to `keys` in no particular order (hough_find_maxima, shared with
// HoughLines); the last block to finish orders them and writes the result:
//   host[0] = count of lines written (>= 0), or -(K + 1) when the K local maxima exceed smem_cap
//   (the host then orders keys[0, K) itself; nothing else is written).
// The order is cvgpu's documented one (see the header): doSort, votes descending then raster;
// otherwise raster; beyond max_lines the strongest first, then ordered as above. Up to blockDim.x
// keys are ordered by rank (keys are distinct: one flat index each; hough_rank); larger sets in
// raster order with none dropped by bucket rank, CH_RANK_ITEMS keys a thread; the rest (doSort,
// or more keys than max_lines) by bitonic networks.
__device__ __forceinline__ void ch_maxima_body(
    const int* __restrict__ accum, int numangle, int numrho, int threshold, unsigned long long* __restrict__ keys,
    int* __restrict__ counters, int max_lines, int do_sort, int smem_cap, float rho, float theta,
    float* __restrict__ out, long long out_step_floats, int out_cap, int* __restrict__ host,
    const long long* __restrict__ call, const int* __restrict__ bounds, unsigned long long* __restrict__ chain,
    int direct)
{
    extern __shared__ unsigned long long sorted[];
    __shared__ HoughRankScratch rank_scratch;
    await_previous_kernel();
    if (call != nullptr)  // graph mode, see CH_WORDS
        out = reinterpret_cast<float*>(call[CH_WORD_OUT_PTR]);
    unsigned long long* tally = reinterpret_cast<unsigned long long*>(counters + 2);
    float* host_lines = reinterpret_cast<float*>(host + 1);
    int* host_votes = host + 1 + 2 * out_cap;
    int K;
    // direct: 0, or the keys a block keeps in shared memory (TUNING.detector_direct_own_cap); the
    // host passes it only without doSort.
    direct = do_sort ? 0 : direct;
    if (direct) {
        if (!ch_maxima_direct(accum, numangle, numrho, threshold, keys, tally, bounds, sorted,
                              min(direct, smem_cap), chain, max_lines <= 0 ? 0 : min(max_lines, out_cap), rho,
                              theta, out, out_step_floats, host_lines, host_votes, &K))
            return;
    } else if (!hough_maxima_last_block<true>(accum, numangle, numrho, threshold, keys, tally, &K, bounds)) {
        return;
    }

    // ---- the last block: order, write, publish.
    const int count = max_lines <= 0 ? 0 : min(K, max_lines);
    // The blocks wrote every line already (direct, none dropped, all of them fitted).
    const bool written =
        direct && count == K && K <= smem_cap && K <= out_cap && relaxed_load_u64(&chain[gridDim.x]) == 0ull;
    if (direct) {
        __syncthreads();  // (every thread has read chain[gridDim.x])
        for (int i = threadIdx.x; i <= (int)gridDim.x; i += blockDim.x)
            chain[i] = 0ull;
    }
    if (K > smem_cap) {
        if (threadIdx.x == 0) {
            counters[0] = 0;
            *tally = 0ull;
            __threadfence_system();
            host[0] = -(K + 1);
        }
        return;
    }
    bool wrote = false;
    if (written) {
        int* out_votes = reinterpret_cast<int*>(out + out_step_floats);
        for (int i = threadIdx.x; i < count; i += blockDim.x)
            out_votes[count + i] = 0;
    } else if (K <= (int)blockDim.x) {
        const int i = threadIdx.x;
        const unsigned long long key = i < K ? __ldcg(&keys[i]) : 0ull;
        // rank: the key's place among all K (votes order), or among the chosen (raster order).
        int rank = 0;
        bool chosen = i < K;
        if (do_sort || K > count) {  // (block-uniform branches: hough_rank has barriers)
            rank = hough_rank(key, chosen, K, &rank_scratch, sorted);
            chosen = chosen && rank < count;
        }
        if (!do_sort)
            rank = hough_rank((unsigned int)key, chosen, K, &rank_scratch, sorted);
        if (chosen) {
            ch_write_line(key, rank, count, numrho, rho, theta, out, out_step_floats, host_lines, host_votes);
            wrote = true;
        }
    } else if (!do_sort && K <= count && K <= CH_RANK_ITEMS * (int)blockDim.x) {
        // Every key kept, in raster order: each key's place by bucket rank of its flat index (the
        // keys in registers, `sorted` as the ranking's slots), where a bitonic network over
        // thousands of keys took most of the tail (compat_matrix/HISTORY.md: 19 us for 1,923).
        unsigned long long kv[CH_RANK_ITEMS], flat[CH_RANK_ITEMS];
        bool kin[CH_RANK_ITEMS];
        int rank[CH_RANK_ITEMS];
#pragma unroll
        for (int j = 0; j < CH_RANK_ITEMS; j++) {
            const int i = threadIdx.x + j * blockDim.x;
            kin[j] = i < K;
            kv[j] = kin[j] ? __ldcg(&keys[i]) : 0ull;
            flat[j] = kv[j] & 0xffffffffull;
        }
        hough_bucket_rank_items<CH_RANK_ITEMS>(flat, kin, &rank_scratch, sorted, rank);
        hough_place_ranked<CH_RANK_ITEMS>(sorted, kv, kin, rank);  // (raster order: the flat indices' ranks)
        for (int i = threadIdx.x; i < count; i += blockDim.x) {
            ch_write_line(sorted[i], i, count, numrho, rho, theta, out, out_step_floats, host_lines, host_votes);
            wrote = true;
        }
    } else {
        const int padded = hough_load_padded(sorted, keys, K);
        int kept = K;
        if (do_sort || K > count) {
            hough_bitonic(sorted, padded);
            kept = count;
        }
        if (!do_sort && kept > 0) {
            // The kept keys in raster order: sort them by flat index.
            int padded2 = 1;
            while (padded2 < kept)
                padded2 <<= 1;
            for (int i = threadIdx.x; i < padded2; i += blockDim.x)
                sorted[i] = i < kept ? ch_swap(sorted[i]) : ~0ull;
            __syncthreads();
            hough_bitonic(sorted, padded2);
            for (int i = threadIdx.x; i < kept; i += blockDim.x)
                sorted[i] = ch_swap(sorted[i]);
            __syncthreads();
        }
        for (int i = threadIdx.x; i < count; i += blockDim.x) {
            ch_write_line(sorted[i], i, count, numrho, rho, theta, out, out_step_floats, host_lines, host_votes);
            wrote = true;
        }
    }
    if (threadIdx.x == 0) {
        counters[0] = 0;
        *tally = 0ull;
    }
    // The host polls host[0] (cvgpu._graphs.await_published): the lines and the reset counters
    // reach it first, each thread that stored any fencing them once (as hough_maxima_emit).
    if (wrote || threadIdx.x == 0)
        __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
        host[0] = count;
}

// Each block zeroes its part of the next detect's accumulator windows (see the header) after its
// part of this detect's work (the last block after publishing the count), off the path to the
// count: before the wait for the votes, the zeroing's dependent loads of `bounds` would sit on it.
extern "C" __global__ void __launch_bounds__(1024) ch_maxima(
    const int* __restrict__ accum, int numangle, int numrho, int threshold, unsigned long long* __restrict__ keys,
    int* __restrict__ counters, int max_lines, int do_sort, int smem_cap, float rho, float theta,
    float* __restrict__ out, long long out_step_floats, int out_cap, int* __restrict__ host,
    const long long* __restrict__ call, const int* __restrict__ bounds, int* __restrict__ next_accum,
    unsigned long long* __restrict__ chain, int direct)
{
    ch_maxima_body(accum, numangle, numrho, threshold, keys, counters, max_lines, do_sort, smem_cap, rho, theta, out,
                   out_step_floats, out_cap, host, call, bounds, chain, direct);
    hough_zero_windows(next_accum, bounds, numangle, numrho + 2);
}

extern "C" __global__ void ch_emit(
    const unsigned long long* __restrict__ sorted, int count, int numrho, float rho, float theta,
    float* __restrict__ out, long long out_step_floats)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        ch_write_line(sorted[i], i, count, numrho, rho, theta, out, out_step_floats, nullptr, nullptr);
}
