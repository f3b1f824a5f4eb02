"""cv2.HoughLinesP on the GPU, bit-exact with the OpenCV 5.0 beside it.

cv2's probabilistic transform is a sequential loop whose every step depends on the steps before it
(a fixed-seed random pick order, votes, walks, removals). ``kernels/hough/probabilistic.cu`` computes
it in one persistent kernel (its header says how, tests/models/hough_p_parallel_model.py
proves it phase by phase); the host works out cv2's sizes and trig table, compacts the edge points
(cvgpu._device_ops: one sync, the point count sizes the scratch), launches, and reads the segment
count back. Nothing on the way makes CuPy compile a kernel (issue 40).
"""
import functools
import math
import threading

import cv2
import numpy as np

from .. import _backend, _binding, _device_ops, _engine, _errors, _kernels, _versions
from .._arrays import on_input_device, upload_2d
from .._cvmath import cv_floor, cv_round, wrap_int32
from .._tuning import Tuning

FAMILY = "hough/probabilistic"  # kernels/hough/probabilistic.cu

# What differs between OpenCV releases (cvgpu/_versions.py, docs/opencv-versions.md): the result is
# (N, 4) int32 from 5.0 on, (N, 1, 4) before (None when nothing is found); numangle is cvRound(pi /
# theta) before 4.7; 4.x's Mat::create asserts each size of the accumulator; 5.1 checks the arguments
# before the image, returns None for an empty image and (0, 4) when it finds no segment.
LINES_3D = _versions.behaviour("hough_p.lines_shape") == "n14"
_NUMANGLE = _versions.behaviour("hough.numangle")
_SIZE_CHECK = _versions.behaviour("hough.size_check")
_ARG_CHECKS = _versions.behaviour("hough_p.arg_checks") == "hough_lines_p"
_EMPTY_ARRAYS = _versions.behaviour("hough_p.no_segments") == "empty_n4"

_PARAMS = [
    _binding.Param("image", "mat"),
    _binding.Param("rho", "double"),
    _binding.Param("theta", "double"),
    _binding.Param("threshold", "int"),
    _binding.Param("lines", "outmat", None),
    _binding.Param("minLineLength", "double", 0.0),
    _binding.Param("maxLineGap", "double", 0.0),
]
# cv2 converts the arguments in the C++ signature's order: lines right after image.
_ORDER = ["image", "lines", "rho", "theta", "threshold", "minLineLength", "maxLineGap"]

# Kernel constants (kernels/hough/probabilistic.cu: HP_*).
THREADS = 256
DRAW_CHUNK = 64
WINDOW_MAX = 1024
CMAX = 64
CTL_WORDS = 16 + 1000 + 1 + WINDOW_MAX // 32 + 1   # then CTL_CAND's candidate words, CTL_NBLK
CTL_LINES, CTL_ERROR, CTL_ROUNDS, CTL_FORWARD, CTL_FORWARD_BACK, CTL_PERM_ROUNDS, CTL_COMMITS, CTL_CANDIDATES = (
    0, 1, 10, 11, 12, 13, 14, 15)
WALK_WORDS = 9

# Paths counted (TUNING.ran): point-check (the corners did not rule out bins leaving their rows),
# wrap (some did: one-turn windows). Measurements: compat_matrix/HISTORY.md, "HoughLinesP windows".
TUNING = Tuning(
    "hough-p",
    # Turns per exact round at most (<= WINDOW_MAX): more turns, fewer rounds (each a few grid
    # barriers), but more speculative votes taken back when a round ends early. Images below
    # large_pixels take ``window`` (rows: hough-p photo 640x480 to 1920x1080), larger ones
    # ``window_large`` (rows: hough-p photo 3840x2160), as the sweeps of
    # raw/session-2026-11-29/ab_phase_c2.py chose (HISTORY, "HoughLinesP phase C on an H200").
    window=256,
    window_large=512,
    large_pixels=4_000_000,
    # (window points x angles) per round at most: the window shrinks for fine theta (scratch
    # rbin / hot lists are window x numangle).
    window_pairs=1 << 20,
    # The head start's first fast-forward chunk (turns); 0: no fast-forward.
    forward=4096,
    # Blocks per SM of the persistent kernel (<= what fits): more threads for the votes, slower
    # grid barriers (bench rows: hough-p segments 1024x1024).
    blocks_per_sm=1,
    # Dynamic shared memory for phase C's staging (bytes, at most what the device grants a block
    # beside the kernel's 40 KB static): candidates beyond it read global memory in the serial part
    # (bench rows: hough-p photo 1920x1080, threshold 50).
    stage_bytes=64 << 10,
)

