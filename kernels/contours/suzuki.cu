// findContours on CV_8UC1 images (cvgpu/contours/_suzuki.py): Suzuki-Abe border following
// (cv2's contours_new.cpp) recast as connected components and ranked walks.
//
// Instead of replaying OpenCV's sequential raster scan, every border is identified by a connected
// component (Suzuki-Abe: each border separates one 8-connected foreground component from one
// 4-connected background component, and the scan meets each one exactly once):
//   * one OUTER border per foreground component C, starting at C's raster-first pixel;
//   * one HOLE border per background component B that is not the frame's, starting at the
//     foreground pixel just left of B's raster-first pixel.
// With union-find labels whose root is the smallest flat index of the component, the roots ARE
// those raster-first pixels, the discovery order is the order of the start pixels, and the parent
// of the border with root r is the border of the component holding pixel r - 1 (for an outer: the
// background around it; for a hole: the foreground around it). The walk itself only tests
// "nonzero", so every border is followed independently (the walks are ranked in parallel, below).
//
// Stages: labelling and border starts (pad_init .. border_parents); the output order of LIST and
// EXTERNAL (external_select, external_flags, flat_output; TREE and CCOMP take ranking.cu's tree
// order); the walks (border_heads .. single_points), whose states are ranked by ranking.cu /
// ranking_block.cu.
//
// All images here are the binarised input with a one-pixel zero frame (common.cuh), flat index
// int: the host refuses (cv2.error) images of more than 2^31 - 1025 padded pixels and images with
// more than 2^28 - 32 border pixels (8 walk states each, int32 slots); the audit of every index
// width is in cvgpu/contours/_suzuki.py, "Index widths".
//
// Host builds: tests/contours/kernel_host.py compiles this file as C++; the labelling test runs
// pad_init / ccl_union with an emulated __ballot_sync. The block-level kernels (ccl_finish,
// scatter_flags, external_select) compile there but are not run (barriers).

#include "common.cuh"

__device__ __forceinline__ int find_root(const int* L, int a)
{
    int p = L[a];
    while (p != a) { a = p; p = L[a]; }
    return a;
}

// find_root that points each label it passes at its grandparent (path halving). For ccl_union's
// unions only: a label that is not a root is only ever shortened to another ancestor (atomicMin
// writes roots alone), so concurrent searches see valid paths. Without it, the unions of a tall
// component, run at once, chain its rows' roots one below the other and every later search walks
// the chain (HISTORY, "findContours labelling: the frame's root and halving").
__device__ __forceinline__ int find_root_halving(int* L, int a)
{
    int p = L[a];
    while (p != a) {
        const int g = L[p];
        if (g != p) L[a] = g;
        a = p;
        p = g;
    }
    return a;
}

// Lock-free union keeping the smaller index as root (Playne & Hawick 2018).
__device__ void unite(int* L, int a, int b)
{
    bool done;
    do {
        a = find_root_halving(L, a);
        b = find_root_halving(L, b);
        if (a < b) {
            int old = atomicMin(&L[b], a);
            done = (old == b);
            b = old;
        } else if (b < a) {
            int old = atomicMin(&L[a], b);
            done = (old == a);
            a = old;
        } else {
            done = true;
        }
    } while (!done);
}

// How a host image arrives (KIND): 0 its bytes, ``pitch`` bytes a row, nonzero -> 1 here; 1 one bit
// a pixel, most significant bit first (numpy's packbits, nonzero -> 1), ``pitch`` bits a row (w
// where the rows were packed as one stream); 2 hostcall.c's bit rows (cvg_pack_bits: pixel x of a
// row is bit x & 7 of its byte x >> 3, least significant first, ``pitch`` bytes a row). Both bit
// forms send an eighth of the bytes; the C helper packs without the GIL and on several threads.
template <int KIND>
__device__ __forceinline__ u8 src_pixel(const u8* __restrict__ src, long long pitch, int h, int w, int w2, int i)
{
    const int y = i / w2, x = i - y * w2;
    if (!(y >= 1 && y <= h && x >= 1 && x <= w)) return 0;
    if (KIND == 2) return (src[(long long)(y - 1) * pitch + ((x - 1) >> 3)] >> ((x - 1) & 7)) & 1;
    const long long at = (long long)(y - 1) * pitch + (x - 1);
    if (KIND == 1) return (src[at >> 3] >> (7 - (int)(at & 7))) & 1;
    return src[at] != 0;
}

