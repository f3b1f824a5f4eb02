// Exact Least-Median-of-Squares line fitting (cvgpu.fitLineLMS / fitLineLMSBatch / refineHoughLines).
//
// A "problem" is one point set (start, n) with a residual mode:
//   0 vertical   (y on x, the classical LMS regression), residual r = y - (a x + b)
//   1 horizontal (x on y), residual r = x - (a y + b)
//   2 perpendicular (orthogonal distance to the line)
// h = n/2 + 1 (floor). The LMS objective is the h-th smallest r^2; its square root is half the
// width (along the residual direction) of the thinnest slab that holds h points.
//
// Why pair candidates are enough: for a fixed h-subset S the slab width as a function of the
// direction is convex piecewise linear (vertical/horizontal) or the width of S's hull (perpendicular);
// its minimum sits where two points of S meet on one slab boundary. So the optimum is
//   min over candidates (a, b, side) of  kth_h { v_i : v_i on that side of the line ab, incl. 0 },
// where v_i = dx (y_i - y_a) - dy (x_i - x_a) (cross product with d = b - a) divided by the mode's
// norm (|dx|, |dy| or |d|). Candidates (a, a) use the axis direction, which covers the degenerate
// sets where no pair defines a usable direction (all x equal in mode 0, ...).
//
// Pipeline (no host round trip):
//   lms_sample     exact evaluation (block radix select) of ~sqrt(#candidates) per problem spread
//                  over the candidate list -> best[p] (packed atomicMin: width bits, candidate id)
//   lms_decide     every candidate, one per thread: does its slab of width < best (shrunk by 1e-5
//                  relative, so ties and rounding noise are not re-examined) hold h points? Early
//                  exit both ways. Positive candidates are appended to a list.
//   lms_eval_list  exact evaluation of the listed candidates -> best[p]
//   lms_finish     per output: the line of the best candidate (optionally the better of two
//                  problems, for mode "auto"), inlier centroid and extent.
// Expected list length is about (#candidates / K): the sampled minimum is beaten by a fraction
// 1/(K+1) of the candidates on average, whatever the data.

#include "block_scan.cuh"

#define LMS_THREADS 256
#define FULL_MASK 0xffffffffu
#define LMS_TILE 2048
#define KEY_NONE 0xffffffffu

__device__ __forceinline__ void decode_pair(long long t, int* a, int* b)
{
    // t = b (b + 1) / 2 + a, 0 <= a <= b; a == b is the axis-direction candidate.
    long long bb = (long long)((sqrt(8.0 * (double)t + 1.0) - 1.0) * 0.5);
    while (bb * (bb + 1) / 2 > t) --bb;
    while ((bb + 1) * (bb + 2) / 2 <= t) ++bb;
    *b = (int)bb;
    *a = (int)(t - bb * (bb + 1) / 2);
}

__device__ __forceinline__ int find_problem(const long long* __restrict__ off, int nprob, long long u)
{
    int lo = 0, hi = nprob;  // off[lo] <= u < off[hi]
    while (hi - lo > 1) {
        int mid = (lo + hi) >> 1;
        if (off[mid] <= u) lo = mid; else hi = mid;
    }
    return lo;
}

// Direction of candidate (a, b) and the mode's norm; false when the direction is unusable.
// `tiny` (modes 0 and 1): the norm's component, scaled, is below float32's normal range. Rounded to
// float32 it would keep a few significant bits (or none), and the width kth / norm would carry that
// error times 1 / norm: such a candidate is evaluated in double (eval_candidate), ddx / ddy / dnorm
// its direction and norm there. Elsewhere dx == ddx and dy == ddy exactly.
struct LmsDir {
    float dx, dy, norm;
    double ddx, ddy, dnorm;
    bool tiny;
};

