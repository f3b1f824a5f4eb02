"""cv2.HoughLines and cv2.HoughLinesWithAccumulator on the GPU, bit-exact with the cv2 beside them.

The standard transform (srn == stn == 0) runs in ``kernels/hough/lines.cu``; the host only works out
cv2's sizes and trig table (a few hundred numbers) and reads the line count back once. The
multi-scale transform (srn or stn nonzero) is computed by cv2 and reported as such.

Four paths reach the kernels: the full argument layer (any call cv2 accepts); the fast path, the
common ``f(image, rho, theta, threshold)`` with a 2-D uint8 numpy or CuPy image and plain numbers;
the hot path, the repeat of a fast call on the same device array; and the host hot path, the
repeat on one thread of a fast numpy call with the same image layout, rho and theta (a video's
frames). From a plan's second call on, its three launches replay as one captured CUDA graph
(cvgpu._graphs), the lean graph while the device call words still describe the same image.
"""
import functools
import math
import threading
import weakref
from threading import get_ident as _get_ident

import cv2
import numpy as np

from .. import _backend, _binding, _device_ops, _engine, _errors, _graphs, _kernels, _native, _versions
from .._arrays import on_input_device, upload_2d
from .._cvmath import INT_MAX, INT_MIN, cdiv, cv_floor, cv_round, wrap_int32
from .._graphs import CALL, NULL, Kernel, Word, await_published
from ._voting import (IMAGE_WORDS, TUNING, VOTE_THREADS, collect_grid, load_width, shared_vote_grid, vote_residency,
                      vote_variant, vote_window)

FAMILY = "hough/lines"  # kernels/hough/lines.cu

# What differs between OpenCV releases (cvgpu/_versions.py, docs/opencv-versions.md):
# rho = (r - (numrho-1)/2) * rho from 4.13 (#27992), before (r - (numrho-1)*0.5f) * rho: the kernels' mode.
RHO_MODE = 0 if _versions.behaviour("hough.rho_output") == "exact" else 1
# HoughLinesWithAccumulator returns (N, 3) from 5.0 on, (N, 1, 3) before.
ACCUMULATOR_3D = _versions.behaviour("hough.accumulator_shape") == "n13"
# The functions whose binding takes use_edgeval (HoughLines from 4.11, the accumulator's from 4.12).
EDGEVAL_FUNCTIONS = _versions.behaviour("hough.use_edgeval")
HAS_USE_EDGEVAL = "HoughLines" in EDGEVAL_FUNCTIONS
_NUMANGLE = _versions.behaviour("hough.numangle")
_SIZE_CHECK = _versions.behaviour("hough.size_check")
# 5.1 checks rho, theta, threshold and the theta range in cv::HoughLines, before the image.
_ARG_CHECKS = _versions.behaviour("hough.arg_checks") == "hough_lines"
# 5.1: no lines is an empty (0, 1, 2) / (0, 3) array, no longer None.
_EMPTY_ARRAYS = _versions.behaviour("binding.empty_output") == "shaped"

_BASE_PARAMS = [
    _binding.Param("image", "mat"),
    _binding.Param("rho", "double"),
    _binding.Param("theta", "double"),
    _binding.Param("threshold", "int"),
    _binding.Param("lines", "outmat", None),
    _binding.Param("srn", "double", 0.0),
    _binding.Param("stn", "double", 0.0),
    _binding.Param("min_theta", "double", 0.0),
    _binding.Param("max_theta", "double", math.pi),
]
_PARAMS = {fn: _BASE_PARAMS + ([_binding.Param("use_edgeval", "bool", False)] if fn in EDGEVAL_FUNCTIONS else [])
           for fn in ("HoughLines", "HoughLinesWithAccumulator")}
# cv2 converts the arguments in the C++ signature's order: lines right after image.
_ORDER = {fn: ["image", "lines"] + [p.name for p in params if p.name not in ("image", "lines")]
          for fn, params in _PARAMS.items()}

# The signatures in cv2's CV_Check errors (cv:: of the array types dropped from 4.13, _errors.check_func).
_STANDARD_FUNC = _errors.check_func(
    "void cv::HoughLinesStandard(cv::InputArray, cv::OutputArray, int, float, float, int, int, double, double%s)"
    % (", bool" if HAS_USE_EDGEVAL else ""))
_HOUGH_LINES_FUNC = _errors.check_func(
    "void cv::HoughLines(cv::InputArray, cv::OutputArray, double, double, int, double, double, double, double, bool)")
_RANGE_FUNC = _HOUGH_LINES_FUNC if _ARG_CHECKS else _STANDARD_FUNC


# Doubles whose float32 is positive and finite lie within these (5.1's rho/theta checks; the fast
# path leaves the rest to the full argument layer).
_FLOAT_MIN, _FLOAT_MAX = 1e-44, 3.4e38


def _u8(*shape):
    return np.zeros(shape or (1, 1), np.uint8)


# Error sites, measured from the installed cv2 (_errors.site): a call of cv2 that fails at each.
_AT_TYPE = _errors.site("hough.cpp:type", lambda: cv2.HoughLines(np.zeros((1, 1), np.float32), 1, 1, 1),
                        _errors.ASSERTION_FAILED, "HoughLinesStandard", "hough.cpp")
_AT_RANGE = _errors.site("hough.cpp:theta-range", lambda: cv2.HoughLines(_u8(), 1, 1, 1, None, 0, 0, 1.0, 0.5),
                         _errors.UNSPECIFIED, _RANGE_FUNC, "hough.cpp")
_AT_RHO = _errors.site("hough.cpp:rho", lambda: cv2.HoughLines(_u8(), 0, 1, 1), _errors.UNSPECIFIED,
                       _HOUGH_LINES_FUNC, "hough.cpp")
_AT_THETA = _errors.site("hough.cpp:theta", lambda: cv2.HoughLines(_u8(), 1, 0, 1), _errors.UNSPECIFIED,
                         _HOUGH_LINES_FUNC, "hough.cpp")
_AT_THRESHOLD = _errors.site("hough.cpp:threshold", lambda: cv2.HoughLines(_u8(), 1, 1, -1), _errors.UNSPECIFIED,
                             _HOUGH_LINES_FUNC, "hough.cpp")
_AT_SET_SIZE = _errors.site("matrix.cpp:setSize", lambda: cv2.HoughLines(_u8(), -1, 1, 1),
                            _errors.ASSERTION_FAILED, "setSize", "matrix.cpp")


