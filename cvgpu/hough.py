"""cv2.HoughLines and cv2.HoughLinesWithAccumulator on the GPU, bit-exact with the cv2 beside them.

The standard transform (srn == stn == 0) runs in ``kernels/hough.cu``; the host only works out
cv2's sizes and trig table (a few hundred numbers) and reads the line count back once. The
multi-scale transform (srn or stn nonzero) is computed by cv2 and reported as such.
"""
import functools
import math
import struct
import weakref
from threading import get_ident as _get_ident

import cv2
import numpy as np

from . import _backend, _binding, _errors, _kernels
from ._arrays import as_device_array, on_input_device, upload_2d

_CV2_VERSION = _backend.opencv_major_minor(cv2.__version__)
# OpenCV 4.13 fixed the half-bin rho shift of the standard transform's output (#27992).
RHO_MODE = 0 if _CV2_VERSION >= (4, 13) else 1
# HoughLinesWithAccumulator returns (N, 3) from 5.0 on, (N, 1, 3) before.
ACCUMULATOR_3D = _CV2_VERSION[0] < 5
HAS_USE_EDGEVAL = "use_edgeval" in (cv2.HoughLines.__doc__ or "")

_PARAMS = [
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
if HAS_USE_EDGEVAL:
    _PARAMS.append(_binding.Param("use_edgeval", "bool", False))
# cv2 converts the arguments in the C++ signature's order: lines right after image.
_ORDER = ["image", "lines"] + [p.name for p in _PARAMS if p.name not in ("image", "lines")]

# The signature in cv2's CV_Check errors: namespace-qualified array types up to OpenCV 4.12, plain from
# 4.13 on (4.10-4.14 and 5.0 checked).
_CHECK_GE_FUNC = ("void cv::HoughLinesStandard({0}InputArray, {0}OutputArray, int, float, float, int, int, "
                  "double, double{1})".format("cv::" if _CV2_VERSION < (4, 13) else "",
                                              ", bool" if HAS_USE_EDGEVAL else ""))

_INT_MIN = -(1 << 31)

# Lines sorted and written by one block in shared memory; more go through CuPy's sort.
_SORT_CAPACITY = 8192


# ---------------------------------------------------------------- cv2's integer conversions

def _wrap_int32(v):
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


def _cv_floor(x):
    # cv2's cvFloor(double) in this build behaves as (int)floor(x): x86's cvttsd2si gives INT_MIN for
    # NaN and for a floor outside int (measured on the -4 message's size: -inf, -2**31 - 0.5, 3e9).
    if not math.isfinite(x):
        return _INT_MIN
    f = math.floor(x)
    return f if -2147483648 <= f <= 2147483647 else _INT_MIN


def _cv_round(x):
    # cvRound(double) is cvtsd2si, cvRound(float) cvtss2si: round half to even, INT_MIN when out of range.
    if not math.isfinite(x):
        return _INT_MIN
    r = round(x)
    return r if -2147483648 <= r <= 2147483647 else _INT_MIN


def _div(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _numrho(rows, cols, rho32):
    # cvRound(((max_rho - min_rho) + 1) / rho): int arithmetic (wrapping), the int converted to float
    # and divided in float32, then cvRound(float).
    max_rho = _wrap_int32(cols + rows)
    span = _wrap_int32(_wrap_int32(max_rho - _wrap_int32(-max_rho)) + 1)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        q = np.float32(span) / np.float32(rho32)
    return _cv_round(float(q))


def accumulator_size(rows, cols, rho32, theta32, min_theta, max_theta):
    """(numangle, numrho) exactly as cv2's standard transform computes them."""
    numangle = _wrap_int32(_cv_floor(_div(max_theta - min_theta, float(theta32))) + 1)
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


# ---------------------------------------------------------------- argument layer

class _DeviceMat(_binding.HostMat):
    __slots__ = ()


def _convert_array(name, value):
    if name == "lines":
        return value if as_device_array(value) is not None else _binding.out_mat(name, value)
    device = as_device_array(value)
    if device is not None:
        header = _binding.mat_header(name, device, device.shape, device.dtype)
        return _DeviceMat(device, header.rows, header.cols, header.channels, header.dtype)
    return _binding.host_mat(name, value)


def _prepare(func_name, args, kwargs):
    a = _binding.parse(func_name, _PARAMS, args, kwargs, _convert_array, _ORDER)
    a.setdefault("use_edgeval", False)
    return a


def _forward_to_cv2(func_name, a, image):
    """The multi-scale path and the no-GPU fallback: cv2 computes, on host data."""
    cv2_args = [image, a["rho"], a["theta"], a["threshold"], None, a["srn"], a["stn"],
                a["min_theta"], a["max_theta"]]
    if HAS_USE_EDGEVAL:
        cv2_args.append(a["use_edgeval"])
    _backend.record("cv2")
    return getattr(cv2, func_name)(*cv2_args)


def _deliver(result, lines_arg):
    """cv2 writes into a given ``lines`` array (and returns it) only when its Mat already has the
    result's size and type: HoughLines an (N, 1, 2) float32 array (N x 1 CV_32FC2);
    HoughLinesWithAccumulator an (N, 1, 3) or (1, N, 3) float32 array (its 1-D result of N CV_32FC3
    fits either); an (N, 3) float32 array is N x 3 CV_32FC1, so cv2 returns a new array."""
    if result is None or lines_arg is None or type(lines_arg) is not type(result):
        return result
    n, per_line = result.shape[0], result.shape[-1]
    shapes = ((n, 1, per_line),) if per_line == 2 else ((n, 1, per_line), (1, n, per_line))
    if lines_arg.dtype == result.dtype and lines_arg.shape in shapes:
        lines_arg[...] = result.reshape(lines_arg.shape)
        return lines_arg
    return result


def _hough(func_name, with_votes, args, kwargs):
    a = _prepare(func_name, args, kwargs)
    pending = a.pop(_binding.PENDING, None)
    result = _hough_parsed(func_name, with_votes, a, args, kwargs)
    if pending is not None:  # cv2 ran the call with an error pending (its own error would replace it)
        raise _binding.returned_with_error(func_name, pending)
    return result


def _hough_parsed(func_name, with_votes, a, args, kwargs):
    mat = a["image"]
    on_device = isinstance(mat, _DeviceMat)
    if a["srn"] != 0 or a["stn"] != 0:
        # Multi-scale transform: cv2's serial coarse-to-fine algorithm, computed by cv2 (see
        # compat_matrix: variant "multiscale", backend "cv2").
        image = mat.array.get() if on_device else (args[0] if args else kwargs.get("image"))
        result = _forward_to_cv2(func_name, a, image)
        if on_device and result is not None:
            result = _backend.cupy_module().asarray(result)
        return _deliver(result, a["lines"])

    # cv2's checks, in cv2's order (HoughLinesStandard): type, theta range, accumulator size.
    if not mat.is_type(np.uint8, 1):
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "img.type() == CV_8UC1", "HoughLinesStandard",
                               "hough.cpp", 0)
    min_theta, max_theta = a["min_theta"], a["max_theta"]
    if not max_theta >= min_theta:
        raise _errors.cv_error(
            _errors.UNSPECIFIED,
            "> max_theta must be greater than min_theta (expected: 'max_theta >= min_theta'), where\n"
            ">     'max_theta' is %g\n> must be greater than or equal to\n>     'min_theta' is %g\n"
            % (max_theta, min_theta), _CHECK_GE_FUNC, "hough.cpp", 0)
    rho32, theta32 = np.float32(a["rho"]), np.float32(a["theta"])
    rows, cols = mat.rows, mat.cols
    numangle, numrho = accumulator_size(rows, cols, rho32, theta32, min_theta, max_theta)
    nbytes = (numangle + 2) * (numrho + 2) * 4
    if _CV2_VERSION[0] < 5 and min(numangle, numrho) + 2 < 0:
        # OpenCV 4's Mat::create asserts each size; OpenCV 5 lets the size_t product overflow.
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "s >= 0", "setSize", "matrix.cpp", 0)
    if nbytes < 0 or nbytes >= (1 << 63):
        raise _errors.out_of_memory(nbytes)

    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        return _deliver(_forward_to_cv2(func_name, a, args[0] if args else kwargs.get("image")), a["lines"])
    _backend.record("cuda")
    if numangle <= 0 or numrho <= 0 or rows <= 0 or cols <= 0 or mat.array is None:
        return None  # no cell can be voted for (cv2 allocates, votes nothing, finds nothing)
    image = mat.array
    if image.ndim != 2:
        image = image.reshape(rows, cols)
    try:
        lines = _gpu_lines(cp, image, numangle, numrho, rho32, theta32, min_theta, a["threshold"],
                           a["use_edgeval"], with_votes, not on_device)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(nbytes) from None
    if lines is None:
        return None
    if with_votes:
        lines = lines.reshape(-1, 1, 3) if ACCUMULATOR_3D else lines.reshape(-1, 3)
    else:
        lines = lines.reshape(-1, 1, 2)
    return _deliver(lines, a["lines"])


