// findContours on the GPU (cvgpu/contours.py).
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
// All images here are the binarised input with a one-pixel zero frame, row length w2, flat index
// int: the host refuses (cv2.error) images of more than 2^31 - 1025 padded pixels and images with
// more than 2^28 - 32 border pixels (8 walk states each, int32 slots); the audit of every index
// width is in cvgpu/contours.py, section "huge images".

typedef unsigned char u8;

__device__ __forceinline__ int find_root(const int* L, int a)
{
    int p = L[a];
    while (p != a) { a = p; p = L[a]; }
    return a;
}

// Lock-free union keeping the smaller index as root (Playne & Hawick 2018).
__device__ void unite(int* L, int a, int b)
{
    bool done;
    do {
        a = find_root(L, a);
        b = find_root(L, b);
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

// BITS: the host image arrives as one bit a pixel, most significant bit first (numpy's packbits,
// nonzero -> 1), ``pitch`` bits a row (w where the rows were packed as one stream): an eighth of
// the bytes to upload. Otherwise ``pitch`` bytes a row, nonzero -> 1 here.
template <bool BITS>
__device__ __forceinline__ u8 src_pixel(const u8* __restrict__ src, long long pitch, int h, int w, int w2, int i)
{
    const int y = i / w2, x = i - y * w2;
    if (!(y >= 1 && y <= h && x >= 1 && x <= w)) return 0;
    const long long at = (long long)(y - 1) * pitch + (x - 1);
    if (BITS) return (src[at >> 3] >> (7 - (int)(at & 7))) & 1;
    return src[at] != 0;
}

// Padding, binarisation and the initial labels in one pass. Runs of one class along a row are linked
// without atomics. Inside each aligned 32-pixel chunk a pixel points at the first pixel of its run
// in the chunk (a ballot finds it); a run's first pixel in a chunk points at the last pixel of the
// previous chunk when the run continues from there. Parents always have smaller indices, so roots
// stay the smallest index, and a root search along a run of length r takes about r / 32 hops, not r.
template <bool BITS>
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
            v = src_pixel<BITS>(src, pitch, h, w, w2, i);
            change = (i % w2 == 0) || src_pixel<BITS>(src, pitch, h, w, w2, i - 1) != v;
            f[i] = v;
        }
        const unsigned bal = __ballot_sync(0xffffffffu, change);
        if (in) {
            const unsigned upto = bal & (0xffffffffu >> (31 - lane));
            L[i] = upto ? (i - lane) + (31 - __clz(upto)) : (i - lane) - 1;
        }
    }
}

extern "C" __global__ void pad_init(const u8* __restrict__ src, long long pitch, int h, int w, int n,
                                    u8* __restrict__ f, int* __restrict__ L)
{
    pad_init_body<false>(src, pitch, h, w, n, f, L);
}

extern "C" __global__ void pad_init_bits(const u8* __restrict__ bits, long long pitch, int h, int w, int n,
                                         u8* __restrict__ f, int* __restrict__ L)
{
    pad_init_body<true>(bits, pitch, h, w, n, f, L);
}

// Foreground: 8-connected; background: 4-connected. Only links to already-scanned neighbours
// (up-left, up, up-right); the left link is in the initial labels.
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
            // skips almost every union in empty areas (20000^2 sparse: 49 ms of 60 before).
            if (!f[i - w2] && (x == 0 || f[i - 1] || f[i - w2 - 1])) unite(L, i, i - w2);
        }
    }
}

// One 1024-pixel tile per block (blockDim 1024). Compresses the labels and sets fl[i]: bit 0 where
// a border starts (p is a foreground root (outer), or p + 1 is a background root other
// than the frame's (hole; its left neighbour is foreground)), bit 1 for a border pixel (foreground with a
// zero 8-neighbour). Labels are only
// shortened here, so "L[j] == j" (root) reads the same before and after any concurrent write. Each
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

// parent[d]: border of the component around this one, -1 for the frame. mode: 1 LIST (all -1),
// 2 CCOMP (outer borders -1), 3 TREE.
extern "C" __global__ void border_parents(const int* __restrict__ starts, int m,
                                          const int* __restrict__ L, const u8* __restrict__ hole,
                                          const int* __restrict__ bid, int mode, int* __restrict__ parent)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    int s = starts[d];
    bool h = hole[d];
    int root = h ? s + 1 : s;
    int pr = L[root - 1];
    int p = (pr == 0) ? -1 : bid[pr];
    if (mode == 1 || (mode == 2 && !h)) p = -1;
    parent[d] = p;
}

// A barrier over the whole grid, for a cooperative launch (every block resident). bar[0] counts the
// arrived blocks and is back at 0 after each barrier; bar[1] is the generation, bumped by the last
// block to arrive, which releases the others. The fences order each block's writes before its
// arrival and everyone's after the release, at GPU scope.
__device__ __forceinline__ void grid_barrier(unsigned int* bar)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        volatile unsigned int* gen = bar + 1;
        const unsigned int seen = *gen;
        __threadfence();
        if (atomicAdd(&bar[0], 1u) == gridDim.x - 1) {
            atomicExch(&bar[0], 0u);
            __threadfence();
            atomicAdd(&bar[1], 1u);
        } else {
            while (*gen == seen) {
            }
        }
        __threadfence();
    }
    __syncthreads();
}

