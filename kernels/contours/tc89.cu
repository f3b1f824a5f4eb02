// CHAIN_APPROX_TC89_L1 / CHAIN_APPROX_TC89_KCOS (cvgpu/contours/_tc89.py): the Teh-Chin dominant
// point detection of cv2's contours_approx.cpp, every pass recast as steps over all points at once.
//
// Applied to the CHAIN_APPROX_NONE result (points/offsets as suzuki.cu's state_emit or labels.cu's
// lab_emit lay them out, any layout of whole contours with int64 offsets): cv2 runs
// the same border trace and approximates each border's Freeman chain, whose i-th point is the
// i-th NONE point. Step by step the kernels follow tests/models/tc89_model.py (the CPU-verified model):
//   tc89_point  passes 0 and 1, one thread per point (independent): curvature, region of support,
//               k-cosine;
//   passes 2..4 cv2 updates in place, in order; each is recast as steps that decide every point from
//               the previous step's arrays (model: approx_tc89_parallel), one thread per point:
//               tc89_nms_init / tc89_nms_round / tc89_nms_finish / tc89_apply (pass 2), tc89_pass3 /
//               tc89_apply3 (pass 3), tc89_seam (one thread per contour, O(1)) / tc89_runflag /
//               tc89_runends / tc89_cleanup (pass 4, TC89_L1);
//   tc89_keep / tc89_offsets / tc89_emit  the surviving points, compacted by a cumsum over all slots.
// Scratch slot of point i of contour j: offsets[j] + j + i, so every contour has one spare slot
// (pass 4 may append a copy of point 0).
//
// Arithmetic as cv2's: int products wrap (common.cuh's i32_*), doubles are rounded per operation
// (explicit _rn intrinsics, never contracted) and the one float conversion keeps subnormals
// (kernels/ieee_f32.cuh's f32_to_f64).
//
// Host builds: tests/contours/kernel_host.py compiles this file as C++ (threads independent; the
// atomics of tc89_apply3 are plain read-modify-writes there, one thread at a time).

#include "common.cuh"

// (dx, dy) of an 8-neighbour step -> Freeman code (0 right, 1 up-right, 2 up, ... y down), indexed
// by (dy + 1) * 3 + (dx + 1).
__constant__ int c_step_code[9] = {3, 2, 1, 4, -1, 0, 5, 6, 7};

__device__ __forceinline__ int step_code(int dx, int dy) { return c_step_code[(dy + 1) * 3 + (dx + 1)]; }

__device__ __forceinline__ int wrap_back(int i, int k, int n) { return i >= k ? i - k : n - k + i; }
__device__ __forceinline__ int wrap_fwd(int i, int k, int n) { return i + k < n ? i + k : i + k - n; }

// Region of support (model: support). cv2 rounds d_prev * lk - dk * l_prev (each product in double)
// to float and reads the sign of its bit pattern. Every operand is an integer, so the double is 0
// or at least 1 in magnitude and below 2^63: the float has the double's sign bit and is zero
// exactly when it is, so the test is done on the double (explicit _rn ops: never contracted).
__device__ int tc89_support(const int2* __restrict__ p, int n, int i)
{
    int d_prev = 0, l_prev = 0;
    int k = 1;
    const int2 pi = p[i];
    for (; k <= n; ++k) {
        const int2 a = p[wrap_back(i, k, n)], b = p[wrap_fwd(i, k, n)];
        const int dx = i32_sub(b.x, a.x), dy = i32_sub(b.y, a.y);
        const int lk = i32_add(i32_mul(dx, dx), i32_mul(dy, dy));
        const int dk = i32_sub(i32_mul(i32_sub(pi.x, a.x), dy), i32_mul(i32_sub(pi.y, a.y), dx));
        const double v = __dsub_rn(__dmul_rn((double)d_prev, (double)lk), __dmul_rn((double)dk, (double)l_prev));
        const bool neg = signbit(v);
        if (k > 1) {
            if (l_prev >= lk) break;
            if (d_prev > 0 && (neg || v == 0.0)) break;
            if (d_prev < 0 && !neg) break;
        }
        d_prev = dk;
        l_prev = lk;
    }
    // k > n never happens on a closed chain (at k = n/2 the chord is a point); the bound only
    // keeps a corrupt input from looping. cv2 would raise there.
    return k - 1;
}

