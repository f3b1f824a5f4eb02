// cv2.HoughLinesP (OpenCV 5.0's HoughLinesProbabilistic) on the GPU, bit for bit.
//
// cv2's loop: a fixed-seed cv::RNG picks the edge points one at a time (swap-with-last removal from
// the row-major list); a picked point still in the mask votes at every angle; when its first
// maximum over the angles reaches the threshold it walks the line both ways in 16.16 fixed point
// (bridging up to lineGap mask-0 pixels), clears the walked mask-1 pixels and, if the segment is
// long enough, subtracts their votes at every angle (voted or not). Each turn depends on the turns
// before it. What runs here, in one persistent kernel (hough_p_main), with the proofs
// in tests/models/hough_p_parallel_model.py (the CPU model of exactly these phases):
//
//  0. The points: the host passes the edge pixels' row-major indices (cvgpu._device_ops.select,
//     cv2's point order); the kernel makes their (x, y) and the mask.
//  1. Pick order. The draws never depend on the image: draw t is the low word of cv::RNG's state
//     S_(t+1), S' = lo(S) * 4164903690 + hi(S); the host computes the state at every 64th draw
//     once (Python integers: S' = a * S mod a * 2^32 - 1 once S < that modulus, which holds from
//     the second state on) and a thread steps through each chunk. Turn t's slot among the N - t
//     left is draw_t % (N - t): Durstenfeld's shuffle, swap j <-> H[j] = draw_(N-1-j) % (j + 1)
//     for j = N-1 .. 0, applied in rounds of reservations (Shun et al., SODA 2015: a pending swap
//     j writes max(round, j) into both slots; one that won both swaps now), O(log N) rounds.
//     slots[N-1-t] is then the point of turn t; pix_turn maps a pixel to its turn.
//  2. Fast-forward: a chunk of turns votes at once; if no bin it touched ends at or above the
//     threshold nothing in it triggered (values only rise between triggers) and it is kept, else
//     its votes are taken back. The first chunk is the head start; chunks double while quiet.
//  3. Exact rounds over a window of W turns after T (accumulator and mask exact after turn T):
//     A1 every live window point votes at every angle, its bins kept in rbin (speculation: no
//        trigger in the window);
//     A2 a pair (point, angle) whose bin ended >= threshold gets the value cv2 would see right
//        after that point's vote: acc - (later live window points voting into the same bin at
//        that angle). Values >= threshold are the point's hot pairs; the largest (smallest angle
//        on ties: cv2's "max_val < val" scan) is its speculative max_n. Points with one are the
//        candidates (a superset of the triggers: clearing and decrements only lower values),
//        marked in a bit word per 32 window points by their first hot pair;
//     B  the first HP_CMAX candidates walk on the round's mask (one warp each, one a block, a
//        warp finding its rank's point from the words by popcounts; HP_WALK_CHUNKS x 32 steps a
//        load);
//        the mask-1 pixels they read are the pixels their second walk clears (past an end the
//        first walk only reads zeros), kept with their turns;
//     C  block 0 copies the candidates' walk words, hot pairs (with their own bins) and walked
//        pixels into shared memory (as far as the host sized it), and meets the walks' pixel sets
//        in a map (the ranks whose pixels fit HP_RECORDS): per candidate, the earlier ranks holding
//        its point (skip) and any of its pixels (hit); lists, per rank, the pixels whose loss can
//        correct a later hot value (its records); and marks per candidate the earlier ranks whose
//        records reach its best pair (aff). Then one warp takes the candidates in turn order:
//        skipped if a committed rank holds its point (cv2 never sees it); where a committed rank
//        is in aff, hot values corrected per earlier commit (-1 per cleared point sharing the bin
//        with a turn between the commit's and its own: it would have voted; -1 per point of a
//        good line sharing the bin: its decrement; elsewhere no correction can move its maximum);
//        dropped if none stays >= threshold; the round ends at it if its
//        maximum moved to another angle or a committed rank holds one of its pixels (a round may
//        end at any candidate: everything before it is settled), and after the ranks the map
//        holds; else it is committed: cv2's trigger at that turn. The block then writes the
//        commits' cleared pixels (which leave the mask), segments and cleared_by;
//     D  good lines' pixels are subtracted at every angle, and the votes cv2 never casts are taken
//        back (window points at or after the round's end, or cleared by an earlier commit of the
//        round), in the next phase (A1 or a fast-forward chunk, rbin and cleared_by alternating
//        between rounds): no barrier of its own. T moves to just before the round's end; the next
//        window is twice the turns this round settled (HP_WMIN .. W), since A2 costs up to
//        W^2 x numangle where every pair is hot (threshold 1).
//  Wrap mode (a rho bin can leave its row: numrho tiny for a rho near the image's size): W = 1 and
//  A2 counts the point's own later angles, as cv2's increments meet the same flat bin twice.
//
// Exactness: the trig table is cv2's (host-computed float32), a bin is cvRound of two float32
// products and a float32 sum (f32_mul / f32_add, never contracted) plus (numrho - 1) / 2 in the
// flat numangle x numrho accumulator; the walk's dy0 / dx0 = cvRound(b * 2^16 / fabs(a)) is a
// float32 division (OpenCV's fabs(float)); fixed-point coordinates wrap as cv2's int arithmetic.
// Atomic adds commute, so the order of votes inside a phase never shows.
//
// Races: every phase writes either distinct locations (per window pair, per candidate rank, per
// cleared pixel: the committed candidates' pixels are disjoint, a shared one is a conflict) or
// through atomics; phases are separated by a grid barrier (hp_grid_sync) among the blocks that
// joined (hp_join: all running, so the barrier cannot wait for a block that never starts). Phase C
// is joined block 0 (its staging, the map, the writes) and one warp (the decisions); the other
// blocks wait at the next barrier. Which blocks join changes only how the work is split.
//
// Cost: (2 x reservation rounds + 4 x exact rounds + 2-3 x fast-forward chunks) grid barriers, the
// rounds' parallel work (about W x numangle votes, reads and takebacks each), and phase C's serial
// step per candidate (shared memory only: two mask tests and the corrections).
// compat_matrix/HISTORY.md has the counts on the benchmark's workloads.
//
// Host build (tests/hough/test_hough_p_kernel_host.py): with HOUGH_P_HOST one host thread plays the
// whole grid (every "for each item" loop runs all items, a warp's lanes run one after another,
// barriers do nothing), so the same source runs on the CPU against the models.

#define HP_THREADS 256
#define HP_DRAW_CHUNK 64
#define HP_WMAX 1024          // window capacity (A2's candidate words: 32 x 32 bits)
#define HP_WMIN 32            // smallest window after a round that ended early
#define HP_CMAX 64            // candidates walked per round (tests/models: CMAX)
#define HP_WALK_CHUNKS 16     // 32-step chunks a walk reads at once (HISTORY: call E, walk16)
#define HP_RECORDS 2048       // walked pixels phase C's map takes, and corrections it keeps
#define HP_HASH 4096          // open-addressing map of the walked pixels (load <= 1/2)
#define HP_PERM_MAX 1000      // reservation rounds counted (O(log N): ~40 for 10^5 points)
#define HP_HOST_STAGE_INTS (1 << 20)  // the host build's staging array
#define HP_MWC_A 4164903690ull
#define HP_INT_MAX 2147483647
#define HP_JOIN_CLOSED 0x80000000u
#define HP_JOIN_NS 20000      // how long joined block 0 waits for the rest of the grid (ns)

// ctl words (zeroed by the host before the launch)
#define CTL_LINES 0       // segments written
#define CTL_ERROR 1       // 1: a bin outside the accumulator (cv2 undefined), 2: too many permutation rounds
#define CTL_BAR_COUNT 2   // grid barrier: arrivals, all barriers of the launch (mod 2^32)
#define CTL_JOIN 3        // hp_join: blocks that came, HP_JOIN_CLOSED once the grid is fixed
#define CTL_FF 4          // tag of the fast-forward chunk that reached the threshold
#define CTL_END 5         // phase C: window index where the round ends
#define CTL_NCAND 6       // phase B: candidates of the round
#define CTL_CMAX_K 7      // phase B: window index of candidate HP_CMAX (-1: none)
#define CTL_CLEARED 8     // phase C: pixels cleared by the round's commits (commit_list[0 ..))
#define CTL_DEC 9         // phase C: pixels of the round's good lines (commit_list[dec_base ..))
#define CTL_ROUNDS 10     // statistics: exact rounds, fast-forward chunks kept / taken back,
#define CTL_FORWARD 11    //   permutation rounds, commits, candidates
#define CTL_FORWARD_BACK 12
#define CTL_PERM_ROUNDS 13
#define CTL_COMMITS 14
#define CTL_CANDIDATES 15
#define CTL_PERM 16       // pending swaps per reservation round (HP_PERM_MAX words)
#define CTL_CAND (CTL_PERM + HP_PERM_MAX + 1)   // A2 -> B: bit c of word w set when window point
                                                //   32 w + c is a candidate (HP_WMAX / 32 words)
#define CTL_NBLK (CTL_CAND + HP_WMAX / 32)   // hp_join: the joined blocks (published once)
#define CTL_WORDS (CTL_NBLK + 1)