// Records for list ranking as one 64-bit word: successor in the low half (negative: an end),
// suffix weight in the high half (int2's layout). Read and written whole, relaxed at GPU scope
// (single-copy atomic), because rank_jump_inplace updates them while other threads read them.
__device__ __forceinline__ unsigned long long rec_load(const unsigned long long* p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void rec_store(unsigned long long* p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ int rec_next(unsigned long long v) { return (int)(unsigned)v; }

// One jump: v's successor becomes w's, and w's weight is added to v's.
__device__ __forceinline__ unsigned long long rec_jump(unsigned long long v, unsigned long long w)
{
    return (w & 0xffffffffull) | ((unsigned long long)((unsigned)(v >> 32) + (unsigned)(w >> 32)) << 32);
}

// Words (32 records each) one warp jumps at once, their loads in flight together: one after another
// each cost three dependent L2 trips. Measured on the H100 (compat_matrix/raw/contours-rank-jump-ab.txt):
// the 1.45M-record lists at 1232x1028 115-143 -> 101-133 us; 4 at one block of 1024 a SM (48
// registers) as fast as 2 at two blocks a SM capped to one a SM, and both faster than two a SM.
#ifndef JUMP_BATCH
#define JUMP_BATCH 4
#endif

// Pointer jumping in place, in rounds, in one cooperative launch (a launch a round cost ~10 us of
// host time each, which bounded small images). Each warp owns the words (32 consecutive records
// each) first, first + warps, ... of the first n records (or k + *live) and keeps a bit mask of
// their unfinished records (successor >= 0) in open[]: round 0 jumps every record, later rounds
// only the masked ones. A warp reads the masks of up to 32 of its words at once (a lane each) and
// jumps the words with any open record JUMP_BATCH at a time, every load of a batch issued before
// the first is used: a round is then a few L2 round trips, not three for each word in turn. In
// place: a record read in round r is its owner's value from before or after that owner's update
// in the same round, and both are true (successor, weight up to it) pairs, so every record that
// reaches an end holds what synchronous rounds (rank_jump) give it, in at most as many rounds.
// The rounds stop when none is left unfinished or a round finished none: each round finishes the
// unfinished record nearest the end of every chain (its successor is nearer, so finished), so a
// round that finishes none leaves only cycles without an end (RETR_EXTERNAL's holes), whose
// records nothing reads. cnt[0..max_rounds) (unfinished counts per round) is zero on entry and
// left zero; open holds ceil(n / 32) words.
// (It sits before the tree kernels, out of the host builds of tests/test_*_kernel_host.py, whose
// threads run one after another and could not pass a grid barrier.)
extern "C" __global__ void rank_jump_inplace(int n, int k, const int* __restrict__ live, int max_rounds,
                                             unsigned long long* rec, unsigned int* open,
                                             unsigned int* cnt, unsigned int* bar)
{
    const int count = live != nullptr ? k + *live : n;
    const int words = (count + 31) >> 5;
    const int lane = threadIdx.x & 31;
    const int warps = (gridDim.x * blockDim.x) >> 5;
    const int first = (blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    __shared__ unsigned int block_open;
    unsigned int prev = 0xffffffffu;
    for (int r = 0; r < max_rounds; r++) {
        if (threadIdx.x == 0) block_open = 0u;
        __syncthreads();
        unsigned int warp_open = 0u;
        for (int base = first; base < words; base += 32 * warps) {
            const int lane_word = base + lane * warps;
            // Round 0 reads no mask: open[] holds nothing yet, and every word is written.
            const unsigned int lane_mask =
                lane_word >= words ? 0u : r == 0 ? 0xffffffffu : __ldcg(&open[lane_word]);
            unsigned int pending = __ballot_sync(0xffffffffu, lane_mask != 0u);
            while (pending) {
                int wd[JUMP_BATCH];
                unsigned long long v[JUMP_BATCH];
                bool act[JUMP_BATCH];
#pragma unroll
                for (int b = 0; b < JUMP_BATCH; b++) {
                    wd[b] = -1;
                    act[b] = false;
                    if (pending) {
                        const int src = __ffs(pending) - 1;
                        pending &= pending - 1u;
                        wd[b] = base + src * warps;
                        const unsigned int mask = __shfl_sync(0xffffffffu, lane_mask, src);
                        const int t = (wd[b] << 5) + lane;
                        act[b] = ((mask >> lane) & 1u) && t < count;
                    }
                    if (act[b]) v[b] = rec_load(rec + (wd[b] << 5) + lane);
                }
                unsigned long long w[JUMP_BATCH];
#pragma unroll
                for (int b = 0; b < JUMP_BATCH; b++) {
                    act[b] = act[b] && rec_next(v[b]) >= 0;
                    if (act[b]) w[b] = rec_load(rec + rec_next(v[b]));
                }
#pragma unroll
                for (int b = 0; b < JUMP_BATCH; b++) {
                    bool still = false;
                    if (act[b]) {
                        v[b] = rec_jump(v[b], w[b]);
                        rec_store(rec + (wd[b] << 5) + lane, v[b]);
                        still = rec_next(v[b]) >= 0;
                    }
                    const unsigned int left = __ballot_sync(0xffffffffu, still);
                    if (lane == 0 && wd[b] >= 0) open[wd[b]] = left;
                    warp_open += __popc(left);
                }
            }
        }
        if (lane == 0 && warp_open) atomicAdd(&block_open, warp_open);
        __syncthreads();
        if (threadIdx.x == 0 && block_open) atomicAdd(&cnt[r], block_open);
        if (r + 1 == max_rounds)
            break;
        grid_barrier(bar);
        const unsigned int left = ((volatile unsigned int*)cnt)[r];
        if (left == 0u || left >= prev)
            break;
        prev = left;
    }
    // Every block has read the counts it needs once all have passed this barrier.
    grid_barrier(bar);
    if (blockIdx.x == 0)
        for (int i = threadIdx.x; i < max_rounds; i += blockDim.x)
            cnt[i] = 0u;
}

// rank_jump_inplace's rounds for a list that fits in shared memory (n records, 8 n bytes of
// dynamic shared memory), in one block: a round there costs a block barrier, not a grid barrier
// and its fences (~3.5 us a round, measured on the H100, for lists of a few thousand records such
// as the tree's Euler tour). The same in-place rounds and the same stop rule, so every record that
// reaches an end holds what rank_jump_inplace gives it. live: as there (count = k + *live).
extern "C" __global__ void __launch_bounds__(1024) rank_jump_shared(int n, int k, const int* __restrict__ live,
                                                                   int max_rounds, unsigned long long* rec)
{
    extern __shared__ unsigned long long jump_shared[];
    volatile unsigned long long* sr = jump_shared;
    // One counter per round, three in turn: the one a round clears was last read two rounds before.
    __shared__ int round_left[3];
    const int count = live != nullptr ? k + *live : n;
    for (int i = threadIdx.x; i < count; i += blockDim.x) sr[i] = rec[i];
    if (threadIdx.x == 0) round_left[0] = 0;
    __syncthreads();
    int prev = 0x7fffffff;
    for (int r = 0; r < max_rounds; r++) {
        int open = 0;
        for (int i = threadIdx.x; i < count; i += blockDim.x) {
            unsigned long long v = sr[i];
            if (rec_next(v) >= 0) {
                v = rec_jump(v, sr[rec_next(v)]);
                sr[i] = v;
                open += rec_next(v) >= 0;
            }
        }
        open = __reduce_add_sync(0xffffffffu, open);
        if ((threadIdx.x & 31) == 0 && open) atomicAdd(&round_left[r % 3], open);
        if (threadIdx.x == 0) round_left[(r + 1) % 3] = 0;
        __syncthreads();
        const int left = round_left[r % 3];
        if (left == 0 || left >= prev)
            break;
        prev = left;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < count; i += blockDim.x) rec[i] = sr[i];
}

// ---- Block-level kernels (shared memory and barriers). They sit before the sections that the
// host builds (tests/*_kernel_host.py) compile, which run a kernel's threads one after another;
// those tests take the paths these kernels shorten (CuPy's argsort and cumsum).

// The order of tree_sort_keys (below) for m <= 16384 nodes (_TREE_SORT_SMALL in cvgpu/contours.py)
// in one block: a bitonic sort in shared memory of (key << 14) | j, keys <= m, unique, so stability
// is not needed. It stands in for CuPy's argsort, which is Thrust's and waits for the stream before
// it returns: a host sync and several allocations on the small images' path.
extern "C" __global__ void __launch_bounds__(1024) tree_sort_small(int m, const int* __restrict__ parent,
                                                                  long long* __restrict__ sorted)
{
    extern __shared__ unsigned sort_keys[];
    int size = 2;
    while (size < m) size <<= 1;
    for (int j = threadIdx.x; j < size; j += blockDim.x)
        if (j < m) {
            const int p = parent[m - 1 - j];   // tree_sort_key
            sort_keys[j] = ((unsigned)(p < 0 ? m : p) << 14) | (unsigned)j;
        } else {
            sort_keys[j] = 0xffffffffu;
        }
    __syncthreads();
    for (int span = 2; span <= size; span <<= 1) {
        for (int half = span >> 1; half > 0; half >>= 1) {
            for (int t = threadIdx.x; t < (size >> 1); t += blockDim.x) {
                const int lo = 2 * t - (t & (half - 1)), hi = lo + half;
                const bool up = (lo & span) == 0;
                const unsigned a = sort_keys[lo], b = sort_keys[hi];
                if ((a > b) == up) { sort_keys[lo] = b; sort_keys[hi] = a; }
            }
            __syncthreads();
        }
    }
    for (int j = threadIdx.x; j < m; j += blockDim.x)
        sorted[j] = (long long)(sort_keys[j] & 0x3fffu);
}

// offsets[0] = 0, offsets[j + 1] = counts[0] + ... + counts[j], in one block of 1024 threads (4
// counts each per pass): one launch where a library scan costs several launches' host time (the
// host uses cp.cumsum from OFFSETS_SCAN_MAX contours on).
extern "C" __global__ void __launch_bounds__(1024) offsets_scan(int k, const int* __restrict__ counts,
                                                               long long* __restrict__ offsets)
{
    __shared__ long long warp_total[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    if (threadIdx.x == 0) offsets[0] = 0;
    long long carry = 0;
    for (int base = 0; base < k; base += 4 * (int)blockDim.x) {
        const int i0 = base + 4 * (int)threadIdx.x;
        long long v[4], own = 0;
        for (int q = 0; q < 4; ++q) { v[q] = i0 + q < k ? counts[i0 + q] : 0; own += v[q]; }
        long long incl = own;
        for (int d = 1; d < 32; d <<= 1) {
            const long long y = __shfl_up_sync(0xffffffffu, incl, d);
            if (lane >= d) incl += y;
        }
        if (lane == 31) warp_total[warp] = incl;
        __syncthreads();
        if (warp == 0) {
            long long t = lane < warps ? warp_total[lane] : 0;
            for (int d = 1; d < 32; d <<= 1) {
                const long long y = __shfl_up_sync(0xffffffffu, t, d);
                if (lane >= d) t += y;
            }
            if (lane < warps) warp_total[lane] = t;
        }
        __syncthreads();
        long long run = carry + (warp ? warp_total[warp - 1] : 0) + incl - own;
        for (int q = 0; q < 4; ++q) {
            run += v[q];
            if (i0 + q < k) offsets[i0 + q + 1] = run;
        }
        carry += warp_total[warps - 1];
        __syncthreads();
    }
}

// RETR_EXTERNAL's selection (external_flags' rule) and flat_output's rows in one block of 1024
// threads, for up to _DEVICE_SELECT_MAX borders: rows 0..k-1 as flat_output writes them, rows k..m-1
// padding (out_node -1: border_heads, border_counts and single_points give them no points, so the
// offsets over all m rows end in k + 1 real ones followed by the total), k in *k_out. The host learns
// k with the layout it downloads anyway: one host sync less than a selection read on the host.
extern "C" __global__ void __launch_bounds__(1024) external_select(int m, const u8* __restrict__ hole,
                                                                  const int* __restrict__ parent,
                                                                  int* __restrict__ out_node, int* __restrict__ hier,
                                                                  long long* __restrict__ k_out)
{
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
    for (int j = k + threadIdx.x; j < m; j += blockDim.x) out_node[j] = -1;
    if (threadIdx.x == 0) *k_out = k;
}

// Sibling links from the nodes sorted by (parent, descending discovery). Node m is the frame.
extern "C" __global__ void sibling_links(const long long* __restrict__ sorted, int m,
                                         const int* __restrict__ parent, int* __restrict__ first_child,
                                         int* __restrict__ next_sib, int* __restrict__ prev_sib)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    // sorted[j] indexes the keys, whose j-th entry is node m - 1 - j (see tree_sort_keys).
    int v = m - 1 - (int)sorted[j];
    int pv = parent[v] < 0 ? m : parent[v];
    int pprev = -2, pnext = -2, uprev = -1, unext = -1;
    if (j > 0) { uprev = m - 1 - (int)sorted[j - 1]; pprev = parent[uprev] < 0 ? m : parent[uprev]; }
    if (j + 1 < m) { unext = m - 1 - (int)sorted[j + 1]; pnext = parent[unext] < 0 ? m : parent[unext]; }
    if (pprev != pv) first_child[pv] = v;
    next_sib[v] = (pnext == pv) ? unext : -1;
    prev_sib[v] = (pprev == pv) ? uprev : -1;
}

// Sort keys of the tree order, (parent, then discovery descending): key[j] is the parent of node
// m - 1 - j (the frame's children under m), and a stable sort (CuPy's argsort) keeps equal parents
// in j order, i.e. discovery descending. 16 bits where m < 65536: the radix sort makes 2 passes
// instead of the 8 that one int64 key (parent * (m + 1) + m - 1 - i) took.
__device__ __forceinline__ int tree_sort_key(int m, const int* __restrict__ parent, int j)
{
    const int p = parent[m - 1 - j];
    return p < 0 ? m : p;
}

extern "C" __global__ void tree_sort_keys16(int m, const int* __restrict__ parent, unsigned short* __restrict__ key)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) key[j] = (unsigned short)tree_sort_key(m, parent, j);
}

extern "C" __global__ void tree_sort_keys32(int m, const int* __restrict__ parent, unsigned* __restrict__ key)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) key[j] = (unsigned)tree_sort_key(m, parent, j);
}

