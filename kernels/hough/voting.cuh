// The voting machinery of the Hough line families, shared by kernels/hough/lines.cu (cv2.HoughLines
// semantics) and kernels/cuda/hough.cu (OpenCV-CUDA's detector); its host-side twin, which sizes
// the grids and windows these functions assume, is cvgpu/hough/_voting.py.
//
// Algorithm, one stream, no host round trip until the line count:
//   1. collection: compact the nonzero pixels of an 8-bit image into a point list, y << POINT_SHIFT
//      | x, with an optional weight per point (hough_collect, hough_collect_call);
//   2. voting: a block takes K consecutive angles and a slice of the points, votes into K shared
//      accumulator rows (only the window of each row its votes can reach) and adds its nonzero
//      cells to the global accumulator (hough_vote_slice, hough_window_lo, hough_vote_safe_run);
//   3. maxima: the 4-neighbour local-maximum rule over the accumulator appends 64-bit sort keys
//      (votes descending, then flat index) in any order; the last block to finish orders them
//      (hough_find_maxima, hough_maxima_last_block, hough_rank).
// The order of the point list never changes a vote count (integer atomic adds commute, with
// use_edgeval's wrap-around too); each warp's points are in raster order, so neighbouring lanes
// of a voting warp hold neighbouring pixels and equal bins come in runs.
//
// Points are packed as (y << 16) | x when both sides fit in 16 bits, or as (y << 32) | x otherwise
// (compiled with -DCVGPU_WIDE_POINTS).

#include "graphs.cuh"

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

// The call words both families' graphs begin with (kernels/graphs.cuh), those that describe the
// image; cvgpu/hough/_voting.py: IMAGE_WORDS declares the same names in the same order. A lean
// graph keeps them and reloads the words after them.
#define HOUGH_WORD_IMAGE_PTR 0
#define HOUGH_WORD_ROW_STEP 1
#define HOUGH_WORD_LOAD_WIDTH 2
#define HOUGH_IMAGE_WORDS 3

// Workspace accumulators come from the CuPy pool (256-byte aligned): int4 stores, then the tail.
__device__ __forceinline__ void hough_zero(int* __restrict__ accum, long long accum_size)
{
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long quads = accum_size >> 2;
    int4* accum4 = reinterpret_cast<int4*>(accum);
    for (long long i = tid; i < quads; i += nthreads)
        accum4[i] = make_int4(0, 0, 0, 0);
    for (long long i = (quads << 2) + tid; i < accum_size; i += nthreads)
        accum[i] = 0;
}

#ifndef HOUGH_POINTS_ITEMS
#define HOUGH_POINTS_ITEMS 1  // chunks per warp and tile (one: see hough_collect)
#endif

// a / b for 0 <= a, 0 < b, in 32 bits when `narrow` (a and b below 2^32: every image that fits in
// memory). A 64-bit division is emulated in some 70 instructions, once per chunk of the collection
// and once per cell of the maxima scans.
__device__ __forceinline__ long long hough_udiv(long long a, long long b, bool narrow)
{
    return narrow ? (long long)((unsigned)a / (unsigned)b) : a / b;
}

// The lowest and highest accumulator column (bin + (numrho - 1) / 2 + 1) a vote of the angle whose
// scaled cos and sin are (c, s) can take over a rows x cols image, for the family's float32 sum
// `Sum` (HoughSumCv2, kernels/hough/lines.cu; HoughSumCuda, kernels/cuda/hough.cu). A bin is
// monotonic in x for a fixed y and in y for a fixed x (the rounded products, their rounded or fused
// sum and the rounding to an integer all are), so over the image it is extreme at the corners:
// computed with the voting's own arithmetic, the corners' bins bound every vote exactly. False, and
// no bound, where a corner's sum is not below 2^30 in magnitude (a saturating conversion, or an
// overflow past the shift).
template <typename Sum>
__device__ __forceinline__ bool hough_corner_columns(float c, float s, long long rows, long long cols, int numrho,
                                                     long long* lo, long long* hi)
{
    const long long column0 = (numrho - 1) / 2 + 1;
    for (int corner = 0; corner < 4; corner++) {
        const float x = (float)((corner & 1) ? cols - 1 : 0);
        const float y = (float)((corner & 2) ? rows - 1 : 0);
        const float v = Sum()(x, y, c, s);
        if (!(fabsf(v) < 1073741824.0f))
            return false;
        const long long col = (long long)__float2int_rn(v) + column0;
        *lo = corner == 0 ? col : min(*lo, col);
        *hi = corner == 0 ? col : max(*hi, col);
    }
    return true;
}