// k-cosine value (model: kcos): the bits of float(float(cos) + 1.1), cos in double as cv2.
__device__ int tc89_kcos(const int2* __restrict__ p, int n, int i, int k)
{
    const int2 pi = p[i];
    int s = 0;
    for (int j = k; j > 0; --j) {
        const int2 a = p[wrap_back(i, j, n)], b = p[wrap_fwd(i, j, n)];
        const int dx1 = i32_sub(a.x, pi.x), dy1 = i32_sub(a.y, pi.y);
        const int dx2 = i32_sub(b.x, pi.x), dy2 = i32_sub(b.y, pi.y);
        if ((dx1 | dy1) == 0 || (dx2 | dy2) == 0) break;
        const double num = (double)i32_add(i32_mul(dx1, dx2), i32_mul(dy1, dy2));
        const double q1 = __dadd_rn(__dmul_rn((double)dx1, (double)dx1), __dmul_rn((double)dy1, (double)dy1));
        const double q2 = __dadd_rn(__dmul_rn((double)dx2, (double)dx2), __dmul_rn((double)dy2, (double)dy2));
        const double den = __dsqrt_rn(__dmul_rn(q1, q2));
        // |cos| is 0 or >= 2^-62 here (integer numerator): never a subnormal float.
        const float c = __double2float_rn(__ddiv_rn(num, den));
        const int bits = __float_as_int(__double2float_rn(__dadd_rn(f32_to_f64(c), 1.1)));
        if (j < k && bits <= s) break;
        s = bits;
    }
    return s;
}

__device__ __forceinline__ int contour_of(const long long* __restrict__ off, int k, long long t)
{
    int lo = 0, hi = k;   // off[lo] <= t < off[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] <= t) lo = mid; else hi = mid;
    }
    return lo;
}

// Passes 0 and 1 for every point. kcos: 1 for TC89_KCOS.
extern "C" __global__ void tc89_point(const int2* __restrict__ pts, const long long* __restrict__ off, int k,
                                      long long total, int kcos, int* __restrict__ sv, int* __restrict__ kv,
                                      u8* __restrict__ gone)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j];
    const int n = (int)(off[j + 1] - base);
    const int i = (int)(t - base);
    const long long q = base + j + i;
    const int2* p = pts + base;
    if (n == 1) {
        sv[q] = 0; kv[q] = 0; gone[q] = 0;
        return;
    }
    const int2 a = p[wrap_back(i, 1, n)], b = p[i], c = p[wrap_fwd(i, 1, n)];
    const int d = abs(step_code(i32_sub(c.x, b.x), i32_sub(c.y, b.y)) -
                      step_code(i32_sub(b.x, a.x), i32_sub(b.y, a.y)));
    const int turn = min(d, 8 - d);
    int s = turn;
    int kk = 0;
    if (turn != 0) {
        kk = tc89_support(p, n, i);
        if (kcos) s = tc89_kcos(p, n, i, kk);
    }
    sv[q] = s;
    kv[q] = kk;
    gone[q] = turn == 0;   // pass 0 drops the straight points (their k stays 0)
}

__device__ __forceinline__ int next_alive(const u8* g, int n, int from)
{
    int r = from + 1;
    while (r < n && g[r]) ++r;
    return r;
}

// Slot q (0 <= q < total + k) -> contour j: slots of contour j are off[j] + j .. off[j + 1] + j.
__device__ __forceinline__ int contour_of_slot(const long long* __restrict__ off, int k, long long q)
{
    int lo = 0, hi = k;   // off[lo] + lo <= q < off[hi] + hi
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] + mid <= q) lo = mid; else hi = mid;
    }
    return lo;
}