// walk words per candidate rank
#define WALK_K 0
#define WALK_END 1        // 4 words: x0, y0, x1, y1 of cv2's line_end[0], line_end[1]
#define WALK_GOOD 5
#define WALK_COUNT 6      // mask-1 pixels in slot_px / slot_tr
#define WALK_MAXN 7       // the speculative max_n the walk took
#define WALK_HC 8         // the candidate's hot pairs (hot_cnt)
#define WALK_WORDS 9
#define HOT_WORDS 3       // a hot pair: angle, value, the point's bin at that angle
#define HP_STAGE_TRIG 1024  // phase C keeps the trig table in shared memory up to this many angles

// ---------------------------------------------------------------- execution model

#ifdef HOUGH_P_HOST
#define HP_GRID_FOR(i, n) for (long long i = 0; i < (long long)(n); ++i)
#define HP_LAUNCH_FOR HP_GRID_FOR
#define HP_LANES(l) for (int l = 0; l < 32; ++l)
#define HP_LANE_FOR(i, n) for (int i = 0; i < (int)(n); ++i)
#define HP_WARP_SYNC() ((void)0)
#define HP_LEAD true
#define HP_WARP_ID 0
#define HP_NWARPS 1
#define HP_WALKER 0
#define HP_WALKERS 1
#define HP_PHASE_C_BLOCK true
#define HP_BLOCK_FOR(i, n) for (long long i = 0; i < (long long)(n); ++i)
#define HP_BLOCK_SYNC() ((void)0)
#define HP_BLOCK_WARP 0
#define HP_BLOCK_WARPS 1
#define HP_THREAD0 true
#define HP_SERIAL_WARP true
static inline unsigned hp_warp_or(unsigned v) { return v; }
static inline int hp_warp_sum(int v) { return v; }
static inline unsigned long long hp_warp_or64(unsigned long long v) { return v; }
static inline unsigned long long hp_warp_max64(unsigned long long v) { return v; }
static inline void hp_grid_sync(int*) {}
#else
// The joined grid (hp_join): this block's rank among the joined blocks, and their count.
__shared__ int hp_bid, hp_nblk;
#define HP_GRID_FOR(i, n) \
    for (long long i = (long long)hp_bid * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)hp_nblk * blockDim.x)
// A plain launch's grid (hough_p_check)
#define HP_LAUNCH_FOR(i, n) \
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < (long long)(n); \
         i += (long long)gridDim.x * blockDim.x)
#define HP_LANES(l) for (int l = (int)(threadIdx.x & 31u); l == (int)(threadIdx.x & 31u); l = 32)
#define HP_LANE_FOR(i, n) for (int i = (int)(threadIdx.x & 31u); i < (int)(n); i += 32)
#define HP_WARP_SYNC() __syncwarp()
#define HP_LEAD ((threadIdx.x & 31u) == 0)
#define HP_WARP_ID ((int)((hp_bid * blockDim.x + threadIdx.x) >> 5))
#define HP_NWARPS ((int)((hp_nblk * blockDim.x) >> 5))
// Phase B's walkers: rank r walks on warp r / hp_nblk of block r % hp_nblk, one walk a block
// while the ranks are fewer than the blocks (on the warps of blocks 0..7 they were slower: HISTORY,
// tenth session, arm "spread").
#define HP_WALKER ((int)(threadIdx.x >> 5) * hp_nblk + hp_bid)
#define HP_WALKERS HP_NWARPS
#define HP_PHASE_C_BLOCK (hp_bid == 0)
#define HP_BLOCK_FOR(i, n) for (long long i = threadIdx.x; i < (long long)(n); i += blockDim.x)
#define HP_BLOCK_SYNC() __syncthreads()
#define HP_BLOCK_WARP ((int)(threadIdx.x >> 5))
#define HP_BLOCK_WARPS ((int)(blockDim.x >> 5))
#define HP_THREAD0 (threadIdx.x == 0)
#define HP_SERIAL_WARP (threadIdx.x < 32)
__device__ __forceinline__ unsigned hp_warp_or(unsigned v) { return __reduce_or_sync(0xffffffffu, v); }
__device__ __forceinline__ int hp_warp_sum(int v) { return __reduce_add_sync(0xffffffffu, v); }
__device__ __forceinline__ unsigned long long hp_warp_or64(unsigned long long v)
{
    return (unsigned long long)__reduce_or_sync(0xffffffffu, (unsigned)v) |
           (unsigned long long)__reduce_or_sync(0xffffffffu, (unsigned)(v >> 32)) << 32;
}
__device__ __forceinline__ unsigned long long hp_warp_max64(unsigned long long v)
{
    for (int d = 16; d > 0; d >>= 1) {
        const unsigned long long o = __shfl_xor_sync(0xffffffffu, v, d);
        v = o > v ? o : v;
    }
    return v;
}
// The inclusive scan of 64 values over a warp, two a lane: ranks lane (v0) and 32 + lane (v1) get
// the sums up to and with them; returns the total (every lane).
__device__ __forceinline__ int hp_warp_scan64(int& v0, int& v1)
{
    const int lane = (int)(threadIdx.x & 31u);
    for (int d = 1; d < 32; d <<= 1) {
        const int a = __shfl_up_sync(0xffffffffu, v0, d), b = __shfl_up_sync(0xffffffffu, v1, d);
        if (lane >= d) {
            v0 += a;
            v1 += b;
        }
    }
    v1 += __shfl_sync(0xffffffffu, v0, 31);
    return __shfl_sync(0xffffffffu, v1, 31);
}

// Grid barrier (among the joined blocks, every one running) on one count that only grows: after
// the block's barrier, thread 0 adds 1 with release semantics and spins with acquire loads until
// the count reaches the joined blocks times the barriers its block has passed (every block passes the same
// barriers in the same order; hp_bar_next, set to 0 by hough_p_main). The release
// (cumulative over what the block's barrier ordered before it) and the acquire make every write
// before the barrier, in any block, visible to every read after it (PTX memory model), as the
// shape of cooperative groups' grid.sync with its fences, reset and generation word did; that one
// was slower on every HoughLinesP row (compat_matrix/HISTORY.md, tenth session, arm "bar").
// The count starts at 0 each launch (ctl is zeroed) and wraps at 2^32 (a launch's barriers times
// the grid can pass that where the rounds are millions: wrap mode turns one point a round); the
// targets wrap alike and the count never runs more than a grid ahead of or behind a target, so
// the signed difference decides.
__shared__ unsigned hp_bar_next;

__device__ void hp_grid_sync(int* ctl)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned* count = reinterpret_cast<unsigned*>(ctl + CTL_BAR_COUNT);
        const unsigned target = hp_bar_next + (unsigned)hp_nblk;
        hp_bar_next = target;
        unsigned v;
        asm volatile("red.release.gpu.add.u32 [%0], 1;" ::"l"(count) : "memory");
        do {
            asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(v) : "l"(count) : "memory");
        } while ((int)(v - target) < 0);
    }
    __syncthreads();
}

// Grid join. The launch is a plain one: a cooperative launch starts only once every block fits at
// once, and an SM running another stream's kernel (with a smaller shared-memory carveout than this
// kernel's blocks need) held it back until that kernel ended, seconds in tests/
// test_hardening_common.py (compat_matrix/HISTORY.md, "HoughLinesP and a busy SM"). Instead each
// block adds itself to ctl[CTL_JOIN]; the first to come waits until the whole grid has come or
// HP_JOIN_NS have passed, closes the join (HP_JOIN_CLOSED) and publishes the count; the ranks are
// the order of coming. A block that comes after the close returns at once (the launch then ends
// once it has run, on an SM the others or the other kernel leave). Every joined block is running,
// so no barrier among them waits for a block that cannot start; results never depend on how many
// joined (every phase's work is split over hp_nblk blocks, phase C is rank 0's). False: leave.
__device__ bool hp_join(int* ctl)
{
    if (threadIdx.x == 0) {
        unsigned* join = reinterpret_cast<unsigned*>(ctl + CTL_JOIN);
        unsigned* nblk = reinterpret_cast<unsigned*>(ctl + CTL_NBLK);
        const unsigned came = atomicAdd(join, 1u);
        unsigned count = 0;
        if (!(came & HP_JOIN_CLOSED)) {
            if (came == 0) {
                unsigned long long t0, t;
                unsigned v;
                asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
                do {
                    asm volatile("ld.relaxed.gpu.u32 %0, [%1];" : "=r"(v) : "l"(join) : "memory");
                    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
                } while (v < gridDim.x && t - t0 < HP_JOIN_NS);
                count = atomicOr(join, HP_JOIN_CLOSED);
                asm volatile("st.release.gpu.u32 [%0], %1;" ::"l"(nblk), "r"(count) : "memory");
            } else {
                do {
                    asm volatile("ld.acquire.gpu.u32 %0, [%1];" : "=r"(count) : "l"(nblk) : "memory");
                } while (count == 0);
            }
        }
        hp_bid = (came & HP_JOIN_CLOSED) ? -1 : (int)came;
        hp_nblk = (int)count;
    }
    __syncthreads();
    return hp_bid >= 0;
}
#endif

// ---------------------------------------------------------------- cv2's arithmetic

struct HpSize {
    int n_points, width, height, numangle, numrho, half, threshold, max_start, line_length, line_gap;
    int window, wrap, special;   // special: threshold - 1 wraps to INT_MAX (threshold INT_MIN)
    long long cells;
};