// Padding, binarisation and the initial labels in one pass. Runs of one class along a row are linked
// without atomics. Inside each aligned 32-pixel chunk a pixel points at the first pixel of its run
// in the chunk (a ballot finds it); a run's first pixel in a chunk points at the last pixel of the
// previous chunk when the run continues from there. Parents always have smaller indices, so roots
// stay the smallest index, and a root search along a run of length r takes about r / 32 hops, not r.
// The zero frame is one 4-connected background component whose smallest index is 0: its top and
// bottom rows and its left column point at 0 at once (else every row's first pixel is joined to the
// row above by ccl_union, one chain as tall as the image). The right column keeps its row link: it
// ends the row's last background run, whose pixels reach the frame through it.
template <int KIND>
__device__ __forceinline__ void pad_init_body(const u8* __restrict__ src, long long pitch, int h, int w, int n,
                                              u8* __restrict__ f, int* __restrict__ L)
{
    const int w2 = w + 2;
    const int lane = threadIdx.x & 31;
    // Unsigned: i0 + stride (up to 2^27) passes 2^31 - 1 when n > 2^31 - 2^27 (about 44,870^2).
    for (unsigned i0 = blockIdx.x * blockDim.x; i0 < (unsigned)n; i0 += gridDim.x * blockDim.x) {
        const int i = (int)(i0 + threadIdx.x);
        const bool in = i < n;
        u8 v = 0;
        bool change = false;
        if (in) {
            v = src_pixel<KIND>(src, pitch, h, w, w2, i);
            change = (i % w2 == 0) || src_pixel<KIND>(src, pitch, h, w, w2, i - 1) != v;
            f[i] = v;
        }
        const unsigned bal = __ballot_sync(0xffffffffu, change);
        if (in) {
            const unsigned upto = bal & (0xffffffffu >> (31 - lane));
            L[i] = upto ? (i - lane) + (31 - __clz(upto)) : (i - lane) - 1;
            if (i < w2 || i >= n - w2 || i % w2 == 0) L[i] = 0;   // the frame's top, bottom, left
        }
    }
}

extern "C" __global__ void pad_init(const u8* __restrict__ src, long long pitch, int h, int w, int n,
                                    u8* __restrict__ f, int* __restrict__ L)
{
    pad_init_body<0>(src, pitch, h, w, n, f, L);
}

extern "C" __global__ void pad_init_bits(const u8* __restrict__ bits, long long pitch, int h, int w, int n,
                                         u8* __restrict__ f, int* __restrict__ L)
{
    pad_init_body<1>(bits, pitch, h, w, n, f, L);
}

extern "C" __global__ void pad_init_rows(const u8* __restrict__ bits, long long pitch, int h, int w, int n,
                                         u8* __restrict__ f, int* __restrict__ L)
{
    pad_init_body<2>(bits, pitch, h, w, n, f, L);
}

// Foreground: 8-connected; background: 4-connected (Suzuki-Abe's pairing, as cv2 traces). Only
// links to already-scanned neighbours (up-left, up, up-right); the left link is in the initial
// labels.
extern "C" __global__ void ccl_union(const u8* __restrict__ f, int w2, int n, int* L)
{
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < (unsigned)n; u += gridDim.x * blockDim.x) {
        const int i = (int)u;   // unsigned loop: see pad_init
        if (i < w2) continue;
        const int x = i % w2;
        const u8 v = f[i];
        if (v) {
            if (f[i - w2]) {
                // Up-left and up-right, when foreground, are joined to up by the initial row links.
                // With left and up-left foreground as well, the left pixel's own link (or one
                // further left, where the run pair starts) already joins the two runs.
                if (!(f[i - 1] && f[i - w2 - 1])) unite(L, i, i - w2);
            } else {
                // A foreground left pixel already links up-left (its own up neighbour).
                if (x > 0 && f[i - w2 - 1] && !f[i - 1]) unite(L, i, i - w2 - 1);
                if (x + 1 < w2 && f[i - w2 + 1]) unite(L, i, i - w2 + 1);
            }
        } else {
            // Same for the background (x == 0 starts a row: its left is the previous row's). This
            // skips almost every union in empty areas, which are most of a large sparse image.
            if (!f[i - w2] && (x == 0 || f[i - 1] || f[i - w2 - 1])) unite(L, i, i - w2);
        }
    }
}

