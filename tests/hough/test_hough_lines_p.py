"""cvgpu.HoughLinesP against the installed cv2.

CPU part (runs everywhere): the host-side plan (sizes, trig table, MWC chunk states, corner rule)
against the models, the no-GPU fallback. GPU part (``gpu``): cvgpu == cv2 bit for bit on hypothesis
cases (photographs' Canny edges, segments, grids, noise; sizes up to 4096 a side in the ``device``
profile), == the CPU models, numpy and CuPy input, the ``lines`` argument on the device, forced
window sizes and the wrap mode. The bad-input fuzzing is tests/hough/test_hough_lines_p_hardening.py;
the kernels' logic on the CPU is tests/hough/test_hough_p_kernel_host.py.
"""
import math
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, note, settings
from hypothesis import strategies as st

import cvgpu
import hough_p_model as seq
import hough_p_parallel_model as par
from conftest import HAS_GPU, examples, same
from hardening_support import outcome
from cvgpu import _versions
from cvgpu.hough import probabilistic as hp
from hough_p_cases import cases, checks_pass, cv2_defined, photo_edges, segments

LINES_N4 = _versions.behaviour("hough_p.lines_shape") == "n4"  # (N, 4), else (N, 1, 4)
DEVICE_PROFILE = settings.default.max_examples >= 10_000
# The device profile reaches 4096 a side; ci stays small (cv2 is the reference, serial).
MAX_SIDE = 4096 if DEVICE_PROFILE else 512
gpu = pytest.mark.gpu


@pytest.fixture(autouse=True)
def _quiet_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cvgpu.CvgpuFallbackWarning)
        yield


def ref_lines(img, rho, theta, threshold, mll=0.0, mlg=0.0):
    return cv2.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)


def as_5x(lines):
    """(N, 4) whatever the cv2 major version's layout."""
    return lines if lines is None or LINES_N4 else lines.reshape(-1, 4)


# ---------------------------------------------------------------- CPU: the host-side plan

@given(rows=st.integers(0, 5000), cols=st.integers(0, 5000),
       rho=st.one_of(st.floats(1e-3, 1e4), st.sampled_from([1.0, 0.5, 3.7, -1.0, 0.0, float("nan"), 1e300])),
       theta=st.one_of(st.floats(1e-4, 10.0), st.sampled_from([math.pi / 180, 0.0, -0.1, -4.0, float("nan"),
                                                                 float("inf"), 1e-300])))
def test_sizes_and_table_match_the_model(rows, cols, rho, theta):
    ours = hp.sizes(rows, cols, rho, theta)
    model = seq.sizes(rows, cols, rho, theta)
    assert ours[:2] == model[:2]
    numangle = ours[0]
    if 0 < numangle <= 4000:
        a, b = hp.trig_table(numangle, ours[2], ours[3]), seq.trig_table(numangle, ours[2], ours[3])
        assert a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()