# hough_p_main's own shared memory: HP_HASH keys and ranks, the records, the masks and offsets
STATIC_SHARED = 4 * (4096 + 3 * 2048) + 4096 + 2048 + 8 * 2 * CMAX + 4 * (8 + 3 * CMAX + 1 + THREADS // 32)
STAGE_TRIG = 1024                          # HP_STAGE_TRIG

_INT_MAX = (1 << 31) - 1

# Error sites, measured from the installed cv2 (_errors.site): a call of cv2 that fails at each.
_AT_TYPE = _errors.site("hough.cpp:type-p", lambda: cv2.HoughLinesP(np.zeros((1, 1), np.float32), 1, 1, 1),
                        _errors.ASSERTION_FAILED, "HoughLinesProbabilistic", "hough.cpp")
_AT_SET_SIZE = _errors.site("matrix.cpp:setSize-p", lambda: cv2.HoughLinesP(np.zeros((1, 1), np.uint8), -1, 1, 1),
                            _errors.ASSERTION_FAILED, "setSize", "matrix.cpp")
# 5.1's argument checks in cv::HoughLinesP (CV_Check, code -2), one site each, in cv2's order.
_CHECK_FUNC = _errors.check_func(
    "void cv::HoughLinesP(cv::InputArray, cv::OutputArray, double, double, int, double, double)")
_CHECK_PROBES = (("rho", (0, 1, 1, None, 0, 0)), ("theta", (1, 0, 1, None, 0, 0)), ("threshold", (1, 1, -1, None, 0, 0)),
                 ("minLineLength", (1, 1, 1, None, -1, 0)), ("maxGap", (1, 1, 1, None, 0, -1)))
_AT_CHECK = {name: _errors.site("hough.cpp:p-" + name,
                                lambda a=probe: cv2.HoughLinesP(np.zeros((1, 1), np.uint8), *a),
                                _errors.UNSPECIFIED, _CHECK_FUNC, "hough.cpp")
             for name, probe in _CHECK_PROBES}


# ---------------------------------------------------------------- cv2's sizes and tables

def compute_numangle(theta64):
    """computeNumangle(0.0, CV_PI, theta): cvFloor(pi / theta) + 1 (int wrap), the pi angle dropped
    (before 4.7: cvRound(pi / theta))."""
    with np.errstate(all="ignore"):
        q = float(np.float64(math.pi) / np.float64(theta64))
    if _NUMANGLE == "round":
        return cv_round(q)
    numangle = wrap_int32(cv_floor(q) + 1)
    if numangle > 1 and abs(math.pi - (numangle - 1) * theta64) < theta64 / 2:
        numangle -= 1
    return numangle


def sizes(rows, cols, rho, theta):
    """(numangle, numrho, rho32, theta32) of HoughLinesProbabilistic for cv2's double rho, theta:
    numrho = cvRound(float(2 (w + h) + 1) / rho) in float32 (int arithmetic wrapping)."""
    with np.errstate(all="ignore"):
        rho32, theta32 = np.float32(rho), np.float32(theta)
    span = wrap_int32(wrap_int32((cols + rows) * 2) + 1)
    with np.errstate(all="ignore"):
        numrho = cv_round(np.float32(span) / rho32, single=True)
    return compute_numangle(float(theta32)), numrho, rho32, theta32


@functools.lru_cache(maxsize=64)
def trig_table(numangle, rho32, theta32):
    """cv2's float32 table: (float)(cos((double)n * theta) * irho), irho = 1.f / rho (libm's cos and
    sin: math.cos is the platform's libm, as cv2's)."""
    with np.errstate(all="ignore"):
        irho = float(np.float32(1) / np.float32(rho32))
    t = float(theta32)
    tab_cos = np.array([math.cos(n * t) * irho for n in range(numangle)], dtype=np.float32)
    tab_sin = np.array([math.sin(n * t) * irho for n in range(numangle)], dtype=np.float32)
    return tab_cos, tab_sin


def corner_bins_numpy(rows, cols, numangle, numrho, tab_cos, tab_sin):
    """(lowest, highest) rho bin (before the row offset) over the image, per angle (numpy arrays),
    or None when a corner's value is beyond int: float32 j * cos + i * sin is monotone in j and in i,
    so the corners hold the extremes."""
    xs = np.array([0, cols - 1, 0, cols - 1], dtype=np.float32)[:, None]
    ys = np.array([0, 0, rows - 1, rows - 1], dtype=np.float32)[:, None]
    with np.errstate(all="ignore"):
        v = xs * tab_cos[None, :] + ys * tab_sin[None, :]  # two float32 products, a float32 sum
    if numrho < 1 or not np.all(np.abs(v) < 2.0 ** 30):
        return None
    r = np.rint(v).astype(np.int64) + (numrho - 1) // 2
    return r.min(axis=0), r.max(axis=0)


def rows_hold_every_bin_numpy(rows, cols, numangle, numrho, tab_cos, tab_sin):
    """Whether every pixel's rho bin lies in its angle's row (decided from the corners): then no
    point check is needed and the kernel runs without wrap mode."""
    extremes = corner_bins_numpy(rows, cols, numangle, numrho, tab_cos, tab_sin)
    return extremes is not None and int(extremes[0].min()) >= 0 and int(extremes[1].max()) < numrho


# The MWC states at every DRAW_CHUNK-th draw of cv::RNG((uint64)-1) (kernels/hough/probabilistic.cu,
# 1.): the first after one step (>= the modulus), the others a * S mod (a * 2^32 - 1) jumps.
_MWC_A = 4164903690
_MWC_M = _MWC_A * (1 << 32) - 1
_states = []
_states_lock = threading.Lock()


def chunk_states(n_chunks):
    """uint64 numpy array of at least n_chunks chunk states (computed once, grown as needed)."""
    with _states_lock:
        return _grow_states(n_chunks)


def _grow_states(n_chunks):
    if len(_states) < n_chunks:
        if not _states:
            s1 = 0xFFFFFFFF * _MWC_A + 0xFFFFFFFF
            s2 = (s1 & 0xFFFFFFFF) * _MWC_A + (s1 >> 32)
            _states.extend([s1, pow(_MWC_A, DRAW_CHUNK - 1, _MWC_M) * s2 % _MWC_M])
        jump = pow(_MWC_A, DRAW_CHUNK, _MWC_M)
        target = max(n_chunks, 2 * len(_states))
        state = _states[-1]
        while len(_states) < target:
            state = state * jump % _MWC_M
            _states.append(state)
    return np.array(_states, dtype=np.uint64)


_device_states = {}


def _device_chunk_states(cp, n_chunks):
    # Per device and stream, as cvgpu.hough.lines keeps its tables: an array is uploaded and read on
    # one stream only, so no kernel of another stream sees it half-written.
    key = (cp.cuda.Device().id, cp.cuda.get_current_stream().ptr)
    arr = _device_states.get(key)
    if arr is None or arr.size < n_chunks:
        if len(_device_states) > 16:
            _device_states.clear()
        arr = _device_states[key] = cp.asarray(chunk_states(n_chunks))
    return arr


# ---------------------------------------------------------------- argument layer

_convert_array = _binding.array_converter("lines")


def _prepare(args, kwargs):
    return _binding.parse("HoughLinesP", _PARAMS, args, kwargs, _convert_array, _ORDER)


def _check_arguments(a):
    """5.1's checks in cv::HoughLinesP, in its order, before the image is looked at: rho and theta
    positive and finite as float32, threshold >= 0, minLineLength and maxLineGap finite and >= 0."""
    for name in ("rho", "theta"):
        _errors.check_positive_finite32(name, a[name], _CHECK_FUNC, _AT_CHECK[name])
    _errors.check_threshold_non_negative(a["threshold"], _CHECK_FUNC, _AT_CHECK["threshold"])
    for name, key in (("minLineLength", "minLineLength"), ("maxGap", "maxLineGap")):
        v = a[key]
        if not (math.isfinite(v) and v >= 0):
            raise _errors.cv_error(
                _errors.UNSPECIFIED, "> %s out of range:\n>     'std::isfinite(%s) && %s >= 0'\n> where\n"
                ">     '%s' is %s\n" % (name, name, name, name, _errors.cv_g(v)), _CHECK_FUNC, at=_AT_CHECK[name])


def no_segments(cp=None):
    """What cv2 returns when it finds no segment in a non-empty image: None, or from 5.1 an empty
    (0, 4) int32 array (numpy, or CuPy for device input; never the ``lines`` argument)."""
    if not _EMPTY_ARRAYS:
        return None
    return (cp or np).zeros((0, 4), dtype=np.int32)


def _deliver(result, lines_arg):
    """cv2 writes into a given ``lines`` array (and returns it) only when its Mat already has the
    result's size and type, N x 1 CV_32SC4: an (N, 1, 4) (5.x: or (1, N, 4)) int32 array; an (N, 4) int32
    array is N x 4 CV_32SC1, so cv2 returns a new array (checked in tests/hough/test_hough_lines_p.py)."""
    if result is None or lines_arg is None:
        return result
    n = result.shape[0]
    # 4.x's result is an N x 1 Mat, so a 1 x N argument is reallocated; 5.x copies a 1-D result into either.
    return _binding.deliver(result, lines_arg, ((n, 1, 4),) if LINES_3D else ((n, 1, 4), (1, n, 4)))


def undefined_error(what):
    """cv2's own call is undefined behaviour here (it writes or reads outside its buffers, and
    crashes or returns garbage): cvgpu refuses it."""
    return _errors.cv_error(_errors.BAD_VALUE, "cv2.HoughLinesP is undefined here: %s" % what,
                            "HoughLinesProbabilistic", "hough.cpp", 0)


def _hough_p(args, kwargs):
    a = _prepare(args, kwargs)
    pending = a.pop(_binding.PENDING, None)
    result = _parsed(a, args, kwargs)
    if pending is not None:  # cv2 ran the call with an error pending (its own error would replace it)
        raise _binding.returned_with_error("HoughLinesP", pending)
    return result


def _parsed(a, args, kwargs):
    mat = a["image"]
    on_device = isinstance(mat, _binding.DeviceMat)
    if _ARG_CHECKS:
        _check_arguments(a)
        if mat.rows * mat.cols == 0:   # 5.1 returns before the type check
            _backend.record("none")
            return None
    # cv2's checks, in cv2's order (HoughLinesProbabilistic): type, then the accumulator's allocation.
    if not mat.is_type(np.uint8, 1):
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "image.type() == CV_8UC1", "HoughLinesProbabilistic",
                               at=_AT_TYPE)
    rows, cols = mat.rows, mat.cols
    numangle, numrho, rho32, theta32 = sizes(rows, cols, a["rho"], a["theta"])
    nbytes = numangle * numrho * 4
    if numangle < 0 or numrho < 0:
        # Mat::zeros(numangle, numrho, CV_32SC1): OpenCV 5 lets the size_t product wrap and fails to
        # allocate it (a product wrapping to a small size is undefined in cv2: tests never run it);
        # OpenCV 4 asserts each size.
        if _SIZE_CHECK == "set_size":
            raise _errors.cv_error(_errors.ASSERTION_FAILED, "s >= 0", "setSize", at=_AT_SET_SIZE)
        raise _errors.out_of_memory(nbytes)
    threshold = a["threshold"]
    line_length, line_gap = cv_round(a["minLineLength"]), cv_round(a["maxLineGap"])

    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        _backend.record("cv2")
        image = args[0] if args else kwargs.get("image")
        return _deliver(cv2.HoughLinesP(image, a["rho"], a["theta"], threshold, None, a["minLineLength"],
                                        a["maxLineGap"]), a["lines"])
    if rows <= 0 or cols <= 0 or mat.array is None:
        _backend.record("none")
        return None   # no pixel to look at (cv2 finds nothing)
    _backend.record("cuda")
    image = mat.array
    if image.ndim != 2:
        image = image.reshape(rows, cols)
    try:
        lines = gpu_lines(cp, image, numangle, numrho, rho32, theta32, threshold, line_length, line_gap,
                          to_host=not on_device)
    except cp.cuda.memory.OutOfMemoryError:
        raise _errors.out_of_memory(nbytes) from None
    if lines is None:
        return no_segments(cp if on_device else None)
    return _deliver(lines.reshape(-1, 1, 4) if LINES_3D else lines, a["lines"])