def _check_arguments(a):
    """5.1's checks in cv::HoughLines, in its order, before the image is looked at."""
    _errors.check_positive_finite32("rho", a["rho"], _HOUGH_LINES_FUNC, _AT_RHO)
    _errors.check_positive_finite32("theta", a["theta"], _HOUGH_LINES_FUNC, _AT_THETA)
    _errors.check_threshold_non_negative(a["threshold"], _HOUGH_LINES_FUNC, _AT_THRESHOLD)
    _check_range(a["min_theta"], a["max_theta"])


def _check_range(min_theta, max_theta):
    if not max_theta >= min_theta:
        raise _errors.cv_error(
            _errors.UNSPECIFIED,
            "> max_theta must be greater than min_theta (expected: 'max_theta >= min_theta'), where\n"
            ">     'max_theta' is %s\n> must be greater than or equal to\n>     'min_theta' is %s\n"
            % (_errors.cv_g(max_theta), _errors.cv_g(min_theta)), _RANGE_FUNC, at=_AT_RANGE)


def no_lines(with_votes, cp=None):
    """What cv2 returns when it finds no line: None, or from 5.1 an empty (0, 1, 2) / (0, 3) float32
    array (numpy, or CuPy for device input)."""
    if not _EMPTY_ARRAYS:
        return None
    shape = (0, 1, 3) if with_votes and ACCUMULATOR_3D else (0, 3) if with_votes else (0, 1, 2)
    return (cp or np).zeros(shape, dtype=np.float32)


# Lines sorted and written by hough_maxima_emit's last block in shared memory (its dynamic shared
# memory, 8 bytes a key, and the pinned result's size); more go through Thrust's sort.
SORT_CAPACITY = 8192

# The call words of the graphs (kernels/hough/lines.cu: LINES_WORD_*): the image's, then the
# threshold and the output pointer (0: results to pinned host memory only).
WORDS = _graphs.CallWords(IMAGE_WORDS + (("threshold", np.int32), ("out_ptr", np.uint64)),
                          lean_keeps=len(IMAGE_WORDS))
_pack_words = WORDS.pack_into


# ---------------------------------------------------------------- cv2's sizes

