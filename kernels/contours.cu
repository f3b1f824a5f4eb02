// findContours on the GPU (cvgpu/contours.py).
//
// Instead of replaying OpenCV's sequential raster scan, every border is identified by a connected
// component (Suzuki-Abe: each border separates one 8-connected foreground component from one
// 4-connected background component, and the scan meets each one exactly once):
//   * one OUTER border per foreground component C, starting at C's raster-first pixel;
//   * one HOLE border per background component B that is not the frame's, starting at the
//     foreground pixel just left of B's raster-first pixel.
// With union-find labels whose root is the smallest flat index of the component, the roots ARE
// those raster-first pixels, the discovery order is the order of the start pixels, and the parent
// of the border with root r is the border of the component holding pixel r - 1 (for an outer: the
// background around it; for a hole: the foreground around it). The walk itself only tests
// "nonzero", so every border is followed independently, one thread per border.
//
// All images here are the binarised input with a one-pixel zero frame, row length w2, flat index
// int (the host falls back to cv2 above 2^31 pixels).

typedef unsigned char u8;

extern "C" __global__ void pad_binarize(const u8* __restrict__ src, long long pitch, int h, int w,
                                        u8* __restrict__ dst)
{
    const int w2 = w + 2, h2 = h + 2;
    const long long n = (long long)w2 * h2;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        const int y = (int)(i / w2), x = (int)(i - (long long)y * w2);
        u8 v = 0;
        if (y >= 1 && y <= h && x >= 1 && x <= w) v = src[(long long)(y - 1) * pitch + (x - 1)] != 0;
        dst[i] = v;
    }
}

__device__ __forceinline__ int find_root(const int* L, int a)
{
    int p = L[a];
    while (p != a) { a = p; p = L[a]; }
    return a;
}

// Lock-free union keeping the smaller index as root (Playne & Hawick 2018).
__device__ void unite(int* L, int a, int b)
{
    bool done;
    do {
        a = find_root(L, a);
        b = find_root(L, b);
        if (a < b) {
            int old = atomicMin(&L[b], a);
            done = (old == b);
            b = old;
        } else if (b < a) {
            int old = atomicMin(&L[a], b);
            done = (old == a);
            a = old;
        } else {
            done = true;
        }
    } while (!done);
}

// Initial labels: runs of one class along a row are linked without atomics. Inside each aligned
// 32-pixel chunk a pixel points at the first pixel of its run in the chunk (a ballot finds it); a
// run's first pixel in a chunk points at the last pixel of the previous chunk when the run
// continues from there. Parents always have smaller indices, so roots stay the smallest index,
// and a root search along a run of length r takes about r / 32 hops, not r.
extern "C" __global__ void ccl_init(const u8* __restrict__ f, int w2, int n, int* __restrict__ L)
{
    const int lane = threadIdx.x & 31;
    for (int i0 = blockIdx.x * blockDim.x; i0 < n; i0 += gridDim.x * blockDim.x) {
        const int i = i0 + threadIdx.x;
        const bool in = i < n;
        const bool change = in && (i % w2 == 0 || f[i - 1] != f[i]);
        const unsigned bal = __ballot_sync(0xffffffffu, change);
        if (in) {
            const unsigned upto = bal & (0xffffffffu >> (31 - lane));
            L[i] = upto ? (i - lane) + (31 - __clz(upto)) : (i - lane) - 1;
        }
    }
}

// Foreground: 8-connected; background: 4-connected. Only links to already-scanned neighbours
// (up-left, up, up-right); the left link is in the initial labels.
extern "C" __global__ void ccl_union(const u8* __restrict__ f, int w2, int n, int* L)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        if (i < w2) continue;
        const int x = i % w2;
        const u8 v = f[i];
        if (v) {
            if (f[i - w2]) {
                // Up-left and up-right, when foreground, are joined to up by the initial row links.
                unite(L, i, i - w2);
            } else {
                // A foreground left pixel already links up-left (its own up neighbour).
                if (x > 0 && f[i - w2 - 1] && !f[i - 1]) unite(L, i, i - w2 - 1);
                if (x + 1 < w2 && f[i - w2 + 1]) unite(L, i, i - w2 + 1);
            }
        } else {
            if (!f[i - w2]) unite(L, i, i - w2);
        }
    }
}

extern "C" __global__ void ccl_compress(int n, int* L)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        L[i] = find_root(L, i);
    }
}

// flag[p] = 1 where a border starts: p is a foreground root (outer), or p + 1 is a background
// root other than the frame's (hole; its left neighbour is foreground).
extern "C" __global__ void border_flags(const u8* __restrict__ f, const int* __restrict__ L, int n,
                                        u8* __restrict__ flag)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u8 r = 0;
        if (f[i]) {
            if (L[i] == i) r = 1;
            else if (i + 1 < n && !f[i + 1] && L[i + 1] == i + 1) r = 1;
        }
        flag[i] = r;
    }
}