// The flat accumulator index of pixel (x, y) at angle n, or -1 outside the accumulator (cv2 writes
// out of bounds there: undefined).
__device__ __forceinline__ int hp_bin(const HpSize& z, const float* tab_cos, const float* tab_sin, int x, int y, int n)
{
    const float v = f32_add(f32_mul((float)x, tab_cos[n]), f32_mul((float)y, tab_sin[n]));
    if (!(v > -1073741824.0f && v < 1073741824.0f))
        return -1;
    const long long b = (long long)n * z.numrho + __float2int_rn(v) + z.half;
    return b >= 0 && b < z.cells ? (int)b : -1;
}

// Order of (value, angle) pairs as cv2's scan keeps them: the larger value, then the smaller angle;
// 0 never occurs for a value > INT_MIN.
__device__ __forceinline__ unsigned long long hp_key(int v, int n)
{
    return ((unsigned long long)((unsigned)v ^ 0x80000000u) << 32) | (unsigned long long)(0xffffffffu - (unsigned)n);
}

__device__ __forceinline__ int hp_key_n(unsigned long long key) { return (int)(0xffffffffu - (unsigned)key); }

// The walk of cv2: xflag, start and steps in 16.16 fixed point.
struct HpWalk {
    int xflag, x0, y0, dx0, dy0;
};

__device__ __forceinline__ HpWalk hp_walk_setup(const float* tab_cos, const float* tab_sin, int j, int i, int max_n)
{
    HpWalk w;
    const float a = -tab_sin[max_n], b = tab_cos[max_n];
    if (fabsf(a) > fabsf(b)) {
        w.xflag = 1;
        w.dx0 = a > 0 ? 1 : -1;
        w.dy0 = __float2int_rn(__fdiv_rn(f32_mul(b, 65536.0f), fabsf(a)));
        w.x0 = j;
        w.y0 = (int)(((unsigned)i << 16) + 32768u);
    } else {
        w.xflag = 0;
        w.dy0 = b > 0 ? 1 : -1;
        w.dx0 = __float2int_rn(__fdiv_rn(f32_mul(a, 65536.0f), fabsf(b)));
        w.x0 = (int)(((unsigned)j << 16) + 32768u);
        w.y0 = i;
    }
    return w;
}

// Pixel (j1, i1) of step s in direction dir (cv2's x += dx, y += dy, wrapping as int).
__device__ __forceinline__ void hp_step(const HpWalk& w, int dir, long long s, int& j1, int& i1)
{
    const unsigned us = (unsigned)s;
    const int dx = dir ? -w.dx0 : w.dx0, dy = dir ? -w.dy0 : w.dy0;
    const int x = (int)((unsigned)w.x0 + us * (unsigned)dx), y = (int)((unsigned)w.y0 + us * (unsigned)dy);
    if (w.xflag) {
        j1 = x;
        i1 = y >> 16;
    } else {
        j1 = x >> 16;
        i1 = y;
    }
}

__device__ __forceinline__ int hp_popc(unsigned v)
{
#ifdef HOUGH_P_HOST
    return __builtin_popcount(v);
#else
    return __popc(v);
#endif
}

__device__ __forceinline__ int hp_popc64(unsigned long long v)
{
#ifdef HOUGH_P_HOST
    return __builtin_popcountll(v);
#else
    return __popcll(v);
#endif
}

__device__ __forceinline__ int hp_ctz(unsigned v)
{
#ifdef HOUGH_P_HOST
    return __builtin_ctz(v);
#else
    return __ffs((int)v) - 1;
#endif
}

__device__ __forceinline__ int hp_ctz64(unsigned long long v)   // v != 0
{
#ifdef HOUGH_P_HOST
    return __builtin_ctzll(v);
#else
    return __ffsll((long long)v) - 1;
#endif
}

__device__ __forceinline__ int hp_clz(unsigned v)   // v != 0
{
#ifdef HOUGH_P_HOST
    return __builtin_clz(v);
#else
    return __clz(v);
#endif
}

// Where cv2's walk stops in a chunk of 32 steps (bit l: step s0 + l in the image, its pixel in the
// mask): at the first step out of the image, or at the first mask-0 step whose run of mask-0 steps
// since the last mask-1 one (gap of them carried in from the chunks before) passes line_gap; 32 when
// it goes on, gap then carried out. One pass per run of mask-0 steps, not per step.
__device__ __forceinline__ int hp_chunk_stop(unsigned inb, unsigned live, int line_gap, int& gap)
{
    const int oob = inb == 0xffffffffu ? 32 : hp_ctz(~inb);
    const unsigned zeros = ~live & (oob == 32 ? 0xffffffffu : (1u << oob) - 1u);
    int p = 0;
    while (p < oob) {
        const unsigned rest = p == 0 ? zeros : zeros >> p;
        if (rest == 0)
            break;
        const int a = p + hp_ctz(rest);    // the next mask-0 step
        if (a > p)
            gap = 0;                       // mask-1 steps between
        const unsigned run = ~(zeros >> a);
        const int len = run == 0 ? 32 - a : hp_ctz(run);   // mask-0 steps from a on
        if ((long long)gap + len > line_gap)   // the step whose run passes line_gap (gap <= line_gap,
            return a + (line_gap > gap ? line_gap - gap : 0);   // or 0 for a negative line_gap)
        gap += len;
        p = a + len;
    }
    if (oob < 32)
        return oob;
    if (live)
        gap = hp_clz(live);   // the mask-0 steps after the chunk's last mask-1 one
    return 32;
}

// ---------------------------------------------------------------- phase A2: the later votes

// What cv2 has not yet cast at turn k of the window into bin b at angle n, though acc[b] holds it:
// the votes of the live window points after k at that angle (wrap mode: of k's own later angles
// into the same flat bin). 0 unless `need`. On the device every lane that needs it gets its count
// from the whole warp, the row read 32 points at a time (a lane's own loop over up to W points
// was the phase's longest wait).
__device__ __forceinline__ int hp_later(const HpSize& z, const int* rbin, int wn, int k, int n, int b, bool need)
{
    int later = 0;
    if (z.wrap) {
        if (need)
            for (int m = n + 1; m < z.numangle; ++m)
                later += rbin[(long long)m * z.window + k] == b;
        return later;
    }
#ifdef HOUGH_P_HOST
    if (need) {
        const int* row = rbin + (long long)n * z.window;
        for (int kk = k + 1; kk < wn; ++kk)
            later += row[kk] == b;
    }
#else
    const int lane = (int)(threadIdx.x & 31u);
    for (unsigned m = __ballot_sync(0xffffffffu, need); m; m &= m - 1u) {
        const int src = __ffs((int)m) - 1;
        const int ks = __shfl_sync(0xffffffffu, k, src), bs = __shfl_sync(0xffffffffu, b, src);
        const int* row = rbin + (long long)__shfl_sync(0xffffffffu, n, src) * z.window;
        int c = 0;
        for (int kk = ks + 1 + lane; kk < wn; kk += 32)
            c += row[kk] == bs;
        c = __reduce_add_sync(0xffffffffu, c);
        later = lane == src ? c : later;
    }
#endif
    return later;
}

// ---------------------------------------------------------------- phase B: one candidate's walk