// Zeroes, in every accumulator row n, the columns [bounds[1 + 2n], bounds[2 + 2n]] its votes can
// reach (ch_row_bounds, kernels/cuda/hough.cu; hough_row_bounds, kernels/hough/lines.cu), bounds[0]
// the widest row's width: a plan whose accumulator holds zeros everywhere else (zeroed when it is
// allocated, and no vote lands outside the windows) is all zeros again after it. At 1024^2 with
// theta = pi/180 that is a third of the (numangle + 2) x (numrho + 2) cells: OpenCV's numrho = 2 (rows
// + cols) + 1 is about 2.8 times the longest reachable row.
__device__ __forceinline__ void hough_zero_windows(int* __restrict__ accum, const int* __restrict__ bounds,
                                                   int numangle, int width)
{
    const int span = bounds[0];
    const long long cells = (long long)numangle * span;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const bool narrow = cells + nthreads < (1ll << 32);
    for (long long cell = (long long)blockIdx.x * blockDim.x + threadIdx.x; cell < cells; cell += nthreads) {
        const int n = (int)hough_udiv(cell, span, narrow);
        const int col = bounds[1 + 2 * n] + (int)(cell - (long long)n * span);
        if (col <= bounds[2 + 2 * n])
            accum[(long long)(n + 1) * width + col] = 0;
    }
}

