// cv::cuda::HoughLinesDetector semantics (OpenCV's CUDA Hough lines), for cvgpu.cuda.
//
// Pipeline: three launches on one stream, one host synchronisation (the line count, written by the
// last kernel into pinned host memory together with a host copy of the lines):
//   ch_collect   zero the accumulator, compact nonzero pixels into a point list (any order: integer
//                atomic adds commute, so the order never changes a vote count)
//   ch_vote_shared / ch_vote_global
//                votes of one angle per block row (grid.y splits the points), in a shared-memory row
//                (flushed with atomic adds) or straight into global memory for very long rows
//   ch_maxima    the 4-neighbour local-maximum rule; each block compacts the maxima of a contiguous
//                range of cells in raster order into its own segment; the last block to finish
//                gathers the segments (raster order), sorts when needed, and writes the lines
//   ch_gather / ch_emit   host path used only when there are more than `smem_cap` local maxima
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
// (tests/test_cuda_hough.py: libdevice's sinf/cosf reduction and polynomials with exact FMAs):
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

#ifdef CVGPU_WIDE_POINTS
typedef unsigned long long point_t;
#define POINT_SHIFT 32
#define POINT_MASK 0xffffffffull
#else
typedef unsigned int point_t;
#define POINT_SHIFT 16
#define POINT_MASK 0xffffu
#endif

#define FULL_MASK 0xffffffffu

// counters[0]: number of points; counters[1]: ch_maxima's finished-block ticket.
// Both are reset to 0 by the last ch_maxima block, so the buffers are ready for the next detect.

#include "hough_points.cuh"

// Graph mode (a replayed CUDA graph takes no new arguments): the per-call values come from `call`,
// device memory the graph's first node fills from pinned host memory: call[0] image pointer,
// call[1] row step in bytes, call[2] load width (hough_collect's `align`), call[3] output pointer.
// NULL: the arguments as given.
#define CH_FRESH_FIRST 3
#define CH_CALL_WORDS 4
extern "C" __global__ void __launch_bounds__(256) ch_collect(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, int* __restrict__ accum,
    long long accum_size, const long long* __restrict__ call)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, accum, accum_size, call, nullptr,
                       CH_FRESH_FIRST, CH_CALL_WORDS);
}

// The first kernel of a lean graph (fresh_word_load): ch_collect that also brings call[3] (as
// kernels/hough.cu: hough_collect_points_lean).
extern "C" __global__ void __launch_bounds__(256) ch_collect_lean(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, int* __restrict__ accum,
    long long accum_size, const long long* __restrict__ call, const long long* __restrict__ fresh)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, accum, accum_size, call, fresh,
                       CH_FRESH_FIRST, CH_CALL_WORDS);
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

// Equal columns within a warp come in runs of neighbouring lanes (points are compacted in raster
// order per warp, and along a row the bin is monotonic in x): one atomic per run instead of one
// per lane avoids same-address serialisation near theta = pi/2. Returns the run length on the
// first lane of each run, 0 elsewhere. All 32 lanes must call it.
__device__ __forceinline__ int ch_run_length(int col, bool active)
{
    const int lane = threadIdx.x & 31;
    const int k = active ? col : (int)0x80000000;
    const int prev = __shfl_up_sync(FULL_MASK, k, 1);
    const bool boundary = lane == 0 || k != prev || !active;
    const unsigned heads = __ballot_sync(FULL_MASK, boundary);
    const unsigned later = heads & ~((2u << lane) - 1u);
    const int next = later ? __ffs(later) - 1 : 32;
    return (active && boundary) ? next - lane : 0;
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
// shape and the measurements of kernels/hough.cu's hough_vote_block).
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
        const int total = ch_run_length(col, active);
        if (total && col >= 0 && col <= hi_col)
            atomicAdd(&accum_row[col], total);
    }
}

// Sort key: ascending 64-bit order = votes descending, then flat accumulator index ascending.
__device__ __forceinline__ unsigned long long ch_key(int votes, unsigned int flat)
{
    const unsigned int ordered = ~((unsigned int)votes ^ 0x80000000u);
    return ((unsigned long long)ordered << 32) | flat;
}

__device__ __forceinline__ int ch_key_votes(unsigned long long key)
{
    return (int)(~(unsigned int)(key >> 32) ^ 0x80000000u);
}