// Pass 2 (NMS, cv2: in place and in order) in parallel. With s the values after pass 1 (all >= 0),
// point i is dropped iff some q within k[i] >> 1 on either side has s[q] > s[i] and either q > i
// (not yet processed by cv2: its own value counts; the wrapped left neighbours at the chain's end
// are such q) or q < i and q is kept (a dropped q reads 0, never > s[i]). The decision of i then
// depends only on points of larger s, so the relation is acyclic and every point can be decided
// as soon as the q < i with larger s are. nms state: 0 open, 1 kept, 2 dropped.
#define TC89_OPEN 0
#define TC89_KEEP 1
#define TC89_DROP 2
#define TC89_DROP3 3

// The decidable part: a larger q > i drops i at once; no larger q < i keeps it.
extern "C" __global__ void tc89_nms_init(const long long* __restrict__ off, int k, long long total,
                                         const int* __restrict__ sv, const int* __restrict__ kv,
                                         u8* __restrict__ st)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    const int* s = sv + base;
    const int half = kv[base + i] >> 1;
    const int si = s[i];
    bool open = false;
    for (int m = 1; m <= half; ++m) {
        const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
        if ((s[a] > si && a > i) || (s[b] > si && b > i)) {
            st[base + i] = TC89_DROP;
            return;
        }
        open |= s[a] > si || s[b] > si;
    }
    st[base + i] = open ? TC89_OPEN : TC89_KEEP;
}

// One round over the open points: a kept larger q < i drops i; all larger q < i dropped keeps it.
// Decisions are final when made, so reading a neighbour's state while another thread of the same
// round writes it is harmless (it is open or already final). last: open points left mark their
// contour for tc89_nms_finish.
extern "C" __global__ void tc89_nms_round(const long long* __restrict__ off, int k, long long total,
                                          const int* __restrict__ sv, const int* __restrict__ kv,
                                          u8* __restrict__ st, int last, int* __restrict__ pend)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int i = (int)(t - off[j]);
    volatile u8* g = st + base;
    if (g[i] != TC89_OPEN) return;
    const int n = (int)(off[j + 1] - off[j]);
    const int* s = sv + base;
    const int half = kv[base + i] >> 1;
    const int si = s[i];
    bool open = false;
    for (int m = 1; m <= half; ++m) {
        const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
        if (s[a] > si && a < i) {
            const u8 v = g[a];
            if (v == TC89_KEEP) { g[i] = TC89_DROP; return; }
            open |= v == TC89_OPEN;
        }
        if (s[b] > si && b < i) {
            const u8 v = g[b];
            if (v == TC89_KEEP) { g[i] = TC89_DROP; return; }
            open |= v == TC89_OPEN;
        }
    }
    if (!open) g[i] = TC89_KEEP;
    else if (last) pend[j] = 1;
}

// What the rounds left open, in index order (exact: every q < i is decided before i). One thread
// per contour that still has open points (rare: long chains of decreasing k-cosines).
extern "C" __global__ void tc89_nms_finish(const long long* __restrict__ off, int k, const int* __restrict__ sv,
                                           const int* __restrict__ kv, u8* __restrict__ st,
                                           const int* __restrict__ pend)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k || !pend[j]) return;
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int* s = sv + base;
    u8* g = st + base;
    for (int i = 0; i < n; ++i) {
        if (g[i] != TC89_OPEN) continue;
        const int half = kv[base + i] >> 1;
        const int si = s[i];
        u8 v = TC89_KEEP;
        for (int m = 1; m <= half && v == TC89_KEEP; ++m) {
            const int a = wrap_back(i, m, n), b = wrap_fwd(i, m, n);
            if ((s[a] > si && a < i && g[a] == TC89_KEEP) || (s[b] > si && b < i && g[b] == TC89_KEEP))
                v = TC89_DROP;
        }
        g[i] = v;
    }
}

