// findContours on CV_32SC1 label images (cvgpu/contours/_labels.py): RETR_FLOODFILL, and
// RETR_CCOMP, which cv2 runs as RETR_FLOODFILL for them (cv2 5.x, contours_new.cpp).
//
// cv2 5.x on a CV_32SC1 image (RETR_FLOODFILL; RETR_CCOMP means the same there) scans like the
// 8-bit case but on labels: a pixel's label is raw & 0x3FFFFFFF, the top two bits are flags that
// its traces set (and input values with those bits set count as flagged from the start). Every
// border is a Suzuki walk on "label == label of the start pixel", so, as in the 8-bit pipeline,
// each walk state has a fixed successor and the borders are the cycles of that map, ranked in
// parallel. What is sequential in cv2 is which cycles get traced: at each column x where the
// label changes along a row, with q = x - 1 and p = x,
//   * the cycle of p's region entered from the left is traced iff p is unflagged then;
//   * the cycle of q's region entered from the right ("hole") is traced first iff q and p are
//     unflagged and q is nonzero;
// and "flagged then" means: flagged on input, or on a cycle traced at an earlier event. Those
// trace times have a unique fixed point (an event's outcome depends only on earlier events), so
// lab_events recomputes every cycle's first trace event from the previous round's times until
// nothing changes (the earliest wrong event is right one round later). LNBD for a hole is the
// previous label change on the row, so its parent is local too (lab_hole_parent). The CPU model
// is tests/models/labels_model.py (proven equal to cv2); tests/contours/test_labels_kernel_host.py
// runs this file on the host against cv2 (every kernel's threads are independent; atomics are
// plain read-modify-writes there, one thread at a time).
//
// Cycle ids: the smallest state slot of the cycle; a one-pixel region (no states) is 8 E + e.
// The cycles are ranked by ranking.cu / ranking_block.cu and ordered as a tree by ranking.cu.

#include "common.cuh"

#define LAB_VAL 0x3FFFFFFFu
#define LAB_FLAGS 0xC0000000u
#define LAB_INF 0x7FFFFFFF

__device__ __forceinline__ bool lab_same(const unsigned* __restrict__ f, int n, long long j, unsigned v)
{
    // Outside the padded image (only reachable from the frame rows): never the same label.
    return j >= 0 && j < n && (f[j] & LAB_VAL) == v;
}

__device__ __forceinline__ int lab_delta(int k, int w2) { return c_dy[k & 7] * w2 + c_dx[k & 7]; }

// Raw values with a zero frame. pitch in elements.
extern "C" __global__ void lab_pad(const int* __restrict__ src, long long pitch, int h, int w, int n,
                                   unsigned* __restrict__ f)
{
    const int w2 = w + 2;
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < (unsigned)n; u += gridDim.x * blockDim.x) {
        const int i = (int)u;   // unsigned loop: see pad_init
        const int y = i / w2, x = i - y * w2;
        f[i] = (y >= 1 && y <= h && x >= 1 && x <= w) ? (unsigned)src[(long long)(y - 1) * pitch + (x - 1)] : 0u;
    }
}

// fl[i]: 1 where pixel i has a neighbour of another label (the only pixels walks visit); 2 more
// where a row's label changes at i (an event column: interior, x >= 1).
extern "C" __global__ void lab_flags(const unsigned* __restrict__ f, int w2, int h, int n, u8* __restrict__ fl)
{
    for (unsigned u = blockIdx.x * blockDim.x + threadIdx.x; u < (unsigned)n; u += gridDim.x * blockDim.x) {
        const int i = (int)u;   // unsigned loop: see pad_init
        const unsigned v = f[i] & LAB_VAL;
        u8 r = 0;
        for (int k = 0; k < 8; ++k) {
            if (!lab_same(f, n, (long long)i + lab_delta(k, w2), v)) { r = 1; break; }
        }
        const int y = i / w2, x = i - y * w2;
        if (y >= 1 && y <= h && x >= 1 && x <= w2 - 2 && (f[i - 1] & LAB_VAL) != v) r |= 2;
        fl[i] = r;
    }
}