def test_chunk_states_give_cv2s_draws():
    n = 64 * 40 + 17
    states = hp.chunk_states(-(-n // hp.DRAW_CHUNK))
    r = seq.CvRNG()
    expect = [r.next() for _ in range(n)]
    got = []
    for c in range(-(-n // hp.DRAW_CHUNK)):
        s = int(states[c])
        for t in range(c * 64, min(n, c * 64 + 64)):
            if t > c * 64:
                s = (s & 0xFFFFFFFF) * hp._MWC_A + (s >> 32)
            got.append(s & 0xFFFFFFFF)
    assert got == expect


@settings(max_examples=max(settings.default.max_examples, 100))
@given(rows=st.integers(1, 300), cols=st.integers(1, 300), rho=st.floats(0.05, 1000.0),
       theta=st.one_of(st.floats(0.01, 4.0), st.just(math.pi / 180)))
def test_corner_rule_bounds_every_pixel(rows, cols, rho, theta):
    """The extremes of each angle's rho bins over the image lie at its corners (what lets the host
    skip the point check), checked against every pixel's bins."""
    numangle, numrho, rho32, theta32 = hp.sizes(rows, cols, rho, theta)
    assume(numangle >= 1 and numrho >= 1 and numangle * rows * cols <= 2_000_000)
    tab_cos, tab_sin = hp.trig_table(numangle, rho32, theta32)
    lo_hi = hp.corner_bins_numpy(rows, cols, numangle, numrho, tab_cos, tab_sin)
    assume(lo_hi is not None)
    ys, xs = np.mgrid[0:rows, 0:cols]
    bins = seq.vote_bins(xs.ravel(), ys.ravel(), tab_cos, tab_sin, numrho) - np.arange(numangle) * numrho
    assert (bins.min(axis=0) == lo_hi[0]).all() and (bins.max(axis=0) == lo_hi[1]).all()


def test_fallback_without_gpu_is_cv2():
    img = photo_edges("camera", 120, 160)
    ours = cvgpu.HoughLinesP(img, 1, np.pi / 180, 20, None, 10, 3)
    assert same(ours, ref_lines(img, 1, np.pi / 180, 20, 10, 3))
    assert cvgpu.last_call_backend() == ("cuda" if HAS_GPU else "cv2")


# ---------------------------------------------------------------- GPU

@gpu
# Four items a shard: cv2, the serial reference, makes the 4096-a-side examples long, and a shard of
# 64 took 50-224 s in 5de1e23's device run (the watchdog ends an item at CVGPU_STALL_S, 240 s).
@pytest.mark.subshards(4)
# (too_slow off: a 4096 x 4096 case's photograph, resize and Canny take tens of milliseconds to build)
# Device profile: one "standard" row of every family. 2,000 draws at sides up to 4096 gave cv2 a
# segment in 41 % of them (relative thresholds; empty images, tiny sides and extreme parameters
# are the rest, on purpose): 26,000 examples for the row's 10,000 non-trivial cases.
@settings(max_examples=max(examples(26_000), 100), suppress_health_check=[HealthCheck.too_slow])
@given(case=cases(max_side=MAX_SIDE, max_votes=60_000_000))
def test_gpu_matches_cv2(case, compat):
    # (at most 60M votes, ~333k edge points at 1 degree: cv2, the serial reference, stays near a
    # second per example at 4096 a side)
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        ref = ref_lines(img, rho, theta, threshold, mll, mlg)
    except cv2.error:
        assume(False)  # (cv2 could not allocate: the hardening tests compare errors)
    ours = cvgpu.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)
    assert cvgpu.last_call_backend() == ("none" if img.size == 0 else "cuda")
    compat.check("HoughLinesP", "standard", ours, ref, inputs=(img, rho, theta, threshold, mll, mlg))


@gpu
@settings(max_examples=max(settings.default.max_examples // 10, 40))
@given(case=cases(max_side=96, max_votes=300_000))
def test_gpu_matches_models(case):
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        s = seq.Setup(img, rho, theta, threshold, mll, mlg)
        ref = seq.run(s)
    except (seq.OutOfMemory, seq.Undefined):
        return
    assert same(par.run(s), ref)
    assert same(as_5x(cvgpu.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)), seq.as_returned(ref))


SIZES = [(640, 480), (1280, 720), (1920, 1080), (3840, 2160)]


@gpu
@pytest.mark.parametrize("name", ["camera", "astronaut", "coffee", "page"])
@pytest.mark.parametrize("size", SIZES, ids=["%dx%d" % s for s in SIZES])
@pytest.mark.parametrize("threshold", [50, 100, 10])
def test_gpu_photographs(name, size, threshold, compat):
    """The benchmark's workloads (cvgpu/bench/hough_p.py): Canny edges of photographs, rho 1,
    theta 1 degree, minLineLength 50, maxLineGap 10."""
    img = photo_edges(name, size[1], size[0])
    stats = {}
    ours = hp.gpu_lines(hp._backend.cupy_module(), img, *hp.sizes(size[1], size[0], 1, np.pi / 180), threshold,
                        50, 10, stats=stats)
    ours = hp.no_segments() if ours is None else ours   # (the layer's mapping, 5.1)
    ref = ref_lines(img, 1, np.pi / 180, threshold, 50, 10)
    print(stats)  # the kernel's counters, shown with a failure
    compat.check("HoughLinesP", "bench photographs", as_5x(ours), as_5x(ref), inputs=(img, threshold))
    assert same(cvgpu.HoughLinesP(img, 1, np.pi / 180, threshold, None, 50, 10), ref)


@gpu
@pytest.mark.parametrize("n_points", [20_000, 82_000])
def test_gpu_segments(n_points, compat):
    img = segments(1024, 1024, n_points, seed=n_points)
    for threshold in (50, 100):
        compat.check("HoughLinesP", "bench segments", cvgpu.HoughLinesP(img, 1, np.pi / 180, threshold, None, 50, 10),
                     ref_lines(img, 1, np.pi / 180, threshold, 50, 10), inputs=(img, threshold))


@gpu
@pytest.mark.parametrize("window,forward,blocks", [(1, 0, 1), (7, 64, 1), (64, 0, 2), (1024, 4096, 1),
                                                   (1024, 4096, 4)])
def test_gpu_forced_windows(window, forward, blocks):
    img = photo_edges("astronaut", 240, 320)
    with hp.TUNING.override(window=window, forward=forward, blocks_per_sm=blocks):
        for threshold, mll, mlg in ((30, 20, 5), (5, 0, 0), (-2**31, 3, 1)):
            if not checks_pass(1, np.pi / 180, threshold, mll, mlg):
                continue   # (5.1 refuses a negative threshold before voting: the argument tests' case)
            assert same(cvgpu.HoughLinesP(img, 1, np.pi / 180, threshold, None, mll, mlg),
                        ref_lines(img, 1, np.pi / 180, threshold, mll, mlg))


@gpu
@pytest.mark.parametrize("blocks", [lambda full: 1, lambda full: 5, lambda full: 3 * full],
                         ids=["one block", "five blocks", "3x the resident grid"])
def test_gpu_any_joined_grid(blocks, monkeypatch):
    """hough_p_main's blocks join (hp_join): whatever number comes before the join closes (one, a
    few, or a grid three times what fits at once, whose blocks beyond the resident ones come after
    the close and leave), the segments are cv2's."""
    full = hp._grid
    monkeypatch.setattr(hp, "_grid", lambda fn, shared: blocks(full(fn, shared)))
    img = photo_edges("astronaut", 240, 320)
    for threshold, mll, mlg in ((30, 20, 5), (5, 0, 0)):
        assert same(cvgpu.HoughLinesP(img, 1, np.pi / 180, threshold, None, mll, mlg),
                    ref_lines(img, 1, np.pi / 180, threshold, mll, mlg))


@gpu
def test_gpu_wrap_mode():
    img = np.zeros((30, 40), np.uint8)
    img[5, 3:35] = 255
    img[2:28, 20] = 255
    img[np.random.default_rng(3).random((30, 40)) < 0.05] = 255
    before = hp.TUNING.paths()
    for rho in (60.0, 80.0, 100.0, 120.0):
        for threshold in (1, 3, 10):
            if cv2_defined(img, rho, math.pi / 180):
                assert same(cvgpu.HoughLinesP(img, rho, math.pi / 180, threshold),
                            ref_lines(img, rho, math.pi / 180, threshold))
    after = hp.TUNING.paths()
    assert after["point-check"] > before["point-check"] and after["wrap"] > before["wrap"]


@gpu
def test_gpu_device_io_and_lines_argument():
    import cupy as cp
    img = photo_edges("coffee", 200, 300)
    ref = ref_lines(img, 1, np.pi / 180, 30, 20, 5)
    d_img = cp.asarray(img)
    ours = cvgpu.HoughLinesP(d_img, 1, np.pi / 180, 30, None, 20, 5)
    assert isinstance(ours, cp.ndarray) and cvgpu.last_call_backend() == "cuda"
    assert same(ours.get(), ref)
    n = ref.shape[0]
    # 4.x writes into the lines argument only when it is (N, 1, 4), 5.x also into (1, N, 4).
    for shape, written in (((n, 1, 4), True), ((1, n, 4), not hp.LINES_3D), ((n, 4), False)):
        out = cp.zeros(shape, cp.int32)
        got = cvgpu.HoughLinesP(d_img, 1, np.pi / 180, 30, out, 20, 5)
        assert (got is out) == written
        assert same(got.get().reshape(-1, 4), ref.reshape(-1, 4))
    host_out = np.zeros((n, 1, 4), np.int32)
    assert cvgpu.HoughLinesP(img, 1, np.pi / 180, 30, host_out, 20, 5) is host_out
    assert same(host_out.reshape(-1, 4), ref.reshape(-1, 4))
    # a strided device view is read as cv2 reads its copy
    big = cp.zeros((400, 600), cp.uint8)
    big[::2, ::2] = d_img
    assert same(cvgpu.HoughLinesP(big[::2, ::2], 1, np.pi / 180, 30, None, 20, 5).get(), ref)


@gpu
def test_gpu_empty_and_degenerate():
    for img in (np.zeros((0, 5), np.uint8), np.zeros((7, 9), np.uint8), np.full((1, 1), 255, np.uint8),
                np.full((3, 1), 1, np.uint8)):
        for threshold in (1, 0, -2**31, 2**31 - 1):
            # (5.1 refuses a negative threshold, also on an empty image: the errors are compared)
            ours = outcome(lambda: cvgpu.HoughLinesP(img, 1, np.pi / 180, threshold))
            assert ours == outcome(lambda: ref_lines(img, 1, np.pi / 180, threshold)), (img.shape, threshold)