// Points whose state is `code` are dropped (s = 0).
extern "C" __global__ void tc89_apply(const long long* __restrict__ off, int k, long long total, int code,
                                      const u8* __restrict__ st, int* __restrict__ sv, u8* __restrict__ gone)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const long long q = t + contour_of(off, k, t);
    if (st[q] == code) { sv[q] = 0; gone[q] = 1; }
}

// s of slot q after pass 3, while tc89_apply3 runs (only slots with st == TC89_DROP3 are written).
__device__ __forceinline__ int tc89_s3(const int* __restrict__ sv, const u8* __restrict__ st, long long q)
{
    return st[q] == TC89_DROP3 ? 0 : sv[q];
}

// Pass 3's drops, and for TC89_L1 contours that take the seam pass (s[0] and s[n - 1] != 0) its
// three indices, by atomics on zero-initialised seam[3 j ..]: n - (first index >= 1 with s == 0),
// the last index in 1..n-2 with s == 0, n - (first index >= 1 with s != 0). (In L1 s == 0 exactly
// for dropped points.) Only the ends of runs can be those extremes, so only they go to the atomics
// (one address per contour: on one huge border every point would queue there).
extern "C" __global__ void tc89_apply3(const long long* __restrict__ off, int k, long long total, int l1,
                                       const u8* __restrict__ st, int* __restrict__ sv, u8* __restrict__ gone,
                                       int* __restrict__ seam)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long q = t + j;
    if (st[q] == TC89_DROP3) { sv[q] = 0; gone[q] = 1; }
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    if (!l1 || n == 1 || i == 0) return;
    const long long b0 = off[j] + j;
    if (tc89_s3(sv, st, b0) == 0 || tc89_s3(sv, st, b0 + n - 1) == 0) return;   // no seam pass
    const int si = tc89_s3(sv, st, q), sp = tc89_s3(sv, st, q - 1);
    // (s[0] and s[n - 1] != 0 here, so every run in 1..n-2 has both neighbours inside 0..n-1.)
    if (si == 0) {
        if (sp != 0) atomicMax(&seam[3 * j], n - i);
        if (i <= n - 2 && tc89_s3(sv, st, q + 1) != 0) atomicMax(&seam[3 * j + 1], i);
    } else if (sp == 0) {
        atomicMax(&seam[3 * j + 2], n - i);
    }
}

// Pass 3 in parallel. cv2 drops a live point i with k == 1 when s[i] <= s of a direct neighbour as
// it is at that moment: i - 1 after pass 3 (processed), i + 1 after pass 2, except at the seam (0
// reads n - 1 after pass 2; n - 1 reads 0 after pass 3). So x(i) = f_i(x(i - 1)) for i >= 1, with
// f_i(0) = E && (R || s[i] <= s[i - 1]), f_i(1) = E && (R || s[i] <= 0) (E: live with k == 1,
// R: s[i] <= right neighbour): f_i is constant or the negation (f_i(0) = 1, f_i(1) = 0 needs
// s[i - 1] >= s[i] > 0 and s[i] > s[i + 1]), and x(0) is direct. A chain of negations is a strictly
// decreasing run of k == 1 values, so it is short (L1: 1..4; KCOS: the few k-cosines of two
// 8-neighbour steps); each thread walks back to the nearest constant.
__device__ __forceinline__ bool tc89_x0(const int* s, const int* kk, const u8* g, int n)
{
    return !g[0] && kk[0] == 1 && (s[0] <= s[n - 1] || s[0] <= s[n > 1 ? 1 : 0]);
}