// One 1024-pixel tile per block (blockDim 1024). Compresses the labels and sets fl[i]: bit 0 where
// a border starts (p is a foreground root (outer), or p + 1 is a background root other than the
// frame's (hole; its left neighbour is foreground)), bit 1 for a border pixel (foreground with a
// zero 8-neighbour). Labels are only shortened here, so "L[j] == j" (root) reads the same before
// and after any concurrent write. Each
// block writes its (starts, border pixels) counts packed as (s << 32) | b; the last block to finish
// scans them into per-tile offsets and the two totals (one host read instead of two nonzero calls).
extern "C" __global__ void __launch_bounds__(1024) ccl_finish(const u8* __restrict__ f, int w2, int n, int* L,
        u8* __restrict__ fl, unsigned long long* blk, unsigned long long* __restrict__ offs,
        unsigned int* counter, unsigned long long* __restrict__ total)
{
    const int i = blockIdx.x * 1024 + threadIdx.x;
    u8 r = 0;
    if (i < n) {
        const int root = find_root(L, i);
        if (root != L[i]) L[i] = root;
        if (f[i]) {
            // Foreground never touches the zero frame: i + 1 and all 8 neighbours exist.
            if (root == i || (!f[i + 1] && L[i + 1] == i + 1)) r = 1;
            if (!(f[i - 1] && f[i + 1] && f[i - w2 - 1] && f[i - w2] && f[i - w2 + 1] && f[i + w2 - 1] &&
                  f[i + w2] && f[i + w2 + 1])) r |= 2;
        }
        fl[i] = r;
    }
    const int cs = __syncthreads_count(r & 1);
    const int cb = __syncthreads_count(r & 2);
    __shared__ bool last;
    if (threadIdx.x == 0) {
        blk[blockIdx.x] = ((unsigned long long)cs << 32) | (unsigned)cb;
        __threadfence();
        last = atomicAdd(counter, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    __threadfence();
    __shared__ unsigned long long wsum[32];
    __shared__ unsigned long long carry;
    if (threadIdx.x == 0) carry = 0;
    __syncthreads();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nb = gridDim.x;
    for (int base = 0; base < nb; base += 1024) {
        const int b = base + threadIdx.x;
        const unsigned long long v = b < nb ? ((volatile unsigned long long*)blk)[b] : 0ull;
        unsigned long long x = v;
        for (int o = 1; o < 32; o <<= 1) {
            const unsigned long long y = __shfl_up_sync(0xffffffffu, x, o);
            if (lane >= o) x += y;
        }
        if (lane == 31) wsum[warp] = x;
        __syncthreads();
        if (warp == 0) {
            unsigned long long z = wsum[lane];
            for (int o = 1; o < 32; o <<= 1) {
                const unsigned long long y = __shfl_up_sync(0xffffffffu, z, o);
                if (lane >= o) z += y;
            }
            wsum[lane] = z;   // inclusive over warps
        }
        __syncthreads();
        const unsigned long long excl = carry + (warp ? wsum[warp - 1] : 0ull) + x - v;
        if (b < nb) offs[b] = excl;
        __syncthreads();
        if (threadIdx.x == 0) carry += wsum[31];
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        *total = carry;
        *counter = 0u;   // ready for the next call (the workspace keeps it)
    }
}

// Ordered compaction of both flag kinds per tile (raster order = discovery order for starts), fused
// with the per-border node data (hole flag, component root -> border) and the border-pixel map.
extern "C" __global__ void __launch_bounds__(1024) scatter_flags(const u8* __restrict__ fl, int n,
        const unsigned long long* __restrict__ offs, const int* __restrict__ L, int* __restrict__ starts,
        u8* __restrict__ hole, int* __restrict__ bid, int* __restrict__ bpix, int* __restrict__ pmap)
{
    const int i = blockIdx.x * 1024 + threadIdx.x;
    const u8 r = i < n ? fl[i] : 0;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned ms = __ballot_sync(0xffffffffu, r & 1), mb = __ballot_sync(0xffffffffu, r & 2);
    __shared__ int ws[32], wb[32];
    if (lane == 0) { ws[warp] = __popc(ms); wb[warp] = __popc(mb); }
    __syncthreads();
    if (threadIdx.x == 0) {
        int a = 0, c = 0;
        for (int k = 0; k < 32; ++k) {
            const int ta = ws[k], tc = wb[k];
            ws[k] = a; wb[k] = c;
            a += ta; c += tc;
        }
    }
    __syncthreads();
    if (!r) return;
    const unsigned long long o = offs[blockIdx.x];
    const unsigned lt = (1u << lane) - 1u;
    if (r & 1) {
        const int d = (int)(o >> 32) + ws[warp] + __popc(ms & lt);
        starts[d] = i;
        const bool h = L[i] != i;
        hole[d] = h;
        bid[h ? i + 1 : i] = d;
    }
    if (r & 2) {
        const int e = (int)(o & 0xffffffffull) + wb[warp] + __popc(mb & lt);
        bpix[e] = i;
        pmap[i] = e;
    }
}

// ---------------------------------------------------------------- the captured graph's counts
//
// A host-image RETR_EXTERNAL call of a shape met before runs as one captured graph over buffers
// sized by capacities (cvgpu/contours/_graph.py): the counts the host reads between the steps of
// the launched pipeline are read by the kernels from gc instead (argument gc; nullptr: the
// arguments hold them). graph_counts fills gc from ccl_finish's totals; past a capacity it zeroes
// the counts (every later kernel then does nothing) and sets GC_OVER, and the host reruns the call
// on the launched pipeline. GC_M_SEEN / GC_E_SEEN keep the true counts for the next capacities.
#define GC_M 0
#define GC_E 1
#define GC_SLOTS 2
#define GC_OVER 3
#define GC_M_SEEN 4
#define GC_E_SEEN 5

extern "C" __global__ void graph_counts(const unsigned long long* __restrict__ total, int cap_e, int cap_m,
                                        int* __restrict__ gc)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    const unsigned long long t = *total;
    const long long m = (long long)(t >> 32), e = (long long)(t & 0xffffffffull);
    const bool over = e > cap_e || m > cap_m;
    gc[GC_M] = over ? 0 : (int)m;
    gc[GC_E] = over ? 0 : (int)e;
    gc[GC_SLOTS] = over ? 0 : (int)(8 * e);
    gc[GC_OVER] = over ? 1 : 0;
    gc[GC_M_SEEN] = (int)min(m, 0x7fffffffll);
    gc[GC_E_SEEN] = (int)min(e, 0x7fffffffll);
}

// parent[d]: border of the component around this one, -1 for the frame. mode: 1 LIST (all -1),
// 2 CCOMP (outer borders -1), 3 TREE.
extern "C" __global__ void border_parents(const int* __restrict__ starts, int m,
                                          const int* __restrict__ L, const u8* __restrict__ hole,
                                          const int* __restrict__ bid, int mode, int* __restrict__ parent,
                                          const int* __restrict__ gc)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (gc != nullptr) m = gc[GC_M];
    if (d >= m) return;
    int s = starts[d];
    bool h = hole[d];
    int root = h ? s + 1 : s;
    int pr = L[root - 1];
    int p = (pr == 0) ? -1 : bid[pr];
    if (mode == 1 || (mode == 2 && !h)) p = -1;
    parent[d] = p;
}