__device__ __forceinline__ bool candidate_dir(const float2* __restrict__ P, int a, int b, int mode, LmsDir* d)
{
    d->tiny = false;
    if (a == b) {
        d->dx = mode == 1 ? 0.0f : 1.0f;
        d->dy = mode == 1 ? 1.0f : 0.0f;
        d->norm = 1.0f;
        d->ddx = d->dx;
        d->ddy = d->dy;
        d->dnorm = 1.0;
        return true;
    }
    float2 pa = P[a], pb = P[b];
    double ddx = f32_to_f64(f32_sub(pb.x, pa.x)), ddy = f32_to_f64(f32_sub(pb.y, pa.y));
    // Scale the direction by a power of two to [1, 2): exact, and the cross products below then
    // never run into float32 subnormals or overflow (a difference of 7e-44 would otherwise give
    // products with 2 significant bits). The width kth / norm does not depend on the scale.
    const double m = fmax(fabs(ddx), fabs(ddy));
    if (m > 0.0) {
        int e;
        frexp(m, &e);
        ddx = ldexp(ddx, 1 - e);
        ddy = ldexp(ddy, 1 - e);
    }
    d->ddx = ddx;
    d->ddy = ddy;
    d->dx = (float)ddx;
    d->dy = (float)ddy;
    if (mode == 0) d->norm = fabsf(d->dx);
    else if (mode == 1) d->norm = fabsf(d->dy);
    else d->norm = (float)sqrt(ddx * ddx + ddy * ddy);
    const double small = mode == 0 ? fabs(ddx) : mode == 1 ? fabs(ddy) : 1.0;
    if (small > 0.0 && small < 1.1754943508222875e-38) {  // FLT_MIN
        d->tiny = true;
        d->dnorm = small;
        return true;
    }
    d->dnorm = d->norm;
    return d->norm > 0.0f && d->norm <= 3.0e38f;
}

// v_i with exact zeros for a and b: dx*(y-ya) - dy*(x-xa), each step rounded, never contracted.
__device__ __forceinline__ float cross_v(float dx, float dy, float2 pa, float2 p)
{
    return f32_sub(f32_mul(dx, f32_sub(p.y, pa.y)), f32_mul(dy, f32_sub(p.x, pa.x)));
}

__device__ __forceinline__ unsigned side_key(float v)
{
    // Non-negative floats order as their bit patterns; -0 counts as 0.
    return v == 0.0f ? 0u : (v > 0.0f ? __float_as_uint(v) : KEY_NONE);
}

struct EvalShared {
    unsigned hist[2][256];
    unsigned prefix[2];
    unsigned kleft[2];
    unsigned warp_tot[2][8];
};

