// cv2.HoughLines / HoughLinesWithAccumulator, the standard transform, bit for bit with cv2's CPU code.
//
// Algorithm (cv2's HoughLinesStandard): every nonzero pixel (x, y) votes, for each angle n of the
// trig table, into accumulator bin r = cvRound(x * tabCos[n] + y * tabSin[n]) + (numrho - 1) / 2
// (weighted by the pixel with use_edgeval); a line is a cell above the threshold that beats its
// left and upper neighbours and is not beaten by its right and lower ones; lines are ordered by
// votes descending, then by accumulator index. Here one stream, no host round trip until the host
// needs the line count:
//   hough_row_bounds      once per plan: the columns each accumulator row's votes can reach
//   hough_collect_points  compact nonzero pixels into a point list
//                         (hough_collect_bits: the same from a host image sent up as bits)
//   hough_vote_shared_K   one block per (group of K angles, slice of points), votes in shared rows
//   hough_vote_global     the same votes with global atomics, for rows too long for shared memory
//   hough_maxima_emit     cv2's 4-neighbour local-maximum rule (_windowed: over the reachable
//                         columns only), appends sort keys; the last block orders them in shared
//                         memory and writes the lines (device + pinned host), then publishes the
//                         count in pinned memory, which the host polls
//   hough_zero_after      zeroes the cells the votes could reach, after the count is published:
//                         the accumulator is all zeros between calls, and its zeroing is off the
//                         path to the count (before, the collection zeroed the whole accumulator)
//   hough_emit            many blocks: writes lines from keys sorted elsewhere (large results)
// The voting machinery is shared with the detector (kernels/hough/voting.cuh); cvgpu/hough/lines.py
// builds the launch plan.
//
// Arithmetic is written as explicit round-to-nearest float32 instructions (f32_add/f32_mul,
// kernels/ieee_f32.cuh): NVRTC contracts a*b+c into a fused multiply-add by default, while cv2's
// CPU build evaluates j*cos + i*sin as two rounded products and a rounded sum (SSE), subnormals
// included.
//
// counters[0]: number of points; counters[2..3]: hough_maxima_emit's 64-bit tally (local maxima,
// finished blocks). Its last block sets them back to zero, so a workspace is ready for the next
// call without a memset.

#include "hough/voting.cuh"

// Graph mode (kernels/graphs.cuh): the per-call values come from `call`, the image's words
// (HOUGH_WORD_*, kernels/hough/voting.cuh), then the threshold and the output pointer (0: none).
// cvgpu/hough/lines.py: WORDS declares the same names in the same order. A direct launch passes
// call = NULL and its own arguments.
#define LINES_WORD_THRESHOLD 3
#define LINES_WORD_OUT_PTR 4
#define LINES_WORDS 5

extern "C" __global__ void __launch_bounds__(256) hough_collect_points(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights,
    int* __restrict__ counters,
    const long long* __restrict__ call)
{
    hough_collect_call(img, cols, step, rows, align, points, weights, counters, call, nullptr,
                       HOUGH_IMAGE_WORDS, LINES_WORDS);
}

// The first kernel of a lean graph (fresh_word_load): hough_collect_points that also brings the
// threshold and output pointer from pinned memory. A kernel of its own, so that the full graph's
// collection carries no copy code (it made that collection slower on large images).
extern "C" __global__ void __launch_bounds__(256) hough_collect_points_lean(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights,
    int* __restrict__ counters,
    const long long* __restrict__ call, const long long* __restrict__ fresh)
{
    hough_collect_call(img, cols, step, rows, align, points, weights, counters, call, fresh,
                       HOUGH_IMAGE_WORDS, LINES_WORDS);
}

