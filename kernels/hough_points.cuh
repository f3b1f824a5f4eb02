// Point collection shared by kernels/hough.cu (cv2 semantics) and kernels/cuda_hough.cu
// (OpenCV-CUDA semantics): zero the vote accumulator and compact the nonzero pixels of an 8-bit
// image into a point list. The including file defines point_t and POINT_SHIFT; inlined by
// cvgpu._kernels where the .cu file says #include "hough_points.cuh".
//
// The order of the list never changes a vote count (integer atomic adds commute, with
// use_edgeval's wrap-around too); each warp's points are in raster order, so neighbouring lanes
// of a voting warp hold neighbouring pixels and equal bins come in runs.

#ifndef HOUGH_POINTS_ITERATIONS
#define HOUGH_POINTS_ITERATIONS 16
#endif

// Row of flat pixel index p: 32-bit division when it fits (a 64-bit one is a long software loop).
__device__ __forceinline__ long long hough_row_of(long long p, int cols)
{
    return p < 0x7fffffffLL ? (long long)((unsigned int)p / (unsigned int)cols) : p / cols;
}

// One block (256 threads) covers 256 * HOUGH_POINTS_ITERATIONS consecutive pixels of the raster,
// each warp one 32-pixel group per iteration. All of a thread's pixels are loaded before any is
// used: a loop of load-then-ballot waits one memory latency per iteration (16 us for 1024^2 on
// the H100, ncu). One atomic per block reserves the block's slots: one counter hit by every warp
// serialised in L2 (22 us at 1024^2 / 164k points).
__device__ __forceinline__ void hough_collect(
    const unsigned char* __restrict__ img, int cols, long long step, long long npix,
    point_t* __restrict__ points, unsigned char* __restrict__ weights, int* __restrict__ counter,
    int* __restrict__ accum, long long accum_size)
{
    __shared__ int warp_base[8];
    __shared__ int block_base;
    const long long nthreads = (long long)gridDim.x * blockDim.x;
    const long long tid = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    // Workspace accumulators come from the CuPy pool (256-byte aligned): int4 stores, then the tail.
    const long long quads = accum_size >> 2;
    int4* accum4 = reinterpret_cast<int4*>(accum);
    for (long long i = tid; i < quads; i += nthreads)
        accum4[i] = make_int4(0, 0, 0, 0);
    for (long long i = (quads << 2) + tid; i < accum_size; i += nthreads)
        accum[i] = 0;

    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    const long long first = (long long)blockIdx.x * (32LL * nwarps * HOUGH_POINTS_ITERATIONS) + warp * 32 + lane;
    if ((long long)blockIdx.x * (32LL * nwarps * HOUGH_POINTS_ITERATIONS) >= npix)
        return;  // a block launched only to help zero the accumulator (block-uniform)
    unsigned char v[HOUGH_POINTS_ITERATIONS];
    int y[HOUGH_POINTS_ITERATIONS];
#pragma unroll
    for (int it = 0; it < HOUGH_POINTS_ITERATIONS; it++) {
        const long long p = first + (long long)it * 32 * nwarps;
        v[it] = 0;
        y[it] = 0;
        if (p < npix) {
            y[it] = (int)hough_row_of(p, cols);
            v[it] = img[(long long)y[it] * step + (p - (long long)y[it] * cols)];
        }
    }
    unsigned hits[HOUGH_POINTS_ITERATIONS];
    int count = 0;
#pragma unroll
    for (int it = 0; it < HOUGH_POINTS_ITERATIONS; it++) {
        hits[it] = __ballot_sync(0xffffffffu, v[it] != 0);
        count += __popc(hits[it]);
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
    int slot = block_base + warp_base[warp];
#pragma unroll
    for (int it = 0; it < HOUGH_POINTS_ITERATIONS; it++) {
        if (v[it]) {
            const long long p = first + (long long)it * 32 * nwarps;
            const int at = slot + __popc(hits[it] & ((1u << lane) - 1u));
            points[at] = ((point_t)y[it] << POINT_SHIFT) | (point_t)(p - (long long)y[it] * cols);
            if (weights)
                weights[at] = v[it];
        }
        slot += __popc(hits[it]);
    }
}
