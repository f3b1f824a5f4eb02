// cv::cuda::HoughSegmentDetector semantics (OpenCV's CUDA probabilistic Hough), for cvgpu.cuda.
//
// Algorithm (OpenCV's cudaimgproc hough_segments, driven as HoughSegmentDetector::detect does):
//   1. the lines detector's point list and voting, unchanged (kernels/cuda/hough.cu: ch_collect,
//      ch_vote_shared_K / ch_vote_global, with OpenCV's shared/global rule for the kept columns);
//   2. a local maximum is an interior accumulator cell (n, r) with votes >= T (T = threshold when
//      threshold > 0, else minLineLength) and strictly more votes than all 8 neighbours (border
//      rows and columns of the (numangle + 2) x (numrho + 2) accumulator included);
//   3. each maximum's line rho = (r - (numrho - 1) / 2) * rho, angle n * theta is walked across the
//      image from where it enters (left, right, top, bottom edge tried in that order), one unit
//      along its major axis per step, in float32 positions p_{k+1} = p_k + d; a step tests the
//      edge pixel (floor(x), floor(y)) (OpenCV reads a texture: point filtering, unnormalised
//      coordinates, clamp addressing; the walk stops at the first position outside the image, so
//      clamping never applies); runs of edge steps joined across at most maxLineGap non-edge steps
//      form a candidate from its first to its last edge step, kept when |x1 - x0| or |y1 - y0|
//      (float32) reaches minLineLength; end points are the float positions truncated to int.
//
// Arithmetic (nvcc's defaults in OpenCV's build, FMA contraction on; see CS_START below for the
// fused expressions, established against shared/golden/opencv_cuda_houghsegments_golden.npz by the
// CPU model tests/models/cuda_segments_model.py): sincosf is CUDA's accurate one, divisions are
// correctly rounded, every step of the walk is one rounded add per coordinate.
//
// Parallel walk (OpenCV: one thread per maximum walks serially). Here one warp per maximum, its 32
// lanes taking 32 consecutive steps. The positions must be OpenCV's repeated float additions bit
// for bit. Within one binade of a coordinate the rounded sum p + d moves by a constant multiple of
// the ulp (after at most one step of tie parity), so p_{a+t} = fma(t, delta, p_a) with delta =
// (p_a + d) - p_a holds for a run of steps; each lane checks its own step of that closed form
// against the serial recurrence (fl(p_t + d) == p_{t+1}), and the first lane where it fails ends
// the verified prefix: the walk restarts the closed form from the exact position after it. A
// round therefore advances 32 steps except at binade changes, and the positions are exactly the
// serial ones whatever the proof's corner cases. Edge pixels are read from the image's rows as bits
// (written by cs_collect): a walk along x reads one or two words a round of 32 steps, a walk along
// y a word a step (a copy of the columns for those, packed by a kernel of its own, cost more than
// the walks' scattered reads: compat_matrix/HISTORY.md). The loads of CS_WALK_BATCH rounds are
// issued together. Runs and gaps are found from the warp's ballot of edge steps and a carried
// state (open run's first and last edge step), in walk order.
//
// Output order (cvgpu's documented, deterministic choice; OpenCV's is whatever atomics produce):
// by maximum in raster order of the accumulator (angle index, then rho index), then along the walk.
// More segments than maxLines: the first maxLines in that order. OpenCV keeps an arbitrary subset.
//
// Pipeline (one stream, one host synchronisation: the count published in pinned memory):
//   cs_collect                the lines detector's point list (kernels/cuda/hough.cu: ch_collect)
//                             and the image's rows as bits
//   ch_vote_*                 the lines detector's voting (kernels/cuda/hough.cu)
//   cs_maxima                 the maxima's flat indices in raster order (tiles of accumulator
//                             cells in raster order, their offsets by a chained scan)
//   cs_walk_count             per maximum: its number of segments, the first stash_per of them
//                             kept in a stash; zeroes the accumulator windows
//   cs_place                  offsets of each maximum's segments (a chained scan), their total;
//                             the stashed segments of maxima that had at most stash_per, to their
//                             places below maxLines
//   cs_walk_write             walks again only the maxima with more segments than their stash held
//                             (and segments below maxLines), writes them; the last block publishes
//                             the count and resets counters and the chained scans' words
// The stash (stash_per segments a possible maximum; 0 where it would not fit the memory budget of
// cvgpu/cuda/segments.py) spares most maxima their second walk.
// host_out (pinned host memory, or null when maxLines passes its room): cs_place and cs_walk_write
// write every segment there too, fenced for the system before the count is published, so that
// GpuMat.download of detect's result copies host memory instead of reading the device.