// 4-bit mask of the nonzero bytes of a little-endian word (bit j: byte j, the pixel x + j). A byte
// gets its bit 7 set when nonzero (the low 7 bits plus 0x7f carry into bit 7, never past it); the
// multiply moves bits 7, 15, 23, 31 to 21..24 with no two partial products on one position.
__device__ __forceinline__ unsigned hough_nonzero_bytes(unsigned w)
{
    const unsigned t = (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
    return (((t >> 7) * 0x204081u) >> 21) & 0xfu;
}

// Each tile of a block (256 threads) covers 8 warps x HOUGH_POINTS_ITEMS chunks of 512 pixels of
// one row each (a row is cdiv(cols, 512) chunks); a lane holds 16 neighbouring pixels of a chunk,
// read with one 16-byte load when `align` is 16 (pointer, step and cols multiples of 16), four
// 4-byte loads when it is 4 (the same with 4), else byte loads. All of a thread's loads are issued
// before any is used: a loop of load-then-ballot waits a memory latency per iteration. One chunk
// per warp and tile (HOUGH_POINTS_ITEMS): more helps only the largest images and costs the small
// ones. Sixteen predicated stores per lane, not a loop over the set bits. One atomic per block
// reserves the block's slots: one counter hit by every warp serialises in L2. (The variants and
// their timings: compat_matrix/HISTORY.md, "Moved from the Hough code".)
// BITS: `img` is the bit image of hostcall.c's cvg_pack_bits instead (row r at img + r * step,
// bit j of its little-endian 16-bit word k set when pixel 16 k + j is nonzero, zero past the row):
// a lane's 16 pixels are one 2-byte load that is already the hit mask; `align` and `weights` are
// not used (a bit carries no weight).
// rowbits (the segment detector's, kernels/cuda/segments.cu; null elsewhere): the image's nonzero
// pixels as bits too, rowbits[y * rw + x / 32] bit x % 32, from the masks of two neighbouring lanes.
template <bool BITS = false>
__device__ __forceinline__ void hough_collect(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows_ll, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights, int* __restrict__ counter,
    unsigned* __restrict__ rowbits = nullptr, int rw = 0)
{
    __shared__ int warp_base[8];
    __shared__ int block_base;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    const long long chunks_per_row = (cols + 511) >> 9;
    const long long nchunks = rows_ll * chunks_per_row;
    const long long per_tile = (long long)nwarps * HOUGH_POINTS_ITEMS;
    const bool narrow = nchunks + per_tile * gridDim.x < (1ll << 32);
    // Tiles of per_tile chunks, grid-strided, so that any grid covers the image.
    for (long long first_chunk = (long long)blockIdx.x * per_tile; first_chunk < nchunks;
         first_chunk += (long long)gridDim.x * per_tile) {
        unsigned int px[HOUGH_POINTS_ITEMS][4];  // 16 pixels, little-endian: byte j of word q is x + 4 q + j
        int y[HOUGH_POINTS_ITEMS], x[HOUGH_POINTS_ITEMS];
#pragma unroll
        for (int it = 0; it < HOUGH_POINTS_ITEMS; it++) {
            const long long chunk = first_chunk + (long long)it * nwarps + warp;
#pragma unroll
            for (int q = 0; q < 4; q++)
                px[it][q] = 0;
            y[it] = 0;
            x[it] = 0;
            if (chunk < nchunks) {
                const long long row = hough_udiv(chunk, chunks_per_row, narrow);
                y[it] = (int)row;
                x[it] = (int)((chunk - row * chunks_per_row) << 9) + 16 * lane;
                if (BITS) {
                    if (x[it] < cols)
                        px[it][0] = *reinterpret_cast<const unsigned short*>(img + row * step + (x[it] >> 3));
                    continue;
                }
                const unsigned char* src = img + row * step + x[it];
                if (x[it] < cols) {
                    if (align == 16) {
                        const uint4 v = *reinterpret_cast<const uint4*>(src);
                        px[it][0] = v.x;
                        px[it][1] = v.y;
                        px[it][2] = v.z;
                        px[it][3] = v.w;
                    } else if (align == 4) {
#pragma unroll
                        for (int q = 0; q < 4; q++)
                            if (x[it] + 4 * q < cols)
                                px[it][q] = reinterpret_cast<const unsigned int*>(src)[q];
                    } else {
#pragma unroll
                        for (int j = 0; j < 16; j++)
                            if (x[it] + j < cols)
                                px[it][j >> 2] |= (unsigned int)src[j] << (8 * (j & 3));
                    }
                }
            }
        }
        // Per item: the lane's 16-bit hit mask and the hits of the lanes below it (a warp scan), so
        // that a warp's points come in raster order.
        unsigned int mask[HOUGH_POINTS_ITEMS];
        int before[HOUGH_POINTS_ITEMS];
        int count = 0;
#pragma unroll
        for (int it = 0; it < HOUGH_POINTS_ITEMS; it++) {
            unsigned int m = 0;
            if (BITS) {
                m = px[it][0];
            } else {
#pragma unroll
                for (int q = 0; q < 4; q++)
                    m |= hough_nonzero_bytes(px[it][q]) << (4 * q);
            }
            mask[it] = m;
            if (rowbits != nullptr) {
                // Lane 2k: pixels x .. x + 15, lane 2k + 1 the next 16 (x a multiple of 32).
                const unsigned upper = __shfl_down_sync(0xffffffffu, m, 1);
                const long long chunk = first_chunk + (long long)it * nwarps + warp;
                if ((lane & 1) == 0 && chunk < nchunks && x[it] < cols)
                    rowbits[(long long)y[it] * rw + (x[it] >> 5)] = m | (upper << 16);
            }
            const int own = __popc(m);
            int incl = own;
#pragma unroll
            for (int d = 1; d < 32; d <<= 1) {
                const int o = __shfl_up_sync(0xffffffffu, incl, d);
                if (lane >= d)
                    incl += o;
            }
            before[it] = count + incl - own;
            count += __shfl_sync(0xffffffffu, incl, 31);
        }
        if (lane == 0)
            warp_base[warp] = count;
        __syncthreads();
        if (threadIdx.x == 0) {
            int total = 0;
            for (int w = 0; w < nwarps; w++) {
                const int c = warp_base[w];
                warp_base[w] = total;
                total += c;
            }
            block_base = total ? atomicAdd(counter, total) : 0;
        }
        __syncthreads();
        const int slot = block_base + warp_base[warp];
#pragma unroll
        for (int it = 0; it < HOUGH_POINTS_ITEMS; it++) {
            int at = slot + before[it];
            const unsigned int m = mask[it];
            if (m != 0) {
#pragma unroll
                for (int j = 0; j < 16; j++) {
                    if ((m >> j) & 1u) {
                        points[at] = ((point_t)y[it] << POINT_SHIFT) | (point_t)(x[it] + j);
                        if (!BITS && weights)
                            weights[at] = (unsigned char)(px[it][j >> 2] >> (8 * (j & 3)));
                        at++;
                    }
                }
            }
        }
        __syncthreads();  // warp_base and block_base are reused by the next tile
    }
}

// The collection kernels' body, for all three families: (graph mode: the image's words from `call`,
// see kernels/graphs.cuh) compact the points; a lean graph's first kernel also brings call[first ..
// words) from pinned `fresh` (fresh_word_load; nullptr elsewhere, which compiles that copy out). No
// family zeroes its accumulator here: each plan's last kernel leaves it zero for the next call
// (hough_zero_after, ch_maxima and cs_walk_count: hough_zero_windows), off the path to the count.
template <bool BITS = false>
__device__ __forceinline__ void hough_collect_call(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, unsigned char* __restrict__ weights, int* __restrict__ counters,
    const long long* __restrict__ call, const long long* __restrict__ fresh, int first, int words,
    unsigned* __restrict__ rowbits = nullptr, int rw = 0)
{
    const long long fresh_word = fresh_word_load(fresh, first, words);
    await_previous_kernel();
    if (call != nullptr) {
        img = reinterpret_cast<const unsigned char*>(call[HOUGH_WORD_IMAGE_PTR]);
        step = call[HOUGH_WORD_ROW_STEP];
        align = (int)call[HOUGH_WORD_LOAD_WIDTH];
    }
    hough_collect<BITS>(img, cols, step, rows, align, points, weights, &counters[0], rowbits, rw);
    fresh_word_store(fresh, call, first, words, fresh_word);
}

// Votes of one warp for one angle, merged per run of equal bins. Points arrive in raster order
// within each collecting warp, and along a row r is monotonic in x, so equal bins sit in runs of
// neighbouring lanes; merging them removes the same-address atomic storms that horizontal
// segments cause near theta = pi/2. A value met in two separate runs is simply added twice.
// Returns the run total (weighted: the sum of the run's w; else its length) on the first lane of
// each run, 0 elsewhere. All 32 lanes must call it.
__device__ __forceinline__ int hough_warp_runs(int key, bool active, int w, bool weighted)
{
    const int lane = threadIdx.x & 31;
    int k = active ? key : (int)0x80000000;
    int prev = __shfl_up_sync(FULL_MASK, k, 1);
    // Inactive lanes are run heads of their own, so an active run always ends at the first one.
    bool boundary = lane == 0 || k != prev || !active;
    bool head = active && boundary;
    unsigned heads = __ballot_sync(FULL_MASK, boundary);
    unsigned later = heads & ~((2u << lane) - 1u);
    int next = later ? __ffs(later) - 1 : 32;
    if (!weighted)
        return head ? next - lane : 0;
    int wv = active ? w : 0;
    int prefix = wv;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        int o = __shfl_up_sync(FULL_MASK, prefix, d);
        if (lane >= d)
            prefix += o;
    }
    int end_prefix = __shfl_sync(FULL_MASK, prefix, next - 1);
    return head ? end_prefix - (prefix - wv) : 0;
}