// The warp's walk of candidate rank r (window index k, turn of the point tk): cv2's first walk in
// both directions on the round's mask; the mask-1 pixels read (its own first) go to the rank's slot
// with their turns.
__device__ void hp_walk(const HpSize& z, const float* tab_cos, const float* tab_sin, const int2* xy, const int* slots,
                        const unsigned char* mask, const int* pix_turn, const unsigned long long* best,
                        const int* hot_cnt, long long T, int r, int k, int* walk, int* slot_px, int* slot_tr,
                        int slot_cap)
{
    const int hc = hot_cnt[k];   // (for phase C's staging, which then needs no load of its own)
    const int p = slots[z.n_points - 1 - (T + 1 + k)];
    const int2 q = xy[p];
    const HpWalk w = hp_walk_setup(tab_cos, tab_sin, q.x, q.y, hp_key_n(best[k]));
    int count = 0;
    int ends[4];
    for (int dir = 0; dir < 2; ++dir) {
        int gap = 0;
        long long end_step = 0;
        bool stopped = false;
        for (long long s0 = 0; !stopped; s0 += 32 * HP_WALK_CHUNKS) {
            // The mask (and on the device the steps' turns, loaded for the records: HISTORY, tenth
            // session, arm "turnpre") under HP_WALK_CHUNKS x 32 steps at once (loads in flight
            // together; past the walk's stop they are only read), then the chunks in order.
            unsigned inb[HP_WALK_CHUNKS], live[HP_WALK_CHUNKS], take[HP_WALK_CHUNKS];
            int turn[HP_WALK_CHUNKS];   // (device: the lane's step's pix_turn, loaded with its mask byte)
#pragma unroll
            for (int c = 0; c < HP_WALK_CHUNKS; ++c)
                inb[c] = live[c] = take[c] = 0;
            HP_LANES(l) {
#pragma unroll
                for (int c = 0; c < HP_WALK_CHUNKS; ++c) {
                    int j1, i1;
                    hp_step(w, dir, s0 + 32 * c + l, j1, i1);
                    const bool in = j1 >= 0 && j1 < z.width && i1 >= 0 && i1 < z.height;
                    inb[c] |= (unsigned)in << l;
                    live[c] |= (unsigned)(in && mask[(long long)i1 * z.width + j1]) << l;
#ifndef HOUGH_P_HOST
                    turn[c] = in ? pix_turn[(long long)i1 * z.width + j1] : 0;
#endif
                }
            }
            int chunks = HP_WALK_CHUNKS;
#pragma unroll
            for (int c = 0; c < HP_WALK_CHUNKS; ++c) {
                if (stopped)
                    break;
                const unsigned in_c = hp_warp_or(inb[c]), live_c = hp_warp_or(live[c]);
                const int stop = hp_chunk_stop(in_c, live_c, z.line_gap, gap);
                const unsigned before = stop == 32 ? 0xffffffffu : (1u << stop) - 1u;
                if (live_c & before)
                    end_step = s0 + 32 * c + 31 - hp_clz(live_c & before);
                take[c] = live_c & before;
                if (stop < 32) {
                    stopped = true;
                    chunks = c + 1;
                }
            }
            if (dir == 1 && s0 == 0)
                take[0] &= ~1u;   // the point itself: cleared by direction 0
            HP_LANES(l) {
                int tr[HP_WALK_CHUNKS];
                long long px[HP_WALK_CHUNKS];
#pragma unroll
                for (int c = 0; c < HP_WALK_CHUNKS; ++c) {   // (the turns' loads first, then the stores)
                    if (c < chunks && ((take[c] >> l) & 1u)) {
                        int j1, i1;
                        hp_step(w, dir, s0 + 32 * c + l, j1, i1);
                        px[c] = (long long)i1 * z.width + j1;
#ifdef HOUGH_P_HOST
                        tr[c] = pix_turn[px[c]];
#else
                        tr[c] = turn[c];   // (lane l's step s0 + 32 c + l in both loops)
#endif
                    }
                }
                int at = count;
#pragma unroll
                for (int c = 0; c < HP_WALK_CHUNKS; ++c) {
                    if (c < chunks && ((take[c] >> l) & 1u)) {
                        const int mine = at + hp_popc(take[c] & ((1u << l) - 1u));
                        slot_px[(long long)r * slot_cap + mine] = (int)px[c];
                        slot_tr[(long long)r * slot_cap + mine] = tr[c];
                    }
                    at += hp_popc(take[c]);
                }
            }
#pragma unroll
            for (int c = 0; c < HP_WALK_CHUNKS; ++c)
                count += c < chunks ? hp_popc(take[c]) : 0;
        }
        hp_step(w, dir, end_step, ends[2 * dir], ends[2 * dir + 1]);
    }
    if (HP_LEAD) {
        int* o = walk + (long long)r * WALK_WORDS;
        o[WALK_K] = k;
        for (int e = 0; e < 4; ++e)
            o[WALK_END + e] = ends[e];
        const int ddx = ends[2] - ends[0], ddy = ends[3] - ends[1];
        o[WALK_GOOD] = (ddx < 0 ? -ddx : ddx) >= z.line_length || (ddy < 0 ? -ddy : ddy) >= z.line_length;
        o[WALK_COUNT] = count;
        o[WALK_MAXN] = hp_key_n(best[k]);
        o[WALK_HC] = hc;
    }
    HP_WARP_SYNC();
}

// The round's candidates from A2's words (ctl[CTL_CAND + w], bit c: window point 32 w + c; the
// words past the window hold an earlier round's bits and are not read): their count, and the window
// index of rank r (-1 when r >= the count), the same in every lane.
__device__ __forceinline__ int hp_candidate_k(const int* ctl, int wn, int r, int* ncand)
{
    const int nw = (wn + 31) >> 5;
#ifdef HOUGH_P_HOST
    int seen = 0, k = -1;
    for (int w = 0; w < nw; ++w) {
        const unsigned word = (unsigned)ctl[CTL_CAND + w];
        const int pc = hp_popc(word);
        if (k < 0 && r < seen + pc) {
            unsigned m = word;
            for (int j = r - seen; j > 0; --j)
                m &= m - 1u;
            k = 32 * w + hp_ctz(m);
        }
        seen += pc;
    }
    *ncand = seen;
    return k;
#else
    const int lane = (int)(threadIdx.x & 31u);
    const unsigned word = lane < nw ? (unsigned)__ldcg(ctl + CTL_CAND + lane) : 0u;
    const int pc = __popc(word);
    int incl = pc;
#pragma unroll
    for (int d = 1; d < 32; d <<= 1) {
        const int o = __shfl_up_sync(0xffffffffu, incl, d);
        if (lane >= d)
            incl += o;
    }
    *ncand = __shfl_sync(0xffffffffu, incl, 31);
    const unsigned at = __ballot_sync(0xffffffffu, r >= incl - pc && r < incl);
    if (at == 0)
        return -1;
    const int w = __ffs((int)at) - 1;
    const unsigned m = __shfl_sync(0xffffffffu, word, w);
    const int j = r - __shfl_sync(0xffffffffu, incl - pc, w);   // the j-th set bit of m
    const unsigned bit = __ballot_sync(0xffffffffu, ((m >> lane) & 1u) && __popc(m & ((1u << lane) - 1u)) == j);
    return 32 * w + __ffs((int)bit) - 1;
#endif
}

// ---------------------------------------------------------------- phase C: the commits

// The map of the round's walked pixels: open addressing (load <= 1/2), a key px + 1 per entry and
// the rank of the walk that holds it; a pixel two walks hold has two entries.
__device__ __forceinline__ void hp_map_add(int* set, unsigned char* set_rank, int px, int rank)
{
    unsigned h = ((unsigned)px * 2654435761u) & (HP_HASH - 1);
    for (;;) {
#ifdef HOUGH_P_HOST
        const bool won = set[h] == 0;
        if (won)
            set[h] = px + 1;
#else
        const bool won = atomicCAS(set + h, 0, px + 1) == 0;
#endif
        if (won) {
            set_rank[h] = (unsigned char)rank;
            return;
        }
        h = (h + 1) & (HP_HASH - 1);
    }
}

// The ranks whose walks hold pixel px (bit r: rank r), once every add is done.
__device__ __forceinline__ unsigned long long hp_map_ranks(const int* set, const unsigned char* set_rank, int px)
{
    unsigned long long m = 0;
    for (unsigned h = ((unsigned)px * 2654435761u) & (HP_HASH - 1);; h = (h + 1) & (HP_HASH - 1)) {
        const int v = set[h];
        if (v == 0)
            return m;
        if (v == px + 1)
            m |= 1ull << set_rank[h];
    }
}

__device__ __forceinline__ void hp_or64(unsigned long long* a, unsigned long long v)
{
#ifdef HOUGH_P_HOST
    *a |= v;
#else
    atomicOr(a, v);
#endif
}