// RETR_EXTERNAL's selection (external_flags' rule) and flat_output's rows in one block of 1024
// threads, for up to TUNING.device_select_max borders: rows 0..k-1 as flat_output writes them, rows k..m-1
// padding (out_node -1: border_heads, border_counts and single_points give them no points, so the
// offsets over all m rows end in k + 1 real ones followed by the total), k in *k_out. The host learns
// k with the layout it downloads anyway: one host sync less than a selection read on the host.
extern "C" __global__ void __launch_bounds__(1024) external_select(int m, const u8* __restrict__ hole,
                                                                  const int* __restrict__ parent,
                                                                  int* __restrict__ out_node, int* __restrict__ hier,
                                                                  long long* __restrict__ k_out, int rows,
                                                                  const int* __restrict__ gc)
{
    if (gc != nullptr) m = gc[GC_M];
    __shared__ int warp_total[32];
    __shared__ int selected;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    int own = 0;
    for (int i = threadIdx.x; i < m; i += blockDim.x) own += hole[i] == 0 && parent[i] < 0;
    for (int d = 16; d > 0; d >>= 1) own += __shfl_down_sync(0xffffffffu, own, d);
    if (threadIdx.x == 0) selected = 0;
    __syncthreads();
    if (lane == 0) atomicAdd(&selected, own);
    __syncthreads();
    const int k = selected;
    int carry = 0;
    for (int base = 0; base < m; base += blockDim.x) {
        const int i = base + threadIdx.x;
        const bool take = i < m && hole[i] == 0 && parent[i] < 0;
        const unsigned ballot = __ballot_sync(0xffffffffu, take);
        if (lane == 0) warp_total[warp] = __popc(ballot);
        __syncthreads();
        if (warp == 0) {
            int t = lane < warps ? warp_total[lane] : 0;
            for (int d = 1; d < 32; d <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, t, d);
                if (lane >= d) t += y;
            }
            if (lane < warps) warp_total[lane] = t;
        }
        __syncthreads();
        if (take) {
            const int pos = carry + (warp ? warp_total[warp - 1] : 0) + __popc(ballot & ((1u << lane) - 1u));
            const int j = k - 1 - pos;  // reverse discovery order, as flat_output
            out_node[j] = i;
            hier[4 * j + 0] = j + 1 < k ? j + 1 : -1;
            hier[4 * j + 1] = j - 1;
            hier[4 * j + 2] = -1;
            hier[4 * j + 3] = -1;
        }
        carry += warp_total[warps - 1];
        __syncthreads();
    }
    for (int j = k + threadIdx.x; j < rows; j += blockDim.x) out_node[j] = -1;
    if (threadIdx.x == 0) *k_out = k;
}