// The slice [begin, end) of the point list that voting block (blockIdx.x, blockIdx.y) handles, or
// false for a block with nothing to do. The host launches grid.y slices for the most points the
// image can hold; the real number decides how many slices vote (at least min_points each), so a
// sparse image does not pay for flushing many nearly empty rows. Slices are multiples of 32
// points so that each warp sees one collecting warp's neighbouring pixels.
__device__ __forceinline__ bool hough_vote_slice(int npoints, int min_points, int* begin, int* end)
{
    const int splits = max(1, min((int)gridDim.y, (npoints + min_points - 1) / min_points));
    if ((int)blockIdx.y >= splits)
        return false;
    int chunk = (npoints + splits - 1) / splits;
    chunk = (chunk + 31) & ~31;
    *begin = min(npoints, (int)blockIdx.y * chunk);
    *end = min(npoints, *begin + chunk);
    return true;
}

// Adds v at a 32-bit shared-window address (__cvta_generic_to_shared), result unused. The voting
// loop folds the row, the bin offset and the rounding bias into one per-angle address constant, so
// a vote is the semantics' float sum, one add, one shift-add and this.
__device__ __forceinline__ void hough_shared_add(unsigned addr, int v)
{
    asm volatile("red.shared.add.u32 [%0], %1;" :: "r"(addr), "r"(v) : "memory");
}

// The contiguous run of whole 32-point chunks of [begin, full_end) that this warp votes: warps of a
// block take neighbouring ranges, so at any moment they work in different image rows. Striding the
// warps 32 points apart instead puts all of a block's warps on one 512-px segment at once, and near
// theta = pi/2 every one of them adds to the same shared word.
__device__ __forceinline__ void hough_warp_range(int begin, int full_end, int* wbegin, int* wend)
{
    const int nwarps = blockDim.x >> 5, warp = threadIdx.x >> 5;
    const int chunks = (full_end - begin) >> 5;
    *wbegin = begin + 32 * (int)((long long)chunks * warp / nwarps);
    *wend = begin + 32 * (int)((long long)chunks * (warp + 1) / nwarps);
}

// The shared-memory window of a voting block: columns [lo, lo + window) of each of its K
// accumulator rows, window <= row_cells (the row's columns that take votes). A point (x, y) of a
// rows x cols image votes near x * c + y * s, which lies between the extremes over the image's
// corners, so an angle reaches about (cols - 1)|c| + (rows - 1)|s| bins, not the whole row
// (2 (rows + cols) + 1 bins): 46 KB instead of 131 KB a row at 8192^2, and one wave of blocks.
// The host sizes window for the block that needs most (cvgpu.hough._voting.vote_window); a block whose
// bins do not all fit takes the range-checked path, so the window only ever affects speed.
__device__ __forceinline__ void hough_vote_extent(float c, float s, int rows, int cols, float* lo_v, float* hi_v,
                                                  float* slack)
{
    const float ax = (float)(cols - 1) * c, ay = (float)(rows - 1) * s;
    *lo_v = fminf(ax, 0.0f) + fminf(ay, 0.0f);
    *hi_v = fmaxf(ax, 0.0f) + fmaxf(ay, 0.0f);
    // The rounded products and sum move a vote by far less than 1e-6 of the extent, its rounding to
    // a bin by half a bin. NaN (fminf would drop it) makes the slack NaN and every test below false.
    *slack = (fabsf(ax) + fabsf(ay)) * 1e-6f + 2.0f;
}