// Euler tour of the border tree (enter v = v, exit v = v + m + 1) with weight 1 on entering a
// border: suffix sums by pointer jumping give each border's pre-order index.
extern "C" __global__ void euler_init(int m, const int* __restrict__ parent, const int* __restrict__ first_child,
                                      const int* __restrict__ next_sib, int2* __restrict__ et)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int nn = m + 1;
    if (e >= 2 * nn) return;
    if (e < nn) {
        int v = e;
        int fc = first_child[v];
        et[e] = make_int2(fc >= 0 ? fc : v + nn, v < m ? 1 : 0);
    } else {
        int v = e - nn;
        int s;
        if (v == m) s = -1;
        else if (next_sib[v] >= 0) s = next_sib[v];
        else s = (parent[v] < 0 ? m : parent[v]) + nn;
        et[e] = make_int2(s, 0);
    }
}

// One round of list ranking by pointer jumping, for the Euler tour and the walk states alike:
// (successor, suffix sum) in one 8-byte record, one random gather per element and round.
__device__ __forceinline__ void jump_step(int i, const int2* __restrict__ src, int2* __restrict__ dst)
{
    int2 a = src[i];
    if (a.x >= 0) {
        const int2 b = src[a.x];
        a.x = b.x;
        a.y += b.y;
    }
    dst[i] = a;
}

extern "C" __global__ void rank_jump(int n, const int2* __restrict__ src, int2* __restrict__ dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) jump_step(i, src, dst);
}

// Output order and hierarchy for TREE/CCOMP: pos(v) = m - (borders entered from v on).
extern "C" __global__ void tree_output(int m, const int2* __restrict__ et, const int* __restrict__ parent,
                                       const int* __restrict__ first_child, const int* __restrict__ next_sib,
                                       const int* __restrict__ prev_sib, int* __restrict__ out_node,
                                       int* __restrict__ hier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m) return;
    int pos = m - et[v].y;
    out_node[pos] = v;
    int nx = next_sib[v], pv = prev_sib[v], fc = first_child[v], pa = parent[v];
    hier[4 * pos + 0] = nx >= 0 ? m - et[nx].y : -1;
    hier[4 * pos + 1] = pv >= 0 ? m - et[pv].y : -1;
    hier[4 * pos + 2] = fc >= 0 ? m - et[fc].y : -1;
    hier[4 * pos + 3] = pa >= 0 ? m - et[pa].y : -1;
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

// ---------------------------------------------------------------- parallel walk (list ranking)
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

__constant__ int c_dx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_dy[8] = {0, -1, -1, -1, 0, 1, 1, 1};

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
                                      u8* __restrict__ sdir, int* __restrict__ rid)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
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
    // arrivals (walks through the inside of thick strokes; on 1,200 random images 1.8 per border
    // state, 85% of them dropped by C) lie on cycles no border owns or on chains leaving the
    // border pixels, which every ranking round would otherwise visit.
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

// Ranking the states in O(states) work instead of pointer jumping over all of them (which cost
// log2(states) full passes: 5 of the 6 ms of a 4928x4112 image; below _RULER_MIN_SLOTS slots,
// cvgpu/contours.py still jumps over every slot, which was faster there). Rulers: every border's first state,
// and in each aligned block of RULER_SPAN slots the one slot at a hashed offset, if it is a state. A
// hashed offset, not a fixed one, because the slot index encodes the arrival direction, and a fixed
// one would miss every state of a long straight run. Each ruler walks its sublist (up to the next
// ruler) sequentially, recording for each state its ruler and the weight before it; the rulers are
// then ranked by pointer jumping (rank_jump_n), and a state's suffix weight is its ruler's minus the
// weight before it. About one slot in 8 is a state, so one in RULER_SPAN / 8 block rulers is live;
// ruler ids are compacted (heads 0..k-1, then the live block rulers in block order: k + rank[b] - 1,
// rank = inclusive prefix count) so the jumping rounds touch live rulers only. RULER_SPAN 16: the
// longest sublist (about 16 ln(states / 16) steps of dependent loads) and the jumping rounds cost
// about the same (measured on the H100 at 4928x4112).
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

// rank_jump over the k + (live block rulers) entries; that count is only on the device.
extern "C" __global__ void rank_jump_n(int k, const int* __restrict__ live, const int2* __restrict__ src,
                                       int2* __restrict__ dst)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < k + *live) jump_step(i, src, dst);
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
                                      int oy, int* __restrict__ points)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
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

// ---------------------------------------------------------------- Teh-Chin (CHAIN_APPROX_TC89_*)
//
// Applied to the CHAIN_APPROX_NONE result (points/offsets as state_emit lays them out): cv2 runs
// the same border trace and approximates each border's Freeman chain, whose i-th point is the
// i-th NONE point. Step by step the kernels follow tests/tc89_model.py (the CPU-verified model):
//   tc89_point  passes 0 and 1, one thread per point (independent): curvature, region of support,
//               k-cosine;
//   passes 2..4 cv2 updates in place, in order; each is recast as steps that decide every point from
//               the previous step's arrays (model: approx_tc89_parallel), one thread per point:
//               tc89_nms_init / tc89_nms_round / tc89_nms_finish / tc89_apply (pass 2), tc89_pass3 /
//               tc89_apply3 (pass 3), tc89_seam (one thread per contour, O(1)) / tc89_runflag /
//               tc89_runends / tc89_cleanup (pass 4, TC89_L1);
//   tc89_keep / tc89_offsets / tc89_emit  the surviving points, compacted by a cumsum over all slots.
// Scratch slot of point i of contour j: offsets[j] + j + i, so every contour has one spare slot
// (pass 4 may append a copy of point 0).

__device__ __forceinline__ int i32_mul(int a, int b) { return (int)((unsigned)a * (unsigned)b); }
__device__ __forceinline__ int i32_add(int a, int b) { return (int)((unsigned)a + (unsigned)b); }
__device__ __forceinline__ int i32_sub(int a, int b) { return (int)((unsigned)a - (unsigned)b); }

// (dx, dy) of an 8-neighbour step -> Freeman code (0 right, 1 up-right, 2 up, ... y down), indexed
// by (dy + 1) * 3 + (dx + 1).
__constant__ int c_step_code[9] = {3, 2, 1, 4, -1, 0, 5, 6, 7};

__device__ __forceinline__ int step_code(int dx, int dy) { return c_step_code[(dy + 1) * 3 + (dx + 1)]; }

__device__ __forceinline__ int wrap_back(int i, int k, int n) { return i >= k ? i - k : n - k + i; }
__device__ __forceinline__ int wrap_fwd(int i, int k, int n) { return i + k < n ? i + k : i + k - n; }

// Region of support (model: support). cv2 rounds d_prev * lk - dk * l_prev (each product in double)
// to float and reads the sign of its bit pattern. Every operand is an integer, so the double is 0
// or at least 1 in magnitude and below 2^63: the float has the double's sign bit and is zero
// exactly when it is, so the test is done on the double (explicit _rn ops: never contracted).
__device__ int tc89_support(const int2* __restrict__ p, int n, int i)
{
    int d_prev = 0, l_prev = 0;
    int k = 1;
    const int2 pi = p[i];
    for (; k <= n; ++k) {
        const int2 a = p[wrap_back(i, k, n)], b = p[wrap_fwd(i, k, n)];
        const int dx = i32_sub(b.x, a.x), dy = i32_sub(b.y, a.y);
        const int lk = i32_add(i32_mul(dx, dx), i32_mul(dy, dy));
        const int dk = i32_sub(i32_mul(i32_sub(pi.x, a.x), dy), i32_mul(i32_sub(pi.y, a.y), dx));
        const double v = __dsub_rn(__dmul_rn((double)d_prev, (double)lk), __dmul_rn((double)dk, (double)l_prev));
        const bool neg = signbit(v);
        if (k > 1) {
            if (l_prev >= lk) break;
            if (d_prev > 0 && (neg || v == 0.0)) break;
            if (d_prev < 0 && !neg) break;
        }
        d_prev = dk;
        l_prev = lk;
    }
    // k > n never happens on a closed chain (at k = n/2 the chord is a point); the bound only
    // keeps a corrupt input from looping. cv2 would raise there.
    return k - 1;
}