// RETR_EXTERNAL's borders: the outer ones (not holes) whose parent is the frame (one launch where
// CuPy's comparisons and & took three).
extern "C" __global__ void external_flags(int m, const u8* __restrict__ hole, const int* __restrict__ parent,
                                          u8* __restrict__ flag)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m) flag[i] = hole[i] == 0 && parent[i] < 0;
}

// LIST / EXTERNAL: the selected borders in reverse discovery order, chained next/previous.
extern "C" __global__ void flat_output(int k, const long long* __restrict__ sel, int* __restrict__ out_node,
                                       int* __restrict__ hier)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    out_node[j] = (int)sel[k - 1 - j];
    hier[4 * j + 0] = j + 1 < k ? j + 1 : -1;
    hier[4 * j + 1] = j - 1;
    hier[4 * j + 2] = -1;
    hier[4 * j + 3] = -1;
}

// ---------------------------------------------------------------- the border walks, ranked in parallel
//
// A walk state is an arrival (p, b): the walk is at pixel p, having come from its neighbour in
// direction b. Its step is local: s = first nonzero neighbour counter-clockwise after b, and the
// next state is (p + delta[s], s ^ 4). That map is injective (the previous state is recovered by
// the clockwise search from s - 1, which stops at b), so the states form disjoint cycles and each
// border is exactly the cycle through its first state (start, direction to i1). Walks only visit
// foreground pixels with a zero 8-neighbour ("border pixels"), numbered e = 0..E-1; state slot
// = 8 e + b. Ranking every state's distance to its border's first state gives each point's place
// (rulers, see ruler_walk); a border of a million pixels costs a few dozen sequential steps and
// log2 pointer-jumping rounds over its rulers instead of a million steps.

__device__ __forceinline__ int delta_of(int k, int w2) { return c_dy[k] * w2 + c_dx[k]; }

// Per output border j: its first state (or -1 for a single-pixel border) and head_of[first state] = j.
extern "C" __global__ void border_heads(const u8* __restrict__ f, int w2, int k, const int* __restrict__ out_node,
                                        const int* __restrict__ starts, const u8* __restrict__ hole,
                                        const int* __restrict__ pmap, int* __restrict__ head_slot,
                                        int* __restrict__ head_of)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int v = out_node[j];
    if (v < 0) {  // a padding row of external_select: no border, no points (border_counts, single_points)
        head_slot[j] = -2;
        return;
    }
    int start = starts[v];
    int from_dir = hole[v] ? 0 : 4;
    int s = from_dir;
    bool found = false;
    for (int t = 0; t < 7; ++t) {
        s = (s - 1) & 7;
        if (f[start + delta_of(s, w2)]) { found = true; break; }
    }
    if (!found) {
        head_slot[j] = -1;
        return;
    }
    int slot = pmap[start] * 8 + s;
    head_slot[j] = slot;
    head_of[slot] = j;
}

