"""cvgpu.fitLineLMS / fitLineLMSBatch / refineHoughLines against an independent brute force.

Reference (``brute_width``): every pair direction (and the axis direction), the residuals of all
points at that direction sorted, the thinnest window of h = n//2 + 1 consecutive residuals. It does
not use the anchored-candidate formulation of the kernels. The fit is exact when twice its
half-width equals that minimum within TOL (float32 rounding of the residuals, see tol()), and the
returned line's own objective (recomputed here in float64) agrees with it too.
"""
import math
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

import cvgpu
from cvgpu import lms
from conftest import HAS_GPU
import lms_model

MODES = {"vertical": 0, "horizontal": 1, "perpendicular": 2}


def directions(x, y, mode):
    i, j = np.triu_indices(len(x), 1)
    dx = np.concatenate([[0.0 if mode == 1 else 1.0], x[j] - x[i]])
    dy = np.concatenate([[1.0 if mode == 1 else 0.0], y[j] - y[i]])
    keep = (dx != 0) if mode == 0 else (dy != 0) if mode == 1 else (np.hypot(dx, dy) > 0)
    return dx[keep], dy[keep]


def residuals(x, y, dx, dy, mode, xp=np):
    if mode == 0:
        return y[None, :] - (dy / dx)[:, None] * x[None, :]
    if mode == 1:
        return x[None, :] - (dx / dy)[:, None] * y[None, :]
    ln = xp.hypot(dx, dy)
    return (dx / ln)[:, None] * y[None, :] - (dy / ln)[:, None] * x[None, :]


def brute_width(xy, mode, xp=np, chunk=4096):
    """(min slab width, direction (dx, dy) of the optimum) over all lines of the mode, float64."""
    xy = xp.asarray(xy, dtype=xp.float64).reshape(-1, 2)
    x, y = xy[:, 0], xy[:, 1]
    n = len(x)
    h = n // 2 + 1
    dx, dy = directions(x, y, mode) if xp is np else directions_xp(x, y, mode, xp)
    best, arg = math.inf, None
    for s in range(0, len(dx), chunk):
        r = xp.sort(residuals(x, y, dx[s:s + chunk], dy[s:s + chunk], mode, xp), axis=1)
        w = (r[:, h - 1:] - r[:, :n - h + 1]).min(axis=1)
        k = int(w.argmin())
        if float(w[k]) < best:
            best, arg = float(w[k]), (float(dx[s + k]), float(dy[s + k]))
    return best, arg


def directions_xp(x, y, mode, xp):
    n = len(x)
    i, j = xp.triu_indices(n, 1)
    dx = xp.concatenate([xp.asarray([0.0 if mode == 1 else 1.0]), x[j] - x[i]])
    dy = xp.concatenate([xp.asarray([1.0 if mode == 1 else 0.0]), y[j] - y[i]])
    keep = (dx != 0) if mode == 0 else (dy != 0) if mode == 1 else (xp.hypot(dx, dy) > 0)
    return dx[keep], dy[keep]


def line_objective(xy, line, mode):
    """sqrt of the h-th smallest squared residual of the returned line, float64."""
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    vx, vy, x0, y0 = np.asarray(line, np.float64).ravel()
    x, y = xy[:, 0] - x0, xy[:, 1] - y0
    if mode == 0:
        r = y - vy / vx * x
    elif mode == 1:
        r = x - vx / vy * y
    else:
        r = vx * y - vy * x
    h = len(r) // 2 + 1
    return float(np.sort(np.abs(r))[h - 1])


def tol(xy, ref, direction, mode):
    xy = np.asarray(xy, np.float64).reshape(-1, 2)
    extent = float(np.abs(xy - xy[0]).max()) + 1.0
    dx, dy = direction if direction else (1.0, 0.0)
    ln = math.hypot(dx, dy)
    stretch = ln / abs(dx) if mode == 0 and dx else ln / abs(dy) if mode == 1 and dy else 1.0
    return 3e-5 * ref + 2e-6 * extent * stretch + 1e-30


def check_fit(xy, mode_name, line, hw):
    mode = MODES[mode_name]
    ref, direction = brute_width(xy, mode)
    line = np.asarray(line, np.float64).ravel()
    assert line.shape == (4,)
    assert abs(math.hypot(line[0], line[1]) - 1) < 1e-6
    t = tol(xy, ref, direction, mode)
    assert abs(2 * float(hw) - ref) <= t, (2 * float(hw), ref, t)
    # the line itself achieves it (its slab recomputed here)
    if (mode == 0 and line[0] == 0) or (mode == 1 and line[1] == 0):
        return
    own = line_objective(xy, line, mode)
    t_own = tol(xy, ref, (line[0], line[1]), mode)
    # (x0, y0) and the direction are float32: rounding at the coordinates' magnitude
    t_own += 2e-7 * (float(np.abs(np.asarray(xy, np.float64)).max()) + 1) * (1 + abs(line[1] / line[0] if mode == 0 else line[0] / line[1] if mode == 1 else 1))
    assert abs(own - float(hw)) <= t_own + 1e-6 * abs(float(hw)), (own, float(hw))