def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _numrho(rows, cols, rho32):
    # cvRound(((max_rho - min_rho) + 1) / rho): int arithmetic (wrapping), the int converted to float
    # and divided in float32, then cvRound(float).
    max_rho = wrap_int32(cols + rows)
    span = wrap_int32(wrap_int32(max_rho - wrap_int32(-max_rho)) + 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.float32(span) / np.float32(rho32)
    return cv_round(q, single=True)


def accumulator_size(rows, cols, rho32, theta32, min_theta, max_theta, rule=None):
    """(numangle, numrho) exactly as cv2's standard transform computes them: from 4.7 (#22164)
    cvFloor + 1 less the angle at pi, before cvRound of the range over theta (``hough.numangle``)."""
    if (rule or _NUMANGLE) == "round":
        numangle = cv_round(_div(max_theta - min_theta, float(theta32)))
    else:
        numangle = wrap_int32(cv_floor(_div(max_theta - min_theta, float(theta32))) + 1)
        if numangle > 1 and abs(math.pi - (numangle - 1) * float(theta32)) < float(theta32) / 2:
            numangle -= 1
    return numangle, _numrho(rows, cols, rho32)


@functools.lru_cache(maxsize=64)
def trig_table(numangle, rho32, theta32, min_theta):
    """cv2's float32 (cos, sin) / rho table. The angle is accumulated in float32 (ang += theta),
    not n * theta; sin and cos are libm's double functions (math.sin is the platform's libm, as
    cv2's std::sin), scaled by the float32 1/rho in double and rounded to float32."""
    irho = float(np.float32(1) / np.float32(rho32))
    steps = np.full(numangle, np.float32(theta32), dtype=np.float32)
    steps[0] = np.float32(min_theta)
    angles = np.add.accumulate(steps, dtype=np.float32)  # sequential float32 sums, as cv2's loop
    tab_cos = np.array([math.cos(float(a)) * irho for a in angles], dtype=np.float32)
    tab_sin = np.array([math.sin(float(a)) * irho for a in angles], dtype=np.float32)
    return tab_cos, tab_sin


def rows_inside(tab_cos, tab_sin, rows, cols, numrho):
    """Whether every vote of a rows x cols image lands in its row's interior columns 1 .. numrho:
    the corners' bins (kernels/hough/lines.cu: hough_row_bounds' rule, the voting's float32
    arithmetic: two rounded products, a rounded sum, round half to even) within that range and
    every corner's sum below 2^30 in magnitude. Where it holds, HoughLines scans the accumulator by
    its rows' windows."""
    xs = np.array([0, cols - 1, 0, cols - 1], dtype=np.float32)
    ys = np.array([0, 0, rows - 1, rows - 1], dtype=np.float32)
    with np.errstate(all="ignore"):
        v = xs[None, :] * tab_cos[:, None] + ys[None, :] * tab_sin[:, None]  # (float32 throughout)
        if not bool(np.all(np.abs(v) < np.float32(1 << 30))):
            return False
    bins = np.rint(v).astype(np.int64) + (numrho - 1) // 2 + 1
    return bool(bins.min() >= 1 and bins.max() <= numrho)


# ---------------------------------------------------------------- argument layer

_convert_array = _binding.array_converter("lines")


def _prepare(func_name, args, kwargs):
    a = _binding.parse(func_name, _PARAMS[func_name], args, kwargs, _convert_array, _ORDER[func_name])
    a.setdefault("use_edgeval", False)
    return a


def _forward_to_cv2(func_name, a, image):
    """The multi-scale path and the no-GPU fallback: cv2 computes, on host data."""
    cv2_args = [image, a["rho"], a["theta"], a["threshold"], None, a["srn"], a["stn"],
                a["min_theta"], a["max_theta"]]
    if func_name in EDGEVAL_FUNCTIONS:
        cv2_args.append(a["use_edgeval"])
    _backend.record("cv2")
    return getattr(cv2, func_name)(*cv2_args)


def _deliver(result, lines_arg):
    """cv2 writes into a given ``lines`` array (and returns it) only when its Mat already has the
    result's size and type: HoughLines an (N, 1, 2) float32 array (N x 1 CV_32FC2);
    HoughLinesWithAccumulator an (N, 1, 3) or (1, N, 3) float32 array (its 1-D result of N CV_32FC3
    fits either); an (N, 3) float32 array is N x 3 CV_32FC1, so cv2 returns a new array."""
    if result is None or lines_arg is None:
        return result
    n, per_line = result.shape[0], result.shape[-1]
    # 5.x's accumulator result is a 1-D Mat of N CV_32FC3 (fits (N, 1, 3) and (1, N, 3) arrays);
    # 4.x's an N x 1 Mat (fits (N, 1, 3) only).
    shapes = ((n, 1, per_line),) if per_line == 2 or ACCUMULATOR_3D else ((n, 1, per_line), (1, n, per_line))
    return _binding.deliver(result, lines_arg, shapes)


def _hough(func_name, with_votes, args, kwargs):
    a = _prepare(func_name, args, kwargs)
    pending = a.pop(_binding.PENDING, None)
    result = _hough_parsed(func_name, with_votes, a, args, kwargs)
    if pending is not None:  # cv2 ran the call with an error pending (its own error would replace it)
        raise _binding.returned_with_error(func_name, pending)
    return result


def _hough_parsed(func_name, with_votes, a, args, kwargs):
    mat = a["image"]
    on_device = isinstance(mat, _binding.DeviceMat)
    if a["srn"] != 0 or a["stn"] != 0:
        # Multi-scale transform: cv2's serial coarse-to-fine algorithm, computed by cv2 (see
        # compat_matrix: variant "multiscale", backend "cv2").
        image = mat.array.get() if on_device else (args[0] if args else kwargs.get("image"))
        result = _forward_to_cv2(func_name, a, image)
        if on_device and result is not None:
            result = _backend.cupy_module().asarray(result)
        return _deliver(result, a["lines"])

    # cv2's checks, in cv2's order: (5.1: cv::HoughLines' argument checks, then an empty image
    # returns at once) HoughLinesStandard's type, theta range, accumulator size.
    min_theta, max_theta = a["min_theta"], a["max_theta"]
    rows, cols = mat.rows, mat.cols
    if _ARG_CHECKS:
        _check_arguments(a)
        if rows * cols == 0:  # (a number or tuple is a 4 x 1 / n x 1 CV_64F Mat: not empty)
            _backend.record("none")  # (an answer without pixel work, as below)
            return no_lines(True, _backend.cupy_module() if on_device else None) if with_votes else None
    if not mat.is_type(np.uint8, 1):
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "img.type() == CV_8UC1", "HoughLinesStandard", at=_AT_TYPE)
    _check_range(min_theta, max_theta)
    rho32, theta32 = np.float32(a["rho"]), np.float32(a["theta"])
    numangle, numrho = accumulator_size(rows, cols, rho32, theta32, min_theta, max_theta)
    nbytes = (numangle + 2) * (numrho + 2) * 4
    if _SIZE_CHECK == "set_size" and min(numangle, numrho) + 2 < 0:
        # OpenCV 4's Mat::create asserts each size; OpenCV 5 lets the size_t product overflow.
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "s >= 0", "setSize", at=_AT_SET_SIZE)
    if nbytes < 0 or nbytes >= (1 << 63):
        raise _errors.out_of_memory(nbytes)

    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        return _deliver(_forward_to_cv2(func_name, a, args[0] if args else kwargs.get("image")), a["lines"])
    if numangle <= 0 or numrho <= 0 or rows <= 0 or cols <= 0 or mat.array is None:
        # No cell can be voted for (cv2 allocates, votes nothing, finds nothing).
        _backend.record("none")
        return _deliver(no_lines(with_votes, cp if on_device else None), a["lines"])
    _backend.record("cuda")
    image = mat.array
    if image.ndim != 2:
        image = image.reshape(rows, cols)
    try:
        lines = _gpu_lines(cp, image, numangle, numrho, rho32, theta32, min_theta, a["threshold"],
                           a["use_edgeval"], with_votes, not on_device)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(nbytes) from None
    if lines is None:
        return _deliver(no_lines(with_votes, cp if on_device else None), a["lines"])
    if with_votes:
        lines = lines.reshape(-1, 1, 3) if ACCUMULATOR_3D else lines.reshape(-1, 3)
    else:
        lines = lines.reshape(-1, 1, 2)
    return _deliver(lines, a["lines"])


# ---------------------------------------------------------------- the launch plan

_device_tables = {}


def _device_trig(cp, numangle, rho32, theta32, min_theta):
    # Per device and stream: a table is uploaded on, read on and (once evicted) freed back to the
    # memory pool of one stream only, so no kernel of another stream can see it half-written or reused.
    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr, numangle, float(rho32), float(theta32),
           min_theta)
    tabs = _device_tables.get(key)
    if tabs is None:
        if len(_device_tables) > 64:
            _device_tables.clear()
        tab_cos, tab_sin = trig_table(numangle, rho32, theta32, min_theta)
        tabs = (cp.asarray(tab_cos), cp.asarray(tab_sin))
        _device_tables[key] = tabs
    return tabs


