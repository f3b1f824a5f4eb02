"""The parallel form of HoughLinesP (tests/models/hough_p_parallel_model.py, what the kernels compute)
against the sequential model and cv2: the MWC jump-ahead, the reservation permutation, and every
committed trigger of every round (turn, angle, value, ends, good, cleared pixels) compared with the
sequential trace as it is committed, over window sizes, fast-forward chunks and buffer sizes small
enough to reach every way a round can end."""
import math

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, note, settings, strategies as st

from cvgpu import _versions
import hough_p_model as seq
import hough_p_parallel_model as par
from conftest import same
from hough_p_cases import cases, checks_pass, cv2_defined, photo_edges

LINES_N4 = _versions.behaviour("hough_p.lines_shape") == "n4"  # (N, 4), else (N, 1, 4)


def cv2_lines(img, rho, theta, threshold, mll=0.0, mlg=0.0):
    out = cv2.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)
    return out if out is None or LINES_N4 else out.reshape(-1, 4)


def test_mwc_congruence():
    """S' = lo(S) * a + hi(S) equals a * S mod (a * 2**32 - 1) for every state below the modulus,
    and the all-ones seed reaches one after two steps (so draw 0 is taken directly)."""
    rng = np.random.default_rng(5)
    for _ in range(2000):
        s = int(rng.integers(0, 1 << 62)) * 4 + int(rng.integers(0, 4))
        s %= par.MWC_M
        step = (s & par.M32) * par.MWC_A + (s >> 32)
        assert step == par.MWC_A * s % par.MWC_M and step < par.MWC_M
    r = seq.CvRNG()
    r.next()
    assert r.state >= par.MWC_M
    r.next()
    assert r.state < par.MWC_M


@pytest.mark.parametrize("n", [1, 2, 63, 64, 65, 1000, 20_000])
def test_draws_jump_ahead(n):
    r = seq.CvRNG()
    assert par.mwc_draws(n).tolist() == [r.next() for _ in range(n)]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 5, 17, 64, 500, 4099, 100_000])
def test_permutation_rounds(n):
    order, rounds = par.pick_order(n)
    assert order.tolist() == seq.pick_order(n)
    assert rounds <= 8 * max(1, math.log2(max(n, 2))), rounds  # O(log N) rounds (w.h.p.)


@pytest.mark.parametrize("name", ["camera", "astronaut", "page"])
@pytest.mark.parametrize("window,forward,cmax,records", [(256, 4096, 64, 4096), (64, 256, 8, 64), (7, 0, 2, 5)])
def test_photographs_each_commit(name, window, forward, cmax, records):
    img = photo_edges(name, 90, 120)
    for threshold, mll, mlg in ((20, 20, 5), (8, 0, 0)):
        s = seq.Setup(img, 1, math.pi / 180, threshold, mll, mlg)
        trace = []
        ref = seq.run(s, trace)
        stats = par.Stats()
        out = par.run(s, window, forward, check=trace, stats=stats, cmax=cmax, records=records)
        assert same(out, ref)
        assert same(out, cv2_lines(img, 1, math.pi / 180, threshold, mll, mlg))


def test_every_round_end_is_reached():
    """Small buffers and windows make rounds end in every way (angle, pixel, full, cmax), each
    exact (the commits are checked against the sequential trace)."""
    seen = {k: 0 for k in par.Stats().ends}
    for name in ("camera", "astronaut"):
        img = photo_edges(name, 120, 160)
        s = seq.Setup(img, 1, math.pi / 180, 10, 10, 3)
        trace = []
        ref = seq.run(s, trace)
        for window, cmax, records in ((256, 4, 16), (256, 64, 4096)):
            stats = par.Stats()
            assert same(par.run(s, window, 4096, check=trace, stats=stats, cmax=cmax, records=records), ref)
            for k, v in stats.ends.items():
                seen[k] += v
    assert all(v > 0 for v in seen.values()), seen


@settings(max_examples=max(settings.default.max_examples, 40))
@given(case=cases(max_votes=1_000_000), window=st.sampled_from([1, 3, 64, 256]),
       forward=st.sampled_from([0, 64, 4096]), cmax=st.sampled_from([1, 3, 64]), records=st.sampled_from([3, 4096]))
def test_parallel_matches_sequential_and_cv2(case, window, forward, cmax, records):
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        s = seq.Setup(img, rho, theta, threshold, mll, mlg)
        trace = []
        ref = seq.run(s, trace)
    except seq.OutOfMemory:
        return
    stats = par.Stats()
    out = par.run(s, window, forward, check=trace, stats=stats, cmax=cmax, records=records)
    note(vars(stats))
    assert same(out, ref)
    assert same(seq.as_returned(out), cv2_lines(img, rho, theta, threshold, mll, mlg))
