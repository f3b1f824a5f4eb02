"""Hardening (issue 10): bad and odd input, caller arrays, host-thread concurrency (CPU part, runs
everywhere); streams, devices, memory (GPU part, ``gpu``, at the end).

Every cvgpu function with a cv2 counterpart is called with hypothesis-fuzzed bad and odd input
(every numpy dtype, channel counts, 0-size / 1-pixel / 0-d / 1-d / 3-d / 4-d arrays, C, Fortran,
strided, negative-stride, transposed, read-only, misaligned and odd-pitch layouts, non-array objects,
NaN / inf / huge / negative / bool / None / string parameters, unknown keywords, too many or too
few arguments) and must give cv2's outcome: the same result (type, shape, dtype, bytes; tuples
elementwise; None where None) or the same exception (cv2.error with the same ``code`` and
``err``). The caller's arrays must come back unchanged. Without a GPU this exercises cvgpu's
argument layer and its explicit cv2 fallback; with one, the same tests compare the GPU results.

cv2 itself crashes (segfaults, aborts) on some inputs, so those are never run (neither through cv2 nor
through cvgpu, whose no-GPU fallback would forward them to cv2):
  * the multi-scale HoughLines (srn or stn nonzero) with some srn/stn values: only two fixed,
    known-safe multi-scale calls are made here (tests/test_hough_lines.py has the rest);
  * HoughLines whose accumulator size (numangle + 2) * (numrho + 2) * 4 is negative and small,
    e.g. a 1x1 image with rho=2, theta=-0.5 (-64 bytes: cv2's allocator adds its alignment to the
    wrapped size_t, allocates a few bytes and writes past them), or where both factors are
    negative (a small positive allocation with negative loop bounds). A size that wraps to
    >= 2**48 is safe (cv2 fails to allocate: -4), as is one of 0 .. 64 MiB with both factors >= 0;
    sizes in between are not run either (cv2 would really allocate and fill gigabytes);
  * RadonTransform with more than 720 angles and an output that cv2 could really allocate (slow
    rather than a crash; the same >= 2**48 rule as above for a wrapped size).
  * cv2.findContours with RETR_TREE and an offset near INT_MAX, e.g. (2**31 - 1, 1) or
    (0, 2**31 - 1) on a 13x11 image (segfault): offsets are fuzzed within +-2**30 (and 2**31, which
    the binding rejects);
  * cv2.cuda.Stream_Null() in a cv2 without CUDA (aborts: an uncaught cv::Exception).
``hough_cv2_safe`` / ``radon_cv2_safe`` decide this from the arguments before anything is called.

cvgpu's own functions (fitLineLMS, fitLineLMSBatch, refineHoughLines, cuda.createHoughLinesDetector)
have no cv2 counterpart for their results: their input validation is compared with cv2.fitLine's
where cvgpu says it mirrors it, and otherwise they must raise cv2.error or return, never crash, and
not depend on the input's memory layout. createHoughLinesDetector and the detector's setters are bound
with one overload, as OpenCV-CUDA binds them: their errors are the Python errors of cv2's one-overload
bindings, checked against cv2's own (test_one_overload_binding_matches_cv2s).

The mismatches issue 10 found are fixed; their tests stay near the end of the file, and the fuzzers
cover those inputs too. With ``CVGPU_COMPAT_LOG`` set, every fuzzed comparison is a compat-matrix row
(variant ``bad-input``).

GPU part: every family's call is issued on the caller's current CuPy stream (input written behind a
long kernel on a non-blocking stream must be seen), never waits for the whole device (a kernel
running on another stream is still running when all calls have returned), leaves device memory flat
over 10,000 mixed calls, turns an allocation beyond the GPU into cv2.error -4 and keeps working;
with two GPUs, ``cupy.cuda.Device(1)`` current computes on device 1, and an array living on another
device is computed where it lives.
"""
import gc
import math
import os
import threading
import time
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st

import cvgpu
from conftest import CompatRecorder, same, spin
from cvgpu import hough as _hough
from cvgpu.ximgproc import radon as _radon

HAS_GPU = cvgpu.backend() == "cuda"
HAS_XIMGPROC = hasattr(cv2, "ximgproc")
HAS_EDGEVAL = "use_edgeval" in (cv2.HoughLines.__doc__ or "")
needs_contrib = pytest.mark.skipif(not HAS_XIMGPROC, reason="the installed cv2 has no ximgproc (contrib)")
NAN, INF = float("nan"), float("inf")
_COMPAT = CompatRecorder(os.environ.get("CVGPU_COMPAT_LOG"))


@pytest.fixture(autouse=True)
def _quiet_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cvgpu.CvgpuFallbackWarning)
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy casts of NaN / overflow in builders
        yield


# ================================================================ outcome and normalisation

def normalize(r):
    """A comparable form of a result: type, shape, dtype and bytes of arrays, elementwise for
    tuples and lists, exact bits of floats."""
    if r is None:
        return None
    if isinstance(r, np.ndarray):
        if r.dtype.hasobject:
            return ("ndarray-object", r.shape, tuple(normalize(x) for x in r.ravel().tolist()))
        return ("ndarray", r.shape, r.dtype.str, r.tobytes())
    if isinstance(r, (tuple, list)):
        return (type(r).__name__, tuple(normalize(x) for x in r))
    if isinstance(r, float):
        return ("float", np.float64(r).tobytes())
    if isinstance(r, (bool, int, str, bytes)):
        return (type(r).__name__, r)
    return (type(r).__name__,)  # an object (GpuMat, Stream, ...): its class name


def outcome(fn):
    """("ok", normalized result) or ("error", exception type, code, err)."""
    try:
        return ("ok", normalize(fn()))
    except cv2.error as e:
        return ("error", "cv2.error", e.code, e.err)
    except SystemError as e:
        # cv2's binding of a constructor that raised (e.g. cuda_GpuMat(array) without CUDA) wraps
        # the cv2.error in a SystemError "returned a result with an exception set"; cvgpu raises
        # the cv2.error itself. Compared by that cv2.error.
        cause = e.__cause__ or e.__context__
        if isinstance(cause, cv2.error):
            return ("error", "cv2.error", cause.code, cause.err)
        return ("error", "SystemError", None, None)
    except Exception as e:  # noqa: BLE001 - any other exception type must match cv2's
        return ("error", type(e).__name__, None, None)


# The fuzz tests run at least 800 examples each (more under the ``device`` profile): ~20 s in all on 2 cores.
# 800 examples per fuzzer in CI, 3,000 in the device profile (where the GPU path runs too).
FUZZ = settings(max_examples=max(min(settings.default.max_examples, 3000), 800))


def record_event(ref):
    event("cv2 result" if ref[0] == "ok" else "cv2 %s %s" % (ref[1], ref[2]))


def assert_same(ours, ref, what="", function=None):
    """Equal outcomes; with ``function``, also a compat-matrix row (variant ``bad-input``)."""
    if function is not None:
        _COMPAT.record(function, "bad-input", ours == ref, backend=cvgpu.backend())
    assert ours == ref, "%s\nours=%s\nref =%s" % (what, _short(ours), _short(ref))


def _short(o):
    s = repr(o)
    return s if len(s) < 1500 else s[:1500] + "..."


# ================================================================ input builders

DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
          np.float16, np.float32, np.float64, np.longdouble, np.complex64, np.complex128, np.clongdouble,
          object, "U3", "S3", "datetime64[s]", "timedelta64[ms]", "V2"]
LAYOUTS = ["c", "fortran", "strided", "negative", "transposed", "readonly", "misaligned", "odd_pitch"]
SHAPES = [(), (0,), (1,), (7,), (0, 0), (0, 5), (5, 0), (1, 1), (1, 9), (9, 1), (2, 2), (8, 6), (13, 11),
          (8, 6, 1), (8, 6, 2), (8, 6, 3), (8, 6, 4), (4, 3, 129), (1, 8, 6, 1), (2, 3, 4, 2), (1, 1, 1),
          (0, 4, 1)]


def _values(shape, dtype, seed, kind):
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape, dtype=np.int64))
    if dt.kind == "V":
        return np.zeros(shape, dt)
    if kind == 0:      # sparse binary edges
        v = (rng.random(n) < 0.3).astype(np.int64) * 255
    elif kind == 1:    # random bytes
        v = rng.integers(0, 256, n)
    elif kind == 2:    # all zero
        v = np.zeros(n, np.int64)
    elif kind == 3:    # all set
        v = np.full(n, 255, np.int64)
    else:              # extremes of the type
        if dt.kind in "fc":
            special = np.array([NAN, INF, -INF, -0.0, 1e30, 3.5, 255.0, 1.0], np.float64)
            return np.resize(special, n).reshape(shape).astype(dt)
        if dt.kind in "iu":
            info = np.iinfo(dt)
            return np.resize(np.array([info.min, info.max, 0, 1], dt), n).reshape(shape)
        v = rng.integers(0, 2, n)
    return v.reshape(shape).astype(dt)


def build(spec):
    """A fresh array for ``spec`` = (dtype, shape, layout, seed, kind): the same values each time,
    in the requested memory layout (each call a new buffer: cv2 may write into its input)."""
    dtype, shape, layout, seed, kind = spec
    base = _values(shape, dtype, seed, kind)
    dt = base.dtype
    if layout == "fortran":
        arr = np.asfortranarray(base)
    elif layout == "strided" and base.ndim:
        big = np.zeros(tuple(2 * s + 1 for s in shape), dt)
        sl = tuple(slice(1, 1 + 2 * s, 2) for s in shape)
        big[sl] = base
        arr = big[sl]
    elif layout == "negative" and base.ndim:
        rev = tuple(slice(None, None, -1) for _ in shape)
        arr = np.ascontiguousarray(base[rev])[rev]
    elif layout == "transposed" and base.ndim >= 2:
        arr = np.ascontiguousarray(base.T).T
    elif layout == "readonly":
        arr = base.copy()
        arr.setflags(write=False)
    elif layout == "odd_pitch" and base.ndim >= 2 and not dt.hasobject:
        # Unit element stride, rows 3 elements longer than their content, the whole at a 1-byte offset.
        padded = shape[:-1] + (shape[-1] + 3,)
        raw = np.zeros(int(np.prod(padded)) * dt.itemsize + 1, np.uint8)
        arr = raw[1:].view(dt).reshape(padded)[..., :shape[-1]]
        arr[...] = base
    elif layout == "misaligned" and not dt.hasobject:
        raw = np.zeros(base.nbytes + 1, np.uint8)
        arr = raw[1:].view(dt).reshape(shape)
        arr[...] = base
    else:
        arr = base.copy()
    return arr