// The two collections above for a host image sent up as bits (hostcall.c's cvg_upload and
// cvg_upload_replay with bits; hough_collect<true>): an eighth of the bytes to copy into pinned
// memory, to send and to read. cv2 votes with every nonzero pixel whatever its value, so the bit
// image gives the same points; not with use_edgeval (the weights are the pixel values).
extern "C" __global__ void __launch_bounds__(256) hough_collect_bits(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights,
    int* __restrict__ counters,
    const long long* __restrict__ call)
{
    hough_collect_call<true>(img, cols, step, rows, align, points, weights, counters, call, nullptr,
                             HOUGH_IMAGE_WORDS, LINES_WORDS);
}

extern "C" __global__ void __launch_bounds__(256) hough_collect_bits_lean(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights,
    int* __restrict__ counters,
    const long long* __restrict__ call, const long long* __restrict__ fresh)
{
    hough_collect_call<true>(img, cols, step, rows, align, points, weights, counters, call, fresh,
                             HOUGH_IMAGE_WORDS, LINES_WORDS);
}

// cv2: r = cvRound(j * tabCos[n] + i * tabSin[n]) in float32, round half to even: two rounded
// products and a rounded sum (no fused multiply-add).
struct HoughSumCv2 {
    __device__ __forceinline__ float operator()(float x, float y, float c, float s) const
    {
        return f32_add(f32_mul(x, c), f32_mul(y, s));
    }
};

__device__ __forceinline__ int hough_bin_xy(float x, float y, float c, float s)
{
    return __float2int_rn(HoughSumCv2()(x, y, c, s));
}

__device__ __forceinline__ int hough_bin(point_t p, float c, float s)
{
    return hough_bin_xy((float)(long long)(p & POINT_MASK), (float)(long long)(p >> POINT_SHIFT), c, s);
}

// Per accumulator row n: the columns [lo, hi] its votes can reach, at bounds[1 + 2n] and
// bounds[2 + 2n]; bounds[0] (zeroed by the host) becomes the widest row's width. Run once per plan.
// The corners bound the votes (hough_corner_columns, kernels/hough/voting.cuh).
// bounds[1 + 2 * numangle] (zeroed by the host) becomes 1 when some row's votes may leave its
// interior columns 1 .. numrho (cv2 then writes them at a neighbour row's flat index, see
// hough_add_flat: only where rho is large against the image) or the corners give no bound:
// hough_maxima_emit_windowed then scans, and hough_zero_after zeroes, the whole accumulator.
extern "C" __global__ void hough_row_bounds(const float* __restrict__ tab_cos, const float* __restrict__ tab_sin,
                                            int numangle, int numrho, long long rows, long long cols,
                                            int* __restrict__ bounds)
{
    const int n = blockIdx.x * blockDim.x + threadIdx.x;
    if (n >= numangle)
        return;
    long long lo = 0, hi = 0;
    bool inside = hough_corner_columns<HoughSumCv2>(tab_cos[n], tab_sin[n], rows, cols, numrho, &lo, &hi);
    inside = inside && lo >= 1 && hi <= numrho;
    bounds[1 + 2 * n] = inside ? (int)lo : 1;
    bounds[2 + 2 * n] = inside ? (int)hi : numrho;
    atomicMax(&bounds[0], inside ? (int)(hi - lo + 1) : numrho);
    if (!inside)
        atomicOr(&bounds[1 + 2 * numangle], 1);
}

// Whether the accumulator is scanned and zeroed by rows' windows (hough_row_bounds): no row's votes
// leave them. (The scan by windows also needs votes that are never negative, or a 0 outside them
// could beat a negative neighbour: the host launches the plain scan where use_edgeval's sums may
// pass INT_MAX.)
__device__ __forceinline__ bool hough_windowed(const int* __restrict__ bounds, int numangle)
{
    return bounds != nullptr && bounds[1 + 2 * numangle] == 0;
}