// Per border d (discovery order): hole flag, and its component root mapped back to d.
extern "C" __global__ void border_nodes(const long long* __restrict__ starts, int m,
                                        const int* __restrict__ L, u8* __restrict__ hole,
                                        int* __restrict__ bid)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    int s = (int)starts[d];
    bool h = L[s] != s;
    hole[d] = h;
    bid[h ? s + 1 : s] = d;
}

// parent[d]: border of the component around this one, -1 for the frame. mode: 1 LIST (all -1),
// 2 CCOMP (outer borders -1), 3 TREE.
extern "C" __global__ void border_parents(const long long* __restrict__ starts, int m,
                                          const int* __restrict__ L, const u8* __restrict__ hole,
                                          const int* __restrict__ bid, int mode, int* __restrict__ parent)
{
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    int s = (int)starts[d];
    bool h = hole[d];
    int root = h ? s + 1 : s;
    int pr = L[root - 1];
    int p = (pr == 0) ? -1 : bid[pr];
    if (mode == 1 || (mode == 2 && !h)) p = -1;
    parent[d] = p;
}

// Sibling links from the nodes sorted by (parent, descending discovery). Node m is the frame.
extern "C" __global__ void sibling_links(const long long* __restrict__ sorted, int m,
                                         const int* __restrict__ parent, int* __restrict__ first_child,
                                         int* __restrict__ next_sib, int* __restrict__ prev_sib)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m) return;
    int v = (int)sorted[j];
    int pv = parent[v] < 0 ? m : parent[v];
    int pprev = -2, pnext = -2;
    if (j > 0) { int u = (int)sorted[j - 1]; pprev = parent[u] < 0 ? m : parent[u]; }
    if (j + 1 < m) { int u = (int)sorted[j + 1]; pnext = parent[u] < 0 ? m : parent[u]; }
    if (pprev != pv) first_child[pv] = v;
    next_sib[v] = (pnext == pv) ? (int)sorted[j + 1] : -1;
    prev_sib[v] = (pprev == pv) ? (int)sorted[j - 1] : -1;
}

// Euler tour of the border tree (enter v = v, exit v = v + m + 1) with weight 1 on entering a
// border: suffix sums by pointer jumping give each border's pre-order index.
extern "C" __global__ void euler_init(int m, const int* __restrict__ parent, const int* __restrict__ first_child,
                                      const int* __restrict__ next_sib, int* __restrict__ succ,
                                      int* __restrict__ sum)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    int nn = m + 1;
    if (e >= 2 * nn) return;
    if (e < nn) {
        int v = e;
        int fc = first_child[v];
        succ[e] = fc >= 0 ? fc : v + nn;
        sum[e] = v < m ? 1 : 0;
    } else {
        int v = e - nn;
        int s;
        if (v == m) s = -1;
        else if (next_sib[v] >= 0) s = next_sib[v];
        else s = (parent[v] < 0 ? m : parent[v]) + nn;
        succ[e] = s;
        sum[e] = 0;
    }
}

extern "C" __global__ void euler_jump(int ne, const int* __restrict__ succ, const int* __restrict__ sum,
                                      int* __restrict__ succ2, int* __restrict__ sum2)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= ne) return;
    int s = succ[e];
    if (s >= 0) {
        sum2[e] = sum[e] + sum[s];
        succ2[e] = succ[s];
    } else {
        sum2[e] = sum[e];
        succ2[e] = -1;
    }
}

// Output order and hierarchy for TREE/CCOMP: pos(v) = m - (borders entered from v on).
extern "C" __global__ void tree_output(int m, const int* __restrict__ sum, const int* __restrict__ parent,
                                       const int* __restrict__ first_child, const int* __restrict__ next_sib,
                                       const int* __restrict__ prev_sib, int* __restrict__ out_node,
                                       int* __restrict__ hier)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= m) return;
    int pos = m - sum[v];
    out_node[pos] = v;
    int nx = next_sib[v], pv = prev_sib[v], fc = first_child[v], pa = parent[v];
    hier[4 * pos + 0] = nx >= 0 ? m - sum[nx] : -1;
    hier[4 * pos + 1] = pv >= 0 ? m - sum[pv] : -1;
    hier[4 * pos + 2] = fc >= 0 ? m - sum[fc] : -1;
    hier[4 * pos + 3] = pa >= 0 ? m - sum[pa] : -1;
}

