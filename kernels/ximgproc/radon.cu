// cvgpu: opencv-contrib's cv::ximgproc::RadonTransform, bit-exact with OpenCV 5.0 on x86-64.
//
// OpenCV rotates an n x n image once per angle (warpAffine, INTER_LINEAR, constant 0 border) and
// sums each row of the rotated image (reduce, dim 1). Here one warp owns one output row of one angle:
// it computes the warped samples of that row on the fly and sums them, in the summation order
// OpenCV uses. Nothing rotated is ever stored. Block = 8 warps = 8 consecutive rows of one angle.
//
// Floating point: every operation is written with an explicit round-to-nearest intrinsic
// (f32_mul, f32_add, f32_fma, __dmul_rn, __dadd_rn, ...). NVCC would otherwise contract
// a*b + c into an FMA wherever it likes; OpenCV's x86 code fuses exactly where its source uses
// v_fma or where GCC contracted the AVX2-dispatched scalar code, and nowhere else. The places are
// documented beside each expression; tests/models/radon_model.py is the numpy model these mirror and
// tests/ximgproc/test_radon.py proves that model equal to cv2.ximgproc.RadonTransform.

#define FULL_MASK 0xffffffffu
#define ROWS_PER_BLOCK 8

// ------------------------------------------------------------------ warp source
// The n x n image OpenCV rotates: the transposed source, either padded (centred) into the square
// of side ceil(sqrt(r^2 + c^2)), or the centred min(r, c) square masked by cv::circle(FILLED).
// img[yy][xx] = src[xx + ox][yy + oy] (transposed) when inside, else 0; with a mask, only where
// |xx - n/2| <= halfwidth[yy]. A 32 x 32 tile transpose through shared memory.
template <typename T>
__device__ __forceinline__ void prepare_tile(const T* __restrict__ src, long long src_pitch, int src_rows,
                                             int src_cols, T* __restrict__ img, int n, int oy, int ox,
                                             const int* __restrict__ halfwidth) {
    __shared__ T tile[32][33];
    const int xx0 = blockIdx.x * 32, yy0 = blockIdx.y * 32;
    // Read: source row r = xx + ox (varies with xx), source col c = yy + oy (contiguous in memory).
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const int r = xx0 + i + ox;
        const int c = yy0 + threadIdx.x + oy;
        T v = T(0);
        if (r >= 0 && r < src_rows && c >= 0 && c < src_cols) v = src[(long long)r * src_pitch + c];
        tile[i][threadIdx.x] = v;  // tile[xx offset][yy offset]
    }
    __syncthreads();
    for (int i = threadIdx.y; i < 32; i += blockDim.y) {
        const int yy = yy0 + i, xx = xx0 + threadIdx.x;
        if (yy < n && xx < n) {
            T v = tile[threadIdx.x][i];
            if (halfwidth != nullptr) {
                const int hw = halfwidth[yy];
                const int d = xx - n / 2;
                if (hw < 0 || d > hw || -d > hw) v = T(0);
            }
            img[(long long)yy * n + xx] = v;
        }
    }
}

extern "C" __global__ void radon_prepare_u8(const unsigned char* src, long long pitch, int rows, int cols,
                                            unsigned char* img, int n, int oy, int ox, const int* hw) {
    prepare_tile<unsigned char>(src, pitch, rows, cols, img, n, oy, ox, hw);
}
extern "C" __global__ void radon_prepare_f32(const float* src, long long pitch, int rows, int cols, float* img,
                                             int n, int oy, int ox, const int* hw) {
    prepare_tile<float>(src, pitch, rows, cols, img, n, oy, ox, hw);
}
extern "C" __global__ void radon_prepare_f64(const double* src, long long pitch, int rows, int cols, double* img,
                                             int n, int oy, int ox, const int* hw) {
    prepare_tile<double>(src, pitch, rows, cols, img, n, oy, ox, hw);
}