// Walk states (p = bpix[t >> 3], came from neighbour t & 7): nxt = successor slot (-1: none or not
// a state), cyc = (successor, own slot) for the min-jumping, sdir = outgoing direction (255: not a
// state).
extern "C" __global__ void lab_state_init(const unsigned* __restrict__ f, int w2, int n, int slots,
                                          const int* __restrict__ bpix, const int* __restrict__ pmap,
                                          int* __restrict__ nxt, int2* __restrict__ cyc, u8* __restrict__ sdir)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int b = t & 7, p = bpix[t >> 3];
    const unsigned v = f[p] & LAB_VAL;
    if (!lab_same(f, n, (long long)p + lab_delta(b, w2), v)) {
        nxt[t] = -1;
        cyc[t] = make_int2(-1, t);
        sdir[t] = 255;
        return;
    }
    int k = b;
    long long q;
    do {
        ++k;
        q = (long long)p + lab_delta(k, w2);
    } while (!lab_same(f, n, q, v));
    const int s = k & 7;
    sdir[t] = (u8)s;
    const int e = pmap[q];   // -1 for an interior pixel: not on any real border
    const int nx = e >= 0 ? e * 8 + ((s + 4) & 7) : -1;
    nxt[t] = nx;
    cyc[t] = make_int2(nx, t);
}

// One round of min-jumping: (successor 2^r ahead, smallest slot in the 2^r states from here):
// after log2(L) rounds every state of a cycle of length L holds the cycle's smallest slot.
// *changed is set when some minimum changed. A round that changes nothing proves every cycle
// done: then m(t) <= m(t + 2^r) for every t, so along t, t + 2^r, ... around a cycle all the
// windows' minima are equal, and those windows cover the cycle; so 2^r >= L as well, which
// bounds the ranking rounds after it.
extern "C" __global__ void lab_min_jump(int n, const int2* __restrict__ src, int2* __restrict__ dst,
                                        int* __restrict__ changed)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int2 a = src[i];
    if (a.x >= 0) {
        const int2 b = src[a.x];
        a.x = b.x;
        if (b.y < a.y) {
            a.y = b.y;
            *changed = 1;
        }
    }
    dst[i] = a;
}

// The cycles cut before their leader, for suffix sums of the point weights (1, or for SIMPLE 1
// where the direction changes): leader[t] = cycle id, st = (successor or -1, weight).
extern "C" __global__ void lab_rank_init(int slots, const int* __restrict__ nxt, const int2* __restrict__ cyc,
                                         const u8* __restrict__ sdir, int simple, int* __restrict__ leader,
                                         int2* __restrict__ st)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int l = cyc[t].y;
    leader[t] = l;
    if (sdir[t] == 255) {
        st[t] = make_int2(-1, 0);
        return;
    }
    const int nx = nxt[t];
    st[t] = make_int2(nx == l ? -1 : nx, (!simple || sdir[t] != ((t & 7) ^ 4)) ? 1 : 0);
}

// The cycle a trace from pixel p takes when it enters with the other label at neighbour `from`
// (4: left, outer; 0: right, hole): cv2's clockwise search for the first same-label neighbour.
__device__ int lab_cycle_of(const unsigned* __restrict__ f, int w2, int n, const int* __restrict__ pmap,
                            const int* __restrict__ leader, int slots, int p, int from, int* head)
{
    const unsigned v = f[p] & LAB_VAL;
    int s = from;
    for (int t = 0; t < 7; ++t) {
        s = (s - 1) & 7;
        if (lab_same(f, n, (long long)p + lab_delta(s, w2), v)) {
            const int slot = pmap[p] * 8 + s;
            if (head) *head = slot;
            return leader[slot];
        }
    }
    if (head) *head = -1;
    return slots + pmap[p];
}