template <int K>
__device__ __forceinline__ int hough_window_lo(const float* c, const float* s, int nk, int rows, int cols,
                                               int column0, int window, int row_cells)
{
    float lowest = 0.0f;
#pragma unroll
    for (int k = 0; k < K; k++) {
        float lo_v, hi_v, slack;
        hough_vote_extent(c[k], s[k], rows, cols, &lo_v, &hi_v, &slack);
        if (k < nk)
            lowest = k == 0 ? lo_v : fminf(lowest, lo_v);
    }
    const float lo = (float)column0 + floorf(lowest) - 3.0f;
    return (int)fminf(fmaxf(lo, 0.0f), (float)(row_cells - window));
}

// Whether every vote of angle (c, s) lands in the window [lo, lo + window) and rounds through
// f32_round_small_biased (the voting loop's no-range-test precondition).
__device__ __forceinline__ bool hough_in_window(float c, float s, int rows, int cols, int column0, int lo,
                                                int window)
{
    float lo_v, hi_v, slack;
    hough_vote_extent(c, s, rows, cols, &lo_v, &hi_v, &slack);
    return lo_v - slack >= (float)(lo - column0) && hi_v + slack <= (float)(lo + window - 1 - column0) &&
           fmaxf(-lo_v, hi_v) + slack <= F32_ROUND_MAGIC_LIMIT;
}

// One point's votes for K angles (see hough_vote_safe_run).
template <int K, typename Sum>
__device__ __forceinline__ void hough_vote_point(point_t p, const float* c, const float* s, const unsigned* kaddr,
                                                 Sum sum)
{
    const float x = (float)(unsigned)(p & POINT_MASK);
    const float y = (float)(unsigned)(p >> POINT_SHIFT);
#pragma unroll
    for (int k = 0; k < K; k++)
        hough_shared_add((f32_round_small_biased(sum(x, y, c[k], s[k])) << 2) + kaddr[k], 1);
}

#ifndef HOUGH_UNROLL
#define HOUGH_UNROLL 8  // point loads in flight per voting thread (kernels/cuda/hough.cu keeps 16)
#endif

// The voting blocks' loop over their provably in-row points, for both semantics: this warp's
// contiguous run of whole 32-point chunks of [begin, full_end), HOUGH_UNROLL chunks per iteration
// with all loads issued before any vote. `sum(x, y, c, s)` is the semantics' float32 x*c + y*s (its
// |value| <= 2^22, see `safe` in the callers); column0 is the shared-row column of bin 0. The row,
// column0 and the rounding bias fold into one address constant per angle (hough_shared_add).
template <int K, typename Sum>
__device__ __forceinline__ void hough_vote_safe_run(const point_t* __restrict__ points, int begin, int full_end,
                                                    const float* c, const float* s, int width, int column0,
                                                    int* rows_sh, Sum sum)
{
    const int lane = threadIdx.x & 31;
    unsigned kaddr[K];
#pragma unroll
    for (int k = 0; k < K; k++)
        kaddr[k] = (unsigned)__cvta_generic_to_shared(rows_sh) + 4u * (unsigned)(k * width + column0) -
                   4u * (unsigned)F32_ROUND_MAGIC_BITS;
    int at, last;
    hough_warp_range(begin, full_end, &at, &last);
    for (; at + 32 * HOUGH_UNROLL <= last; at += 32 * HOUGH_UNROLL) {
        point_t p[HOUGH_UNROLL];
#pragma unroll
        for (int u = 0; u < HOUGH_UNROLL; u++)
            p[u] = points[at + 32 * u + lane];
#pragma unroll
        for (int u = 0; u < HOUGH_UNROLL; u++)
            hough_vote_point<K>(p[u], c, s, kaddr, sum);
    }
    for (; at < last; at += 32)
        hough_vote_point<K>(points[at + lane], c, s, kaddr, sum);
}

#ifndef HOUGH_MAXIMA_ILP
#define HOUGH_MAXIMA_ILP 4
#endif

// Sort key: votes descending, then flat accumulator index ascending (cv2's hough_cmp_gt, and the
// detector's documented order), as one ascending 64-bit key. Votes are int32 and may be negative
// after use_edgeval wrap-around.
__device__ __forceinline__ unsigned long long hough_key(int votes, unsigned int flat)
{
    unsigned int ordered = ~((unsigned int)votes ^ 0x80000000u);
    return ((unsigned long long)ordered << 32) | flat;
}

