// Generic array operations of cvgpu's GPU paths (cvgpu/_device_ops.py), shipped compiled with the
// families' kernels: the CuPy operations they replace (casts, copies of strided arrays, arange,
// fancy-index gathers and scatters, fill, flatnonzero, cumsum, any / all, min / max) are compiled
// by CuPy through NVRTC on a machine's first call, which costs 50-100 ms each (issue 40).
//
// Every kernel reproduces the CuPy operation it replaces bit for bit: casts convert as C++'s
// static_cast does on the device (int -> float rounds to nearest even, double -> float rounds to
// nearest, subnormals kept: --ftz=false), sums are exact integer sums (int32 outputs keep the low
// 32 bits, as CuPy's cumsum into an int32 array does), indices are positions in row-major order.
//
// Prefix sums and compaction (cumsum, flatnonzero) work in tiles of SCAN_TILE elements, in three
// launches: every block sums its tile (dops_tile_sum_* / dops_tile_count_*), one block scans the
// tile sums in place and writes the grand total (dops_scan_partials), and every block scans its
// tile again from its base (dops_scan_* / dops_select_*). The host reads the total between the
// second and the third launch only where it needs a size (flatnonzero's output), as CuPy does.
//
// Elementwise kernels are grid-stride loops over 64-bit indices (launch any grid). Strided reads
// take up to four dimensions with byte strides (negative ones included): the host merges and
// drops dimensions first (cvgpu/_device_ops.py: _layout).

#include "block_scan.cuh"

#define SCAN_THREADS 1024
#define SCAN_ITEMS 4
#define SCAN_TILE (SCAN_THREADS * SCAN_ITEMS)

typedef unsigned char u8;