// Accumulator layout as cv2: (numangle + 2) x (numrho + 2) int32, interior cell of (n, r) at
// (n + 1) * (numrho + 2) + r + 1. A bin outside the row is written at the flat index cv2 would
// use (it lands in a neighbour row or the border), dropped only outside the whole buffer.
__device__ __forceinline__ void hough_add_flat(int* accum, long long accum_size, long long flat, int v)
{
    if (v != 0 && flat >= 0 && flat < accum_size)
        atomicAdd(&accum[flat], v);
}

// Adds v to the block's shared window of row k at column col, or, for a bin outside the window,
// to the flat accumulator index cv2 would write (see hough_add_flat).
__device__ __forceinline__ void hough_add_row(int* rows_sh, int window, int lo, int width, int k, int col, int v,
                                              int* accum, long long accum_size, long long row_base)
{
    if (col >= lo && col < lo + window)
        atomicAdd(&rows_sh[k * window + col - lo], v);
    else
        hough_add_flat(accum, accum_size, row_base + (long long)k * width + col, v);
}

// Voting, grid (ceil(numangle / K), splits): block (a, s) votes the points of slice s for angles
// [a * K, a * K + K) into K shared-memory rows, then adds its nonzero cells to the accumulator.
// Why it is shaped so (each step's timings: compat_matrix/HISTORY.md, "Moved from the Hough code"):
//  - one point load serves K angles (one angle per block is bound by load latency);
//  - HOUGH_UNROLL point loads in flight per thread, all issued before any vote;
//  - one wave of blocks (cvgpu/hough/_voting.py: vote_config): a short second wave costs as much
//    as the first;
//  - straight-line votes: round with one add (f32_round_small_biased), a 32-bit shared address
//    with row, offset and bias in one constant per angle, no per-vote branch;
//  - each warp votes a contiguous run of points (hough_warp_range), and equal bins of neighbouring
//    lanes are not merged before the atomic: a shared red.add costs the same whether the 32 lanes
//    hit one word or 32, so merging only adds instructions;
//  - blocks whose bins provably stay inside their rows (bound of |x cos| + |y sin| over the image)
//    vote with no range test, and the unweighted full-warp iterations carry no activity test;
//  - shared memory holds only the window of each row that the block's angles can reach
//    (hough_window_lo): less to zero and to flush, and more blocks per SM.
template <int K>
__device__ __forceinline__ void hough_vote_block(
    const point_t* __restrict__ points, const unsigned char* __restrict__ weights,
    const int* __restrict__ counters, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numangle, int numrho, int window, int min_points, int rows, int cols,
    int* __restrict__ accum, long long accum_size)
{
    extern __shared__ int rows_sh[];
    await_previous_kernel();
    int begin, end;
    if (!hough_vote_slice(counters[0], min_points, &begin, &end))
        return;
    const int width = numrho + 2;
    const int n0 = blockIdx.x * K;
    const int nk = min(K, numangle - n0);
    const int offset = (numrho - 1) / 2 + 1;
    float c[K], s[K];
#pragma unroll
    for (int k = 0; k < K; k++) {
        c[k] = k < nk ? tab_cos[n0 + k] : 0.0f;
        s[k] = k < nk ? tab_sin[n0 + k] : 0.0f;
    }
    const int lo = hough_window_lo<K>(c, s, nk, rows, cols, offset, window, width);
    const int cells = nk * window;
    for (int i = threadIdx.x; i < cells; i += blockDim.x)
        rows_sh[i] = 0;
    bool safe = nk == K && weights == nullptr && window <= width;
#pragma unroll
    for (int k = 0; k < K; k++)
        safe = safe && hough_in_window(c[k], s[k], rows, cols, offset, lo, window);
    __syncthreads();

    const long long row_base = (long long)(n0 + 1) * width;
    const bool weighted = weights != nullptr;
    const int lane = threadIdx.x & 31;
    int base = begin + (threadIdx.x & ~31);

    if (safe) {
        const int full_end = begin + ((end - begin) & ~31);  // whole warps of 32 points
        hough_vote_safe_run<K>(points, begin, full_end, c, s, window, offset - lo, rows_sh, HoughSumCv2());
        // The last, partial chunk (if any) goes through the general loop below, in warp 0.
        base = full_end + (threadIdx.x & ~31);
    }
    for (; base < end; base += blockDim.x) {
        const int i = base + lane;
        if (i < end) {
            const point_t p = points[i];
            const int w = weighted ? (int)weights[i] : 1;
            const float x = (float)(long long)(p & POINT_MASK);
            const float y = (float)(long long)(p >> POINT_SHIFT);
#pragma unroll
            for (int k = 0; k < K; k++) {
                if (k < nk && w != 0) {
                    const int col = hough_bin_xy(x, y, c[k], s[k]) + offset;
                    hough_add_row(rows_sh, window, lo, width, k, col, w, accum, accum_size, row_base);
                }
            }
        }
    }
    __syncthreads();
    for (int k = 0; k < nk; k++) {
        int* accum_row = accum + row_base + (long long)k * width + lo;
        for (int j = threadIdx.x; j < window; j += blockDim.x) {
            const int v = rows_sh[k * window + j];
            if (v != 0)
                atomicAdd(&accum_row[j], v);
        }
    }
}

