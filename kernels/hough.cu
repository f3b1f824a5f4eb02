// Hough line transform kernels (cv2.HoughLines / HoughLinesWithAccumulator semantics).
//
// Pipeline, one stream, no host round trip until the caller needs the line count:
//   hough_collect_points  zero the accumulator, compact nonzero pixels into a point list
//   hough_vote_shared     one block per (angle, slice of points), votes in a shared-memory row
//   hough_vote_global     same votes with global atomics, for rows too long for shared memory
//   hough_find_maxima     cv2's 4-neighbour local-maximum rule, appends sort keys
//   hough_sort_emit       one block: bitonic sort of the keys, writes the lines (device + pinned host)
//   hough_emit            many blocks: writes lines from keys sorted elsewhere (large results)
//
// Arithmetic is written as explicit round-to-nearest float32 instructions (f32_add/f32_mul, kernels/ieee_f32.cuh):
// NVRTC contracts a*b+c into a fused multiply-add by default, while cv2's CPU build evaluates
// j*cos + i*sin as two rounded products and a rounded sum (SSE), subnormals included.
//
// Points are packed as (y << 16) | x when both sides fit in 16 bits, or as (y << 32) | x otherwise
// (compile with -DCVGPU_WIDE_POINTS); the order of the list does not matter because integer
// atomic adds commute (with use_edgeval too: cv2's int accumulator wraps the same way).

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

// counters[0]: number of points, counters[1]: number of local maxima.

