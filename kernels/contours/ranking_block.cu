// The family's kernels whose threads work together (cvgpu/contours/_ranking.py): list ranking
// (ranking.cuh's records) inside one block's shared memory or across one cooperative grid, and the
// one-block sort and scan that stand in for CuPy's argsort and cumsum on small inputs. Each
// replaces several launches (or a library call that waits for the stream) by one launch; the
// host picks them by size (TUNING.jump_shared_max, tree_sort_small_max, offsets_scan_max) and
// falls back to ranking.cu's one-launch-a-round kernels and CuPy where they do not apply.
//
// rank_jump_inplace is loaded from a module of its own (cooperative=True: CuPy launches it with
// cuLaunchCooperativeKernel, all blocks resident at once, which its grid barrier needs).
//
// Not built on the host: tests/contours/kernel_host.py runs a kernel's threads one after another,
// which cannot pass a block or grid barrier; the host tests take ranking.cu's forms instead.

#include "ranking.cuh"

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

// Words (32 records each) one warp jumps at once, their loads in flight together: one after another
// each costs three dependent L2 trips. 4, at one block of TUNING.jump_block threads a SM: chosen on
// the ranked lists of the "contours" rows at 1232x1028 (compat_matrix/raw/contours-rank-jump-ab.txt).
#ifndef JUMP_BATCH
#define JUMP_BATCH 4
#endif
// Jumps a record takes in one round (each from the value its successor holds then): two quarter
// the distance left per round where one halves it, so fewer rounds and grid barriers for a second
// dependent load a round ("contours-frames" rows; HISTORY, "The walk states' jump: two steps a
// round").
#ifndef JUMP_STEPS
#define JUMP_STEPS 2
#endif

// Pointer jumping in place, in rounds, in one cooperative launch (one launch, where a launch a
// round costs host time every round). Each warp owns the words (32 consecutive records
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
                bool moved[JUMP_BATCH];
#pragma unroll
                for (int b = 0; b < JUMP_BATCH; b++) moved[b] = false;
#pragma unroll
                for (int step = 0; step < JUMP_STEPS; step++) {
#pragma unroll
                    for (int b = 0; b < JUMP_BATCH; b++) {
                        act[b] = act[b] && rec_next(v[b]) >= 0;
                        if (act[b]) w[b] = rec_load(rec + rec_next(v[b]));
                    }
#pragma unroll
                    for (int b = 0; b < JUMP_BATCH; b++) {
                        if (act[b]) {
                            v[b] = rec_jump(v[b], w[b]);
                            moved[b] = true;
                        }
                    }
                }
#pragma unroll
                for (int b = 0; b < JUMP_BATCH; b++) {
                    bool still = false;
                    if (moved[b]) {
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
// and its fences (lists of a few thousand records, such as the tree's Euler tour: see
// TUNING.jump_shared_max). The same in-place rounds and the same stop rule, so every record that
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

// The order of tree_sort_keys (ranking.cu) for m <= 16384 nodes (TUNING.tree_sort_small_max)
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
// host uses cp.cumsum above TUNING.offsets_scan_max contours).
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