# ---------------------------------------------------------------- point-set strategies

@st.composite
def point_sets(draw, max_n=24):
    n = draw(st.integers(1, max_n))
    kind = draw(st.sampled_from(["int", "float", "line", "vertical", "dups"]))
    if kind == "int":
        pts = draw(st.lists(st.tuples(st.integers(-40, 40), st.integers(-40, 40)), min_size=n, max_size=n))
        return np.array(pts, np.int32)
    if kind == "float":
        v = st.floats(-200, 200, allow_nan=False, width=32)
        pts = draw(st.lists(st.tuples(v, v), min_size=n, max_size=n))
        return np.array(pts, np.float32)
    if kind == "dups":
        base = draw(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), min_size=1, max_size=3))
        idx = draw(st.lists(st.integers(0, len(base) - 1), min_size=n, max_size=n))
        return np.array([base[i] for i in idx], np.int32)
    # points on a line (vertical or general) plus integer outliers
    a = draw(st.integers(-3, 3))
    ts = draw(st.lists(st.integers(-30, 30), min_size=n, max_size=n))
    out = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    pts = []
    for t, o in zip(ts, out):
        if o:
            pts.append((draw(st.integers(-40, 40)), draw(st.integers(-40, 40))))
        elif kind == "vertical":
            pts.append((7, t))
        else:
            pts.append((t, a * t + 2))
    return np.array(pts, np.int32)


# ---------------------------------------------------------------- CPU: the numpy implementation

def _numpy_fit(xy, mode_name):
    r = lms.fit_numpy(np.asarray(xy, np.float32).reshape(-1, 2), lms.RESIDUALS[mode_name])
    return r["line"], r["hw"]


@pytest.mark.parametrize("mode_name", sorted(MODES))
@given(xy=point_sets(max_n=14))
def test_numpy_implementation_is_exact(mode_name, xy):
    line, hw = _numpy_fit(xy, mode_name)
    check_fit(xy, mode_name, line, hw)


@pytest.mark.parametrize("mode_name", sorted(MODES))
@given(xy=point_sets(max_n=36))
def test_kernel_model_is_exact(mode_name, xy):
    # n up to 36 reaches the sampling + decision path (more than 256 candidates from n = 23)
    mode = MODES[mode_name]
    key, _ = lms_model.run(xy, mode)
    ref, direction = brute_width(xy, mode)
    width = float(np.uint32(key >> 32).view(np.float32))
    assert abs(width - ref) <= tol(xy, ref, direction, mode), (width, ref)


@given(xy=point_sets(max_n=12))
def test_numpy_auto_is_the_thinner_classical_fit(xy):
    la, ha = _numpy_fit(xy, "auto")
    lv, hv = _numpy_fit(xy, "vertical")
    lh, hh = _numpy_fit(xy, "horizontal")
    assert (np.array_equal(la, lv) and ha == hv) or (np.array_equal(la, lh) and ha == hh)
    pv, ph = float(hv) * abs(float(lv[0])), float(hh) * abs(float(lh[1]))
    chosen = float(ha) * (abs(float(la[0])) if np.array_equal(la, lv) and ha == hv else abs(float(la[1])))
    assert chosen <= min(pv, ph) * (1 + 1e-6) + 1e-12


def test_planted_line_with_outliers():
    rng = np.random.default_rng(1)
    x = rng.uniform(0, 500, 120)
    y = 0.3 * x + 10 + rng.normal(0, 0.3, 120)
    y[:50] = rng.uniform(0, 500, 50)
    xy = np.stack([x, y], 1).astype(np.float32)
    line, hw = _numpy_fit(xy, "vertical")
    assert abs(line[1] / line[0] - 0.3) < 0.01
    check_fit(xy, "vertical", line, hw)


def _error_of(fn, *args):
    try:
        fn(*args)
    except cv2.error as exc:
        return exc
    raise AssertionError("no cv2.error")


@pytest.mark.parametrize("bad", [np.zeros((0, 2), np.float32), np.zeros((5, 4), np.float32),
                                 np.zeros((2, 5, 2), np.float32), [[1, 2], [3, 4]], "x"])