extern "C" __global__ void hough_collect_points(
    const unsigned char* __restrict__ img, int rows, int cols, long long step,
    point_t* __restrict__ points, unsigned char* __restrict__ weights,
    int* __restrict__ counters, int* __restrict__ accum, long long accum_size)
{
    const long long nthreads = (long long)gridDim.x * gridDim.y * blockDim.x;
    const long long tid = ((long long)blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
    for (long long i = tid; i < accum_size; i += nthreads)
        accum[i] = 0;

    const int lane = threadIdx.x & 31;
    // Row-major 2-D walk: blockIdx.y strides over rows so that no per-pixel division is needed.
    for (int y = blockIdx.y; y < rows; y += gridDim.y) {
        const unsigned char* row = img + (long long)y * step;
        for (int base = blockIdx.x * blockDim.x; base < cols; base += gridDim.x * blockDim.x) {
            int x = base + threadIdx.x;
            unsigned char v = x < cols ? row[x] : 0;
            unsigned hits = __ballot_sync(FULL_MASK, v != 0);
            if (hits == 0)
                continue;
            int warp_base = 0;
            if (lane == 0)
                warp_base = atomicAdd(&counters[0], __popc(hits));
            warp_base = __shfl_sync(FULL_MASK, warp_base, 0);
            if (v) {
                int slot = warp_base + __popc(hits & ((1u << lane) - 1u));
                points[slot] = ((point_t)y << POINT_SHIFT) | (point_t)x;
                if (weights)
                    weights[slot] = v;
            }
        }
    }
}

// cv2: r = cvRound(j * tabCos[n] + i * tabSin[n]) in float32, round half to even.
__device__ __forceinline__ int hough_bin(point_t p, float c, float s)
{
    float x = (float)(long long)(p & POINT_MASK);
    float y = (float)(long long)(p >> POINT_SHIFT);
    return __float2int_rn(f32_add(f32_mul(x, c), f32_mul(y, s)));
}

// Votes of one warp for one angle, merged per run of equal bins. Points arrive in raster order
// within each collecting warp, and along a row r is monotonic in x, so equal bins sit in runs of
// neighbouring lanes; merging them removes the same-address atomic storms that horizontal
// segments cause near theta = pi/2. A value met in two separate runs is simply added twice.
// Returns the run total on the first lane of each run, 0 elsewhere.
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

// Accumulator layout as cv2: (numangle + 2) x (numrho + 2) int32, interior cell of (n, r) at
// (n + 1) * (numrho + 2) + r + 1. A bin outside the row is written at the flat index cv2 would
// use (it lands in a neighbour row or the border), dropped only outside the whole buffer.
__device__ __forceinline__ void hough_add_flat(int* accum, long long accum_size, long long flat, int v)
{
    if (v != 0 && flat >= 0 && flat < accum_size)
        atomicAdd(&accum[flat], v);
}

extern "C" __global__ void hough_vote_shared(
    const point_t* __restrict__ points, const unsigned char* __restrict__ weights,
    const int* __restrict__ counters, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numrho, int* __restrict__ accum, long long accum_size)
{
    extern __shared__ int row_votes[];
    const int width = numrho + 2;
    const int n = blockIdx.x;
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        row_votes[i] = 0;
    __syncthreads();

    const int npoints = counters[0];
    const int chunk = (npoints + gridDim.y - 1) / gridDim.y;
    const int begin = blockIdx.y * chunk;
    const int end = min(npoints, begin + chunk);
    const float c = tab_cos[n], s = tab_sin[n];
    const int offset = (numrho - 1) / 2;
    const long long row_base = (long long)(n + 1) * width;
    const bool weighted = weights != nullptr;

    for (int base = begin; base < end; base += blockDim.x) {
        int i = base + threadIdx.x;
        bool active = i < end;
        int col = 0, w = 1;
        if (active) {
            col = hough_bin(points[i], c, s) + offset + 1;
            if (weighted)
                w = weights[i];
        }
        int total = hough_warp_runs(col, active, w, weighted);
        if (total) {
            if (col >= 0 && col < width)
                atomicAdd(&row_votes[col], total);
            else
                hough_add_flat(accum, accum_size, row_base + col, total);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < width; i += blockDim.x)
        hough_add_flat(accum, accum_size, row_base + i, row_votes[i]);
}

extern "C" __global__ void hough_vote_global(
    const point_t* __restrict__ points, const unsigned char* __restrict__ weights,
    const int* __restrict__ counters, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numangle, int numrho, int angles_per_block,
    int* __restrict__ accum, long long accum_size)
{
    const int width = numrho + 2;
    const int npoints = counters[0];
    const int offset = (numrho - 1) / 2;
    const bool weighted = weights != nullptr;
    const int n0 = blockIdx.y * angles_per_block;
    const int n1 = min(numangle, n0 + angles_per_block);
    for (int base = blockIdx.x * blockDim.x; base < npoints; base += gridDim.x * blockDim.x) {
        int i = base + threadIdx.x;
        bool active = i < npoints;
        point_t p = active ? points[i] : 0;
        int w = (active && weighted) ? weights[i] : 1;
        for (int n = n0; n < n1; n++) {
            int col = active ? hough_bin(p, tab_cos[n], tab_sin[n]) + offset + 1 : 0;
            int total = hough_warp_runs(col, active, w, weighted);
            if (total)
                hough_add_flat(accum, accum_size, (long long)(n + 1) * width + col, total);
        }
    }
}

// Sort key: votes descending, then flat accumulator index ascending (cv2's hough_cmp_gt), as one
// ascending 64-bit key. Votes are int32 and may be negative after use_edgeval wrap-around.
__device__ __forceinline__ unsigned long long hough_key(int votes, unsigned int flat)
{
    unsigned int ordered = ~((unsigned int)votes ^ 0x80000000u);
    return ((unsigned long long)ordered << 32) | flat;
}

extern "C" __global__ void hough_find_maxima(
    const int* __restrict__ accum, int numangle, int numrho, int threshold,
    unsigned long long* __restrict__ keys, int* __restrict__ counters)
{
    const int width = numrho + 2;
    const long long cells = (long long)numangle * numrho;
    const int lane = threadIdx.x & 31;
    for (long long base = (long long)blockIdx.x * blockDim.x; base < cells;
         base += (long long)gridDim.x * blockDim.x) {
        long long cell = base + threadIdx.x;
        bool is_max = false;
        unsigned int flat = 0;
        int v = 0;
        if (cell < cells) {
            int n = (int)(cell / numrho);
            int r = (int)(cell - (long long)n * numrho);
            long long idx = (long long)(n + 1) * width + r + 1;
            v = accum[idx];
            is_max = v > threshold && v > accum[idx - 1] && v >= accum[idx + 1] &&
                     v > accum[idx - width] && v >= accum[idx + width];
            flat = (unsigned int)idx;
        }
        unsigned hits = __ballot_sync(FULL_MASK, is_max);
        if (hits == 0)
            continue;
        int warp_base = 0;
        if (lane == 0)
            warp_base = atomicAdd(&counters[1], __popc(hits));
        warp_base = __shfl_sync(FULL_MASK, warp_base, 0);
        if (is_max)
            keys[warp_base + __popc(hits & ((1u << lane) - 1u))] = hough_key(v, flat);
    }
}

// An invalid operation (0 * inf when theta is infinite) gives x86's default NaN, sign bit set;
// the GPU's canonical NaN is positive. Bit-exact output needs x86's.
__device__ __forceinline__ float x86_nan(float v)
{
    return v != v ? __int_as_float(0xffc00000) : v;
}

// Output values as the cv2 in use computes them, float32 throughout.
//   rho_mode 0 (OpenCV >= 4.13): (r - (numrho - 1) / 2) * rho, the integer offset used in voting
//   rho_mode 1 (OpenCV <  4.13): (r - (numrho - 1) * 0.5f) * rho, half a bin off for even numrho
//   theta: min_theta + n * theta, not the accumulated angle of the trig table
__device__ __forceinline__ void hough_write_line(
    unsigned long long key, int numrho, float rho, float theta, float min_theta, int rho_mode,
    int with_votes, float* out)
{
    unsigned int flat = (unsigned int)(key & 0xffffffffu);
    int votes = (int)(~(unsigned int)(key >> 32) ^ 0x80000000u);
    int width = numrho + 2;
    int n = (int)(flat / (unsigned int)width) - 1;
    int r = (int)(flat - (unsigned int)(n + 1) * width) - 1;
    float rho_bins = rho_mode == 0 ? (float)(r - (numrho - 1) / 2)
                                   : f32_sub((float)r, f32_mul((float)(numrho - 1), 0.5f));
    out[0] = x86_nan(f32_mul(rho_bins, rho));
    out[1] = x86_nan(f32_add(min_theta, f32_mul((float)n, theta)));
    if (with_votes)
        out[2] = (float)votes;
}

// One block. Sorts counters[1] keys when they fit in shared memory (capacity keys), writes the
// lines to out_dev and, when out_host is given (pinned, device-visible), to out_host too, with
// the count at host_count. Larger results are left for the host path (keys sorted by CuPy).
extern "C" __global__ void hough_sort_emit(
    const unsigned long long* __restrict__ keys, const int* __restrict__ counters, int capacity,
    int numrho, float rho, float theta, float min_theta, int rho_mode, int with_votes,
    float* __restrict__ out_dev, float* __restrict__ out_host, int* __restrict__ host_count)
{
    extern __shared__ unsigned long long sorted[];
    const int count = counters[1];
    if (count > capacity) {
        if (threadIdx.x == 0)
            *host_count = count;
        return;
    }
    int padded = 1;
    while (padded < count)
        padded <<= 1;
    for (int i = threadIdx.x; i < padded; i += blockDim.x)
        sorted[i] = i < count ? keys[i] : ~0ull;
    __syncthreads();
    for (int size = 2; size <= padded; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < padded; i += blockDim.x) {
                int j = i ^ stride;
                if (j > i) {
                    bool ascending = (i & size) == 0;
                    unsigned long long a = sorted[i], b = sorted[j];
                    if ((a > b) == ascending) {
                        sorted[i] = b;
                        sorted[j] = a;
                    }
                }
            }
            __syncthreads();
        }
    }
    const int per_line = with_votes ? 3 : 2;
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        float line[3];
        hough_write_line(sorted[i], numrho, rho, theta, min_theta, rho_mode, with_votes, line);
        for (int k = 0; k < per_line; k++) {
            out_dev[i * per_line + k] = line[k];
            if (out_host)
                out_host[i * per_line + k] = line[k];
        }
    }
    if (threadIdx.x == 0)
        *host_count = count;
}

extern "C" __global__ void hough_emit(
    const unsigned long long* __restrict__ sorted, int count, int numrho, float rho, float theta,
    float min_theta, int rho_mode, int with_votes, float* __restrict__ out)
{
    const int per_line = with_votes ? 3 : 2;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < count; i += gridDim.x * blockDim.x) {
        float line[3];
        hough_write_line(sorted[i], numrho, rho, theta, min_theta, rho_mode, with_votes, line);
        for (int k = 0; k < per_line; k++)
            out[(long long)i * per_line + k] = line[k];
    }
}