// ------------------------------------------------------------------ 8U / 32F sampling
// OpenCV 5.0 warpAffineLinearInvoker_{8UC1,32FC1} (warp_kernels.simd.hpp, AVX2 build: 16 pixels
// per vector step). The inverse matrix is rounded to float32 (m[0..5] here).
//   vector part (x < nvec = n - n % 16):  sx = fma(M0, x, fl(fl(y*M1) + M2))      (v_fma; the
//                                         row term is computed once per row, unfused)
//   scalar tail (x >= nvec):              sx = fl(fma(x, M0, fl(y*M1)) + M2)      (GCC contracts
//                                         x*M[0] + y*M[1] + M[2] this way in the AVX2 unit)
// Interpolation (both parts, fused the same way): v0 = fma(ax, p01-p00, p00),
// v1 = fma(ax, p11-p10, p10), v = fma(ay, v1-v0, v0); pixels outside the image read as 0.
struct RowF {
    float m0, m3, row_x, row_y, ym1, ym4, m2, m5;
};

__device__ __forceinline__ RowF row_setup_f(const float* __restrict__ m, int y) {
    RowF r;
    const float fy = (float)y;
    r.m0 = m[0];
    r.m3 = m[3];
    r.m2 = m[2];
    r.m5 = m[5];
    r.ym1 = f32_mul(fy, m[1]);
    r.ym4 = f32_mul(fy, m[4]);
    r.row_x = f32_add(r.ym1, m[2]);
    r.row_y = f32_add(r.ym4, m[5]);
    return r;
}

template <typename T>
__device__ __forceinline__ float fetch(const T* __restrict__ img, int n, int iy, int ix) {
    if ((unsigned)ix < (unsigned)n && (unsigned)iy < (unsigned)n) return (float)__ldg(img + (long long)iy * n + ix);
    return 0.0f;
}

template <typename T>
__device__ __forceinline__ float sample_f(const T* __restrict__ img, int n, int nvec, const RowF& r, int x) {
    const float fx = (float)x;
    float sx, sy;
    if (x < nvec) {
        sx = f32_fma(r.m0, fx, r.row_x);
        sy = f32_fma(r.m3, fx, r.row_y);
    } else {
        sx = f32_add(f32_fma(fx, r.m0, r.ym1), r.m2);
        sy = f32_add(f32_fma(fx, r.m3, r.ym4), r.m5);
    }
    const float flx = f32_floor(sx), fly = f32_floor(sy);
    const int ix = (int)flx, iy = (int)fly;
    const float ax = f32_sub(sx, flx), ay = f32_sub(sy, fly);  // exact
    const float p00 = fetch(img, n, iy, ix), p01 = fetch(img, n, iy, ix + 1);
    const float p10 = fetch(img, n, iy + 1, ix), p11 = fetch(img, n, iy + 1, ix + 1);
    const float v0 = f32_fma(ax, f32_sub(p01, p00), p00);
    const float v1 = f32_fma(ax, f32_sub(p11, p10), p10);
    return f32_fma(ay, f32_sub(v1, v0), v0);
}

// ------------------------------------------------------------------ 64F sampling
// warpAffine's classic path for 64F: WarpAffineInvoker's fixed-point coordinates (AB_BITS = 10,
// INTER_BITS = 5, round_delta = 16, cvRound = round half to even) and remapBilinear with the float
// coefficient table BilinearTab_f, summed left to right in double (OpenCV's baseline SSE3 code has
// no FMA, hence __dmul_rn/__dadd_rn).
struct RowD {
    double m0, m3;
    int x0, y0;
};

__device__ __forceinline__ RowD row_setup_d(const double* __restrict__ m, int y) {
    RowD r;
    const double fy = (double)y;
    r.m0 = m[0];
    r.m3 = m[3];
    r.x0 = __double2int_rn(__dmul_rn(__dadd_rn(__dmul_rn(m[1], fy), m[2]), 1024.0)) + 16;
    r.y0 = __double2int_rn(__dmul_rn(__dadd_rn(__dmul_rn(m[4], fy), m[5]), 1024.0)) + 16;
    return r;
}