// Block-wide exact value of candidate (a, b): the h-th smallest v on each side (radix select,
// 8 bits per pass). Returns (thread 0) the packed key of the better side, or ~0 when invalid.
__device__ unsigned long long eval_candidate(const float2* __restrict__ P, int n, int h, int mode,
                                             int a, int b, EvalShared& S)
{
    LmsDir dir;
    if (!candidate_dir(P, a, b, mode, &dir))
        return ~0ull;
    const float dx = dir.dx, dy = dir.dy, norm = dir.norm;
    const float2 pa = P[a];
    // Thread 0 may still be reading the previous candidate's S.prefix (its key, at the end of the
    // last call): no thread resets it before every thread is here (racecheck's WAR hazard).
    __syncthreads();
    if (threadIdx.x < 2) {
        S.prefix[threadIdx.x] = 0u;
        S.kleft[threadIdx.x] = (unsigned)h;
    }
    unsigned mask = 0u;
    for (int shift = 24; shift >= 0; shift -= 8) {
        for (int i = threadIdx.x; i < 512; i += LMS_THREADS)
            (&S.hist[0][0])[i] = 0u;
        __syncthreads();
        const unsigned p0 = S.prefix[0], p1 = S.prefix[1];
        for (int base = 0; base < n; base += LMS_THREADS) {
            const int i = base + threadIdx.x;
            unsigned b0 = 256u, b1 = 256u;  // 256: no bin
            if (i < n) {
                // b lies on the candidate's line by definition. Its own cross product is 0 too,
                // except where the direction's small component is a float32 subnormal (a pair
                // 2^-149 apart in x over 2^3 in y): rounded, it would push b off its own line.
                // A tiny candidate's v is the residual itself: the cross product in double (the
                // float32 differences times the exact scaled direction, each step rounded, never
                // contracted: tests/models/lms_model.py) over the norm, then rounded to float32.
                const float v = i == b ? 0.0f
                                : dir.tiny ? (float)__ddiv_rn(
                                                 __dsub_rn(__dmul_rn(dir.ddx, f32_to_f64(f32_sub(P[i].y, pa.y))),
                                                           __dmul_rn(dir.ddy, f32_to_f64(f32_sub(P[i].x, pa.x)))),
                                                 dir.dnorm)
                                           : cross_v(dx, dy, pa, P[i]);
                const unsigned k0 = side_key(v), k1 = side_key(-v);
                if ((k0 & mask) == p0) b0 = (k0 >> shift) & 255u;
                if ((k1 & mask) == p1) b1 = (k1 >> shift) & 255u;
            }
            // Residuals of a near-optimal candidate share their top digits: one atomic per
            // distinct digit and warp instead of one per point.
            const unsigned g0 = __match_any_sync(FULL_MASK, b0), g1 = __match_any_sync(FULL_MASK, b1);
            const int lane = threadIdx.x & 31;
            if (b0 < 256u && lane == __ffs(g0) - 1) atomicAdd(&S.hist[0][b0], (unsigned)__popc(g0));
            if (b1 < 256u && lane == __ffs(g1) - 1) atomicAdd(&S.hist[1][b1], (unsigned)__popc(g1));
        }
        __syncthreads();
        // Warp s (s = 0, 1) finds the digit holding the k-th key of side s: lane j owns bins 8j..8j+7.
        const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
        if (warp < 2) {
            unsigned c[8], sum = 0;
            for (int j = 0; j < 8; ++j) { c[j] = S.hist[warp][lane * 8 + j]; sum += c[j]; }
            unsigned incl = sum;
            for (int o = 1; o < 32; o <<= 1) {
                unsigned t = __shfl_up_sync(FULL_MASK, incl, o);
                if (lane >= o) incl += t;
            }
            unsigned excl = incl - sum;
            unsigned k = S.kleft[warp];
            // Every lane reads kleft before the one lane that owns the digit rewrites it: lanes of
            // a warp are not ordered without a barrier (racecheck's read/write hazard).
            __syncwarp();
            if (excl < k && k <= incl) {
                unsigned run = excl;
                for (int j = 0; j < 8; ++j) {
                    if (run + c[j] >= k) {
                        S.prefix[warp] |= ((unsigned)(lane * 8 + j)) << shift;
                        S.kleft[warp] = k - run;
                        break;
                    }
                    run += c[j];
                }
            }
        }
        mask |= 255u << shift;
        __syncthreads();
    }
    unsigned long long best = ~0ull;
    if (threadIdx.x == 0) {
        for (int s = 0; s < 2; ++s) {
            unsigned kth = S.prefix[s];
            if (kth == KEY_NONE)
                continue;
            float w = dir.tiny ? __uint_as_float(kth) : __fdiv_rn(__uint_as_float(kth), norm);
            unsigned long long key = ((unsigned long long)__float_as_uint(w) << 32)
                                     | (unsigned long long)(((unsigned)a * (unsigned)n + (unsigned)b) * 2u + (unsigned)s);
            if (key < best) best = key;
        }
    }
    __syncthreads();
    return best;
}

// Candidates evaluated exactly before the decision pass: about sqrt(M) (balances them against the
// expected M / (K + 1) candidates that beat the sampled minimum), at least 256, at most M.
// cvgpu/lms.py computes the same count (IEEE sqrt, floor).
__device__ __forceinline__ long long sample_count(long long M)
{
    long long k = (long long)sqrt((double)M);
    k = k < 256 ? 256 : k;
    return M < k ? M : k;
}

__device__ __forceinline__ unsigned long long mix64(unsigned long long x)
{
    x ^= x >> 33; x *= 0xff51afd7ed558ccdull; x ^= x >> 33; x *= 0xc4ceb9fe1a85ec53ull; x ^= x >> 33;
    return x;
}

