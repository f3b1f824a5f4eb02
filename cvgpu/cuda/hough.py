"""cv2.cuda.createHoughLinesDetector: OpenCV's CUDA Hough line detector (cudaimgproc), in cvgpu.

Same lines, float32 values and vote counts as OpenCV's CUDA detector (see kernels/cuda_hough.cu for
the arithmetic and how it was established against OpenCV's own output), plus:

* deterministic order: with doSort, votes descending and equal votes in raster order of the
  accumulator (angle index, then rho index); without doSort, raster order;
* when there are more local maxima than maxLines, the strongest maxLines are kept (votes
  descending, ties in raster order) — OpenCV keeps whichever its atomics happened to write first;
* images of any size (OpenCV asserts cols, rows < 65535);
* ``detect`` also takes CuPy / CUDA-array-interface / DLPack device arrays and numpy arrays
  (uploaded), besides GpuMat;
* one host synchronisation per detect (the line count); ``downloadResults`` of the GpuMat that
  detect returned reads the pinned host copy the kernels wrote, while no later detect of the same
  detector has overwritten it (the device copy otherwise). Only when there are more than
  ``SMEM_CAP`` local maxima does detect synchronise a second time.

Rows of the result GpuMat (2 x N, CV_32FC2): row 0 the (rho, theta) pairs, row 1 the int32 votes in
its first N * 4 bytes and zeros in the rest. The result may have a row pitch larger than N * 8.
"""
import math

import numpy as np

from .. import _backend, _binding, _errors, _kernels
from .._arrays import as_device_array, on_input_device, upload_2d
from ..hough import (VOTE_MIN_POINTS, collect_grid, load_width, vote_config, vote_residency,  # shared rules
                     vote_window)
from .gpumat import GpuMat, _cupy, _stream_context, make_type, no_cuda

CV_8UC1 = 0
CV_32FC2 = make_type(5, 2)
_INT_MIN = -(1 << 31)
# Local maxima sorted/gathered by one block in shared memory (power of two); beyond, the host path.
SMEM_CAP = 8192
_THREADS = 256

# cv::cuda::createHoughLinesDetector(float rho, float theta, int threshold, bool doSort, int maxLines):
# one overload (no array argument), so its binding raises the converters' own Python errors.
_PARAMS = [
    _binding.Param("rho", "float"),
    _binding.Param("theta", "float"),
    _binding.Param("threshold", "int"),
    _binding.Param("doSort", "bool", False),
    _binding.Param("maxLines", "int", 4096),
]


# ---------------------------------------------------------------- OpenCV's sizes

def _cv_round(x):
    """cvRound: round half to even; NaN and out-of-range give INT_MIN (cvtss2si / cvtsd2si)."""
    x = float(x)
    if not math.isfinite(x):
        return _INT_MIN
    r = round(x)
    return r if -(1 << 31) <= r < (1 << 31) else _INT_MIN


def accumulator_size(rows, cols, rho32, theta32):
    """(numangle, numrho) as OpenCV's detector computes them:
    numangle = cvRound(CV_PI / theta) in double (theta widened from float);
    numrho = cvRound(((cols + rows) * 2 + 1) / rho) — an int divided by a float: float32 division."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        numangle = _cv_round(math.pi / float(theta32)) if float(theta32) != 0 else _INT_MIN
        numrho = _cv_round(np.float32(np.float32((cols + rows) * 2 + 1) / np.float32(rho32)))
    return numangle, numrho


def shared_vote_semantics(numrho, shared_mem_per_block=49152):
    """True when OpenCV votes in shared memory (accumulator columns 0..numrho kept), False when it
    votes with global atomics (columns 0..numrho+1 kept)."""
    return (numrho + 1) * 4 < shared_mem_per_block - 1000


def _inverse(rho32):
    """OpenCV's irho = 1.0f / rho in float32, computed once per rho (0.6 us of host time a detect
    otherwise); rho = 0 never reaches the kernels (its accumulator size is invalid)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.float32(1) / rho32