def test_bad_points_raise_what_cv2_fitLine_raises(bad):
    ref = _error_of(cv2.fitLine, bad, cv2.DIST_L2, 0, 0.01, 0.01)
    ours = _error_of(cvgpu.fitLineLMS, bad)
    assert (ours.code, ours.err) == (ref.code, ref.err)  # func: ours names fitLineLMS


def test_3d_points_and_bad_residual():
    assert _error_of(cvgpu.fitLineLMS, np.zeros((5, 3), np.float32)).code == -213
    assert _error_of(cvgpu.fitLineLMS, np.zeros((5, 2), np.float32), "l1").code == -5


def test_public_names():
    for name in ("fitLineLMS", "fitLineLMSBatch", "refineHoughLines"):
        assert name in dir(cvgpu)


@pytest.mark.skipif(HAS_GPU, reason="checks the no-GPU path")
def test_fallback_warns_and_matches_numpy():
    xy = np.array([[0, 0], [1, 1], [2, 2], [3, 7], [4, 4]], np.int32)
    with warnings.catch_warnings(record=True):
        warnings.simplefilter("always")
        line, hw = cvgpu.fitLineLMS(xy)
    ref_line, ref_hw = _numpy_fit(xy, "auto")
    assert np.array_equal(line.ravel(), ref_line) and hw == float(ref_hw)
    lines, hws = cvgpu.fitLineLMSBatch([xy, xy[:3]])
    assert lines.shape == (2, 4, 1) and hws.shape == (2,)
    assert np.array_equal(lines[0], line)


def synthetic_lines_image(rng, side=256, nlines=3, noise=0.002):
    img = np.zeros((side, side), np.uint8)
    truth = []
    for _ in range(nlines):
        th = rng.uniform(0, np.pi)
        r = rng.uniform(-0.2, 0.6) * side + side * 0.2
        truth.append((r, th))
        t = np.arange(-2 * side, 2 * side)
        x = np.rint(r * np.cos(th) - t * np.sin(th)).astype(int)
        y = np.rint(r * np.sin(th) + t * np.cos(th)).astype(int)
        ok = (x >= 0) & (x < side) & (y >= 0) & (y < side) & (rng.random(len(t)) < 0.5)
        img[y[ok], x[ok]] = 255
    img[rng.random((side, side)) < noise] = 255
    return img, truth


@pytest.mark.skipif(HAS_GPU, reason="checks the no-GPU path")
def test_refine_numpy_path_runs():
    rng = np.random.default_rng(3)
    img, _ = synthetic_lines_image(rng, side=96, nlines=2, noise=0.001)
    lines = cv2.HoughLines(img, 1, np.pi / 180, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = cvgpu.refineHoughLines(img, lines[:2], 1, np.pi / 180)
        seg = cvgpu.refineHoughLines(img, lines[:2], 1, np.pi / 180, segments=True)
    assert out.shape == (2, 1, 2) and out.dtype == np.float32
    assert seg.shape == (2, 1, 4) and seg.dtype == np.int32


# ---------------------------------------------------------------- GPU

@pytest.mark.gpu
@pytest.mark.parametrize("mode_name", sorted(MODES))
@given(xy=point_sets(max_n=40))
def test_gpu_fit_is_exact(mode_name, xy):
    line, hw = cvgpu.fitLineLMS(xy, mode_name)
    assert cvgpu.last_call_backend() == "cuda"
    assert line.shape == (4, 1) and line.dtype == np.float32 and isinstance(hw, float)
    check_fit(xy, mode_name, line, hw)


@pytest.mark.gpu
@given(xy=point_sets(max_n=16))
def test_gpu_matches_numpy_objective_and_auto(xy):
    la, ha = cvgpu.fitLineLMS(xy)
    lv, hv = cvgpu.fitLineLMS(xy, "vertical")
    lh, hh = cvgpu.fitLineLMS(xy, "horizontal")
    assert (np.array_equal(la, lv) and ha == hv) or (np.array_equal(la, lh) and ha == hh)
    _, nhv = _numpy_fit(xy, "vertical")
    ref, direction = brute_width(xy, 0)
    assert abs(hv - float(nhv)) <= tol(xy, ref, direction, 0)


@pytest.mark.gpu
@given(sets=st.lists(point_sets(max_n=20), min_size=1, max_size=4))
def test_gpu_batch_equals_single_fits(sets):
    lines, hws = cvgpu.fitLineLMSBatch(sets, residual="perpendicular")
    assert lines.shape == (len(sets), 4, 1) and hws.shape == (len(sets),)
    for k, xy in enumerate(sets):
        line, hw = cvgpu.fitLineLMS(xy, "perpendicular")
        assert np.array_equal(lines[k], line) and float(hws[k]) == hw
    packed = np.concatenate([np.asarray(s, np.float32).reshape(-1, 2) for s in sets])
    offsets = np.concatenate([[0], np.cumsum([len(s) for s in sets])])
    l2, h2 = cvgpu.fitLineLMSBatch(packed, offsets, residual="perpendicular")
    assert np.array_equal(l2, lines) and np.array_equal(h2, hws)


@pytest.mark.gpu
def test_gpu_cupy_in_cupy_out():
    import cupy as cp
    xy = np.array([[0, 0], [1, 1.5], [2, 2], [3, 3], [10, 0]], np.float32)
    d = cp.asarray(xy)
    before = d.copy()
    line, hw = cvgpu.fitLineLMS(d.reshape(-1, 1, 2))
    assert isinstance(line, cp.ndarray) and isinstance(hw, cp.ndarray)
    ref_line, ref_hw = cvgpu.fitLineLMS(xy)
    assert np.array_equal(line.get(), ref_line) and float(hw) == ref_hw
    assert cp.array_equal(d, before)


@pytest.mark.gpu
@pytest.mark.parametrize("n,seed,mode", [(300, 0, 0), (1000, 1, 2), (2000, 2, 0), (2000, 3, 1)])
def test_gpu_large_sets_against_cupy_brute_force(n, seed, mode):
    import cupy as cp
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 1000, n)
    y = 0.7 * x + 50 + rng.normal(0, 1.0, n)
    out = rng.random(n) < 0.45
    y[out] = rng.uniform(0, 1000, out.sum())
    xy = np.stack([x, y], 1).astype(np.float32)
    if seed == 1:
        xy = rng.integers(0, 1000, (n, 2)).astype(np.int32)  # no structure at all
    name = [k for k, v in MODES.items() if v == mode][0]
    line, hw = cvgpu.fitLineLMS(xy, name)
    ref, direction = brute_width(xy, mode, xp=cp, chunk=2048)
    assert abs(2 * hw - ref) <= tol(xy, ref, direction, mode), (2 * hw, ref)