// k-cosine value (model: kcos): the bits of float(float(cos) + 1.1), cos in double as cv2.
__device__ int tc89_kcos(const int2* __restrict__ p, int n, int i, int k)
{
    const int2 pi = p[i];
    int s = 0;
    for (int j = k; j > 0; --j) {
        const int2 a = p[wrap_back(i, j, n)], b = p[wrap_fwd(i, j, n)];
        const int dx1 = i32_sub(a.x, pi.x), dy1 = i32_sub(a.y, pi.y);
        const int dx2 = i32_sub(b.x, pi.x), dy2 = i32_sub(b.y, pi.y);
        if ((dx1 | dy1) == 0 || (dx2 | dy2) == 0) break;
        const double num = (double)i32_add(i32_mul(dx1, dx2), i32_mul(dy1, dy2));
        const double q1 = __dadd_rn(__dmul_rn((double)dx1, (double)dx1), __dmul_rn((double)dy1, (double)dy1));
        const double q2 = __dadd_rn(__dmul_rn((double)dx2, (double)dx2), __dmul_rn((double)dy2, (double)dy2));
        const double den = __dsqrt_rn(__dmul_rn(q1, q2));
        // |cos| is 0 or >= 2^-62 here (integer numerator): never a subnormal float.
        const float c = __double2float_rn(__ddiv_rn(num, den));
        const int bits = __float_as_int(__double2float_rn(__dadd_rn(f32_to_f64(c), 1.1)));
        if (j < k && bits <= s) break;
        s = bits;
    }
    return s;
}

__device__ __forceinline__ int contour_of(const long long* __restrict__ off, int k, long long t)
{
    int lo = 0, hi = k;   // off[lo] <= t < off[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
}

// Passes 0 and 1 for every point. kcos: 1 for TC89_KCOS.
extern "C" __global__ void tc89_point(const int2* __restrict__ pts, const long long* __restrict__ off, int k,
                                      long long total, int kcos, int* __restrict__ sv, int* __restrict__ kv,
                                      u8* __restrict__ gone)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j];
    const int n = (int)(off[j + 1] - base);
    const int i = (int)(t - base);
    const long long q = base + j + i;
    const int2* p = pts + base;
    if (n == 1) {
        sv[q] = 0; kv[q] = 0; gone[q] = 0;
        return;
    }
    const int2 a = p[wrap_back(i, 1, n)], b = p[i], c = p[wrap_fwd(i, 1, n)];
    const int d = abs(step_code(i32_sub(c.x, b.x), i32_sub(c.y, b.y)) -
                      step_code(i32_sub(b.x, a.x), i32_sub(b.y, a.y)));
    const int turn = min(d, 8 - d);
    int s = turn;
    int kk = 0;
    if (turn != 0) {
        kk = tc89_support(p, n, i);
        if (kcos) s = tc89_kcos(p, n, i, kk);
    }
    sv[q] = s;
    kv[q] = kk;
    gone[q] = turn == 0;   // pass 0 drops the straight points (their k stays 0)
}

__device__ __forceinline__ int next_alive(const u8* g, int n, int from)
{
    int r = from + 1;
    while (r < n && g[r]) ++r;
    return r;
}

// Slot q (0 <= q < total + k) -> contour j: slots of contour j are off[j] + j .. off[j + 1] + j.
__device__ __forceinline__ int contour_of_slot(const long long* __restrict__ off, int k, long long q)
{
    int lo = 0, hi = k;   // off[lo] + lo <= q < off[hi] + hi
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] + mid <= q) lo = mid; else hi = mid;
    }
    return lo;
}

// Pass 2 (NMS, cv2: in place and in order) in parallel. With s the values after pass 1 (all >= 0),
// point i is dropped iff some q within k[i] >> 1 on either side has s[q] > s[i] and either q > i
// (not yet processed by cv2: its own value counts; the wrapped left neighbours at the chain's end
// are such q) or q < i and q is kept (a dropped q reads 0, never > s[i]). The decision of i then
// depends only on points of larger s, so the relation is acyclic and every point can be decided
// as soon as the q < i with larger s are. nms state: 0 open, 1 kept, 2 dropped.
#define TC89_OPEN 0
#define TC89_KEEP 1
#define TC89_DROP 2
#define TC89_DROP3 3

// The decidable part: a larger q > i drops i at once; no larger q < i keeps it.
extern "C" __global__ void tc89_nms_init(const long long* __restrict__ off, int k, long long total,
                                         const int* __restrict__ sv, const int* __restrict__ kv,
                                         u8* __restrict__ st)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    const int* s = sv + base;
    const int half = kv[base + i] >> 1;
    const int si = s[i];
    bool open = false;
    for (int m = 1; m <= half; ++m) {
        const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
        if ((s[a] > si && a > i) || (s[b] > si && b > i)) {
            st[base + i] = TC89_DROP;
            return;
        }
        open |= s[a] > si || s[b] > si;
    }
    st[base + i] = open ? TC89_OPEN : TC89_KEEP;
}

// One round over the open points: a kept larger q < i drops i; all larger q < i dropped keeps it.
// Decisions are final when made, so reading a neighbour's state while another thread of the same
// round writes it is harmless (it is open or already final). last: open points left mark their
// contour for tc89_nms_finish.
extern "C" __global__ void tc89_nms_round(const long long* __restrict__ off, int k, long long total,
                                          const int* __restrict__ sv, const int* __restrict__ kv,
                                          u8* __restrict__ st, int last, int* __restrict__ pend)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int i = (int)(t - off[j]);
    volatile u8* g = st + base;
    if (g[i] != TC89_OPEN) return;
    const int n = (int)(off[j + 1] - off[j]);
    const int* s = sv + base;
    const int half = kv[base + i] >> 1;
    const int si = s[i];
    bool open = false;
    for (int m = 1; m <= half; ++m) {
        const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
        if (s[a] > si && a < i) {
            const u8 v = g[a];
            if (v == TC89_KEEP) { g[i] = TC89_DROP; return; }
            open |= v == TC89_OPEN;
        }
        if (s[b] > si && b < i) {
            const u8 v = g[b];
            if (v == TC89_KEEP) { g[i] = TC89_DROP; return; }
            open |= v == TC89_OPEN;
        }
    }
    if (!open) g[i] = TC89_KEEP;
    else if (last) pend[j] = 1;
}

// What the rounds left open, in index order (exact: every q < i is decided before i). One thread
// per contour that still has open points (rare: long chains of decreasing k-cosines).
extern "C" __global__ void tc89_nms_finish(const long long* __restrict__ off, int k, const int* __restrict__ sv,
                                           const int* __restrict__ kv, u8* __restrict__ st,
                                           const int* __restrict__ pend)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k || !pend[j]) return;
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int* s = sv + base;
    u8* g = st + base;
    for (int i = 0; i < n; ++i) {
        if (g[i] != TC89_OPEN) continue;
        const int half = kv[base + i] >> 1;
        const int si = s[i];
        u8 v = TC89_KEEP;
        for (int m = 1; m <= half && v == TC89_KEEP; ++m) {
            const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
            if ((s[a] > si && a < i && g[a] == TC89_KEEP) || (s[b] > si && b < i && g[b] == TC89_KEEP))
                v = TC89_DROP;
        }
        g[i] = v;
    }
}

// Points whose state is `code` are dropped (s = 0).
extern "C" __global__ void tc89_apply(const long long* __restrict__ off, int k, long long total, int code,
                                      const u8* __restrict__ st, int* __restrict__ sv, u8* __restrict__ gone)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const long long q = t + contour_of(off, k, t);
    if (st[q] == code) { sv[q] = 0; gone[q] = 1; }
}

// s of slot q after pass 3, while tc89_apply3 runs (only slots with st == TC89_DROP3 are written).
__device__ __forceinline__ int tc89_s3(const int* __restrict__ sv, const u8* __restrict__ st, long long q)
{
    return st[q] == TC89_DROP3 ? 0 : sv[q];
}

// Pass 3's drops, and for TC89_L1 contours that take the seam pass (s[0] and s[n - 1] != 0) its
// three indices, by atomics on zero-initialised seam[3 j ..]: n - (first index >= 1 with s == 0),
// the last index in 1..n-2 with s == 0, n - (first index >= 1 with s != 0). (In L1 s == 0 exactly
// for dropped points.) Only the ends of runs can be those extremes, so only they go to the atomics
// (one address per contour: on one huge border every point would queue there).
extern "C" __global__ void tc89_apply3(const long long* __restrict__ off, int k, long long total, int l1,
                                       const u8* __restrict__ st, int* __restrict__ sv, u8* __restrict__ gone,
                                       int* __restrict__ seam)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long q = t + j;
    if (st[q] == TC89_DROP3) { sv[q] = 0; gone[q] = 1; }
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    if (!l1 || n == 1 || i == 0) return;
    const long long b0 = off[j] + j;
    if (tc89_s3(sv, st, b0) == 0 || tc89_s3(sv, st, b0 + n - 1) == 0) return;   // no seam pass
    const int si = tc89_s3(sv, st, q), sp = tc89_s3(sv, st, q - 1);
    // (s[0] and s[n - 1] != 0 here, so every run in 1..n-2 has both neighbours inside 0..n-1.)
    if (si == 0) {
        if (sp != 0) atomicMax(&seam[3 * j], n - i);
        if (i <= n - 2 && tc89_s3(sv, st, q + 1) != 0) atomicMax(&seam[3 * j + 1], i);
    } else if (sp == 0) {
        atomicMax(&seam[3 * j + 2], n - i);
    }
}

