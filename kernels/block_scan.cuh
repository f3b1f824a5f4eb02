// One block's exclusive prefix sum of one 64-bit value a thread (kernels/device_ops.cu's scans,
// kernels/lms/lms.cu's plan): the threads' values scanned by warp shuffles, the warp totals by the
// first warp. Every thread of the block must call it (it holds two barriers) with blockDim.x a
// multiple of 32, at most 1024. Returns the sum of the values of the threads before this one and
// sets *total to the block's sum. Shared scratch is static: calls follow each other safely, the
// barrier at the end keeps the next call's writes after this call's reads.

__device__ __forceinline__ long long block_exclusive_sum(long long own, long long* total)
{
    __shared__ long long bs_warp[32];
    __shared__ long long bs_total;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    long long incl = own;
    for (int d = 1; d < 32; d <<= 1) {
        const long long y = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d) incl += y;
    }
    if (lane == 31) bs_warp[warp] = incl;
    __syncthreads();
    if (warp == 0) {
        const long long w = lane < warps ? bs_warp[lane] : 0;
        long long wi = w;
        for (int d = 1; d < 32; d <<= 1) {
            const long long y = __shfl_up_sync(0xffffffffu, wi, d);
            if (lane >= d) wi += y;
        }
        bs_warp[lane] = wi - w;
        if (lane == 31) bs_total = wi;
    }
    __syncthreads();
    const long long before = bs_warp[warp] + incl - own;
    *total = bs_total;
    __syncthreads();
    return before;
}