def array_specs(dtypes=DTYPES, shapes=SHAPES, kinds=(0, 1, 2, 3, 4)):
    return st.tuples(st.sampled_from(dtypes), st.sampled_from(shapes), st.sampled_from(LAYOUTS),
                     st.integers(0, 3), st.sampled_from(kinds))


class _Opaque:
    def __repr__(self):  # a fixed test id, the same in every pytest-xdist worker
        return "<opaque object>"


OPAQUE = _Opaque()
NON_ARRAYS = [None, 0, 5, 3.5, NAN, True, np.float32(2), np.uint8(3), (1, 2, 3), (1.0,), (), [[0, 255], [255, 0]],
              [], "abc", b"abc", 1 + 2j, OPAQUE, {}, np.float64(2), np.int64(7), np.bool_(True), 2**70, (2**70, 1),
              (1, "a"), np.array(3.0)]


VALID_SHAPES = [(1, 1), (1, 9), (9, 1), (2, 2), (8, 6), (13, 11), (8, 6, 1)]


def inputs(dtypes=DTYPES, shapes=SHAPES, kinds=(0, 1, 2, 3, 4), valid_dtypes=None):
    """("array", spec) or ("value", index of a non-array object). With ``valid_dtypes``, 3 in 5 are
    arrays the function accepts (in any layout), so that the other arguments' checks are reached."""
    anything = st.one_of(st.tuples(st.just("array"), array_specs(dtypes, shapes, kinds)),
                         st.tuples(st.just("value"), st.sampled_from(range(len(NON_ARRAYS)))))
    if valid_dtypes is None:
        return anything
    valid = st.tuples(st.just("array"), array_specs(valid_dtypes, VALID_SHAPES, (0, 1, 3)))
    return st.one_of(valid, valid, valid, anything, anything)


def pick(values, n_valid):
    """An index into ``values`` whose first ``n_valid`` entries are valid: 3 in 4 draws valid, so
    that most examples have one or two bad arguments rather than all bad."""
    return st.one_of(*[st.sampled_from(range(n_valid))] * 3, st.sampled_from(range(len(values))))


def make(inp):
    kind, spec = inp
    if kind == "array":
        return build(spec)
    v = NON_ARRAYS[spec]
    return [list(r) for r in v] if isinstance(v, list) else v  # lists fresh per call


def assert_unchanged(value, inp, what):
    """The caller's input after a cvgpu call equals a fresh copy of it (values, shape, dtype, flags)."""
    fresh = make(inp)
    if isinstance(fresh, np.ndarray):
        assert value.shape == fresh.shape and value.dtype == fresh.dtype, what
        if fresh.dtype.hasobject:
            assert value.tolist() == fresh.tolist(), what
        elif fresh.dtype in (np.dtype(np.longdouble), np.dtype(np.clongdouble)):
            # x87 extended values leave padding bytes undefined: compare values.
            assert np.array_equal(value, fresh, equal_nan=True), what
        else:
            assert value.tobytes() == fresh.tobytes(), what  # bits (NaN == NaN)
        assert value.flags.writeable == fresh.flags.writeable, what
    elif isinstance(fresh, list):
        assert value == fresh, what