#include "hough/voting.cuh"
#include "chain_scan.cuh"

// Graph mode: the call words are the lines detector's (kernels/cuda/hough.cu: CH_WORDS): the image's
// words (HOUGH_WORD_*), then the output pointer.
#define CS_WORD_OUT_PTR 3
#define CS_WORDS 4

// Counters (int32, zeroed once by the host, reset by the last cs_walk<true> block):
#define CS_MAXIMA 0       // number of local maxima (cs_maxima)
#define CS_TICKET 1       // cs_walk<false>'s next maximum
#define CS_TICKET2 2      // cs_walk<true>'s next maximum
#define CS_TOTAL 3        // segments in all (cs_place)
#define CS_DONE 4         // cs_walk<true> blocks finished
#define CS_COUNTERS 5

// Rounds of 32 steps whose loads a walk issues together (cs_walk_one); tuned by the
// cuda-segments bench rows (compat_matrix/HISTORY.md).
#ifndef CS_WALK_BATCH
#define CS_WALK_BATCH 8
#endif

// Accumulator cells a maxima thread tests (a tile: blockDim.x * CS_CELLS; cvgpu/cuda/segments.py's
// _CELLS_PER_TILE the same). 4: the cuda-segments rows of seg_ab.py (compat_matrix/HISTORY.md; 2 won
// at 640x480, lost at 3840x2160).
#ifndef CS_CELLS
#define CS_CELLS 4
#endif

__device__ __forceinline__ float cs_div(float a, float b)
{
    float d;
    asm("div.rn.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}

// ---------------------------------------------------------------- point list and bit-packed rows

// The lines detector's collection (kernels/cuda/hough.cu: ch_collect, ch_collect_lean; the same
// point list for the same voting kernels) that also writes the image's rows as bits:
// rowbits[y * rw + x / 32] bit x % 32 set when pixel (x, y) is nonzero.
extern "C" __global__ void __launch_bounds__(256) cs_collect(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, const long long* __restrict__ call,
    unsigned* __restrict__ rowbits, int rw)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, call, nullptr, HOUGH_IMAGE_WORDS,
                       CS_WORDS, rowbits, rw);
}

// The first kernel of a lean graph (kernels/graphs.cuh: fresh_word_load): cs_collect that also
// brings the output pointer.
extern "C" __global__ void __launch_bounds__(256) cs_collect_lean(
    const unsigned char* __restrict__ img, int cols, long long step, long long rows, int align,
    point_t* __restrict__ points, int* __restrict__ counters, const long long* __restrict__ call,
    unsigned* __restrict__ rowbits, int rw, const long long* __restrict__ fresh)
{
    hough_collect_call(img, cols, step, rows, align, points, nullptr, counters, call, fresh, HOUGH_IMAGE_WORDS,
                       CS_WORDS, rowbits, rw);
}

// ---------------------------------------------------------------- local maxima

// Cell c of the scanned cells: row n = c / span, column max(lo_n, 1) + c % span, inside while the
// column is <= min(hi_n, numrho) (bounds: kernels/cuda/hough.cu, ch_row_bounds; every cell outside
// them holds 0, and 0 is never a maximum: it would have to exceed its neighbours). Returns the flat
// index, or -1.
__device__ __forceinline__ long long cs_cell(long long c, const int* __restrict__ bounds, int numangle, int numrho,
                                             int span)
{
    if (c >= (long long)numangle * span)
        return -1;
    const int n = (int)(c / span);
    const int col = max(bounds[1 + 2 * n], 1) + (int)(c - (long long)n * span);
    if (col > min(bounds[2 + 2 * n], numrho))
        return -1;
    return (long long)(n + 1) * (numrho + 2) + col;
}

__device__ __forceinline__ bool cs_is_max(const int* __restrict__ accum, long long at, int width, int threshold)
{
    if (at < 0)
        return false;
    const int v = accum[at];
    const int* up = accum + at - width;
    const int* down = accum + at + width;
    return v >= threshold && v > accum[at - 1] && v > accum[at + 1] && v > up[-1] && v > up[0] && v > up[1] &&
           v > down[-1] && v > down[0] && v > down[1];
}

