"""findContours / findContoursPacked on huge images (beyond 16384 on a side, up to the int32 limits).

CPU part (runs everywhere, fast): the two limits of cvgpu/contours.py's "huge images" section
(2^31 - 1025 padded pixels, checked before the GPU is touched; 2^28 - 32 border pixels, checked on
the counts after labelling) raise cv2.error -211 with cvgpu's message and the function's name; an
allocation failure retries once without the cached scratch, then raises cv2's -4; the audit's
arithmetic (grid-stride loops, tile indices, walk-state slots) holds at the limits.

GPU part (markers ``gpu`` and ``huge``; opt-in with CVGPU_HUGE=1: they need up to ~55 GB of GPU
memory, ~10 GB of host memory and about a minute): cvgpu == cv2 bit for bit on a 20000 x 20000
sparse image (all modes x NONE / SIMPLE, TC89_L1 once, the packed device form), thin 16385 x 3,
3 x 16385, 1 x 40000 and 40000 x 1 images, the 20000 x 20000 one-pixel serpentine (one border
through 2 * 10^8 pixels, 1.6 * 10^9 walk states), a 46300 x 46300 sparse image (just under the pixel limit, where the
grid-stride loops used to wrap); the clear errors for a 20000 x 20000 image with too many border
pixels (the process stays usable) and for a 46341 x 46341 device image (no GPU allocation).
"""
import os
import re

import cv2
import numpy as np
import pytest

import cvgpu
from cvgpu import _backend
from cvgpu import contours as cc

MODES = {"EXTERNAL": cv2.RETR_EXTERNAL, "LIST": cv2.RETR_LIST, "CCOMP": cv2.RETR_CCOMP, "TREE": cv2.RETR_TREE}
METHODS = {"NONE": cv2.CHAIN_APPROX_NONE, "SIMPLE": cv2.CHAIN_APPROX_SIMPLE, "TC89_L1": cv2.CHAIN_APPROX_TC89_L1}
HUGE = os.environ.get("CVGPU_HUGE") == "1"


def huge(test):
    """GPU test on huge images: markers gpu and huge, skipped unless CVGPU_HUGE=1."""
    skip = pytest.mark.skipif(not HUGE, reason="huge-image GPU tests are opt-in: set CVGPU_HUGE=1 (tens of GB)")
    return pytest.mark.gpu(pytest.mark.huge(skip(test)))

KERNELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "kernels", "contours.cu")


class _PoisonCupy:
    """Stands in for CuPy where the GPU must not be touched: any use fails the test."""

    def __getattr__(self, name):
        raise AssertionError("the GPU was touched (cupy.%s)" % name)


def _over_limit_image(h, w):
    # No memory: every pixel is the same byte.
    return np.broadcast_to(np.zeros(1, np.uint8), (h, w))


# ---------------------------------------------------------------- CPU: the pixel limit