__device__ __forceinline__ double fetch_d(const double* __restrict__ img, int n, int iy, int ix) {
    if ((unsigned)ix < (unsigned)n && (unsigned)iy < (unsigned)n) return __ldg(img + (long long)iy * n + ix);
    return 0.0;
}

__device__ __forceinline__ int sat_short(int v) { return v < -32768 ? -32768 : (v > 32767 ? 32767 : v); }

__device__ __forceinline__ double sample_d(const double* __restrict__ img, int n, const RowD& r, int x) {
    const double fx = (double)x;
    const int adelta = __double2int_rn(__dmul_rn(__dmul_rn(r.m0, fx), 1024.0));
    const int bdelta = __double2int_rn(__dmul_rn(__dmul_rn(r.m3, fx), 1024.0));
    const int X = (r.x0 + adelta) >> 5;
    const int Y = (r.y0 + bdelta) >> 5;
    const int sx = sat_short(X >> 5), sy = sat_short(Y >> 5);
    // BilinearTab_f[(Y & 31) * 32 + (X & 31)]: products of (1 - k/32, k/32), exact in float.
    const float tx1 = (float)(X & 31) * (1.0f / 32), ty1 = (float)(Y & 31) * (1.0f / 32);
    const float tx0 = 1.0f - tx1, ty0 = 1.0f - ty1;
    const double w0 = (double)(ty0 * tx0), w1 = (double)(ty0 * tx1);
    const double w2 = (double)(ty1 * tx0), w3 = (double)(ty1 * tx1);
    double v = __dmul_rn(fetch_d(img, n, sy, sx), w0);
    v = __dadd_rn(v, __dmul_rn(fetch_d(img, n, sy, sx + 1), w1));
    v = __dadd_rn(v, __dmul_rn(fetch_d(img, n, sy + 1, sx), w2));
    v = __dadd_rn(v, __dmul_rn(fetch_d(img, n, sy + 1, sx + 1), w3));
    return v;
}

// ------------------------------------------------------------------ the transforms
// Grid: x = angle, y = group of 8 rows. out is n x num_angles, row-major (cv2's layout).