#define HOUGH_VOTE_KERNEL(K)                                                                       \
    extern "C" __global__ void __launch_bounds__(512) hough_vote_shared_##K(                        \
        const point_t* __restrict__ points, const unsigned char* __restrict__ weights,              \
        const int* __restrict__ counters, const float* __restrict__ tab_cos,                        \
        const float* __restrict__ tab_sin, int numangle, int numrho, int window, int min_points,    \
        int rows, int cols, int* __restrict__ accum, long long accum_size)                          \
    {                                                                                               \
        hough_vote_block<K>(points, weights, counters, tab_cos, tab_sin, numangle, numrho, window,  \
                            min_points, rows, cols, accum, accum_size);                            \
    }
HOUGH_VOTE_KERNEL(1)
HOUGH_VOTE_KERNEL(2)
HOUGH_VOTE_KERNEL(4)

extern "C" __global__ void hough_vote_global(
    const point_t* __restrict__ points, const unsigned char* __restrict__ weights,
    const int* __restrict__ counters, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numangle, int numrho, int angles_per_block,
    int* __restrict__ accum, long long accum_size)
{
    await_previous_kernel();
    const int width = numrho + 2;
    const int npoints = counters[0];
    const int offset = (numrho - 1) / 2;
    const bool weighted = weights != nullptr;
    const int n0 = blockIdx.y * angles_per_block;
    const int n1 = min(numangle, n0 + angles_per_block);
    for (int base = blockIdx.x * blockDim.x; base < npoints; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool active = i < npoints;
        point_t p = active ? points[i] : 0;
        int w = (active && weighted) ? weights[i] : 1;
        for (int n = n0; n < n1; n++) {
            int col = active ? hough_bin(p, tab_cos[n], tab_sin[n]) + offset + 1 : 0;
            int total = hough_warp_runs(col, active, w, weighted);
            if (total)
                hough_add_flat(accum, accum_size, (long long)(n + 1) * width + col, total);
        }
    }
}

// An invalid operation (0 * inf when theta is infinite) gives x86's default NaN, sign bit set;
// the GPU's canonical NaN is positive. Bit-exact output needs x86's.
__device__ __forceinline__ float x86_nan(float v)
{
    return v != v ? __int_as_float(0xffc00000) : v;
}