// Pass 3 in parallel. cv2 drops a live point i with k == 1 when s[i] <= s of a direct neighbour as
// it is at that moment: i - 1 after pass 3 (processed), i + 1 after pass 2, except at the seam (0
// reads n - 1 after pass 2; n - 1 reads 0 after pass 3). So x(i) = f_i(x(i - 1)) for i >= 1, with
// f_i(0) = E && (R || s[i] <= s[i - 1]), f_i(1) = E && (R || s[i] <= 0) (E: live with k == 1,
// R: s[i] <= right neighbour): f_i is constant or the negation (f_i(0) = 1, f_i(1) = 0 needs
// s[i - 1] >= s[i] > 0 and s[i] > s[i + 1]), and x(0) is direct. A chain of negations is a strictly
// decreasing run of k == 1 values, so it is short (L1: 1..4; KCOS: the few k-cosines of two
// 8-neighbour steps); each thread walks back to the nearest constant.
__device__ __forceinline__ bool tc89_x0(const int* s, const int* kk, const u8* g, int n)
{
    return !g[0] && kk[0] == 1 && (s[0] <= s[n - 1] || s[0] <= s[n > 1 ? 1 : 0]);
}

extern "C" __global__ void tc89_pass3(const long long* __restrict__ off, int k, long long total,
                                      const int* __restrict__ sv, const int* __restrict__ kv,
                                      const u8* __restrict__ gone, u8* __restrict__ st)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    const int* s = sv + base;
    const int* kk = kv + base;
    const u8* g = gone + base;
    if (g[i] || kk[i] != 1 || n == 1) { st[base + i] = 0; return; }
    const bool x0 = tc89_x0(s, kk, g, n);
    int flips = 0;
    int m = i;
    bool x;
    for (;; --m) {
        if (m == 0) { x = x0; break; }
        // f_m: live with k == 1 (m == i is; earlier m only continue the walk when they are).
        const int sm = s[m];
        const int right = m + 1 < n ? s[m + 1] : (x0 ? 0 : s[0]);
        const bool e = !g[m] && kk[m] == 1;
        const bool r = sm <= right;
        const bool f0 = e && (r || sm <= s[m - 1]);
        const bool f1 = e && (r || sm <= 0);
        if (f0 == f1) { x = f0; break; }
        ++flips;   // f_m is the negation
    }
    if (flips & 1) x = !x;
    st[base + i] = x ? TC89_DROP3 : 0;
}

// Pass 4 (TC89_L1), part 1, one thread per contour: the run through the seam (model: _new_start)
// from the indices tc89_apply3 found. start4[j] = the index cleanup starts at, -1 when it is
// skipped (KCOS, one point, or no point dropped); used[j] = slots in use (n, or n + 1 with the copy
// of point 0); cut4[j]: points cut4[j] .. n - 1 are dropped (the trailing run keeps only its first
// point). cv2 also zeroes s of the points before the start index; nothing reads those again.
extern "C" __global__ void tc89_seam(const long long* __restrict__ off, int k, int l1, int* __restrict__ sv,
                                     int* __restrict__ kv, u8* __restrict__ gone, const int* __restrict__ seam,
                                     int* __restrict__ used, int* __restrict__ start4, int* __restrict__ cut4)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const long long base = off[j] + j;
    const int n0 = (int)(off[j + 1] - off[j]);
    int n = n0;
    int* s = sv + base;
    int* kk = kv + base;
    u8* g = gone + base;
    int start = 0, cut = n;
    if (!l1 || n == 1) start = -1;
    else if (s[0] != 0 && s[n - 1] != 0) {
        const int z = n - seam[3 * j];
        if (z == n) {
            start = -1;   // nothing was dropped: every point stays
        } else {
            int first = z - 1;
            const int last = seam[3 * j + 1] + 1;
            cut = last + 1;
            if (first == 0 && last == n - 1) {
                first = n - seam[3 * j + 2];   // the first live point after 0
                s[n] = s[0];
                kk[n] = kk[0];
                g[n] = 0;
                ++n;
            }
            start = first;
        }
    }
    if (n == n0) g[n] = 1;   // the spare slot is not a point
    used[j] = n;
    start4[j] = start;
    cut4[j] = cut;
}

// Live after the seam pass: not dropped and not in the cut tail (index i of slot q, n points).
__device__ __forceinline__ bool tc89_live(const u8* __restrict__ gone, long long q, int i, int cut, int n)
{
    return !gone[q] && !(i >= cut && i < n);
}

// Slot q of a contour whose cleanup runs, at or after its start and live: in a run of pass 4.
__device__ __forceinline__ bool tc89_in4(const u8* __restrict__ gone, long long q, int i, int start, int used,
                                         int cut, int n)
{
    return start >= 0 && i >= start && i < used && tc89_live(gone, q, i, cut, n);
}

// Pass 4, part 2: flag the first slot of every run (runs are cut at the start index); a cumsum of
// the flags numbers the runs.
extern "C" __global__ void tc89_runflag(const long long* __restrict__ off, int k, long long slots,
                                        const u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        int* __restrict__ fl)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int start = start4[j], cut = cut4[j], n = (int)(off[j + 1] - off[j]);
    fl[q] = tc89_in4(gone, q, i, start, used[j], cut, n) && (i == start || !tc89_live(gone, q - 1, i - 1, cut, n));
}

// Pass 4, part 3: each run's first and last index, by run number (rid: inclusive cumsum of fl).
extern "C" __global__ void tc89_runends(const long long* __restrict__ off, int k, long long slots,
                                        const u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        const int* __restrict__ fl, const int* __restrict__ rid,
                                        int* __restrict__ rs, int* __restrict__ re)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int u = used[j], cut = cut4[j], n = (int)(off[j + 1] - off[j]);
    if (!tc89_in4(gone, q, i, start4[j], u, cut, n)) return;
    const int r = rid[q] - 1;
    if (fl[q]) rs[r] = i;
    if (i + 1 == u || !tc89_live(gone, q + 1, i + 1, cut, n)) re[r] = i;
}

// Pass 4, part 4 (model: _cleanup). A run's changes touch only its own points and read only its
// own ends, so each point decides alone: a run of 2 keeps the larger s (ties: the smaller k, equal
// k: the first); a longer run keeps its first and last points, and its second when it begins at
// the start index (cv2 steps from the start index itself there, elsewhere from the previous run's
// last point).
extern "C" __global__ void tc89_cleanup(const long long* __restrict__ off, int k, long long slots,
                                        const int* __restrict__ sv, const int* __restrict__ kv,
                                        u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        const int* __restrict__ rid, const int* __restrict__ rs,
                                        const int* __restrict__ re)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const long long base = off[j] + j;
    const int i = (int)(q - base);
    const int start = start4[j];
    if (!tc89_in4(gone, q, i, start, used[j], cut4[j], (int)(off[j + 1] - off[j]))) return;
    const int r = rid[q] - 1;
    const int a = rs[r], b = re[r];
    bool drop = false;
    if (b - a == 1) {
        const int sa = sv[base + a], sb = sv[base + b];
        const bool drop_b = sa > sb || (sa == sb && kv[base + a] <= kv[base + b]);
        drop = drop_b ? i == b : i == a;
    } else if (b - a > 1) {
        drop = i != a && i != b && !(a == start && i == a + 1);
    }
    if (drop) gone[q] = 1;
}

// Output: fl[q] = 1 for every slot that is an output point; rid = its inclusive cumsum.
extern "C" __global__ void tc89_keep(const long long* __restrict__ off, int k, long long slots,
                                     const u8* __restrict__ gone, const int* __restrict__ used,
                                     const int* __restrict__ cut4, int* __restrict__ fl)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int n = (int)(off[j + 1] - off[j]);
    fl[q] = i < used[j] && (n == 1 || tc89_live(gone, q, i, cut4[j], n));
}

// new_off[j + 1] = output points up to the end of contour j (new_off[0] stays 0).
extern "C" __global__ void tc89_offsets(const long long* __restrict__ off, int k, const int* __restrict__ rid,
                                        long long* __restrict__ new_off)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    new_off[j + 1] = rid[off[j + 1] + j];
}

// Surviving points (slot n, the appended copy, is point 0).
extern "C" __global__ void tc89_emit(const int2* __restrict__ pts, const long long* __restrict__ off, int k,
                                     long long slots, const int* __restrict__ fl, const int* __restrict__ rid,
                                     int2* __restrict__ out)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots || !fl[q]) return;
    const int j = contour_of_slot(off, k, q);
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(q - off[j] - j);
    out[rid[q] - 1] = pts[off[j] + (i < n ? i : 0)];
}

// ---------------------------------------------------------------- label images (CV_32SC1, RETR_FLOODFILL)
//
// cv2 5.x on a CV_32SC1 image (RETR_FLOODFILL; RETR_CCOMP means the same there) scans like the
// 8-bit case but on labels: a pixel's label is raw & 0x3FFFFFFF, the top two bits are flags that
// its traces set (and input values with those bits set count as flagged from the start). Every
// border is a Suzuki walk on "label == label of the start pixel", so, as in the 8-bit pipeline,
// each walk state has a fixed successor and the borders are the cycles of that map, ranked in
// parallel. What is sequential in cv2 is which cycles get traced: at each column x where the
// label changes along a row, with q = x - 1 and p = x,
//   * the cycle of p's region entered from the left is traced iff p is unflagged then;
//   * the cycle of q's region entered from the right ("hole") is traced first iff q and p are
//     unflagged and q is nonzero;
// and "flagged then" means: flagged on input, or on a cycle traced at an earlier event. Those
// trace times have a unique fixed point (an event's outcome depends only on earlier events), so
// lab_events recomputes every cycle's first trace event from the previous round's times until
// nothing changes (the earliest wrong event is right one round later). LNBD for a hole is the
// previous label change on the row, so its parent is local too (lab_hole_parent). The CPU model
// is tests/labels_model.py (proven equal to cv2); tests/test_labels_kernel_host.py runs this
// section on the host against cv2.
//
// Cycle ids: the smallest state slot of the cycle; a one-pixel region (no states) is 8 E + e.
// Guarded so that the host build of the Teh-Chin section alone (tests/test_tc89_kernel_host.py)
// does not see it; tests/test_labels_kernel_host.py defines CVGPU_LABELS_HOST.
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(CVGPU_LABELS_HOST)

