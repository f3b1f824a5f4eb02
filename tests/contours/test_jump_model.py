"""A CPU model of rank_jump_inplace (kernels/contours/ranking_block.cu), the cooperative pointer
jumping that ranks findContours' walk states, against synchronous rounds (ranking.cu's jump_step).

The kernel updates records in place, JUMP_STEPS jumps a record a round, each jump reading its
successor's value as another thread left it: before or after that thread's update of the round
(either is a true (successor, weight) pair). It stops when no record is open or a round finished
none (only cycles without an end are left: RETR_EXTERNAL's holes), and after max_rounds rounds at
most (the host passes the bit length of the record count). The model runs those rounds with the
reads drawn at random from the round's start and the current values, in a random record order, and
checks that every record of a chain that ends holds what synchronous rounds give it, within
max_rounds. No GPU: the kernel itself is run by the gpu tests (tests/contours/test_find_contours.py).
"""
import numpy as np
from hypothesis import given, settings, strategies as st


def lists(rng, n, cycles):
    """(next, weight) int64 arrays of n records: chains ending in -1 or -2 - j (an end marker, as a
    walk state's "next state is border j's first"), and ``cycles`` of the records on cycles."""
    order = rng.permutation(n)
    nxt = np.empty(n, np.int64)
    weight = rng.integers(0, 4, n).astype(np.int64)
    on_cycle = set(order[:cycles].tolist())
    if cycles:
        cut = sorted(set(rng.integers(1, cycles, min(cycles - 1, 3)).tolist())) if cycles > 1 else []
        for part in np.split(order[:cycles], cut):
            nxt[part] = np.roll(part, -1)
    rest = order[cycles:]
    if rest.size:
        cut = sorted(set(rng.integers(1, rest.size, min(rest.size - 1, rest.size // 8 + 1)).tolist())) \
            if rest.size > 1 else []
        for part in np.split(rest, cut):
            nxt[part[:-1]] = part[1:]
            nxt[part[-1]] = -1 if rng.integers(2) else -2 - int(rng.integers(0, 1000))
    return nxt, weight, on_cycle


def synchronous(nxt, weight):
    """ranking.cu's rounds (jump_step), enough of them for the longest chain: every record of a
    chain holds (end marker, total weight to it); records on cycles go round for ever (not read)."""
    a, w = nxt.copy(), weight.copy()
    for _ in range(len(a).bit_length() + 1):
        idx = np.flatnonzero(a >= 0)
        if not idx.size:
            break
        na, nw = a.copy(), w.copy()
        na[idx] = a[a[idx]]
        nw[idx] = w[idx] + w[a[idx]]
        a, w = na, nw
    return a, w


def in_place(nxt, weight, steps, rng, max_rounds):
    """rank_jump_inplace's rounds as described above; returns (next, weight, rounds run)."""
    a, w = nxt.copy(), weight.copy()
    prev = None
    for r in range(max_rounds):
        start_a, start_w = a.copy(), w.copy()
        open_ = np.flatnonzero(a >= 0)
        for i in rng.permutation(open_):
            va, vw = a[i], w[i]
            for _ in range(steps):
                if va < 0:
                    break
                stale = rng.integers(2) == 0          # the successor's value before or after its update
                sa, sw = (start_a[va], start_w[va]) if stale else (a[va], w[va])
                va, vw = sa, vw + sw
            a[i], w[i] = va, vw
        left = int((a >= 0).sum())
        if left == 0 or (prev is not None and left >= prev):
            return a, w, r + 1
        prev = left
    return a, w, max_rounds


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 600), cycle_share=st.floats(0, 0.5), steps=st.sampled_from([1, 2, 3]),
       seed=st.integers(0, 2**32 - 1))
def test_in_place_rounds_rank_as_synchronous_ones(n, cycle_share, steps, seed):
    rng = np.random.default_rng(seed)
    nxt, weight, on_cycle = lists(rng, n, int(n * cycle_share))
    want_a, want_w = synchronous(nxt, weight)
    got_a, got_w, rounds = in_place(nxt, weight, steps, rng, max(1, int(n).bit_length()))
    ends = np.array([i not in on_cycle for i in range(n)])
    assert np.array_equal(got_a[ends], want_a[ends])
    assert np.array_equal(got_w[ends], want_w[ends])
    assert (got_a[ends] < 0).all()


def test_two_steps_take_fewer_rounds():
    # One chain of 4096 records, every read from the round's start (synchronous rounds): one step a
    # round doubles the distance a record spans, two triple it, so fewer rounds and grid barriers
    # (JUMP_STEPS' reason; the stop round included).
    n = 4096
    nxt = np.arange(1, n + 1, dtype=np.int64)
    nxt[-1] = -1
    weight = np.ones(n, np.int64)

    class Stale:
        def permutation(self, x):
            return np.asarray(x)

        def integers(self, k):
            return 0

    rounds = {}
    for steps in (1, 2):
        a, w, rounds[steps] = in_place(nxt, weight, steps, Stale(), 13)
        assert (a == -1).all() and np.array_equal(w, np.arange(n, 0, -1)), steps
    assert rounds == {1: 12, 2: 8}, rounds