extern "C" __global__ void tc89_pass3(const long long* __restrict__ off, int k, long long total,
                                      const int* __restrict__ sv, const int* __restrict__ kv,
                                      const u8* __restrict__ gone, u8* __restrict__ st)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= total) return;
    const int j = contour_of(off, k, t);
    const long long base = off[j] + j;
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(t - off[j]);
    const int* s = sv + base;
    const int* kk = kv + base;
    const u8* g = gone + base;
    if (g[i] || kk[i] != 1 || n == 1) { st[base + i] = 0; return; }
    const bool x0 = tc89_x0(s, kk, g, n);
    int flips = 0;
    int m = i;
    bool x;
    for (;; --m) {
        if (m == 0) { x = x0; break; }
        // f_m: live with k == 1 (m == i is; earlier m only continue the walk when they are).
        const int sm = s[m];
        const int right = m + 1 < n ? s[m + 1] : (x0 ? 0 : s[0]);
        const bool e = !g[m] && kk[m] == 1;
        const bool r = sm <= right;
        const bool f0 = e && (r || sm <= s[m - 1]);
        const bool f1 = e && (r || sm <= 0);
        if (f0 == f1) { x = f0; break; }
        ++flips;   // f_m is the negation
    }
    if (flips & 1) x = !x;
    st[base + i] = x ? TC89_DROP3 : 0;
}

// Pass 4 (TC89_L1), part 1, one thread per contour: the run through the seam (model: _new_start)
// from the indices tc89_apply3 found. start4[j] = the index cleanup starts at, -1 when it is
// skipped (KCOS, one point, or no point dropped); used[j] = slots in use (n, or n + 1 with the copy
// of point 0); cut4[j]: points cut4[j] .. n - 1 are dropped (the trailing run keeps only its first
// point). cv2 also zeroes s of the points before the start index; nothing reads those again.
extern "C" __global__ void tc89_seam(const long long* __restrict__ off, int k, int l1, int* __restrict__ sv,
                                     int* __restrict__ kv, u8* __restrict__ gone, const int* __restrict__ seam,
                                     int* __restrict__ used, int* __restrict__ start4, int* __restrict__ cut4)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const long long base = off[j] + j;
    const int n0 = (int)(off[j + 1] - off[j]);
    int n = n0;
    int* s = sv + base;
    int* kk = kv + base;
    u8* g = gone + base;
    int start = 0, cut = n;
    if (!l1 || n == 1) start = -1;
    else if (s[0] != 0 && s[n - 1] != 0) {
        const int z = n - seam[3 * j];
        if (z == n) {
            start = -1;   // nothing was dropped: every point stays
        } else {
            int first = z - 1;
            const int last = seam[3 * j + 1] + 1;
            cut = last + 1;
            if (first == 0 && last == n - 1) {
                first = n - seam[3 * j + 2];   // the first live point after 0
                s[n] = s[0];
                kk[n] = kk[0];
                g[n] = 0;
                ++n;
            }
            start = first;
        }
    }
    if (n == n0) g[n] = 1;   // the spare slot is not a point
    used[j] = n;
    start4[j] = start;
    cut4[j] = cut;
}

// Live after the seam pass: not dropped and not in the cut tail (index i of slot q, n points).
__device__ __forceinline__ bool tc89_live(const u8* __restrict__ gone, long long q, int i, int cut, int n)
{
    return !gone[q] && !(i >= cut && i < n);
}

// Slot q of a contour whose cleanup runs, at or after its start and live: in a run of pass 4.
__device__ __forceinline__ bool tc89_in4(const u8* __restrict__ gone, long long q, int i, int start, int used,
                                         int cut, int n)
{
    return start >= 0 && i >= start && i < used && tc89_live(gone, q, i, cut, n);
}

// Pass 4, part 2: flag the first slot of every run (runs are cut at the start index); a cumsum of
// the flags numbers the runs.
extern "C" __global__ void tc89_runflag(const long long* __restrict__ off, int k, long long slots,
                                        const u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        int* __restrict__ fl)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int start = start4[j], cut = cut4[j], n = (int)(off[j + 1] - off[j]);
    fl[q] = tc89_in4(gone, q, i, start, used[j], cut, n) && (i == start || !tc89_live(gone, q - 1, i - 1, cut, n));
}