// 8U: each sample rounds half to even and saturates to 0..255 (v_round + v_pack_u); the row sum is
// an exact int32, so any order will do.
extern "C" __global__ void __launch_bounds__(256) radon_u8(const unsigned char* __restrict__ img, int n, int nvec,
                                                           int num_angles, const float* __restrict__ mats,
                                                           int* __restrict__ out) {
    const int a = blockIdx.x;
    const int y = blockIdx.y * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (y >= n) return;
    const RowF r = row_setup_f(mats + 6 * (long long)a, y);
    int acc = 0;
    for (int x = lane; x < n; x += 32) {
        int v = __float2int_rn(sample_f(img, n, nvec, r, x));
        acc += v < 0 ? 0 : (v > 255 ? 255 : v);
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(FULL_MASK, acc, off);
    if (lane == 0) out[(long long)y * num_angles + a] = acc;
}

// 8U through the texture unit (the speed path). The source lives in a CUDA array; one gather
// (tld4) fetches the 2x2 neighbourhood of a sample, the border address mode supplies the zeros
// outside the image, and the block-linear layout keeps a rotated line's texels close. The
// arithmetic is sample_f's, operation for operation; only the way to floor and the int<->float
// conversions differ, and those are exact:
//   floor(s) + 1.5*2^23 = s + 1.5*2^23 rounded down (ulp 1 there; |s| < 2^22 for any image a
//   gather texture can hold), so floor(s) = that - 1.5*2^23, exactly, subnormal s included
//   (add.rm keeps them);
//   float(p) for a byte p is bits(2^23 + p) - 2^23, and P01 - P00 of two such biased values is
//   exactly p01 - p00, the f32_sub of the exact floats;
//   round-half-even(v) for v in [-0.5, 255.5] is bits(v + 1.5*2^23) - bits(1.5*2^23), the add
//   rounding to nearest even at ulp 1. v never leaves [0, 255] by more than a rounding (each
//   fma is a convex combination of values in 0..255), so the 0..255 saturation never acts.
// TRANSPOSED: the texture is the caller's src (rows x cols) and img(xx, yy) = src[xx+ox][yy+oy],
// so the gather runs at (yy + oy + 1, xx + ox + 1) and its components come transposed; else the
// texture is the prepared n x n image (crop + circle mask) and the offsets are 0.
#define RADON_MAGIC 12582912.0f

__device__ __forceinline__ float f32_add_rm(float a, float b) {
    float d;
    asm("add.rm.f32 %0, %1, %2;" : "=f"(d) : "f"(a), "f"(b));
    return d;
}

template <bool TRANSPOSED>
__device__ __forceinline__ unsigned sample_tex_u8(cudaTextureObject_t tex, float sx, float sy, float ou, float ov) {
    const float rx = f32_add_rm(sx, RADON_MAGIC), ry = f32_add_rm(sy, RADON_MAGIC);
    const float flx = f32_sub(rx, RADON_MAGIC), fly = f32_sub(ry, RADON_MAGIC);
    const float ax = f32_sub(sx, flx), ay = f32_sub(sy, fly);
    // tld4 components: x = (u0, v1), y = (u1, v1), z = (u1, v0), w = (u0, v0).
    unsigned p00, p01, p10, p11;
    if (TRANSPOSED) {
        const uchar4 q = tex2Dgather<uchar4>(tex, f32_add(fly, ou), f32_add(flx, ov), 0);
        p00 = q.w; p01 = q.x; p10 = q.z; p11 = q.y;
    } else {
        const uchar4 q = tex2Dgather<uchar4>(tex, f32_add(flx, ou), f32_add(fly, ov), 0);
        p00 = q.w; p01 = q.z; p10 = q.x; p11 = q.y;
    }
    const float b00 = __uint_as_float(0x4B000000u | p00), b01 = __uint_as_float(0x4B000000u | p01);
    const float b10 = __uint_as_float(0x4B000000u | p10), b11 = __uint_as_float(0x4B000000u | p11);
    const float v0 = f32_fma(ax, f32_sub(b01, b00), f32_sub(b00, 8388608.0f));
    const float v1 = f32_fma(ax, f32_sub(b11, b10), f32_sub(b10, 8388608.0f));
    const float v = f32_fma(ay, f32_sub(v1, v0), v0);
    return __float_as_uint(f32_add(v, RADON_MAGIC)) - 0x4B400000u;
}

// Narrows [t0, t1] to the x where lo <= m * x + c <= hi (exact arithmetic; see radon_u8_tex_body
// for why float rounding here cannot drop a sample that matters).
__device__ __forceinline__ void clip_to_band(float m, float c, float lo, float hi, float& t0, float& t1) {
    if (m > 0.0f) {
        t0 = fmaxf(t0, (lo - c) / m);
        t1 = fminf(t1, (hi - c) / m);
    } else if (m < 0.0f) {
        t0 = fmaxf(t0, (hi - c) / m);
        t1 = fminf(t1, (lo - c) / m);
    } else if (!(c >= lo && c <= hi)) {
        t1 = -1.0f;
    }
}

template <bool TRANSPOSED>
__device__ __forceinline__ void radon_u8_tex_body(cudaTextureObject_t tex, int n, int nvec, int num_angles,
                                                  const float* __restrict__ mats, float ou, float ov,
                                                  float sx_lo, float sx_hi, float sy_lo, float sy_hi,
                                                  int* __restrict__ out) {
    const int a = blockIdx.x;
    const int y = blockIdx.y * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (y >= n) return;
    const RowF r = row_setup_f(mats + 6 * (long long)a, y);
    // Only samples whose 2x2 neighbourhood touches the source can be nonzero: a sample outside
    // [sx_lo, sx_hi) x [sy_lo, sy_hi) gathers four border zeros and adds exactly 0, so the row
    // visits only the columns whose sample lies in that box (about half of the padded square for
    // a square source). Bounds widened by 1 in the plane and 1-2 columns: the float samples are
    // within 0.01 of the exact affine map and the division errs by less than 0.01 column for
    // any x in [0, n), so no column that can be nonzero is left out; the columns visited are
    // computed exactly as before.
    float t0 = 0.0f, t1 = (float)n;
    clip_to_band(r.m0, r.row_x, sx_lo - 1.0f, sx_hi + 1.0f, t0, t1);
    clip_to_band(r.m3, r.row_y, sy_lo - 1.0f, sy_hi + 1.0f, t0, t1);
    t0 = fmaxf(t0, 0.0f);
    t1 = fminf(t1, (float)n);
    const int xs = t0 <= t1 ? max(0, (int)floorf(t0) - 1) : n;
    const int xe = t0 <= t1 ? min(n, (int)ceilf(t1) + 2) : n;
    unsigned acc = 0;
    int x = xs + lane;
    float fx = (float)x;  // x < 2^24: adding 32 stays exact
    const int vec_end = min(xe, nvec);
#pragma unroll 4
    for (; x < vec_end; x += 32, fx += 32.0f)
        acc += sample_tex_u8<TRANSPOSED>(tex, f32_fma(r.m0, fx, r.row_x), f32_fma(r.m3, fx, r.row_y), ou, ov);
    // The scalar-tail columns (x >= nvec) use cv2's other rounding.
    x = max(xs, nvec) + lane;
    fx = (float)x;
    for (; x < xe; x += 32, fx += 32.0f)
        acc += sample_tex_u8<TRANSPOSED>(tex, f32_add(f32_fma(fx, r.m0, r.ym1), r.m2),
                                         f32_add(f32_fma(fx, r.m3, r.ym4), r.m5), ou, ov);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) acc += __shfl_down_sync(FULL_MASK, acc, off);
    if (lane == 0) out[(long long)y * num_angles + a] = (int)acc;
}