// grid: one block (1024 threads) per tile of 1024 * CS_CELLS cells, tiles in raster order. Writes
// the maxima's flat indices in raster order (cells of a tile in index order; a tile's maxima after
// every earlier tile's): every cell's test first (all loads in flight), one scan of the block's
// (cell round, warp) counts, the earlier tiles' maxima by the chained scan over `chain` (one word
// a tile, zero at launch: cs_walk_write's last block zeroes it for the next detect), then the
// writes. The last tile's block writes the number of maxima.
extern "C" __global__ void __launch_bounds__(1024) cs_maxima(
    const int* __restrict__ accum, int numangle, int numrho, int threshold, const int* __restrict__ bounds,
    unsigned long long* __restrict__ chain, unsigned* __restrict__ maxima, int* __restrict__ counters)
{
    __shared__ int counts[CS_CELLS * 32];
    __shared__ int round_total[CS_CELLS];
    __shared__ int s_base;
    await_previous_kernel();
    const int span = bounds[0];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const long long tile = (long long)blockIdx.x * blockDim.x * CS_CELLS;
    unsigned hits[CS_CELLS];
    long long at[CS_CELLS];
#pragma unroll
    for (int i = 0; i < CS_CELLS; i++) {
        at[i] = cs_cell(tile + (long long)i * blockDim.x + threadIdx.x, bounds, numangle, numrho, span);
        hits[i] = __ballot_sync(FULL_MASK, cs_is_max(accum, at[i], numrho + 2, threshold));
    }
    const int warps = (int)(blockDim.x >> 5);
    if (lane == 0) {
#pragma unroll
        for (int i = 0; i < CS_CELLS; i++)
            counts[i * 32 + warp] = __popc(hits[i]);
    }
    __syncthreads();
    if (warp < CS_CELLS) {
        // Warp i: exclusive scan of round i's warp counts (warps beyond the block's count hold 0).
        const int c = lane < warps ? counts[warp * 32 + lane] : 0;
        int incl = c;
        for (int d = 1; d < 32; d <<= 1) {
            const int u = __shfl_up_sync(FULL_MASK, incl, d);
            if (lane >= d)
                incl += u;
        }
        if (lane < warps)
            counts[warp * 32 + lane] = incl - c;
        if (lane == 31)
            round_total[warp] = incl;
    }
    __syncthreads();
    if (warp == 0) {
        int own = 0;
#pragma unroll
        for (int i = 0; i < CS_CELLS; i++)
            own += round_total[i];
        const int before = chain_scan_prefix(chain, own);
        if (lane == 0) {
            s_base = before;
            if (blockIdx.x == gridDim.x - 1)
                counters[CS_MAXIMA] = before + own;
        }
    }
    __syncthreads();
    int base = s_base;
#pragma unroll
    for (int i = 0; i < CS_CELLS; i++) {
        if ((hits[i] >> lane) & 1u)
            maxima[base + counts[i * 32 + warp] + __popc(hits[i] & ((1u << lane) - 1u))] = (unsigned)at[i];
        base += round_total[i];
    }
}

// ---------------------------------------------------------------- the walk

