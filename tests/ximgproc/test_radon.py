"""cvgpu.ximgproc.RadonTransform against cv2.ximgproc.RadonTransform.

CPU part (runs everywhere opencv-contrib is installed, no GPU needed):
  * argument handling and errors: the same cv2.error code / err / func as cv2 for bad input;
  * tests/models/radon_model.py, a numpy model of OpenCV 5.0's arithmetic, bit-exact against cv2 for
    uint8 / float32 / float64, crop, norm, any angle range. The CUDA kernels mirror this model.
GPU part (``gpu`` marker): cvgpu vs cv2.ximgproc where the installed cv2 has contrib, else vs the
numpy model (recorded as reference "numpy-model-of-cv2"), bit for bit.

cv2 is always handed a copy of the image: cv2 5.0 transposes a square ``src`` in place.
"""
import math
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cvgpu
from cvgpu import _versions
from cvgpu.ximgproc import radon as cvgpu_radon
from cvgpu.ximgproc.radon import TUNING
import photo_cases
from conftest import examples
from radon_model import normalize_u8, radon_model

HAS_XIMGPROC = hasattr(cv2, "ximgproc")
needs_contrib = pytest.mark.skipif(not HAS_XIMGPROC, reason="the installed cv2 has no ximgproc (contrib)")
FUNC = "ximgproc.RadonTransform"
# The numpy model reproduces OpenCV 5.0's warpAffine; beside a 4.x cv2 (fixed-point warps) cv2
# computes every call. Beside 5.1 the model equals cv2 with IPP off (the fixture below turns it off).
needs_opencv5 = pytest.mark.skipif(cvgpu_radon.WARP == "fixed_point",
                                   reason="the model reproduces OpenCV 5's arithmetic; beside 4.x cv2 computes")
SHAPED_EMPTY = _versions.behaviour("radon.no_angles") == "shaped"


@pytest.fixture(autouse=True)
def _float_warp():
    """5.1 warps 8-bit and float32 through IPP while cv2.ipp.useIPP() (cv2 computes those, see
    test_ipp_warps_are_cv2s): the model and kernel comparisons run with IPP off, where 5.1 is 5.0."""
    if cvgpu_radon.WARP != "float_or_ipp":
        yield
        return
    saved = cv2.ipp.useIPP()
    cv2.ipp.setUseIPP(False)
    try:
        yield
    finally:
        cv2.ipp.setUseIPP(saved)


@pytest.fixture(autouse=True)
def _quiet_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cvgpu.CvgpuFallbackWarning)
        yield


def cv2_radon(img, *args, **kwargs):
    return cv2.ximgproc.RadonTransform(np.array(img, copy=True), *args, **kwargs)


def reference(img, theta=1.0, start_angle=0.0, end_angle=180.0, crop=False, norm=False):
    """(result, reference name): cv2.ximgproc when installed, else the numpy model."""
    if HAS_XIMGPROC:
        return cv2_radon(img, None, theta, start_angle, end_angle, crop, norm), "cv2-cpu"
    return radon_model(img, theta, start_angle, end_angle, crop, norm), "numpy-model-of-cv2"


def same(a, b):
    if a is None or b is None:
        return a is None and b is None
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


# ---------------------------------------------------------------- image and parameter strategies

def make_image(dtype, h, w, seed, kind):
    rng = np.random.default_rng(seed)
    if kind == 4:  # a photograph's crop (its rotation, box and interpolation from the seed)
        spec = (int(rng.integers(0, 1 << 16)), int(rng.integers(0, 8)), float(rng.uniform(0, 0.6)),
                float(rng.uniform(0, 0.6)), float(rng.uniform(0.25, 1)), float(rng.uniform(0.25, 1)), cv2.INTER_AREA)
        gray = photo_cases.gray(spec, h, w)
        return gray if dtype == np.uint8 else (gray * rng.uniform(-3, 3) / 255.0).astype(dtype)
    if dtype == np.uint8:
        if kind == 0:
            return rng.integers(0, 256, (h, w), dtype=np.uint8)
        if kind == 1:
            return (rng.random((h, w)) < 0.05).astype(np.uint8) * 255
        if kind == 2:
            return np.full((h, w), int(rng.integers(0, 256)), np.uint8)
        return rng.choice(np.array([0, 1, 254, 255], np.uint8), (h, w))
    if kind == 0:
        a = rng.standard_normal((h, w)) * 10.0 ** rng.uniform(-3, 4)
    elif kind == 1:
        a = rng.random((h, w))
    elif kind == 2:
        a = rng.integers(0, 256, (h, w)).astype(np.float64)
    else:
        a = rng.standard_normal((h, w)) * 10.0 ** rng.uniform(-6, 6, (h, w))
    return a.astype(dtype)