extern "C" __global__ void lms_sample(
    const float2* __restrict__ pts, const long long* __restrict__ start, const int* __restrict__ count,
    const int* __restrict__ mode, int nprob, const long long* __restrict__ unit_off,
    unsigned long long* __restrict__ best)
{
    __shared__ EvalShared S;
    const long long total = unit_off[nprob];
    for (long long u = blockIdx.x; u < total; u += gridDim.x) {
        const int p = find_problem(unit_off, nprob, u);
        const long long j = u - unit_off[p];
        const int n = count[p];
        const long long M = (long long)n * (n + 1) / 2;
        const long long K = sample_count(M);
        long long t = j;
        // Sample 0 is always candidate 0, (0, 0): the axis direction, valid for every set. Without
        // it a set of many equal points (every pair direction undefined) could draw no valid sample
        // and end with no bound at all.
        if (M > K && j > 0) {
            long long lo = j * M / K, hi = (j + 1) * M / K;
            // The draw depends on (j, M) only, not on the problem index: a set gets the same samples alone,
            // in a batch or inside "auto", so its result (ties included) is the same everywhere.
            t = lo + (long long)(mix64((unsigned long long)j * 0x9e3779b97f4a7c15ull + (unsigned long long)M) % (unsigned long long)(hi - lo));
        }
        int a, b;
        decode_pair(t, &a, &b);
        unsigned long long key = eval_candidate(pts + start[p], n, n / 2 + 1, mode[p], a, b, S);
        if (threadIdx.x == 0 && key != ~0ull)
            atomicMin(&best[p], key);
    }
}

extern "C" __global__ void lms_decide(
    const float2* __restrict__ pts, const long long* __restrict__ start, const int* __restrict__ count,
    const int* __restrict__ mode, int nprob, const long long* __restrict__ unit_off,
    const unsigned long long* __restrict__ best, const float* __restrict__ maxabs,
    int2* __restrict__ list, unsigned int* __restrict__ list_count, long long capacity,
    long long t_lo, long long t_hi)
{
    __shared__ float2 tile[LMS_TILE];
    const long long total = unit_off[nprob];
    for (long long u = blockIdx.x; u < total; u += gridDim.x) {
        const int p = find_problem(unit_off, nprob, u);
        const int n = count[p], h = n / 2 + 1, md = mode[p];
        const float2* P = pts + start[p];
        const long long M = (long long)n * (n + 1) / 2;
        const long long t = (u - unit_off[p]) * LMS_THREADS + threadIdx.x;
        const float w0 = __uint_as_float((unsigned)(best[p] >> 32));
        bool active = false, hit = false;
        float A = 0.f, B = 0.f, C = 0.f, T = 0.f, Te = 0.f, e = 0.f;
        int cand_a = 0, cand_b = 0;
        // [t_lo, t_hi): the window of candidates of a settling round (cvgpu/lms.py: settle).
        if (t < M && t >= t_lo && t < t_hi && w0 > 0.0f) {
            decode_pair(t, &cand_a, &cand_b);
            LmsDir dir;
            const bool usable = candidate_dir(P, cand_a, cand_b, md, &dir);
            if (usable && dir.tiny) {
                hit = true;  // no float32 bound holds for it: evaluated exactly (eval_candidate)
            } else if (usable) {
                const float dx = dir.dx, dy = dir.dy, norm = dir.norm;
                float2 pa = P[cand_a];
                // v = A x + B y + C (two FMAs per point); e bounds its rounding error, so the test
                // below keeps every candidate whose exact value beats the shrunk bound.
                A = -dy; B = dx; C = dy * pa.x - dx * pa.y;
                const float m = maxabs[p];
                e = 4.0e-6f * ((fabsf(A) + fabsf(B)) * m + fabsf(C)) + 1e-30f;
                T = (w0 * norm) * (1.0f - 1.0e-5f);
                // The allowance e widens BOTH ends of each side's range: a point whose exact v is
                // just below T may round up past it, as one at 0 may round below 0. With e at the
                // far end only, a candidate far from the origin (e ~ 0.3 at 20000) whose exact
                // slab beats the bound was pruned (tests/lms: far duplicates).
                Te = T + e;
                active = isfinite(Te) && isfinite(C) && isfinite(e);
            }
        }
        int cl = 0, cu = 0;  // a and b fall in both sides' ranges (|v| <= e) and are counted below
        for (int base = 0; base < n; base += LMS_TILE) {
            if (!__syncthreads_or(active))
                break;
            const int len = min(LMS_TILE, n - base);
            for (int i = threadIdx.x; i < len; i += LMS_THREADS)
                tile[i] = P[base + i];
            __syncthreads();
            if (active) {
                for (int i0 = 0; i0 < len; i0 += 16) {
                    const int i1 = min(len, i0 + 16);
                    for (int i = i0; i < i1; ++i) {
                        const float v = fmaf(A, tile[i].x, fmaf(B, tile[i].y, C));
                        cl += (v >= -e) & (v < Te);
                        cu += (v <= e) & (v > -Te);
                    }
                    const int got = max(cl, cu);
                    if (got >= h) { hit = true; active = false; break; }
                    if (got + (n - base - i1) < h) { active = false; break; }
                }
            }
            __syncthreads();
        }
        if (hit) {
            unsigned slot = atomicAdd(list_count, 1u);
            if ((long long)slot < capacity)
                list[slot] = make_int2(p, (int)(t));
        }
    }
}