class _Workspace:
    """Per thread and device: scratch reused by every call (no allocation or memset per call),
    and the launch plans built over it. The counters are zero between calls: hough_maxima_emit
    resets them."""

    def __init__(self, cp):
        self.cp = cp
        self.counters = cp.zeros(4, dtype=cp.int32)
        self.arrays = {}
        self.plans = {}
        # hough_maxima_emit's published count (flag), then the lines of a host result.
        results = _graphs.PinnedResults(cp, 1 + 3 * SORT_CAPACITY)
        self.pinned, self.host, self.flag, self.flag_ptr = results.pinned, results.host, results.flag, results.flag_ptr
        self.call = _graphs.CallBuffer(cp, WORDS)  # shared by the plans: one image's words loaded at a time
        self.call_bytes = self.call.bytes
        # Output memory for the next device-result call, allocated while the GPU runs the current one.
        self.spare_out = _graphs.SpareOutput()
        self.last_key = self.last_plan = None
        self.last_stream = None  # the stream of the last call (_after_last_call)
        self.up_bytes, self.up_host, self.up_dev = 0, None, None
        self.up_host_ptr = self.up_dev_ptr = 0  # their addresses (ndarray.ctypes costs ~1 us a read)

    def upload(self, image):
        """A host image on the device through this thread's pinned buffer: numpy's copy into it and
        an asynchronous copy up. A copy from pageable memory would make the driver stage it under a
        lock of its own and wait for the stream, so threads calling at once would take turns. The
        buffers are reused by the thread's next call, which starts after this one's result was
        waited for (the kernels had read the image by then)."""
        rows, cols = image.shape
        n = rows * cols
        cp = self.cp
        self.reserve(n)
        host = self.up_host[:n].reshape(rows, cols)
        np.copyto(host, image)
        cp.cuda.runtime.memcpyAsync(self.up_dev.data.ptr, host.ctypes.data, n, cp.cuda.runtime.memcpyHostToDevice,
                                    cp.cuda.get_current_stream().ptr)
        return self.up_dev[:n].reshape(rows, cols)

    def send_bits(self, helpers, image):
        """A host image on the device as its bit image (read by hough_collect_bits), packed into
        this thread's pinned buffer and sent up by hostcall.c in one GIL release. Returns the device
        pointer and row step."""
        image = _native.rows_contiguous(image)
        rows, cols = image.shape
        step = _native.bit_row_bytes(cols)
        self.reserve(rows * step)
        ptr = self.up_dev_ptr
        _native.send_bit_rows(helpers, image, self.up_host_ptr, ptr, self.cp.cuda.get_current_stream().ptr,
                              "HoughLines", "hough.cpp")
        return ptr, step

    def reserve(self, n):
        """The upload buffers (pinned staging, device image) hold at least ``n`` bytes."""
        if self.up_bytes < n:
            pinned = self.cp.cuda.alloc_pinned_memory(n)
            self.up_host, self.up_dev, self.up_bytes = np.frombuffer(pinned, np.uint8, n), self.cp.empty(n, self.cp.uint8), n
            self.up_host_ptr, self.up_dev_ptr = self.up_host.ctypes.data, self.up_dev.data.ptr

    def array(self, name, size, dtype, zeroed=False):
        """The workspace's array ``name`` of at least ``size`` items (``zeroed``: zeros when made)."""
        arr = self.arrays.get((name, dtype))
        if arr is None or arr.size < size:
            make = self.cp.zeros if zeroed else self.cp.empty
            arr = self.arrays[(name, dtype)] = make(max(size, 1), dtype=dtype)
            self.plans.clear()  # plans hold the old buffers in their argument tuples
            self.last_key = self.last_plan = None
        return arr


def _workspace(cp):
    return _kernels.thread_workspace("hough", lambda: _Workspace(cp))


def _bits_on():
    """Whether numpy images go up as bits: TUNING.host_bits, where the host helpers load."""
    return TUNING.host_bits and _native.helpers() is not None


def _sends_bits(to_host, image, use_edgeval):
    """Whether a call's image goes up as bits: a numpy image (a host result) without use_edgeval
    (_bits_on)."""
    return to_host and type(image) is np.ndarray and not use_edgeval and _bits_on()


def _ran(path):
    TUNING.ran("lines." + path)


class _Plan(_graphs.GraphPlan):
    """Everything of a launch sequence that does not change between calls of the same sizes and
    parameters: kernels, grids, arguments over the workspace; a call only adds its call words
    (image, threshold, output). The first call launches directly; the second captures the graph
    (GraphPlan) and every call from then on replays it."""

    __slots__ = ("out_floats", "out_bytes", "per_line", "line_args", "keys", "num_sms", "calls", "last_shape",
                 "bits")