def call_forms(fn, params, positional, kwargs, form):
    """Call ``fn`` with the leading ``positional`` values of ``params`` in one of several forms."""
    if form == "positional":
        return lambda: fn(*positional, **kwargs)
    if form == "keywords":
        return lambda: fn(**dict(zip(params, positional)), **kwargs)
    if form == "mixed":
        k = max(1, len(positional) // 2)
        return lambda: fn(*positional[:k], **dict(zip(params[k:], positional[k:])), **kwargs)
    if form == "too_many":
        return lambda: fn(*(list(positional) + [None] * (len(params) - len(positional)) + [0, 1]), **kwargs)
    if form == "too_few":
        return lambda: fn(*positional[:-1], **kwargs)
    raise AssertionError(form)


FORMS = st.sampled_from(["positional"] * 6 + ["keywords", "mixed", "too_many", "too_few"])


# ================================================================ HoughLines / HoughLinesWithAccumulator

HOUGH_PARAMS = ["image", "rho", "theta", "threshold", "lines", "srn", "stn", "min_theta", "max_theta"] + (
    ["use_edgeval"] if HAS_EDGEVAL else [])
RHOS = [1, 1.0, 0.5, 2, 3.7, np.float32(1.5), np.int64(2), 0, -1, -0.5, NAN, INF, -INF, 1e-12, 1e-8, 3e-8, 1e300,
        5e-324, None, True, "1", np.array([1.0]), 1 + 0j, np.complex128(2), np.complex64(1), np.float16(0.5),
        np.longdouble(1), np.array(1.0), 2**1100, np.uint64(3)]
THETAS = [math.pi / 180, 0.1, 0.5, 1.0, 3.0, 4.0, 10.0, 0, -0.1, -4.0, NAN, INF, 1e-300, None, True,
          np.float64(0.2)]
THRESHOLDS = [0, 1, 3, 10, -5, 2**31 - 1, 2**31, -2**31, -2**31 - 1, 2**63 - 1, -2**63, 5.5, True, None, "5",
              np.int32(3), np.uint8(2), np.int64(2**40), 2**63, -2**63 - 1, 2**70, np.uint64(2**64 - 1),
              np.timedelta64(1, "s"), np.bool_(True)]
HOUGH_EXTRA = [{}, {}, {}, {"srn": 0}, {"srn": None, "stn": None}, {"srn": 0.0, "stn": np.float64(0)},
               {"min_theta": 0.5}, {"min_theta": 1.0, "max_theta": 0.5}, {"max_theta": 1.0},
               {"min_theta": NAN}, {"max_theta": INF}, {"max_theta": NAN}, {"min_theta": -1.0, "max_theta": 2.0},
               {"min_theta": None, "max_theta": None}, {"use_edgeval": True}, {"use_edgeval": 1.0},
               {"use_edgeval": None}, {"lines": None}, {"foo": 1}, {"srn": "x"},
               {"stn": True}, {"min_theta": "0"}, {"max_theta": np.array([1.0])}, {"lines": "x"}, {"lines": 2**70},
               {"lines": (1, "a")}, {"lines": 5}, {"lines": np.zeros((2, 2), np.int64)}, {"lines": [1]}]


def _to_size_t(v):
    return v % (1 << 64)


def _beyond_c_long(args, kwargs):
    def big(v):
        return isinstance(v, int) and not -2**63 <= v < 2**63
    return any(big(v) or (isinstance(v, tuple) and any(big(x) for x in v)) for v in list(args) + list(kwargs.values()))


def hough_cv2_safe(fn_name, args, kwargs):
    """Whether cv2 can be called with these arguments without crashing or allocating gigabytes
    (see the module docstring). Reads the arguments as cvgpu's argument layer does."""
    try:
        a = _hough._prepare(fn_name, args, kwargs)
    except cv2.error:
        return True  # rejected by the binding before any computation
    if a["srn"] != 0 or a["stn"] != 0:
        return False  # multi-scale: only the fixed calls of test_hough_multiscale_fixed
    mat = a["image"]
    if not mat.is_type(np.uint8, 1) or not a["max_theta"] >= a["min_theta"]:
        return True
    na, nr = _hough.accumulator_size(mat.rows, mat.cols, np.float32(a["rho"]), np.float32(a["theta"]),
                                     a["min_theta"], a["max_theta"])
    fa, fr = na + 2, nr + 2
    if fa >= 0 and fr >= 0:
        nbytes = fa * fr * 4
        return nbytes <= (64 << 20) or (1 << 48) <= nbytes < (1 << 64) - (1 << 20)
    if fa < 0 and fr < 0:
        return False
    return (1 << 48) <= _to_size_t(fa * fr * 4) <= (1 << 64) - (1 << 20)


@FUZZ
@given(fn=st.sampled_from(["HoughLines", "HoughLinesWithAccumulator"]), inp=inputs(valid_dtypes=[np.uint8]),
       rho=pick(RHOS, 7), theta=pick(THETAS, 7), thr=pick(THRESHOLDS, 6), extra=pick(HOUGH_EXTRA, 6), form=FORMS)
def test_hough_fuzz_matches_cv2(fn, inp, rho, theta, thr, extra, form):
    pos = [RHOS[rho], THETAS[theta], THRESHOLDS[thr]]
    kwargs = dict(HOUGH_EXTRA[extra])
    img_ref, img_ours = make(inp), make(inp)
    ref_call = call_forms(getattr(cv2, fn), HOUGH_PARAMS, [img_ref] + pos, kwargs, form)
    ours_call = call_forms(getattr(cvgpu, fn), HOUGH_PARAMS, [img_ours] + pos, kwargs, form)
    probe = {}
    call_forms(lambda *a, **k: probe.update(a=a, k=k), HOUGH_PARAMS, [make(inp)] + pos, kwargs, form)()
    assume(hough_cv2_safe(fn, probe["a"], probe["k"]))
    # An int beyond a C long in an array argument leaves a Python error pending in cv2's binding; a
    # numpy complex double after it then warns (ComplexWarning) with that error set, and cv2's
    # message depends on the warnings filters in force. Not compared.
    assume(not (_beyond_c_long(probe["a"], probe["k"]) and any(
        isinstance(v, np.complexfloating) for v in list(probe["a"]) + list(probe["k"].values()))))
    ref = outcome(ref_call)
    ours = outcome(ours_call)
    record_event(ref)
    assert_same(ours, ref, "%s %r %r form=%s" % (fn, inp, (pos, kwargs), form), function=fn)
    assert_unchanged(img_ours, inp, "cvgpu.%s modified its input" % fn)


# The accumulator size (numangle + 2) * (numrho + 2) * 4 is observable on the CPU: when it wraps
# (a negative factor) cv2 fails with -4 "Failed to allocate N bytes", N the size_t it asked for, and
# cvgpu raises that error itself from cvgpu.hough.accumulator_size (the GPU path's sizes). With one
# factor fixed, N gives the other exactly. Only wrapped sizes >= 2**20 below 2**64 are run (see the
# module docstring), decided here in double from the arguments, not from cvgpu's arithmetic.

def _wrapped_size_outcomes(img, rho, theta, min_theta, max_theta):
    ours = outcome(lambda: cvgpu.HoughLinesWithAccumulator(img, rho, theta, 0, None, 0, 0, min_theta, max_theta))
    ref = outcome(lambda: cv2.HoughLinesWithAccumulator(img, rho, theta, 0, None, 0, 0, min_theta, max_theta))
    assert ref[:3] == ("error", "cv2.error", -4), ref
    return ours, ref


@FUZZ
@given(cols=st.one_of(st.integers(0, 2**30 - 1), st.integers(0, 5000), st.integers(0, 64)),
       rho=st.one_of(st.floats(1e-9, 1.0), st.floats(1e-9, 1e-3), st.floats(0.1, 100.0),
                     st.sampled_from([0.5, 1.0, 1.5, 0.7, 0.3, 3.0])).map(np.float32),
       theta=st.sampled_from([-0.1, -0.5, -1.0, -1e-3, -1e-6]))
def test_hough_numrho_matches_cv2(cols, rho, theta):
    """numrho = cvRound(float(2 (w + h) + 1) / rho) in float32 (float32 rounding of both the int and
    the quotient), for every quotient from 0 to 2**31; numangle + 2 < 0 makes the size wrap.
    (2 (w + h) + 1 stays below 2**31: beyond, numrho turns negative too and cv2 would try to
    allocate a positive size.)"""
    q = (2 * cols + 1) / float(rho)
    # |numangle + 2| (numrho + 2) * 4 >= 2**21 (twice the margin of the rule), numrho < 2**31.
    assume((math.pi / -theta - 3) * (q + 1) * 4 >= 2**21 and q <= 2.1e9)
    img = np.zeros((0, cols), np.uint8)
    ours, ref = _wrapped_size_outcomes(img, float(rho), theta, 0.0, math.pi)
    assert_same(ours, ref, "cols=%d rho=%r theta=%r" % (cols, float(rho), theta))


_SPANS = [0.0, 1.0, math.pi, 1e5, 2147483647.5, 2147483648.0, 2147483648.5, 2147483649.5, 3e9, 1e300, INF]
_NUMANGLE_THETAS = [-1.0, -1e-5, -1e-30, -5e-45, 0.0, -0.0, NAN, 1.0, 1e-3, -INF, INF]


@FUZZ
@given(span=st.one_of(st.sampled_from(_SPANS), st.floats(0, 1e12), st.floats(2147483000.0, 2147484000.0)),
       theta=st.one_of(st.sampled_from(_NUMANGLE_THETAS), st.floats(width=32), st.floats(-1e-3, 0).map(np.float32)),
       min_theta=st.sampled_from([0.0, -1.0, 0.5, -1e300]))
def test_hough_numangle_matches_cv2(span, theta, min_theta):
    """numangle = cvFloor((max_theta - min_theta) / theta) + 1 (then the angle at pi dropped): cvFloor of
    NaN / +-inf / quotients outside int is INT_MIN, the + 1 wraps. A 0x0 image: numrho = 1."""
    max_theta = min_theta + span
    assume(max_theta >= min_theta)
    with np.errstate(all="ignore"):
        q = float(np.float64(max_theta - min_theta) / np.float64(np.float32(theta)))
    # numangle + 2 <= -87382 (the size wraps at least 2**20 below 2**64): q <= -87400, NaN, or
    # beyond int on either side (cvFloor's INT_MIN; INT_MAX + 1 wraps to INT_MIN too).
    assume(math.isnan(q) or q <= -87400 or q >= 2147483647)
    img = np.zeros((0, 0), np.uint8)
    ours, ref = _wrapped_size_outcomes(img, 1.0, float(np.float32(theta)), min_theta, max_theta)
    assert_same(ours, ref, "span=%r theta=%r min_theta=%r" % (span, float(np.float32(theta)), min_theta))


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
@pytest.mark.parametrize("kwargs", [dict(srn=2, stn=2), dict(srn=0.5)])
def test_hough_multiscale_fixed(fn, kwargs):
    # Multi-scale calls that cv2 survives (tests/test_hough_lines.py); other srn/stn values can
    # segfault cv2 itself and are never run.
    img = np.zeros((20, 30), np.uint8)
    img[7, :] = 255
    img[:, 11] = 3
    ours_img = build((np.uint8, (20, 30), "negative", 0, 0))
    ref_img = build((np.uint8, (20, 30), "negative", 0, 0))
    assert_same(outcome(lambda: getattr(cvgpu, fn)(img.copy(), 1, np.pi / 180, 5, **kwargs)),
                outcome(lambda: getattr(cv2, fn)(img.copy(), 1, np.pi / 180, 5, **kwargs)))
    assert_same(outcome(lambda: getattr(cvgpu, fn)(ours_img, 1, np.pi / 180, 5, **kwargs)),
                outcome(lambda: getattr(cv2, fn)(ref_img, 1, np.pi / 180, 5, **kwargs)))


@FUZZ
@given(fn=st.sampled_from(["HoughLines", "HoughLinesWithAccumulator"]),
       spec=array_specs(dtypes=[np.uint8], shapes=[(1, 1), (1, 9), (9, 1), (8, 6), (13, 11), (8, 6, 1)],
                        kinds=(0, 1, 3)),
       rho=st.sampled_from([0.5, 1, 1.5, 2, 3]), theta=st.sampled_from([0.01, 0.05, math.pi / 180, 0.3]),
       thr=st.integers(-2, 6), lines_kind=st.sampled_from(["none", "match", "column", "row", "wrong", "readonly",
                                                            "int64", "number", "str"]))
def test_hough_valid_layouts_and_lines_argument(fn, spec, rho, theta, thr, lines_kind):
    """Valid 8-bit images in every layout, with a ``lines`` output argument as cv2 fills it (or not:
    it writes into an array whose Mat has the result's size and type, e.g. (N, 1, 3) float32 but not
    (N, 3) float32 for HoughLinesWithAccumulator, and returns that array)."""
    ref = getattr(cv2, fn)(build(spec), rho, theta, thr)
    n, per_line = (1, 2) if ref is None else (ref.shape[0], ref.shape[-1])

    def lines_arg():
        if lines_kind == "none":
            return None
        if lines_kind == "match":
            return np.zeros((1, 1, per_line) if ref is None else ref.shape, np.float32)
        if lines_kind == "column":
            return np.zeros((n, 1, per_line), np.float32)
        if lines_kind == "row":
            return np.zeros((1, n, per_line), np.float32)
        if lines_kind == "readonly":
            arr = np.zeros((n, 1, per_line), np.float32)
            arr.setflags(write=False)
            return arr
        if lines_kind == "int64":
            return np.zeros((n, 1, per_line), np.int64)
        if lines_kind == "number":
            return 5
        if lines_kind == "str":
            return "x"
        return np.zeros((1, 1, 7), np.float32)

    r_lines, o_lines = lines_arg(), lines_arg()
    img = build(spec)
    ours = [None]
    theirs = [None]
    assert_same(outcome(lambda: ours.__setitem__(0, getattr(cvgpu, fn)(img, rho, theta, thr, o_lines)) or ours[0]),
                outcome(lambda: theirs.__setitem__(0, getattr(cv2, fn)(build(spec), rho, theta, thr, r_lines))
                        or theirs[0]))
    assert_same(normalize(o_lines), normalize(r_lines), "lines argument filled differently")
    assert (ours[0] is o_lines) == (theirs[0] is r_lines), "lines argument returned differently"
    assert_unchanged(img, ("array", spec), "input modified")


# ================================================================ findContours / findContoursPacked

CONTOUR_PARAMS = ["image", "mode", "method", "contours", "hierarchy", "offset"]
MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE, cv2.RETR_FLOODFILL, 5, -1,
         np.int64(3), np.uint8(1), None, 1.0, True, "1", 2**31, 2**70]
METHODS = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS,
           0, 5, -1, np.int32(2), None, 2.0, False, "2"]
# (An offset near INT_MAX, e.g. (2**31 - 1, 1) or (0, 2**31 - 1), segfaults cv2.findContours in RETR_TREE:
# never run.)
OFFSETS = [None, (0, 0), (3, -2), [1, 2], (2**30, -2**30), (-2**30, 5), (2**31, 0), (1,), (1, 2, 3), (1.5, 2),
           (np.int64(4), np.int32(-1)), "x", 5, np.array([1, 2]), (True, False), (None, None)]
CONTOUR_EXTRA = [{}, {}, {}, {"contours": None}, {"hierarchy": None}, {"foo": 1}, {"contours": [np.zeros((1, 1, 2),
                 np.int32)]}, {"hierarchy": np.zeros((1, 1, 4), np.int32)}]
CONTOUR_DTYPES = DTYPES + [np.uint8] * 6 + [np.int32] * 3