// The walk of one maximum: start position and step, as OpenCV's kernel computes them. Returns false
// when the start lies outside the image (no walk). The expressions nvcc contracts into FMAs are
// written as such (tests/models/cuda_segments_model.py: start_points, the same choices).
__device__ __forceinline__ bool cs_start(unsigned flat, int numrho, float rho, float theta, int rows, int cols,
                                         float* px, float* py, float* sx, float* sy)
{
    const unsigned width = (unsigned)(numrho + 2);
    const int n = (int)(flat / width) - 1;
    const int r = (int)(flat % width) - 1;
    const float radius = f32_mul(f32_sub((float)r, f32_mul((float)(numrho - 1), 0.5f)), rho);
    const float angle = f32_mul((float)n, theta);
    float sina, cosa;
    sincosf(angle, &sina, &cosa);
    float p0x = f32_mul(cosa, radius), p0y = f32_mul(sina, radius);
    float dx = -sina, dy = cosa;
    const float fcols = (float)(cols - 1), frows = (float)(rows - 1);
    float b0y = -1.0f, b1y = -1.0f, b2x = -1.0f, b3x = -1.0f;
    bool has01 = dx != 0.0f, has23 = dy != 0.0f;
    if (has01) {
        b0y = f32_fma(cs_div(-p0x, dx), dy, p0y);
        b1y = f32_fma(cs_div(f32_sub(fcols, p0x), dx), dy, p0y);
    }
    if (has23) {
        b2x = f32_fma(cs_div(-p0y, dy), dx, p0x);
        b3x = f32_fma(cs_div(f32_sub(frows, p0y), dy), dx, p0x);
    }
    if (has01 && b0y >= 0.0f && b0y < (float)rows) {
        p0x = 0.0f;
        p0y = b0y;
        if (dx < 0.0f) {
            dx = -dx;
            dy = -dy;
        }
    } else if (has01 && b1y >= 0.0f && b1y < (float)rows) {
        p0x = fcols;
        p0y = b1y;
        if (dx > 0.0f) {
            dx = -dx;
            dy = -dy;
        }
    } else if (has23 && b2x >= 0.0f && b2x < (float)cols) {
        p0x = b2x;
        p0y = 0.0f;
        if (dy < 0.0f) {
            dx = -dx;
            dy = -dy;
        }
    } else if (has23 && b3x >= 0.0f && b3x < (float)cols) {
        p0x = b3x;
        p0y = frows;
        if (dy > 0.0f) {
            dx = -dx;
            dy = -dy;
        }
    }
    if (fabsf(dx) > fabsf(dy)) {
        *sx = dx > 0.0f ? 1.0f : -1.0f;
        *sy = cs_div(dy, fabsf(dx));
    } else {
        *sx = cs_div(dx, fabsf(dy));
        *sy = dy > 0.0f ? 1.0f : -1.0f;
    }
    *px = p0x;
    *py = p0y;
    return !(p0x < 0.0f || p0x >= (float)cols || p0y < 0.0f || p0y >= (float)rows);
}