extern "C" __global__ void __launch_bounds__(256) radon_u8_tex_t(cudaTextureObject_t tex, int n, int nvec, int num_angles,
                                                                 const float* __restrict__ mats, float ou, float ov,
                                                                 float sx_lo, float sx_hi, float sy_lo, float sy_hi,
                                                                 int* __restrict__ out) {
    radon_u8_tex_body<true>(tex, n, nvec, num_angles, mats, ou, ov, sx_lo, sx_hi, sy_lo, sy_hi, out);
}

extern "C" __global__ void __launch_bounds__(256) radon_u8_tex(cudaTextureObject_t tex, int n, int nvec, int num_angles,
                                                               const float* __restrict__ mats, float ou, float ov,
                                                               float sx_lo, float sx_hi, float sy_lo, float sy_hi,
                                                               int* __restrict__ out) {
    radon_u8_tex_body<false>(tex, n, nvec, num_angles, mats, ou, ov, sx_lo, sx_hi, sy_lo, sy_hi, out);
}

// 32F -> 64F: reduce goes through IPP's ippiSum_32f_C1R (ippAlgHintAccurate): two 4-lane double
// accumulators over blocks of 8 (element w feeds chain w % 8 while w < n8 = n - n % 8), the chains
// folded as lane l = chain l + chain (l + 4), then (l0 + l1) + (l2 + l3), then the last n % 8
// elements added in order. Lanes 0..7 of the warp keep the 8 chains; all 32 lanes compute samples,
// which are handed to their chain in index order by shuffles.
extern "C" __global__ void __launch_bounds__(256) radon_f32(const float* __restrict__ img, int n, int nvec,
                                                            int num_angles, const float* __restrict__ mats,
                                                            double* __restrict__ out) {
    const int a = blockIdx.x;
    const int y = blockIdx.y * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (y >= n) return;
    const RowF r = row_setup_f(mats + 6 * (long long)a, y);
    const int n8 = n - n % 8;
    const int chain = lane & 7;
    double acc = 0.0, s = 0.0;
    for (int base = 0; base < n; base += 32) {
        const int x = base + lane;
        s = x < n ? f32_to_f64(sample_f(img, n, nvec, r, x)) : 0.0;
#pragma unroll
        for (int q = 0; q < 4; q++) {
            const double v = __shfl_sync(FULL_MASK, s, chain + 8 * q);
            if (lane < 8 && base + chain + 8 * q < n8) acc = __dadd_rn(acc, v);
        }
    }
    // The tail n8..n-1 lies in the last 32-block, whose samples are still in s.
    const double hi = __shfl_sync(FULL_MASK, acc, (lane & 3) + 4);
    const double lanev = __dadd_rn(acc, hi);  // lanes 0..3: chain l + chain l+4
    const double l0 = __shfl_sync(FULL_MASK, lanev, 0), l1 = __shfl_sync(FULL_MASK, lanev, 1);
    const double l2 = __shfl_sync(FULL_MASK, lanev, 2), l3 = __shfl_sync(FULL_MASK, lanev, 3);
    double t = __dadd_rn(__dadd_rn(l0, l1), __dadd_rn(l2, l3));
    for (int w = n8; w < n; w++) {
        const double v = __shfl_sync(FULL_MASK, s, w & 31);
        t = __dadd_rn(t, v);
    }
    if (lane == 0) out[(long long)y * num_angles + a] = t;
}