def cv2_undefined(ours):
    """cvgpu refused a label image on which cv2 reads its contour tree at index -1 (undefined
    behaviour: garbage or a crash; see cvgpu.contours._undefined_error). cv2 is not called there:
    the case is counted as a hypothesis event, not compared."""
    if ours[0] == "error" and ours[1] == "cv2.error" and "at index -1 (undefined" in (ours[3] or ""):
        event("label image undefined in cv2: cvgpu raises")
        return True
    return False


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int32]), mode=pick(MODES, 5),
       method=pick(METHODS, 4), offset=pick(OFFSETS, 6), extra=pick(CONTOUR_EXTRA, 3), form=FORMS,
       pass_offset=st.booleans())
def test_find_contours_fuzz_matches_cv2(inp, mode, method, offset, extra, form, pass_offset):
    kwargs = dict(CONTOUR_EXTRA[extra])
    if pass_offset:
        kwargs["offset"] = OFFSETS[offset]
    pos = [MODES[mode], METHODS[method]]
    img_ref, img_ours = make(inp), make(inp)
    if undefined_empty_8bit(img_ref):
        return
    ours = outcome(call_forms(cvgpu.findContours, CONTOUR_PARAMS, [img_ours] + pos, kwargs, form))
    if cv2_undefined(ours):
        return
    ref = outcome(call_forms(cv2.findContours, CONTOUR_PARAMS, [img_ref] + pos, kwargs, form))
    record_event(ref)
    assert_same(ours, ref, "findContours %r %r %r form=%s" % (inp, pos, kwargs, form), function="findContours")
    assert_unchanged(img_ours, inp, "cvgpu.findContours modified its input")


def undefined_empty_8bit(img):
    """cv2 reads memory outside an empty 8-bit image (its answer changes from call to call, e.g. a
    0 x 5 int8 image gave different points in two calls); cvgpu hands such calls to cv2 unchanged:
    nothing to compare."""
    if isinstance(img, np.ndarray) and img.size == 0 and img.dtype in (np.uint8, np.int8):
        event("empty 8-bit image: undefined in cv2")
        return True
    return False


def _packed_reference(image, mode, method, offset):
    contours, hierarchy = cv2.findContours(image, mode, method, None, None, offset)
    m = len(contours)
    offsets = np.zeros(m + 1, np.int64)
    if m == 0:
        return np.zeros((0, 2), np.int32), offsets, np.zeros((0, 4), np.int32)
    offsets[1:] = np.cumsum([len(c) for c in contours])
    points = np.concatenate([np.asarray(c, np.int32).reshape(-1, 2) for c in contours])
    return points, offsets, np.asarray(hierarchy, np.int32).reshape(m, 4)


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int32]), mode=pick(MODES, 5),
       method=pick(METHODS, 4), offset=pick(OFFSETS, 6))
def test_find_contours_packed_fuzz_matches_cv2(inp, mode, method, offset):
    args = (MODES[mode], METHODS[method], OFFSETS[offset])
    img = make(inp)
    if undefined_empty_8bit(img):
        return
    ours = outcome(lambda: cvgpu.findContoursPacked(img, *args))
    if cv2_undefined(ours):
        return
    ref = outcome(lambda: _packed_reference(make(inp), *args))
    assert_same(ours, ref, "findContoursPacked %r %r" % (inp, args), function="findContoursPacked")
    assert_unchanged(img, inp, "cvgpu.findContoursPacked modified its input")


LINK_RUNS_PARAMS = ["image", "contours", "hierarchy"]
LINK_RUNS_EXTRA = [{}, {}, {}, {"contours": None}, {"hierarchy": None}, {"foo": 1}, {"image": None}]


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int8]), extra=pick(LINK_RUNS_EXTRA, 3),
       form=FORMS)
def test_find_contours_link_runs_fuzz_matches_cv2(inp, extra, form):
    kwargs = dict(LINK_RUNS_EXTRA[extra])
    img_ref, img_ours = make(inp), make(inp)
    if undefined_empty_8bit(img_ref):
        return
    ref = outcome(call_forms(cv2.findContoursLinkRuns, LINK_RUNS_PARAMS, [img_ref], kwargs, form))
    ours = outcome(call_forms(cvgpu.findContoursLinkRuns, LINK_RUNS_PARAMS, [img_ours], kwargs, form))
    record_event(ref)
    assert_same(ours, ref, "findContoursLinkRuns %r %r form=%s" % (inp, kwargs, form),
                function="findContoursLinkRuns")
    assert_unchanged(img_ours, inp, "cvgpu.findContoursLinkRuns modified its input")


@pytest.mark.parametrize("call", [
    lambda f: f(),
    lambda f: f(np.zeros((3, 3), np.uint8)),
    lambda f: f(np.zeros((3, 3), np.uint8), 1),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, None, None, (0, 0), 7),
    lambda f: f(image=np.zeros((3, 3), np.uint8), mode=1, method=2, offset=(1, 1)),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, mode=1),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, Offset=(1, 1)),
], ids=["none", "image only", "no method", "too many", "keywords", "name and position", "wrong keyword case"])
def test_find_contours_binding_matches_cv2(call):
    assert_same(outcome(lambda: call(cvgpu.findContours)), outcome(lambda: call(cv2.findContours)),
                function="findContours")


# ================================================================ ximgproc.RadonTransform

RADON_PARAMS = ["src", "dst", "theta", "start_angle", "end_angle", "crop", "norm"]
R_THETAS = [1, 1.0, 0.5, 2.5, 45, 90, 180, 360, -1, -45, 0, NAN, INF, -INF, 1e-300, 1e-3, None, True, "1",
            np.float32(15)]
R_STARTS = ["absent", 0, 10, -30, 90, 179.5, NAN, INF, None, np.int64(5), 1e300]
R_ENDS = ["absent", 180, 90, 0, -90, 45.25, 1e6, INF, NAN, None, -1e300]
R_BOOLS = ["absent", False, True, None, 1, 0, 2.5, "x", np.bool_(True), np.int64(2)]
R_DSTS = ["absent", None, "int32 3x3", "strided", 5, "x", "readonly", "int64", (1.0, 2.0)]
RADON_DTYPES = DTYPES + [np.uint8] * 6 + [np.float32] * 3 + [np.float64] * 3
RADON_SHAPES = SHAPES + [(5, 5), (6, 4), (3, 7)] * 2


def _radon_dst(kind):
    if kind == "int32 3x3":
        return np.zeros((3, 3), np.int32)
    if kind == "strided":
        return np.zeros((4, 8), np.float64)[:, ::2]
    if kind == "readonly":
        dst = np.zeros((3, 3), np.float64)
        dst.setflags(write=False)
        return dst
    if kind == "int64":
        return np.zeros((3, 3), np.int64)
    return kind


def radon_cv2_safe(args, kwargs):
    try:
        a = _radon._parse(args, kwargs)
    except cv2.error:
        return True
    try:
        _radon._plan(a)
    except cv2.error as e:
        if e.err in ("src.dims() == 2", "src.channels() == 1", "(end_angle - start_angle) * theta > 0",
                     "!fixedSize()"):
            return True  # cv2's assertions before it allocates the output (the others come after)
    theta, start, end = a["theta"], a["start_angle"], a["end_angle"]
    with np.errstate(all="ignore"):
        col_num = cvgpu._cvmath.cv_round((end - start) / theta) if theta != 0 else 0
    if 0 <= col_num <= 720:
        return True
    mat = a["src"]
    rows, cols = mat.rows, mat.cols
    n = 0 if rows * cols == 0 else _radon.geometry(rows, cols, a["crop"])[0]
    elem = 8 if np.dtype(mat.dtype) in (np.dtype(np.float32), np.dtype(np.float64)) else 4
    return (1 << 48) <= _to_size_t(n * col_num * elem) <= (1 << 64) - (1 << 20)


@needs_contrib
@FUZZ
@given(inp=inputs(dtypes=RADON_DTYPES, shapes=RADON_SHAPES, valid_dtypes=[np.uint8, np.float32, np.float64]),
       theta=pick(R_THETAS, 8), start=pick(R_STARTS, 6), end=pick(R_ENDS, 6), crop=pick(R_BOOLS, 3),
       norm=pick(R_BOOLS, 3), dst=pick(R_DSTS, 2), form=st.sampled_from(["keywords"] * 6 + ["positional", "too_many",
                                                                                        "foo"]))
def test_radon_fuzz_matches_cv2(inp, theta, start, end, crop, norm, dst, form):
    named = {"theta": R_THETAS[theta], "start_angle": R_STARTS[start], "end_angle": R_ENDS[end],
             "crop": R_BOOLS[crop], "norm": R_BOOLS[norm], "dst": R_DSTS[dst]}
    named = {k: v for k, v in named.items() if not (isinstance(v, str) and v == "absent")}

    def args_for(src):
        kw = {k: _radon_dst(v) if k == "dst" else v for k, v in named.items()}
        if form == "positional":
            pos = [src] + [kw.pop(p, None) for p in RADON_PARAMS[1:]]
            if pos[2] is None:
                pos[2] = 1.0  # a None theta here would mean "the default" to both
            return pos, {}
        if form == "too_many":
            return [src, None, 1.0, 0.0, 180.0, False, False, 3], {}
        if form == "foo":
            kw["foo"] = 1
        return [src], kw

    a, k = args_for(make(inp))
    assume(radon_cv2_safe(a, k))
    src_ours = make(inp)
    a_o, k_o = args_for(src_ours)
    a_r, k_r = args_for(make(inp))
    ref = outcome(lambda: cv2.ximgproc.RadonTransform(*a_r, **k_r))
    ours = outcome(lambda: cvgpu.ximgproc.RadonTransform(*a_o, **k_o))
    record_event(ref)
    if ours[0] == "ok" and cvgpu.last_call_backend() == "cv2" and cvgpu.backend() == "cuda":
        # A float sinogram with NaN: cv2 computes it (cvgpu/ximgproc/radon.py, kernels/ximgproc/radon.cu radon_any_nan).
        _COMPAT.record("ximgproc.RadonTransform", "bad-input, NaN in the float sinogram (cv2 computes)",
                       ours == ref, backend="cv2")
        event("NaN sinogram: cv2 computes")
        assert ours == ref, "RadonTransform %r %r form=%s" % (inp, named, form)
    else:
        assert_same(ours, ref, "RadonTransform %r %r form=%s" % (inp, named, form),
                    function="ximgproc.RadonTransform")
    assert_unchanged(src_ours, inp, "cvgpu.ximgproc.RadonTransform modified its input")