extern "C" __global__ void lms_eval_list(
    const float2* __restrict__ pts, const long long* __restrict__ start, const int* __restrict__ count,
    const int* __restrict__ mode, const int2* __restrict__ list, const unsigned int* __restrict__ list_count,
    long long capacity, unsigned long long* __restrict__ best)
{
    __shared__ EvalShared S;
    const long long total = min((long long)*list_count, capacity);
    for (long long u = blockIdx.x; u < total; u += gridDim.x) {
        const int2 item = list[u];
        const int p = item.x, n = count[p];
        int a, b;
        decode_pair((long long)(unsigned)item.y, &a, &b);
        unsigned long long key = eval_candidate(pts + start[p], n, n / 2 + 1, mode[p], a, b, S);
        if (threadIdx.x == 0 && key != ~0ull)
            atomicMin(&best[p], key);
    }
}

// Per problem: max |coordinate| (for the decide pass's rounding bound).
extern "C" __global__ void lms_prepare(
    const float2* __restrict__ pts, const long long* __restrict__ start, const int* __restrict__ count,
    int nprob, float* __restrict__ maxabs, unsigned long long* __restrict__ best)
{
    __shared__ float red[LMS_THREADS / 32];
    for (int p = blockIdx.x; p < nprob; p += gridDim.x) {
        const float2* P = pts + start[p];
        float m = 0.0f;
        for (int i = threadIdx.x; i < count[p]; i += LMS_THREADS)
            m = fmaxf(m, fmaxf(fabsf(P[i].x), fabsf(P[i].y)));
        for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(FULL_MASK, m, o));
        if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = m;
        __syncthreads();
        if (threadIdx.x == 0) {
            for (int w = 1; w < LMS_THREADS / 32; ++w) m = fmaxf(m, red[w]);
            maxabs[p] = m;
            best[p] = ~0ull;
        }
        __syncthreads();
    }
}

struct FitGeom {
    double dx, dy, len, ax, ay, vc, norm, hw;  // direction, anchor, centre offset in v units
    bool ok;
};

__device__ FitGeom fit_geometry(const float2* __restrict__ P, int n, int md, unsigned long long key)
{
    FitGeom g;
    g.ok = key != ~0ull && n > 0;
    if (!g.ok) return g;
    const unsigned lo = (unsigned)key;
    const int side = lo & 1u;
    const unsigned ab = lo >> 1;
    const int a = ab / (unsigned)n, b = ab % (unsigned)n;
    LmsDir dir;
    candidate_dir(P, a, b, md, &dir);
    const double w = (double)__uint_as_float((unsigned)(key >> 32));
    g.dx = dir.ddx; g.dy = dir.ddy; g.norm = dir.dnorm;
    g.len = sqrt(g.dx * g.dx + g.dy * g.dy);
    g.ax = P[a].x; g.ay = P[a].y;
    g.vc = (side == 0 ? 0.5 : -0.5) * w * g.norm;
    g.hw = 0.5 * w;
    return g;
}