@pytest.mark.parametrize("shape", [(46341, 46341), (1, 2**31), (2**31 - 2, 1), (3, 2**29)])
@pytest.mark.parametrize("func", ["findContours", "findContoursPacked"])
def test_pixel_limit_raises_before_the_gpu(monkeypatch, shape, func):
    monkeypatch.setattr(_backend, "cupy_module", lambda: _PoisonCupy())
    img = _over_limit_image(*shape)
    with pytest.raises(cv2.error) as info:
        getattr(cvgpu, func)(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    e = info.value
    n = (shape[0] + 2) * (shape[1] + 2)
    assert (e.code, e.func) == (-211, func)
    assert e.err == ("cvgpu: the %d x %d image has %d pixels with its one-pixel frame, more than the %d that the "
                     "GPU kernels index with int32" % (shape[0], shape[1], n, cc._INT32_PIXELS))
    assert "(-211:Input parameters are out of range)" in str(e) and str(n) in str(e)


def test_pixel_limit_boundary():
    # The largest padded size passes, one more pixel does not (sizes as (h + 2) * (w + 2)).
    lim = cc._INT32_PIXELS
    assert lim + 1023 < 2**31      # the last 1024-pixel tile of ccl_finish / scatter_flags
    cc._check_image_size((lim - 2, -1), "findContours")              # (lim) * 1 padded pixels
    with pytest.raises(cv2.error):
        cc._check_image_size((lim + 1 - 2, -1), "findContours")
    cc._check_image_size((46339, 46338), "findContours")            # 46341 * 46340 = 2147441940
    with pytest.raises(cv2.error):
        cc._check_image_size((46339, 46339), "findContours")        # 46341^2 = 2147488281


def test_huge_image_is_not_forwarded_by_the_argument_layer():
    # _bind accepts it (no silent hand-over to cv2 any more); without a GPU the explicit fallback
    # decides, with one the limit check raises.
    arr, on_device, mode, method, ox, oy = cc._bind((_over_limit_image(46341, 46341), 3, 2), {})
    assert arr.shape == (46341, 46341) and not on_device and (mode, method) == (3, 2)


# ---------------------------------------------------------------- CPU: counts after labelling

def test_border_pixel_limit():
    lim = cc._MAX_BORDER_PIXELS
    assert lim == 2**28 - 32
    assert 8 * lim + 255 <= 2**31 - 1 < 8 * (lim + 1) + 255    # last thread index of the state grids
    cc._check_counts(lim, lim)
    with pytest.raises(cc._TooLarge) as info:
        cc._check_counts(5, lim + 1)
    assert "%d border pixels" % (lim + 1) in str(info.value)
    # Derived bounds the kernels rely on once E passes: m <= E, the Euler tour, 4 * pos, P <= 8 E.
    m = lim
    assert 2 * (m + 1) + 255 < 2**31 and 4 * m + 3 < 2**31 and 8 * lim < 2**31


class _FakeOOM(MemoryError):
    pass


class _FakePool:
    def __init__(self):
        self.freed = 0

    def free_all_blocks(self):
        self.freed += 1


class _FakeCupy:
    class cuda:
        class memory:
            OutOfMemoryError = _FakeOOM

    def __init__(self):
        self.pool = _FakePool()

    def get_default_memory_pool(self):
        return self.pool


class _FakeWorkspace:
    def __init__(self):
        self.bufs = {"f": object()}


def _fake_pipeline(monkeypatch, outcomes):
    """_gpu_contours replaced by a sequence of outcomes (exception instances or results)."""
    calls = []
    ws = _FakeWorkspace()

    def fake(cp, *args, **kwargs):
        calls.append(dict(ws.bufs))
        o = outcomes[len(calls) - 1]
        if isinstance(o, BaseException):
            raise o
        return o
    monkeypatch.setattr(cc, "_gpu_contours", fake)
    monkeypatch.setattr(cc, "_workspace", lambda cp: ws)
    return calls, ws


def test_count_limit_becomes_cv2_error(monkeypatch):
    cp = _FakeCupy()
    calls, ws = _fake_pipeline(monkeypatch, [cc._TooLarge("cvgpu: too many")])
    with pytest.raises(cv2.error) as info:
        cc._run_gpu("findContoursPacked", cp, None)
    assert (info.value.code, info.value.func, info.value.err) == (-211, "findContoursPacked", "cvgpu: too many")
    assert len(calls) == 1 and ws.bufs == {} and cp.pool.freed == 1   # the scratch is given back


def test_out_of_memory_retries_once_without_the_scratch(monkeypatch):
    cp = _FakeCupy()
    oom = _FakeOOM("Out of memory allocating 51,234,567,680 bytes (allocated so far: 9,000 bytes).")
    calls, ws = _fake_pipeline(monkeypatch, [oom, "result"])
    assert cc._run_gpu("findContours", cp, None) == "result"
    assert calls[0] and calls[1] == {} and cp.pool.freed == 1

    calls, ws = _fake_pipeline(monkeypatch, [oom, oom])
    with pytest.raises(cv2.error) as info:
        cc._run_gpu("findContours", cp, None)
    e = info.value
    assert e.code == -4 and e.err == "Failed to allocate 51234567680 bytes" and len(calls) == 2


def test_kernel_loops_that_pass_two_to_the_31(monkeypatch):
    # The pixel launches are grid-stride loops of at most 65535 * 8 blocks of 256: near the pixel
    # limit i + stride passes 2^31 - 1, so those loops count in unsigned (and stay below 2^32).
    stride = 65535 * 8 * cc._BLOCK
    assert cc._INT32_PIXELS + stride > 2**31 - 1 and cc._INT32_PIXELS + stride < 2**32
    assert cc._grid(cc._INT32_PIXELS) == (65535 * 8,)
    src = open(KERNELS).read()
    for name in ("pad_init", "ccl_union"):
        body = src[src.index('void %s(' % name):]
        body = body[:body.index("\n}\n")]
        loops = re.findall(r"for \(([^;]*);[^;]*;\s*\w+ \+= gridDim\.x \* blockDim\.x\)", body)
        assert loops and all(l.strip().startswith("unsigned ") for l in loops), (name, loops)
    # Every other kernel indexes with a one-thread-per-element 1-D grid: no grid-stride loop left
    # with a signed counter.
    assert len(re.findall(r"\+= gridDim\.x \* blockDim\.x", src)) == 2


# ---------------------------------------------------------------- GPU (opt-in: CVGPU_HUGE=1)

def _fresh(cp, label=""):
    """Start from an empty workspace (the previous huge test's scratch is tens of GB); with -s,
    print the pool size the previous test reached (nothing is freed to the driver in between)."""
    print("[huge] %s GPU pool before release: %.1f GB" % (label, cp.get_default_memory_pool().total_bytes() / 1e9))
    cc._release(cp)


def _check(compat, img, mode_name, method_name, tag="", function="findContours"):
    """cvgpu == cv2 on one case, without building per-point copies of huge contours."""
    mode, method = MODES[mode_name], METHODS[method_name]
    ref = cv2.findContours(img, mode, method)
    ours = cvgpu.findContours(img, mode, method)
    assert cvgpu.last_call_backend() == "cuda"
    exact = (type(ours[0]) is tuple and len(ours[0]) == len(ref[0]) and
             all(a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b) for a, b in zip(ours[0], ref[0]))
             and ((ours[1] is None and ref[1] is None) or
                  (ours[1] is not None and ref[1] is not None and ours[1].dtype == ref[1].dtype and
                   np.array_equal(ours[1], ref[1]))))
    compat.record(function, "huge-%dx%d%s-%s-%s" % (img.shape[0], img.shape[1], tag and "-" + tag, mode_name,
                                                  method_name), exact)
    assert exact, (img.shape, mode_name, method_name, len(ours[0]), len(ref[0]))
    return ref