@needs_contrib
@FUZZ
@given(spec=array_specs(dtypes=[np.uint8, np.float32, np.float64], shapes=[(1, 1), (5, 5), (6, 4), (3, 7), (6, 4, 1)],
                        kinds=(0, 1, 3)),
       theta=st.sampled_from([1.0, 7.5, 30.0]), crop=st.booleans(), norm=st.booleans())
def test_radon_valid_layouts_match_cv2(spec, theta, crop, norm):
    """Valid sources in every layout (square ones too: cv2 transposes those in place, cvgpu must not)."""
    src = build(spec)
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(src, None, theta, 0.0, 90.0, crop, norm)),
                outcome(lambda: cv2.ximgproc.RadonTransform(build(spec), None, theta, 0.0, 90.0, crop, norm)))
    assert_unchanged(src, ("array", spec), "input modified")


# ================================================================ fitLineLMS / fitLineLMSBatch vs cv2.fitLine

POINT_SHAPES = [(5, 2), (1, 2), (2,), (6, 1, 2), (1, 6, 2), (0, 2), (0,), (5, 3), (2, 5), (5, 4), (3, 1, 3),
                (2, 2, 2), (12, 2), (7, 1, 2), (1, 1, 2)]
# Dtypes cv2's binding converts (OpenCV 5: CV_Bool, CV_32U too), weighted, and all the others.
CV2_POINT_DTYPES = [np.bool_, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.uint32, np.int64, np.uint64,
                    np.float16, np.float32, np.float64] * 2 + DTYPES


def _cv2_fitline(points):
    return cv2.fitLine(points, cv2.DIST_L2, 0, 0.01, 0.01)


@FUZZ
@given(spec=array_specs(dtypes=CV2_POINT_DTYPES, shapes=POINT_SHAPES, kinds=(1, 2, 3)))
def test_fit_line_lms_validation_mirrors_cv2_fitline(spec):
    """Where cv2.fitLine rejects the points, fitLineLMS (and its batch forms) raise a cv2.error with
    the same code; where cv2.fitLine fits 2-D points, fitLineLMS fits them too (its documented
    -213 for 3-D points aside), independently of the memory layout."""
    ref = outcome(lambda: _cv2_fitline(build(spec)))
    pts = build(spec)
    ours = outcome(lambda: cvgpu.fitLineLMS(pts))
    batch = outcome(lambda: cvgpu.fitLineLMSBatch([pts]))
    assert_unchanged(pts, ("array", spec), "fitLineLMS modified its input")
    if ref[0] == "error":
        # Compared by exception type and code: cv2.fitLine's error for points it rejects.
        _COMPAT.record("fitLineLMS", "bad-input", ours[:3] == ref[:3] and batch[:3] == ref[:3],
                       reference="cv2-cpu (cv2.fitLine's error code)", backend=cvgpu.backend())
        assert ours[0] == "error" and ours[1:3] == ref[1:3], (ours, ref)
        assert batch[0] == "error" and batch[1:3] == ref[1:3], (batch, ref)
        return
    if ref[1][1] == (6, 1):  # cv2 fitted 3-D points
        assert ours[:3] == ("error", "cv2.error", -213), ours
        return
    assert ours[0] == "ok", ours
    line, hw = cvgpu.fitLineLMS(pts)
    assert line.shape == (4, 1) and line.dtype == np.float32 and isinstance(hw, float)
    contiguous = np.ascontiguousarray(build(spec))
    assert_same(ours, outcome(lambda: cvgpu.fitLineLMS(contiguous)), "layout changed the fit")
    lines, hws = cvgpu.fitLineLMSBatch([pts])
    assert lines.shape == (1, 4, 1) and hws.shape == (1,)
    assert lines[0].tobytes() == line.tobytes() and np.float32(hw).tobytes() == hws[0].tobytes()
    n = int(np.asarray(contiguous).reshape(-1, 2).shape[0])
    packed = cvgpu.fitLineLMSBatch(np.asarray(contiguous).reshape(-1, 2), np.array([0, n]))
    assert_same(normalize(packed), normalize((lines, hws)), "packed batch differs from the list batch")


@given(inp=inputs(shapes=POINT_SHAPES, kinds=(1, 2, 3)),
       residual=st.sampled_from(["auto", "vertical", "horizontal", "perpendicular", "AUTO", "", None, 3, b"auto"]),
       offsets=st.sampled_from([None, "n", [0, 1], [1, 0], [0, 0, 2], [-1, 2], [0, 10**6], [0.5, 2], [], [0], "x",
                                [0.0, 1.0], [NAN, 1], [[0, 1]], np.array([0, 1], np.uint8), [True, 2], [0, 2**70]]))
def test_lms_functions_never_crash(inp, residual, offsets):
    """Any input: a result or a cv2.error (no other exception, no crash); the input unchanged."""
    pts = make(inp)
    off = offsets
    if isinstance(off, str) and off == "n":
        off = [0, int(np.asarray(pts).shape[0])] if isinstance(pts, np.ndarray) and np.asarray(pts).ndim else [0, 1]
    for f in (lambda: cvgpu.fitLineLMS(pts, residual), lambda: cvgpu.fitLineLMSBatch([pts, pts], None, residual),
              lambda: cvgpu.fitLineLMSBatch(pts, off, residual)):
        res = outcome(f)
        assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(pts, inp, "LMS function modified its input")


@given(spec=array_specs(dtypes=[np.uint8, np.uint8, np.float32, bool], shapes=[(1, 1), (8, 6), (13, 11), (8, 6, 1),
                                                                                (0, 0), (7,)],
                        kinds=(0, 1)),
       lines=st.sampled_from(["valid", "none", "empty", "float64", "flat", "wrong shape", "nan", "list"]),
       rho=st.sampled_from([1, 0.5, 0, -1, NAN, INF, 1e308, "x", np.float32(1)]),
       theta=st.sampled_from([math.pi / 180, 0.1, 0, NAN, INF, None]),
       band=st.sampled_from([0.5, 0, 2, -1, NAN, INF, -INF, 1e308, None, "x"]), segments=st.booleans())
def test_refine_hough_lines_never_crashes(spec, lines, rho, theta, band, segments):
    img = build(spec)
    ln = {"valid": np.array([[[3.0, 0.5]], [[2.0, 1.5]]], np.float32), "none": None,
          "empty": np.zeros((0, 1, 2), np.float32), "float64": np.array([[[3.0, 0.5]]]),
          "flat": np.array([3.0, 0.5], np.float32), "wrong shape": np.zeros((2, 2, 2), np.float32),
          "nan": np.array([[[NAN, 0.5]]], np.float32), "list": [[[3.0, 0.5]]]}[lines]
    ln_copy = None if ln is None else np.array(ln, copy=True)
    res = outcome(lambda: cvgpu.refineHoughLines(img, ln, rho, theta, band, segments))
    assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(img, ("array", spec), "refineHoughLines modified the image")
    if ln is not None:
        assert np.array_equal(np.asarray(ln), ln_copy, equal_nan=True)
    if res[0] == "ok":
        again = outcome(lambda: cvgpu.refineHoughLines(np.ascontiguousarray(build(spec)), ln, rho, theta, band,
                                                       segments))
        assert_same(res, again, "layout changed the refinement")


# ================================================================ cuda: createHoughLinesDetector, GpuMat, Stream

@given(args=st.lists(st.sampled_from([1, 1.0, 0.5, 0, -1, NAN, INF, None, True, "x", 2**31, 2**70, np.float32(0.1),
                                      np.int64(5), [1]]), min_size=0, max_size=7),
       kw=st.sampled_from([{}, {"doSort": True}, {"maxLines": 10}, {"maxlines": 10}, {"rho": 1.0}, {"doSort": 2.5}]))
def test_create_hough_lines_detector_bad_arguments(args, kw):
    """cv2 without CUDA has no createHoughLinesDetector: the binding must give a detector or the
    Python error of a one-overload cv2 binding (TypeError, ValueError, OverflowError), never
    another exception (the messages are checked against cv2's own bindings below)."""
    binding_errors = {"TypeError", "ValueError", "OverflowError"}
    res = outcome(lambda: cvgpu.cuda.createHoughLinesDetector(*args, **kw))
    assert res[0] == "ok" or res[1] in binding_errors, res
    if res[0] == "ok":
        det = cvgpu.cuda.createHoughLinesDetector(*args, **kw)
        for setter, value in (("setRho", NAN), ("setTheta", -1.0), ("setThreshold", -5), ("setDoSort", None),
                              ("setMaxLines", 0), ("setRho", "x"), ("setTheta", 1 + 0j), ("setThreshold", 1.5),
                              ("setThreshold", 2**40), ("setMaxLines", 2**70), ("setDoSort", 1.5), ("setDoSort", "x")):
            r = outcome(lambda: getattr(det, setter)(value))
            assert r[0] == "ok" or r[1] in binding_errors, (setter, r)


# cv2 functions bound with one overload whose parameters have the kinds of createHoughLinesDetector's
# and its setters' (float, int, bool; required and defaulted): their bindings are the reference for
# cvgpu._binding.parse(..., overloads=1). Each: (function, name, params, read back the converted
# values from cv2 after a successful call, or None).
_P = cvgpu._binding.Param
_ORB_PARAMS = [_P("nfeatures", "int", 500), _P("scaleFactor", "float", 1.2), _P("nlevels", "int", 8),
               _P("edgeThreshold", "int", 31), _P("firstLevel", "int", 0), _P("WTA_K", "int", 2),
               _P("scoreType", "int", 0), _P("patchSize", "int", 31), _P("fastThreshold", "int", 20)]