__device__ __forceinline__ long long grid_start() { return (long long)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long grid_step() { return (long long)gridDim.x * blockDim.x; }

// ------------------------------------------------------------------ scans and compaction

// What a scan adds up at index i: the value, or a flag (0/1) of a test on it.
struct ValU8 {
    const u8* p;
    __device__ long long operator()(long long i) const { return p[i]; }
};
struct ValI32 {
    const int* p;
    __device__ long long operator()(long long i) const { return p[i]; }
};
struct MaskU8 {  // (p[i] & mask) != 0, as flatnonzero(a & mask)
    const u8* p;
    unsigned mask;
    __device__ long long operator()(long long i) const { return (p[i] & mask) != 0u; }
};
struct BelowI32 {  // p[i] < bound, as flatnonzero(a < bound)
    const int* p;
    int bound;
    __device__ long long operator()(long long i) const { return p[i] < bound; }
};

// This thread's SCAN_ITEMS consecutive values of its block's tile (0 past n), and their sum.
template <class Val>
__device__ __forceinline__ long long load_tile(Val val, long long n, long long v[SCAN_ITEMS], long long* first)
{
    const long long i0 = (long long)blockIdx.x * SCAN_TILE + (long long)threadIdx.x * SCAN_ITEMS;
    long long own = 0;
    for (int q = 0; q < SCAN_ITEMS; ++q) {
        v[q] = i0 + q < n ? val(i0 + q) : 0;
        own += v[q];
    }
    *first = i0;
    return own;
}

template <class Val>
__device__ __forceinline__ void tile_sum(Val val, long long n, long long* partial)
{
    long long v[SCAN_ITEMS], i0, total;
    block_exclusive_sum(load_tile(val, n, v, &i0), &total);
    if (threadIdx.x == 0) partial[blockIdx.x] = total;
}

// Inclusive prefix sums of the values into out (T: int keeps the low 32 bits of each sum).
template <class Val, class T>
__device__ __forceinline__ void tile_scan(Val val, long long n, const long long* partial, T* out)
{
    long long v[SCAN_ITEMS], i0, total;
    long long run = partial[blockIdx.x] + block_exclusive_sum(load_tile(val, n, v, &i0), &total);
    for (int q = 0; q < SCAN_ITEMS; ++q) {
        run += v[q];
        if (i0 + q < n) out[i0 + q] = (T)run;
    }
}

// The indices of the flagged elements, ascending, at out[0 .. count).
template <class Flag, class T>
__device__ __forceinline__ void tile_select(Flag flag, long long n, const long long* partial, T* out)
{
    long long v[SCAN_ITEMS], i0, total;
    long long pos = partial[blockIdx.x] + block_exclusive_sum(load_tile(flag, n, v, &i0), &total);
    for (int q = 0; q < SCAN_ITEMS; ++q)
        if (v[q]) out[pos++] = (T)(i0 + q);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_tile_sum_u8(const u8* __restrict__ src, long long n,
                                                                              long long* __restrict__ partial)
{
    ValU8 val = {src};
    tile_sum(val, n, partial);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_tile_sum_i32(const int* __restrict__ src, long long n,
                                                                               long long* __restrict__ partial)
{
    ValI32 val = {src};
    tile_sum(val, n, partial);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_tile_count_mask_u8(
    const u8* __restrict__ src, long long n, unsigned mask, long long* __restrict__ partial)
{
    MaskU8 flag = {src, mask};
    tile_sum(flag, n, partial);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_tile_count_below_i32(
    const int* __restrict__ src, long long n, int bound, long long* __restrict__ partial)
{
    BelowI32 flag = {src, bound};
    tile_sum(flag, n, partial);
}

// One block: partial[0 .. nb) replaced by its exclusive prefix sums, *total = their sum.
extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_scan_partials(long long nb,
                                                                                long long* __restrict__ partial,
                                                                                long long* __restrict__ total)
{
    long long carry = 0;
    for (long long base = 0; base < nb; base += SCAN_TILE) {
        const long long i0 = base + (long long)threadIdx.x * SCAN_ITEMS;
        long long v[SCAN_ITEMS], own = 0, sum;
        for (int q = 0; q < SCAN_ITEMS; ++q) {
            v[q] = i0 + q < nb ? partial[i0 + q] : 0;
            own += v[q];
        }
        long long run = carry + block_exclusive_sum(own, &sum);
        for (int q = 0; q < SCAN_ITEMS; ++q) {
            if (i0 + q < nb) partial[i0 + q] = run;
            run += v[q];
        }
        carry += sum;
    }
    if (threadIdx.x == 0) *total = carry;
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_scan_u8_i32(
    const u8* __restrict__ src, long long n, const long long* __restrict__ partial, int* __restrict__ out)
{
    ValU8 val = {src};
    tile_scan(val, n, partial, out);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_scan_i32_i32(
    const int* __restrict__ src, long long n, const long long* __restrict__ partial, int* __restrict__ out)
{
    ValI32 val = {src};
    tile_scan(val, n, partial, out);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_scan_i32_i64(
    const int* __restrict__ src, long long n, const long long* __restrict__ partial, long long* __restrict__ out)
{
    ValI32 val = {src};
    tile_scan(val, n, partial, out);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_select_mask_u8_i32(
    const u8* __restrict__ src, long long n, unsigned mask, const long long* __restrict__ partial,
    int* __restrict__ out)
{
    MaskU8 flag = {src, mask};
    tile_select(flag, n, partial, out);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_select_mask_u8_i64(
    const u8* __restrict__ src, long long n, unsigned mask, const long long* __restrict__ partial,
    long long* __restrict__ out)
{
    MaskU8 flag = {src, mask};
    tile_select(flag, n, partial, out);
}

extern "C" __global__ void __launch_bounds__(SCAN_THREADS) dops_select_below_i32_i32(
    const int* __restrict__ src, long long n, int bound, const long long* __restrict__ partial,
    int* __restrict__ out)
{
    BelowI32 flag = {src, bound};
    tile_select(flag, n, partial, out);
}

// ------------------------------------------------------------------ strided copies and casts

// The byte offset of row-major element i of a (d0, d1, d2, d3) array with byte strides s0..s3.
__device__ __forceinline__ long long strided_offset(long long i, long long d1, long long d2, long long d3,
                                                    long long s0, long long s1, long long s2, long long s3)
{
    const long long i3 = i % d3;
    i /= d3;
    const long long i2 = i % d2;
    i /= d2;
    const long long i1 = i % d1;
    return (i / d1) * s0 + i1 * s1 + i2 * s2 + i3 * s3;
}

template <class T>
__device__ __forceinline__ void copy_strided(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, T* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step())
        out[i] = *(const T*)(src + strided_offset(i, d1, d2, d3, s0, s1, s2, s3));
}

// Element copies by size (the host passes 1 for elements it cannot read aligned).
extern "C" __global__ void dops_copy_strided_1(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, unsigned char* __restrict__ out)
{
    copy_strided(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_copy_strided_2(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, unsigned short* __restrict__ out)
{
    copy_strided(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_copy_strided_4(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, unsigned int* __restrict__ out)
{
    copy_strided(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_copy_strided_8(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, unsigned long long* __restrict__ out)
{
    copy_strided(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

// float16 bits -> float32, exact: cvt.f32.f16, except for NaNs, whose payload the host's conversion
// (numpy's, cv2's F16C) keeps where cvt gives the canonical NaN 0x7fffffff.
__device__ __forceinline__ float half_bits_to_float(unsigned short h)
{
#ifdef __CUDA_ARCH__
    if (((h >> 10) & 31u) == 31u && (h & 1023u))
        return __int_as_float((int)(((unsigned)(h >> 15) << 31) | 0x7f800000u | ((unsigned)(h & 1023u) << 13)));
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
#else
    const unsigned sign = (unsigned)(h >> 15) << 31, e = (h >> 10) & 31u, m = h & 1023u;
    unsigned bits;
    if (e == 31u) {
        bits = sign | 0x7f800000u | (m << 13);
    } else if (e) {
        bits = sign | ((e + 112u) << 23) | (m << 13);
    } else if (!m) {
        bits = sign;
    } else {  // subnormal half: normal float
        int k = 0;
        unsigned mm = m;
        while (!(mm & 1024u)) { mm <<= 1; ++k; }
        bits = sign | ((unsigned)(113 - k) << 23) | ((mm & 1023u) << 13);
    }
    union { unsigned u; float f; } c;
    c.u = bits;
    return c.f;
#endif
}

// astype(float32) of a strided array of type S: static_cast (bool as 0 / 1).
template <class S>
__device__ __forceinline__ float to_f32(S v) { return static_cast<float>(v); }

struct Bool8 { unsigned char b; };
struct Half16 { unsigned short h; };
template <> __device__ __forceinline__ float to_f32<Bool8>(Bool8 v) { return v.b ? 1.0f : 0.0f; }
template <> __device__ __forceinline__ float to_f32<Half16>(Half16 v) { return half_bits_to_float(v.h); }

template <class S>
__device__ __forceinline__ void cast_f32_strided(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step())
        out[i] = to_f32(*(const S*)(src + strided_offset(i, d1, d2, d3, s0, s1, s2, s3)));
}

extern "C" __global__ void dops_f32_from_b1(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<Bool8>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_u8(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<unsigned char>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_i8(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<signed char>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_u16(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<unsigned short>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_i16(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<short>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_u32(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<unsigned int>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_i32(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<int>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_u64(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<unsigned long long>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_i64(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<long long>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_f16(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<Half16>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

extern "C" __global__ void dops_f32_from_f64(
    const char* __restrict__ src, long long n, long long d1, long long d2, long long d3, long long s0, long long s1,
    long long s2, long long s3, float* __restrict__ out)
{
    cast_f32_strided<double>(src, n, d1, d2, d3, s0, s1, s2, s3, out);
}

// astype(int32) of int64 values: the low 32 bits.
extern "C" __global__ void dops_i32_from_i64(long long n, const long long* __restrict__ src, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = (int)src[i];
}

// A CV_8UC(cn) row pattern: byte j of every row is pattern[j % pattern_bytes] (GpuMat.setTo).
extern "C" __global__ void dops_fill_rows(unsigned char* __restrict__ dst, long long pitch, long long rows,
                                          long long row_bytes, const unsigned char* __restrict__ pattern,
                                          int pattern_bytes)
{
    const long long n = rows * row_bytes;
    for (long long i = grid_start(); i < n; i += grid_step()) {
        const long long r = i / row_bytes, j = i - r * row_bytes;
        dst[r * pitch + j] = pattern[j % pattern_bytes];
    }
}

// ------------------------------------------------------------------ arange, fill, gather, scatter

extern "C" __global__ void dops_iota_i64(long long n, long long* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = i;
}

extern "C" __global__ void dops_fill_i32(long long n, int value, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = value;
}

// out[i] = src[idx[i]]
extern "C" __global__ void dops_gather_i32_by_i32(long long n, const int* __restrict__ src,
                                                  const int* __restrict__ idx, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = src[idx[i]];
}

extern "C" __global__ void dops_gather_i32_by_i64(long long n, const int* __restrict__ src,
                                                  const long long* __restrict__ idx, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = src[idx[i]];
}

// out[idx[i]] = i (out[idx] = arange(n); the indices are distinct)
extern "C" __global__ void dops_scatter_iota_i32(long long n, const int* __restrict__ idx, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[idx[i]] = (int)i;
}

// out[idx[i]] = values[i] (the indices are distinct)
extern "C" __global__ void dops_scatter_i64_by_i64(long long n, const long long* __restrict__ values,
                                                   const long long* __restrict__ idx, long long* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[idx[i]] = values[i];
}

// out[i] = offsets[i + 1] - offsets[i], as int32 (lengths from offsets)
extern "C" __global__ void dops_diff_i64_i32(long long n, const long long* __restrict__ offsets, int* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = (int)(offsets[i + 1] - offsets[i]);
}

// Keys with their 32-bit halves swapped.
extern "C" __global__ void dops_swap_halves_u64(long long n, const unsigned long long* __restrict__ src,
                                                unsigned long long* __restrict__ out)
{
    for (long long i = grid_start(); i < n; i += grid_step()) out[i] = (src[i] << 32) | (src[i] >> 32);
}

// ------------------------------------------------------------------ tests into a flag
// *flag (zero beforehand) becomes 1 where the test holds for some element: any(), not all().

extern "C" __global__ void dops_any_differ_i32(long long n, const int* __restrict__ x, const int* __restrict__ y,
                                               int* __restrict__ flag)
{
    for (long long i = grid_start(); i < n; i += grid_step())
        if (x[i] != y[i]) *flag = 1;
}

extern "C" __global__ void dops_any_equal_i32(long long n, const int* __restrict__ x, int value, int* __restrict__ flag)
{
    for (long long i = grid_start(); i < n; i += grid_step())
        if (x[i] == value) *flag = 1;
}

// Some nonzero byte in a rows x cols image with row pitch `pitch` bytes.
extern "C" __global__ void dops_any_nonzero_u8_2d(long long rows, long long cols, long long pitch,
                                                  const u8* __restrict__ src, int* __restrict__ flag)
{
    const long long n = rows * cols;
    for (long long i = grid_start(); i < n; i += grid_step()) {
        const long long r = i / cols;
        if (src[r * pitch + (i - r * cols)]) *flag = 1;
    }
}

// ------------------------------------------------------------------ min and max

// out[0] = min, out[1] = max of src[0 .. n), n >= 1: the blocks' pairs into part[2 * block], then
// one block over them (dops_minmax_*_final with n = the blocks of the first launch). Exact for
// integers; for doubles the smaller / larger by <, so that with NaNs the pair is unspecified (the
// caller hands such inputs to cv2).
template <class T>
__device__ __forceinline__ void minmax_block(const T* src, long long n, long long stride_pairs, T* out)
{
    __shared__ T lo_s[256], hi_s[256];
    // src[0] seeds every thread: one more copy of an element leaves min and max as they are.
    T lo = src[0], hi = src[stride_pairs ? 1 : 0];
    for (long long i = grid_start(); i < n; i += grid_step()) {
        const T a = src[stride_pairs ? 2 * i : i], b = src[stride_pairs ? 2 * i + 1 : i];
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    lo_s[threadIdx.x] = lo;
    hi_s[threadIdx.x] = hi;
    __syncthreads();
    for (int s = blockDim.x >> 1; s > 0; s >>= 1) {
        if ((int)threadIdx.x < s) {
            const T a = lo_s[threadIdx.x + s], b = hi_s[threadIdx.x + s];
            lo_s[threadIdx.x] = a < lo_s[threadIdx.x] ? a : lo_s[threadIdx.x];
            hi_s[threadIdx.x] = b > hi_s[threadIdx.x] ? b : hi_s[threadIdx.x];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        out[2 * blockIdx.x] = lo_s[0];
        out[2 * blockIdx.x + 1] = hi_s[0];
    }
}

extern "C" __global__ void __launch_bounds__(256) dops_minmax_i32(const int* __restrict__ src, long long n,
                                                                  int* __restrict__ part)
{
    minmax_block(src, n, 0, part);
}

extern "C" __global__ void __launch_bounds__(256) dops_minmax_i32_final(const int* __restrict__ part, long long n,
                                                                        int* __restrict__ out)
{
    minmax_block(part, n, 1, out);
}

extern "C" __global__ void __launch_bounds__(256) dops_minmax_f64(const double* __restrict__ src, long long n,
                                                                  double* __restrict__ part)
{
    minmax_block(src, n, 0, part);
}

extern "C" __global__ void __launch_bounds__(256) dops_minmax_f64_final(const double* __restrict__ part, long long n,
                                                                        double* __restrict__ out)
{
    minmax_block(part, n, 1, out);
}