// Whether some cycle through pixel p has a trace event before e (in the times T).
__device__ bool lab_traced_before(int slots, const int* __restrict__ pmap, const u8* __restrict__ sdir,
                                  const int* __restrict__ leader, const int* __restrict__ T, int p, int e)
{
    const int base = pmap[p] * 8;
    bool any = false;
    for (int b = 0; b < 8; ++b) {
        if (sdir[base + b] == 255) continue;
        any = true;
        if (T[leader[base + b]] < e) return true;
    }
    return !any && T[slots + pmap[p]] < e;
}

// Event pair k (2k: the hole at label change k; 2k + 1: the outer border there): each checks its
// condition with the trace times Told and offers itself to its cycle in Tnew.
__device__ void lab_event_pair(const unsigned* __restrict__ f, int w2, int n, const int* __restrict__ epos,
                               const int* __restrict__ pmap, const u8* __restrict__ sdir,
                               const int* __restrict__ leader, int slots, const int* Told, int* Tnew, int k)
{
    const int p = epos[k], q = p - 1;
    const unsigned fp = f[p], fq = f[q];
    if (fp & LAB_FLAGS) return;      // flagged on input: neither event
    const int eq = 2 * k, ep = 2 * k + 1;
    const bool p_before_eq = lab_traced_before(slots, pmap, sdir, leader, Told, p, eq);
    // q sits on the frame at x = 1, where cv2 starts the row with a zero "previous" value.
    if (!p_before_eq && fq != 0u && !(fq & LAB_FLAGS) && (q % w2) != 0 &&
        !lab_traced_before(slots, pmap, sdir, leader, Told, q, eq)) {
        atomicMin(&Tnew[lab_cycle_of(f, w2, n, pmap, leader, slots, q, 0, 0)], eq);
    }
    // Only the cycle of the hole event eq itself (q's label, not p's) could have time eq: "before
    // ep" reads the same as "before eq" for p.
    if (!p_before_eq) {
        atomicMin(&Tnew[lab_cycle_of(f, w2, n, pmap, leader, slots, p, 4, 0)], ep);
    }
}

// One round of the fixed-point iteration (Tnew: LAB_INF before the round).
extern "C" __global__ void lab_events(const unsigned* __restrict__ f, int w2, int n, int K,
                                      const int* __restrict__ epos, const int* __restrict__ pmap,
                                      const u8* __restrict__ sdir, const int* __restrict__ leader, int slots,
                                      const int* __restrict__ Told, int* __restrict__ Tnew)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= K) return;
    lab_event_pair(f, w2, n, epos, pmap, sdir, leader, slots, Told, Tnew, k);
}

// cv2's order replayed by one thread (T: LAB_INF before): events in order, each reading the times
// set by the earlier ones. Exact in one pass; the host switches to it only when the rounds above
// do not settle (an image with a long chain of dependent events).
extern "C" __global__ void lab_events_serial(const unsigned* __restrict__ f, int w2, int n, int K,
                                             const int* __restrict__ epos, const int* __restrict__ pmap,
                                             const u8* __restrict__ sdir, const int* __restrict__ leader,
                                             int slots, int* T)
{
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    for (int k = 0; k < K; ++k) lab_event_pair(f, w2, n, epos, pmap, sdir, leader, slots, T, T, k);
}