_ORB_GETTERS = ("getMaxFeatures", "getScaleFactor", "getNLevels", "getEdgeThreshold", "getFirstLevel", "getWTA_K",
                "getScoreType", "getPatchSize", "getFastThreshold")
_ONE_OVERLOAD_TWINS = {
    "ORB_create": (cv2.ORB_create, _ORB_PARAMS, lambda orb: [getattr(orb, g)() for g in _ORB_GETTERS]),
    "getGaussianKernel": (cv2.getGaussianKernel, [_P("ksize", "int"), _P("sigma", "double"), _P("ktype", "int", 6)],
                          None),
    "setUseOptimized": (cv2.setUseOptimized, [_P("onoff", "bool")], lambda _: [cv2.useOptimized()]),
}
# Small ints only: getGaussianKernel really allocates ksize doubles.
_BINDING_VALUES = [0, 1, 3, -1, 2.5, 1e300, NAN, INF, None, True, False, "x", 2**40, 2**70, 10**400, 1j, [1],
                   np.float16(1.5), np.float32(0.5), np.float64(2.5), np.longdouble(2), np.int8(2), np.uint16(3),
                   np.int32(2), np.int64(3), np.uint64(1), np.complex64(1), np.complex128(2), np.bool_(True),
                   np.array(2.0), np.array([1])]


@given(twin=st.sampled_from(sorted(_ONE_OVERLOAD_TWINS)),
       args=st.lists(st.sampled_from(_BINDING_VALUES), max_size=10),
       kwargs=st.dictionaries(st.sampled_from(["nfeatures", "scaleFactor", "nlevels", "scoreType", "ksize", "sigma",
                                               "ktype", "onoff", "bogus"]),
                              st.sampled_from(_BINDING_VALUES), max_size=3))
def test_one_overload_binding_matches_cv2s(twin, args, kwargs):
    """The binding of one-overload functions (createHoughLinesDetector, the detector's setters)
    against cv2's own: the same exception type and message, or, where cv2 accepts the arguments,
    the same converted values (a float parameter narrowed to float32, as cv2 reads it back)."""
    _compare_one_overload(twin, args, kwargs)


@pytest.mark.parametrize("twin,param", [("ORB_create", "scaleFactor"), ("ORB_create", "nfeatures"),
                                        ("getGaussianKernel", "sigma"), ("setUseOptimized", "onoff")])
def test_one_overload_converters_match_cv2s(twin, param):
    """Every sample value through each converter kind (float, int, double, bool), by keyword."""
    for value in _BINDING_VALUES:
        _compare_one_overload(twin, (3,) if param == "sigma" else (), {param: value})


def _compare_one_overload(twin, args, kwargs):
    fn, params, read_back = _ONE_OVERLOAD_TWINS[twin]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numpy's ComplexWarning, in both
        try:
            made = fn(*args, **kwargs)
            ref = ("ok", read_back(made) if read_back else None)
        except cv2.error:  # the function itself ran (and refused the values): the binding accepted them
            ref = ("ok", None)
        except (TypeError, ValueError, OverflowError) as e:
            ref = (type(e).__name__, str(e))
        finally:
            cv2.setUseOptimized(True)
        try:
            got = cvgpu._binding.parse(twin, params, tuple(args), dict(kwargs), None, overloads=1)
            values = [np.float32(got[p.name]).item() if p.kind == "float" else got[p.name] for p in params]
            mine = ("ok", values if ref[1] is not None else None)
        except (TypeError, ValueError, OverflowError) as e:
            mine = (type(e).__name__, str(e))
    if ref[0] == "ok" and ref[1] is not None:
        assert mine[0] == "ok", (args, kwargs, mine, ref)
        assert np.array_equal(np.array(mine[1], np.float64), np.array(ref[1], np.float64), equal_nan=True), \
            (args, kwargs, mine, ref)
    else:
        assert mine == ref, (args, kwargs)


@pytest.mark.skipif(HAS_GPU, reason="compares with cv2's behaviour without CUDA")
@pytest.mark.parametrize("call", [
    lambda m: m.cuda_GpuMat(),
    lambda m: m.cuda_GpuMat(np.zeros((3, 4), np.uint8)),
    lambda m: m.cuda_GpuMat(np.zeros((0, 0), np.uint8)),
    lambda m: m.cuda_GpuMat(3, 4, m.CV_8UC1),
    lambda m: m.cuda_GpuMat((4, 3), m.CV_32FC2),
    lambda m: m.cuda_GpuMat().empty(),
    lambda m: m.cuda_Stream(),
    lambda m: m.cuda.getCudaEnabledDeviceCount(),
], ids=["GpuMat()", "GpuMat(array)", "GpuMat(empty array)", "GpuMat(r, c, t)", "GpuMat(size, t)", "empty()",
        "Stream()", "device count"])
def test_cuda_objects_without_gpu_match_cv2(call):
    assert_same(outcome(lambda: call(cvgpu)), outcome(lambda: call(cv2)))


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU error")
def test_cuda_stream_null_without_gpu_is_cv2s_no_cuda_error():
    # cv2.cuda.Stream_Null() without CUDA aborts the process (its -216 cv::Exception escapes the
    # binding: "terminate called after throwing an instance of 'cv::Exception'"), so it is never
    # called here; cvgpu raises that same error as a cv2.error instead.
    res = outcome(cvgpu.cuda.Stream_Null)
    assert res == ("error", "cv2.error", -216, "The library is compiled without CUDA support"), res


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU error")
@given(spec=array_specs(shapes=[(1, 1), (8, 6), (8, 6, 1), (8, 6, 3), (0, 0), (7,)]))
def test_cuda_detect_without_gpu_is_a_cv2_error(spec):
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5)
    img = build(spec)
    res = outcome(lambda: det.detect(img))
    assert res[0] == "ok" or res[1] == "cv2.error", res
    assert_unchanged(img, ("array", spec), "detect modified its input")


# ================================================================ concurrency

def _concurrency_cases():
    rng = np.random.default_rng(7)
    edges = ((rng.random((64, 80)) < 0.05) * 255).astype(np.uint8)
    edges[20, :] = 255
    edges[:, 33] = 255
    blobs = np.zeros((60, 70), np.uint8)
    blobs[5:25, 5:30] = 255
    blobs[10:15, 10:15] = 0
    blobs[35:55, 40:65] = 1
    pts = np.array([[0, 0], [1, 1], [2, 2.1], [3, 2.9], [4, 4], [5, 9], [6, 6]], np.float32)
    cases = [
        ("HoughLines", lambda: cvgpu.HoughLines(edges, 1, np.pi / 180, 20),
         lambda: cv2.HoughLines(edges, 1, np.pi / 180, 20)),
        ("HoughLines theta range", lambda: cvgpu.HoughLines(edges[::-1], 2, 0.05, 10, min_theta=0.2, max_theta=2.0),
         lambda: cv2.HoughLines(edges[::-1], 2, 0.05, 10, min_theta=0.2, max_theta=2.0)),
        ("HoughLinesWithAccumulator", lambda: cvgpu.HoughLinesWithAccumulator(edges, 1, np.pi / 180, 15),
         lambda: cv2.HoughLinesWithAccumulator(edges, 1, np.pi / 180, 15)),
        ("findContours TREE", lambda: cvgpu.findContours(blobs, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
         lambda: cv2.findContours(blobs, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)),
        ("findContours LIST", lambda: cvgpu.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE, offset=(1, 2)),
         lambda: cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE, offset=(1, 2))),
        ("findContoursPacked", lambda: cvgpu.findContoursPacked(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE),
         lambda: _packed_reference(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE, None)),
        ("bad input", lambda: cvgpu.HoughLines(edges.astype(np.float32), 1, 0.1, 5),
         lambda: cv2.HoughLines(edges.astype(np.float32), 1, 0.1, 5)),
        # cvgpu's own: compared with their serial results only.
        ("fitLineLMS", lambda: cvgpu.fitLineLMS(pts), None),
        ("fitLineLMSBatch", lambda: cvgpu.fitLineLMSBatch([pts, pts[:4], pts[2:]]), None),
        ("refineHoughLines", lambda: cvgpu.refineHoughLines(edges, np.array([[[20.0, 1.5707964]]], np.float32), 1,
                                                            np.pi / 180), None),
    ]
    if HAS_XIMGPROC:
        sq = edges[:40, :40]
        cases.append(("RadonTransform", lambda: cvgpu.ximgproc.RadonTransform(sq, None, 5.0, 0.0, 180.0),
                      lambda: cv2.ximgproc.RadonTransform(sq.copy(), None, 5.0, 0.0, 180.0)))
        cases.append(("RadonTransform float crop", lambda: cvgpu.ximgproc.RadonTransform(
            blobs.astype(np.float32), None, 10.0, 0.0, 90.0, True, True), lambda: cv2.ximgproc.RadonTransform(
            blobs.astype(np.float32), None, 10.0, 0.0, 90.0, True, True)))
    return cases, (edges.copy(), blobs.copy(), pts.copy(), edges, blobs, pts)


def test_eight_threads_match_serial_calls():
    cases, (edges0, blobs0, pts0, edges, blobs, pts) = _concurrency_cases()
    serial = {}
    for name, ours, ref in cases:
        serial[name] = outcome(ours)
        if ref is not None:
            assert_same(serial[name], outcome(ref), name)
    n_threads, rounds = 8, 4
    barrier = threading.Barrier(n_threads)
    results = [[] for _ in range(n_threads)]
    errors = []

    def worker(t):
        try:
            barrier.wait()
            for r in range(rounds):
                if t < 4:   # threads 0-3: all of them call the same function at the same time
                    order = [cases[r % len(cases)]] * 3
                else:       # threads 4-7: different functions, each thread its own order
                    order = cases[t:] + cases[:t]
                for name, ours, _ in order:
                    results[t].append((name, outcome(ours)))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread hangs"
    assert not errors, errors
    total = 0
    for t in range(n_threads):
        for name, got in results[t]:
            assert_same(got, serial[name], "thread %d, %s differs from the serial call" % (t, name))
            total += 1
    assert total == 4 * rounds * 3 + 4 * rounds * len(cases)
    assert edges.tobytes() == edges0.tobytes() and blobs.tobytes() == blobs0.tobytes()
    assert pts.tobytes() == pts0.tobytes()