def _build_plan(cp, ws, rows, cols, numangle, numrho, rho32, theta32, min_theta, use_edgeval, with_votes, to_host,
                bits=False):
    num_sms, max_shared = _kernels.device_properties()
    wide = max(rows, cols) > 0xFFFF
    options = ("-DCVGPU_WIDE_POINTS",) if wide else ()

    def kernel(name, max_dynamic_shared=None):
        return _kernels.get_function(FAMILY, name, options, max_dynamic_shared=max_dynamic_shared)
    tab_cos, tab_sin = _device_trig(cp, numangle, rho32, theta32, min_theta)
    npix = rows * cols
    accum_cells = (numangle + 2) * (numrho + 2)
    max_maxima = numangle * ((numrho + 1) // 2 + 1)
    # All zeros between calls: made so, and every plan's last kernel (hough_zero_after) zeroes what
    # its votes could reach; each plan's row windows (hough_row_bounds) are computed once, here.
    accum = ws.array("accum", accum_cells, cp.int32, zeroed=True)
    bounds = cp.zeros(2 + 2 * numangle, dtype=cp.int32)
    kernel("hough_row_bounds")((cdiv(numangle, 128),), (128,),
                               (tab_cos, tab_sin, np.int32(numangle), np.int32(numrho), np.int64(rows), np.int64(cols),
                                bounds))
    points = ws.array("points", npix, cp.uint64 if wide else cp.uint32)
    weights = ws.array("weights", npix, cp.uint8) if use_edgeval else NULL
    keys = ws.array("keys", max_maxima, cp.uint64)
    counters = ws.counters
    common = dict(points=points, weights=weights, counters=counters)

    collect_name = "hough_collect_bits" if bits else "hough_collect_points"
    collect = Kernel(kernel(collect_name), (collect_grid(rows, cols),), (256,), 0,
                     img=Word("image_ptr"), cols=np.int32(cols), step=Word("row_step"), rows=np.int64(rows),
                     align=Word("load_width"), **common, call=CALL)
    variant = vote_variant((numrho + 2) * 4, max_shared)
    if variant == "shared":
        host_cos, host_sin = trig_table(numangle, rho32, theta32, min_theta)

        def window(k):
            return vote_window(host_cos, host_sin, rows, cols, k, numrho + 2)
        (per_block, splits), forced = shared_vote_grid(
            numangle, numrho, npix, num_sms, max_shared,
            vote_residency(FAMILY, "hough_vote_shared_%d", options, window), window)
        if forced:
            _ran(forced)
        window_cells = window(per_block)
        smem = per_block * window_cells * 4
        vote = Kernel(kernel("hough_vote_shared_%d" % per_block, smem), (cdiv(numangle, per_block), splits),
                      (VOTE_THREADS,), smem, **common, tab_cos=tab_cos, tab_sin=tab_sin,
                      numangle=np.int32(numangle), numrho=np.int32(numrho), window=np.int32(window_cells),
                      min_points=np.int32(TUNING.vote_min_points), rows=np.int32(rows), cols=np.int32(cols),
                      accum=accum, accum_size=np.int64(accum_cells))
    else:
        angles = TUNING.global_angles
        vote = Kernel(kernel("hough_vote_global"),
                      (num_sms * TUNING.global_blocks_per_sm, min(65535, cdiv(numangle, angles))), (256,), 0,
                      **common, tab_cos=tab_cos, tab_sin=tab_sin, numangle=np.int32(numangle),
                      numrho=np.int32(numrho), angles_per_block=np.int32(angles), accum=accum,
                      accum_size=np.int64(accum_cells))
    _ran("vote-" + variant)
    line_args = dict(numrho=np.int32(numrho), rho=np.float32(rho32), theta=np.float32(theta32),
                     min_theta=np.float32(min_theta), rho_mode=np.int32(RHO_MODE),
                     with_votes=np.int32(1 if with_votes else 0))
    host_ptr = ws.pinned.ptr
    # The scan by rows' windows where every vote stays in its row and no vote count can wrap past
    # INT_MAX (use_edgeval): kernels/hough/lines.cu, hough_windowed.
    windowed = (TUNING.lines_windowed and not (use_edgeval and npix * 255 > INT_MAX)
                and rows_inside(*trig_table(numangle, rho32, theta32, min_theta), rows, cols, numrho))
    per_sm = TUNING.lines_windowed_blocks_per_sm if windowed else TUNING.maxima_blocks_per_sm
    emit_args = dict(accum=accum, numangle=np.int32(numangle), threshold=Word("threshold"), keys=keys,
                     counters=counters, capacity=np.int32(SORT_CAPACITY), **line_args, out_dev=Word("out_ptr"),
                     out_host=np.uint64(host_ptr + 4 if to_host else 0), host_count=np.uint64(host_ptr), call=CALL)
    if windowed:
        emit_args["bounds"] = bounds
    emit = Kernel(kernel("hough_maxima_emit_windowed" if windowed else "hough_maxima_emit", SORT_CAPACITY * 8),
                  (max(1, min(cdiv(numangle * numrho, 1024), num_sms * per_sm)),), (1024,), SORT_CAPACITY * 8,
                  **emit_args)
    _ran("maxima-windowed" if windowed else "maxima-plain")
    zero_grid = max(1, min(cdiv(accum_cells, 4 * 256), num_sms * TUNING.zero_blocks_per_sm))
    zero = Kernel(kernel("hough_zero_after"), (zero_grid,), (256,), 0, accum=accum, accum_size=np.int64(accum_cells),
                  bounds=bounds, numangle=np.int32(numangle), numrho=np.int32(numrho))
    # Captured through the driver where cvgpu._native's helpers load: host-image calls then replay
    # it from C (_replay_native).
    plan = _Plan(cp, FAMILY, options, ws.call, (collect, vote, emit, zero),
                 collect.lean(kernel(collect_name + "_lean")), _ran, driver=_native.helpers() is not None)
    plan.bits = bits
    plan.per_line = 3 if with_votes else 2
    plan.out_floats = min(max_maxima, SORT_CAPACITY) * plan.per_line
    plan.out_bytes = plan.out_floats * 4
    plan.line_args = tuple(line_args.values())
    plan.keys, plan.num_sms, plan.calls, plan.last_shape = keys, num_sms, 0, None
    return plan


# ---------------------------------------------------------------- running a plan

def _gpu_lines(cp, image, numangle, numrho, rho32, theta32, min_theta, threshold, use_edgeval,
               with_votes, to_host, shape_3d=False, key=None):
    """Run the pipeline on ``image`` (2-D uint8, device or host). Returns numpy or CuPy float32
    lines (count x 2 or x 3; count x 1 x 2/3 with shape_3d), or None when there are none."""
    rows, cols = image.shape
    ws = _workspace(cp)
    if key is None:  # (the fast path passes the same tuple, built once per size and parameters)
        key = (rows, cols, numangle, numrho, float(rho32), float(theta32), min_theta, use_edgeval, with_votes,
               to_host, TUNING.generation, _sends_bits(to_host, image, use_edgeval))
    plan = ws.last_plan if key is ws.last_key else ws.plans.get(key)
    if plan is None:
        if len(ws.plans) > 32:
            ws.plans.clear()
        plan = ws.plans[key] = _build_plan(cp, ws, rows, cols, numangle, numrho, rho32, theta32, min_theta,
                                           use_edgeval, with_votes, to_host, bits=key[-1])
    ws.last_key, ws.last_plan = key, plan
    host_image = to_host and type(image) is np.ndarray
    if host_image and type(plan.graph) is _native.DriverGraph and (
            plan.bits or (image.strides[1] == 1 and image.strides[0] >= cols)):
        helpers = _native.helpers()
        if helpers is not None:
            plan.calls += 1
            return _replay_native(cp, helpers, ws, plan, image, threshold, shape_3d)
    if plan.bits:
        image_ptr, step = ws.send_bits(_native.helpers(), image)
        align = 0   # (not read by hough_collect_bits)
    else:
        d_image = ws.upload(image) if host_image else upload_2d(image)
        step = d_image.strides[0]
        image_ptr = d_image.data.ptr
        align = load_width(image_ptr, step, cols)
    graph = plan.graph
    if graph is None and plan.calls:
        graph = plan.full_graph()
    plan.calls += 1
    if graph:
        return _replay(cp, ws, plan, (image_ptr, step, align), threshold, to_host, shape_3d)
    _ran("direct")
    stream = cp.cuda.get_current_stream()
    _after_last_call(ws, stream)
    ws.flag[0] = -1
    out_dev = None if to_host else ws.spare_out.take(cp, stream, plan.out_bytes)
    try:
        plan.launch_direct((np.uint64(image_ptr), np.int64(step), np.int32(align), np.int32(threshold),
                            NULL if out_dev is None else np.uint64(out_dev.ptr)))
    except BaseException:
        _reset_workspace(ws)
        raise
    return _lines(cp, ws, plan, stream, out_dev, None, to_host, shape_3d)


def _reset_workspace(ws):
    # A launch that did not run leaves the counters as they were, and the accumulator maybe not
    # zeroed: start the next call clean.
    ws.cp.cuda.get_current_stream().synchronize()
    ws.counters.fill(0)
    accum = ws.arrays.get(("accum", np.int32))  # (the key ws.array gave it)
    if accum is not None:
        accum.fill(0)
    ws.call.loaded = None


def _after_last_call(ws, stream):
    """Orders a call on ``stream`` after the workspace's last call, whose hough_zero_after may still
    run when its count has been read: on the same stream the stream orders them; on another (a
    thread that changed streams) the last call's stream is waited for."""
    last = ws.last_stream
    if last is not stream:
        if last is not None and last.ptr != stream.ptr:
            last.synchronize()
        ws.last_stream = stream


def _replay(cp, ws, plan, head, threshold, to_host, shape_3d):
    """The plan's captured graph on the image of call words ``head``; the result as _gpu_lines'."""
    stream = cp.cuda.get_current_stream()
    _after_last_call(ws, stream)
    ws.flag[0] = -1
    # Device results need memory of their own (an array is made once the count is known); host
    # results are read from pinned memory.
    out_dev = None if to_host else ws.spare_out.take(cp, stream, plan.out_bytes)
    prepared = None
    try:
        _pack_words(ws.call_bytes, 0, *head, threshold, 0 if out_dev is None else out_dev.ptr)
        plan.replay(stream, head)
        if out_dev is not None:
            # Host work that would otherwise follow the wait is done during it: the next call's
            # output memory, and this call's array shaped for the previous call's line count (a
            # repeated or slowly changing image keeps it).
            ws.spare_out.refill(cp, stream, plan.out_bytes)
            if plan.last_shape is not None:
                prepared = cp.ndarray(plan.last_shape, dtype=cp.float32, memptr=out_dev)
    except BaseException:
        _reset_workspace(ws)
        raise
    return _lines(cp, ws, plan, stream, out_dev, prepared, to_host, shape_3d)


def _replay_native(cp, helpers, ws, plan, image, threshold, shape_3d):
    """A host image's replayed call in one C call without the GIL (cvgpu._native, hostcall.c): the
    copy into the thread's pinned staging, its upload, the graph launch and the wait for the count;
    then the lines as _lines returns them. The device image words are those of the thread's upload
    buffer, so the lean graph replays while its size holds."""
    _ran("native-bits" if plan.bits else "native")
    image = _native.rows_contiguous(image)
    rows, cols = image.shape
    step = _native.bit_row_bytes(cols) if plan.bits else cols
    ws.reserve(rows * step)
    ptr = ws.up_dev_ptr
    head = (ptr, step, 0 if plan.bits else load_width(ptr, cols, cols))
    stream = cp.cuda.get_current_stream()
    _after_last_call(ws, stream)
    try:
        _pack_words(ws.call_bytes, 0, *head, threshold, 0)
        graph = plan.pick(head)
        count = helpers.upload_replay(image.ctypes.data, rows, cols, image.strides[0], ws.up_host_ptr, ptr,
                                      graph.handle, stream.ptr, ws.flag_ptr, -1, 1 if plan.bits else 0)
        plan.buffer.loaded = head
        if count < 0:  # (-1: the stream finished without the count; below _native.ERROR: a driver error)
            stream.synchronize()  # raises the error of a failed launch, if the stream has one
            _incomplete()
    except BaseException:
        _reset_workspace(ws)
        raise
    return _result(cp, ws, plan, count, None, None, True, shape_3d)


def _incomplete():
    raise _errors.cv_error(_errors.GPU_API_ERROR, "the Hough kernels did not complete", "HoughLines", "hough.cpp", 0)


def _lines(cp, ws, plan, stream, out_dev, prepared, to_host, shape_3d):
    """The launched call's lines: the one host wait, then numpy or CuPy float32 lines, or None."""
    flag = ws.flag
    try:
        # The one host wait: the line count decides the shape. The count the last kernel publishes
        # is polled rather than the stream synchronised: the host goes on as soon as it is written.
        await_published(flag, -1, stream, ws.flag_ptr)
        count = flag[0]
        if count < 0:
            _incomplete()
    except BaseException:
        _reset_workspace(ws)
        raise
    return _result(cp, ws, plan, count, out_dev, prepared, to_host, shape_3d)


def _result(cp, ws, plan, count, out_dev, prepared, to_host, shape_3d):
    """The lines of a call whose kernels published ``count``: numpy or CuPy float32, or None."""
    if count == 0:
        return no_lines(plan.per_line == 3, None if to_host else cp)
    per_line = plan.per_line
    shape = (count, 1, per_line) if shape_3d else (count, per_line)
    if count <= SORT_CAPACITY:
        if to_host:
            return ws.host[1:1 + count * per_line].view(np.float32).reshape(shape).copy()
        plan.last_shape = shape
        if prepared is not None and prepared.shape == shape:
            return prepared
        return cp.ndarray(shape, dtype=cp.float32, memptr=out_dev)
    # More lines than one block sorts: Thrust's radix sort over the keys, then a wide emit.
    _ran("sort-host")
    sorted_keys = _device_ops.ops(cp).sort(plan.keys[:count])
    out = cp.empty(count * per_line, dtype=cp.float32)
    _kernels.get_function(FAMILY, "hough_emit", plan.options)(
        (min(cdiv(count, 256), plan.num_sms * 8),), (256,),
        (sorted_keys, np.int32(count)) + plan.line_args + (out,))
    out = out.reshape(shape)
    return out.get() if to_host else out


# ---------------------------------------------------------------- public API

_plans = {}


def _fast_plan(rows, cols, rho, theta, with_votes, to_host):
    """Sizes of a default-parameter call and its _gpu_lines plan key, cached; None when the call
    needs cv2's checks."""
    key = (rows, cols, rho, theta, with_votes, to_host)
    plan = _plans.get(key)
    if plan is None:
        rho32, theta32 = np.float32(rho), np.float32(theta)
        numangle, numrho = accumulator_size(rows, cols, rho32, theta32, 0.0, math.pi)
        nbytes = (numangle + 2) * (numrho + 2) * 4
        if numangle <= 0 or numrho <= 0 or not 0 <= nbytes < (1 << 62):
            return None
        if len(_plans) > 256:
            _plans.clear()
        gpu_key = (rows, cols, numangle, numrho, float(rho32), float(theta32), 0.0, False, with_votes, to_host,
                   TUNING.generation, to_host and _bits_on())
        plan = _plans[key] = (numangle, numrho, rho32, theta32, gpu_key)
    return plan


_NOT_FAST = object()
_UINT8 = np.dtype(np.uint8)  # (a dtype against a dtype: no conversion of the type object per call)
_NUMBERS = (float, int)


def _plain_numbers(rho, theta, threshold):
    """Whether rho and theta are Python floats or ints and threshold a Python int in int32's range:
    the fast paths' argument types."""
    return (type(threshold) is int and INT_MIN <= threshold < (1 << 31) and type(rho) in _NUMBERS
            and type(theta) in _NUMBERS)


class _Hot(_graphs.HotCall):
    """A device image met twice in a row by the fast path, with what its calls need, so that its
    next calls with the same rho and theta skip the checks, plan lookup and workspace lookup
    (kernels and result as _gpu_lines'). Valid while the same array object (held weakly) has the
    same shape and strides (a CuPy array's pointer and dtype never change; its shape may), on the
    same thread and current device."""

    __slots__ = ("image", "shape", "strides", "rho", "theta", "thread", "ws", "plan", "head", "shape_3d", "nbytes")


_hot = [None, None]   # [with_votes]: the _Hot of the last device image called twice in a row
_seen = [None, None]  # [with_votes]: id() of the last device image of the fast path


def _forget():
    """TUNING changed: plans and hot calls built under the values before are not reused."""
    _plans.clear()
    _hot[0] = _hot[1] = None
    _seen[0] = _seen[1] = None


TUNING.on_change(_forget)


def _hot_lines(hot, image, rho, theta, threshold):
    """The hot image's lines, or _NOT_FAST when this call is not its repeat."""
    if (not _plain_numbers(rho, theta, threshold) or rho != hot.rho or theta != hot.theta
            or image.shape != hot.shape or image.strides != hot.strides or _get_ident() != hot.thread):
        return _NOT_FAST
    if hot.get_device() != hot.device:
        return _NOT_FAST
    _backend.record("cuda")
    cp = hot.cp
    try:
        return _replay(cp, hot.ws, hot.plan, hot.head, threshold, False, hot.shape_3d)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(hot.nbytes) from None


class _HostHot:
    """A numpy image layout (shape, strides), rho and theta met by the fast path twice in a row on
    one thread, whose call replays its graph from C (_replay_native): the next calls like it skip
    the fast path's checks and the workspace and plan lookups, and run the same _replay_native. The
    Python around a numpy call is what bounds several threads (compat_matrix/HISTORY.md, "compare on
    a fresh H100, and where eight threads stop"). Valid while the current device, CuPy's usability
    (a forked child has none), cvgpu._native's helpers and TUNING.generation are those it was made
    under."""

    __slots__ = ("shape", "strides", "rho", "theta", "device", "generation", "cp", "helpers", "ws", "plan",
                 "shape_3d", "nbytes")


class _HostSlots(threading.local):
    """A thread's last fast numpy call's (shape, strides, rho, theta) and its _HostHot, [with_votes]."""

    def __init__(self):
        self.seen = [None, None]
        self.hot = [None, None]


_host = _HostSlots()


def _host_hot_lines(hot, image, rho, theta, threshold):
    """The lines of a numpy call like the thread's hot one, or _NOT_FAST when it is not."""
    if (image.shape != hot.shape or image.strides != hot.strides or image.dtype != _UINT8
            or not _plain_numbers(rho, theta, threshold) or rho != hot.rho or theta != hot.theta
            or (_ARG_CHECKS and threshold < 0) or hot.generation != TUNING.generation
            or _backend.cupy_module() is not hot.cp or _native.helpers() is not hot.helpers):
        return _NOT_FAST
    cp = hot.cp
    if cp.cuda.runtime.getDevice() != hot.device:
        return _NOT_FAST
    _backend.record("cuda")
    hot.plan.calls += 1
    try:
        return _replay_native(cp, hot.helpers, hot.ws, hot.plan, image, threshold, hot.shape_3d)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(hot.nbytes) from None


def _note_host_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes):
    """After a fast numpy call: the second in a row on this thread with the same image layout, rho
    and theta makes them hot, where the call replayed from C (_gpu_lines' native branch); the first
    only remembers them, so that calls whose layout changes each time pay nothing more here."""
    helpers = _native.helpers()
    if helpers is None:
        return
    seen = (image.shape, image.strides, rho, theta)
    if _host.seen[with_votes] != seen:
        _host.seen[with_votes] = seen
        return
    ws = _workspace(cp)
    plan = ws.last_plan
    if (plan is None or type(plan.graph) is not _native.DriverGraph
            or not (plan.bits or (image.strides[1] == 1 and image.strides[0] >= image.shape[1]))):
        return
    hot = _HostHot()
    hot.shape, hot.strides, hot.rho, hot.theta = image.shape, image.strides, rho, theta
    hot.device, hot.generation, hot.cp, hot.helpers = cp.cuda.runtime.getDevice(), TUNING.generation, cp, helpers
    hot.ws, hot.plan, hot.shape_3d, hot.nbytes = ws, plan, shape_3d, nbytes
    _host.hot[with_votes] = hot
    TUNING.ran("lines.host-hot")


