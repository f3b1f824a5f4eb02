"""Shared machinery of the hardening tests (issue 10): outcomes, input builders, strategies and the
GPU part's calls. The tests themselves live with their families:

    tests/hough/test_hough_hardening.py         HoughLines, HoughLinesWithAccumulator
    tests/cuda/test_cuda_hardening.py           cuda.createHoughLinesDetector and its detector
    tests/contours/test_contours_hardening.py   findContours, findContoursPacked, findContoursLinkRuns
    tests/ximgproc/test_radon_hardening.py      ximgproc.RadonTransform
    tests/lms/test_lms_hardening.py             fitLineLMS, fitLineLMSBatch, refineHoughLines
    tests/test_hardening_common.py              every family at once: threads, cuda objects without a
                                                GPU, streams, devices, memory, out-of-memory

Every cvgpu function with a cv2 counterpart is called with hypothesis-fuzzed bad and odd input
(every numpy dtype, channel counts, 0-size / 1-pixel / 0-d / 1-d / 3-d / 4-d arrays, C, Fortran,
strided, negative-stride, transposed, read-only, misaligned and odd-pitch layouts, non-array objects,
NaN / inf / huge / negative / bool / None / string parameters, unknown keywords, too many or too
few arguments) and must give cv2's outcome: the same result (type, shape, dtype, bytes; tuples
elementwise; None where None) or the same exception (cv2.error with the same ``code`` and
``err``). The caller's arrays must come back unchanged. Without a GPU this exercises cvgpu's
argument layer and its explicit cv2 fallback; with one, the same tests compare the GPU results.

cv2 itself crashes (segfaults, aborts) on some inputs: those are never run (neither through cv2 nor
through cvgpu, whose no-GPU fallback would forward them to cv2). Each family's test file lists its
own and decides them from the arguments before anything is called.

With ``CVGPU_COMPAT_LOG`` set, every fuzzed comparison is a compat-matrix row (variant
``bad-input``). This module is no test file (pytest does not collect it); the test files import it
(tests/ is on sys.path).
"""
import os
import warnings

import cv2
import numpy as np
import pytest
from hypothesis import event, settings
from hypothesis import strategies as st

import cvgpu
from conftest import CompatRecorder, same

HAS_GPU = cvgpu.backend() == "cuda"
HAS_XIMGPROC = hasattr(cv2, "ximgproc")
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


def _to_size_t(v):
    return v % (1 << 64)


# ================================================================ findContours' packed form as cv2 gives it

def _packed_reference(image, mode, method, offset):
    contours, hierarchy = cv2.findContours(image, mode, method, None, None, offset)
    m = len(contours)
    offsets = np.zeros(m + 1, np.int64)
    if m == 0:
        return np.zeros((0, 2), np.int32), offsets, np.zeros((0, 4), np.int32)
    offsets[1:] = np.cumsum([len(c) for c in contours])
    points = np.concatenate([np.asarray(c, np.int32).reshape(-1, 2) for c in contours])
    return points, offsets, np.asarray(hierarchy, np.int32).reshape(m, 4)


# ================================================================ GPU part: one call per family

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