# ================================================================ former mismatches (issue 10), now as cv2

@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
def test_mismatch_hough_lines_argument_of_wrong_type(fn):
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: getattr(cvgpu, fn)(img, 1, 0.1, 1, "x")),
                outcome(lambda: getattr(cv2, fn)(img, 1, 0.1, 1, "x")))


def test_mismatch_int_beyond_c_long_message():
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, 0.1, 2**70)),
                outcome(lambda: cv2.HoughLines(img, 1, 0.1, 2**70)))


@pytest.mark.parametrize("fn", ["HoughLines", "HoughLinesWithAccumulator"])
def test_mismatch_hough_numpy_scalar_image(fn):
    assert_same(outcome(lambda: getattr(cvgpu, fn)(np.float32(2), 1, 0.1, 0)),
                outcome(lambda: getattr(cv2, fn)(np.float32(2), 1, 0.1, 0)))


@needs_contrib
def test_mismatch_radon_numpy_scalar_src():
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(np.float32(2))),
                outcome(lambda: cv2.ximgproc.RadonTransform(np.float32(2))))


def test_mismatch_hough_with_accumulator_writes_into_lines():
    img = np.zeros((20, 30), np.uint8)
    img[7, :] = 255
    n = len(cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5))
    ref_lines, our_lines = np.zeros((n, 3), np.float32), np.zeros((n, 3), np.float32)
    ref = cv2.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5, ref_lines)
    ours = cvgpu.HoughLinesWithAccumulator(img, 1, np.pi / 180, 5, our_lines)
    assert normalize(ours) == normalize(ref)
    assert (ours is our_lines) == (ref is ref_lines)
    assert normalize(our_lines) == normalize(ref_lines)


def test_mismatch_complex_parameter_message():
    img = np.zeros((4, 4), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1 + 0j, 0.1, 1)),
                outcome(lambda: cv2.HoughLines(img, 1 + 0j, 0.1, 1)))


@needs_contrib
def test_mismatch_radon_dst_of_wrong_type():
    src = np.zeros((4, 5), np.uint8)
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(src, "x")),
                outcome(lambda: cv2.ximgproc.RadonTransform(src.copy(), "x")))


@pytest.mark.parametrize("dtype", ["U3", "S3", "V2"])
def test_mismatch_flexible_dtype_name_in_message(dtype):
    img = np.zeros((4, 4), dtype)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, 0.1, 1)),
                outcome(lambda: cv2.HoughLines(img, 1, 0.1, 1)))


def test_mismatch_hough_numrho_division_precision():
    img = np.zeros((0, 0), np.uint8)
    # theta < 0: numangle + 2 < 0, so the size wraps far above what can be allocated (cv2 -4, no crash).
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1e-9, -0.1, 0)),
                outcome(lambda: cv2.HoughLines(img, 1e-9, -0.1, 0)))


def test_mismatch_hough_numangle_floor_of_minus_inf():
    img = np.zeros((0, 0), np.uint8)
    assert_same(outcome(lambda: cvgpu.HoughLines(img, 1, -0.1, 0, max_theta=INF)),
                outcome(lambda: cv2.HoughLines(img, 1, -0.1, 0, max_theta=INF)))


# -- cvgpu's own functions: cv2.error for what they reject (no cv2 counterpart to compare with)

@pytest.mark.parametrize("offsets,expected", [([0], "ok"), ("x", -5), ([0.5, 5], -5), ([NAN, 5], -5),
                                              ([0.0, 5.0], "ok"), (None, -5)])
def test_lms_batch_offsets_give_a_result_or_cv2_error(offsets, expected):
    res = outcome(lambda: cvgpu.fitLineLMSBatch(np.zeros((5, 2), np.float32), offsets))
    assert res[0] == expected if expected == "ok" else res[:3] == ("error", "cv2.error", expected), res
    if offsets == [0]:  # no sets: as an empty list of sets
        assert_same(res, outcome(lambda: cvgpu.fitLineLMSBatch([])))


@pytest.mark.parametrize("rho,band,code", [(1, NAN, -211), (1, INF, -211), (INF, 0.5, -211), (1, -INF, -211),
                                           (1e300, 1e300, -211), (1, "x", -5), ("x", 0.5, -5), (1 + 0j, 0.5, -5)])
def test_refine_hough_lines_nonfinite_or_bad_parameters(rho, band, code):
    lines = np.array([[[3.0, 0.5]]], np.float32)
    res = outcome(lambda: cvgpu.refineHoughLines(np.zeros((5, 5), np.uint8), lines, rho, np.pi / 180, band))
    assert res[:3] == ("error", "cv2.error", code), res


@pytest.mark.parametrize("setter,args,error,message", [
    ("setRho", ("x",), TypeError, "Argument 'rho' can't be treated as a float"),
    ("setRho", (np.int32(2),), TypeError, "Argument 'rho' can not be safely parsed to 'float'"),
    ("setTheta", (True,), TypeError, "Argument 'theta' must be float, not bool"),
    ("setTheta", (1 + 0j,), TypeError, "must be real number, not complex"),
    ("setRho", (10**400,), OverflowError, "int too large to convert to float"),
    ("setThreshold", (1.5,), TypeError, "Argument 'threshold' is required to be an integer"),
    ("setThreshold", (2**40,), ValueError, "integer won't fit into a C int"),
    ("setMaxLines", (2**70,), OverflowError, "Python int too large to convert to C long"),
    ("setDoSort", (1.5,), TypeError, "Argument 'doSort' is not convertable to bool"),
    ("setRho", (), TypeError, "cuda_HoughLinesDetector.setRho() missing required argument 'rho' (pos 1)"),
    ("setMaxLines", (1, 2), TypeError, "cuda_HoughLinesDetector.setMaxLines() takes at most 1 argument (2 given)")])
def test_detector_setter_of_wrong_type_is_the_bindings_error(setter, args, error, message):
    """The setters are bound with one overload each, as cv2 binds e.g. CLAHE.setClipLimit: the
    converter's own Python error (see test_one_overload_binding_matches_cv2s); the detector keeps
    its value."""
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5, True, 100)
    before = (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines())
    with pytest.raises(error) as e:
        getattr(det, setter)(*args)
    assert type(e.value) is error and str(e.value) == message
    assert (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines()) == before


def test_detector_setters_take_keywords_and_none_as_cv2():
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 5, True, 100)
    det.setRho(rho=2.5)
    det.setThreshold(threshold=None)  # None: the parameter's initial value, 0
    det.setTheta(np.float16(0.25))
    assert (det.getRho(), det.getThreshold(), det.getTheta()) == (2.5, 0, 0.25)


# -- fitLineLMS's input validation against cv2.fitLine's (the points cv2.fitLine reads as 2-D points)

def test_lms_bool_points_are_fitted_as_cv2_fitline_does():
    pts = np.array([[0, 1], [1, 0], [1, 1], [0, 0], [1, 1]], bool)
    assert _cv2_fitline(pts).shape == (4, 1)
    assert_same(outcome(lambda: cvgpu.fitLineLMS(pts)), outcome(lambda: cvgpu.fitLineLMS(pts.astype(np.float32))))
    assert_same(outcome(lambda: cvgpu.fitLineLMSBatch([pts, pts[:3]])),
                outcome(lambda: cvgpu.fitLineLMSBatch([pts.astype(np.uint8), pts[:3].astype(np.uint8)])))


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128, object, np.longdouble, "U3", "S3", "V2",
                                   "datetime64[s]"])
def test_lms_unsupported_dtype_is_cv2_fitlines_error(dtype):
    pts = np.zeros((5, 2), dtype)
    ref = outcome(lambda: _cv2_fitline(pts))
    assert ref[:3] == ("error", "cv2.error", -5)
    assert outcome(lambda: cvgpu.fitLineLMS(pts)) == ref  # message included
    assert outcome(lambda: cvgpu.fitLineLMSBatch([pts]))[:3] == ref[:3]


@pytest.mark.parametrize("points", NON_ARRAYS + [2**70, (2**70, 1), (1, "a"), np.float64(2)], ids=repr)
def test_lms_non_array_points_are_cv2_fitlines_error(points):
    """None, numbers and tuples: cv2.fitLine reads an empty Mat or a CV_64F column and fails -215;
    other objects (lists, numpy scalars other than float64): its binding's -5."""
    ref = outcome(lambda: _cv2_fitline(points))
    assert ref[0] == "error"
    assert outcome(lambda: cvgpu.fitLineLMS(points))[:3] == ref[:3]
    assert outcome(lambda: cvgpu.fitLineLMSBatch([points]))[:3] == ref[:3]

# ================================================================ GPU part: streams, devices, memory

def _cupy():
    import cupy
    return cupy


def _to_host(value):
    """numpy for CuPy results, elementwise through tuples and lists."""
    if isinstance(value, (tuple, list)):
        return type(value)(_to_host(v) for v in value)
    if value is not None and not isinstance(value, np.ndarray) and hasattr(value, "get"):
        value = value.get()
        # fitLineLMS's half-width: a Python float from host input, a 0-d array from device input.
        return value.item() if value.ndim == 0 else value
    return value


def _same_tree(a, b):
    if isinstance(a, (tuple, list)) or isinstance(b, (tuple, list)):
        return (type(a) is type(b) and len(a) == len(b)
                and all(_same_tree(x, y) for x, y in zip(a, b)))
    if isinstance(a, (float, int)) or isinstance(b, (float, int)):
        return type(a) is type(b) and (a == b or (a != a and b != b))
    return same(a, b)