// Per traced border d (in discovery order, ev = its event): cycle_border[cycle] = d, the hole
// flag, its head slot (-1: one pixel), its origin, and cv2's bounding box started at the origin
// (wrapped int32 coordinates of cv2's offset frame; finished by lab_bbox).
extern "C" __global__ void lab_borders(const unsigned* __restrict__ f, int w2, int n, int m,
                                       const int* __restrict__ ev, const int* __restrict__ cyc_of,
                                       const int* __restrict__ epos, const int* __restrict__ pmap,
                                       const int* __restrict__ leader, int slots, int ox, int oy,
                                       int* __restrict__ cycle_border, u8* __restrict__ hole,
                                       int* __restrict__ head, int* __restrict__ origin, int* __restrict__ bbox)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    const int e = ev[d];
    const bool h = (e & 1) == 0;
    const int p = epos[e >> 1] - (h ? 1 : 0);
    int hs;
    lab_cycle_of(f, w2, n, pmap, leader, slots, p, h ? 0 : 4, &hs);
    cycle_border[cyc_of[d]] = d;
    hole[d] = h;
    head[d] = hs;
    origin[d] = p;
    const int y = p / w2, x = p - y * w2;
    const int wx = i32_add(x, i32_sub(ox, 1)), wy = i32_add(y, i32_sub(oy, 1));
    bbox[4 * d + 0] = wx;
    bbox[4 * d + 1] = wy;
    bbox[4 * d + 2] = wx;
    bbox[4 * d + 3] = wy;
}

// cv2's bounding box of a traced border: the points where the direction changes (its SIMPLE
// points) and the origin, min/max over the wrapped int32 coordinates as cv2 compares them.
extern "C" __global__ void lab_bbox(int w2, int slots, const int* __restrict__ bpix, const u8* __restrict__ sdir,
                                    const int* __restrict__ leader, const int* __restrict__ cycle_border, int ox,
                                    int oy, int* __restrict__ bbox)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int s = sdir[t];
    if (s == 255 || s == ((t & 7) ^ 4)) return;
    const int d = cycle_border[leader[t]];
    if (d < 0) return;
    const int p = bpix[t >> 3];
    const int y = p / w2, x = p - y * w2;
    const int wx = i32_add(x, i32_sub(ox, 1)), wy = i32_add(y, i32_sub(oy, 1));
    atomicMin(&bbox[4 * d + 0], wx);
    atomicMin(&bbox[4 * d + 1], wy);
    atomicMax(&bbox[4 * d + 2], wx);
    atomicMax(&bbox[4 * d + 3], wy);
}

__device__ __forceinline__ bool lab_box_holds(const int* __restrict__ bbox, int d, int lx, int ly, int sox, int soy)
{
    const int bx = i32_sub(bbox[4 * d + 0], sox), by = i32_sub(bbox[4 * d + 1], soy);
    const int bw = i32_sub(bbox[4 * d + 2], i32_sub(bbox[4 * d + 0], 1));
    const int bh = i32_sub(bbox[4 * d + 3], i32_sub(bbox[4 * d + 1], 1));
    return i32_sub(lx, bx) < bw && i32_sub(ly, by) < bh;
}

// cv2's choice for hole d, before the hole rule: among the earlier borders whose start value has
// the low 7 bits of the LNBD pixel and whose box holds LNBD, the newest one passing through LNBD,
// else the oldest one. raw[d] = that border, -1 (root) for outer borders, -2 where none exists
// (cv2 indexes its tree with -1 there).
extern "C" __global__ void lab_hole_parent(const unsigned* __restrict__ f, int w2, int m, const u8* __restrict__ hole,
                                           const int* __restrict__ ev, const int* __restrict__ epos,
                                           const int* __restrict__ pmap, const u8* __restrict__ sdir,
                                           const int* __restrict__ leader, int slots,
                                           const int* __restrict__ cycle_border, const int* __restrict__ origin,
                                           const int* __restrict__ bbox, int ox, int oy, int* __restrict__ raw)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    if (!hole[d]) { raw[d] = -1; return; }
    const int k = ev[d] >> 1;
    const int p = epos[k];
    const int y = p / w2;
    // A hole is never the first change on its row (its left side is a nonzero label after the
    // zero frame), so LNBD is the previous change; were it the first, cv2 would take the root.
    if (k == 0 || epos[k - 1] < y * w2) { raw[d] = -1; return; }
    const int end = epos[k - 1];
    const int lx = end - y * w2, ly = y;
    const unsigned lval = f[end] & 0x7Fu;
    const int sox = i32_sub(ox, 1), soy = i32_sub(oy, 1);
    int best = -1;
    const int base = pmap[end] * 8;
    bool any = false;
    for (int b = 0; b < 9; ++b) {
        int c;
        if (b < 8) {
            if (sdir[base + b] == 255) continue;
            any = true;
            c = leader[base + b];
        } else {
            if (any) break;
            c = slots + pmap[end];
        }
        const int dd = cycle_border[c];
        if (dd < 0 || dd >= d || dd <= best) continue;
        if ((f[origin[dd]] & 0x7Fu) != lval || !lab_box_holds(bbox, dd, lx, ly, sox, soy)) continue;
        best = dd;
    }
    if (best < 0) {
        // Rare (LNBD on an input pixel that carries flags, or boxes broken by wrap-around).
        for (int dd = 0; dd < d; ++dd) {
            if ((f[origin[dd]] & 0x7Fu) == lval && lab_box_holds(bbox, dd, lx, ly, sox, soy)) { best = dd; break; }
        }
        if (best < 0) best = -2;
    }
    raw[d] = best;
}