// One warp walks maximum `flat` (all lanes call it with the same arguments). Write == false:
// returns the number of segments. Write == true: writes segment s to out[first + s] while
// first + s < limit; with Stop it returns the number walked once the limit is reached, without it
// walks on and returns the number of segments (the stash of cs_walk_count).
template <bool Write, bool Stop = true>
__device__ __forceinline__ int cs_walk_one(
    unsigned flat, int numrho, float rho, float theta, int rows, int cols, int min_len, int max_gap,
    const unsigned* __restrict__ rowbits, int rw,
    int4* __restrict__ out, int first, int limit, int4* __restrict__ host_out = nullptr)
{
    const int lane = threadIdx.x & 31;
    float px, py, sx, sy;
    if (!cs_start(flat, numrho, rho, theta, rows, cols, &px, &py, &sx, &sy))
        return 0;
    const int gap = max(max_gap, 0);
    const float len = (float)min_len;
    const float fcols = (float)cols, frows = (float)rows;
    const unsigned below = (1u << lane) - 1u;
    // The closed form of the walk: positions base + t * inc from step `at` (see the header).
    float bx = px, by = py;
    float ix = f32_sub(f32_add(bx, sx), bx), iy = f32_sub(f32_add(by, sy), by);
    int at = 0, k0 = 0;
    // The open run (carried between rounds): its first edge step's position, its last edge step.
    bool open = false;
    int last_on = 0;
    float s0x = 0.0f, s0y = 0.0f, lx = 0.0f, ly = 0.0f;
    int found = 0;
    bool ended = false;
    for (;;) {
        // A batch of CS_WALK_BATCH rounds: first every round's positions (arithmetic and shuffles
        // alone, the closed form's restarts included) and its words' loads, all in flight at
        // once; then the rounds' runs in walk order. The loads do not depend on the runs, so a
        // walk waits for one load's latency a batch, not one a round (the rounds' positions and
        // words are those of the serial rounds; a batch past the walk's end loads nothing more).
        float qx[CS_WALK_BATCH], qy[CS_WALK_BATCH];
        unsigned qw[CS_WALK_BATCH];
        int qs[CS_WALK_BATCH], qk[CS_WALK_BATCH];
        int rounds = 0;
#pragma unroll
        for (int j = 0; j < CS_WALK_BATCH; j++) {
            qx[j] = qy[j] = 0.0f;
            qw[j] = 0u;
            qs[j] = 0;
            qk[j] = k0;
            if (!ended) {
                const float t = (float)(k0 - at + lane);
                const float cx = f32_fma(t, ix, bx), cy = f32_fma(t, iy, by);
                const float t1 = f32_add(t, 1.0f);
                const float nx = f32_add(cx, sx), ny = f32_add(cy, sy);
                const bool exact_next = nx == f32_fma(t1, ix, bx) && ny == f32_fma(t1, iy, by);
                const unsigned bad = __ballot_sync(FULL_MASK, !exact_next);
                // Lanes 0..last hold serial positions (lane last's successor may not).
                const int last = bad ? __ffs(bad) - 1 : 31;
                const bool inside = !(cx < 0.0f || cx >= fcols || cy < 0.0f || cy >= frows);
                const unsigned exact_lanes = last == 31 ? FULL_MASK : (2u << last) - 1u;
                const unsigned outside = __ballot_sync(FULL_MASK, !inside) & exact_lanes;
                const int steps = outside ? __ffs(outside) - 1 : last + 1;
                qx[j] = cx;
                qy[j] = cy;
                if (lane < steps) {
                    const int xi = (int)cx, yi = (int)cy;  // in the image: truncation is floor
                    qw[j] = rowbits[(long long)yi * rw + (xi >> 5)];
                    qs[j] = xi & 31;
                }
                rounds = j + 1;
                if (outside) {
                    ended = true;
                } else if (bad) {
                    // Restart the closed form at the step after the verified prefix, from its exact position.
                    k0 += last + 1;
                    at = k0;
                    bx = __shfl_sync(FULL_MASK, nx, last);
                    by = __shfl_sync(FULL_MASK, ny, last);
                    ix = f32_sub(f32_add(bx, sx), bx);
                    iy = f32_sub(f32_add(by, sy), by);
                } else {
                    k0 += 32;
                }
            }
        }
#pragma unroll
        for (int j = 0; j < CS_WALK_BATCH; j++) {
            if (j >= rounds)
                break;
            const float cx = qx[j], cy = qy[j];
            const int kj = qk[j];
            const bool on = (qw[j] >> qs[j]) & 1u;   // (0 on the lanes past the round's steps)
            const unsigned ons = __ballot_sync(FULL_MASK, on);
            if (!ons)
                continue;
            // The previous edge step of each edge lane: in this round, else the carried one.
            const unsigned lower = ons & below;
            const int prev_lane = lower ? 31 - __clz(lower) : -1;
            const bool has_prev = prev_lane >= 0 || open;
            const int prev_step = prev_lane >= 0 ? kj + prev_lane : last_on;
            const bool starts = on && (!has_prev || kj + lane - prev_step - 1 > gap);
            const unsigned start_lanes = __ballot_sync(FULL_MASK, starts);
            // A start with an edge step before it closes the run that step ends: from that run's
            // start (the highest start lane below, else the carried start) to that step.
            const unsigned earlier_starts = start_lanes & below;
            const int run_lane = earlier_starts ? 31 - __clz(earlier_starts) : -1;
            const float rx = __shfl_sync(FULL_MASK, cx, run_lane < 0 ? 0 : run_lane);
            const float ry = __shfl_sync(FULL_MASK, cy, run_lane < 0 ? 0 : run_lane);
            const float ex = __shfl_sync(FULL_MASK, cx, prev_lane < 0 ? 0 : prev_lane);
            const float ey = __shfl_sync(FULL_MASK, cy, prev_lane < 0 ? 0 : prev_lane);
            const float ax0 = run_lane >= 0 ? rx : s0x, ay0 = run_lane >= 0 ? ry : s0y;
            const float ax1 = prev_lane >= 0 ? ex : lx, ay1 = prev_lane >= 0 ? ey : ly;
            const bool closes = starts && has_prev;
            const bool good = closes && (fabsf(f32_sub(ax1, ax0)) >= len || fabsf(f32_sub(ay1, ay0)) >= len);
            const unsigned goods = __ballot_sync(FULL_MASK, good);
            if (Write && good) {
                const int slot = first + found + __popc(goods & below);
                if (slot < limit) {
                    const int4 seg = make_int4((int)ax0, (int)ay0, (int)ax1, (int)ay1);
                    out[slot] = seg;
                    if (host_out != nullptr)
                        host_out[slot] = seg;
                }
            }
            found += __popc(goods);
            const int top = 31 - __clz(ons);
            last_on = kj + top;
            lx = __shfl_sync(FULL_MASK, cx, top);
            ly = __shfl_sync(FULL_MASK, cy, top);
            if (start_lanes) {
                const int top_start = 31 - __clz(start_lanes);
                s0x = __shfl_sync(FULL_MASK, cx, top_start);
                s0y = __shfl_sync(FULL_MASK, cy, top_start);
            }
            open = true;
            if (Write && Stop && first + found >= limit)
                return found;
        }
        if (ended)
            break;
    }
    if (open && (fabsf(f32_sub(lx, s0x)) >= len || fabsf(f32_sub(ly, s0y)) >= len)) {
        if (Write && lane == 0 && first + found < limit) {
            const int4 seg = make_int4((int)s0x, (int)s0y, (int)lx, (int)ly);
            out[first + found] = seg;
            if (host_out != nullptr)
                host_out[first + found] = seg;
        }
        found++;
    }
    return found;
}