// LIST / EXTERNAL: the selected borders in reverse discovery order, chained next/previous.
extern "C" __global__ void flat_output(int k, const long long* __restrict__ sel, int* __restrict__ out_node,
                                       int* __restrict__ hier)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    out_node[j] = (int)sel[k - 1 - j];
    hier[4 * j + 0] = j + 1 < k ? j + 1 : -1;
    hier[4 * j + 1] = j - 1;
    hier[4 * j + 2] = -1;
    hier[4 * j + 3] = -1;
}

// Suzuki-Abe walk of one border as OpenCV does it (tests/contours_model.py::_trace, without the
// marks, which only decide where borders start). Codes 0..7: right, up-right, up, up-left, left,
// down-left, down, down-right. WRITE = false counts points, true writes (x, y) pairs.
template <bool WRITE>
__device__ int trace_border(const u8* __restrict__ f, int w2, int start, int from_dir, bool simple,
                            int ox, int oy, int* __restrict__ out)
{
    const int ddx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
    const int ddy[8] = {0, -1, -1, -1, 0, 1, 1, 1};
    int delta[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) delta[k] = ddy[k] * w2 + ddx[k];
    const int sy = start / w2, sx = start - sy * w2;
    int s = from_dir, i1 = -1;
    bool found = false;
    for (int t = 0; t < 7; ++t) {
        s = (s - 1) & 7;
        i1 = start + delta[s];
        if (f[i1]) { found = true; break; }
    }
    if (!found) {
        if (WRITE) { out[0] = sx - 1 + ox; out[1] = sy - 1 + oy; }
        return 1;
    }
    int prev_s = s ^ 4;
    int i3 = start, x3 = sx, y3 = sy;
    int n = 0;
    while (true) {
        int k = s;
        int i4;
        do {
            ++k;
            i4 = i3 + delta[k & 7];
        } while (!f[i4]);
        s = k & 7;
        if (!simple || s != prev_s) {
            if (WRITE) { out[2 * n] = x3 - 1 + ox; out[2 * n + 1] = y3 - 1 + oy; }
            ++n;
            prev_s = s;
        }
        if (i4 == start && i3 == i1) break;
        i3 = i4;
        x3 += ddx[s];
        y3 += ddy[s];
        s = (s + 4) & 7;
    }
    return n;
}

extern "C" __global__ void trace_count(const u8* __restrict__ f, int w2, int k, const int* __restrict__ out_node,
                                       const long long* __restrict__ starts, const u8* __restrict__ hole,
                                       int simple, int* __restrict__ counts)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int v = out_node[j];
    counts[j] = trace_border<false>(f, w2, (int)starts[v], hole[v] ? 0 : 4, simple != 0, 0, 0, nullptr);
}

extern "C" __global__ void trace_write(const u8* __restrict__ f, int w2, int k, const int* __restrict__ out_node,
                                       const long long* __restrict__ starts, const u8* __restrict__ hole,
                                       int simple, int ox, int oy, const long long* __restrict__ offsets,
                                       int* __restrict__ points)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int v = out_node[j];
    trace_border<true>(f, w2, (int)starts[v], hole[v] ? 0 : 4, simple != 0, ox, oy, points + 2 * offsets[j]);
}

// ---------------------------------------------------------------- parallel walk (list ranking)
//
// A walk state is an arrival (p, b): the walk is at pixel p, having come from its neighbour in
// direction b. Its step is local: s = first nonzero neighbour counter-clockwise after b, and the
// next state is (p + delta[s], s ^ 4). That map is injective (the previous state is recovered by
// the clockwise search from s - 1, which stops at b), so the states form disjoint cycles and each
// border is exactly the cycle through its first state (start, direction to i1). Walks only visit
// foreground pixels with a zero 8-neighbour ("border pixels"), numbered e = 0..E-1; state slot
// = 8 e + b. Ranking every state's distance to its border's first state by pointer jumping gives
// each point's place; a border of a million pixels costs log2 steps instead of a million.

__constant__ int c_dx[8] = {1, 1, 0, -1, -1, -1, 0, 1};
__constant__ int c_dy[8] = {0, -1, -1, -1, 0, 1, 1, 1};

__device__ __forceinline__ int delta_of(int k, int w2) { return c_dy[k] * w2 + c_dx[k]; }

extern "C" __global__ void bpix_flags(const u8* __restrict__ f, int w2, int n, u8* __restrict__ flag)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        u8 r = 0;
        if (f[i]) {   // foreground never touches the zero frame, so all 8 neighbours exist
            r = !(f[i - 1] && f[i + 1] && f[i - w2 - 1] && f[i - w2] && f[i - w2 + 1] && f[i + w2 - 1] &&
                  f[i + w2] && f[i + w2 + 1]);
        }
        flag[i] = r;
    }
}