def _note_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes):
    """After a fast device call: the second call in a row on ``image`` makes it hot (the first
    only remembers its id, so that a new array per call pays nothing more here)."""
    if _seen[with_votes] != id(image):
        _seen[with_votes] = id(image)
        return
    ws = _workspace(cp)
    plan = ws.last_plan
    if not plan.graph or ws.call.loaded is None:
        return
    hot = _Hot(cp)
    hot.image, hot.shape, hot.strides = weakref.ref(image), image.shape, image.strides
    hot.rho, hot.theta, hot.thread = rho, theta, _get_ident()
    hot.ws, hot.plan, hot.head = ws, plan, ws.call.loaded
    hot.shape_3d, hot.nbytes = shape_3d, nbytes
    _hot[with_votes] = hot
    TUNING.ran("lines.hot")


def _fast_hough(with_votes, args):
    """The common call ``f(image, rho, theta, threshold)`` with a 2-D uint8 numpy or CuPy image and
    plain Python numbers: the same result as the full argument layer without its generality;
    anything else returns _NOT_FAST and takes the full path."""
    image, rho, theta, threshold = args
    if type(image) is np.ndarray:
        hot = _host.hot[with_votes]
        if hot is not None:
            lines = _host_hot_lines(hot, image, rho, theta, threshold)
            if lines is not _NOT_FAST:
                return lines
    else:
        hot = _hot[with_votes]
        if hot is not None and hot.image() is image:
            lines = _hot_lines(hot, image, rho, theta, threshold)
            if lines is not _NOT_FAST:
                return lines
    cp = _backend.cupy_module()
    if cp is None:
        return _NOT_FAST
    kind = type(image)
    if kind is cp.ndarray:
        to_host = False
        if image.data.device_id != cp.cuda.runtime.getDevice():
            return _NOT_FAST  # (on_input_device switches devices on the full path)
    elif kind is np.ndarray:
        to_host = True
    else:
        return _NOT_FAST
    if (image.dtype != _UINT8 or image.ndim != 2 or not _plain_numbers(rho, theta, threshold)
            or not 0 < rho < 1e300 or not 0 < theta < 1e300
            or (_ARG_CHECKS and (threshold < 0 or not _FLOAT_MIN <= rho <= _FLOAT_MAX
                                 or not _FLOAT_MIN <= theta <= _FLOAT_MAX))):
        # (An int beyond a double's range is cv2's "int too large to convert to float": full path.)
        return _NOT_FAST
    rows, cols = image.shape
    if rows == 0 or cols == 0:
        return _NOT_FAST
    plan = _fast_plan(rows, cols, rho, theta, with_votes, to_host)
    if plan is None:
        return _NOT_FAST
    numangle, numrho, rho32, theta32, gpu_key = plan
    _backend.record("cuda")
    shape_3d = ACCUMULATOR_3D or not with_votes
    nbytes = (numangle + 2) * (numrho + 2) * 4
    try:
        lines = _gpu_lines(cp, image, numangle, numrho, rho32, theta32, 0.0, threshold, False,
                           with_votes, to_host, shape_3d=shape_3d, key=gpu_key)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(nbytes) from None
    if to_host:
        _note_host_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes)
    else:
        _note_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes)
    return lines