// Output values as the cv2 in use computes them, float32 throughout.
//   rho_mode 0 (OpenCV >= 4.13): (r - (numrho - 1) / 2) * rho, the integer offset used in voting
//   rho_mode 1 (OpenCV <  4.13): (r - (numrho - 1) * 0.5f) * rho, half a bin off for even numrho
//   theta: min_theta + n * theta, not the accumulated angle of the trig table
__device__ __forceinline__ void hough_write_line(
    unsigned long long key, int numrho, float rho, float theta, float min_theta, int rho_mode,
    int with_votes, float* out)
{
    unsigned int flat = (unsigned int)(key & 0xffffffffu);
    int votes = (int)(~(unsigned int)(key >> 32) ^ 0x80000000u);
    int width = numrho + 2;
    int n = (int)(flat / (unsigned int)width) - 1;
    int r = (int)(flat - (unsigned int)(n + 1) * width) - 1;
    float rho_bins = rho_mode == 0 ? (float)(r - (numrho - 1) / 2)
                                   : f32_sub((float)r, f32_mul((float)(numrho - 1), 0.5f));
    out[0] = x86_nan(f32_mul(rho_bins, rho));
    out[1] = x86_nan(f32_add(min_theta, f32_mul((float)n, theta)));
    if (with_votes)
        out[2] = (float)votes;
}

// Line `index` of the output from its key, to the device result and, when given, to the pinned host
// copy.
__device__ __forceinline__ void hough_store_line(
    unsigned long long key, int index, int numrho, float rho, float theta, float min_theta, int rho_mode,
    int with_votes, float* out_dev, float* out_host)
{
    const int per_line = with_votes ? 3 : 2;
    float line[3];
    hough_write_line(key, numrho, rho, theta, min_theta, rho_mode, with_votes, line);
    for (int k = 0; k < per_line; k++) {
        if (out_dev)
            out_dev[index * per_line + k] = line[k];
        if (out_host)
            out_host[index * per_line + k] = line[k];
    }
}

// The last block's ordering of 1024 < count <= LINES_RANK_ITEMS * 1024 keys (blockDim.x == 1024, every
// thread calls it): thread t holds keys t + 1024 j (v[j], in[j]); rank[j] is how many keys are
// smaller. hough_bucket_rank's buckets split the keys' range evenly, but HoughLines' keys are
// votes-major, and at a low threshold hundreds of lines share one vote count: one bucket, whose
// keys would each compare with all of its others. Here the buckets' bounds are a sample of the keys
// themselves (1024 of them, one every count / 1024 in the keys' order, ranked by hough_bucket_rank
// into `slots` [1024, 2048)): a key's bucket is the number of sampled keys at or below it, less one
// (at least 0), found by binary search: monotonic, and about count / 1024 keys a bucket however the
// votes crowd (the sample's own ranking still meets the crowding, over 1024 keys instead of
// count). Before, these counts took a bitonic network of up to 91 barrier stages over 8192 keys
// (compat_matrix/HISTORY.md, "HoughLines' many-line tail"). LINES_RANK_ITEMS keys a thread cover
// SORT_CAPACITY (cvgpu/hough/lines.py), 8192.
#define LINES_RANK_ITEMS 8

__device__ __forceinline__ void lines_sampled_rank(const unsigned long long* __restrict__ keys, int count,
                                                   unsigned long long* v, bool* in, int* rank,
                                                   HoughRankScratch* scratch, unsigned long long* slots)
{
    const int t = threadIdx.x;
#pragma unroll
    for (int j = 0; j < LINES_RANK_ITEMS; j++) {
        const int i = t + j * 1024;
        in[j] = i < count;
        v[j] = in[j] ? __ldcg(&keys[i]) : 0ull;
    }
    // (count > 1024: the sampled positions are distinct, so are their keys.)
    const unsigned long long s = __ldcg(&keys[(long long)t * count / 1024]);
    unsigned long long* bounds = slots + 1024;
    bounds[hough_bucket_rank(s, true, scratch, slots)] = s;
    __syncthreads();  // the bounds are written and every thread's rank loop has read the counts
    int bucket[LINES_RANK_ITEMS];
#pragma unroll
    for (int j = 0; j < LINES_RANK_ITEMS; j++) {
        int at = 0;  // the last bound at or below v[j] (bound 0 when none is)
#pragma unroll
        for (int half = 512; half > 0; half >>= 1)
            at += bounds[at + half] <= v[j] ? half : 0;
        bucket[j] = at;
    }
    scratch->count[t] = 0;
    __syncthreads();  // hough_rank_in_buckets' entry: the counts zeroed, the bounds read
    hough_rank_in_buckets<LINES_RANK_ITEMS>(v, in, bucket, scratch, slots, rank);
}

