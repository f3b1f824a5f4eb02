"""The parallel form of cv2.HoughLinesP that kernels/hough/probabilistic.cu computes, as a CPU model:
the same phases, the same buffers, in numpy. tests/hough/test_hough_p_parallel.py checks each phase
against the sequential model (hough_p_model.py: its pick order, its trace of triggers) and the result
against cv2, so a failure names the phase that diverged.

Why it equals cv2 (the kernel header says the same, shorter):

1. Pick order. cv2 draws once per loop turn, N turns for N points, so the order depends on N only.
   Turn t takes slot idx_t = draw_t % (N - t) of the shrinking list and moves the last slot into it:
   Durstenfeld's shuffle with swap targets H[j] = draw_(N-1-j) % (j + 1), j = N-1 .. 0; after all
   swaps slot j holds the point picked at turn N-1-j. cv::RNG's state S' = lo(S) * a + hi(S),
   a = 4164903690, next() = lo(S'). With m = a * 2**32 - 1 and S = hi * 2**32 + lo,
   2**32 * S' = lo * a * 2**32 + hi * 2**32 = S (mod m), so S' = a * S (mod m), and S' < m when
   S < m. From the all-ones seed S1 >= m and S2 < m: draw 0 is lo(S1), and S_(t+1) =
   a**(t-1) * S2 mod m for t >= 1. The draws never depend on the image: the state at the start of
   every chunk of 64 draws is computed once on the host (Python integers) and each GPU thread
   steps through one chunk (mwc_draws). The swaps, whose targets are known, are applied in rounds
   of reservations (Shun, Gu, Blelloch, Fineman, Gibbons, SODA 2015): every pending swap j writes
   max(j) into both slots it touches; one that won both is the earliest pending swap on each (the
   sequential order is j descending) and swaps now; O(log N) rounds with high probability.

2. Fast-forward. A chunk of turns is voted at once (every live point of it, the whole grid). If no
   bin it touched ends at or above the threshold, none of its points triggered (a bin's value
   only rises while nothing is cleared, so a value reached right after a vote is at most its end
   value), and the chunk is kept. Otherwise a trigger lies inside: the votes are taken back and
   exact rounds take over. The first chunk is the head start before the first trigger; a round
   without candidates tries a chunk again, doubling while chunks stay quiet.

3. Exact rounds over a window of W turns T+1 .. T+W (accumulator and mask exact after turn T):
   A1. Every live window point votes at every angle (speculation: no trigger in the window). The
       rho bin of each (window point, angle) is kept (rbin).
   A2. A live point's value at angle n right after its own vote, if nothing triggered before it in
       the window, is acc[b] (after A1) minus the live window points after it voting into b at
       angle n (another angle's row holds other bins). Only values >= threshold can become cv2's
       max_val, so only pairs whose bin ended >= threshold are counted ("hot"). A point with a
       hot value is a candidate; its first maximum (largest value, smallest angle) is its
       speculative max_n.
   B.  The first CMAX candidates (turn order) walk on the round's mask, read only: ends, good, and
       the mask-1 pixels from the point to each end (which are all the mask-1 pixels the first
       walk read: past an end it only reads zeros), with their turns.
   C.  One warp takes the candidates in turn order. A candidate whose pixel an earlier commit of
       this round cleared neither votes nor triggers: skipped. Its hot values are corrected for
       the earlier commits: -1 per cleared point sharing the bin whose turn lies between the
       commit's and the candidate's (it would have voted, it does not), -1 per cleared point of a
       good line sharing the bin (its decrement). None left >= threshold: no trigger (it still
       votes). Its first maximum moved to another angle, or one of its walk's mask-1 pixels was
       cleared by an earlier commit: the round ends at its turn (an end at any candidate is
       exact: everything before it is settled). Else it is cv2's trigger at that turn: committed
       (segment if good). The candidates decided are ranks 0 .. nins, nins the walked ranks whose
       pixels together fit the records (the kernel meets the walks' pixel sets in a map of that
       size before deciding); the round ends at rank nins + 1 at the latest.
   D.  Cleared pixels leave the mask; good lines' pixels are subtracted at every angle; the votes
       of live window points that cv2 does not cast are taken back: at or after the round's end,
       or cleared by an earlier commit of the round. T moves to just before the round's end.
   The next window is twice the turns a round settled (WMIN .. W): A2 costs up to W^2 x numangle
   where every pair is hot (threshold 1), so a round that ends early wastes about what it kept.
   Every trigger of the committed part is a candidate: clearing and decrements only lower values.
   The first candidate of a round always commits or is dropped (nothing before it), so every
   round moves T past a trigger or past its window.

   Wrap mode: when a rho bin can fall outside its row (numrho tiny: rho near the image's size), a
   bin of one angle can be a bin of the next; windows are then one point (W = 1) and A2 counts
   that point's own later angles instead.
"""
import numpy as np