extern "C" __global__ void bpix_map(const long long* __restrict__ bpix, int e_count, int* __restrict__ pmap)
{
    int e = blockIdx.x * blockDim.x + threadIdx.x;
    if (e < e_count) pmap[bpix[e]] = e;
}

// Per output border j: its first state (or -1 for a single-pixel border, whose one point is
// written here) and head_of[first state] = j.
extern "C" __global__ void border_heads(const u8* __restrict__ f, int w2, int k, const int* __restrict__ out_node,
                                        const long long* __restrict__ starts, const u8* __restrict__ hole,
                                        const int* __restrict__ pmap, int* __restrict__ head_slot,
                                        int* __restrict__ head_of)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int v = out_node[j];
    int start = (int)starts[v];
    int from_dir = hole[v] ? 0 : 4;
    int s = from_dir;
    bool found = false;
    for (int t = 0; t < 7; ++t) {
        s = (s - 1) & 7;
        if (f[start + delta_of(s, w2)]) { found = true; break; }
    }
    if (!found) {
        head_slot[j] = -1;
        return;
    }
    int slot = pmap[start] * 8 + s;
    head_slot[j] = slot;
    head_of[slot] = j;
}

// nxt = next state (-1 at the end: the next state is a border's first state, or the chain left
// the border pixels, which no real border does); own = border of that first state; dist = weight
// (1, or for SIMPLE 1 where the direction changes); sdir = outgoing direction (255: not a state).
extern "C" __global__ void state_init(const u8* __restrict__ f, int w2, int slots, const long long* __restrict__ bpix,
                                      const u8* __restrict__ bflag, const int* __restrict__ pmap,
                                      const int* __restrict__ head_of, int simple, int* __restrict__ nxt,
                                      int* __restrict__ dist, int* __restrict__ own, u8* __restrict__ sdir)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    int e = t >> 3, b = t & 7;
    int p = (int)bpix[e];
    if (!f[p + delta_of(b, w2)]) {
        nxt[t] = -1; dist[t] = 0; own[t] = -1; sdir[t] = 255;
        return;
    }
    int k = b, q;
    do {
        ++k;
        q = p + delta_of(k & 7, w2);
    } while (!f[q]);
    int s = k & 7;
    sdir[t] = (u8)s;
    dist[t] = (!simple || s != (b ^ 4)) ? 1 : 0;
    int nx = -1, ow = -1;
    if (bflag[q]) {
        int u = pmap[q] * 8 + ((s + 4) & 7);
        int h = head_of[u];
        if (h >= 0) ow = h; else nx = u;
    }
    nxt[t] = nx;
    own[t] = ow;
}

extern "C" __global__ void state_jump(int slots, const int* __restrict__ nxt, const int* __restrict__ dist,
                                      const int* __restrict__ own, int* __restrict__ nxt2, int* __restrict__ dist2,
                                      int* __restrict__ own2)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    int u = nxt[t];
    if (u < 0) {
        nxt2[t] = -1; dist2[t] = dist[t]; own2[t] = own[t];
    } else {
        nxt2[t] = nxt[u]; dist2[t] = dist[t] + dist[u]; own2[t] = own[u];
    }
}

extern "C" __global__ void border_counts(int k, const int* __restrict__ head_slot, const int* __restrict__ dist,
                                         int* __restrict__ counts)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    int h = head_slot[j];
    counts[j] = h < 0 ? 1 : dist[h];
}

extern "C" __global__ void state_emit(int w2, int slots, const long long* __restrict__ bpix, const int* __restrict__ dist,
                                      const int* __restrict__ own, const u8* __restrict__ sdir, int simple,
                                      const int* __restrict__ counts, const long long* __restrict__ offsets,
                                      int ox, int oy, int* __restrict__ points)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    int j = own[t];
    if (j < 0) return;
    int s = sdir[t];
    if (simple && s == ((t & 7) ^ 4)) return;
    long long pos = offsets[j] + (counts[j] - dist[t]);
    int p = (int)bpix[t >> 3];
    int y = p / w2, x = p - y * w2;
    points[2 * pos] = x - 1 + ox;
    points[2 * pos + 1] = y - 1 + oy;
}

extern "C" __global__ void single_points(const u8* __restrict__ f, int w2, int k, const int* __restrict__ out_node,
                                         const long long* __restrict__ starts, const int* __restrict__ head_slot,
                                         const long long* __restrict__ offsets, int ox, int oy,
                                         int* __restrict__ points)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k || head_slot[j] >= 0) return;
    int p = (int)starts[out_node[j]];
    int y = p / w2, x = p - y * w2;
    long long pos = offsets[j];
    points[2 * pos] = x - 1 + ox;
    points[2 * pos + 1] = y - 1 + oy;
}
