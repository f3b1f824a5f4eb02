// cv2.findContoursLinkRuns (cvgpu/contours/_linkruns.py): cv2's contours_link.cpp in parallel,
// following the CPU model tests/models/linkruns_model.py.
//
// OpenCV merges the runs of each pair of adjacent rows in one sequential walk and gives every run
// end point one link; the contours are the cycles of those links. Each link only depends on the
// runs of the two rows around it (see the model), so here:
//   lr_flags / lr_runs   runs of every row at once: a start flag per pixel, the host's inclusive
//                        prefix sum numbers the runs in raster order (= OpenCV's run order);
//   lr_link              one thread per run: both links by binary search in the adjacent rows, and
//                        the start's key (raster rank among OpenCV's external starts, then its
//                        internal starts: the order in which OpenCV emits cycles);
//   lr_jump              pointer jumping around the cycles: every node learns its cycle's least
//                        key (the cycle's first point, and so its place in the output) and how far
//                        ahead that first point is (so its own place in the contour);
//   lr_heads / lr_offsets / lr_emit  cycle lengths by key, prefix sums (host), points scattered
//                        (in cv2's order, or grouped by length for the host's views).
// Node 2r is run r's start point (x0, y), node 2r + 1 its end point (x1, y). All indices are int:
// the host refuses (cv2.error -211) images with h * (w + 1) >= 2^31 - 1. Every kernel is a
// grid-stride loop over lr_<name>_one (its grid is capped).
//
// Host builds: tests/contours/kernel_host.py compiles this file as C++ (threads independent).

#include "common.cuh"

#define LR_FIRST ((long long)blockIdx.x * blockDim.x + threadIdx.x)
#define LR_STRIDE ((long long)gridDim.x * blockDim.x)

__device__ __forceinline__ void lr_flags_one(int i, const u8* __restrict__ src, long long pitch, int h, int w,
                                             u8* __restrict__ flags)
{
    const int y = i / w, x = i - y * w;
    const u8* row = src + (long long)y * pitch;
    flags[i] = (row[x] != 0 && (x == 0 || row[x - 1] == 0)) ? 1 : 0;
}

extern "C" __global__ void lr_flags(const u8* __restrict__ src, long long pitch, int h, int w,
                                    u8* __restrict__ flags)
{
    for (long long t = LR_FIRST; t < (long long)h * w; t += LR_STRIDE)
        lr_flags_one((int)t, src, pitch, h, w, flags);
}

// cs: inclusive prefix sum of the flags. Run r = cs[i] - 1 for every pixel of the run.
__device__ __forceinline__ void lr_runs_one(int i, const u8* __restrict__ src, long long pitch, int h, int w,
                                            const int* __restrict__ cs, int* __restrict__ x0, int* __restrict__ x1,
                                            int* __restrict__ ry, int* __restrict__ row_off)
{
    const int y = i / w, x = i - y * w;
    const u8* row = src + (long long)y * pitch;
    if (x == 0) {
        row_off[y] = i == 0 ? 0 : cs[i - 1];
        if (y == h - 1) row_off[h] = cs[h * w - 1];
    }
    if (row[x] == 0) return;
    const int r = cs[i] - 1;
    if (x == 0 || row[x - 1] == 0) { x0[r] = x; ry[r] = y; }
    if (x == w - 1 || row[x + 1] == 0) x1[r] = x;
}

extern "C" __global__ void lr_runs(const u8* __restrict__ src, long long pitch, int h, int w,
                                   const int* __restrict__ cs, int* __restrict__ x0, int* __restrict__ x1,
                                   int* __restrict__ ry, int* __restrict__ row_off)
{
    for (long long t = LR_FIRST; t < (long long)h * w; t += LR_STRIDE)
        lr_runs_one((int)t, src, pitch, h, w, cs, x0, x1, ry, row_off);
}

// A cycle node during the jumps: 16 bytes, one vector load per gather.
struct alignas(16) LrNode { int next, key, dist, pad; };

// First index in [a, b) with v[k] >= t (v non-decreasing), b if none.
__device__ __forceinline__ int lr_lower_bound(const int* __restrict__ v, int a, int b, int t)
{
    while (a < b) {
        const int mid = a + ((b - a) >> 1);
        if (v[mid] < t) a = mid + 1; else b = mid;
    }
    return a;
}

// nodes[i] = (link, key, 0): key of a start is r for OpenCV's external starts (no run above touches
// it, or row 0), R + r for its internal starts (the previous run of the row touches the first run
// above it too), 2R (never first) for every other node.
__device__ __forceinline__ void lr_link_one(int r, int R, int h, const int* __restrict__ x0,
                                            const int* __restrict__ x1, const int* __restrict__ ry,
                                            const int* __restrict__ row_off, int* __restrict__ link,
                                            LrNode* __restrict__ nodes)
{
    const int y = ry[r], s = x0[r], e = x1[r];
    const int none = 2 * R;
    int ls, ks = none, le;
    if (y == 0) {
        ls = 2 * r + 1; ks = r;
    } else {
        const int a = row_off[y - 1], b = row_off[y];
        const int u = lr_lower_bound(x1, a, b, s - 1);            // first run above ending at >= s - 1
        if (u < b && x0[u] <= e + 1) {
            if (r > b && x1[r - 1] >= x0[u] - 1) { ls = 2 * (r - 1) + 1; ks = R + r; }
            else ls = 2 * u;
        } else {
            ls = 2 * r + 1; ks = r;
        }
    }
    if (y == h - 1) {
        le = 2 * r;
    } else {
        const int c = row_off[y + 1], d = row_off[y + 2];
        const int l = lr_lower_bound(x0, c, d, e + 2) - 1;        // last run below starting at <= e + 1
        if (l >= c && x1[l] >= s - 1) {
            if (r + 1 < c && x0[r + 1] <= x1[l] + 1) le = 2 * (r + 1);
            else le = 2 * l + 1;
        } else {
            le = 2 * r;
        }
    }
    link[2 * r] = ls;
    link[2 * r + 1] = le;
    LrNode v;
    v.next = ls; v.key = ks; v.dist = 0; v.pad = 0;
    nodes[2 * r] = v;
    v.next = le; v.key = none;
    nodes[2 * r + 1] = v;
}