// Pass 4, part 3: each run's first and last index, by run number (rid: inclusive cumsum of fl).
extern "C" __global__ void tc89_runends(const long long* __restrict__ off, int k, long long slots,
                                        const u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        const int* __restrict__ fl, const int* __restrict__ rid,
                                        int* __restrict__ rs, int* __restrict__ re)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int u = used[j], cut = cut4[j], n = (int)(off[j + 1] - off[j]);
    if (!tc89_in4(gone, q, i, start4[j], u, cut, n)) return;
    const int r = rid[q] - 1;
    if (fl[q]) rs[r] = i;
    if (i + 1 == u || !tc89_live(gone, q + 1, i + 1, cut, n)) re[r] = i;
}

// Pass 4, part 4 (model: _cleanup). A run's changes touch only its own points and read only its
// own ends, so each point decides alone: a run of 2 keeps the larger s (ties: the smaller k, equal
// k: the first); a longer run keeps its first and last points, and its second when it begins at
// the start index (cv2 steps from the start index itself there, elsewhere from the previous run's
// last point).
extern "C" __global__ void tc89_cleanup(const long long* __restrict__ off, int k, long long slots,
                                        const int* __restrict__ sv, const int* __restrict__ kv,
                                        u8* __restrict__ gone, const int* __restrict__ used,
                                        const int* __restrict__ start4, const int* __restrict__ cut4,
                                        const int* __restrict__ rid, const int* __restrict__ rs,
                                        const int* __restrict__ re)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const long long base = off[j] + j;
    const int i = (int)(q - base);
    const int start = start4[j];
    if (!tc89_in4(gone, q, i, start, used[j], cut4[j], (int)(off[j + 1] - off[j]))) return;
    const int r = rid[q] - 1;
    const int a = rs[r], b = re[r];
    bool drop = false;
    if (b - a == 1) {
        const int sa = sv[base + a], sb = sv[base + b];
        const bool drop_b = sa > sb || (sa == sb && kv[base + a] <= kv[base + b]);
        drop = drop_b ? i == b : i == a;
    } else if (b - a > 1) {
        drop = i != a && i != b && !(a == start && i == a + 1);
    }
    if (drop) gone[q] = 1;
}

// Output: fl[q] = 1 for every slot that is an output point; rid = its inclusive cumsum.
extern "C" __global__ void tc89_keep(const long long* __restrict__ off, int k, long long slots,
                                     const u8* __restrict__ gone, const int* __restrict__ used,
                                     const int* __restrict__ cut4, int* __restrict__ fl)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots) return;
    const int j = contour_of_slot(off, k, q);
    const int i = (int)(q - off[j] - j);
    const int n = (int)(off[j + 1] - off[j]);
    fl[q] = i < used[j] && (n == 1 || tc89_live(gone, q, i, cut4[j], n));
}

// new_off[j + 1] = output points up to the end of contour j (new_off[0] stays 0).
extern "C" __global__ void tc89_offsets(const long long* __restrict__ off, int k, const int* __restrict__ rid,
                                        long long* __restrict__ new_off)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    new_off[j + 1] = rid[off[j + 1] + j];
}

// Surviving points (slot n, the appended copy, is point 0).
extern "C" __global__ void tc89_emit(const int2* __restrict__ pts, const long long* __restrict__ off, int k,
                                     long long slots, const int* __restrict__ fl, const int* __restrict__ rid,
                                     int2* __restrict__ out)
{
    const long long q = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= slots || !fl[q]) return;
    const int j = contour_of_slot(off, k, q);
    const int n = (int)(off[j + 1] - off[j]);
    const int i = (int)(q - off[j] - j);
    out[rid[q] - 1] = pts[off[j] + (i < n ? i : 0)];
}