// Pass 1: warps take maxima by ticket and record each one's number of segments, keeping the first
// stash_per of them in stash[i * stash_per ...] (stash_per 0: none kept); then the blocks zero the
// accumulator (the maxima list is complete: this kernel waited for cs_maxima).
extern "C" __global__ void __launch_bounds__(256) cs_walk_count(
    const unsigned* __restrict__ maxima, int* __restrict__ counters, int numrho, float rho, float theta, int rows,
    int cols, int min_len, int max_gap, const unsigned* __restrict__ rowbits, int rw,
    int* __restrict__ counts, int* __restrict__ accum,
    const int* __restrict__ bounds, int numangle, int4* __restrict__ stash, int stash_per)
{
    await_previous_kernel();
    const int total = counters[CS_MAXIMA];
    const int lane = threadIdx.x & 31;
    for (;;) {
        int i = 0;
        if (lane == 0)
            i = atomicAdd(&counters[CS_TICKET], 1);
        i = __shfl_sync(FULL_MASK, i, 0);
        if (i >= total)
            break;
        const int found = stash_per > 0
            ? cs_walk_one<true, false>(maxima[i], numrho, rho, theta, rows, cols, min_len, max_gap, rowbits, rw,
                                       stash + (long long)i * stash_per, 0, stash_per)
            : cs_walk_one<false>(maxima[i], numrho, rho, theta, rows, cols, min_len, max_gap, rowbits, rw,
                                 nullptr, 0, 0);
        if (lane == 0)
            counts[i] = found;
    }
    hough_zero_windows(accum, bounds, numangle, numrho + 2);  // (kernels/hough/voting.cuh)
}

// Offsets and the stash's copies in one pass: block b takes maxima [b * CS_PLACE, (b + 1) * CS_PLACE),
// scans their counts (offsets[i] = the segments of maxima before i) with the blocks before it by
// the chained scan over `chain` (zero at launch: cs_walk_write's last block zeroes it), then copies
// the stashed segments of every maximum whose segments all fit its stash (counts[i] <= stash_per)
// to out[offsets[i] + j] below max_lines (and the host copy). The block of the last maximum (block
// 0 when there are none) writes counters[CS_TOTAL], the segments in all. Blocks past the maxima
// return at once (the grid covers every possible maximum; the count is known on the device only).
#define CS_PLACE 256
extern "C" __global__ void __launch_bounds__(CS_PLACE) cs_place(
    int* __restrict__ counters, const int* __restrict__ counts, int* __restrict__ offsets,
    unsigned long long* __restrict__ chain, const int4* __restrict__ stash, int stash_per, int max_lines,
    int4* __restrict__ out, const long long* __restrict__ call, int4* __restrict__ host_out)
{
    __shared__ int warp_sums[CS_PLACE / 32];
    __shared__ int s_base;
    __shared__ int s_off[CS_PLACE], s_cnt[CS_PLACE];
    await_previous_kernel();
    if (call != nullptr)
        out = reinterpret_cast<int4*>(call[CS_WORD_OUT_PTR]);
    const int total = counters[CS_MAXIMA];
    const int first = (int)blockIdx.x * CS_PLACE;
    if (first >= max(total, 1))
        return;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int i = first + (int)threadIdx.x;
    const int c = i < total ? counts[i] : 0;
    int incl = c;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int u = __shfl_up_sync(FULL_MASK, incl, d);
        if (lane >= d)
            incl += u;
    }
    if (lane == 31)
        warp_sums[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const int ws = lane < CS_PLACE / 32 ? warp_sums[lane] : 0;
        int w_incl = ws;
#pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
            const int u = __shfl_up_sync(FULL_MASK, w_incl, d);
            if (lane >= d)
                w_incl += u;
        }
        const int block_sum = __shfl_sync(FULL_MASK, w_incl, 31);
        const int before = chain_scan_prefix(chain, block_sum);
        if (lane < CS_PLACE / 32)
            warp_sums[lane] = w_incl - ws;
        if (lane == 0) {
            s_base = before;
            if (first + CS_PLACE >= total)
                counters[CS_TOTAL] = before + block_sum;
        }
    }
    __syncthreads();
    const int off = s_base + warp_sums[warp] + incl - c;
    if (i < total)
        offsets[i] = off;
    s_off[threadIdx.x] = off;
    s_cnt[threadIdx.x] = c;
    __syncthreads();
    // The stash pairs (maximum m of this block, slot j), consecutive threads on consecutive pairs.
    bool wrote = false;
    for (int p = threadIdx.x; p < CS_PLACE * stash_per; p += CS_PLACE) {
        const int m = p / stash_per, j = p - m * stash_per;
        const int cm = s_cnt[m], slot = s_off[m] + j;
        if (cm > stash_per || j >= cm || slot >= max_lines)
            continue;
        const int4 seg = stash[(long long)first * stash_per + p];
        out[slot] = seg;
        if (host_out != nullptr) {
            host_out[slot] = seg;
            wrote = true;
        }
    }
    if (wrote)
        __threadfence_system();   // (the host reads the copy once cs_walk_write publishes the count)
}