# ---------------------------------------------------------------- GPU pipeline

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


def _cdiv(a, b):
    return -(-a // b)


# Voting rule (measured on the H100, see VOTE_RULE_NOTES): shared-memory rows whenever a row fits
# in a block's opt-in shared memory; several angles per block so that each point is loaded once
# per group of angles; the points split over enough blocks to cover the GPU.
VOTE_RULE_NOTES = "shared when (numrho + 2) * 4 <= opt-in shared memory per block; global otherwise"
_VOTE_THREADS = 512
_MAX_ANGLES_PER_BLOCK = 8


def collect_grid(rows, cols, accum_cells, num_sms):
    """Blocks of kernels/hough_points.cuh: one per 8 chunks of 512 pixels of a row (one per warp),
    and at least enough to zero the accumulator quickly."""
    tiles = _cdiv(rows * _cdiv(cols, 512), 8)
    return max(tiles, min(num_sms * 8, _cdiv(accum_cells, 4 * 256)), 1)


def load_width(ptr, step, cols):
    """The widest load (16, 4 or 1 bytes) hough_collect may use for an 8-bit image at ``ptr``: every
    row starts on a boundary of that many bytes and holds whole words of it."""
    if ptr % 16 == 0 and step % 16 == 0 and cols % 16 == 0:
        return 16
    return 4 if ptr % 4 == 0 and step % 4 == 0 and cols % 4 == 0 else 1


def vote_variant(numrho, max_shared):
    return "shared" if (numrho + 2) * 4 <= max_shared else "global"


def vote_window(tab_cos, tab_sin, rows, cols, per_block, row_cells):
    """Shared-memory columns per accumulator row of a voting block of ``per_block`` consecutive
    angles (kernels/hough_points.cuh: hough_window_lo, hough_in_window), enough for the block that
    needs most, at most ``row_cells``. The votes of angle (c, s) lie between the extremes of
    x * c + y * s over the image's corners: about (cols - 1)|c| + (rows - 1)|s| bins of a row of
    2 (rows + cols) + 1. Generous by a few columns: a block whose votes do not fit is still exact,
    only slower (range-checked)."""
    c = np.asarray(tab_cos, dtype=np.float64)
    s = np.asarray(tab_sin, dtype=np.float64)
    ax, ay = (cols - 1) * c, (rows - 1) * s
    lo = np.minimum(ax, 0) + np.minimum(ay, 0)
    hi = np.maximum(ax, 0) + np.maximum(ay, 0) + (np.abs(ax) + np.abs(ay)) * 1e-6 + 2
    pad = (-len(c)) % per_block
    with np.errstate(invalid="ignore"):
        lo = np.concatenate([lo, np.full(pad, np.inf)]).reshape(-1, per_block).min(axis=1)
        hi = np.concatenate([hi, np.full(pad, -np.inf)]).reshape(-1, per_block).max(axis=1)
        need = np.ceil(hi) - np.floor(lo) + 6  # the device's lo is floor(lowest) - 3
    need = need[np.isfinite(need)]
    if need.size == 0:
        return row_cells
    return int(min(row_cells, max(1, int(need.max()))))


def vote_config(numangle, numrho, npix, num_sms, max_shared, resident=None, window=None):
    """(angles per block: 1, 2 or 4, most point slices) of the shared-memory voting kernel: one wave
    of blocks. ``resident(k)``: how many blocks of the k-angle kernel fit on one SM at once (the
    CUDA occupancy calculator; 0 when unknown, then shared memory and threads decide).
    ``window(k)``: the shared columns a row of a k-angle block takes (vote_window; default the
    whole row, numrho + 2).

    Measured on the H100 (graph replays of the vote kernel alone, 1024^2 segments, 164k points):
    4 angles per block, 9 slices gave 405 blocks where 3 per SM fit (396 at once), and the 9-block
    second wave doubled the time (ncu: 1.02 waves, 44.8 us); one wave is the rule since. Earlier
    (ncu): 4 angles x 8 slices 24.4 us, x 16 28.8, x 4 36.2, 2 x 8 37.2, 1 x 8 52.7. Slices actually
    used shrink on the device to >= VOTE_MIN_POINTS points each.

    Where the angle groups are few (at most half the SMs), as many slices as give every SM one
    block: the blocks are equal, so the slowest SM's share is what counts, and every slice adds a
    flush of its rows. The detector's lean graph on the H100 (GPU time, 45 groups of 4 angles,
    132 SMs; us for 1 / 2 / 3 / 4 / 8 / 11 slices, 11 the rule before this one): 1024^2 / 10k points
    15.7 / 15.3 / 16.6 / 16.6 / 16.7 / 16.7; 1024^2 / 82k 26.0 / 21.0 / 23.3 / 21.4 / 22.3 / 24.4;
    1024^2 / 164k 37.9 / 27.5 / 30.9 / 27.3 / 26.7 / 28.6; 512^2 / 82k 26.7 / 21.5 / 23.6 / 21.7 /
    22.3 / 24.4; 2048^2 / 82k 30.1 / 24.7 / 27.6 / 25.7 / 26.7 / 29.6 (3 slices: 135 blocks, so
    three SMs run two)."""
    def row_bytes(k):
        return (window(k) if window is not None else numrho + 2) * 4
    # The kernels exist for 1, 2 and 4 angles per block (a partial last group is allowed).
    per_block = 4 if 3 * (4 * row_bytes(4) + 1024) <= max_shared and numangle >= 4 else 1
    groups = _cdiv(numangle, per_block)
    per_sm = resident(per_block) if resident is not None else 0
    if per_sm <= 0:
        per_sm = min((max_shared + 1024) // (per_block * row_bytes(per_block) + 1024), 2048 // _VOTE_THREADS)
    if 2 * groups <= num_sms:
        return per_block, max(1, min(num_sms // groups, _cdiv(npix, VOTE_MIN_POINTS)))
    splits = max(1, min(16, (num_sms * max(1, per_sm)) // groups, _cdiv(npix, VOTE_MIN_POINTS)))
    return per_block, splits


def vote_residency(family, name_format, options, window):
    """``resident`` for vote_config: blocks per SM of ``name_format % k`` with k rows of
    ``window(k)`` shared columns."""
    def resident(k):
        smem = k * window(k) * 4
        fn = _kernels.get_function(family, name_format % k, options, max_dynamic_shared=smem)
        return _kernels.resident_blocks(fn, _VOTE_THREADS, smem)
    return resident


VOTE_MIN_POINTS = 4096



class _Workspace:
    """Per thread and device: scratch reused by every call (no allocation or memset per call),
    and the launch plans built over it. The counters are zero between calls: hough_maxima_emit
    resets them."""

    def __init__(self, cp):
        self.cp = cp
        self.counters = cp.zeros(4, dtype=cp.int32)
        self.arrays = {}
        self.plans = {}
        self.pinned = cp.cuda.alloc_pinned_memory(4 * (1 + 3 * _SORT_CAPACITY))
        self.host = np.frombuffer(self.pinned, dtype=np.int32, count=1 + 3 * _SORT_CAPACITY)
        # A captured plan's per-call values (kernels/hough.cu: `call`), written here before each replay.
        self.call_pinned = cp.cuda.alloc_pinned_memory(8 * _CALL_WORDS)
        self.call_host = np.frombuffer(self.call_pinned, dtype=np.int64, count=_CALL_WORDS)
        self.call_bytes = memoryview(self.call_host).cast("B")
        self.call_dev = cp.zeros(_CALL_WORDS, dtype=cp.int64)
        # Output memory for the next device-result replay, allocated while the GPU runs the current one.
        self.spare_out = _kernels.SpareOutput()
        # call_dev's words 0-2 as the last load node left them (None: unknown), see _launch_graph.
        self.loaded_head = None
        self.last_key = self.last_plan = None

    def array(self, name, size, dtype):
        arr = self.arrays.get((name, dtype))
        if arr is None or arr.size < size:
            arr = self.arrays[(name, dtype)] = self.cp.empty(max(size, 1), dtype=dtype)
            self.plans.clear()  # plans hold the old buffers in their argument tuples
            self.last_key = self.last_plan = None
        return arr


def _workspace(cp):
    return _kernels.thread_workspace("hough", lambda: _Workspace(cp))


_CALL_WORDS = 5
_CALL_STRUCT = struct.Struct("<%dq" % _CALL_WORDS)


class _Plan:
    """Everything of a launch sequence that does not change between calls of the same sizes and
    parameters: kernels, grids, argument tuples over the workspace. A call only adds the image,
    the threshold and the output buffer (~30 us of Python per call otherwise).

    From a plan's second call on, its three launches are replayed as one captured CUDA graph: one
    graph launch costs the host ~3 us where three kernel launches with their arguments cost ~25,
    and the GPU runs the kernels back to back. ``graph`` is None before capture, False where
    capture failed (direct launches then). ``lean``: the same graph without its load node, for a
    repeated image (_launch_graph), None before capture, False where capture failed."""

    __slots__ = ("collect", "vote", "emit", "emit_grid", "out_floats", "per_line", "line_args", "options",
                 "keys", "num_sms", "graph", "lean", "calls", "last_shape")


def _build_plan(cp, ws, rows, cols, numangle, numrho, rho32, theta32, min_theta, use_edgeval, with_votes,
                to_host, variant, config):
    plan = _Plan()
    num_sms, max_shared = _kernels.device_properties()
    wide = max(rows, cols) > 0xFFFF
    options = ("-DCVGPU_WIDE_POINTS",) if wide else ()
    tab_cos, tab_sin = _device_trig(cp, numangle, rho32, theta32, min_theta)
    npix = rows * cols
    accum_cells = (numangle + 2) * (numrho + 2)
    max_maxima = numangle * ((numrho + 1) // 2 + 1)
    accum = ws.array("accum", accum_cells, cp.int32)
    points = ws.array("points", npix, cp.uint64 if wide else cp.uint32)
    weights_arg = ws.array("weights", npix, cp.uint8) if use_edgeval else np.uint64(0)  # NULL
    keys = ws.array("keys", max_maxima, cp.uint64)
    counters = ws.counters

    plan.collect = (_kernels.get_function("hough/lines", "hough_collect_points", options),
                    (collect_grid(rows, cols, accum_cells, num_sms),), (256,), (np.int32(cols),),
                    (np.int64(rows),), (points, weights_arg, counters, accum, np.int64(accum_cells), _NULL))
    if variant == "shared":
        host_cos, host_sin = trig_table(numangle, rho32, theta32, min_theta)

        def window(k):
            return vote_window(host_cos, host_sin, rows, cols, k, numrho + 2)
        per_block, splits = config or vote_config(
            numangle, numrho, npix, num_sms, max_shared,
            vote_residency("hough/lines", "hough_vote_shared_%d", options, window), window)
        window_cells = window(per_block)
        smem = per_block * window_cells * 4
        fn = _kernels.get_function("hough/lines", "hough_vote_shared_%d" % per_block, options, max_dynamic_shared=smem)
        plan.vote = (fn, (_cdiv(numangle, per_block), splits), (_VOTE_THREADS,),
                     (points, weights_arg, counters, tab_cos, tab_sin, np.int32(numangle), np.int32(numrho),
                      np.int32(window_cells), np.int32(VOTE_MIN_POINTS), np.int32(rows), np.int32(cols), accum,
                      np.int64(accum_cells)),
                     smem)
    else:
        angles_per_block = 8
        plan.vote = (_kernels.get_function("hough/lines", "hough_vote_global", options),
                     (num_sms * 4, min(65535, _cdiv(numangle, angles_per_block))), (256,),
                     (points, weights_arg, counters, tab_cos, tab_sin, np.int32(numangle), np.int32(numrho),
                      np.int32(angles_per_block), accum, np.int64(accum_cells)), 0)
    plan.per_line = 3 if with_votes else 2
    plan.out_floats = min(max_maxima, _SORT_CAPACITY) * plan.per_line
    plan.line_args = (np.int32(numrho), np.float32(rho32), np.float32(theta32), np.float32(min_theta),
                      np.int32(RHO_MODE), np.int32(1 if with_votes else 0))
    host_ptr = ws.pinned.ptr
    plan.emit = (_kernels.get_function("hough/lines", "hough_maxima_emit", options,
                                       max_dynamic_shared=_SORT_CAPACITY * 8),
                 (accum, np.int32(numangle)), (keys, counters, np.int32(_SORT_CAPACITY)) + plan.line_args,
                 (np.uint64(host_ptr + 4 if to_host else 0), np.uint64(host_ptr), _NULL))
    plan.emit_grid = (max(1, min(_cdiv(numangle * numrho, 1024), num_sms * 2)),)
    plan.options, plan.keys, plan.num_sms = options, keys, num_sms
    plan.graph, plan.lean, plan.calls, plan.last_shape = None, None, 0, None
    return plan


_NULL = np.uint64(0)


def _capture_graph(cp, ws, plan, loader=True):
    """The plan's launches, per-call values read from ws.call_dev, as a CUDA graph (or False); a
    lean graph (no load node, see _launch_graph) with ``loader=False``."""
    def launch(call, fresh, run):
        fn, grid, block, head, middle, tail = plan.collect
        args = (_NULL,) + head + (np.int64(0),) + middle + (np.int32(0),) + tail[:-1] + (call,)
        if not loader:
            fn, args = _kernels.get_function("hough/lines", "hough_collect_points_lean", plan.options), args + (fresh,)
        run(fn, grid, block, args)
        fn, grid, block, args, smem = plan.vote
        run(fn, grid, block, args, smem)
        fn, head, middle, tail = plan.emit
        run(fn, plan.emit_grid, (1024,), head + (np.int32(0),) + middle + (_NULL,) + tail[:-1] + (call,),
            _SORT_CAPACITY * 8)
    return _kernels.capture_graph(cp, "hough/lines", plan.options, ws.call_dev, ws.call_pinned, _CALL_WORDS, launch,
                                  loader)


def _launch_graph(cp, ws, plan, graph, stream, head):
    """Replay the plan's graph for an image whose call words 0-2 (pointer, row step, load width)
    are ``head``: the lean graph while ws.call_dev still holds them from the launch before (the
    same image again: its own first kernel brings the threshold and output pointer, 1.2-1.4 us
    less GPU time, kernels/hough_points.cuh: fresh_word_load), else the full graph, which loads
    all five words."""
    if ws.loaded_head == head:
        lean = plan.lean
        if lean is None:
            lean = plan.lean = _capture_graph(cp, ws, plan, loader=False)
        if lean:
            lean.launch(stream)
            return
    ws.loaded_head = None  # (until the load node has been launched)
    graph.launch(stream)
    ws.loaded_head = head


def _gpu_lines(cp, image, numangle, numrho, rho32, theta32, min_theta, threshold, use_edgeval,
               with_votes, to_host, force_variant=None, force_config=None, shape_3d=False, key=None):
    """Run the pipeline on ``image`` (2-D uint8, device or host). Returns numpy or CuPy float32
    lines (count x 2 or x 3; count x 1 x 2/3 with shape_3d), or None when there are none."""
    rows, cols = image.shape
    d_image = upload_2d(image)
    ws = _workspace(cp)
    if key is None:  # (the fast path passes the same tuple, built once per size and parameters)
        key = (rows, cols, numangle, numrho, float(rho32), float(theta32), min_theta, use_edgeval, with_votes,
               to_host, force_variant, force_config)
    plan = ws.last_plan if key is ws.last_key else ws.plans.get(key)
    if plan is None:
        if len(ws.plans) > 32:
            ws.plans.clear()
        _, max_shared = _kernels.device_properties()
        variant = force_variant or vote_variant(numrho, max_shared)
        plan = ws.plans[key] = _build_plan(cp, ws, rows, cols, numangle, numrho, rho32, theta32, min_theta,
                                           use_edgeval, with_votes, to_host, variant, force_config)
    ws.last_key, ws.last_plan = key, plan
    step = d_image.strides[0]
    image_ptr = d_image.data.ptr
    graph = plan.graph
    if graph is None and plan.calls:
        graph = plan.graph = _capture_graph(cp, ws, plan)
    plan.calls += 1
    if graph:
        return _replay(cp, ws, plan, graph, (image_ptr, step, load_width(image_ptr, step, cols)), threshold,
                       to_host, shape_3d)
    stream = cp.cuda.get_current_stream()
    ws.host[0] = -1
    out_dev = None if to_host else ws.spare_out.take(cp, stream, plan.out_floats * 4)
    try:
        fn, grid, block, head, middle, tail = plan.collect
        fn(grid, block, (d_image,) + head + (np.int64(step),) + middle
           + (np.int32(load_width(image_ptr, step, cols)),) + tail)
        fn, grid, block, args, smem = plan.vote
        fn(grid, block, args, shared_mem=smem)
        fn, head, middle, tail = plan.emit
        fn(plan.emit_grid, (1024,), head + (np.int32(threshold),) + middle
           + (_NULL if out_dev is None else np.uint64(out_dev.ptr),) + tail, shared_mem=_SORT_CAPACITY * 8)
    except BaseException:
        _reset_workspace(ws)
        raise
    return _lines(cp, ws, plan, stream, out_dev, None, to_host, shape_3d)


def _reset_workspace(ws):
    # A launch that did not run leaves the counters as they were: start the next call clean.
    ws.cp.cuda.get_current_stream().synchronize()
    ws.counters.fill(0)
    ws.loaded_head = None


def _replay(cp, ws, plan, graph, head, threshold, to_host, shape_3d):
    """The plan's captured graph on the image of call words ``head``; the result as _gpu_lines'."""
    stream = cp.cuda.get_current_stream()
    ws.host[0] = -1
    # Device results need memory of their own (an array is made once the count is known); host
    # results are read from pinned memory.
    out_dev = None if to_host else ws.spare_out.take(cp, stream, plan.out_floats * 4)
    prepared = None
    try:
        _CALL_STRUCT.pack_into(ws.call_bytes, 0, *head, threshold, 0 if out_dev is None else out_dev.ptr)
        _launch_graph(cp, ws, plan, graph, stream, head)
        if out_dev is not None:
            # Host work that would otherwise follow the wait is done during it (~2-4 us of a
            # ~40 us call): the next replay's output memory, and this call's array shaped for
            # the previous call's line count (a repeated or slowly changing image keeps it).
            ws.spare_out.refill(cp, stream, plan.out_floats * 4)
            if plan.last_shape is not None:
                prepared = cp.ndarray(plan.last_shape, dtype=cp.float32, memptr=out_dev)
    except BaseException:
        _reset_workspace(ws)
        raise
    return _lines(cp, ws, plan, stream, out_dev, prepared, to_host, shape_3d)


def _lines(cp, ws, plan, stream, out_dev, prepared, to_host, shape_3d):
    """The launched call's lines: the one host sync, then numpy or CuPy float32 lines, or None."""
    host_view = ws.host
    try:
        # The one host sync: the line count decides the shape. Polling the count that the last
        # kernel publishes instead of cudaStreamSynchronize (H100, device-resident 1024^2 / 164k
        # points: 47.8 -> 44.9 us per call; 10k: 33.5 -> 31.1).
        _kernels.await_published(host_view, -1, stream)
        if host_view[0] < 0:
            raise _errors.cv_error(_errors.GPU_API_ERROR, "the Hough kernels did not complete", "HoughLines",
                                   "hough.cpp", 0)
    except BaseException:
        _reset_workspace(ws)
        raise
    count = int(host_view[0])
    if count == 0:
        return None
    per_line = plan.per_line
    shape = (count, 1, per_line) if shape_3d else (count, per_line)
    if count <= _SORT_CAPACITY:
        if to_host:
            return host_view[1:1 + count * per_line].view(np.float32).reshape(shape).copy()
        plan.last_shape = shape
        if prepared is not None and prepared.shape == shape:
            return prepared
        return cp.ndarray(shape, dtype=cp.float32, memptr=out_dev)
    # More lines than one block sorts: CuPy's radix sort over the keys, then a wide emit.
    sorted_keys = cp.sort(plan.keys[:count])
    out = cp.empty(count * per_line, dtype=cp.float32)
    _kernels.get_function("hough/lines", "hough_emit", plan.options)(
        (min(_cdiv(count, 256), plan.num_sms * 8),), (256,),
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
                   None, None)
        plan = _plans[key] = (numangle, numrho, rho32, theta32, gpu_key)
    return plan


_NOT_FAST = object()
_UINT8 = np.dtype(np.uint8)  # (a dtype against a dtype: no conversion of the type object per call)
_NUMBERS = (float, int)


def _plain_numbers(rho, theta, threshold):
    """Whether rho and theta are Python floats or ints and threshold a Python int in int32's range:
    the fast paths' argument types."""
    return (type(threshold) is int and _INT_MIN <= threshold < (1 << 31) and type(rho) in _NUMBERS
            and type(theta) in _NUMBERS)


class _Hot:
    """A device image met twice in a row by the fast path, with what its calls need, so that its
    next calls with the same rho and theta skip the checks, plan lookup and workspace lookup
    (kernels and result as _gpu_lines'). Valid while the same array object (held weakly) has the
    same shape and strides (a CuPy array's pointer and dtype never change; its shape may), on the
    same thread and current device."""

    __slots__ = ("image", "shape", "strides", "rho", "theta", "thread", "cp", "device", "ws", "plan", "head",
                 "shape_3d", "nbytes")


_hot = [None, None]   # [with_votes]: the _Hot of the last device image called twice in a row
_seen = [None, None]  # [with_votes]: id() of the last device image of the fast path


def _hot_lines(hot, image, rho, theta, threshold):
    """The hot image's lines, or _NOT_FAST when this call is not its repeat."""
    if (not _plain_numbers(rho, theta, threshold) or rho != hot.rho or theta != hot.theta
            or image.shape != hot.shape or image.strides != hot.strides or _get_ident() != hot.thread):
        return _NOT_FAST
    cp = hot.cp
    if cp.cuda.runtime.getDevice() != hot.device:
        return _NOT_FAST
    _backend.record("cuda")
    plan = hot.plan
    try:
        return _replay(cp, hot.ws, plan, plan.graph, hot.head, threshold, False, hot.shape_3d)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(hot.nbytes) from None


def _note_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes):
    """After a fast device call: the second call in a row on ``image`` makes it hot (the first
    only remembers its id, so a new array per call costs ~0.1 us here)."""
    if _seen[with_votes] != id(image):
        _seen[with_votes] = id(image)
        return
    ws = _workspace(cp)
    plan = ws.last_plan
    if not plan.graph or ws.loaded_head is None:
        return
    hot = _Hot()
    hot.image, hot.shape, hot.strides = weakref.ref(image), image.shape, image.strides
    hot.rho, hot.theta, hot.thread = rho, theta, _get_ident()
    hot.cp, hot.device, hot.ws, hot.plan, hot.head = cp, image.data.device_id, ws, plan, ws.loaded_head
    hot.shape_3d, hot.nbytes = shape_3d, nbytes
    _hot[with_votes] = hot


def _fast_hough(with_votes, args):
    """The common call ``f(image, rho, theta, threshold)`` with a 2-D uint8 numpy or CuPy image and
    plain Python numbers: the same result as the full argument layer without its generality
    (~17 us of the call); anything else returns _NOT_FAST and takes the full path."""
    image, rho, theta, threshold = args
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
            or not 0 < rho < 1e300 or not 0 < theta < 1e300):
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
    if not to_host:
        _note_hot(cp, with_votes, image, rho, theta, shape_3d, nbytes)
    return lines


@on_input_device(0, "image")
def _hough_lines_on_device(*args, **kwargs):
    return _hough("HoughLines", False, args, kwargs)


@on_input_device(0, "image")
def _hough_lines_acc_on_device(*args, **kwargs):
    return _hough("HoughLinesWithAccumulator", True, args, kwargs)


# The fast path comes before the device switch of on_input_device: it takes arrays of the current
# device only (~1 us of a ~40 us call), the others go through the decorated full path.
def HoughLines(*args, **kwargs):
    """HoughLines(image, rho, theta, threshold[, lines[, srn[, stn[, min_theta[, max_theta[, use_edgeval]]]]]]) -> lines

    cv2.HoughLines on the GPU: the same lines, float32 values and order as the installed cv2.
    ``image`` may be a numpy array (numpy out) or a CuPy/CUDA-array-interface/DLPack device array
    (CuPy out). srn/stn != 0 (multi-scale) is computed by cv2.
    """
    if len(args) == 4 and not kwargs:
        lines = _fast_hough(False, args)
        if lines is not _NOT_FAST:
            return lines
    return _hough_lines_on_device(*args, **kwargs)


def HoughLinesWithAccumulator(*args, **kwargs):
    """HoughLinesWithAccumulator(image, rho, theta, threshold[, lines[, srn[, stn[, min_theta[, max_theta[, use_edgeval]]]]]]) -> lines

    As cvgpu.HoughLines, each line carrying its accumulator value as a third float32.
    """
    if len(args) == 4 and not kwargs:
        lines = _fast_hough(True, args)
        if lines is not _NOT_FAST:
            return lines
    return _hough_lines_acc_on_device(*args, **kwargs)


def uses_gpu(srn=0, stn=0):
    """Whether a HoughLines call with these srn/stn values is computed by cvgpu's kernels."""
    return _backend.backend() == "cuda" and srn == 0 and stn == 0