// The hole rule: a hole whose choice is a hole takes that hole's parent. -2 where cv2's tree
// lookup is undefined (also where its assertion would fail: never seen, kept as a guard).
extern "C" __global__ void lab_parents(int m, const u8* __restrict__ hole, const int* __restrict__ raw,
                                       int* __restrict__ parent)
{
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= m) return;
    int p = raw[d];
    if (hole[d] && p >= 0 && hole[p]) {
        p = raw[p];
        while (p >= 0 && hole[p]) p = raw[p];
        if (p == -1) p = -2;
    }
    parent[d] = p;
}

// Points per output contour j (border out_node[j]): the cycle's weight total (1 for one pixel).
extern "C" __global__ void lab_counts(int k, const int* __restrict__ out_node, const int* __restrict__ head,
                                      const int* __restrict__ leader, const int2* __restrict__ st,
                                      int* __restrict__ counts)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const int h = head[out_node[j]];
    counts[j] = h < 0 ? 1 : st[leader[h]].y;
}

// Every weighted state of a traced cycle writes its point: index = weight from the head, mod the
// cycle's total (suffix sums from the leader's cut: exclusive prefix X = total - suffix).
extern "C" __global__ void lab_emit(int w2, int slots, const int* __restrict__ bpix, const u8* __restrict__ sdir,
                                    const int* __restrict__ leader, const int2* __restrict__ st, int simple,
                                    const int* __restrict__ cycle_border, const int* __restrict__ border_out,
                                    const int* __restrict__ head, const long long* __restrict__ dst, int ox, int oy,
                                    int* __restrict__ points)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= slots) return;
    const int s = sdir[t];
    if (s == 255 || (simple && s == ((t & 7) ^ 4))) return;
    const int l = leader[t];
    const int d = cycle_border[l];
    if (d < 0) return;
    const int total = st[l].y;
    int idx = st[head[d]].y - st[t].y;   // (total - suffix(t)) - (total - suffix(head))
    if (idx < 0) idx += total;
    const long long pos = dst[border_out[d]] + idx;
    const int p = bpix[t >> 3];
    const int y = p / w2, x = p - y * w2;
    points[2 * pos] = i32_add(x, i32_sub(ox, 1));
    points[2 * pos + 1] = i32_add(y, i32_sub(oy, 1));
}

extern "C" __global__ void lab_single(int w2, int k, const int* __restrict__ out_node, const int* __restrict__ head,
                                      const int* __restrict__ origin, const long long* __restrict__ dst, int ox,
                                      int oy, int* __restrict__ points)
{
    const int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= k) return;
    const int d = out_node[j];
    if (head[d] >= 0) return;
    const int p = origin[d];
    const int y = p / w2, x = p - y * w2;
    const long long pos = dst[j];
    points[2 * pos] = i32_add(x, i32_sub(ox, 1));
    points[2 * pos + 1] = i32_add(y, i32_sub(oy, 1));
}