// 64F -> 64F: OpenCV 5.0's reduce: four 4-lane double accumulators over blocks of 16 (element w
// feeds chain w % 16 while w < n16), folded per lane l as (c_l + c_{l+4}) + (c_{l+8} + c_{l+12}),
// then blocks of 4 added lane-wise up to n4 = n - n % 4, then (l0 + l1) + (l2 + l3), then the last
// n % 4 elements in order. Lanes 0..15 keep the 16 chains.
extern "C" __global__ void __launch_bounds__(256) radon_f64(const double* __restrict__ img, int n,
                                                            int num_angles, const double* __restrict__ mats,
                                                            double* __restrict__ out) {
    const int a = blockIdx.x;
    const int y = blockIdx.y * ROWS_PER_BLOCK + (threadIdx.x >> 5);
    const int lane = threadIdx.x & 31;
    if (y >= n) return;
    const RowD r = row_setup_d(mats + 6 * (long long)a, y);
    const int n16 = n - n % 16, n4 = n - n % 4;
    const int chain = lane & 15;
    double acc = 0.0, s = 0.0;
    for (int base = 0; base < n; base += 32) {
        const int x = base + lane;
        s = x < n ? sample_d(img, n, r, x) : 0.0;
#pragma unroll
        for (int q = 0; q < 2; q++) {
            const double v = __shfl_sync(FULL_MASK, s, chain + 16 * q);
            if (lane < 16 && base + chain + 16 * q < n16) acc = __dadd_rn(acc, v);
        }
    }
    const int l = lane & 3;
    const double c0 = __shfl_sync(FULL_MASK, acc, l), c1 = __shfl_sync(FULL_MASK, acc, l + 4);
    const double c2 = __shfl_sync(FULL_MASK, acc, l + 8), c3 = __shfl_sync(FULL_MASK, acc, l + 12);
    double lanev = __dadd_rn(__dadd_rn(c0, c1), __dadd_rn(c2, c3));
    // n16..n-1 lie in the last 32-block, whose samples are still in s.
    for (int w = n16; w < n4; w += 4) {
        const double v = __shfl_sync(FULL_MASK, s, (w + l) & 31);
        lanev = __dadd_rn(lanev, v);
    }
    const double l0 = __shfl_sync(FULL_MASK, lanev, 0), l1 = __shfl_sync(FULL_MASK, lanev, 1);
    const double l2 = __shfl_sync(FULL_MASK, lanev, 2), l3 = __shfl_sync(FULL_MASK, lanev, 3);
    double t = __dadd_rn(__dadd_rn(l0, l1), __dadd_rn(l2, l3));
    for (int w = n4; w < n; w++) {
        const double v = __shfl_sync(FULL_MASK, s, w & 31);
        t = __dadd_rn(t, v);
    }
    if (lane == 0) out[(long long)y * num_angles + a] = t;
}