THETAS = [1.0, 0.5, 0.25, 2.5, 7.0, 13.0, 45.0, -1.0, -3.3, 0.7]
# The long side by tiers (sampled_from: hypothesis draws a wide integer range's low end far more often
# than uniformly; within one test's run the share drifts, 26-32 % above 256 px in runs of 200 at a
# nominal 40 %): 1-40 (20 %), 41-256 (30 %), 257-512 (50 %). cv2's transform (the reference) warps an
# n x n square per angle, n the diagonal: angles x n^2 is capped at PIXEL_ANGLES (a 512 x 512 image gets
# 19 angles; cv2 takes 5 ns of CPU a pixel-angle in 8 bits, 14 ns in float64, on this project's 2-core
# CI machine), more angles for the smaller images.
SIDE_TIERS = [(1, 40)] * 2 + [(41, 256)] * 3 + [(257, 512)] * 5
PIXEL_ANGLES = 10_000_000


@st.composite
def radon_case(draw, dtypes=(np.uint8, np.float32, np.float64), max_side=512, max_angles=200, crop=None,
               norm=None):
    dtype = draw(st.sampled_from(dtypes))
    if max_side <= SIDE_TIERS[0][1]:
        h, w = draw(st.integers(1, max_side)), draw(st.integers(1, max_side))
    else:
        lo, hi = draw(st.sampled_from(SIDE_TIERS))
        h = draw(st.integers(min(lo, max_side), min(hi, max_side)))
        w = draw(st.integers(1, h))
        if draw(st.booleans()):
            h, w = w, h
    if draw(st.booleans()):
        h = w = max(h, w)  # square images: the case where cv2 writes into src
    seed = draw(st.integers(0, 2 ** 32 - 1))
    kind = draw(st.integers(0, 4))
    if draw(st.booleans()):
        theta = draw(st.sampled_from(THETAS))
    else:
        theta = draw(st.floats(0.05, 40.0)) * draw(st.sampled_from([1, -1]))
    start = draw(st.one_of(st.sampled_from([0.0, 90.0, -45.0, 180.0]), st.floats(-400.0, 400.0)))
    count = draw(st.integers(1, max_angles))
    n2 = h * h + w * w  # (the diagonal squared: cv2's square without crop, larger than with it)
    count = max(1, min(count, PIXEL_ANGLES // n2))
    span = abs(theta) * (count - 0.49 + draw(st.floats(0.0, 0.98)))
    end = start + math.copysign(span, theta)
    kw = dict(theta=theta, start_angle=start, end_angle=end,
              crop=draw(st.booleans()) if crop is None else crop,
              norm=draw(st.integers(0, 3)) == 0 if norm is None else norm)
    return make_image(dtype, h, w, seed, kind), kw


# ---------------------------------------------------------------- CPU: errors and arguments

def cv_error_of(fn):
    try:
        fn()
    except cv2.error as e:
        return (getattr(e, "code", None), getattr(e, "err", None), getattr(e, "func", None))
    return None


U8 = np.arange(35, dtype=np.uint8).reshape(7, 5)


def _huge_image():
    """(a 12000 x 12000 uint8 image,): the arguments of the cvRound-overflow cases, made when one runs."""
    return (np.ones((12000, 12000), np.uint8),)


BAD_CALLS = [
    ("0-d", (np.zeros((), np.uint8),), {}),
    ("1-d", (np.zeros(7, np.uint8),), {}),
    ("4-d", (np.zeros((3, 4, 5, 6), np.uint8),), {}),
    ("n-d 129 channels", (np.zeros((5, 5, 129), np.uint8),), {}),
    ("3 channels", (np.zeros((7, 5, 3), np.uint8),), {}),
    ("None src", (None,), {}),
    ("list src", ([[1, 2], [3, 4]],), {}),
    ("str src", ("abc",), {}),
    ("theta 0", (U8,), dict(theta=0)),
    ("theta negative", (U8,), dict(theta=-1)),
    ("theta nan", (U8,), dict(theta=float("nan"))),
    ("empty range", (U8,), dict(start_angle=10, end_angle=10)),
    ("theta str", (U8,), dict(theta="x")),
    ("theta bool", (U8,), dict(theta=True)),
    ("crop float", (U8,), dict(crop=1.5)),
    ("unknown kwarg", (U8,), dict(bogus=1)),
    ("too many args", (U8, None, 1, 0, 180, False, False, 7), {}),
    # (5.1's cvRound saturates: INT_MAX columns. For a 12000 x 12000 image that is a 146 TB sinogram,
    # beyond a 47-bit address space, refused on any machine; the 7 x 5 image's 77 GB (tiny theta) or
    # 103 GB (infinite range), or even 18 TB, is granted where the kernel overcommits (the device
    # machine), and cv2 then fills it: the device run of 5359b55 beside 5.1 stopped on "infinite range".)
    # (The image is made when the case runs: `args` may be a function giving the arguments.)
    ("tiny theta (cvRound overflow)", _huge_image, dict(theta=1e-9)),
    ("infinite range", _huge_image, dict(start_angle=-float("inf"))),
    ("empty rows", (np.zeros((0, 5), np.uint8),), {}),
    ("empty cols", (np.zeros((5, 0), np.float32),), {}),
    ("empty crop", (np.zeros((0, 5), np.uint8),), dict(crop=True)),
    ("int8", (np.zeros((7, 5), np.int8),), {}),
    ("int8 crop", (np.zeros((7, 5), np.int8),), dict(crop=True)),
    ("uint16", (np.zeros((7, 5), np.uint16),), {}),
    ("int16 crop", (np.zeros((7, 5), np.int16),), dict(crop=True, norm=True)),
    ("int32", (np.zeros((7, 5), np.int32),), {}),
    ("float16", (np.zeros((7, 5), np.float16),), {}),
    ("bool", (np.zeros((7, 5), np.bool_),), {}),
    ("uint64", (np.zeros((7, 5), np.uint64),), {}),
    ("int8 tiny theta", (np.zeros((7, 5), np.int8),), dict(theta=1e-9)),
    ("dst bad layout", (U8, np.zeros((9, 360), np.int32)[:, ::2]), {}),
]


@needs_contrib
@pytest.mark.parametrize("name,args,kwargs", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors_match_cv2(name, args, kwargs):
    args = args() if callable(args) else args
    ref = cv_error_of(lambda: cv2.ximgproc.RadonTransform(*args, **kwargs))
    ours = cv_error_of(lambda: cvgpu.ximgproc.RadonTransform(*args, **kwargs))
    if ref is None and _versions.behaviour("radon.one_d") == "column":
        # OpenCV 4.x accepts some of these (0-d and 1-d input): cv2 computes, with the same result.
        assert ours is None
        assert same(cvgpu.ximgproc.RadonTransform(*args, **kwargs), cv2.ximgproc.RadonTransform(*args, **kwargs))
        return
    assert ref is not None, "cv2 accepted %s" % name
    assert ours == ref


NO_RESULT_CALLS = [
    ("no angles", (U8,), dict(theta=400)),
    ("no angles norm", (U8,), dict(theta=0.3, end_angle=0.1, norm=True)),
    ("infinite theta", (U8,), dict(theta=float("inf"))),
    ("uint16 no angles", (np.zeros((7, 5), np.uint16),), dict(theta=400)),
    ("empty crop no angles", (np.zeros((0, 5), np.uint8),), dict(crop=True, theta=400)),
]


@needs_contrib
@pytest.mark.parametrize("name,args,kwargs", NO_RESULT_CALLS, ids=[c[0] for c in NO_RESULT_CALLS])
def test_none_results_match_cv2(name, args, kwargs):
    """None, or from 5.1 the (n, 0) array cv2 created (binding.empty_output)."""
    ref = cv2.ximgproc.RadonTransform(*args, **kwargs)
    ours = cvgpu.ximgproc.RadonTransform(*args, **kwargs)
    if SHAPED_EMPTY:
        assert ref is not None and ref.size == 0 and same(ours, ref)
    else:
        assert ref is None and ours is None


def test_plan_sizes_and_types():
    p = cvgpu_radon._plan(cvgpu_radon._parse((U8,), {}))
    assert (p.n, p.col_num, p.out_dtype) == (9, 180, np.dtype(np.int32))
    p = cvgpu_radon._parse((U8.astype(np.float32), None, None, None, None), dict(crop=True))
    p = cvgpu_radon._plan(p)
    assert (p.n, p.col_num, p.out_dtype) == (5, 180, np.dtype(np.float64))
    # None keeps an optional argument's default, as cv2's binding does.
    a = cvgpu_radon._parse((U8,), dict(theta=None, end_angle=None, crop=None))
    assert (a["theta"], a["end_angle"], a["crop"]) == (1.0, 180.0, False)


def test_circle_mask_matches_cv2_circle():
    for n in range(0, 260):
        m = np.zeros((n, n), np.uint8)
        if n:
            cv2.circle(m, (n // 2, n // 2), n // 2, 255, cv2.FILLED)
        hw = cvgpu_radon.circle_halfwidths(n)
        x = np.arange(n)[None, :]
        mine = ((hw[:, None] >= 0) & (np.abs(x - n // 2) <= hw[:, None])).astype(np.uint8) * 255
        assert np.array_equal(m, mine), n


def test_rotation_matrices_match_cv2():
    for n in (1, 9, 64, 725):
        c = n // 2
        mats = cvgpu_radon.inverse_matrices(n, -37.5, 0.37, 50)
        for col in range(50):
            fwd = cv2.getRotationMatrix2D((c, c), -37.5 + col * 0.37, 1)
            inv = cv2.invertAffineTransform(fwd)
            # invertAffineTransform and warpAffine's inline inversion are the same formulas
            assert np.array_equal(mats[col], inv.ravel()), (n, col)


@needs_contrib
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_src_not_modified_and_dst_delivery(dtype):
    img = make_image(dtype, 9, 9, 1, 0)
    before = img.copy()
    ref = cv2_radon(img)
    out = cvgpu.ximgproc.RadonTransform(img)
    assert np.array_equal(img, before)
    assert same(out, ref)
    dst = np.zeros_like(ref)
    assert cvgpu.ximgproc.RadonTransform(img, dst) is dst and same(dst, ref)
    wrong = np.zeros((3, 3), np.int32)
    res = cvgpu.ximgproc.RadonTransform(img, wrong, norm=True)
    assert res is not wrong and not wrong.any() and res.dtype == np.uint8


@needs_contrib
@pytest.mark.parametrize("src", [5, (1.0, 2.0, 3.0), np.ones((6, 4, 1), np.uint8)], ids=["scalar", "tuple", "hw1"])
def test_scalar_and_channel_inputs(src):
    ref = cv2.ximgproc.RadonTransform(np.array(src, copy=True) if isinstance(src, np.ndarray) else src)
    assert same(cvgpu.ximgproc.RadonTransform(src), ref)


# ---------------------------------------------------------------- CPU: the model is cv2

@needs_opencv5
@needs_contrib
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_model_matches_cv2(dtype):
    @settings(max_examples=150, derandomize=True)
    @given(radon_case(dtypes=(dtype,), max_side=40))
    def check(case):
        img, kw = case
        assert same(radon_model(img, **kw), cv2_radon(img, **kw)), kw
    check()


@needs_opencv5
@needs_contrib
@settings(max_examples=8)
@given(radon_case(max_side=150, max_angles=40))
def test_model_matches_cv2_larger(case):
    img, kw = case
    assert same(radon_model(img, **kw), cv2_radon(img, **kw)), kw


@needs_opencv5
@needs_contrib
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (7, 1), (2, 2), (16, 16), (17, 15), (31, 33)])
def test_model_matches_cv2_small_shapes(dtype, shape):
    img = make_image(dtype, shape[0], shape[1], 7, 0)
    for crop in (False, True):
        for norm in (False, True):
            kw = dict(theta=2.0, start_angle=-30.0, end_angle=200.0, crop=crop, norm=norm)
            assert same(radon_model(img, **kw), cv2_radon(img, **kw)), (shape, kw)


# ---------------------------------------------------------------- GPU: cvgpu vs cv2 (or the model)

def _check(compat, variant, img, kw, device_io=False):
    ref, ref_name = reference(img, **kw)
    if device_io:
        import cupy as cp
        before = img.copy()
        d = cp.asarray(img)
        ours = cvgpu.ximgproc.RadonTransform(d, **kw)
        assert ours is None or isinstance(ours, cp.ndarray)
        assert np.array_equal(d.get(), before)
    else:
        before = img.copy()
        ours = cvgpu.ximgproc.RadonTransform(img, **kw)
        assert ours is None or isinstance(ours, np.ndarray)
        assert np.array_equal(img, before)
    # No angle (cv2 returns None; 5.1 a rows x 0 array): no pixel work, and the call says so.
    assert cvgpu.last_call_backend() == ("none" if ref is None or ref.size == 0 else "cuda")
    compat.check(FUNC, variant, ours, ref, reference=ref_name,
                 inputs=(img, "device" if device_io else "host") + tuple(sorted(kw.items())))


# Device examples: a sinogram is never empty here (every case has an angle), so 10,500 examples make
# each row's 10,000 non-trivial cases, about 40 % of them above 256 px (tests/dry_run_cases.py).
ROW = settings(max_examples=examples(10_500))


@pytest.mark.gpu
@needs_opencv5
@ROW
@given(radon_case(dtypes=(np.uint8,), crop=False, norm=False))
def test_gpu_uint8(compat, case):
    _check(compat, "uint8", *case)


@pytest.mark.gpu
@needs_opencv5
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
def test_gpu_no_angle_says_none(compat, dtype):
    """No angle in the range (cv2 returns None): cvgpu returns before any pixel work and says so
    (last_call_backend() "none", checked by _check)."""
    img = make_image(dtype, 9, 13, 5, 0)
    for kw in (dict(theta=400.0), dict(theta=0.3, end_angle=0.1, norm=True), dict(theta=7.0, crop=True, end_angle=3.0)):
        _check(compat, "uint8" if dtype == np.uint8 else np.dtype(dtype).name, img, kw)


@pytest.mark.gpu
@needs_opencv5
def test_gpu_texture_array_shared_by_streams(compat):
    """A thread's streams share the texture array of a size (cvgpu.ximgproc.radon._gather_texture): calls
    alternating between two non-blocking streams, each with its own image, must each give that
    image's transform (each use waits for the one before, on whichever stream it ran)."""
    import cupy as cp
    rng = np.random.default_rng(5)
    streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
    before = TUNING.paths()
    for i in range(12):
        img = rng.integers(0, 256, (45, 61), dtype=np.uint8)
        with streams[i % 2]:
            _check(compat, "uint8", img, dict(theta=3), device_io=bool(i % 3))
    assert TUNING.paths()["texture"] - before["texture"] == 12


@pytest.mark.gpu
@needs_opencv5
@ROW
@given(radon_case(dtypes=(np.float32,), crop=False, norm=False))
def test_gpu_float32(compat, case):
    _check(compat, "float32", *case)


@pytest.mark.gpu
@needs_opencv5
@ROW
@given(radon_case(dtypes=(np.float64,), crop=False, norm=False))
def test_gpu_float64(compat, case):
    _check(compat, "float64", *case)


@pytest.mark.gpu
@needs_opencv5
@ROW
@given(radon_case(crop=True, norm=False))
def test_gpu_crop(compat, case):
    _check(compat, "crop", *case)


@pytest.mark.gpu
@needs_opencv5
@ROW
@given(radon_case(norm=True))
def test_gpu_norm(compat, case):
    _check(compat, "norm", *case)


@pytest.mark.gpu
@needs_opencv5
@settings(max_examples=examples(5_000))  # small images on the device (no README row of its own)
@given(radon_case(max_side=24, max_angles=60))
def test_gpu_device_io(compat, case):
    _check(compat, "cupy-io", *case, device_io=True)


@pytest.mark.gpu
@needs_opencv5
@pytest.mark.parametrize("dtype", [np.uint8, np.float32, np.float64])
@pytest.mark.parametrize("shape,theta,crop", [((96, 128), 1.0, False), ((131, 97), 0.25, True),
                                               ((256, 256), 2.0, False)])
def test_gpu_fixed_larger(compat, dtype, shape, theta, crop):
    img = make_image(dtype, shape[0], shape[1], 11, 0)
    _check(compat, np.dtype(dtype).name, img, dict(theta=theta, crop=crop))


@pytest.mark.gpu
@needs_opencv5
def test_gpu_dst_and_noncontiguous(compat):
    import cupy as cp
    base = make_image(np.uint8, 40, 60, 3, 0)
    img = base[3:30, 5:50:2]  # strided view
    ref, ref_name = reference(np.ascontiguousarray(img))
    dst = np.zeros_like(ref)
    out = cvgpu.ximgproc.RadonTransform(img, dst)
    assert out is dst
    assert cvgpu.last_call_backend() == "cuda"
    compat.check(FUNC, "uint8", out, ref, reference=ref_name, inputs=(img, "host strided view, dst"))
    d = cp.asarray(base)[3:30, 5:50:2]
    compat.check(FUNC, "cupy-io", cvgpu.ximgproc.RadonTransform(d), ref, reference=ref_name,
                 inputs=(img, "device strided view"))


@st.composite
def nan_case(draw):
    """A float image with NaN or +-inf pixels (or finite values that overflow), and parameters."""
    dtype = draw(st.sampled_from([np.float32, np.float64]))
    h, w = draw(st.integers(1, 24)), draw(st.integers(1, 24))
    seed = draw(st.integers(0, 2 ** 31 - 1))
    rng = np.random.default_rng(seed)
    img = make_image(dtype, h, w, seed, draw(st.integers(0, 3)))
    specials = np.array([np.nan, np.inf, -np.inf, np.finfo(dtype).max, -np.finfo(dtype).max], dtype)
    mask = rng.random((h, w)) < draw(st.sampled_from([0.0, 0.02, 0.2, 1.0]))
    img[mask] = rng.choice(specials[:draw(st.integers(1, 5))], int(mask.sum()))
    kw = dict(theta=draw(st.sampled_from([1.0, 7.5, 30.0, 0.7])), crop=draw(st.booleans()),
              norm=draw(st.booleans()))
    return img, kw


@needs_contrib
@settings(max_examples=60)
@given(nan_case())
def test_model_norm_of_inf_and_overflow_matches_cv2(case):
    """The model's normalize (the GPU's arithmetic) on sinograms with inf or values beyond FLT_MAX:
    x86 rounds those to INT_MIN, which saturates to 0 (CUDA's own conversion would give 255)."""
    img, kw = case
    plain = cv2_radon(img, **dict(kw, norm=False))
    if plain is None or np.isnan(plain).any():
        return  # NaN: cv2 computes those calls (test_gpu_nan_sinograms_match_cv2)
    assert same(normalize_u8(plain), cv2_radon(img, **dict(kw, norm=True)))


@pytest.mark.gpu
@needs_opencv5
@needs_contrib
# Two rows share the examples (about half each in the device profile of 4ea946f: 4,901 with NaN,
# 5,115 without): 21,000 give the GPU's row, "float with inf or overflow", its 10,000.
@settings(max_examples=examples(21_000))
@given(nan_case(), st.booleans())
def test_gpu_nan_sinograms_match_cv2(compat, case, device_io):
    """A float sinogram holding NaN is computed by cv2 (its NaN bits and normalize's NaN-skipping
    minimum and maximum follow the CPU's SIMD path); every other float call stays on the GPU."""
    import cupy as cp
    img, kw = case
    ref = cv2_radon(img, **kw)
    before = img.copy()
    ours = cvgpu.ximgproc.RadonTransform(cp.asarray(img) if device_io else img, **kw)
    engine = cvgpu.last_call_backend()
    if device_io:
        assert isinstance(ours, cp.ndarray)
        ours = ours.get()
    assert np.array_equal(img, before, equal_nan=True)
    nan_sinogram = bool(np.isnan(cv2_radon(img, **dict(kw, norm=False))).any())
    assert engine == ("cv2" if nan_sinogram else "cuda")
    variant = "NaN in the float sinogram (cv2 computes)" if nan_sinogram else "float with inf or overflow"
    compat.check(FUNC, variant, ours, ref, reference="cv2-cpu", backend=engine,
                 inputs=(img, "device" if device_io else "host") + tuple(sorted(kw.items())))


# ---------------------------------------------------------------- other warps: cv2 computes

@needs_contrib
def test_fixed_point_warp_forwards_to_cv2(monkeypatch):
    monkeypatch.setattr(cvgpu_radon, "WARP", "fixed_point")
    img = make_image(np.uint8, 23, 31, 5, 0)
    before = img.copy()
    for kw in (dict(), dict(theta=0.5, crop=True), dict(norm=True, start_angle=-10.0, end_angle=40.0)):
        ours = cvgpu.ximgproc.RadonTransform(img, **kw)
        assert cvgpu.last_call_backend() == "cv2"
        assert same(ours, cv2_radon(img.copy(), **kw))
        assert np.array_equal(img, before)
    dst = np.zeros((39, 180), np.int32)  # ceil(sqrt(23^2 + 31^2)) rows
    assert cvgpu.ximgproc.RadonTransform(img, dst) is dst
    assert same(dst, cv2_radon(img.copy()))


def test_warp_follows_the_installed_release():
    assert cvgpu_radon.WARP == _versions.behaviour("radon.warp")
    assert cvgpu_radon.cv2_warps_differently(np.uint8) == (cvgpu_radon.WARP == "fixed_point" or (
        cvgpu_radon.WARP == "float_or_ipp" and cv2.ipp.useIPP()))
    assert cvgpu_radon.cv2_warps_differently(np.float64) == (cvgpu_radon.WARP == "fixed_point")


@needs_contrib
@pytest.mark.skipif(cvgpu_radon.WARP != "float_or_ipp", reason="no IPP warp in this release's RadonTransform")
def test_ipp_warps_are_cv2s():
    """5.1 with IPP on: 8-bit and float32 input is computed by cv2 (and reported), float64 is not."""
    img = make_image(np.uint8, 23, 31, 5, 0)
    cv2.ipp.setUseIPP(True)
    for dtype in (np.uint8, np.float32):
        src = img.astype(dtype)
        assert same(cvgpu.ximgproc.RadonTransform(src), cv2_radon(src))
        assert cvgpu.last_call_backend() == "cv2"


@pytest.mark.gpu
@needs_opencv5
@settings(max_examples=examples(1_500))  # small by design (both sides of a lowered cut-over); row "uint8"
@given(radon_case(dtypes=(np.uint8,), max_side=40))
def test_gpu_uint8_plain_kernel_and_cutover(compat, case):
    """The global-memory 8-bit kernel (images wider than a gather texture) and the size cut-over,
    with the texture limit lowered so that both paths meet small images."""
    img, kw = case
    plan = cvgpu_radon._plan(cvgpu_radon._parse((img,), kw))
    before = TUNING.paths()
    with TUNING.override(gather_max=20):
        _check(compat, "uint8", img, kw)
    ran = TUNING.paths() - before
    if plan is not None:  # None: no angle, no kernel
        wide = max(plan.rows, plan.cols, plan.n if kw.get("crop") else 0) > 20
        assert ran["global" if wide else "texture"] == 1 and ran["texture" if wide else "global"] == 0


@pytest.mark.gpu
@needs_opencv5
@pytest.mark.parametrize("dtype", [np.uint8, np.float32])
def test_gpu_forced_paths(compat, dtype):
    """The texture path switched off (8-bit input through the global-memory kernel) and numpy
    results downloaded pageable instead of pinned: the same results, and the forced paths ran."""
    img = make_image(dtype, 37, 52, 7, 0)
    for crop in (False, True):
        before = TUNING.paths()
        with TUNING.override(use_texture=False, pinned_max=0):
            _check(compat, np.dtype(dtype).name, img, dict(theta=2.0, crop=crop))
        ran = TUNING.paths() - before
        assert ran == {"global": 1, "pageable": 1}, ran


def _tie_prone_matrix(rng, count, dtype):
    """min, max and values whose normalized image lies within an ulp of k + 0.5."""
    lo = rng.random() * 100
    hi = lo + rng.random() * 10.0 ** int(rng.integers(-2, 3))
    scale = 255.0 * (1.0 / (hi - lo))
    shift = 0.0 - lo * scale
    a, b = float(np.float32(scale)), float(np.float32(shift))
    vals = [lo, hi]
    while len(vals) < count:
        v = (float(rng.integers(0, 255)) + 0.5 - b) / a
        v += float(rng.integers(-1, 2)) * float(np.spacing(v))
        vals.append(min(max(v, lo), hi))
    m = np.array(vals[:count], np.float64).reshape(1, -1)
    return np.rint(m * 1000).astype(np.int32) if dtype == np.int32 else m


@pytest.mark.parametrize("dtype", [np.float64, np.int32])
@pytest.mark.parametrize("count", [2, 3, 4, 9, 15, 16, 17, 40])
def test_model_normalize_matches_cv2(dtype, count):
    """normalize(NORM_MINMAX, CV_8U): float32 fma in cvt_32f's vector loop, and below 16 elements
    the scalar line (double for a CV_64F source), where the half-way ties fall differently."""
    rng = np.random.default_rng(count)
    for _ in range(150):
        m = _tie_prone_matrix(rng, count, dtype)
        assert same(normalize_u8(m), cv2.normalize(m, None, 0, 255, cv2.NORM_MINMAX, cv2.CV_8U)), m


@pytest.mark.gpu
@needs_opencv5
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.uint8])
def test_gpu_norm_scalar_line(compat, dtype):
    """Outputs of fewer than 16 elements (found by the device profile: a 1 x 1 float32 image,
    angles 0 and 45, whose second row normalizes to 127.5 - 2^-k)."""
    img = np.array([[0.00972628]], np.float32).astype(dtype) if dtype != np.uint8 else np.array([[7]], np.uint8)
    _check(compat, "norm", img, dict(theta=45.0, start_angle=0.0, end_angle=67.95, norm=True))
    rng = np.random.default_rng(3)
    for _ in range(40):
        img = make_image(dtype, int(rng.integers(1, 3)), int(rng.integers(1, 3)), int(rng.integers(0, 1000)), 0)
        _check(compat, "norm", img, dict(theta=float(rng.choice([30.0, 45.0, 60.0, 90.0])),
                                         start_angle=float(rng.integers(-90, 90)), end_angle=200.0, norm=True))


# ---------------------------------------------------------------- a cv2 without contrib

@needs_opencv5
@needs_contrib
@pytest.mark.parametrize("engine", ["auto", "cuda"])
def test_without_contrib_the_gpu_is_the_engine(monkeypatch, engine):
    """A cv2 without ximgproc (opencv-python 5.x) cannot compute RadonTransform: every engine
    setting sends the call to the GPU (auto mode too, while its start-up runs), and where there is no
    GPU either, the error says what is missing (docs/limits.md). float64: the same warp in every
    release, so neither 4.x's fixed point nor 5.1's IPP sends it to cv2."""
    src = np.arange(35, dtype=np.float64).reshape(7, 5)
    expected = cv2.ximgproc.RadonTransform(src)
    monkeypatch.delattr(cv2, "ximgproc")
    previous = cvgpu.set_engine(engine)
    try:
        if cvgpu_radon.uses_gpu():
            assert same(cvgpu.ximgproc.RadonTransform(src), expected)
            assert cvgpu.last_call_backend() == "cuda"
        else:
            with pytest.raises(cv2.error) as e:
                cvgpu.ximgproc.RadonTransform(src)
            assert e.value.code == -213 and "needs a CUDA GPU or opencv-contrib-python" in e.value.err
    finally:
        cvgpu.set_engine(previous)