// st[t] = (next, dist). next >= 0: the next state; -1: not a state, or the chain left the border
// pixels (no real border does); -2 - j: the next state is border j's first state. dist = weight
// (1, or for SIMPLE 1 where the direction changes). One 8-byte record, so a jumping round costs
// one random gather per state instead of three. sdir = outgoing direction (255: not a state).
extern "C" __global__ void state_init(const u8* __restrict__ f, int w2, int slots, const int* __restrict__ bpix,
                                      const u8* __restrict__ fl, const int* __restrict__ pmap,
                                      const int* __restrict__ head_of, int simple, int2* __restrict__ st,
                                      u8* __restrict__ sdir, int* __restrict__ rid, const int* __restrict__ gc)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (gc != nullptr) slots = gc[GC_SLOTS];
    if (t >= slots) return;
    if (rid) rid[t] = -1;
    int e = t >> 3, b = t & 7;
    int p = bpix[e];
    // Dropped: no arrival (the neighbour at b is zero), or the first neighbour counter-clockwise
    // after the arrival is foreground (C fails). No border passes such a state. C holds at every
    // border's first state (its clockwise search from the zero left / right neighbour met only
    // zeros). If a state with C is followed by one without, it made an axial move after exactly one
    // zero, and the two states before it lack C (case analysis of the 8-neighbourhood, up to
    // rotation); so on a cycle with any state lacking C, every state with C is such a state, and a
    // border's first state is not one (after exactly one zero its move is diagonal). The dropped
    // arrivals (walks through the inside of thick strokes; on random images more of them than
    // border states) lie on cycles no border owns or on chains leaving the border pixels, which
    // every ranking round would otherwise visit.
    if (!f[p + delta_of(b, w2)] || f[p + delta_of((b + 1) & 7, w2)]) {
        st[t] = make_int2(-1, 0);
        sdir[t] = 255;
        return;
    }
    int k = b, q;
    do {
        ++k;
        q = p + delta_of(k & 7, w2);
    } while (!f[q]);
    int s = k & 7;
    sdir[t] = (u8)s;
    int nx = -1;
    // The next state must be one kept above (C at q: its neighbour after the arrival from p is
    // zero); a dropped one would end this chain anyway, but its slot may be a block ruler position
    // whose ruler is not live, and ruler_walk would then join this chain to another ruler's.
    if ((fl[q] & 2) && !f[q + delta_of((s + 5) & 7, w2)]) {
        int u = pmap[q] * 8 + ((s + 4) & 7);
        int h = head_of[u];
        nx = h >= 0 ? -2 - h : u;
    }
    st[t] = make_int2(nx, (!simple || s != (b ^ 4)) ? 1 : 0);
}

// Ranking the states in O(states) work instead of pointer jumping over all of them (log2(states)
// full passes over every slot; below TUNING.ruler_min_slots slots the host still jumps over every
// slot, which is faster there). Rulers: every border's first state, and in each aligned block of
// RULER_SPAN slots the one slot at a hashed offset, if it is a state. A hashed offset, not a fixed
// one, because the slot index encodes the arrival direction, and a fixed one would miss every
// state of a long straight run. Each ruler walks its sublist (up to the next ruler) sequentially,
// recording for each state its ruler and the weight before it; the rulers are then ranked by
// pointer jumping (ranking.cu's rank_jump_n, or ranking_block.cu), and a state's suffix weight is
// its ruler's minus the weight before it. About one slot in 8 is a state, so one in RULER_SPAN / 8
// block rulers is live; ruler ids are compacted (heads 0..k-1, then the live block rulers in block
// order: k + rank[b] - 1, rank = inclusive prefix count) so the jumping rounds touch live rulers
// only. RULER_SPAN 16 (_suzuki.RULER_SPAN on the host): the longest sublist (about
// 16 ln(states / 16) steps of dependent loads) and the jumping rounds then cost about the same;
// chosen on the "contours" rows at 4928x4112.
#define RULER_SPAN 16

__device__ __forceinline__ int ruler_offset(int b)
{
    unsigned x = (unsigned)b * 0x9E3779B1u;
    x ^= x >> 15;
    return (int)(x & (RULER_SPAN - 1));
}

__device__ __forceinline__ bool is_block_ruler(int t)
{
    return (t & (RULER_SPAN - 1)) == ruler_offset(t / RULER_SPAN);
}