// ------------------------------------------------------------------ norm
// normalize(radon, NORM_MINMAX, 0, 255, CV_8U): scale = 255 * (1 / (max - min)), 0 when
// max - min <= DBL_EPSILON; shift = 0 - min * scale (double, unfused: baseline code). convertTo
// then works in float32: u8(round_half_even(fma(float(v), float(scale), float(shift)))) (v_fma in
// the AVX2 cvt_32f loop; GCC fuses the scalar tail the same way). A CV_64F matrix of fewer than
// 16 elements is all scalar tail, and there the tail works in double (radon_norm_f64).
__device__ __forceinline__ void norm_params(double smin, double smax, float* s32, float* b32) {
    const double range = __dsub_rn(smax, smin);
    const double scale = __dmul_rn(255.0, range > 2.220446049250313080847e-16 ? __ddiv_rn(1.0, range) : 0.0);
    const double shift = __dsub_rn(0.0, __dmul_rn(smin, scale));
    *s32 = __double2float_rn(scale);
    *b32 = __double2float_rn(shift);
}

// x86's cvtps2dq / cvtsd2si (cv2's v_round and cvRound) give INT_MIN, the "integer indefinite",
// for NaN and for values outside int's range, where CUDA's conversions saturate: a sinogram value
// beyond FLT_MAX turns into inf in the float conversion and cv2 saturates INT_MIN to 0, not 255.
__device__ __forceinline__ int x86_round(float f) {
    return (f >= -2147483648.0f && f < 2147483648.0f) ? __float2int_rn(f) : (-2147483647 - 1);
}

__device__ __forceinline__ int x86_round(double f) {
    return (f >= -2147483648.5 && f < 2147483647.5) ? __double2int_rn(f) : (-2147483647 - 1);
}

__device__ __forceinline__ unsigned char to_u8(float v, float s32, float b32) {
    const int r = x86_round(f32_fma(v, s32, b32));
    return (unsigned char)(r < 0 ? 0 : (r > 255 ? 255 : r));
}

extern "C" __global__ void radon_norm_i32(const int* __restrict__ radon, long long count, const int* __restrict__ vmin,
                                          const int* __restrict__ vmax, unsigned char* __restrict__ out) {
    float s32, b32;
    norm_params((double)*vmin, (double)*vmax, &s32, &b32);
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
        out[i] = to_u8(__int2float_rn(radon[i]), s32, b32);
}

extern "C" __global__ void radon_norm_f64(const double* __restrict__ radon, long long count,
                                          const double* __restrict__ vmin, const double* __restrict__ vmax,
                                          unsigned char* __restrict__ out) {
    float s32, b32;
    norm_params(*vmin, *vmax, &s32, &b32);
    // Fewer than 16 elements never reach cvt_32f's vector loop; its scalar line computes
    // double * float + float in double (fused by GCC), then cvRound(double) and saturation.
    const bool scalar = count < 16;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x) {
        if (scalar) {
            const int r = x86_round(__fma_rn(radon[i], (double)s32, (double)b32));
            out[i] = (unsigned char)(r < 0 ? 0 : (r > 255 ? 255 : r));
        } else {
            out[i] = to_u8(__double2float_rn(radon[i]), s32, b32);
        }
    }
}

// Whether a float sinogram holds a NaN. cv2 then answers with its CPU's own SIMD quirks: the sign
// and payload of each NaN follow the x86 operand order of the instruction that made it, and
// normalize's minMaxIdx skips some NaNs and not others (it differs between CPUs with the same
// wheel), so no GPU result matches cv2 on every machine and cv2 computes those calls.
extern "C" __global__ void radon_any_nan(const double* __restrict__ radon, long long count, int* __restrict__ flag) {
    bool found = false;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < count; i += (long long)gridDim.x * blockDim.x)
        found |= isnan(radon[i]);
    if (__any_sync(0xffffffffu, found) && (threadIdx.x & 31) == 0)
        *flag = 1;
}