import hough_p_model as seq

MWC_A = seq.MWC_A
MWC_M = MWC_A * (1 << 32) - 1
M32 = seq.M32
DRAW_CHUNK = 64
CMAX = 64          # candidates walked per round
WMIN = 32          # smallest window after a round that ended early
RECORDS = 2048     # corrections a round's warp keeps (and pixels it remembers as cleared)


# ---------------------------------------------------------------- 1. pick order

def chunk_states(n_chunks):
    """The MWC state whose low word is draw k * DRAW_CHUNK, for k < n_chunks (host, exact)."""
    s1 = M32 * MWC_A + M32                  # one step from the all-ones seed: >= m
    s2 = (s1 & M32) * MWC_A + (s1 >> 32)    # < m: from here on S' = a * S mod m
    assert s1 >= MWC_M > s2
    jump = pow(MWC_A, DRAW_CHUNK, MWC_M)
    out = [s1]
    state = pow(MWC_A, DRAW_CHUNK - 1, MWC_M) * s2 % MWC_M
    for _ in range(1, n_chunks):
        out.append(state)
        state = state * jump % MWC_M
    return np.array(out[:n_chunks], dtype=np.uint64)


def mwc_draws(n):
    """The first n draws of cv::RNG((uint64)-1).next(): one chunk per GPU thread, from its state."""
    states = chunk_states(max(1, -(-n // DRAW_CHUNK)))
    out = np.empty(n, dtype=np.uint64)
    for c, state in enumerate(states.tolist()):
        for t in range(c * DRAW_CHUNK, min(n, (c + 1) * DRAW_CHUNK)):
            if t > c * DRAW_CHUNK:
                state = (state & M32) * MWC_A + (state >> 32)
            out[t] = state & M32
    return out


def swap_targets(n):
    """H[j] = draw_(N-1-j) % (j + 1): the slot that turn N-1-j takes (j + 1 slots left)."""
    draws = mwc_draws(n)
    j = np.arange(n, dtype=np.uint64)
    return (draws[::-1] % (j + 1)).astype(np.int64)


def parallel_permutation(targets):
    """Durstenfeld's swaps (j = N-1 .. 0: swap slots j and H[j]) in reservation rounds.
    Returns (slots, rounds)."""
    n = len(targets)
    slots = np.arange(n, dtype=np.int64)
    pending = np.arange(n, dtype=np.int64)
    pending = pending[targets[pending] != pending]  # a swap of a slot with itself changes nothing
    rounds = 0
    while len(pending):
        rounds += 1
        reserve = np.full(n, -1, dtype=np.int64)
        np.maximum.at(reserve, pending, pending)
        np.maximum.at(reserve, targets[pending], pending)
        won = (reserve[pending] == pending) & (reserve[targets[pending]] == pending)
        go = pending[won]
        a, b = slots[go].copy(), slots[targets[go]].copy()
        slots[go], slots[targets[go]] = b, a
        pending = pending[~won]
    return slots, rounds


def pick_order(n):
    """(order, rounds): order[t] is the point cv2 picks at turn t (slot N-1-t after the swaps)."""
    if n == 0:
        return np.zeros(0, np.int64), 0
    slots, rounds = parallel_permutation(swap_targets(n))
    return slots[::-1].copy(), rounds


# ---------------------------------------------------------------- state

class Stats:
    def __init__(self):
        self.rounds = 0
        self.forward = 0          # fast-forward chunks kept
        self.forward_back = 0     # fast-forward chunks voted back out
        self.permutation_rounds = 0
        self.ends = {"angle": 0, "pixel": 0, "full": 0, "cmax": 0}
        self.dropped = 0          # candidates the corrections turned into non-triggers
        self.committed = []       # triggers committed per round
        self.candidates = []      # candidates per round


class State:
    def __init__(self, s, window, cmax=CMAX, records=RECORDS):
        self.s = s
        self.cmax, self.records = cmax, records
        self.order, self.perm_rounds = pick_order(s.n)
        self.turn = np.empty(s.n, np.int64)
        self.turn[self.order] = np.arange(s.n)
        self.pix = s.ys * s.width + s.xs
        self.pix_turn = np.full(s.height * s.width, -1, np.int64)
        self.pix_turn[self.pix] = self.turn
        self.acc = np.zeros(max(s.cells, 0), np.int64)
        self.mask = np.zeros(s.height * s.width, np.uint8)
        self.mask[self.pix] = 1
        # wrap mode: some bin leaves its angle's row (the kernel's check; a point's own bins may then
        # repeat a flat index, and bins of different angles may meet)
        if s.n and s.numangle:
            r = s.bins - np.arange(s.numangle, dtype=np.int64)[None, :] * s.numrho
            self.wrap = bool((r < 0).any() or (r >= s.numrho).any())
        else:
            self.wrap = False
        self.window = 1 if self.wrap else window
        self.wcur = self.window
        self.T = -1
        self.lines = []


def window_points(st, T, size):
    """Window-local index k -> point of turn T+1+k, and whether it is live (mask 1)."""
    pts = st.order[T + 1:min(st.s.n, T + 1 + size)]
    return pts, st.mask[st.pix[pts]] == 1


# ---------------------------------------------------------------- 2. fast-forward

def fast_forward(st, size):
    """Vote turns T+1 .. T+size unless a bin they touched ends >= threshold (then taken back).
    Returns whether the chunk was kept."""
    s = st.s
    if s.numangle == 0 or s.max_start >= s.threshold:
        return False  # (every live point triggers: nothing to skip)
    pts, live = window_points(st, st.T, size)
    bins = s.bins[pts[live]].ravel()
    np.add.at(st.acc, bins, 1)
    if len(bins) and st.acc[bins].max() >= s.threshold:
        np.subtract.at(st.acc, bins, 1)
        return False
    st.T += len(pts)
    return True


# ---------------------------------------------------------------- 3. rounds

def phase_a(st, pts, live):
    """A1 and A2: speculative votes; per window point the hot (angle, value) pairs and the
    speculative first maximum (max_val, max_n) of candidates (None for the others)."""
    s = st.s
    k_n = len(pts)
    rbin = np.where(live[:, None], s.bins[pts], -1)           # A1: kept per (k, n), -1 when dead
    np.add.at(st.acc, rbin[live].ravel(), 1)
    hot = [[] for _ in range(k_n)]
    best = [None] * k_n
    if s.max_start >= s.threshold:
        # threshold INT_MIN: max_val starts at INT_MAX (threshold - 1 wrapped), no value exceeds it,
        # and every live point triggers at angle 0.
        for k in range(k_n):
            if live[k]:
                best[k] = (s.max_start, 0)
        return hot, best
    # later: the window's (point, angle) pairs after this one, in cv2's (turn, angle) order, with the
    # same flat bin (in the kernel: the same angle's later points; in wrap mode its own later angles).
    flat = rbin.ravel()
    idx = np.flatnonzero(flat >= 0)
    b = flat[idx]
    order = np.lexsort((idx, b))
    sb = b[order]
    last = np.r_[sb[1:] != sb[:-1], True]
    pos = np.arange(len(sb))
    group_end = np.minimum.accumulate(np.where(last, pos, len(sb))[::-1])[::-1]
    later = np.empty(len(sb), np.int64)
    later[order] = group_end - pos
    vals = st.acc[b] - later
    hot_at = np.flatnonzero((st.acc[b] >= s.threshold) & (vals >= s.threshold))
    hk, hn = np.divmod(idx[hot_at], max(s.numangle, 1))
    hv = vals[hot_at]
    by_k = np.lexsort((hn, -hv, hk))          # per point: largest value, then smallest angle first
    hk, hn, hv = hk[by_k], hn[by_k], hv[by_k]
    starts = np.searchsorted(hk, np.arange(k_n + 1))
    for k in np.unique(hk):
        lo, hi = starts[k], starts[k + 1]
        hot[k] = list(zip(hn[lo:hi].tolist(), hv[lo:hi].tolist()))
        best[k] = (int(hv[lo]), int(hn[lo]))
    return hot, best


def phase_b(st, p, max_n, division="float"):
    """A candidate's walk on the round's mask: (ends, good, [(pixel, turn)] of its mask-1 pixels
    from the point to each end, the point first)."""
    s = st.s
    j, i = int(s.xs[p]), int(s.ys[p])
    setup = seq.walk_setup(j, i, s.tab_cos, s.tab_sin, max_n, division)
    ends = seq.walk_ends(st.mask, s.width, s.height, setup, s.line_gap)
    (xa, ya), (xb, yb) = ends
    good = abs(xb - xa) >= s.line_length or abs(yb - ya) >= s.line_length
    cleared = []
    for k in range(2):
        for (j1, i1) in seq.walk_pixels(setup, ends[k], k):
            at = i1 * s.width + j1
            if st.mask[at] and (k == 0 or (j1, i1) != (j, i)):
                cleared.append((at, int(st.pix_turn[at])))
    return ends, good, cleared


def first_max(pairs):
    """(max_val, max_n) of hot pairs: the largest value, its smallest angle; None when empty."""
    if not pairs:
        return None
    n, v = max(pairs, key=lambda nv: (nv[1], -nv[0]))
    return v, n


def phase_c(st, T, pts, live, hot, best, walks, stats, check, traced):
    """The candidates in turn order. Returns (end: window-local index where the round ends,
    commits: [(k, ends, good, cleared)], cleared_by: {window k: turn of the commit clearing it})."""
    s = st.s
    window_end = T + len(pts)
    cleared = {}      # pixel -> turn of the commit that cleared it (this round)
    records = []      # (point, turn, commit turn, good) of cleared points that can correct a value
    commits = []
    # The kernel decides ranks 0 .. nins (nins: the walked ranks whose pixels together fit the
    # records, its map of the walks' pixels); the round ends at the next rank at the latest.
    ranks = [k for k in range(len(pts)) if best[k] is not None and k in walks]
    nins, total = 0, 0
    for k in ranks:
        total += len(walks[k][2])
        if total > st.records:
            break
        nins += 1
    rank = -1
    for k in range(len(pts)):
        if best[k] is None:
            continue
        tc = T + 1 + k
        if k not in walks:
            stats.ends["cmax"] += 1
            return k, commits, cleared, traced
        rank += 1
        if rank > nins:
            stats.ends["full"] += 1
            return k, commits, cleared, traced
        ends, good, clist = walks[k]
        if clist[0][0] in cleared:
            continue  # cleared before its turn: it neither votes nor triggers
        if s.max_start >= s.threshold:
            max_val, max_n = best[k]
        else:
            pairs = []
            for n, v in hot[k]:
                for (q, tr, te, rgood) in records:
                    weight = int(te < tr < tc) + int(rgood)
                    if weight and s.bins[q, n] == s.bins[pts[k], n]:
                        v -= weight
                if v >= s.threshold:
                    pairs.append((n, v))
            fm = first_max(pairs)
            if fm is None:
                stats.dropped += 1
                continue  # no longer a trigger (it still votes)
            max_val, max_n = fm
            if max_n != best[k][1]:
                stats.ends["angle"] += 1
                return k, commits, cleared, traced
        if any(at in cleared for at, _ in clist):
            stats.ends["pixel"] += 1
            return k, commits, cleared, traced
        keep = [(at, tr) for at, tr in clist if good or tc < tr <= window_end]
        if check is not None:
            ev = check[traced]
            traced += 1
            assert ev["t"] == tc, ("trigger turn", ev["t"], tc)
            assert ev["max_n"] == max_n and ev["max_val"] == max_val, ("angle/value", ev, max_n, max_val)
            assert tuple(ev["ends"]) == tuple(ends), ("ends", ev["ends"], ends)
            assert ev["good"] == good, ("good", ev, good)
            assert sorted(ev["removed"]) == sorted(int(s.index[at]) for at, _ in clist), ("cleared", tc)
        for at, tr in clist:
            cleared[at] = tc
        for at, tr in keep:
            records.append((int(s.index[at]), tr, tc, good))
        commits.append((k, ends, good, clist))
    return len(pts), commits, cleared, traced


def phase_d(st, T, pts, live, end, commits, cleared):
    """Mask, decrements, votes taken back; returns the new T."""
    s = st.s
    for k, ends, good, clist in commits:
        for at, tr in clist:
            st.mask[at] = 0
            if good:
                np.subtract.at(st.acc, s.bins[s.index[at]], 1)
        if good:
            (xa, ya), (xb, yb) = ends
            st.lines.append((xa, ya, xb, yb))
    for k in range(len(pts)):
        if not live[k]:
            continue
        tk = T + 1 + k
        if k >= end or cleared.get(int(st.pix[pts[k]]), tk) < tk:
            np.subtract.at(st.acc, s.bins[pts[k]], 1)
    return T + end


def exact_round(st, stats, check=None, traced=0, division="float"):
    s = st.s
    T = st.T
    pts, live = window_points(st, T, st.wcur)
    hot, best = phase_a(st, pts, live)
    if s.numangle == 0 and live.any() and s.max_start >= s.threshold:
        raise seq.Undefined("a trigger without angles reads cv2's empty table")
    cands = [k for k in range(len(pts)) if best[k] is not None]
    walks = {k: phase_b(st, pts[k], best[k][1], division) for k in cands[:st.cmax]}
    end, commits, cleared, traced = phase_c(st, T, pts, live, hot, best, walks, stats, check, traced)
    st.T = phase_d(st, T, pts, live, end, commits, cleared)
    # the next window: twice what this round settled (WMIN .. window)
    st.wcur = min(st.window, max(WMIN, 2 * end if end < len(pts) else 2 * st.wcur))
    stats.committed.append(len(commits))
    stats.candidates.append(len(cands))
    return bool(cands), traced


def run(s, window=1024, forward=4096, division="float", check=None, stats=None, cmax=CMAX, records=RECORDS):
    """cv2.HoughLinesP's result (as hough_p_model.run) computed in the parallel form. ``check``:
    the sequential model's trace; each committed trigger is compared with it as it is committed
    (AssertionError names the turn and the field). ``forward``: the first fast-forward chunk (the
    head start), 0 for none."""
    stats = stats if stats is not None else Stats()
    st = State(s, window, cmax, records)
    stats.permutation_rounds = st.perm_rounds
    traced = 0
    chunk = forward
    while st.T + 1 < s.n:
        if chunk > st.window:
            if fast_forward(st, chunk):
                stats.forward += 1
                chunk = min(2 * chunk, 1 << 16)
                continue
            stats.forward_back += 1
            chunk = 0
        stats.rounds += 1
        had, traced = exact_round(st, stats, check, traced, division)
        if not had and forward and s.max_start < s.threshold:
            chunk = 4 * st.window
    if check is not None:
        assert traced == len(check), ("triggers", traced, len(check))
    if not st.lines:
        return None
    return np.array(st.lines, dtype=np.int32).reshape(-1, 4)


def hough_lines_p(image, rho, theta, threshold, min_line_length=0.0, max_line_gap=0.0, window=1024, forward=4096,
                  check=False, stats=None, cmax=CMAX, records=RECORDS):
    s = seq.Setup(image, rho, theta, threshold, min_line_length, max_line_gap)
    trace = None
    if check:
        trace = []
        seq.run(s, trace)
    return run(s, window, forward, check=trace, stats=stats, cmax=cmax, records=records)
