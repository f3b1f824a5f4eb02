// A chained scan over blocks in index order (a decoupled look-back): each block learns the sum of
// the counts of the blocks before it. It needs only that lower blocks were scheduled first, never
// that all blocks are resident at once. Used by the lines detector's direct write
// (kernels/cuda/hough.cu, ch_maxima) and the segment detector's maxima list and segment offsets
// (kernels/cuda/segments.cu, cs_maxima and cs_place).
//
// chain[b]: 0 (not yet published), CHAIN_SCAN_AGG | block b's own count, or CHAIN_SCAN_INCL | the
// count of blocks 0..b. Zero at launch; the caller's kernels reset the words for the next launch.

#include "relaxed.cuh"

#define CHAIN_SCAN_AGG (1ull << 62)
#define CHAIN_SCAN_INCL (1ull << 63)

// Called by warp 0 of each block (all its lanes) with the block's count: returns the count of the
// blocks before this one. Looks at 32 predecessors at a time, nearest first, and sums them up to
// the nearest inclusive one.
__device__ __forceinline__ int chain_scan_prefix(unsigned long long* chain, int own)
{
    const int lane = threadIdx.x & 31, b = blockIdx.x;
    if (b == 0) {
        if (lane == 0)
            relaxed_store_u64(&chain[0], CHAIN_SCAN_INCL | (unsigned)own);
        return 0;
    }
    if (lane == 0)
        relaxed_store_u64(&chain[b], CHAIN_SCAN_AGG | (unsigned)own);
    int prefix = 0;
    for (int end = b;;) {
        const int j = end - 1 - lane;
        const unsigned long long s = j >= 0 ? relaxed_load_u64(&chain[j]) : CHAIN_SCAN_INCL;
        const unsigned incl = __ballot_sync(FULL_MASK, (s & CHAIN_SCAN_INCL) != 0);
        const unsigned ready = __ballot_sync(FULL_MASK, (s >> 62) != 0);
        const int stop = incl ? __ffs(incl) - 1 : 31;
        const unsigned need = stop == 31 ? FULL_MASK : (2u << stop) - 1u;
        if ((ready & need) != need)
            continue;  // a block in the window has not published yet
        int v = lane <= stop ? (int)(unsigned)s : 0;
#pragma unroll
        for (int d = 16; d > 0; d >>= 1)
            v += __shfl_xor_sync(FULL_MASK, v, d);
        prefix += v;
        if (incl)
            break;
        end -= 32;
    }
    if (lane == 0)
        relaxed_store_u64(&chain[b], CHAIN_SCAN_INCL | (unsigned)(prefix + own));
    return prefix;
}