#define LAB_VAL 0x3FFFFFFFu
#define LAB_FLAGS 0xC0000000u
#define LAB_INF 0x7FFFFFFF

__device__ __forceinline__ bool lab_same(const unsigned* __restrict__ f, int n, long long j, unsigned v)
{
    // Outside the padded image (only reachable from the frame rows): never the same label.
    return j >= 0 && j < n && (f[j] & LAB_VAL) == v;
}

__device__ __forceinline__ int lab_delta(int k, int w2) { return c_dy[k & 7] * w2 + c_dx[k & 7]; }

// Raw values with a zero frame. pitch in elements.
extern "C" __global__ void lab_pad(const int* __restrict__ src, long long pitch, int h, int w, int n,
                                   unsigned* __restrict__ f)
{
    const int w2 = w + 2;
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < (unsigned)n; u += gridDim.x * blockDim.x) {
        const int i = (int)u;   // unsigned loop: see pad_init
        const int y = i / w2, x = i - y * w2;
        f[i] = (y >= 1 && y <= h && x >= 1 && x <= w) ? (unsigned)src[(long long)(y - 1) * pitch + (x - 1)] : 0u;
    }
}

// fl[i]: 1 where pixel i has a neighbour of another label (the only pixels walks visit); 2 more
// where a row's label changes at i (an event column: interior, x >= 1).
extern "C" __global__ void lab_flags(const unsigned* __restrict__ f, int w2, int h, int n, u8* __restrict__ fl)
{
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < (unsigned)n; u += gridDim.x * blockDim.x) {
        const int i = (int)u;   // unsigned loop: see pad_init
        const unsigned v = f[i] & LAB_VAL;
        u8 r = 0;
        for (int k = 0; k < 8; ++k) {
            if (!lab_same(f, n, (long long)i + lab_delta(k, w2), v)) { r = 1; break; }
        }
        const int y = i / w2, x = i - y * w2;
        if (y >= 1 && y <= h && x >= 1 && x <= w2 - 2 && (f[i - 1] & LAB_VAL) != v) r |= 2;
        fl[i] = r;
    }
}

// Walk states (p = bpix[t >> 3], came from neighbour t & 7): nxt = successor slot (-1: none or not
// a state), cyc = (successor, own slot) for the min-jumping, sdir = outgoing direction (255: not a
// state).
extern "C" __global__ void lab_state_init(const unsigned* __restrict__ f, int w2, int n, int slots,
                                          const int* __restrict__ bpix, const int* __restrict__ pmap,
                                          int* __restrict__ nxt, int2* __restrict__ cyc, u8* __restrict__ sdir)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int b = t & 7, p = bpix[t >> 3];
    const unsigned v = f[p] & LAB_VAL;
    if (!lab_same(f, n, (long long)p + lab_delta(b, w2), v)) {
        nxt[t] = -1;
        cyc[t] = make_int2(-1, t);
        sdir[t] = 255;
        return;
    }
    int k = b;
    long long q;
    do {
        ++k;
        q = (long long)p + lab_delta(k, w2);
    } while (!lab_same(f, n, q, v));
    const int s = k & 7;
    sdir[t] = (u8)s;
    const int e = pmap[q];   // -1 for an interior pixel: not on any real border
    const int nx = e >= 0 ? e * 8 + ((s + 4) & 7) : -1;
    nxt[t] = nx;
    cyc[t] = make_int2(nx, t);
}

// One round of min-jumping: (successor 2^r ahead, smallest slot in the 2^r states from here):
// after log2(L) rounds every state of a cycle of length L holds the cycle's smallest slot.
// *changed is set when some minimum changed. A round that changes nothing proves every cycle
// done: then m(t) <= m(t + 2^r) for every t, so along t, t + 2^r, ... around a cycle all the
// windows' minima are equal, and those windows cover the cycle; so 2^r >= L as well, which
// bounds the ranking rounds after it.
extern "C" __global__ void lab_min_jump(int n, const int2* __restrict__ src, int2* __restrict__ dst,
                                        int* __restrict__ changed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int2 a = src[i];
    if (a.x >= 0) {
        const int2 b = src[a.x];
        a.x = b.x;
        if (b.y < a.y) {
            a.y = b.y;
            *changed = 1;
        }
    }
    dst[i] = a;
}

// The cycles cut before their leader, for suffix sums of the point weights (1, or for SIMPLE 1
// where the direction changes): leader[t] = cycle id, st = (successor or -1, weight).
extern "C" __global__ void lab_rank_init(int slots, const int* __restrict__ nxt, const int2* __restrict__ cyc,
                                         const u8* __restrict__ sdir, int simple, int* __restrict__ leader,
                                         int2* __restrict__ st)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int l = cyc[t].y;
    leader[t] = l;
    if (sdir[t] == 255) {
        st[t] = make_int2(-1, 0);
        return;
    }
    const int nx = nxt[t];
    st[t] = make_int2(nx == l ? -1 : nx, (!simple || sdir[t] != ((t & 7) ^ 4)) ? 1 : 0);
}

// The cycle a trace from pixel p takes when it enters with the other label at neighbour `from`
// (4: left, outer; 0: right, hole): cv2's clockwise search for the first same-label neighbour.
__device__ int lab_cycle_of(const unsigned* __restrict__ f, int w2, int n, const int* __restrict__ pmap,
                            const int* __restrict__ leader, int slots, int p, int from, int* head)
{
    const unsigned v = f[p] & LAB_VAL;
    int s = from;
    for (int t = 0; t < 7; ++t) {
        s = (s - 1) & 7;
        if (lab_same(f, n, (long long)p + lab_delta(s, w2), v)) {
            const int slot = pmap[p] * 8 + s;
            if (head) *head = slot;
            return leader[slot];
        }
    }
    if (head) *head = -1;
    return slots + pmap[p];
}

// Whether some cycle through pixel p has a trace event before e (in the times T).
__device__ bool lab_traced_before(int slots, const int* __restrict__ pmap, const u8* __restrict__ sdir,
                                  const int* __restrict__ leader, const int* __restrict__ T, int p, int e)
{
    const int base = pmap[p] * 8;
    bool any = false;
    for (int b = 0; b < 8; ++b) {
        if (sdir[base + b] == 255) continue;
        any = true;
        if (T[leader[base + b]] < e) return true;
    }
    return !any && T[slots + pmap[p]] < e;
}

// Event pair k (2k: the hole at label change k; 2k + 1: the outer border there): each checks its
// condition with the trace times Told and offers itself to its cycle in Tnew.
__device__ void lab_event_pair(const unsigned* __restrict__ f, int w2, int n, const int* __restrict__ epos,
                               const int* __restrict__ pmap, const u8* __restrict__ sdir,
                               const int* __restrict__ leader, int slots, const int* Told, int* Tnew, int k)
{
    const int p = epos[k], q = p - 1;
    const unsigned fp = f[p], fq = f[q];
    if (fp & LAB_FLAGS) return;      // flagged on input: neither event
    const int eq = 2 * k, ep = 2 * k + 1;
    const bool p_before_eq = lab_traced_before(slots, pmap, sdir, leader, Told, p, eq);
    // q sits on the frame at x = 1, where cv2 starts the row with a zero "previous" value.
    if (!p_before_eq && fq != 0u && !(fq & LAB_FLAGS) && (q % w2) != 0 &&
        !lab_traced_before(slots, pmap, sdir, leader, Told, q, eq)) {
        atomicMin(&Tnew[lab_cycle_of(f, w2, n, pmap, leader, slots, q, 0, 0)], eq);
    }
    // Only the cycle of the hole event eq itself (q's label, not p's) could have time eq: "before
    // ep" reads the same as "before eq" for p.
    if (!p_before_eq) {
        atomicMin(&Tnew[lab_cycle_of(f, w2, n, pmap, leader, slots, p, 4, 0)], ep);
    }
}

// One round of the fixed-point iteration (Tnew: LAB_INF before the round).
extern "C" __global__ void lab_events(const unsigned* __restrict__ f, int w2, int n, int K,
                                      const int* __restrict__ epos, const int* __restrict__ pmap,
                                      const u8* __restrict__ sdir, const int* __restrict__ leader, int slots,
                                      const int* __restrict__ Told, int* __restrict__ Tnew)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    lab_event_pair(f, w2, n, epos, pmap, sdir, leader, slots, Told, Tnew, k);
}

// cv2's order replayed by one thread (T: LAB_INF before): events in order, each reading the times
// set by the earlier ones. Exact in one pass; the host switches to it only when the rounds above
// do not settle (an image with a long chain of dependent events).
extern "C" __global__ void lab_events_serial(const unsigned* __restrict__ f, int w2, int n, int K,
                                             const int* __restrict__ epos, const int* __restrict__ pmap,
                                             const u8* __restrict__ sdir, const int* __restrict__ leader,
                                             int slots, int* T)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int k = 0; k < K; ++k) lab_event_pair(f, w2, n, epos, pmap, sdir, leader, slots, T, T, k);
}