extern "C" __global__ void lr_link(int R, int h, const int* __restrict__ x0, const int* __restrict__ x1,
                                   const int* __restrict__ ry, const int* __restrict__ row_off,
                                   int* __restrict__ link, LrNode* __restrict__ nodes)
{
    for (long long t = LR_FIRST; t < R; t += LR_STRIDE)
        lr_link_one((int)t, R, h, x0, x1, ry, row_off, link, nodes);
}

// One round on the cycles, windows of span nodes: (successor 2 * span ahead, least key over the
// 2 * span nodes from here, distance to its first occurrence). Keys of starts are unique, so once
// the window covers the cycle the distance is the one to the cycle's first point.
__device__ __forceinline__ void lr_jump_one(int i, int span, const LrNode* __restrict__ src, LrNode* __restrict__ dst)
{
    LrNode a = src[i];
    const LrNode b = src[a.next];
    a.next = b.next;
    if (b.key < a.key) { a.key = b.key; a.dist = span + b.dist; }
    dst[i] = a;
}

extern "C" __global__ void lr_jump(int n, int span, const LrNode* __restrict__ src, LrNode* __restrict__ dst)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_jump_one((int)t, span, src, dst);
}

__device__ __forceinline__ int lr_head(int key, int R) { return key < R ? 2 * key : 2 * (key - R); }

// Per key (2R of them, zeroed by the host): is_head[key] = 1 and len[key] = the cycle's length
// where key is a cycle's first point (its successor is length - 1 nodes before it).
__device__ __forceinline__ void lr_heads_one(int i, int R, const int* __restrict__ link, const LrNode* __restrict__ nodes,
                                            int* __restrict__ is_head, int* __restrict__ len)
{
    const int key = nodes[i].key;
    if (lr_head(key, R) != i) return;
    is_head[key] = 1;
    len[key] = nodes[link[i]].dist + 1;
}

extern "C" __global__ void lr_heads(int n, int R, const int* __restrict__ link, const LrNode* __restrict__ nodes,
                                    int* __restrict__ is_head, int* __restrict__ len)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_heads_one((int)t, R, link, nodes, is_head, len);
}

// ord / ends: inclusive prefix sums of is_head / len. Contour ord[key] - 1 starts at point
// ends[key] - len[key]; offsets[M] = n. hier: flat siblings [i + 1, i - 1, -1, -1].
extern "C" __global__ void lr_offsets(int n, int M, const int* __restrict__ is_head, const int* __restrict__ ord,
                                      const int* __restrict__ len, const int* __restrict__ ends,
                                      long long* __restrict__ offsets, int* __restrict__ hier)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE) {
        const int key = (int)t;
        if (key == 0) offsets[M] = n;
        if (!is_head[key]) continue;
        const int c = ord[key] - 1;
        offsets[c] = ends[key] - len[key];
        hier[4 * c + 0] = c + 1 < M ? c + 1 : -1;
        hier[4 * c + 1] = c - 1;
        hier[4 * c + 2] = -1;
        hier[4 * c + 3] = -1;
    }
}

// Point i of the cycles to points[base[c] + its place in the contour], c = the cycle's contour
// index: base is the offsets (cv2's order) or the starts of a layout grouped by length.
__device__ __forceinline__ void lr_emit_one(int i, const int* __restrict__ x0, const int* __restrict__ x1,
                                            const int* __restrict__ ry, const LrNode* __restrict__ nodes,
                                            const int* __restrict__ len, const int* __restrict__ ord,
                                            const long long* __restrict__ base, int2* __restrict__ points)
{
    const LrNode v = nodes[i];
    const int r = i >> 1;
    int2 p;
    p.x = (i & 1) ? x1[r] : x0[r];
    p.y = ry[r];
    points[base[ord[v.key] - 1] + (v.dist == 0 ? 0 : len[v.key] - v.dist)] = p;
}

extern "C" __global__ void lr_emit(int n, const int* __restrict__ x0, const int* __restrict__ x1,
                                   const int* __restrict__ ry, const LrNode* __restrict__ nodes,
                                   const int* __restrict__ len, const int* __restrict__ ord,
                                   const long long* __restrict__ base, int2* __restrict__ points)
{
    for (long long t = LR_FIRST; t < n; t += LR_STRIDE)
        lr_emit_one((int)t, x0, x1, ry, nodes, len, ord, base, points);
}