@on_input_device(0, "image")
def _hough_lines_on_device(*args, **kwargs):
    return _hough("HoughLines", False, args, kwargs)


@on_input_device(0, "image")
def _hough_lines_acc_on_device(*args, **kwargs):
    return _hough("HoughLinesWithAccumulator", True, args, kwargs)


def _gpu_hough(with_votes, args, kwargs):
    """The GPU path: the fast path for the common call, else the full argument layer."""
    if len(args) == 4 and not kwargs:
        lines = _fast_hough(with_votes, args)
        if lines is not _NOT_FAST:
            return lines
    return (_hough_lines_acc_on_device if with_votes else _hough_lines_on_device)(*args, **kwargs)


def _cv2_hough(func_name, args, kwargs):
    """cv2 computes the call as given (the engine's choice for host input): its result and errors."""
    _backend.record("cv2")
    return getattr(cv2, func_name)(*args, **kwargs)


_engine_keys = {}  # (with_votes, pixels, theta) -> _engine_key's value


def _engine_key(with_votes, image, args, kwargs):
    """What a call's cost depends on, for the engine's model: the image's size and the number of
    angles (cv2's work grows with both). Memoized: it is on every auto-mode call's path."""
    theta = args[2] if len(args) > 2 else kwargs.get("theta")
    memo = (with_votes, image.size, theta)
    try:
        return _engine_keys[memo]
    except (KeyError, TypeError):  # (TypeError: an unhashable theta, which cv2 then rejects)
        pass
    try:
        angles = int(math.log2(math.pi / float(theta)))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        angles = None
    key = (with_votes, _engine.size_bucket(image.size), angles)
    try:
        if len(_engine_keys) > 256:
            _engine_keys.clear()
        _engine_keys[memo] = key
    except TypeError:
        pass
    return key