// out_line: [vx, vy, x0, y0] per output; out_hw: half-width (residual units of the chosen fit);
// out_ext: [x1, y1, x2, y2] extent of the inliers along the line; out_n: number of inliers.
extern "C" __global__ void lms_finish(
    const float2* __restrict__ pts, const long long* __restrict__ start, const int* __restrict__ count,
    const int* __restrict__ mode, const unsigned long long* __restrict__ best,
    const int2* __restrict__ choose, int nout, float* __restrict__ out_line, float* __restrict__ out_hw,
    float* __restrict__ out_ext, int* __restrict__ out_n)
{
    __shared__ double red[5][LMS_THREADS / 32];
    for (int o = blockIdx.x; o < nout; o += gridDim.x) {
        int2 ch = choose[o];
        int p = ch.x;
        FitGeom g = fit_geometry(pts + start[p], count[p], mode[p], best[p]);
        if (ch.y >= 0) {
            FitGeom g2 = fit_geometry(pts + start[ch.y], count[ch.y], mode[ch.y], best[ch.y]);
            // "auto": the thinner slab measured perpendicular to its own line.
            if (g2.ok && (!g.ok || g2.hw * g2.norm / g2.len < g.hw * g.norm / g.len)) { g = g2; p = ch.y; }
        }
        const int n = count[p];
        const float2* P = pts + start[p];
        if (!g.ok) {
            if (threadIdx.x == 0) {
                for (int k = 0; k < 4; ++k) { out_line[o * 4 + k] = nanf(""); out_ext[o * 4 + k] = nanf(""); }
                out_hw[o] = nanf("");
                out_n[o] = 0;
            }
            continue;
        }
        // Centre line: points with v = vc, v = dx (y - ay) - dy (x - ax).
        const double ux = g.dx / g.len, uy = g.dy / g.len;
        const double cx = g.ax - g.dy * g.vc / (g.len * g.len), cy = g.ay + g.dx * g.vc / (g.len * g.len);
        const double lim = g.hw * g.norm * (1.0 + 1e-6) + 1e-12;
        double sx = 0, sy = 0, cnt = 0, tmin = 1e300, tmax = -1e300;
        for (int pass = 0; pass < 2; ++pass) {
            double s0 = 0, s1 = 0, s2 = 0, s3 = 1e300, s4 = -1e300;
            for (int i = threadIdx.x; i < n; i += LMS_THREADS) {
                const double x = P[i].x, y = P[i].y;
                const double v = g.dx * (y - g.ay) - g.dy * (x - g.ax);
                if (fabs(v - g.vc) <= lim) {
                    if (pass == 0) { s0 += x; s1 += y; s2 += 1; }
                    else { double t = (x - sx) * ux + (y - sy) * uy; s3 = fmin(s3, t); s4 = fmax(s4, t); }
                }
            }
            for (int of = 16; of; of >>= 1) {
                s0 += __shfl_xor_sync(FULL_MASK, s0, of); s1 += __shfl_xor_sync(FULL_MASK, s1, of);
                s2 += __shfl_xor_sync(FULL_MASK, s2, of);
                s3 = fmin(s3, __shfl_xor_sync(FULL_MASK, s3, of)); s4 = fmax(s4, __shfl_xor_sync(FULL_MASK, s4, of));
            }
            const int w = threadIdx.x >> 5;
            if ((threadIdx.x & 31) == 0) { red[0][w] = s0; red[1][w] = s1; red[2][w] = s2; red[3][w] = s3; red[4][w] = s4; }
            __syncthreads();
            s0 = red[0][0]; s1 = red[1][0]; s2 = red[2][0]; s3 = red[3][0]; s4 = red[4][0];
            for (int k = 1; k < LMS_THREADS / 32; ++k) {
                s0 += red[0][k]; s1 += red[1][k]; s2 += red[2][k]; s3 = fmin(s3, red[3][k]); s4 = fmax(s4, red[4][k]);
            }
            __syncthreads();
            if (pass == 0) {
                cnt = s2;
                // (x0, y0): the inlier centroid projected onto the centre line.
                const double mx = s0 / cnt, my = s1 / cnt;
                const double tt = (mx - cx) * ux + (my - cy) * uy;
                sx = cx + tt * ux; sy = cy + tt * uy;
            } else {
                tmin = s3; tmax = s4;
            }
        }
        if (threadIdx.x == 0) {
            double vx = ux, vy = uy;
            if (vx < 0 || (vx == 0 && vy < 0)) { vx = -vx; vy = -vy; double t = tmin; tmin = -tmax; tmax = -t; }
            out_line[o * 4 + 0] = (float)vx; out_line[o * 4 + 1] = (float)vy;
            out_line[o * 4 + 2] = (float)sx; out_line[o * 4 + 3] = (float)sy;
            out_hw[o] = (float)g.hw;
            out_ext[o * 4 + 0] = (float)(sx + tmin * vx); out_ext[o * 4 + 1] = (float)(sy + tmin * vy);
            out_ext[o * 4 + 2] = (float)(sx + tmax * vx); out_ext[o * 4 + 3] = (float)(sy + tmax * vy);
            out_n[o] = (int)cnt;
        }
    }
}