@huge
def test_sparse_20000(compat):
    import cupy as cp
    _fresh(cp, "before")
    img = cc.sparse_shapes_image(20000, 20000, 300, seed=0)
    for mode_name in MODES:
        for method_name in ("NONE", "SIMPLE"):
            ref = _check(compat, img, mode_name, method_name)
            if mode_name == "TREE":
                assert len(ref[0]) > 500 and ref[1][0, :, 3].max() >= 0
    _check(compat, img, "TREE", "TC89_L1")
    # The packed device form: CuPy in, CuPy out.
    ref = cc.pack(*cv2.findContours(img, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE))
    d = cvgpu.findContoursPacked(cp.asarray(img), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    exact = all(isinstance(a, cp.ndarray) and a.dtype == r.dtype and np.array_equal(a.get(), r)
                for a, r in zip(d, ref))
    compat.record("findContoursPacked", "huge-20000x20000-CCOMP-SIMPLE-device", exact)
    assert exact


@huge
@pytest.mark.parametrize("shape", [(16385, 3), (3, 16385), (1, 40000), (40000, 1)])
def test_thin(compat, shape):
    rng = np.random.default_rng(shape[0])
    salt = (rng.random(shape) < 0.3).astype(np.uint8)
    full = np.ones(shape, np.uint8)
    for tag, img in (("salt", salt), ("full", full)):
        for mode_name in MODES:
            for method_name in ("NONE", "SIMPLE"):
                _check(compat, img, mode_name, method_name, tag)


@huge
def test_serpentine(compat):
    # One border through 2 * 10^8 border pixels, each twice: 1.6 * 10^9 walk-state slots (slot
    # indices above 2^30, ranked in 31 rounds). SIMPLE keeps the comparison cheap; NONE on a
    # 6000 x 20000 one (one contour of 1.2 * 10^8 points): cv2 takes about 9 s per 10^8 points.
    import cupy as cp
    _fresh(cp, "before")
    _check(compat, cc.worst_snake(20000, 20000), "TREE", "SIMPLE", "snake")
    _check(compat, cc.worst_snake(6000, 20000), "LIST", "NONE", "snake")


@huge
def test_too_many_border_pixels_raises_and_the_process_stays_usable(compat):
    import cupy as cp
    _fresh(cp, "before")
    # A background pixel at the centre of every 3 x 3 block: every foreground pixel is a border
    # pixel, E = 8 / 9 * 4 * 10^8 > 2^28.
    d = cp.ones((20000, 20000), cp.uint8)
    d[1::3, 1::3] = 0
    for func in ("findContours", "findContoursPacked"):
        with pytest.raises(cv2.error) as info:
            getattr(cvgpu, func)(d, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
        assert (info.value.code, info.value.func) == (-211, func)
        assert "border-walk states exceed" in info.value.err
        compat.record(func, "huge-20000x20000-3x3-holes-error", True)
    del d
    assert int(cc._workspace(cp).counter.get()[0]) == 0
    small = cc.sparse_shapes_image(500, 700, 30, seed=1)
    _check(compat, small, "TREE", "SIMPLE", "after-error")


@huge
def test_just_over_the_pixel_limit_allocates_nothing():
    import cupy as cp
    _fresh(cp, "before")
    d = cp.zeros((46341, 46341), cp.uint8)      # 46343^2 = 2147673649 padded pixels
    pool = cp.get_default_memory_pool()
    used = pool.used_bytes()
    for func in ("findContours", "findContoursPacked"):
        with pytest.raises(cv2.error) as info:
            getattr(cvgpu, func)(d, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
        assert (info.value.code, info.value.func) == (-211, func)
        assert pool.used_bytes() == used
    # Host input too (the limit is checked before the upload).
    with pytest.raises(cv2.error) as info:
        cvgpu.findContours(_over_limit_image(46341, 46341), cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
    assert info.value.code == -211


@huge
def test_just_under_the_pixel_limit(compat):
    # 46302^2 = 2143875204 padded pixels: above 2^31 - 2^27, where the grid-stride loops wrapped.
    import cupy as cp
    _fresh(cp, "before")
    img = cc.sparse_shapes_image(46300, 46300, 60, seed=2)
    _check(compat, img, "TREE", "SIMPLE")
    _check(compat, img, "EXTERNAL", "NONE")
    _fresh(cp, "46300^2")