// Finds the local maxima over the whole grid; the last block to finish then orders the keys in
// shared memory when they fit (capacity keys), writes the lines to out_dev and, when out_host is
// given (pinned, device-visible), to out_host too, and publishes the count at host_count (pinned)
// last, so the host may poll it instead of synchronising. Larger results are left to the host
// path (keys sorted by CuPy). counters[2..3], one 64-bit tally: low 32 bits the maxima reserved so
// far, high 32 bits the finished blocks; a block's ticket therefore also returns every other
// block's maxima, which saves the last block a dependent read. Its tail is serial and sits on
// every call's critical path, so it is kept short: up to blockDim.x keys are ordered by rank (keys
// are distinct: one flat index each, hough_rank) instead of by a bitonic network.
// Windowed: the scan covers the rows' windows (hough_row_bounds) where hough_windowed says so (the
// host launches this form only where its own check of the corners agrees, and the kernel checks
// again: either way exact); otherwise every interior cell. Two kernels, not one with a branch: the
// windowed scan's loads in flight take 56 registers a thread against the plain scan's 32, which
// would halve the plain form's resident blocks.
template <bool Windowed>
__device__ __forceinline__ void hough_maxima_emit_body(
    const int* __restrict__ accum, int numangle, int threshold, unsigned long long* __restrict__ keys,
    int* __restrict__ counters, int capacity,
    int numrho, float rho, float theta, float min_theta, int rho_mode, int with_votes,
    float* __restrict__ out_dev, float* __restrict__ out_host, int* __restrict__ host_count,
    const long long* __restrict__ call, const int* __restrict__ bounds)
{
    extern __shared__ unsigned long long sorted[];
    __shared__ HoughRankScratch rank_scratch;
    await_previous_kernel();
    if (call != nullptr) {  // graph mode, see LINES_WORDS
        threshold = (int)call[LINES_WORD_THRESHOLD];
        out_dev = reinterpret_cast<float*>(call[LINES_WORD_OUT_PTR]);
    }
    unsigned long long* tally = reinterpret_cast<unsigned long long*>(counters + 2);
    int count;
    // (Block-uniform: every thread reads the same flag.)
    if (!(Windowed && hough_windowed(bounds, numangle)
              ? hough_maxima_last_block<true>(accum, numangle, numrho, threshold, keys, tally, &count, bounds)
              : hough_maxima_last_block<false>(accum, numangle, numrho, threshold, keys, tally, &count, nullptr)))
        return;
    bool wrote = false;
    if (count <= capacity) {
        if (count <= (int)blockDim.x) {
            const bool own = (int)threadIdx.x < count;
            const unsigned long long key = own ? __ldcg(&keys[threadIdx.x]) : 0ull;
            const int rank = hough_rank(key, own, count, &rank_scratch, sorted);
            if (own) {
                hough_store_line(key, rank, numrho, rho, theta, min_theta, rho_mode, with_votes, out_dev, out_host);
                wrote = true;
            }
        } else {
            // (Windowed only: this ordering takes the kernel to 61 registers, which the windowed
            // form's one block an SM has room for (56 before), while the plain scan keeps two
            // blocks an SM at 32 and the bitonic network.)
            if (Windowed && count <= LINES_RANK_ITEMS * (int)blockDim.x) {
                unsigned long long v[LINES_RANK_ITEMS];
                bool in[LINES_RANK_ITEMS];
                int rank[LINES_RANK_ITEMS];
                lines_sampled_rank(keys, count, v, in, rank, &rank_scratch, sorted);
                hough_place_ranked<LINES_RANK_ITEMS>(sorted, v, in, rank);
            } else {
                hough_bitonic(sorted, hough_load_padded(sorted, keys, count));
            }
            for (int i = threadIdx.x; i < count; i += blockDim.x) {
                hough_store_line(sorted[i], i, numrho, rho, theta, min_theta, rho_mode, with_votes, out_dev, out_host);
                wrote = true;
            }
        }
    }
    // A polling host reads the lines as soon as it sees the count, and the next call (on any
    // stream) may start then: the lines and the reset counters (the workspace's counters start at
    // zero for the next call, no memset launch) are fenced before the count, by each thread that
    // stored any, once (a second fence before the count only adds time). At system scope when lines
    // went to pinned memory, else at device scope: device results and the counters are read by
    // device work only, and a system fence costs more.
    if (threadIdx.x == 0) {
        counters[0] = 0;
        *tally = 0ull;
    }
    if (wrote || threadIdx.x == 0) {
        if (out_host != nullptr)
            __threadfence_system();
        else
            __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        *host_count = count;
}

extern "C" __global__ void __launch_bounds__(1024) hough_maxima_emit(
    const int* __restrict__ accum, int numangle, int threshold, unsigned long long* __restrict__ keys,
    int* __restrict__ counters, int capacity, int numrho, float rho, float theta, float min_theta, int rho_mode,
    int with_votes, float* __restrict__ out_dev, float* __restrict__ out_host, int* __restrict__ host_count,
    const long long* __restrict__ call)
{
    hough_maxima_emit_body<false>(accum, numangle, threshold, keys, counters, capacity, numrho, rho, theta, min_theta,
                                  rho_mode, with_votes, out_dev, out_host, host_count, call, nullptr);
}

extern "C" __global__ void __launch_bounds__(1024) hough_maxima_emit_windowed(
    const int* __restrict__ accum, int numangle, int threshold, unsigned long long* __restrict__ keys,
    int* __restrict__ counters, int capacity, int numrho, float rho, float theta, float min_theta, int rho_mode,
    int with_votes, float* __restrict__ out_dev, float* __restrict__ out_host, int* __restrict__ host_count,
    const long long* __restrict__ call, const int* __restrict__ bounds)
{
    hough_maxima_emit_body<true>(accum, numangle, threshold, keys, counters, capacity, numrho, rho, theta, min_theta,
                                 rho_mode, with_votes, out_dev, out_host, host_count, call, bounds);
}

// A plan's last kernel: zeroes the cells this call's votes could reach (the rows' windows, or the
// whole accumulator where hough_windowed says no), so the accumulator is all zeros when the next
// call of any plan over it starts, stream-ordered after this kernel. It runs after the count is
// published, while the host goes on; the collection no longer zeroes anything on the path to the
// first vote. A workspace's accumulator is zeroed when it is allocated (cvgpu/hough/lines.py).
extern "C" __global__ void hough_zero_after(int* __restrict__ accum, long long accum_size,
                                            const int* __restrict__ bounds, int numangle, int numrho)
{
    await_previous_kernel();  // every maxima block has read its cells
    if (hough_windowed(bounds, numangle))
        hough_zero_windows(accum, bounds, numangle, numrho + 2);
    else
        hough_zero(accum, accum_size);
}

extern "C" __global__ void hough_emit(
    const unsigned long long* __restrict__ sorted, int count, int numrho, float rho, float theta,
    float min_theta, int rho_mode, int with_votes, float* __restrict__ out)
{
    const int per_line = with_votes ? 3 : 2;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        float line[3];
        hough_write_line(sorted[i], numrho, rho, theta, min_theta, rho_mode, with_votes, line);
        for (int k = 0; k < per_line; k++)
            out[(long long)i * per_line + k] = line[k];
    }
}