// Per traced border d (in discovery order, ev = its event): cycle_border[cycle] = d, the hole
// flag, its head slot (-1: one pixel), its origin, and cv2's bounding box started at the origin
// (wrapped int32 coordinates of cv2's offset frame; finished by lab_bbox).
extern "C" __global__ void lab_borders(const unsigned* __restrict__ f, int w2, int n, int m,
                                       const int* __restrict__ ev, const int* __restrict__ cyc_of,
                                       const int* __restrict__ epos, const int* __restrict__ pmap,
                                       const int* __restrict__ leader, int slots, int ox, int oy,
                                       int* __restrict__ cycle_border, u8* __restrict__ hole,
                                       int* __restrict__ head, int* __restrict__ origin, int* __restrict__ bbox)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    const int e = ev[d];
    const bool h = (e & 1) == 0;
    const int p = epos[e >> 1] - (h ? 1 : 0);
    int hs;
    lab_cycle_of(f, w2, n, pmap, leader, slots, p, h ? 0 : 4, &hs);
    cycle_border[cyc_of[d]] = d;
    hole[d] = h;
    head[d] = hs;
    origin[d] = p;
    const int y = p / w2, x = p - y * w2;
    const int wx = i32_add(x, i32_sub(ox, 1)), wy = i32_add(y, i32_sub(oy, 1));
    bbox[4 * d + 0] = wx;
    bbox[4 * d + 1] = wy;
    bbox[4 * d + 2] = wx;
    bbox[4 * d + 3] = wy;
}

// cv2's bounding box of a traced border: the points where the direction changes (its SIMPLE
// points) and the origin, min/max over the wrapped int32 coordinates as cv2 compares them.
extern "C" __global__ void lab_bbox(int w2, int slots, const int* __restrict__ bpix, const u8* __restrict__ sdir,
                                    const int* __restrict__ leader, const int* __restrict__ cycle_border, int ox,
                                    int oy, int* __restrict__ bbox)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int s = sdir[t];
    if (s == 255 || s == ((t & 7) ^ 4)) return;
    const int d = cycle_border[leader[t]];
    if (d < 0) return;
    const int p = bpix[t >> 3];
    const int y = p / w2, x = p - y * w2;
    const int wx = i32_add(x, i32_sub(ox, 1)), wy = i32_add(y, i32_sub(oy, 1));
    atomicMin(&bbox[4 * d + 0], wx);
    atomicMin(&bbox[4 * d + 1], wy);
    atomicMax(&bbox[4 * d + 2], wx);
    atomicMax(&bbox[4 * d + 3], wy);
}

__device__ __forceinline__ bool lab_box_holds(const int* __restrict__ bbox, int d, int lx, int ly, int sox, int soy)
{
    const int bx = i32_sub(bbox[4 * d + 0], sox), by = i32_sub(bbox[4 * d + 1], soy);
    const int bw = i32_sub(bbox[4 * d + 2], i32_sub(bbox[4 * d + 0], 1));
    const int bh = i32_sub(bbox[4 * d + 3], i32_sub(bbox[4 * d + 1], 1));
    return i32_sub(lx, bx) < bw && i32_sub(ly, by) < bh;
}

// cv2's choice for hole d, before the hole rule: among the earlier borders whose start value has
// the low 7 bits of the LNBD pixel and whose box holds LNBD, the newest one passing through LNBD,
// else the oldest one. raw[d] = that border, -1 (root) for outer borders, -2 where none exists
// (cv2 indexes its tree with -1 there).
extern "C" __global__ void lab_hole_parent(const unsigned* __restrict__ f, int w2, int m, const u8* __restrict__ hole,
                                           const int* __restrict__ ev, const int* __restrict__ epos,
                                           const int* __restrict__ pmap, const u8* __restrict__ sdir,
                                           const int* __restrict__ leader, int slots,
                                           const int* __restrict__ cycle_border, const int* __restrict__ origin,
                                           const int* __restrict__ bbox, int ox, int oy, int* __restrict__ raw)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    if (!hole[d]) { raw[d] = -1; return; }
    const int k = ev[d] >> 1;
    const int p = epos[k];
    const int y = p / w2;
    // A hole is never the first change on its row (its left side is a nonzero label after the
    // zero frame), so LNBD is the previous change; were it the first, cv2 would take the root.
    if (k == 0 || epos[k - 1] < y * w2) { raw[d] = -1; return; }
    const int end = epos[k - 1];
    const int lx = end - y * w2, ly = y;
    const unsigned lval = f[end] & 0x7Fu;
    const int sox = i32_sub(ox, 1), soy = i32_sub(oy, 1);
    int best = -1;
    const int base = pmap[end] * 8;
    bool any = false;
    for (int b = 0; b < 9; ++b) {
        int c;
        if (b < 8) {
            if (sdir[base + b] == 255) continue;
            any = true;
            c = leader[base + b];
        } else {
            if (any) break;
            c = slots + pmap[end];
        }
        const int dd = cycle_border[c];
        if (dd < 0 || dd >= d || dd <= best) continue;
        if ((f[origin[dd]] & 0x7Fu) != lval || !lab_box_holds(bbox, dd, lx, ly, sox, soy)) continue;
        best = dd;
    }
    if (best < 0) {
        // Rare (LNBD on an input pixel that carries flags, or boxes broken by wrap-around).
        for (int dd = 0; dd < d; ++dd) {
            if ((f[origin[dd]] & 0x7Fu) == lval && lab_box_holds(bbox, dd, lx, ly, sox, soy)) { best = dd; break; }
        }
        if (best < 0) best = -2;
    }
    raw[d] = best;
}

// The hole rule: a hole whose choice is a hole takes that hole's parent. -2 where cv2's tree
// lookup is undefined (also where its assertion would fail: never seen, kept as a guard).
extern "C" __global__ void lab_parents(int m, const u8* __restrict__ hole, const int* __restrict__ raw,
                                       int* __restrict__ parent)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    int p = raw[d];
    if (hole[d] && p >= 0 && hole[p]) {
        p = raw[p];
        while (p >= 0 && hole[p]) p = raw[p];
        if (p == -1) p = -2;
    }
    parent[d] = p;
}

// Points per output contour j (border out_node[j]): the cycle's weight total (1 for one pixel).
extern "C" __global__ void lab_counts(int k, const int* __restrict__ out_node, const int* __restrict__ head,
                                      const int* __restrict__ leader, const int2* __restrict__ st,
                                      int* __restrict__ counts)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const int h = head[out_node[j]];
    counts[j] = h < 0 ? 1 : st[leader[h]].y;
}

// Every weighted state of a traced cycle writes its point: index = weight from the head, mod the
// cycle's total (suffix sums from the leader's cut: exclusive prefix X = total - suffix).
extern "C" __global__ void lab_emit(int w2, int slots, const int* __restrict__ bpix, const u8* __restrict__ sdir,
                                    const int* __restrict__ leader, const int2* __restrict__ st, int simple,
                                    const int* __restrict__ cycle_border, const int* __restrict__ border_out,
                                    const int* __restrict__ head, const long long* __restrict__ dst, int ox, int oy,
                                    int* __restrict__ points)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int s = sdir[t];
    if (s == 255 || (simple && s == ((t & 7) ^ 4))) return;
    const int l = leader[t];
    const int d = cycle_border[l];
    if (d < 0) return;
    const int total = st[l].y;
    int idx = st[head[d]].y - st[t].y;   // (total - suffix(t)) - (total - suffix(head))
    if (idx < 0) idx += total;
    const long long pos = dst[border_out[d]] + idx;
    const int p = bpix[t >> 3];
    const int y = p / w2, x = p - y * w2;
    points[2 * pos] = i32_add(x, i32_sub(ox, 1));
    points[2 * pos + 1] = i32_add(y, i32_sub(oy, 1));
}

extern "C" __global__ void lab_single(int w2, int k, const int* __restrict__ out_node, const int* __restrict__ head,
                                      const int* __restrict__ origin, const long long* __restrict__ dst, int ox,
                                      int oy, int* __restrict__ points)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const int d = out_node[j];
    if (head[d] >= 0) return;
    const int p = origin[d];
    const int y = p / w2, x = p - y * w2;
    const long long pos = dst[j];
    points[2 * pos] = i32_add(x, i32_sub(ox, 1));
    points[2 * pos + 1] = i32_add(y, i32_sub(oy, 1));
}
#endif  // label images

// ---------------------------------------------------------------- findContoursLinkRuns
//
// cv2.findContoursLinkRuns (cvgpu/contours.py, linkruns section) follows tests/linkruns_model.py.
// OpenCV merges the runs of each pair of adjacent rows in one sequential walk and gives every run
// end point one link; the contours are the cycles of those links. Each link only depends on the
// runs of the two rows around it (see the model), so here:
//   lr_flags / lr_runs   runs of every row at once: a start flag per pixel, the host's inclusive
//                        prefix sum numbers the runs in raster order (= OpenCV's run order);
//   lr_link              one thread per run: both links by binary search in the adjacent rows, and
//                        the start's key (raster rank among OpenCV's external starts, then its
//                        internal starts: the order in which OpenCV emits cycles);
//   lr_jump              pointer jumping around the cycles: every node learns its cycle's least
//                        key (the cycle's first point, and so its place in the output) and how far
//                        ahead that first point is (so its own place in the contour);
//   lr_heads / lr_offsets / lr_emit  cycle lengths by key, prefix sums (host), points scattered
//                        (in cv2's order, or grouped by length for the host's views).
// Node 2r is run r's start point (x0, y), node 2r + 1 its end point (x1, y). All indices are int:
// the host hands images with h * (w + 1) >= 2^31 to cv2. Every kernel is a grid-stride loop over
// lr_<name>_one (its grid is capped).