def _cdiv(a, b):
    return -(-a // b)


# ---------------------------------------------------------------- device buffers

class _Buffers:
    __slots__ = ("key", "points", "accums", "accum_pair", "parity", "bounds", "counters", "keys", "vote", "maxima",
                 "collect", "args", "results", "graphs", "graph_seen", "leans", "call_pinned", "call_host",
                 "call_words", "call_dev", "spare_out", "last_count")


class _PinnedResults:
    """The pinned host buffer ch_maxima writes each detect's lines and votes to, and how many detects
    have been launched over it: a result GpuMat keeps (this, its detect's number, count, capacity,
    lines view, votes view) as its host mirror, and downloadResults copies the views while no later
    detect has overwritten them (the device copy otherwise)."""

    __slots__ = ("pinned", "host", "flag", "launched", "views")

    def __init__(self, pinned, host):
        self.pinned, self.host, self.launched = pinned, host, 0
        # host[0] read as a Python int (the poll's and the count's read: ~4 times cheaper than a
        # numpy element's).
        self.flag = memoryview(host)
        self.views = {}  # (count, capacity) -> the (lines, votes) views of the host copy

    def views_for(self, count, capacity):
        """The (lines (1, count, 2) float32, votes (1, count) int32) views of the host copy, made
        once per line count (slicing, view and reshape cost more than the copies of them)."""
        views = self.views.get((count, capacity))
        if views is None:
            if len(self.views) > 64:
                self.views.clear()
            host = self.host
            views = self.views[(count, capacity)] = (
                host[1:1 + 2 * count].view(np.float32).reshape(1, count, 2),
                host[1 + 2 * capacity:1 + 2 * capacity + count].reshape(1, count))
        return views


class _Hot:
    """What detect's repeat of a graph-replayed call needs (see HoughLinesDetector._replay): the
    source GpuMat's array, the device it ran on, the buffers, the lean graphs of both accumulator
    parities, the output capacity and numrho."""

    __slots__ = ("source", "cp", "get_device", "get_stream", "device", "buf", "graphs", "out_cap", "numrho")

    def __init__(self, source, cp, buf, graphs, out_cap, numrho):
        self.source, self.cp, self.buf, self.graphs, self.out_cap, self.numrho = (source, cp, buf, graphs, out_cap,
                                                                                  numrho)
        self.get_device, self.get_stream = cp.cuda.runtime.getDevice, cp.cuda.get_current_stream
        self.device = self.get_device()


_NULL = np.uint64(0)


def _launch(fn, grid, block, args, shared_mem=0):
    fn(grid, block, args, shared_mem=shared_mem)


def _capture(cp, buf, options, launch, loader=True):
    """``launch``'s three kernels, per-call values read from buf.call_dev, as a CUDA graph (or False);
    the lean graph of _replay with ``loader=False`` (cvgpu._kernels.capture_graph)."""
    return _kernels.capture_graph(
        cp, "cuda/hough", options, buf.call_dev, buf.call_pinned, 4,
        lambda call, fresh, run: launch(_NULL, np.int64(0), np.int32(0), _NULL, call, fresh, run), loader)


_device_info = {}

# ch_maxima's grid: two 1024-thread blocks per SM at most (as HoughLines' hough_maxima_emit).
_MAXIMA_BLOCKS_PER_SM = 2


def _device_consts(cp, dev):
    info = _device_info.get(dev)
    if info is None:
        num_sms, max_optin = _kernels.device_properties()
        per_block = cp.cuda.Device(dev).attributes.get("MaxSharedMemoryPerBlock", 49152)
        cap = SMEM_CAP
        while cap > 256 and cap * 8 + 9000 > max_optin:
            cap //= 2
        info = (num_sms, max_optin, per_block, cap)
        _device_info[dev] = info
    return info


# The setters' one parameter each, required (OpenCV: setRho(float rho), ..., setMaxLines(int maxLines)).
_SETTER_PARAMS = {p.name: _binding.Param(p.name, p.kind) for p in _PARAMS}


def one_wave_vote_config(numangle, npix, num_sms, max_optin, window):
    """(angles per block K, point slices) of ch_vote_shared_K with at most one block per SM, or None
    where even K = 4 makes more angle groups than SMs (then cvgpu.hough.vote_config). Each SM votes
    K angles for a 1/slices share of the points, so the K with the least K / (num_sms // groups)
    wins, the smaller K on a tie (fewer slices: fewer shared rows to flush). ``window(k)``:
    vote_window's shared columns a row; a K whose rows do not fit in shared memory is skipped.

    Measured on the H100 (GPU time of the lean graph, us, 180 angles on 132 SMs, segments; two
    rounds): K x slices = 4 x 2 (vote_config's choice, 90 blocks) / 3 x 2 (this rule, 120 blocks) /
    5 x 3 / 6 x 4 / 4 x 8 / 2 x 1: 1024^2 / 164k points 27.4-27.9 / 25.4-26.6 / 26.2-26.4 / 24.6-24.9 /
    26.8 / 36.5; 10k 15.3-15.5 / 14.8-14.9 / 16.2 / 16.5 / 17.0 / 14.7-14.9; 512^2 / 82k 21.7 /
    20.4-20.8 / 21.1 / 20.1-20.4 / 22.3-22.4 / 25.8-26.0; 4096^2 / 82k (vote_config: 1 x 2, 38.9-39.1)
    34.8-35.0 / 36.9-37.0 / 37.0 / 41.9-42.0 / 39.4; 8192^2 (1 x 2, 77.4-77.7) 75.7-75.9 / - / - / 94.5 /
    79.2 (compat_matrix/raw/hough-grid-experiments.txt)."""
    best = None
    for k in (1, 2, 3, 4):
        groups = _cdiv(numangle, k)
        if groups > num_sms or k * window(k) * 4 > max_optin - 1024:
            continue
        splits = max(1, min(num_sms // groups, _cdiv(npix, VOTE_MIN_POINTS)))
        if best is None or k * best[1] < best[0] * splits:
            best = (k, splits)
    return best


def _setter_value(method, name, args, kwargs):
    """A setter's one argument bound and converted as cv2's binding of that method does (one
    overload: CPython's TypeError for the binding, the converter's own error for the value)."""
    return _binding.parse("cuda_HoughLinesDetector." + method, [_SETTER_PARAMS[name]], args, kwargs, None,
                          overloads=1)[name]


def _float32(value):
    """static_cast<float>(double): round to nearest, inf beyond float32's range (no warning)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.float32(value)


class HoughLinesDetector:
    """cv2.cuda.HoughLinesDetector (create it with cvgpu.cuda.createHoughLinesDetector)."""

    def __init__(self, rho, theta, threshold, doSort=False, maxLines=4096):
        self._rho = _float32(rho)
        self._irho = _inverse(self._rho)
        self._theta = _float32(theta)
        self._threshold = int(threshold)
        self._do_sort = bool(doSort)
        self._max_lines = int(maxLines)
        self._buf = None
        self._sizes = {}
        self._vote_config = None  # (angles per block, splits) to force, for the benchmark sweep
        self._last_plane = None   # (GpuMat array, its 2-D view) of the last detect
        self._hot = None          # the last detect's graph replay, see _replay

    # ------------------------------------------------------------ parameters (stored as OpenCV)
    def setRho(self, *args, **kwargs):
        """setRho(rho) -> None"""
        self._rho = _float32(_setter_value("setRho", "rho", args, kwargs))
        self._irho = _inverse(self._rho)
        self._hot = None

    def getRho(self):
        return float(self._rho)

    def setTheta(self, *args, **kwargs):
        """setTheta(theta) -> None"""
        self._theta = _float32(_setter_value("setTheta", "theta", args, kwargs))
        self._hot = None

    def getTheta(self):
        return float(self._theta)

    def setThreshold(self, *args, **kwargs):
        """setThreshold(threshold) -> None"""
        self._threshold = _setter_value("setThreshold", "threshold", args, kwargs)
        self._hot = None

    def getThreshold(self):
        return self._threshold

    def setDoSort(self, *args, **kwargs):
        """setDoSort(doSort) -> None"""
        self._do_sort = _setter_value("setDoSort", "doSort", args, kwargs)
        self._hot = None

    def getDoSort(self):
        return self._do_sort

    def setMaxLines(self, *args, **kwargs):
        """setMaxLines(maxLines) -> None"""
        self._max_lines = _setter_value("setMaxLines", "maxLines", args, kwargs)
        self._hot = None

    def getMaxLines(self):
        return self._max_lines

    # ------------------------------------------------------------ cv::Algorithm
    def empty(self):
        return False

    def clear(self):
        """Releases the device buffers (they are reallocated by the next detect)."""
        self._buf = None
        self._hot = None

    def getDefaultName(self):
        # HoughLinesDetectorImpl does not override Algorithm::getDefaultName; write() uses
        # "HoughLinesDetector_CUDA" as its node name.
        return "my_object"

    # ------------------------------------------------------------ detect
    def detect(self, src, lines=None, stream=None):
        """detect(src[, lines[, stream]]) -> lines: a 2 x N CV_32FC2 GpuMat (empty when none)."""
        hot = self._hot
        if (hot is not None and lines is None and stream is None and type(src) is GpuMat and src._arr is hot.source
                and src._type == CV_8UC1 and hot.get_device() == hot.device):
            return self._replay(hot)
        return self._detect(src, lines, stream)

    @on_input_device(1, "src")
    def _detect(self, src, lines=None, stream=None):
        self._hot = None
        if isinstance(lines, GpuMat) is False and lines is not None and _looks_like_stream(lines) \
                and stream is None:
            lines, stream = None, lines
        image = self._plane(src)
        if image is None:  # an empty GpuMat / array: no points
            return _deliver(GpuMat(), lines)
        rows, cols = image.shape
        cp = _cupy()
        _backend.record("cuda")
        skey = (rows, cols, float(self._rho), float(self._theta))
        sizes = self._sizes.get(skey)
        if sizes is None:
            if len(self._sizes) > 32:
                self._sizes.clear()
            sizes = self._sizes[skey] = accumulator_size(rows, cols, self._rho, self._theta)
        numangle, numrho = sizes
        if numangle <= 0 or numrho <= 0:
            # OpenCV checks this only once it has found points.
            with _stream_context(stream):
                has_points = int(cp.count_nonzero(image)) > 0
            if has_points:
                raise _errors.cv_error(_errors.ASSERTION_FAILED, "numangle > 0 && numrho > 0", "detect",
                                       "hough_lines.cpp", 0)
            return _deliver(GpuMat(), lines)
        # The repeat of this call (same GpuMat, no output or stream argument) may replay directly.
        source = src._arr if (type(src) is GpuMat and lines is None and stream is None) else None
        try:
            with _stream_context(stream):
                result = self._run(cp, image, numangle, numrho, source)
        except cp.cuda.memory.OutOfMemoryError as exc:
            raise _errors.cv_error(-217, "out of memory (%s)" % exc, "allocate", "cuda_gpu_mat.cpp", 0) from None
        return _deliver(result, lines)

    def _buffers(self, cp, rows, cols, numangle, numrho):
        dev = cp.cuda.runtime.getDevice()
        num_sms, max_optin, per_block, cap = _device_consts(cp, dev)
        wide = rows > 0x10000 or cols > 0x10000
        # rho and theta size the voting blocks' shared windows (vote_window).
        key = (dev, rows, cols, numangle, numrho, float(self._theta), float(self._irho), wide)  # wide last
        buf = self._buf
        if buf is not None and buf.key == key:
            return buf, cap
        old = buf
        buf = _Buffers()
        buf.key = key
        options = ("-DCVGPU_WIDE_POINTS",) if wide else ()
        npix = rows * cols
        pdtype = cp.uint64 if wide else cp.uint32
        same_device = old is not None and old.key[0] == key[0]
        if same_device and old.points.size >= npix and old.points.dtype == pdtype:
            buf.points = old.points
        else:
            buf.points = cp.empty(npix, dtype=pdtype)
        buf.counters = old.counters if same_device else cp.zeros(4, dtype=cp.int32)
        # One pinned host buffer per detector: [status][lines: 2 * cap floats][votes: cap ints].
        if same_device and old.results.host.size >= 1 + 3 * cap:
            buf.results = old.results
        else:
            pinned = cp.cuda.alloc_pinned_memory(4 * (1 + 3 * cap))
            buf.results = _PinnedResults(pinned, np.frombuffer(pinned, dtype=np.int32, count=1 + 3 * cap))
        buf.spare_out, buf.last_count = _kernels.SpareOutput(), None
        width = numrho + 2
        accum_size = (numangle + 2) * width
        hi_col = numrho if shared_vote_semantics(numrho, per_block) else numrho + 1
        # Two accumulators, used by alternate detects (buf.parity): a detect votes into one whose
        # vote windows are zero, and its ch_maxima blocks zero the other's once the count is
        # published, for the next detect (off the path to the count; H100, detect +
        # downloadResults: 1024^2 / 82k 27.0-27.4 -> 26.0-26.6 us, 8192^2 84.7 -> 72.9-73.1).
        # Zeroed once here; only the columns each row's votes can reach (ch_row_bounds) are
        # ever written.
        buf.accums = cp.zeros(2 * accum_size, dtype=cp.int32)
        buf.accum_pair = (buf.accums[:accum_size], buf.accums[accum_size:])
        buf.parity = 0
        buf.bounds = cp.zeros(1 + 2 * numangle, dtype=cp.int32)
        _kernels.get_function("cuda/hough", "ch_row_bounds", options)(
            (_cdiv(numangle, 256),), (256,),
            (np.int32(numangle), np.int32(numrho), np.int32(hi_col), self._theta, self._irho, np.int64(rows),
             np.int64(cols), buf.bounds))
        cells = numangle * numrho
        # Every possible local maximum (no two neighbours in a row qualify, see hough_find_maxima).
        buf.keys = cp.empty(numangle * ((numrho + 1) // 2), dtype=cp.uint64)
        buf.graphs, buf.graph_seen, buf.leans = {}, None, {}
        buf.call_pinned = cp.cuda.alloc_pinned_memory(8 * 4)
        buf.call_host = np.frombuffer(buf.call_pinned, dtype=np.int64, count=4)
        buf.call_words = memoryview(buf.call_host)  # the replay's store (cheaper than numpy's)
        buf.call_dev = cp.zeros(4, dtype=cp.int64)

        buf.collect = (_kernels.get_function("cuda/hough", "ch_collect", options),
                       (collect_grid(rows, cols, 0, num_sms),), (256,))

        if width * 4 <= max_optin - 1024:
            # The voting kernels' (cos, sin) / rho (ch_trig: float32 angle n * theta), near enough for
            # sizing the shared windows (vote_window's margin covers sincosf's error).
            with np.errstate(all="ignore"):
                angles = np.arange(numangle, dtype=np.float32) * np.float32(self._theta)
                host_cos = np.cos(angles.astype(np.float64)) * float(self._irho)
                host_sin = np.sin(angles.astype(np.float64)) * float(self._irho)

            def window(k):
                return vote_window(host_cos, host_sin, rows, cols, k, hi_col + 1)
            per_block_angles, splits = (self._vote_config or one_wave_vote_config(numangle, npix, num_sms, max_optin,
                                                                                  window) or
                                        vote_config(numangle, numrho, npix, num_sms, max_optin,
                                                    vote_residency("cuda/hough", "ch_vote_shared_%d", options,
                                                                   window), window))
            window_cells = window(per_block_angles)
            smem = per_block_angles * window_cells * 4
            fn = _kernels.get_function("cuda/hough", "ch_vote_shared_%d" % per_block_angles, options,
                                       max_dynamic_shared=smem)
            buf.vote = (fn, (_cdiv(numangle, per_block_angles), splits), (512,), smem,
                        (np.int32(numangle), np.int32(numrho), np.int32(hi_col), np.int32(window_cells),
                         np.int32(VOTE_MIN_POINTS), np.int32(rows), np.int32(cols)))
        else:
            # Angle rows are split over several blocks until the GPU is covered; the number of
            # points is not known on the host (no sync), so the pixel count bounds it.
            splits = max(1, min(_cdiv(num_sms * 8, numangle), _cdiv(npix, _THREADS * 4), 65535))
            fn = _kernels.get_function("cuda/hough", "ch_vote_global", options)
            buf.vote = (fn, (numangle, splits), (_THREADS,), 0, (np.int32(numrho), np.int32(hi_col)))
        buf.maxima = (_kernels.get_function("cuda/hough", "ch_maxima", options, max_dynamic_shared=cap * 8),
                      (max(1, min(_cdiv(cells, 1024), _MAXIMA_BLOCKS_PER_SM * num_sms)),), (1024,), cap * 8)
        buf.args = (np.int64(rows), np.int32(cols), np.int32(width), np.int32(numangle))
        self._buf = buf
        return buf, cap

    def _run(self, cp, image, numangle, numrho, source=None):
        rows, cols = image.shape
        buf, cap = self._buffers(cp, rows, cols, numangle, numrho)
        a_rows, a_cols, a_width, a_numangle = buf.args
        a_numrho = np.int32(numrho)
        rho32, theta32 = self._rho, self._theta
        irho = self._irho
        max_lines = self._max_lines
        out_cap = max(1, min(max_lines, cap))
        stream, out = _start_detect(cp, buf, out_cap)
        step = image.strides[0]

        def launch(image_arg, step_arg, load_width_arg, out_arg, call_arg, fresh_arg=None, run=_launch, parity=0):
            accum, next_accum = buf.accum_pair[parity], buf.accum_pair[1 - parity]
            fn, grid, block = buf.collect
            args = (image_arg, a_cols, step_arg, a_rows, load_width_arg, buf.points, buf.counters, call_arg)
            if fresh_arg:  # a lean graph's first kernel (cvgpu._kernels.capture_graph)
                fn = _kernels.get_function("cuda/hough", "ch_collect_lean", self._options(buf))
                args += (fresh_arg,)
            run(fn, grid, block, args)
            fn, grid, block, smem, vote_args = buf.vote
            run(fn, grid, block, (buf.points, buf.counters, theta32, irho) + vote_args + (accum,), smem)
            fn, grid, block, smem = buf.maxima
            run(fn, grid, block, (accum, a_numangle, a_numrho, np.int32(self._threshold), buf.keys,
                                  buf.counters, np.int32(max_lines),
                                  np.int32(1 if self._do_sort else 0), np.int32(cap), rho32, theta32, out_arg,
                                  np.int64(out_cap * 2), np.int32(out_cap), np.uint64(buf.results.pinned.ptr),
                                  call_arg, buf.bounds, next_accum),
                smem)

        def launch_on(parity):
            return lambda *args: launch(*args, parity=parity)

        try:
            # From the second detect with the same settings on, the three launches replay as one
            # captured CUDA graph (as cvgpu.hough does): ~3 us of host time instead of ~25.
            gkey = (self._threshold, max_lines, self._do_sort, float(rho32), float(theta32), out_cap)
            parity = buf.parity
            graph = buf.graphs.get((gkey, parity))
            if graph is None and buf.graph_seen == gkey:
                graph = buf.graphs[(gkey, parity)] = _capture(cp, buf, self._options(buf), launch_on(parity))
            buf.graph_seen = gkey
            if graph:
                call = buf.call_host
                call[0] = image.data.ptr
                call[1] = step
                call[2] = load_width(image.data.ptr, step, cols)
                call[3] = out.ptr
                graph.launch(stream)
                buf.parity = parity ^ 1
                if source is not None:
                    # A repeat replays a lean graph (no load node: call[0..2] keep this image's
                    # words, 1.2-1.4 us less GPU time, see cvgpu.hough._launch_graph), one per parity.
                    leans = []
                    for q in (0, 1):
                        lean = buf.leans.get((gkey, q))
                        if lean is None:
                            lean = buf.leans[(gkey, q)] = _capture(cp, buf, self._options(buf), launch_on(q),
                                                                   loader=False)
                        leans.append(lean)
                    if all(leans):
                        self._hot = _Hot(source, cp, buf, tuple(leans), out_cap, numrho)
            else:
                launch(image, np.int64(step), np.int32(load_width(image.data.ptr, step, cols)), np.uint64(out.ptr),
                       _NULL, parity=parity)
                buf.parity = parity ^ 1
        except BaseException:
            self._abandon(buf)
            raise
        return self._finish(cp, buf, stream, out, out_cap, numrho)

    def _replay(self, hot):
        """detect's repeat of the previous graph-replayed call (same GpuMat array, device, settings
        and buffers; the setters, clear and any other detect drop ``_hot``): only the output memory
        changes, call[0..2] still hold this image's pointer, step and load width, so ``hot`` holds
        the lean graphs (no load node), one per accumulator parity. It skips the full
        path's argument checks, device switch, plane, sizes, buffers and closures, and does before
        the launch only what the launch needs (the bookkeeping follows it, while the GPU works):
        detect + downloadResults on the H100 host, 10k points 38.2 -> 28.6 us, 512^2 / 82k 43.0 ->
        36.7, 2048^2 / 82k 51.3 -> 44.6 (interleaved old/new, two rounds; GPU time ~1 us of each)."""
        buf = hot.buf
        stream = hot.get_stream()
        out = buf.spare_out.take(hot.cp, stream, hot.out_cap * 16)
        buf.call_words[3] = out.ptr
        results = buf.results
        results.flag[0] = _INT_MIN
        parity = buf.parity
        try:
            hot.graphs[parity].launch(stream)
        except BaseException:
            self._abandon(buf)
            raise
        buf.parity = parity ^ 1
        results.launched += 1  # older results' pinned copies are overwritten from here on
        _backend.record("cuda")
        return self._finish(hot.cp, buf, stream, out, hot.out_cap, hot.numrho)

    def _abandon(self, buf):
        """After a launch that failed or did not complete: no replay of it, and counters that start
        the next detect clean (stream-ordered after whatever did run): counters and both
        accumulators zeroed."""
        self._hot = None
        buf.counters.fill(0)
        buf.accums.fill(0)

    def _finish(self, cp, buf, stream, out, out_cap, numrho):
        """The launched detect's result: host work during the GPU's, the one sync, the GpuMat."""
        results = buf.results
        last = buf.last_count
        expected = None
        try:
            # Host work done while the GPU runs (~4 us of a detect otherwise): the next detect's
            # output memory, and the result as it is when the line count repeats (a video's
            # frames, a benchmark's repeats), returned as it is once the count is known.
            buf.spare_out.refill(cp, stream, out_cap * 16)
            if last:
                expected = _lines_mat(
                    cp.ndarray((2, last, 2), dtype=cp.float32, memptr=out, strides=(out_cap * 8, 8, 4)),
                    (results, results.launched, last, out_cap) + results.views_for(last, out_cap))
            # The one host sync: the line count, polled where ch_maxima publishes it (as cvgpu.hough).
            _kernels.await_published(results.flag, _INT_MIN, stream)
        except BaseException:
            self._abandon(buf)
            raise
        status = results.flag[0]
        if status == last and expected is not None:
            return expected
        if status == _INT_MIN:
            self._abandon(buf)
            raise _errors.cv_error(-217, "the Hough kernels did not complete", "detect", "hough_lines.cpp", 0)
        buf.last_count = max(status, 0)
        if status >= 0:
            count = status
            if count == 0:
                return GpuMat()
            # out[:, :count, :] as a direct view (CuPy's slicing costs several us of host time).
            prepared = cp.ndarray((2, count, 2), dtype=cp.float32, memptr=out, strides=(out_cap * 8, 8, 4))
            # downloadResults reads the pinned copy while no later detect has overwritten it.
            return _lines_mat(prepared, (results, results.launched, count, out_cap) +
                              results.views_for(count, out_cap))
        return self._host_path(cp, buf, -status - 1, numrho)

    def _host_path(self, cp, buf, total, numrho):
        """More than SMEM_CAP local maxima: ch_maxima left their keys (any order) for CuPy's sort."""
        max_lines = self._max_lines
        count = 0 if max_lines <= 0 else min(total, max_lines)
        if count == 0:
            return GpuMat()
        keys = buf.keys[:total]
        if self._do_sort or total > count:
            keys = cp.sort(keys)[:count]  # the strongest first (ties in raster order)
        if not self._do_sort:
            swapped = cp.sort((keys << np.uint64(32)) | (keys >> np.uint64(32)))  # raster order
            keys = (swapped << np.uint64(32)) | (swapped >> np.uint64(32))
        out = cp.empty((2, count, 2), dtype=cp.float32)
        _kernels.get_function("cuda/hough", "ch_emit", self._options(buf))(
            (max(1, min(_cdiv(count, 256), 1024)),), (256,),
            (keys, np.int32(count), np.int32(numrho), self._rho, self._theta, out, np.int64(count * 2)))
        return _lines_mat(out, None)

    @staticmethod
    def _options(buf):
        return ("-DCVGPU_WIDE_POINTS",) if buf.key[-1] else ()

    def _plane(self, src):
        """_device_image(src), reusing the 2-D view of the GpuMat's array the last detect made."""
        if type(src) is GpuMat and src._type == CV_8UC1 and src._arr is not None:
            arr = src._arr
            cached = self._last_plane
            if cached is not None and cached[0] is arr:
                return cached[1]
            image = upload_2d(arr[:, :, 0])
            self._last_plane = (arr, image)
            return image
        return _device_image(src)

    # ------------------------------------------------------------ downloadResults
    def downloadResults(self, d_lines, h_lines=None, h_votes=None, stream=None):
        """downloadResults(d_lines[, h_lines[, h_votes[, stream]]]) -> h_lines, h_votes

        h_lines: 1 x N CV_32FC2 (numpy (1, N, 2) float32); h_votes: 1 x N CV_32SC1 ((1, N) int32).
        Both None when d_lines is empty."""
        if type(d_lines) is GpuMat and h_lines is None and h_votes is None:
            # The common call on detect's own result while its pinned copy is current (~3 us less
            # host time than the checks below; a GpuMat with a mirror is always 2 x N CV_32FC2).
            mirror = d_lines._host_mirror
            if mirror is not None and mirror[1] == mirror[0].launched:
                return mirror[4].copy(), mirror[5].copy()
        if h_votes is not None and _looks_like_stream(h_votes) and stream is None:
            h_votes, stream = None, h_votes
        if not isinstance(d_lines, GpuMat):
            dev = as_device_array(d_lines)
            if dev is None:
                if d_lines is None:
                    return None, None
                raise _errors.bad_argument("downloadResults", "Expected Ptr<cv::cuda::GpuMat> for argument 'd_lines'")
            d_lines = GpuMat._from_array(dev)
        if d_lines.empty():
            return None, None
        if not (d_lines.size()[1] == 2 and d_lines.type() == CV_32FC2):
            raise _errors.cv_error(_errors.ASSERTION_FAILED, "d_lines.rows == 2 && d_lines.type() == CV_32FC2",
                                   "downloadResults", "hough_lines.cpp", 0)
        n = d_lines.size()[0]
        mirror = d_lines._host_mirror
        if mirror is not None and mirror[1] == mirror[0].launched and mirror[2] == n:
            lines_h, votes_h = mirror[4].copy(), mirror[5].copy()
        else:
            cp = _cupy()
            with _stream_context(stream):
                both = cp.asnumpy(d_lines._arr)
            lines_h = np.ascontiguousarray(both[0]).reshape(1, n, 2)
            votes_h = np.ascontiguousarray(both[1]).reshape(-1).view(np.int32)[:n].reshape(1, n).copy()
        return _into(lines_h, h_lines), _into(votes_h, h_votes)


def _start_detect(cp, buf, out_cap):
    """(stream, output memory) of a detect about to launch; its pinned result slot marked unset."""
    stream = cp.cuda.get_current_stream()
    # Memory only (a (2, out_cap, 2) float32 array): the array object is made once the count is
    # known (cp.empty costs ~2.7 us of host time against ~0.8 for the allocation alone).
    out = buf.spare_out.take(cp, stream, out_cap * 16)
    results = buf.results
    results.host[0] = _INT_MIN
    results.launched += 1  # older results' pinned copies are overwritten from here on
    return stream, out


def _lines_mat(arr, mirror):
    """A CV_32FC2 GpuMat over a (2, N, 2) float32 view (no checks: built by detect)."""
    m = GpuMat()
    m._arr, m._type, m._host_mirror = arr, CV_32FC2, mirror
    return m


def _into(value, dst):
    if isinstance(dst, np.ndarray) and dst.shape == value.shape and dst.dtype == value.dtype:
        dst[...] = value
        return dst
    return value


def _looks_like_stream(value):
    return type(value).__name__ in ("Stream", "ExternalStream")


def _deliver(result, lines):
    """OpenCV writes into the given output GpuMat (released when nothing is found)."""
    if isinstance(lines, GpuMat):
        if result.empty():
            lines.release()
        else:
            lines._arr, lines._type, lines._host_mirror = result._arr, result._type, result._host_mirror
        return lines
    return result


def _device_image(src):
    """A 2-D uint8 CuPy array of src, None when src is empty; cv2.error -215 for other types."""
    if isinstance(src, GpuMat):
        if src.empty():
            if src.type() != CV_8UC1:
                _type_error()
            return None
        if src.type() != CV_8UC1:
            _type_error()
        return upload_2d(src._arr[:, :, 0])
    if src is None:
        return None
    if isinstance(src, np.ndarray):
        arr = src
        if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 1)):
            _type_error()
        if arr.size == 0:
            return None
        if _backend.cupy_module() is None:
            raise no_cuda()
    else:
        arr = as_device_array(src)
        if arr is None:
            if _backend.cupy_module() is None and (hasattr(src, "__cuda_array_interface__") or
                                                    hasattr(src, "__dlpack__")):
                raise no_cuda()
            raise _errors.bad_argument("detect", "Expected Ptr<cv::cuda::GpuMat> for argument 'src'",
                                       "Expected Ptr<cv::UMat> for argument 'src'")
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 1)):
        if arr.size == 0 and arr.dtype == np.uint8:
            return None
        _type_error()
    if arr.ndim == 3:
        arr = arr[:, :, 0]
    if arr.size == 0:
        return None
    return upload_2d(arr)


def _type_error():
    raise _errors.cv_error(_errors.ASSERTION_FAILED, "src.type() == CV_8UC1", "detect", "hough_lines.cpp", 0)


def createHoughLinesDetector(*args, **kwargs):
    """createHoughLinesDetector(rho, theta, threshold[, doSort[, maxLines]]) -> retval

    rho and theta are stored as float32, threshold and maxLines as int (as OpenCV)."""
    a = _binding.parse("createHoughLinesDetector", _PARAMS, args, kwargs, None, overloads=1)
    return HoughLinesDetector(a["rho"], a["theta"], a["threshold"], a["doSort"], a["maxLines"])