// Pass 2: walks again the maxima with more segments than their stash held whose segments start
// below max_lines, and writes them (out: int4, the call word CS_WORD_OUT_PTR in graph mode). The last
// block publishes host[0] = the count (fenced after the segments; host[1] the segments in all) and
// resets the counters (the voting's point counter too) and the chained scans' words.
extern "C" __global__ void __launch_bounds__(256) cs_walk_write(
    const unsigned* __restrict__ maxima, int* __restrict__ counters, int numrho, float rho, float theta, int rows,
    int cols, int min_len, int max_gap, const unsigned* __restrict__ rowbits, int rw,
    const int* __restrict__ counts, const int* __restrict__ offsets,
    int max_lines, int4* __restrict__ out, int* __restrict__ point_counter, int* __restrict__ host,
    const long long* __restrict__ call, int stash_per, int4* __restrict__ host_out,
    unsigned long long* __restrict__ chains, int chain_words)
{
    __shared__ int s_last;
    await_previous_kernel();
    if (call != nullptr)
        out = reinterpret_cast<int4*>(call[CS_WORD_OUT_PTR]);
    const int total = counters[CS_MAXIMA];
    const int lane = threadIdx.x & 31;
    bool wrote = false;
    for (;;) {
        int i = 0;
        if (lane == 0)
            i = atomicAdd(&counters[CS_TICKET2], 1);
        i = __shfl_sync(FULL_MASK, i, 0);
        if (i >= total)
            break;
        const int first = offsets[i];
        if (first >= max_lines)
            break;  // (offsets do not decrease: no later maximum has a segment below max_lines)
        if (counts[i] <= stash_per)
            continue;  // none, or all copied from the stash by cs_place
        cs_walk_one<true>(maxima[i], numrho, rho, theta, rows, cols, min_len, max_gap, rowbits, rw, out,
                          first, max_lines, host_out);
        wrote = true;
    }
    if (wrote) {
        if (host_out != nullptr)
            __threadfence_system();   // the pinned copy's writes before the count (host[0])
        else
            __threadfence();
    }
    __syncthreads();
    if (threadIdx.x == 0)
        s_last = atomicAdd(&counters[CS_DONE], 1) == (int)gridDim.x - 1;
    __syncthreads();
    if (!s_last)
        return;
    // cs_maxima's and cs_place's chained scans (both have finished), zeroed for the next detect.
    for (int w = threadIdx.x; w < chain_words; w += blockDim.x)
        chains[w] = 0ull;
    if (threadIdx.x != 0)
        return;
    __threadfence();
    const int all = counters[CS_TOTAL];
    const int count = max(0, min(all, max_lines));
    host[1] = all;
    for (int c = 0; c < CS_COUNTERS; c++)
        counters[c] = 0;
    *point_counter = 0;
    __threadfence_system();
    host[0] = count;
}