#define LR_FIRST ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#if defined(__CUDACC__) || defined(__CUDACC_RTC__) || defined(LR_HOST_GRID)
#define LR_STRIDE ((long long)gridDim.x * blockDim.x)
#else
#define LR_STRIDE (1LL << 62)   // other host builds of this file (TC89's test) never launch these
#endif

__device__ __forceinline__ void lr_flags_one(int i, const u8* __restrict__ src, long long pitch, int h, int w,
                                             u8* __restrict__ flags)
{
    const int y = i / w, x = i - y * w;
    const u8* row = src + (long long)y * pitch;
    flags[i] = (row[x] != 0 && (x == 0 || row[x - 1] == 0)) ? 1 : 0;
}

extern "C" __global__ void lr_flags(const u8* __restrict__ src, long long pitch, int h, int w,
                                    u8* __restrict__ flags)
{
    for (long long t = LR_FIRST; t < (long long)h * w; t += LR_STRIDE)
        lr_flags_one((int)t, src, pitch, h, w, flags);
}

// cs: inclusive prefix sum of the flags. Run r = cs[i] - 1 for every pixel of the run.
__device__ __forceinline__ void lr_runs_one(int i, const u8* __restrict__ src, long long pitch, int h, int w,
                                            const int* __restrict__ cs, int* __restrict__ x0, int* __restrict__ x1,
                                            int* __restrict__ ry, int* __restrict__ row_off)
{
    const int y = i / w, x = i - y * w;
    const u8* row = src + (long long)y * pitch;
    if (x == 0) {
        row_off[y] = i == 0 ? 0 : cs[i - 1];
        if (y == h - 1) row_off[h] = cs[h * w - 1];
    }
    if (row[x] == 0) return;
    const int r = cs[i] - 1;
    if (x == 0 || row[x - 1] == 0) { x0[r] = x; ry[r] = y; }
    if (x == w - 1 || row[x + 1] == 0) x1[r] = x;
}

extern "C" __global__ void lr_runs(const u8* __restrict__ src, long long pitch, int h, int w,
                                   const int* __restrict__ cs, int* __restrict__ x0, int* __restrict__ x1,
                                   int* __restrict__ ry, int* __restrict__ row_off)
{
    for (long long t = LR_FIRST; t < (long long)h * w; t += LR_STRIDE)
        lr_runs_one((int)t, src, pitch, h, w, cs, x0, x1, ry, row_off);
}

// First index in [a, b) with v[k] >= t (v non-decreasing), b if none.
// A cycle node during the jumps: 16 bytes, one vector load per gather.
struct alignas(16) LrNode { int next, key, dist, pad; };

__device__ __forceinline__ int lr_lower_bound(const int* __restrict__ v, int a, int b, int t)
{
    while (a < b) {
        const int mid = a + ((b - a) >> 1);
        if (v[mid] < t) a = mid + 1; else b = mid;
    }
    return a;
}

// nodes[i] = (link, key, 0): key of a start is r for OpenCV's external starts (no run above touches
// it, or row 0), R + r for its internal starts (the previous run of the row touches the first run
// above it too), 2R (never first) for every other node.
__device__ __forceinline__ void lr_link_one(int r, int R, int h, const int* __restrict__ x0,
                                            const int* __restrict__ x1, const int* __restrict__ ry,
                                            const int* __restrict__ row_off, int* __restrict__ link,
                                            LrNode* __restrict__ nodes)
{
    const int y = ry[r], s = x0[r], e = x1[r];
    const int none = 2 * R;
    int ls, ks = none, le;
    if (y == 0) {
        ls = 2 * r + 1; ks = r;
    } else {
        const int a = row_off[y - 1], b = row_off[y];
        const int u = lr_lower_bound(x1, a, b, s - 1);            // first run above ending at >= s - 1
        if (u < b && x0[u] <= e + 1) {
            if (r > b && x1[r - 1] >= x0[u] - 1) { ls = 2 * (r - 1) + 1; ks = R + r; }
            else ls = 2 * u;
        } else {
            ls = 2 * r + 1; ks = r;
        }
    }
    if (y == h - 1) {
        le = 2 * r;
    } else {
        const int c = row_off[y + 1], d = row_off[y + 2];
        const int l = lr_lower_bound(x0, c, d, e + 2) - 1;        // last run below starting at <= e + 1
        if (l >= c && x1[l] >= s - 1) {
            if (r + 1 < c && x0[r + 1] <= x1[l] + 1) le = 2 * (r + 1);
            else le = 2 * l + 1;
        } else {
            le = 2 * r;
        }
    }
    link[2 * r] = ls;
    link[2 * r + 1] = le;
    LrNode v;
    v.next = ls; v.key = ks; v.dist = 0; v.pad = 0;
    nodes[2 * r] = v;
    v.next = le; v.key = none;
    nodes[2 * r + 1] = v;
}

extern "C" __global__ void lr_link(int R, int h, const int* __restrict__ x0, const int* __restrict__ x1,
                                   const int* __restrict__ ry, const int* __restrict__ row_off,
                                   int* __restrict__ link, LrNode* __restrict__ nodes)
{
    for (long long t = LR_FIRST; t < R; t += LR_STRIDE)
        lr_link_one((int)t, R, h, x0, x1, ry, row_off, link, nodes);
}

// One round on the cycles, windows of span nodes: (successor 2 * span ahead, least key over the
// 2 * span nodes from here, distance to its first occurrence). Keys of starts are unique, so once
// the window covers the cycle the distance is the one to the cycle's first point.
__device__ __forceinline__ void lr_jump_one(int i, int span, const LrNode* __restrict__ src, LrNode* __restrict__ dst)
{
    LrNode a = src[i];
    const LrNode b = src[a.next];
    a.next = b.next;
    if (b.key < a.key) { a.key = b.key; a.dist = span + b.dist; }
    dst[i] = a;
}

extern "C" __global__ void lr_jump(int n, int span, const LrNode* __restrict__ src, LrNode* __restrict__ dst)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_jump_one((int)t, span, src, dst);
}

__device__ __forceinline__ int lr_head(int key, int R) { return key < R ? 2 * key : 2 * (key - R); }

// Per key (2R of them, zeroed by the host): is_head[key] = 1 and len[key] = the cycle's length
// where key is a cycle's first point (its successor is length - 1 nodes before it).
__device__ __forceinline__ void lr_heads_one(int i, int R, const int* __restrict__ link, const LrNode* __restrict__ nodes,
                                            int* __restrict__ is_head, int* __restrict__ len)
{
    const int key = nodes[i].key;
    if (lr_head(key, R) != i) return;
    is_head[key] = 1;
    len[key] = nodes[link[i]].dist + 1;
}

extern "C" __global__ void lr_heads(int n, int R, const int* __restrict__ link, const LrNode* __restrict__ nodes,
                                    int* __restrict__ is_head, int* __restrict__ len)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_heads_one((int)t, R, link, nodes, is_head, len);
}

// ord / ends: inclusive prefix sums of is_head / len. Contour ord[key] - 1 starts at point
// ends[key] - len[key]; offsets[M] = n. hier: flat siblings [i + 1, i - 1, -1, -1].
extern "C" __global__ void lr_offsets(int n, int M, const int* __restrict__ is_head, const int* __restrict__ ord,
                                      const int* __restrict__ len, const int* __restrict__ ends,
                                      long long* __restrict__ offsets, int* __restrict__ hier)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE) {
        const int key = (int)t;
        if (key == 0) offsets[M] = n;
        if (!is_head[key]) continue;
        const int c = ord[key] - 1;
        offsets[c] = ends[key] - len[key];
        hier[4 * c + 0] = c + 1 < M ? c + 1 : -1;
        hier[4 * c + 1] = c - 1;
        hier[4 * c + 2] = -1;
        hier[4 * c + 3] = -1;
    }
}

// Point i of the cycles to points[base[c] + its place in the contour], c = the cycle's contour
// index: base is the offsets (cv2's order) or the starts of a layout grouped by length.
__device__ __forceinline__ void lr_emit_one(int i, const int* __restrict__ x0, const int* __restrict__ x1,
                                            const int* __restrict__ ry, const LrNode* __restrict__ nodes,
                                            const int* __restrict__ len, const int* __restrict__ ord,
                                            const long long* __restrict__ base, int2* __restrict__ points)
{
    const LrNode v = nodes[i];
    const int r = i >> 1;
    int2 p;
    p.x = (i & 1) ? x1[r] : x0[r];
    p.y = ry[r];
    points[base[ord[v.key] - 1] + (v.dist == 0 ? 0 : len[v.key] - v.dist)] = p;
}

extern "C" __global__ void lr_emit(int n, const int* __restrict__ x0, const int* __restrict__ x1,
                                   const int* __restrict__ ry, const LrNode* __restrict__ nodes,
                                   const int* __restrict__ len, const int* __restrict__ ord,
                                   const long long* __restrict__ base, int2* __restrict__ points)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_emit_one((int)t, x0, x1, ry, nodes, len, ord, base, points);
}
