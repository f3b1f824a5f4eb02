// List ranking records, shared by ranking.cu (one thread per record, one launch per round) and
// ranking_block.cu (the rounds inside one block or one cooperative grid).
//
// A record is (successor, suffix weight): the successor's index, negative at an end (-1, or -2 - j
// for "the next state is border j's first state"), and the weight summed from this record up to
// the successor. A jump replaces the successor by its successor and adds its weight, so after
// ceil(log2(L)) rounds every record of a chain of length L holds the total weight to the chain's
// end: the record's rank counted from the end. int2 as (x = successor, y = weight); the same 8
// bytes as one 64-bit word where a kernel must read and write a record whole.

#include "relaxed.cuh"

// One synchronous round for record i: reads src, writes dst.
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

// The 64-bit word form: successor in the low half, weight in the high half (int2's layout). Read
// and written whole, relaxed at GPU scope (single-copy atomic), because rank_jump_inplace updates
// records while other threads read them.
__device__ __forceinline__ unsigned long long rec_load(const unsigned long long* p) { return relaxed_load_u64(p); }

__device__ __forceinline__ void rec_store(unsigned long long* p, unsigned long long v) { relaxed_store_u64(p, v); }

__device__ __forceinline__ int rec_next(unsigned long long v) { return (int)(unsigned)v; }

// One jump: v's successor becomes w's, and w's weight is added to v's.
__device__ __forceinline__ unsigned long long rec_jump(unsigned long long v, unsigned long long w)
{
    return (w & 0xffffffffull) | ((unsigned long long)((unsigned)(v >> 32) + (unsigned)(w >> 32)) << 32);
}