def _hough_call(func_name, with_votes, args, kwargs):
    _backend.record(None)
    image = args[0] if args else kwargs.get("image")
    if type(image) is np.ndarray and _engine.get_engine() != _engine.CUDA:
        return _engine.run(func_name, _engine_key(with_votes, image, args, kwargs), False,
                           lambda: _gpu_hough(with_votes, args, kwargs), lambda: _cv2_hough(func_name, args, kwargs))
    return _gpu_hough(with_votes, args, kwargs)


# The fast path comes before the device switch of on_input_device: it takes arrays of the current
# device only, the others go through the decorated full path.
def HoughLines(*args, **kwargs):
    """HoughLines(image, rho, theta, threshold[, lines[, srn[, stn[, min_theta[, max_theta[, use_edgeval]]]]]]) -> lines

    cv2.HoughLines on the GPU: the same lines, float32 values and order as the installed cv2.
    ``image`` may be a numpy array (numpy out) or a CuPy/CUDA-array-interface/DLPack device array
    (CuPy out). srn/stn != 0 (multi-scale) is computed by cv2. Host input goes to the engine
    cvgpu._engine chooses (cv2 until the GPU is started and faster).
    """
    if len(args) == 4 and not kwargs and type(args[0]) is not np.ndarray:
        lines = _fast_hough(False, args)  # device input's fast path: records "cuda" before computing
        if lines is not _NOT_FAST:
            return lines
    return _hough_call("HoughLines", False, args, kwargs)


def HoughLinesWithAccumulator(*args, **kwargs):
    """HoughLinesWithAccumulator(image, rho, theta, threshold[, lines[, srn[, stn[, min_theta[, max_theta[, use_edgeval]]]]]]) -> lines

    As cvgpu.HoughLines, each line carrying its accumulator value as a third float32.
    """
    if len(args) == 4 and not kwargs and type(args[0]) is not np.ndarray:
        lines = _fast_hough(True, args)
        if lines is not _NOT_FAST:
            return lines
    return _hough_call("HoughLinesWithAccumulator", True, args, kwargs)


def _warm(cp):
    """The engine's start-up: this family's kernels and the host helpers loaded before its first GPU
    call."""
    _kernels.preload(FAMILY)
    _native.helpers()


_engine.register_warmup("hough", _warm)


def uses_gpu(srn=0, stn=0):
    """Whether a HoughLines call with these srn/stn values is computed by cvgpu's kernels."""
    return _backend.backend() == "cuda" and srn == 0 and stn == 0