// Writes line i: (rho, theta) into row 0 of the result, votes into the first half of row 1,
// zeros into the second half of row 1; the same into the pinned host mirror when given.
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
    out_votes[count + i] = 0;
    if (host_lines) {
        host_lines[2 * i] = radius;
        host_lines[2 * i + 1] = angle;
        host_votes[i] = votes;
    }
}

// In-place ascending bitonic sort of keys[0, padded) in shared memory (padded: a power of two).
__device__ void ch_bitonic(unsigned long long* keys, int padded)
{
    for (int size = 2; size <= padded; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < padded; i += blockDim.x) {
                const int j = i ^ stride;
                if (j > i) {
                    const bool ascending = (i & size) == 0;
                    const unsigned long long a = keys[i], b = keys[j];
                    if ((a > b) == ascending) {
                        keys[i] = b;
                        keys[j] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
}

// Block-wide exclusive scan of one int per thread (blockDim.x a multiple of 32, <= 1024).
// Returns the exclusive prefix; *total receives the sum. Uses scratch[32].
__device__ __forceinline__ int ch_block_scan(int v, int* scratch, int* total)
{
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    int incl = v;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d)
            incl += o;
    }
    __syncthreads();  // scratch may still be read by a previous call
    if (lane == 31)
        scratch[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        int w = lane < nwarps ? scratch[lane] : 0;
        int wincl = w;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int o = __shfl_up_sync(FULL_MASK, wincl, d);
            if (lane >= d)
                wincl += o;
        }
        scratch[lane] = wincl - w;  // exclusive warp offsets
        if (lane == 31)
            scratch[32] = wincl;    // grand total (scratch has 33 entries)
    }
    __syncthreads();
    *total = scratch[32];
    return scratch[warp] + incl - v;
}

#define CH_ITEMS 4