// ------------------------------------------------------------------ refineHoughLines: support gather
//
// Pixel (x, y) != 0 supports line k = (rho_k, theta_k) when its sinusoid x cos t + y sin t passes
// through the Hough box |t - theta_k| <= bt, |r - rho_k| <= br (bt = (band + 0.5) theta,
// br = (band + 0.5) rho): the pixel voted, in the continuous transform, for a cell within `band`
// cells of the line's cell. One block per line walks the strip of the image that can contain such
// pixels (rows for steep lines, columns for flat ones) in raster order, so each line's point list
// comes out in a deterministic order: pass 0 counts, pass 1 writes at offsets from a prefix sum.

__device__ __forceinline__ bool supports(float x, float y, float rk, float tk, float bt, float br)
{
    const float t1 = tk - bt, t2 = tk + bt;
    float f1 = x * cosf(t1) + y * sinf(t1), f2 = x * cosf(t2) + y * sinf(t2);
    float lo = fminf(f1, f2), hi = fmaxf(f1, f2);
    // x cos t + y sin t = R cos(t - phi): extremes +R at t = phi, -R at t = phi +- pi.
    const float R = sqrtf(x * x + y * y), phi = atan2f(y, x);
    const float PI = 3.14159265358979f;
    for (int k = -2; k <= 2; ++k) {
        float tm = phi + k * PI;
        if (tm >= t1 && tm <= t2) { if (k & 1) lo = fminf(lo, -R); else hi = fmaxf(hi, R); }
    }
    return hi >= rk - br && lo <= rk + br;
}