// Appends the keys of the local maxima (the 4-neighbour rule, strict on the left/top, of cv2 and of
// OpenCV-CUDA alike) to keys, in no particular order; each warp with maxima reserves its slots in
// the low 32 bits of *tally (see hough_maxima_emit, ch_maxima). keys must hold every possible
// maximum: no two neighbours in a row qualify, so numangle * ((numrho + 1) / 2).
// Windowed (the detector, whose votes are never negative): each row's scan covers only the columns
// its votes can reach (bounds, see ch_row_bounds in kernels/cuda/hough.cu); every other cell holds 0,
// and a 0 is never a maximum (it would have to exceed its left neighbour). Otherwise every interior
// column.
//
// Chunked (the detector's direct write, kernels/cuda/hough.cu): block b scans the contiguous cells
// [b * chunk, (b + 1) * chunk) instead of every gridDim-th tile, so that the blocks' maxima follow
// one another in raster order, and also appends its keys to `own` (shared, `own_cap` slots; the
// count in *own_count goes on past own_cap, which tells the caller they did not fit).
template <bool Windowed, bool Chunked = false>
__device__ __forceinline__ void hough_find_maxima(
    const int* __restrict__ accum, int numangle, int numrho, int threshold,
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ tally, const int* __restrict__ bounds,
    unsigned long long* own = nullptr, int* own_count = nullptr, int own_cap = 0)
{
    const int width = numrho + 2;
    const int span = Windowed ? bounds[0] : numrho;  // cells scanned a row
    const long long cells = (long long)numangle * span;
    const bool narrow = cells + (long long)gridDim.x * blockDim.x < (1ll << 32);
    const int lane = threadIdx.x & 31;
    // HOUGH_MAXIMA_ILP cells a thread per pass, their loads issued before any test, so that their
    // latencies overlap. Windowed, the four neighbours' loads too: on photographs' edge maps many
    // cells pass the threshold, and each test's short-circuit then waited for one load after another
    // (bench rows: cuda.HoughLinesDetector on photographs; compat_matrix/HISTORY.md).
    long long first = (long long)blockIdx.x * blockDim.x, end = cells;
    long long stride = (long long)gridDim.x * blockDim.x;
    if (Chunked) {
        const long long chunk = (cells + gridDim.x - 1) / gridDim.x;
        first = min(cells, (long long)blockIdx.x * chunk);
        end = min(cells, first + chunk);
        stride = blockDim.x;
    }
    for (long long base = first; base < end; base += HOUGH_MAXIMA_ILP * stride) {
        long long idx[HOUGH_MAXIMA_ILP];
        int v[HOUGH_MAXIMA_ILP];
        int nb[HOUGH_MAXIMA_ILP][4];  // left, right, up, down (Windowed)
#pragma unroll
        for (int u = 0; u < HOUGH_MAXIMA_ILP; u++) {
            const long long cell = base + u * stride + threadIdx.x;
            idx[u] = -1;
            v[u] = 0;
            nb[u][0] = nb[u][1] = nb[u][2] = nb[u][3] = 0;
            if (cell < end) {
                const int n = (int)hough_udiv(cell, span, narrow);
                int col = (int)(cell - (long long)n * span) + 1;
                bool inside = true;
                if (Windowed) {
                    col += max(bounds[1 + 2 * n], 1) - 1;
                    inside = col <= min(bounds[2 + 2 * n], numrho);
                }
                if (inside) {
                    idx[u] = (long long)(n + 1) * width + col;
                    v[u] = accum[idx[u]];
                    if (Windowed) {
                        nb[u][0] = accum[idx[u] - 1];
                        nb[u][1] = accum[idx[u] + 1];
                        nb[u][2] = accum[idx[u] - width];
                        nb[u][3] = accum[idx[u] + width];
                    }
                }
            }
        }
#pragma unroll
        for (int u = 0; u < HOUGH_MAXIMA_ILP; u++) {
            const long long at = idx[u];
            const bool is_max =
                Windowed ? at >= 0 && v[u] > threshold && v[u] > nb[u][0] && v[u] >= nb[u][1] && v[u] > nb[u][2] &&
                               v[u] >= nb[u][3]
                         : at >= 0 && v[u] > threshold && v[u] > accum[at - 1] && v[u] >= accum[at + 1] &&
                               v[u] > accum[at - width] && v[u] >= accum[at + width];
            unsigned hits = __ballot_sync(FULL_MASK, is_max);
            if (hits == 0)
                continue;
            int warp_base = 0;
            if (lane == 0)
                warp_base = (int)(unsigned)atomicAdd(tally, (unsigned long long)__popc(hits));
            warp_base = __shfl_sync(FULL_MASK, warp_base, 0);
            if (is_max)
                keys[warp_base + __popc(hits & ((1u << lane) - 1u))] = hough_key(v[u], (unsigned int)at);
            if (Chunked) {
                int own_base = 0;
                if (lane == 0)
                    own_base = atomicAdd(own_count, __popc(hits));
                own_base = __shfl_sync(FULL_MASK, own_base, 0) + __popc(hits & ((1u << lane) - 1u));
                if (is_max && own_base < own_cap)
                    own[own_base] = hough_key(v[u], (unsigned int)at);
            }
        }
    }
}

// Shared memory of hough_bucket_rank.
struct HoughRankScratch {
    int count[1024];               // per bucket: its keys, then its first slot
    unsigned long long bound[64];  // per warp: lowest and highest key
    int warp_total[32];
};

