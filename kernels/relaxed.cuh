// 64-bit words that several blocks read while others write them (list-ranking records, the
// detector's chained scan): each load and store whole and relaxed at GPU scope (single-copy
// atomic, never torn, never served from a stale L1 line). They order nothing else: a word that
// publishes other data needs a release / acquire or a fence beside it.

__device__ __forceinline__ unsigned long long relaxed_load_u64(const unsigned long long* p)
{
    unsigned long long v;
    asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

__device__ __forceinline__ void relaxed_store_u64(unsigned long long* p, unsigned long long v)
{
    asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