def _devices_of(value):
    if isinstance(value, (tuple, list)):
        return set().union(*(_devices_of(v) for v in value)) if value else set()
    device = getattr(value, "device", None)
    return {device.id} if device is not None and hasattr(device, "id") else set()


def _gpu_calls():
    """(name, host input, call(module, input), reference(host input)) for every function family.
    The reference is cv2 where cv2 has the function, else cvgpu itself on host input."""
    rng = np.random.default_rng(11)
    lines_img = np.zeros((96, 128), np.uint8)
    for _ in range(6):
        p = rng.integers(0, 128, 4)
        cv2.line(lines_img, (int(p[0]), int(p[1]) % 96), (int(p[2]), int(p[3]) % 96), 255, 1)
    blobs = np.zeros((72, 90), np.uint8)
    for _ in range(12):
        cv2.circle(blobs, (int(rng.integers(0, 90)), int(rng.integers(0, 72))), int(rng.integers(2, 14)),
                   255, int(rng.choice([-1, 2])))
    gray = rng.integers(0, 256, (40, 52), dtype=np.uint8)
    xs = rng.uniform(0, 100, 300).astype(np.float32)
    pts = np.stack([xs, 0.3 * xs + 7 + rng.normal(0, 0.5, 300).astype(np.float32)], 1).astype(np.float32)
    pts[:90] = rng.uniform(0, 100, (90, 2))
    calls = [
        ("HoughLines", lines_img, lambda m, x: m.HoughLines(x, 1, np.pi / 180, 20), None),
        ("HoughLinesWithAccumulator", lines_img,
         lambda m, x: m.HoughLinesWithAccumulator(x, 1.5, np.pi / 90, 10), None),
        ("findContours", blobs, lambda m, x: m.findContours(x, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE), None),
        ("findContours-ccomp-none", blobs,
         lambda m, x: m.findContours(x, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE, offset=(3, -2)), None),
        ("fitLineLMS", pts, lambda m, x: cvgpu.fitLineLMS(x), lambda x: cvgpu.fitLineLMS(x)),
        ("refineHoughLines", lines_img,
         lambda m, x: cvgpu.refineHoughLines(x, np.array([[[40.0, 1.2]], [[10.0, 0.3]]], np.float32), 1,
                                             np.pi / 180),
         lambda x: cvgpu.refineHoughLines(x, np.array([[[40.0, 1.2]], [[10.0, 0.3]]], np.float32), 1,
                                          np.pi / 180)),
    ]
    if hasattr(cv2, "ximgproc"):
        calls.append(("RadonTransform", gray, lambda m, x: m.ximgproc.RadonTransform(x, theta=3), None))
        wave = np.sin(np.arange(33 * 47, dtype=np.float32) * 0.1).reshape(33, 47)
        calls.append(("RadonTransform-float-norm", wave,
                      lambda m, x: m.ximgproc.RadonTransform(x, theta=2, norm=True), None))
        holes = wave.astype(np.float64)
        holes[5:9, 11] = np.nan  # a NaN sinogram: the GPU's flag is read, then cv2 computes
        calls.append(("RadonTransform-nan-norm", holes,
                      lambda m, x: m.ximgproc.RadonTransform(x, theta=2, norm=True), None))
    return calls


def _reference(call, host):
    name, _, fn, ref = call
    return _to_host(ref(host.copy())) if ref is not None else fn(cv2, host.copy())


@pytest.mark.gpu
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_work_follows_the_callers_stream(call):
    """The input is written on a non-blocking stream behind a long kernel; cvgpu, called with that
    stream current, must see the written input (its work is ordered on the caller's stream)."""
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    fn(cvgpu, cp.asarray(host))  # compile and warm up outside the timed stream
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        device = cp.zeros(host.shape, host.dtype)
        spin(cp, stream, 0.3)
        device.set(host)  # lands only after the spin, in stream order
        ours = fn(cvgpu, device)
        stream.synchronize()
    assert _devices_of(ours) <= {cp.cuda.Device().id}
    assert _same_tree(_to_host(ours), ref), name


@pytest.mark.gpu
def test_gpu_detector_follows_its_stream_argument():
    cp = _cupy()
    img = _gpu_calls()[0][1]
    det = cvgpu.cuda.createHoughLinesDetector(1.0, np.pi / 180, 20)
    want = det.downloadResults(det.detect(cp.asarray(img)))
    stream = cvgpu.cuda.Stream(cp.cuda.Stream(non_blocking=True))
    device = cp.zeros(img.shape, img.dtype)
    with stream.cupy:
        spin(cp, stream.cupy, 0.3)
        device.set(img)
    got = det.downloadResults(det.detect(device, stream=stream), stream=stream)
    stream.waitForCompletion()
    assert _same_tree(tuple(_to_host(list(got))), tuple(_to_host(list(want))))


@pytest.mark.gpu
def test_gpu_calls_do_not_synchronize_the_device():
    """While a long kernel runs on another stream, every call returns: none waits for the device."""
    cp = _cupy()
    calls = _gpu_calls()
    inputs = [cp.asarray(c[1]) for c in calls]
    for c, x in zip(calls, inputs):  # warm up: kernels compiled, scratch and pools allocated
        for _ in range(2):
            _to_host(c[2](cvgpu, x))
            _to_host(c[2](cvgpu, c[1]))
    other = cp.cuda.Stream(non_blocking=True)
    mine = cp.cuda.Stream(non_blocking=True)
    spin(cp, other, 8.0)
    finished = []  # (call, seconds, the other stream still busy after it)
    start = time.perf_counter()
    with mine:
        for c, x in zip(calls, inputs):
            t0 = time.perf_counter()
            _to_host(c[2](cvgpu, x))
            _to_host(c[2](cvgpu, c[1]))
            finished.append((c[0], round(time.perf_counter() - t0, 4), not other.done))
    still_busy = not other.done
    total = time.perf_counter() - start
    other.synchronize()
    assert still_busy, ("a call waited for the whole device (another stream's kernel had finished after %.2f s): "
                        "%s" % (total, finished))
    assert len(finished) == len(calls)


def _memory(cp):
    """(used, total) bytes of CuPy's device memory pool, after collecting garbage."""
    gc.collect()
    pool = cp.get_default_memory_pool()
    return pool.used_bytes(), pool.total_bytes()


@pytest.mark.gpu
def test_gpu_memory_stays_flat_over_10000_mixed_calls():
    cp = _cupy()
    calls = _gpu_calls()
    inputs = [(c, c[1]) for c in calls] + [(c, cp.asarray(c[1])) for c in calls]
    for c, x in inputs * 3:
        _to_host(c[2](cvgpu, x))
    used0, total0 = _memory(cp)
    for i in range(10_000):
        c, x = inputs[i % len(inputs)]
        _to_host(c[2](cvgpu, x))
    used1, total1 = _memory(cp)
    assert used1 <= used0 + (1 << 20), (used0, used1)
    assert total1 <= total0 + (8 << 20), (total0, total1)


@pytest.mark.gpu
def test_gpu_out_of_memory_is_cv2_error_minus_4_and_the_process_goes_on():
    cp = _cupy()
    img = np.zeros((2000, 2000), np.uint8)
    img[5, :] = 255
    # (2 * 4000 + 1) / 0.001 rho bins x 20000 angles x 4 bytes: about 640 GB of accumulator.
    with pytest.raises(cv2.error) as info:
        cvgpu.HoughLines(img, 0.001, np.pi / 20000, 100)
    assert info.value.code == -4
    with pytest.raises(cv2.error) as info:
        cvgpu.HoughLines(cp.asarray(img), 0.001, np.pi / 20000, 100)
    assert info.value.code == -4
    if hasattr(cv2, "ximgproc"):
        with pytest.raises(cv2.error) as info:
            cvgpu.ximgproc.RadonTransform(np.zeros((30000, 30000), np.uint8)[:, :1].repeat(30000, 1),
                                          theta=1e-4)
        assert info.value.code == -4
    for c in _gpu_calls():
        assert _same_tree(_to_host(c[2](cvgpu, c[1])), _reference(c, c[1])), c[0]


# -- several GPUs (run on a two-GPU machine; skipped with one)

def _device_count():
    try:
        return _cupy().cuda.runtime.getDeviceCount()
    except Exception:
        return 0


two_gpus = pytest.mark.skipif(not HAS_GPU or _device_count() < 2, reason="needs two CUDA devices")


@pytest.mark.gpu
@two_gpus
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_current_device_one_computes_on_device_one(call):
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    with cp.cuda.Device(1):
        ours_host = fn(cvgpu, host)
        d1 = cp.asarray(host)
        ours_dev = fn(cvgpu, d1)
        assert _devices_of(ours_dev) <= {1}
        assert any(key[0] == 1 for key in cvgpu._kernels._modules), "no kernel compiled for device 1"
    assert _same_tree(_to_host(ours_host), ref), name
    assert _same_tree(_to_host(ours_dev), ref), name


@pytest.mark.gpu
@two_gpus
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_input_on_another_device_is_computed_where_it_lives(call):
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    with cp.cuda.Device(1):
        d1 = cp.asarray(host)
    with cp.cuda.Device(0):
        ours = fn(cvgpu, d1)
        assert cp.cuda.runtime.getDevice() == 0
    assert _devices_of(ours) <= {1}
    assert _same_tree(_to_host(ours), ref), name


@pytest.mark.gpu
@two_gpus
def test_gpu_two_devices_from_two_threads_match_serial_calls():
    cp = _cupy()
    calls = _gpu_calls()
    refs = [_reference(c, c[1]) for c in calls]
    errors = []

    def work(device_id):
        try:
            with cp.cuda.Device(device_id):
                for _ in range(20):
                    for c, ref in zip(calls, refs):
                        for x in (c[1], cp.asarray(c[1])):
                            if not _same_tree(_to_host(c[2](cvgpu, x)), ref):
                                errors.append((device_id, c[0]))
        except Exception as exc:  # reported below, not lost in the thread
            errors.append((device_id, repr(exc)))

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1, 0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