// grid: G blocks (G <= 1024), block: 1024 threads, dynamic shared memory: smem_cap * 8 bytes.
// Block b handles cells [b * range_len, min(cells, (b + 1) * range_len)) of the interior (cell =
// n * numrho + r), writing its maxima's keys in raster order to seg + b * seg_cap and their
// number to block_counts[b]. The last block to finish then produces the result:
//   host[0] = count of lines written (>= 0), or -(K + 1) when the K local maxima exceed smem_cap
//   (the host then gathers and sorts the segments itself; nothing else is written).
extern "C" __global__ void __launch_bounds__(1024) ch_maxima(
    const int* __restrict__ accum, int numangle, int numrho, int threshold,
    long long cells, long long range_len, unsigned long long* __restrict__ seg, long long seg_cap,
    int* __restrict__ block_counts, int* __restrict__ counters,
    int max_lines, int do_sort, int smem_cap, float rho, float theta,
    float* __restrict__ out, long long out_step_floats, int out_cap, int* __restrict__ host,
    const long long* __restrict__ call)
{
    await_previous_kernel();
    if (call != nullptr)  // graph mode, see ch_collect
        out = reinterpret_cast<float*>(call[3]);
    extern __shared__ unsigned long long keys[];
    __shared__ int scratch[33];
    __shared__ int s_offsets[1024];
    __shared__ int s_counts[1024];
    __shared__ int s_is_last;

    const int width = numrho + 2;
    const long long begin = (long long)blockIdx.x * range_len;
    const long long end = min(cells, begin + range_len);
    unsigned long long* my_seg = seg + (long long)blockIdx.x * seg_cap;
    int written = 0;  // uniform across the block
    const bool narrow = end + (long long)blockDim.x * CH_ITEMS < (1ll << 32);
    for (long long chunk = begin; chunk < end; chunk += (long long)blockDim.x * CH_ITEMS) {
        const long long first = chunk + (long long)threadIdx.x * CH_ITEMS;
        unsigned long long found[CH_ITEMS];
        int nfound = 0;
#pragma unroll
        for (int k = 0; k < CH_ITEMS; k++) {
            const long long cell = first + k;
            if (cell < end) {
                const int n = (int)hough_udiv(cell, numrho, narrow);
                const int r = (int)(cell - (long long)n * numrho);
                const long long idx = (long long)(n + 1) * width + r + 1;
                const int v = accum[idx];
                if (v > threshold && v > accum[idx - 1] && v >= accum[idx + 1] &&
                    v > accum[idx - width] && v >= accum[idx + width])
                    found[nfound++] = ch_key(v, (unsigned int)idx);
            }
        }
        int total;
        const int offset = written + ch_block_scan(nfound, scratch, &total);
#pragma unroll
        for (int k = 0; k < CH_ITEMS; k++)
            if (k < nfound && offset + k < seg_cap)
                my_seg[offset + k] = found[k];
        written += total;
    }

    __syncthreads();
    if (threadIdx.x == 0) {
        block_counts[blockIdx.x] = written;
        __threadfence();
        const int ticket = atomicAdd(&counters[1], 1);
        s_is_last = ticket == (int)gridDim.x - 1;
    }
    __syncthreads();
    if (!s_is_last)
        return;
    __threadfence();

    // ---- the last block: gather, order, write.
    const int nblocks = gridDim.x;
    const int c = threadIdx.x < nblocks ? __ldcg(&block_counts[threadIdx.x]) : 0;
    int K;
    const int off = ch_block_scan(c, scratch, &K);
    if (threadIdx.x < nblocks) {
        s_counts[threadIdx.x] = c;
        s_offsets[threadIdx.x] = off;
    }
    const int count = max_lines <= 0 ? 0 : min(K, max_lines);
    if (K > smem_cap) {
        if (threadIdx.x == 0) {
            counters[0] = 0;
            counters[1] = 0;
            __threadfence_system();
            host[0] = -(K + 1);
        }
        return;
    }
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    for (int b = warp; b < nblocks; b += nwarps) {
        const unsigned long long* src = seg + (long long)b * seg_cap;
        const int nb = s_counts[b], ob = s_offsets[b];
        for (int i = lane; i < nb; i += 32)
            keys[ob + i] = __ldcg(&src[i]);
    }
    __syncthreads();

    if (do_sort || K > count) {
        int padded = 1;
        while (padded < K)
            padded <<= 1;
        for (int i = K + threadIdx.x; i < padded; i += blockDim.x)
            keys[i] = ~0ull;
        __syncthreads();
        ch_bitonic(keys, padded);
        if (!do_sort && count > 0) {
            // Keep the strongest `count`, back in raster order: sort them by flat index.
            int padded2 = 1;
            while (padded2 < count)
                padded2 <<= 1;
            for (int i = threadIdx.x; i < padded2; i += blockDim.x) {
                const unsigned long long k = keys[i];
                keys[i] = i < count ? ((k << 32) | (k >> 32)) : ~0ull;
            }
            __syncthreads();
            ch_bitonic(keys, padded2);
            for (int i = threadIdx.x; i < count; i += blockDim.x) {
                const unsigned long long k = keys[i];
                keys[i] = (k << 32) | (k >> 32);
            }
            __syncthreads();
        }
    }
    float* host_lines = reinterpret_cast<float*>(host + 1);
    int* host_votes = host + 1 + 2 * out_cap;
    if (threadIdx.x == 0) {
        counters[0] = 0;
        counters[1] = 0;
    }
    for (int i = threadIdx.x; i < count; i += blockDim.x)
        ch_write_line(keys[i], i, count, numrho, rho, theta, out, out_step_floats, host_lines, host_votes);
    // The host polls host[0] (cvgpu._kernels.await_published): the lines and the reset counters
    // reach it first, each thread that stored any fencing them once (as hough_maxima_emit; a
    // second fence before the count cost ~0.5 us there).
    if ((int)threadIdx.x < count || threadIdx.x == 0)
        __threadfence_system();
    __syncthreads();
    if (threadIdx.x == 0)
        host[0] = count;
}

// Host path (more than smem_cap local maxima): one warp per segment copies it to its offset.
extern "C" __global__ void ch_gather(
    const unsigned long long* __restrict__ seg, long long seg_cap, const int* __restrict__ counts,
    const long long* __restrict__ offsets, int nblocks, unsigned long long* __restrict__ dst)
{
    const int lane = threadIdx.x & 31;
    const int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int nwarps = (gridDim.x * blockDim.x) >> 5;
    for (int b = warp; b < nblocks; b += nwarps) {
        const unsigned long long* src = seg + (long long)b * seg_cap;
        const int nb = counts[b];
        const long long ob = offsets[b];
        for (int i = lane; i < nb; i += 32)
            dst[ob + i] = src[i];
    }
}

extern "C" __global__ void ch_emit(
    const unsigned long long* __restrict__ sorted, int count, int numrho, float rho, float theta,
    float* __restrict__ out, long long out_step_floats)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x)
        ch_write_line(sorted[i], i, count, numrho, rho, theta, out, out_step_floats, nullptr, nullptr);
}