__device__ __forceinline__ bool live_block_ruler(int b, int slots, const u8* __restrict__ sdir,
                                                 const int* __restrict__ head_of)
{
    const int t = b * RULER_SPAN + ruler_offset(b);
    return t < slots && sdir[t] != 255 && head_of[t] < 0;
}

extern "C" __global__ void ruler_flags(int slots, int nblk, const u8* __restrict__ sdir,
                                       const int* __restrict__ head_of, int* __restrict__ flag)
{
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblk) return;
    flag[b] = live_block_ruler(b, slots, sdir, head_of) ? 1 : 0;
}

// One thread per ruler. rj[id] = (next ruler id, or -2 - j at the end of border j's chain, or -1 for
// none; weight of the sublist). A sublist of a cycle no border owns (RETR_EXTERNAL's holes) ends at
// the next block ruler, possibly itself: such rulers never reach an end and nothing of them is emitted.
extern "C" __global__ void ruler_walk(int slots, int nblk, int k, const int2* __restrict__ st,
                                      const u8* __restrict__ sdir, const int* __restrict__ head_of,
                                      const int* __restrict__ head_slot, const int* __restrict__ rank,
                                      int* __restrict__ rid, int* __restrict__ rloc, int2* __restrict__ rj)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= nblk + k) return;
    int t, id;
    if (r < k) {
        t = head_slot[r];
        id = r;
        if (t < 0) {
            rj[id] = make_int2(-1, 0);
            return;
        }
    } else {
        const int b = r - k;
        if (!live_block_ruler(b, slots, sdir, head_of)) return;
        t = b * RULER_SPAN + ruler_offset(b);
        id = k + rank[b] - 1;
    }
    int acc = 0;
    for (;;) {
        const int2 a = st[t];
        rid[t] = id;
        rloc[t] = acc;
        acc += a.y;
        if (a.x < 0) {
            rj[id] = make_int2(a.x, acc);
            return;
        }
        if (is_block_ruler(a.x)) {
            rj[id] = make_int2(k + rank[a.x / RULER_SPAN] - 1, acc);
            return;
        }
        t = a.x;
    }
}

// direct: the states themselves were ranked (rj = the jumped st, indexed by slot; rid, rloc unused),
// else rj holds the rulers (border j's first state is ruler j).
extern "C" __global__ void border_counts(int k, int direct, const int* __restrict__ head_slot,
                                         const int2* __restrict__ rj, int* __restrict__ counts)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int h = head_slot[j];
    counts[j] = h == -2 ? 0 : h < 0 ? 1 : rj[direct ? h : j].y;
}

// Points of border j go to dst[j] .. dst[j] + counts[j] (dst: the output offsets, or any other
// layout of whole contours).
extern "C" __global__ void state_emit(int w2, int slots, const int* __restrict__ bpix, int direct,
                                      const int* __restrict__ rid, const int* __restrict__ rloc,
                                      const int2* __restrict__ rj, const u8* __restrict__ sdir, int simple,
                                      const int* __restrict__ counts, const long long* __restrict__ dst, int ox,
                                      int oy, int* __restrict__ points, const int* __restrict__ gc)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (gc != nullptr) slots = gc[GC_SLOTS];
    if (t >= slots) return;
    const int r = direct ? t : rid[t];
    if (r < 0) return;
    const int2 a = rj[r];
    if (a.x > -2) return;
    const int j = -2 - a.x;
    int s = sdir[t];
    if (simple && s == ((t & 7) ^ 4)) return;
    long long pos = dst[j] + (counts[j] - (direct ? a.y : a.y - rloc[t]));
    int p = bpix[t >> 3];
    int y = p / w2, x = p - y * w2;
    points[2 * pos] = x - 1 + ox;
    points[2 * pos + 1] = y - 1 + oy;
}

extern "C" __global__ void single_points(int w2, int k, const int* __restrict__ out_node,
                                         const int* __restrict__ starts, const int* __restrict__ head_slot,
                                         const long long* __restrict__ dst, int ox, int oy,
                                         int* __restrict__ points)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k || head_slot[j] != -1) return;  // a traced border (>= 0) or a padding row (-2)
    int p = starts[out_node[j]];
    int y = p / w2, x = p - y * w2;
    long long pos = dst[j];
    points[2 * pos] = x - 1 + ox;
    points[2 * pos + 1] = y - 1 + oy;
}