// The ranking of hough_bucket_rank_items once each value's bucket is known (blockDim.x == 1024,
// every thread calls it: four barriers): bucket[j] in [0, 1024) for the participants, a monotonic
// map of the values (a lower bucket holds only smaller values). On entry scratch->count is zero and
// a barrier has passed since it was zeroed and since `slots` was last read.
template <int ITEMS>
__device__ __forceinline__ void hough_rank_in_buckets(const unsigned long long* v, const bool* in, const int* bucket,
                                                      HoughRankScratch* scratch, unsigned long long* slots,
                                                      int* rank)
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    int pos[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        pos[j] = in[j] ? atomicAdd(&scratch->count[bucket[j]], 1) : 0;
    __syncthreads();
    const int own = scratch->count[t];
    int incl = own;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d)
            incl += o;
    }
    if (lane == 31)
        scratch->warp_total[warp] = incl;
    __syncthreads();
    int before = scratch->warp_total[lane];
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(FULL_MASK, before, d);
        if (lane >= d)
            before += o;
    }
    const int warps_before = __shfl_sync(FULL_MASK, before, (warp + 31) & 31);
    const int total = __shfl_sync(FULL_MASK, before, 31);
    scratch->count[t] = (warp ? warps_before : 0) + incl - own;  // each thread rewrites its own bucket
    __syncthreads();
    int first[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        first[j] = 0;
        if (in[j]) {
            first[j] = scratch->count[bucket[j]];
            slots[first[j] + pos[j]] = v[j];
        }
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        rank[j] = 0;
        if (in[j]) {
            // The bucket's end: the next bucket's first slot, or the participants' total.
            const int last = bucket[j] + 1 < 1024 ? scratch->count[bucket[j] + 1] : total;
            int r = first[j];
            for (int k = first[j]; k < last; k++)
                r += slots[k] < v[j];
            rank[j] = r;
        }
    }
}

// hough_bucket_rank (below) for up to ITEMS values a thread (blockDim.x == 1024, every thread calls it:
// five barriers): value j of thread t, v[j] with in[j], is distinct among all participants; rank[j]
// is how many participants hold a smaller value. `slots`: shared, one per participant. The same
// 1024 buckets over the values' range; a bucket's values are compared among themselves.
template <int ITEMS>
__device__ __forceinline__ void hough_bucket_rank_items(const unsigned long long* v, const bool* in,
                                                        HoughRankScratch* scratch, unsigned long long* slots,
                                                        int* rank)
{
    const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
    unsigned long long lo = ~0ull, hi = 0ull;
#pragma unroll
    for (int j = 0; j < ITEMS; j++) {
        if (in[j]) {
            lo = min(lo, v[j]);
            hi = max(hi, v[j]);
        }
    }
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        lo = min(lo, __shfl_xor_sync(FULL_MASK, lo, d));
        hi = max(hi, __shfl_xor_sync(FULL_MASK, hi, d));
    }
    if (lane == 0) {
        scratch->bound[warp] = lo;
        scratch->bound[32 + warp] = hi;
    }
    scratch->count[t] = 0;
    __syncthreads();
    lo = scratch->bound[lane];
    hi = scratch->bound[32 + lane];
#pragma unroll
    for (int d = 16; d > 0; d >>= 1) {
        lo = min(lo, __shfl_xor_sync(FULL_MASK, lo, d));
        hi = max(hi, __shfl_xor_sync(FULL_MASK, hi, d));
    }
    const unsigned long long range = hi >= lo ? hi - lo : 0ull;
    const int shift = range >> 10 ? 54 - __clzll(range) : 0;  // (range >> shift) < 1024
    int bucket[ITEMS];
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        bucket[j] = in[j] ? (int)((v[j] - lo) >> shift) : 0;
    hough_rank_in_buckets<ITEMS>(v, in, bucket, scratch, slots, rank);
}

// After a ranking of ITEMS values a thread (hough_bucket_rank_items, hough_rank_in_buckets): each
// participant's value placed at its rank in `slots`, so that the lines are then written in order:
// consecutive threads write consecutive lines (the pinned copy's PCIe writes coalesce), not each
// thread its values' scattered places. Every thread calls it (two barriers; the first lets every
// thread's rank loop finish reading the slots).
template <int ITEMS>
__device__ __forceinline__ void hough_place_ranked(unsigned long long* slots, const unsigned long long* v,
                                                   const bool* in, const int* rank)
{
    __syncthreads();
#pragma unroll
    for (int j = 0; j < ITEMS; j++)
        if (in[j])
            slots[rank[j]] = v[j];
    __syncthreads();
}