# ---------------------------------------------------------------- the GPU run

def window_size(numangle, wrap, pixels):
    """Turns per exact round: TUNING.window (window_large from large_pixels pixels on), fewer for
    fine theta, 1 in wrap mode."""
    if wrap:
        return 1
    window = TUNING.window_large if pixels >= TUNING.large_pixels else TUNING.window
    return int(max(1, min(window, WINDOW_MAX, TUNING.window_pairs // max(1, numangle))))


def stage_layout(numangle, stage_bytes):
    """(stage_slots, stage_hot, dynamic shared bytes) of hough_p_main's phase C staging: a fixed part
    (the ranks' aff masks, walk words, counts, offsets, the trig table up to STAGE_TRIG angles),
    then the cleared pixels with their turns (2 ints each) and the hot pairs (3 ints each) sharing
    what is left."""
    fixed = CMAX * (WALK_WORDS + 5) + 2 + (2 * numangle if numangle <= STAGE_TRIG else 0)
    left = max(0, stage_bytes // 4 - fixed)
    slots = left // 3
    hot = (left - 2 * slots) // 3
    return slots, hot, 4 * (fixed + 2 * slots + 3 * hot)


def launch_args(cp, pix, n, rows, cols, numangle, numrho, tab_cos, tab_sin, threshold, line_length, line_gap,
                wrap, states, stage_bytes):
    """(argument tuple of hough_p_main (kernels/hough/probabilistic.cu) with its scratch, dynamic
    shared bytes, lines, ctl): ``cp`` is CuPy (or the host tests' numpy stand-in)."""
    window = window_size(numangle, wrap, rows * cols)
    stage_slots, stage_hot, shared = stage_layout(numangle, stage_bytes)
    slot_cap = 2 * max(rows, cols) + 2
    cells = numangle * numrho
    i32 = cp.int32
    lines = cp.empty(4 * n, dtype=i32)
    ctl = cp.zeros(CTL_WORDS, dtype=i32)
    args = (pix, cp.empty(2 * n, dtype=i32), np.int32(n), np.int32(cols), np.int32(rows), tab_cos, tab_sin, np.int32(numangle), np.int32(numrho),
            np.int64(cells), np.int32(threshold), np.int32(line_length), np.int32(line_gap), np.int32(window),
            np.int32(TUNING.forward), np.int32(1 if wrap else 0), states,
            cp.empty(n, dtype=i32),                       # targets
            cp.empty(n, dtype=i32),                       # slots
            cp.zeros(n, dtype=cp.uint64),                 # reserve
            cp.empty(rows * cols, dtype=i32),             # pix_turn
            cp.zeros(rows * cols, dtype=cp.uint8),        # mask
            cp.zeros(max(cells, 1), dtype=i32),           # acc
            cp.empty(2 * numangle * window, dtype=i32),   # rbin (two rounds')
            cp.empty(3 * window * numangle, dtype=i32),   # hot
            cp.empty(window, dtype=i32),                  # hot_cnt
            cp.empty(window, dtype=cp.uint64),            # best
            cp.empty(2 * window, dtype=i32),              # cleared_by (two rounds')
            cp.empty(WALK_WORDS * (CMAX + 1), dtype=i32),  # walk
            cp.empty(CMAX * slot_cap, dtype=i32),         # slot_px
            cp.empty(CMAX * slot_cap, dtype=i32),         # slot_tr
            np.int32(slot_cap),
            cp.empty(2 * CMAX * slot_cap, dtype=i32),     # commit_list
            lines, ctl, np.int32(stage_slots), np.int32(stage_hot))
    return args, shared, lines, ctl


def _grid(fn, shared):
    num_sms, _ = _kernels.device_properties()
    resident = _kernels.resident_blocks(fn, THREADS, shared) or 1
    return max(1, num_sms * max(1, min(TUNING.blocks_per_sm, resident)))


def gpu_lines(cp, image, numangle, numrho, rho32, theta32, threshold, line_length, line_gap, to_host=True,
              stats=None):
    """The segments of a 2-D uint8 image (host or device): numpy or CuPy (N, 4) int32, or None.
    ``stats``: a dict that receives the kernel's counters (rounds, commits, ...). Nothing here makes
    CuPy compile a kernel (cvgpu._device_ops for the point list)."""
    rows, cols = image.shape
    if rows * cols >= (1 << 31) - 1:
        raise _errors.cv_error(_errors.BAD_VALUE, "an image of %d pixels: cvgpu.HoughLinesP takes up to 2^31 - 2"
                               % (rows * cols), "HoughLinesProbabilistic", "hough.cpp", 0)
    ops = _device_ops.ops(cp)
    flat = ops.contiguous(upload_2d(image)).reshape(rows * cols)
    pix = ops.select(("mask", flat, 0xFF, np.int32))[0]   # row-major: cv2's point order (one sync)
    n = int(pix.size)
    if n == 0:
        return None
    if n >= (1 << 30):
        raise _errors.cv_error(_errors.BAD_VALUE, "%d edge points: cvgpu.HoughLinesP takes fewer than 2^30" % n,
                               "HoughLinesProbabilistic", "hough.cpp", 0)
    special = threshold == -(1 << 31)  # threshold - 1 wraps: every live point triggers at angle 0
    if numangle == 0:
        if special:
            raise undefined_error("a trigger reads angle 0 of an empty trig table")
        return None
    if numangle * numrho >= (1 << 31):
        raise _errors.out_of_memory(numangle * numrho * 4)
    host_cos, host_sin = trig_table(numangle, rho32, theta32)
    tab_cos, tab_sin = cp.asarray(host_cos), cp.asarray(host_sin)
    wrap = False
    if not rows_hold_every_bin_numpy(rows, cols, numangle, numrho, host_cos, host_sin):
        TUNING.ran("point-check")
        flags = cp.zeros(2, dtype=cp.int32)
        check = _kernels.get_function(FAMILY, "hough_p_check")
        check((max(1, min(4096, -(-n * numangle // THREADS))),), (THREADS,),
              (pix, np.int32(n), np.int32(cols), tab_cos, tab_sin, np.int32(numangle), np.int32(numrho),
               np.int64(numangle * numrho), flags))
        bad, wrap = (int(v) for v in flags.get())
        if bad:
            raise undefined_error("a vote falls outside its accumulator")
        wrap = bool(wrap)
        if wrap:
            TUNING.ran("wrap")
    states = _device_chunk_states(cp, -(-n // DRAW_CHUNK))
    _, max_shared = _kernels.device_properties()
    stage_bytes = max(0, min(TUNING.stage_bytes, max_shared - STATIC_SHARED - 1024))
    args, shared, lines, ctl = launch_args(cp, pix, n, rows, cols, numangle, numrho, tab_cos, tab_sin, threshold,
                                           line_length, line_gap, wrap, states, stage_bytes)
    # A plain launch: the kernel joins the blocks that run (hp_join), where a cooperative launch
    # waited for every SM, one held by another stream's kernel included.
    fn = _kernels.get_function(FAMILY, "hough_p_main", max_dynamic_shared=shared)
    fn((_grid(fn, shared),), (THREADS,), args, shared_mem=shared)
    head = ctl.get()
    if stats is not None:
        stats.update(rounds=int(head[CTL_ROUNDS]), forward=int(head[CTL_FORWARD]),
                     forward_back=int(head[CTL_FORWARD_BACK]), permutation_rounds=int(head[CTL_PERM_ROUNDS]),
                     commits=int(head[CTL_COMMITS]), candidates=int(head[CTL_CANDIDATES]),
                     window=window_size(numangle, wrap, rows * cols), wrap=wrap)
    if head[CTL_ERROR] == 1:
        raise undefined_error("a vote falls outside its accumulator")
    if head[CTL_ERROR]:
        raise _errors.cv_error(_errors.GPU_API_ERROR, "the HoughLinesP kernel did not finish (code %d)"
                               % int(head[CTL_ERROR]), "HoughLinesProbabilistic", "hough.cpp", 0)
    count = int(head[CTL_LINES])
    if count == 0:
        return None
    out = lines[:4 * count].reshape(count, 4)
    return out.get() if to_host else out


@on_input_device(0, "image")
def _on_device(*args, **kwargs):
    return _hough_p(args, kwargs)


def _cv2_call(args, kwargs):
    """cv2 computes the call as given (the engine's choice for host input): its result and errors."""
    _backend.record("cv2")
    return cv2.HoughLinesP(*args, **kwargs)


def _engine_key(image, args, kwargs):
    """What a call's cost depends on, for the engine's model: the image's size, the number of angles
    and the threshold (cv2's triggers, the kernel's rounds and commits, fall as it rises)."""
    theta = args[2] if len(args) > 2 else kwargs.get("theta")
    threshold = args[3] if len(args) > 3 else kwargs.get("threshold")
    try:
        angles = int(math.log2(math.pi / float(theta)))
    except (TypeError, ValueError, ZeroDivisionError, OverflowError):
        angles = None
    try:
        level = int(math.log2(max(1, int(threshold))))
    except (TypeError, ValueError, OverflowError):
        level = None
    return (_engine.size_bucket(image.size), angles, level)


def HoughLinesP(*args, **kwargs):
    """HoughLinesP(image, rho, theta, threshold[, lines[, minLineLength[, maxLineGap]]]) -> lines

    cv2.HoughLinesP on the GPU: the same segments, int32 values and order as the installed cv2.
    ``image`` may be a numpy array (numpy out) or a CuPy/CUDA-array-interface/DLPack device array
    (CuPy out). Host input goes to the engine cvgpu._engine chooses (cv2 until the GPU is started
    and faster).
    """
    _backend.record(None)
    image = args[0] if args else kwargs.get("image")
    if type(image) is np.ndarray and _engine.get_engine() != _engine.CUDA:
        return _engine.run("HoughLinesP", _engine_key(image, args, kwargs), False,
                           lambda: _on_device(*args, **kwargs), lambda: _cv2_call(args, kwargs))
    return _on_device(*args, **kwargs)


def _warm(cp):
    """The engine's start-up: the kernel module loaded before the family's first GPU call."""
    _kernels.preload(FAMILY)


_engine.register_warmup("hough-p", _warm)