// The rank r with off[r] <= e < off[r + 1] (off ascending, off[0] = 0, e < off[walked]).
__device__ __forceinline__ int hp_rank_of(const int* off, int walked, int e)
{
    int lo = 0, hi = walked;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (off[mid] <= e)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

// What one record takes from a candidate's hot pair, the candidate at turn tc: nothing unless the
// record's rank has committed (bit of done) and its point shares the pair's bin; else 1 if the
// point's own turn lies between the commit's turn te and tc (cv2 would have seen its vote, the
// round counted it), plus 1 if the commit's line was good (its decrement). A record is kept ready
// for this: x, y; t = its turn if after te, else INT_MAX (so t < tc is both conditions); meta = its
// rank | good << 6. The pair: its angle's cos / sin and its rho index ro (its bin less n x numrho +
// (numrho - 1) / 2): hp_bin(...) == bin exactly when v is in hp_bin's range and cvRound(v) == ro,
// as the bin is in the accumulator.
__device__ __forceinline__ int hp_rec_weight(int x, int y, int t, unsigned meta, unsigned long long done, long long tc,
                                             float cn, float sn, int ro)
{
    const int weight = ((done >> (meta & 63u)) & 1ull) ? (t < tc) + (int)(meta >> 6) : 0;
    if (!weight)
        return 0;
    const float v = f32_add(f32_mul((float)x, cn), f32_mul((float)y, sn));
    return v > -1073741824.0f && v < 1073741824.0f && __float2int_rn(v) == ro ? weight : 0;
}

__device__ __forceinline__ int hp_rho_index(const HpSize& z, int n, int bin)
{
    return (int)((long long)bin - (long long)n * z.numrho - z.half);
}

// Block 0: the round's candidates in turn order (see the header, C).
//  1. Every thread of the block copies what the candidates' steps read into shared memory (walk
//     words, hot pairs, the walked pixels with their turns, the trig table), as far as `stage`
//     holds them (a rank that does not fit whole reads global memory).
//  2. The walks' pixel sets meet in a map, in parallel: the ranks 0 .. nins - 1 whose pixels fit
//     HP_RECORDS go in, and for every rank r <= nins and each of its pixels the earlier ranks holding
//     it are looked up: skip[r] (the ranks holding r's own point: a commit of one clears it before
//     its turn) and hit[r] (those holding any of its pixels: a commit of one cleared a pixel r's
//     walk read). So rank nins + 1 and later are not decided this round: it ends there at the latest.
//     The records of ranks 0 .. nins - 1 follow, in rank order (a block-wide scan), each counted
//     by the decisions once its rank has committed; then aff[r], the ranks whose records reach
//     candidate r's best pair (2b).
//  3. One warp decides the candidates in turn: skipped if a committed rank is in skip[r]; where a
//     committed rank is in aff[r], hot values corrected by the records of the committed ranks
//     before it; dropped, or the round ends (maximum moved, a committed rank in hit[r]); else
//     committed. The commits' offsets in the round's lists follow from the committed set.
//  4. The block writes the commits' cleared pixels, their decrement lists, cleared_by and segments.
// Results: the ctl words END, CLEARED, DEC, LINES, the segments, commit_list and cleared_by.
__device__ void hp_commit(const HpSize& z, const float* tab_cos, const float* tab_sin, long long T, int wn,
                          const int* hot, const int* walk, const int* slot_px, const int* slot_tr,
                          int slot_cap, unsigned char* mask, int* cleared_by, int* commit_list, long long dec_base,
                          int* lines, int* ctl,
                          int* set, unsigned char* set_rank, unsigned long long* masks, int* meta, int* rec_x,
                          int* rec_y, int* rec_t, unsigned char* rec_meta, int* stage, int stage_slots,
                          int stage_hot)
{
    const int ncand = ctl[CTL_NCAND];
    const int walked = ncand < HP_CMAX ? ncand : HP_CMAX;
    const int trig_n = z.numangle <= HP_STAGE_TRIG ? z.numangle : 0;
    unsigned long long* aff = (unsigned long long*)stage;   // HP_CMAX: step 2b
    int* st_walk = stage + 2 * HP_CMAX;                     // HP_CMAX x WALK_WORDS
    int* st_hot_cnt = st_walk + HP_CMAX * WALK_WORDS;       // HP_CMAX
    int* st_slot_off = st_hot_cnt + HP_CMAX;                // HP_CMAX + 1
    int* st_hot_off = st_slot_off + HP_CMAX + 1;            // HP_CMAX + 1
    float* st_cos = (float*)(st_hot_off + HP_CMAX + 1);     // trig_n
    float* st_sin = st_cos + trig_n;                        // trig_n
    int* st_px = (int*)(st_sin + trig_n);                   // stage_slots
    int* st_tr = st_px + stage_slots;                       // stage_slots
    int* st_hot = st_tr + stage_slots;                      // stage_hot x HOT_WORDS
    const float* cosp = trig_n ? st_cos : tab_cos;
    const float* sinp = trig_n ? st_sin : tab_sin;
    unsigned long long* skip = masks;                       // HP_CMAX
    unsigned long long* hit = masks + HP_CMAX;              // HP_CMAX
    int* clr_off = meta + 8;                                // HP_CMAX: a commit's place in the lists
    int* dec_off = clr_off + HP_CMAX;                       // HP_CMAX
    int* koff = dec_off + HP_CMAX;                          // HP_CMAX + 1: the records of the ranks before
    int* wtot = koff + HP_CMAX + 1;                         // HP_THREADS / 32: the records' scan

    // 1. staging
    HP_BLOCK_FOR(i, HP_HASH) set[i] = 0;
    HP_BLOCK_FOR(i, 2 * HP_CMAX) masks[i] = 0;
    HP_BLOCK_FOR(i, HP_CMAX) aff[i] = 0;
    HP_BLOCK_FOR(i, (long long)walked * WALK_WORDS) st_walk[i] = walk[i];
    HP_BLOCK_FOR(r, walked) st_hot_cnt[r] = walk[r * WALK_WORDS + WALK_HC];   // (0 in the special mode)
    HP_BLOCK_FOR(i, trig_n) {
        st_cos[i] = tab_cos[i];
        st_sin[i] = tab_sin[i];
    }
    HP_BLOCK_SYNC();
#ifdef HOUGH_P_HOST
    st_slot_off[0] = st_hot_off[0] = 0;
    for (int r = 0; r < walked; ++r) {
        st_slot_off[r + 1] = st_slot_off[r] + st_walk[r * WALK_WORDS + WALK_COUNT];
        st_hot_off[r + 1] = st_hot_off[r] + st_hot_cnt[r];
    }
#else
    static_assert(HP_CMAX == 64, "the offsets' scan takes two ranks a lane");
    if (threadIdx.x < 32) {   // the offsets: warp 0's inclusive scans, ranks lane and 32 + lane
        const int lane = (int)threadIdx.x;
        int c0 = lane < walked ? st_walk[lane * WALK_WORDS + WALK_COUNT] : 0;
        int c1 = lane + 32 < walked ? st_walk[(lane + 32) * WALK_WORDS + WALK_COUNT] : 0;
        int h0 = lane < walked ? st_hot_cnt[lane] : 0, h1 = lane + 32 < walked ? st_hot_cnt[lane + 32] : 0;
        hp_warp_scan64(c0, c1);
        hp_warp_scan64(h0, h1);
        st_slot_off[lane + 1] = c0;
        st_slot_off[lane + 33] = c1;
        st_hot_off[lane + 1] = h0;
        st_hot_off[lane + 33] = h1;
        if (lane == 0)
            st_slot_off[0] = st_hot_off[0] = 0;
    }
#endif
    HP_BLOCK_SYNC();
    // (entries of a rank that does not fit whole are copied in part and not used)
    const int slots_in = st_slot_off[walked] < stage_slots ? st_slot_off[walked] : stage_slots;
    const int hot_in = st_hot_off[walked] < stage_hot ? st_hot_off[walked] : stage_hot;
    HP_BLOCK_FOR(e, slots_in) {
        const int r = hp_rank_of(st_slot_off, walked, (int)e);
        const long long at = (long long)r * slot_cap + (e - st_slot_off[r]);
        st_px[e] = slot_px[at];
        st_tr[e] = slot_tr[at];
    }
    HP_BLOCK_FOR(e, hot_in) {
        const int r = hp_rank_of(st_hot_off, walked, (int)e);
        const int k = st_walk[r * WALK_WORDS + WALK_K];
        const int* h = hot + HOT_WORDS * ((long long)k * z.numangle + (e - st_hot_off[r]));
        for (int w = 0; w < HOT_WORDS; ++w)
            st_hot[HOT_WORDS * e + w] = h[w];
    }

    // 2. the walks' pixel sets, in the same block phase as the copies (their pixels from global
    // memory): nins, the ranks whose pixels together fit HP_RECORDS (st_slot_off ascends), go in.
    const int nins = st_slot_off[walked] <= HP_RECORDS ? walked : hp_rank_of(st_slot_off, walked, HP_RECORDS);
    const int lim = nins < walked ? nins + 1 : walked;   // ranks decided this round at most
    HP_BLOCK_FOR(e, st_slot_off[nins]) {
        const int r = hp_rank_of(st_slot_off, walked, (int)e);
        hp_map_add(set, set_rank, slot_px[(long long)r * slot_cap + (e - st_slot_off[r])], r);
    }
    HP_BLOCK_SYNC();
    HP_BLOCK_FOR(e, st_slot_off[lim]) {
        const int r = hp_rank_of(st_slot_off, walked, (int)e);
        if (r == 0)
            continue;
        const int j = (int)e - st_slot_off[r];
        const int px = st_slot_off[r + 1] <= stage_slots ? st_px[e] : slot_px[(long long)r * slot_cap + j];
        const unsigned long long m = hp_map_ranks(set, set_rank, px) & ((1ull << r) - 1ull);
        if (m) {
            hp_or64(hit + r, m);
            if (j == 0)
                skip[r] = m;   // (the walk's first pixel is the point itself)
        }
    }
    // The records (no barrier before them: they read neither the map nor skip / hit): the pixels of ranks < nins whose loss a later candidate's hot values count once
    // their rank commits (a good line's every pixel: its decrement; else those whose turns follow
    // the commit's in the window: their votes), in rank and pixel order; koff[r]: those of the
    // ranks before r. (nins ranks hold at most HP_RECORDS pixels.)
    {
        const long long window_end = T + wn;
        const int P = z.special ? 0 : st_slot_off[nins];
        int base = 0;
#ifdef HOUGH_P_HOST
        for (int e = 0; e < P; ++e) {
#else
        for (int e0 = 0; e0 < P; e0 += HP_THREADS) {   // (every thread runs every turn: the scan)
            const int e = e0 + (int)threadIdx.x;
#endif
            bool kp = false;
            int r = 0, j = -1, px = 0, t = 0;
            if (e < P) {
                r = hp_rank_of(st_slot_off, walked, e);
                j = e - st_slot_off[r];
                const bool staged = st_slot_off[r + 1] <= stage_slots;
                px = staged ? st_px[e] : slot_px[(long long)r * slot_cap + j];
                t = staged ? st_tr[e] : slot_tr[(long long)r * slot_cap + j];
                const long long te = T + 1 + st_walk[r * WALK_WORDS + WALK_K];
                kp = st_walk[r * WALK_WORDS + WALK_GOOD] || (t > te && t <= window_end);
                t = t > te ? t : HP_INT_MAX;
            }
#ifdef HOUGH_P_HOST
            const int at = base;
            base += kp;
#else
            const unsigned m = __ballot_sync(0xffffffffu, kp);
            const int warp = (int)(threadIdx.x >> 5), lane = (int)(threadIdx.x & 31u);
            if (lane == 0)
                wtot[warp] = __popc(m);
            __syncthreads();
            int at = base + __popc(m & ((1u << lane) - 1u)), total = 0;
            for (int w = 0; w < HP_THREADS / 32; ++w) {
                at += w < warp ? wtot[w] : 0;
                total += wtot[w];
            }
            base += total;
#endif
            if (j == 0)
                koff[r] = at;
            if (kp) {
                rec_x[at] = px % z.width;
                rec_y[at] = px / z.width;
                rec_t[at] = t;
                rec_meta[at] = (unsigned char)(r | (st_walk[r * WALK_WORDS + WALK_GOOD] ? 64 : 0));
            }
#ifndef HOUGH_P_HOST
            __syncthreads();   // (wtot is the next turn's)
#endif
        }
        if (HP_THREAD0)
            koff[nins] = base;
    }
    HP_BLOCK_SYNC();

    // 2b. aff[r]: the ranks q < r whose records reach candidate r's best hot pair (its walk's
    // angle max_n, at the point's own bin) with a nonzero weight should q commit (hp_rec_weight
    // with q's bit set). Only a correction of that pair can change r's decision: the others only
    // lower values below it. A warp a candidate, its lanes the ranks: most are ruled out by the
    // ends of q's walk first (every pixel of a walk lies on cv2's fixed-point line between its two
    // ends, each coordinate within one pixel of the exact line: 16.16 steps, no wrap below 32768
    // pixels a side; so its rho at angle n is within 2 (|cos| + |sin|) of the range of the ends',
    // plus the float32 sums' rounding: 1 more), then the warp reads the near ranks' records.
    if (!z.special) {
        const bool by_ends = z.width < 32768 && z.height < 32768;
        for (int r = 1 + HP_BLOCK_WARP; r < lim; r += HP_BLOCK_WARPS) {
            const int* wk = st_walk + r * WALK_WORDS;
            const int n = wk[WALK_MAXN];
            const int px0 = st_slot_off[r + 1] <= stage_slots ? st_px[st_slot_off[r]] : slot_px[(long long)r * slot_cap];
            const int ro = hp_rho_index(z, n, hp_bin(z, cosp, sinp, px0 % z.width, px0 / z.width, n));
            const float cn = cosp[n], sn = sinp[n];
            const float m = 2.0f * (fabsf(cn) + fabsf(sn)) + 1.5f;
            const long long tc = T + 1 + wk[WALK_K];
            unsigned long long near = 0;
            HP_LANE_FOR(q, r) {
                bool in = koff[q + 1] > koff[q];
                if (in && by_ends) {
                    const int* ends = st_walk + q * WALK_WORDS + WALK_END;
                    const float v0 = f32_add(f32_mul((float)ends[0], cn), f32_mul((float)ends[1], sn));
                    const float v1 = f32_add(f32_mul((float)ends[2], cn), f32_mul((float)ends[3], sn));
                    in = (float)ro >= (v0 < v1 ? v0 : v1) - m && (float)ro <= (v0 < v1 ? v1 : v0) + m;
                }
                near |= in ? 1ull << q : 0ull;
            }
            near = hp_warp_or64(near);
            unsigned long long reach = 0;
            while (near) {
                const int q = hp_ctz64(near);
                near &= near - 1ull;
                int any = 0;
                HP_LANE_FOR(e, koff[q + 1] - koff[q]) {
                    const int f = koff[q] + e;
                    any |= hp_rec_weight(rec_x[f], rec_y[f], rec_t[f], rec_meta[f], ~0ull, tc, cn, sn, ro);
                }
                reach |= hp_warp_or((unsigned)any) ? 1ull << q : 0ull;
            }
            if (HP_LEAD)
                aff[r] = reach;
        }
    }
    HP_BLOCK_SYNC();

    // 3. the decisions
    if (HP_SERIAL_WARP) {
        // Per candidate only what depends on the commits before it (done) is serial: its skip and
        // hit masks, and its hot values' corrections where a committed rank's records reach its
        // best pair (aff, 2b; else every hot value that could pass it stands); the commits'
        // offsets follow from done after the loop.
        int end = wn;
        unsigned long long done = 0;   // committed ranks
        if (ncand > HP_CMAX)
            end = ctl[CTL_CMAX_K];
        if (lim < walked)
            end = st_walk[lim * WALK_WORDS + WALK_K];
        for (int r = 0; r < lim; ++r) {
            const unsigned long long sk = skip[r], ht = hit[r];
            const unsigned long long af = z.special ? 0ull : aff[r];
            if (sk & done)
                continue;   // cleared before its turn: it neither votes nor triggers
            if (af & done) {
                const int* wk = st_walk + r * WALK_WORDS;
                const int k = wk[WALK_K];
                const long long tc = T + 1 + k;
                const int nrec = koff[r];   // records of the ranks before r
                const int* h = st_hot_off[r + 1] <= stage_hot ? st_hot + HOT_WORDS * st_hot_off[r]
                                                              : hot + HOT_WORDS * ((long long)k * z.numangle);
                const int hc = st_hot_cnt[r];
                unsigned long long key = 0;
                if ((long long)hc * ((nrec + 31) / 32 + 1) < (long long)((hc + 31) / 32) * nrec) {
                    // The corrections: hot pairs x records. A lane a hot pair walks every record;
                    // a hot pair at a time with the lanes splitting the records adds a warp sum a
                    // pair (one redux instruction and the pair's shared loads: counted as one
                    // record step, which is a bin evaluation whose latencies one warp alone on its
                    // SM does not hide). Either order gives the same sums; the warp takes the one
                    // with fewer steps (a photograph's candidates have 1-4 hot pairs on average:
                    // raw/session-2026-11-28h/hp_phase_c_steps.py).
                    for (int i = 0; i < hc; ++i) {
                        const int n = h[HOT_WORDS * i], ro = hp_rho_index(z, n, h[HOT_WORDS * i + 2]);
                        const float cn = cosp[n], sn = sinp[n];
                        int d = 0;
                        HP_LANE_FOR(e, nrec)
                            d += hp_rec_weight(rec_x[e], rec_y[e], rec_t[e], rec_meta[e], done, tc, cn, sn, ro);
                        const int v = h[HOT_WORDS * i + 1] - hp_warp_sum(d);
                        if (v >= z.threshold) {
                            const unsigned long long kv = hp_key(v, n);
                            key = kv > key ? kv : key;
                        }
                    }
                } else {
                    HP_LANE_FOR(i, hc) {
                        const int n = h[HOT_WORDS * i], ro = hp_rho_index(z, n, h[HOT_WORDS * i + 2]);
                        const float cn = cosp[n], sn = sinp[n];
                        int v = h[HOT_WORDS * i + 1];
                        for (int e = 0; e < nrec; ++e)
                            v -= hp_rec_weight(rec_x[e], rec_y[e], rec_t[e], rec_meta[e], done, tc, cn, sn, ro);
                        if (v >= z.threshold) {
                            const unsigned long long kv = hp_key(v, n);
                            key = kv > key ? kv : key;
                        }
                    }
                    key = hp_warp_max64(key);   // (the other order's key is the same in every lane)
                }
                if (key == 0)
                    continue;   // no value left at the threshold: not a trigger (it still votes)
                if (hp_key_n(key) != wk[WALK_MAXN]) {
                    end = k;   // its maximum moved: its walk would differ
                    break;
                }
            }
            // (where no committed rank reaches its best pair, the maximum is its walk's)
            if (ht & done) {
                end = st_walk[r * WALK_WORDS + WALK_K];   // its walk read a pixel an earlier commit cleared
                break;
            }
            done |= 1ull << r;   // commit: cv2's trigger at turn T + 1 + k
        }
        // The commits' places in the cleared and decrement lists (ranks in order), and the counts.
        unsigned long long good_mask = 0;
        int cleared = 0, dec = 0;
#ifdef HOUGH_P_HOST
        for (int q = 0; q < lim; ++q) {
            const int* wk = st_walk + q * WALK_WORDS;
            if (!((done >> q) & 1ull))
                continue;
            clr_off[q] = cleared;
            dec_off[q] = dec;
            cleared += wk[WALK_COUNT];
            dec += wk[WALK_GOOD] ? wk[WALK_COUNT] : 0;
            good_mask |= wk[WALK_GOOD] ? 1ull << q : 0ull;
        }
#else
        {
            const int lane = (int)threadIdx.x;
            int c[2], g[2];
            for (int h2 = 0; h2 < 2; ++h2) {
                const int r = lane + 32 * h2;
                const bool in = r < lim && ((done >> r) & 1ull);
                c[h2] = in ? st_walk[r * WALK_WORDS + WALK_COUNT] : 0;
                g[h2] = in && st_walk[r * WALK_WORDS + WALK_GOOD] ? c[h2] : 0;
                good_mask |= (unsigned long long)__ballot_sync(0xffffffffu, in && st_walk[r * WALK_WORDS + WALK_GOOD])
                             << (32 * h2);
            }
            int ci[2] = {c[0], c[1]}, gi[2] = {g[0], g[1]};
            cleared = hp_warp_scan64(ci[0], ci[1]);
            dec = hp_warp_scan64(gi[0], gi[1]);
            clr_off[lane] = ci[0] - c[0];   // (exclusive: the commits before)
            dec_off[lane] = gi[0] - g[0];
            clr_off[lane + 32] = ci[1] - c[1];
            dec_off[lane + 32] = gi[1] - g[1];
        }
#endif
        if (HP_LEAD) {
            meta[1] = (int)(unsigned)done;
            meta[2] = (int)(unsigned)(done >> 32);
            meta[3] = ctl[CTL_LINES];
            meta[4] = (int)(unsigned)good_mask;
            meta[5] = (int)(unsigned)(good_mask >> 32);
            ctl[CTL_LINES] += hp_popc64(good_mask);
            ctl[CTL_END] = end;
            ctl[CTL_CLEARED] = cleared;
            ctl[CTL_DEC] = dec;
            ctl[CTL_COMMITS] += hp_popc64(done);
            ctl[CTL_CANDIDATES] += ncand;
        }
    }
    HP_BLOCK_SYNC();

    // 4. the commits' writes (a pixel is in one commit at most: a shared one ends the round)
    const unsigned long long done = (unsigned long long)(unsigned)meta[1] | ((unsigned long long)(unsigned)meta[2] << 32);
    const long long window_end = T + wn;
    HP_BLOCK_FOR(e, st_slot_off[lim]) {
        const int r = hp_rank_of(st_slot_off, walked, (int)e);
        if (!((done >> r) & 1ull))
            continue;
        const int j = (int)e - st_slot_off[r];
        const bool staged = st_slot_off[r + 1] <= stage_slots;
        const long long at = (long long)r * slot_cap + j;
        const int px = staged ? st_px[e] : slot_px[at], t = staged ? st_tr[e] : slot_tr[at];
        commit_list[clr_off[r] + j] = px;
        mask[px] = 0;   // (D's first step before: it leaves the mask before the next round's reads)
        if (st_walk[r * WALK_WORDS + WALK_GOOD])
            commit_list[dec_base + dec_off[r] + j] = px;
        if (t > T && t <= window_end)
            cleared_by[t - T - 1] = (int)(T + 1 + st_walk[r * WALK_WORDS + WALK_K]);
    }
    const unsigned long long done_good = (unsigned long long)(unsigned)meta[4] |
                                         ((unsigned long long)(unsigned)meta[5] << 32);
    HP_BLOCK_FOR(i, 4 * lim) {
        const int r = (int)(i >> 2);
        if ((done_good >> r) & 1ull)
            lines[4LL * (meta[3] + hp_popc64(done_good & ((1ull << r) - 1ull))) + (i & 3)] =
                st_walk[r * WALK_WORDS + WALK_END + (i & 3)];
    }
    HP_BLOCK_SYNC();
}

// ---------------------------------------------------------------- the persistent kernel

// A round's D: its good lines' pixels leave every angle's bin (commit_list from dec_base: cv2's
// decrements), and the window's votes cv2 never casts are taken back (points at or after the
// round's end, or cleared by an earlier commit of the round). Atomic subtractions only: they run in
// the next phase beside its atomic adds, which they commute with; every value read exactly (A2)
// comes after that phase's barrier, and the fast-forward's threshold test only ever sees values
// too high (a chunk it finds quiet is quiet).
struct HpTakeBack {
    long long T;
    int wn, end, ndec, window;
    const int* rbin;
    const int* cleared_by;
};

__device__ void hp_take_back(const HpSize& z, const float* tab_cos, const float* tab_sin, const int* commit_list,
                             long long dec_base, int* acc, const HpTakeBack& d)
{
    HP_GRID_FOR(i, (long long)d.ndec * z.numangle) {
        const int px = commit_list[dec_base + i / z.numangle], n = (int)(i % z.numangle);
        const int b = hp_bin(z, tab_cos, tab_sin, px % z.width, px / z.width, n);
        if (b >= 0)
            atomicSub(acc + b, 1);
    }
    HP_GRID_FOR(i, (long long)d.wn * z.numangle) {
        const int k = (int)(i % d.wn), n = (int)(i / d.wn);
        const int b = d.rbin[(long long)n * d.window + k];
        if (b >= 0 && (k >= d.end || d.cleared_by[k] < d.T + 1 + k))
            atomicSub(acc + b, 1);
    }
}

__device__ void hp_run(const HpSize& z, const int* pix, int2* xy, const float* tab_cos, const float* tab_sin, int forward,
                       const unsigned long long* chunk_states, int* targets, int* slots, unsigned long long* reserve,
                       int* pix_turn, unsigned char* mask, int* acc, int* rbin, int* hot, int* hot_cnt,
                       unsigned long long* best, int* cleared_by, int* walk, int* slot_px, int* slot_tr, int slot_cap,
                       int* commit_list, int* lines, int* ctl, int* set, unsigned char* set_rank,
                       unsigned long long* masks, int* meta, int* rec_x, int* rec_y, int* rec_t,
                       unsigned char* rec_meta, int* stage, int stage_slots, int stage_hot)
{
    const long long N = z.n_points;
    // 0. the points (x, y) from their pixel indices (row-major: cv2's order), and the mask.
    HP_GRID_FOR(i, N) {
        const int p = pix[i];
        xy[i] = make_int2(p % z.width, p / z.width);
        mask[p] = 1;
    }
    // 1. pick order: the draws, the swap targets, the reservation rounds.
    HP_GRID_FOR(c, (N + HP_DRAW_CHUNK - 1) / HP_DRAW_CHUNK) {
        unsigned long long s = chunk_states[c];
        for (long long t = c * HP_DRAW_CHUNK; t < N && t < (c + 1) * HP_DRAW_CHUNK; ++t) {
            if (t > c * HP_DRAW_CHUNK)
                s = (s & 0xffffffffull) * HP_MWC_A + (s >> 32);
            const long long j = N - 1 - t;
            targets[j] = (int)((unsigned)s % (unsigned)(j + 1));
        }
    }
    HP_GRID_FOR(j, N) slots[j] = (int)j;
    hp_grid_sync(ctl);
    for (int round = 1;; ++round) {
        if (round >= HP_PERM_MAX) {
            ctl[CTL_ERROR] = 2;
            return;
        }
        const unsigned long long tag = (unsigned long long)round << 32;
        HP_GRID_FOR(j, N) {
            const int h = targets[j];
            if (h >= 0 && h != j) {
                atomicMax(reserve + j, tag | (unsigned long long)j);
                atomicMax(reserve + h, tag | (unsigned long long)j);
            }
        }
        hp_grid_sync(ctl);
        HP_GRID_FOR(j, N) {
            const int h = targets[j];
            if (h >= 0 && h != j) {
                const unsigned long long mine = tag | (unsigned long long)j;
                if (reserve[j] == mine && reserve[h] == mine) {
                    const int a = slots[j];
                    slots[j] = slots[h];
                    slots[h] = a;
                    targets[j] = -1;
                } else {
                    atomicAdd(ctl + CTL_PERM + round, 1);
                }
            }
        }
        hp_grid_sync(ctl);
        if (ctl[CTL_PERM + round] == 0) {
            if (HP_WARP_ID == 0 && HP_LEAD)
                ctl[CTL_PERM_ROUNDS] = round;
            break;
        }
    }
    HP_GRID_FOR(t, N) {
        const int2 q = xy[slots[N - 1 - t]];
        pix_turn[(long long)q.y * z.width + q.x] = (int)t;
    }
    hp_grid_sync(ctl);

    const long long dec_base = (long long)HP_CMAX * slot_cap;
    long long T = -1;
    int chunk = z.special ? 0 : forward, ff_tag = 0, wcur = z.window;
    // D of the round before, run with the next phase's work (its fast-forward votes or A1): rbin and
    // cleared_by alternate between rounds, so that this round's are written while the last round's
    // are read.
    HpTakeBack pending;
    pending.wn = 0;
    pending.ndec = 0;
    int parity = 0;
    while (T + 1 < N) {
        // 2. fast-forward
        if (chunk > z.window) {
            const long long F = chunk < N - 1 - T ? chunk : N - 1 - T;
            ++ff_tag;
            hp_take_back(z, tab_cos, tab_sin, commit_list, dec_base, acc, pending);
            pending.wn = pending.ndec = 0;
            HP_GRID_FOR(i, F * z.numangle) {
                const long long k = i % F;
                const int n = (int)(i / F);
                const int2 q = xy[slots[N - 1 - (T + 1 + k)]];
                if (mask[(long long)q.y * z.width + q.x]) {
                    const int b = hp_bin(z, tab_cos, tab_sin, q.x, q.y, n);
                    if (b < 0)
                        ctl[CTL_ERROR] = 1;
                    else if (atomicAdd(acc + b, 1) + 1 >= z.threshold)
                        ctl[CTL_FF] = ff_tag;
                }
            }
            hp_grid_sync(ctl);
            if (ctl[CTL_ERROR])
                return;
            if (ctl[CTL_FF] != ff_tag) {
                T += F;
                chunk = chunk < (1 << 15) ? 2 * chunk : (1 << 16);
                if (HP_WARP_ID == 0 && HP_LEAD)
                    ctl[CTL_FORWARD] += 1;
                continue;
            }
            HP_GRID_FOR(i, F * z.numangle) {
                const long long k = i % F;
                const int n = (int)(i / F);
                const int2 q = xy[slots[N - 1 - (T + 1 + k)]];
                if (mask[(long long)q.y * z.width + q.x])
                    atomicSub(acc + hp_bin(z, tab_cos, tab_sin, q.x, q.y, n), 1);
            }
            if (HP_WARP_ID == 0 && HP_LEAD)
                ctl[CTL_FORWARD_BACK] += 1;
            chunk = 0;
            hp_grid_sync(ctl);
        }
        // 3. an exact round over turns T+1 .. T+wn
        const int wn = (int)(wcur < N - 1 - T ? wcur : N - 1 - T);
        int* const rbin_r = rbin + (long long)parity * z.numangle * z.window;   // this round's
        int* const cleared_r = cleared_by + (long long)parity * z.window;
        // A1: speculative votes; rbin_r[n * window + k]: the bin of window point k at angle n (-1: dead)
        hp_take_back(z, tab_cos, tab_sin, commit_list, dec_base, acc, pending);
        pending.wn = pending.ndec = 0;
        HP_GRID_FOR(i, (long long)wn * z.numangle) {
            const int k = (int)(i % wn), n = (int)(i / wn);
            if (n == 0) {
                best[k] = 0;
                hot_cnt[k] = 0;
                cleared_r[k] = HP_INT_MAX;
                if ((k & 31) == 0)
                    ctl[CTL_CAND + (k >> 5)] = 0;
            }
            const int2 q = xy[slots[N - 1 - (T + 1 + k)]];
            int b = -1;
            if (mask[(long long)q.y * z.width + q.x]) {
                b = hp_bin(z, tab_cos, tab_sin, q.x, q.y, n);
                if (b < 0)
                    ctl[CTL_ERROR] = 1;
                else
                    atomicAdd(acc + b, 1);
            }
            rbin_r[(long long)n * z.window + k] = b;
        }
        hp_grid_sync(ctl);
        if (ctl[CTL_ERROR])
            return;
        // A2: hot pairs and the speculative first maximum of each point
        {
            const long long pairs = (long long)wn * z.numangle;
#ifdef HOUGH_P_HOST
            for (long long i = 0; i < pairs; ++i) {
#else
            // (a warp's lanes run the same turns: hp_later is the warp's)
            for (long long i0 = (long long)hp_bid * blockDim.x + (threadIdx.x & ~31u); i0 < pairs;
                 i0 += (long long)hp_nblk * blockDim.x) {
                const long long i = i0 + (threadIdx.x & 31u);
#endif
                int k = 0, n = 0, b = -1, a = 0;
                if (i < pairs) {
                    k = (int)(i % wn);
                    n = (int)(i / wn);
                    b = rbin_r[(long long)n * z.window + k];
                }
                if (b >= 0 && z.special) {
                    if (n == 0) {
                        best[k] = hp_key(z.max_start, 0);   // every live point triggers at angle 0
                        atomicOr((unsigned*)(ctl + CTL_CAND + (k >> 5)), 1u << (k & 31));
                    }
                    b = -1;
                }
                if (b >= 0)
                    a = acc[b];
                const bool need = b >= 0 && a >= z.threshold;
                const int v = a - hp_later(z, rbin_r, wn, k, n, b, need);
                if (need && v >= z.threshold) {
                    const int at = atomicAdd(hot_cnt + k, 1);
                    int* h = hot + HOT_WORDS * ((long long)k * z.numangle + at);
                    h[0] = n;
                    h[1] = v;
                    h[2] = b;
                    atomicMax(best + k, hp_key(v, n));
                    if (at == 0)   // its first hot pair makes it a candidate
                        atomicOr((unsigned*)(ctl + CTL_CAND + (k >> 5)), 1u << (k & 31));
                }
            }
        }
        hp_grid_sync(ctl);
        // B: the first HP_CMAX candidates walk, one warp each (HP_WALKER)
        if (HP_WALKER < HP_CMAX) {
            int ncand = 0;
            for (int r = HP_WALKER; r < HP_CMAX; r += HP_WALKERS) {
                const int k = hp_candidate_k(ctl, wn, r, &ncand);
                if (k < 0)
                    break;
                hp_walk(z, tab_cos, tab_sin, xy, slots, mask, pix_turn, best, hot_cnt, T, r, k, walk, slot_px,
                        slot_tr, slot_cap);
            }
            if (HP_WALKER == 0) {   // (ncand is the same in every lane: the branch is the warp's)
                const int kc = ncand > HP_CMAX ? hp_candidate_k(ctl, wn, HP_CMAX, &ncand) : -1;
                if (HP_LEAD) {
                    ctl[CTL_NCAND] = ncand;
                    if (kc >= 0)
                        ctl[CTL_CMAX_K] = kc;
                }
            }
        }
        hp_grid_sync(ctl);
        // C: block 0 stages the round's candidates, one warp commits in turn order
        if (HP_PHASE_C_BLOCK)
            hp_commit(z, tab_cos, tab_sin, T, wn, hot, walk, slot_px, slot_tr, slot_cap, mask, cleared_r,
                      commit_list, dec_base, lines, ctl, set, set_rank, masks, meta, rec_x, rec_y, rec_t, rec_meta,
                      stage, stage_slots, stage_hot);
        hp_grid_sync(ctl);
        // D (decrements, votes cv2 does not cast) runs with the next phase; C cleared the mask.
        const int end = ctl[CTL_END], ncand = ctl[CTL_NCAND];
        pending.ndec = ctl[CTL_DEC];
        pending.wn = wn;
        pending.end = end;
        pending.T = T;
        pending.rbin = rbin_r;
        pending.cleared_by = cleared_r;
        pending.window = z.window;
        parity ^= 1;
        if (HP_WARP_ID == 0 && HP_LEAD)
            ctl[CTL_ROUNDS] += 1;
        T += end;
        // The next window: twice what this round settled, so a round that ended early wastes at most
        // about as many speculative votes as it kept (and the whole window after a full round).
        wcur = end < wn ? 2 * end : 2 * wcur;
        wcur = wcur < HP_WMIN ? HP_WMIN : wcur;
        wcur = wcur > z.window ? z.window : wcur;
        if (ncand == 0 && forward && !z.special)
            chunk = 4 * z.window;
    }
}

// Arguments: the edge pixels' row-major indices, ascending (cv2's point order); cv2's float32 trig
// table; the sizes; the chunk states of the draws (cvgpu/hough/probabilistic.py: chunk_states);
// scratch as sized by the host; lines: 4 ints per segment; ctl: CTL_WORDS ints, zero. reserve, acc
// and mask (height x width bytes) must be zero. Dynamic shared memory: (HP_CMAX * (WALK_WORDS + 5) + 2 + 2 * trig_n +
// 2 * stage_slots + HOT_WORDS * stage_hot) ints, trig_n = numangle up to HP_STAGE_TRIG, else 0.
extern "C" __global__ void __launch_bounds__(HP_THREADS) hough_p_main(
    const int* __restrict__ pix, int2* xy, int n_points, int width, int height, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numangle, int numrho, long long cells, int threshold, int line_length,
    int line_gap, int window, int forward, int wrap, const unsigned long long* __restrict__ chunk_states,
    int* targets, int* slots, unsigned long long* reserve, int* pix_turn, unsigned char* mask, int* acc, int* rbin,
    int* hot, int* hot_cnt, unsigned long long* best, int* cleared_by, int* walk, int* slot_px, int* slot_tr,
    int slot_cap, int* commit_list, int* lines, int* ctl, int stage_slots, int stage_hot)
{
#ifdef HOUGH_P_HOST
    static int stage[HP_HOST_STAGE_INTS];
#else
    extern __shared__ int stage[];   // phase C's staging: sized by the host (stage_ints)
#endif
    __shared__ int set[HP_HASH];
    __shared__ unsigned char set_rank[HP_HASH];
    __shared__ unsigned long long masks[2 * HP_CMAX];
    __shared__ int meta[8 + 3 * HP_CMAX + 1 + HP_THREADS / 32];
    __shared__ int rec_x[HP_RECORDS], rec_y[HP_RECORDS], rec_t[HP_RECORDS];
    __shared__ unsigned char rec_meta[HP_RECORDS];
#ifndef HOUGH_P_HOST
    if (threadIdx.x == 0)
        hp_bar_next = 0;   // (thread 0's alone: hp_grid_sync)
    if (!hp_join(ctl))
        return;
#endif
    HpSize z;
    z.n_points = n_points;
    z.width = width;
    z.height = height;
    z.numangle = numangle;
    z.numrho = numrho;
    z.half = (numrho - 1) / 2;
    z.threshold = threshold;
    z.max_start = (int)((unsigned)threshold - 1u);
    z.special = z.max_start >= threshold;
    z.line_length = line_length;
    z.line_gap = line_gap;
    z.window = window;
    z.wrap = wrap;
    z.cells = cells;
    hp_run(z, pix, xy, tab_cos, tab_sin, forward, chunk_states, targets, slots, reserve, pix_turn, mask, acc, rbin, hot,
           hot_cnt, best, cleared_by, walk, slot_px, slot_tr, slot_cap, commit_list, lines, ctl, set, set_rank,
           masks, meta, rec_x, rec_y, rec_t, rec_meta, stage, stage_slots, stage_hot);
}

// Points whose bins leave the accumulator (flags[0]: cv2 undefined) or their row (flags[1]: wrap
// mode), for images whose corners do not rule both out (cvgpu/hough/probabilistic.py).
extern "C" __global__ void __launch_bounds__(HP_THREADS) hough_p_check(
    const int* __restrict__ pix, int n_points, int width, const float* __restrict__ tab_cos,
    const float* __restrict__ tab_sin, int numangle, int numrho, long long cells, int* flags)
{
    HP_LAUNCH_FOR(i, (long long)n_points * numangle) {
        const int p = pix[i / numangle];
        const int n = (int)(i % numangle);
        const float v = f32_add(f32_mul((float)(p % width), tab_cos[n]), f32_mul((float)(p / width), tab_sin[n]));
        if (!(v > -1073741824.0f && v < 1073741824.0f)) {
            flags[0] = 1;
            continue;
        }
        const long long r = (long long)__float2int_rn(v) + (numrho - 1) / 2;
        if (r < 0 || r >= numrho)
            flags[1] = 1;
        const long long b = (long long)n * numrho + r;
        if (b < 0 || b >= cells)
            flags[0] = 1;
    }
}