extern "C" __global__ void lms_gather(
    const unsigned char* __restrict__ img, int rows, int cols, long long step,
    const float* __restrict__ lines, int nlines, float bt, float br, int width_rows, int width_cols,
    const long long* __restrict__ offsets, int* __restrict__ counts, float2* __restrict__ out, int pass)
{
    // blockIdx.x: line, blockIdx.y: slice of the outer axis (gridDim.y slices, in order).
    __shared__ int warp_sums[LMS_THREADS / 32];
    __shared__ int running;
    const int k = blockIdx.x, split = blockIdx.y, nsplit = gridDim.y;
    const float rk = lines[2 * k], tk = lines[2 * k + 1];
    const float c = cosf(tk), s = sinf(tk);
    // Steep line (|cos| >= |sin|): walk rows, a window of x per row; else columns, a window of y.
    const bool by_rows = fabsf(c) >= fabsf(s);
    const int outer = by_rows ? rows : cols, inner_max = by_rows ? cols : rows;
    const float cs = by_rows ? c : s, sn = by_rows ? s : c;
    const int width = by_rows ? width_rows : width_cols;  // host bound, >= the strip's extent
    const int o_begin = (int)((long long)outer * split / nsplit), o_end = (int)((long long)outer * (split + 1) / nsplit);
    const long long total = (long long)(o_end - o_begin) * width;
    if (threadIdx.x == 0) running = 0;
    __syncthreads();
    const long long base_out = pass ? offsets[(long long)k * nsplit + split] : 0;
    for (long long c0 = 0; c0 < total; c0 += LMS_THREADS) {
        const long long idx = c0 + threadIdx.x;
        bool hitp = false;
        float px = 0.f, py = 0.f;
        if (idx < total) {
            const int o = o_begin + (int)(idx / width), q0 = (int)(idx % width);
            const float center = (rk - (float)o * sn) / cs;
            int lo = (int)floorf(center) - width / 2;
            lo = max(0, min(lo, inner_max - width));
            const int q = lo + q0;
            const int x = by_rows ? q : o, y = by_rows ? o : q;
            if (img[(long long)y * step + x]) {
                px = (float)x; py = (float)y;
                hitp = supports(px, py, rk, tk, bt, br);
            }
        }
        const unsigned bal = __ballot_sync(FULL_MASK, hitp);
        const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
        if (lane == 0) warp_sums[w] = __popc(bal);
        __syncthreads();
        int before = running;
        for (int j = 0; j < w; ++j) before += warp_sums[j];
        if (hitp && pass)
            out[base_out + before + __popc(bal & ((1u << lane) - 1u))] = make_float2(px, py);
        __syncthreads();
        if (threadIdx.x == 0) {
            int tot = 0;
            for (int j = 0; j < LMS_THREADS / 32; ++j) tot += warp_sums[j];
            running += tot;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0 && pass == 0) counts[(long long)k * nsplit + split] = running;
}

// refineHoughLines' problems, one per line, from the support lms_gather found (offsets: nsplit
// slices a line): the metadata cvgpu/lms.py's _run_problems reads from `ints`, laid out as
//   start[n] | sample_off[n + 1] | decide_off[n + 1] | int32 count[n], mode[n], choose[2 n] | ...
// and the largest candidate count M in ints[words - 1]. A line's count is its slices' points; its
// mode is y on x where |sin theta| >= |cos theta| (float32, as the host's CuPy expression did);
// its output is its own problem (choose = (i, -1)); the unit offsets are exclusive prefix sums of
// sample_count(M) and, where M exceeds it, ceil(M / threads) (lms_sample / lms_decide units). One
// block; the host zeroes ints first.
extern "C" __global__ void __launch_bounds__(1024) lms_refine_plan(
    const long long* __restrict__ offsets, int nsplit, int n, const float* __restrict__ lines, int threads,
    long long words, long long* __restrict__ ints)
{
    __shared__ unsigned long long max_m;
    long long* const start = ints;
    long long* const sample_off = ints + n;
    long long* const decide_off = ints + 2 * (long long)n + 1;
    int* const small = (int*)(ints + 3 * (long long)n + 2);
    if (threadIdx.x == 0) {
        sample_off[0] = 0;
        decide_off[0] = 0;
        max_m = 0;
    }
    __syncthreads();
    long long carry_s = 0, carry_d = 0;
    for (int base = 0; base < n; base += blockDim.x) {
        const int i = base + (int)threadIdx.x;
        long long su = 0, du = 0;
        if (i < n) {
            const long long s = offsets[(long long)i * nsplit], e = offsets[(long long)(i + 1) * nsplit];
            const int c = (int)(e - s);
            const long long M = (long long)c * ((long long)c + 1) / 2;
            su = sample_count(M);
            du = M > su ? (M + threads - 1) / threads : 0;
            start[i] = s;
            small[i] = c;
            const float th = lines[2 * i + 1];
            small[n + i] = fabsf(sinf(th)) >= fabsf(cosf(th)) ? 0 : 1;
            small[2 * n + 2 * i] = i;
            small[2 * n + 2 * i + 1] = -1;
            atomicMax(&max_m, (unsigned long long)M);
        }
        long long ts, td;
        const long long es = block_exclusive_sum(su, &ts);
        const long long ed = block_exclusive_sum(du, &td);
        if (i < n) {
            sample_off[i + 1] = carry_s + es + su;
            decide_off[i + 1] = carry_d + ed + du;
        }
        carry_s += ts;
        carry_d += td;
    }
    __syncthreads();
    if (threadIdx.x == 0) ints[words - 1] = (long long)max_m;
}

// Refined (rho, theta) from [vx, vy, x0, y0], in the representation nearest the input theta.
extern "C" __global__ void lms_to_polar(
    const float* __restrict__ fit, const int* __restrict__ nin, const float* __restrict__ lines, int nlines,
    int min_support, float* __restrict__ out, const float* __restrict__ ext, int* __restrict__ seg)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nlines) return;
    const float r0 = lines[2 * k], t0 = lines[2 * k + 1];
    if (nin[k] < min_support || !isfinite(fit[4 * k])) {
        out[2 * k] = r0; out[2 * k + 1] = t0;
        if (seg) for (int j = 0; j < 4; ++j) seg[4 * k + j] = -1;
        return;
    }
    const double vx = fit[4 * k], vy = fit[4 * k + 1], x0 = fit[4 * k + 2], y0 = fit[4 * k + 3];
    const double PI = 3.14159265358979323846;
    double th = atan2(vx, -vy);  // normal (-vy, vx) -> angle
    double rho = x0 * cos(th) + y0 * sin(th);
    while (th - t0 > PI / 2) { th -= PI; rho = -rho; }
    while (t0 - th > PI / 2) { th += PI; rho = -rho; }
    out[2 * k] = (float)rho; out[2 * k + 1] = (float)th;
    if (seg) for (int j = 0; j < 4; ++j) seg[4 * k + j] = __double2int_rn((double)ext[4 * k + j]);
}