@pytest.mark.gpu
def test_gpu_refine_matches_numpy_on_the_same_support():
    import cupy as cp
    rng = np.random.default_rng(5)
    img, truth = synthetic_lines_image(rng, side=256, nlines=3, noise=0.002)
    lines = cv2.HoughLines(img, 1, np.pi / 180, 40)
    assert lines is not None
    lines = lines[:6]
    ln = lines.reshape(-1, 2)
    bt, br, _, _ = lms._strip_widths(256, 256, 1, np.pi / 180, 0.5)
    sup = lms.support_points(img, lines, 1, np.pi / 180)
    # the GPU's support sets are the numpy definition's, up to float32 trig on borderline pixels
    ys, xs = np.nonzero(img)
    for k, (r, t) in enumerate(ln):
        sel = lms._supports_numpy(xs.astype(float), ys.astype(float), float(r), float(t), bt, br)
        ref_set = set(zip(xs[sel].tolist(), ys[sel].tolist()))
        got = set(map(tuple, sup[k].astype(int).tolist()))
        assert len(got) == len(sup[k])  # no pixel twice
        assert len(got ^ ref_set) <= max(2, len(ref_set) // 100)
        raster = sup[k][:, 1] * 256 + sup[k][:, 0] if abs(np.cos(t)) >= abs(np.sin(t)) else \
            sup[k][:, 0] * 256 + sup[k][:, 1]
        assert np.all(np.diff(raster) > 0)  # deterministic raster order
    out = cvgpu.refineHoughLines(img, lines, 1, np.pi / 180)
    seg = cvgpu.refineHoughLines(img, lines, 1, np.pi / 180, segments=True)
    ref = lms._refine_numpy(img, ln, bt, br, False, 3, supports=sup)
    ref_seg = lms._refine_numpy(img, ln, bt, br, True, 3, supports=sup)
    assert out.shape == ref.shape == (len(ln), 1, 2) and out.dtype == np.float32
    assert np.allclose(out, ref, atol=2e-3, rtol=1e-4), (out, ref)
    assert seg.dtype == np.int32 and np.abs(seg.astype(int) - ref_seg).max() <= 1
    d_out = cvgpu.refineHoughLines(cp.asarray(img), cp.asarray(lines), 1, np.pi / 180)
    assert isinstance(d_out, cp.ndarray) and np.array_equal(d_out.get(), out)
    again = cvgpu.refineHoughLines(img, lines, 1, np.pi / 180)
    assert np.array_equal(again, out)  # deterministic