// The maxima tails' ordering (blockDim.x == 1024, every thread calls it: five barriers): thread i
// holds value v, distinct among the threads with `in`; returns how many of those hold a smaller
// value (0 without `in`). The values' range is cut into 1024 buckets by a shift (a monotonic map),
// the values are counted into buckets, the counts scanned, the values placed by bucket into
// `slots` (shared, one per participant), and a value's rank is its bucket's first slot plus the
// smaller values in its bucket. A rank by comparing every pair costs the last block K^2 / 1024
// steps per thread at one SM's issue rate, which dominates the tail for a few hundred lines. A
// bucket holds many values only when they crowd into 1/1024 of the range (equal votes under doSort
// with many lines); its threads then compare among themselves.
__device__ __forceinline__ int hough_bucket_rank(unsigned long long v, bool in, HoughRankScratch* scratch,
                                                 unsigned long long* slots)
{
    int rank;
    hough_bucket_rank_items<1>(&v, &in, scratch, slots, &rank);
    return rank;
}

// In-place ascending bitonic sort of keys[0, padded) in shared memory (padded: a power of two).
__device__ void hough_bitonic(unsigned long long* keys, int padded)
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

// Loads keys[0, count) into shared `sorted`, padded with ~0 (after every key) to the next power of
// two, which it returns: the input of hough_bitonic. Ends with a barrier.
__device__ __forceinline__ int hough_load_padded(unsigned long long* sorted, const unsigned long long* keys, int count)
{
    int padded = 1;
    while (padded < count)
        padded <<= 1;
    for (int i = threadIdx.x; i < padded; i += blockDim.x)
        sorted[i] = i < count ? __ldcg(&keys[i]) : ~0ull;
    __syncthreads();
    return padded;
}

#define HOUGH_PAIRWISE_RANK_MAX 128

// hough_bucket_rank's result for the first K threads (the participants among them): up to
// HOUGH_PAIRWISE_RANK_MAX values, each participant compares with all K (one barrier and K shared
// loads, against the buckets' five barriers): the faster of the two for few lines, which is the
// common result (bench row: HoughLines segments 1024x1024 164k pts, 6 lines).
__device__ __forceinline__ int hough_rank(unsigned long long v, bool in, int K, HoughRankScratch* scratch,
                                          unsigned long long* slots)
{
    if (K > HOUGH_PAIRWISE_RANK_MAX)
        return hough_bucket_rank(v, in, scratch, slots);
    if ((int)threadIdx.x < K)
        slots[threadIdx.x] = in ? v : ~0ull;  // (keys and flat indices are below 2^63)
    __syncthreads();
    int rank = 0;
    if (in)
        for (int j = 0; j < K; j++)
            rank += slots[j] < v;
    __syncthreads();  // a second ordering may reuse the slots
    return rank;
}

// The maxima blocks' ticket: an acquire-release add at GPU scope. Release: the keys this block's
// threads stored before the barrier that precedes it are visible to whoever acquires a later
// value; acquire: once the last block's thread 0 holds it, the barrier after it orders every
// block's keys before that block's loads. It replaces a sequentially consistent fence on each side
// (__threadfence before the add in every block, after it in the last), which costs more.
__device__ __forceinline__ unsigned long long hough_ticket(unsigned long long* counter, unsigned long long v)
{
    unsigned long long old;
    asm volatile("atom.acq_rel.gpu.global.add.u64 %0, [%1], %2;" : "=l"(old) : "l"(counter), "l"(v) : "memory");
    return old;
}

// The block's ticket in the high 32 bits of *tally (every thread calls it, after a barrier that
// follows the block's last store of keys or lines): true in the last block to take one, with
// *found the low half (every block's maxima), everything the other blocks stored before their
// tickets visible to it.
__device__ __forceinline__ bool hough_last_block(unsigned long long* __restrict__ tally, int* found)
{
    __shared__ int s_found;
    __shared__ int s_is_last;
    if (threadIdx.x == 0) {
        const unsigned long long before = hough_ticket(tally, 1ull << 32);
        s_is_last = (int)(before >> 32) == (int)gridDim.x - 1;
        s_found = (int)(unsigned)before;
    }
    __syncthreads();
    if (!s_is_last)
        return false;
    *found = s_found;
    return true;
}

// hough_find_maxima over the grid, then a ticket in the high 32 bits of *tally: true in the last
// block to finish only, with *found every block's maxima (the ticket returns the low half with it,
// which saves the last block a dependent read) and their keys visible to it. The last block orders
// and writes the lines, then resets the counters for the next call (hough_maxima_emit, ch_maxima).
template <bool Windowed>
__device__ __forceinline__ bool hough_maxima_last_block(
    const int* __restrict__ accum, int numangle, int numrho, int threshold,
    unsigned long long* __restrict__ keys, unsigned long long* __restrict__ tally, int* found,
    const int* __restrict__ bounds)
{
    hough_find_maxima<Windowed>(accum, numangle, numrho, threshold, keys, tally, bounds);
    __syncthreads();
    return hough_last_block(tally, found);
}
