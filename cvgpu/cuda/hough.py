"""cv2.cuda.createHoughLinesDetector: OpenCV's CUDA Hough line detector (cudaimgproc), in cvgpu.

Same lines, float32 values and vote counts as OpenCV's CUDA detector (see kernels/cuda/hough.cu for
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

Without a usable GPU, detect computes the same result on the CPU (cvgpu/cuda/_hough_host.py,
numpy; ``last_call_backend()`` says ``"numpy"``) and returns a host-backed GpuMat of the same layout
(cvgpu/cuda/gpumat.py), which downloadResults reads as it reads a device one.

The launch plan (collection, voting, maxima) is HoughLines' (cvgpu.hough._voting, the same voting
kernels in kernels/hough/voting.cuh) and replays as a captured graph from the second detect with the
same settings on (cvgpu._graphs); a repeat on the same GpuMat replays the lean graph directly
(HoughLinesDetector._replay).
"""
import math
import weakref

import numpy as np

from .. import _backend, _binding, _device_ops, _errors, _graphs, _kernels
from .._arrays import as_device_array, on_input_device, upload_2d
from .._cvmath import INT_MIN, cdiv, cv_round
from .._graphs import CALL, Kernel, Word, await_published
from ..hough._voting import (IMAGE_WORDS, TUNING, VOTE_THREADS, collect_grid, load_width, one_wave_vote_config,
                             shared_vote_grid, vote_residency, vote_variant, vote_window)
from .gpumat import GpuMat, _cupy, _on_host, _stream_context, host_mode, make_type, no_cuda

FAMILY = "cuda/hough"  # kernels/cuda/hough.cu

CV_8UC1 = 0
CV_32FC2 = make_type(5, 2)
# Local maxima sorted/gathered by one block in shared memory (a power of two, 8 bytes a key); beyond,
# the host path. Halved on a device whose opt-in shared memory per block is smaller. At most
# CH_RANK_ITEMS (kernels/cuda/hough.cu) times the 1024 threads of that block.
SMEM_CAP = 8192
_THREADS = 256  # a ch_vote_global block

# The call words of the graphs (kernels/cuda/hough.cu: CH_WORD_*): the image's, then the output pointer.
WORDS = _graphs.CallWords(IMAGE_WORDS + (("out_ptr", np.uint64),), lean_keeps=len(IMAGE_WORDS))
_pack_words = WORDS.pack_into

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

def accumulator_size(rows, cols, rho32, theta32):
    """(numangle, numrho) as OpenCV's detector computes them:
    numangle = cvRound(CV_PI / theta) in double (theta widened from float);
    numrho = cvRound(((cols + rows) * 2 + 1) / rho) — an int divided by a float: float32 division."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        # OpenCV-CUDA's host code, x86 conversions (not the wheel's: pip wheels have no CUDA).
        numangle = cv_round(math.pi / float(theta32), "int_min") if float(theta32) != 0 else INT_MIN
        numrho = cv_round(np.float32(np.float32((cols + rows) * 2 + 1) / np.float32(rho32)), "int_min")
    return numangle, numrho


def shared_vote_semantics(numrho, shared_mem_per_block=49152):
    """True when OpenCV votes in shared memory (accumulator columns 0..numrho kept), False when it
    votes with global atomics (columns 0..numrho+1 kept)."""
    return (numrho + 1) * 4 < shared_mem_per_block - 1000


def _inverse(rho32):
    """OpenCV's irho = 1.0f / rho in float32, computed once per rho (by the setter, not by each
    detect); rho = 0 never reaches the kernels (its accumulator size is invalid)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        return np.float32(1) / rho32


# ---------------------------------------------------------------- device buffers

class _Buffers:
    """A detector's device buffers for one image size, device, theta and rho, and the kernels over
    them that do not depend on the other settings; ``plans``: a _Plan per setting of threshold,
    maxLines, doSort, rho, theta and output capacity."""

    __slots__ = ("key", "options", "points", "accums", "accum_pair", "parity", "bounds", "counters", "keys", "results",
                 "call", "call_bytes", "out_word", "spare_out", "last_count", "collect", "collect_lean", "votes",
                 "maxima", "chain", "cap", "plans", "graph_seen")


class _Plan:
    """The launch plan of one setting over a _Buffers: a GraphPlan per accumulator parity (alternate
    detects vote into alternate accumulators), their lean graphs once both are captured (None
    before, False where capture failed) and the output's capacity in lines and bytes."""

    __slots__ = ("graphs", "leans", "out_cap", "out_bytes")


class _PinnedResults(_graphs.PinnedResults):
    """The pinned host buffer ch_maxima writes each detect's lines and votes to, and how many detects
    have been launched over it: a result GpuMat keeps (this, its detect's number, count, capacity,
    lines view, votes view) as its host mirror, and downloadResults copies the views while no later
    detect has overwritten them (the device copy otherwise)."""

    __slots__ = ("launched", "views")

    def __init__(self, cp, ints):
        super().__init__(cp, ints)
        self.launched = 0
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


class _Hot(_graphs.HotCall):
    """What detect's repeat of a graph-replayed call needs (see HoughLinesDetector._replay): the
    source GpuMat's array, the buffers, the lean graphs of both accumulator parities, the output
    capacity (lines, bytes) and numrho."""

    __slots__ = ("source", "buf", "leans", "out_cap", "out_bytes", "numrho", "direct")


_device_info = {}


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


def _ran(path):
    TUNING.ran("detector." + path)


def _leans(plan):
    """Both parities' lean graphs, captured on first use; False where a capture failed."""
    leans = (plan.graphs[0].lean_graph(), plan.graphs[1].lean_graph())
    plan.leans = all(leans) and leans
    return plan.leans


# Every detector, so that a TUNING override drops their hot calls (their buffers' keys carry
# TUNING.generation).
_detectors = weakref.WeakSet()


def _forget():
    for det in list(_detectors):
        det._hot = None


TUNING.on_change(_forget)


# The setters' one parameter each, required (OpenCV: setRho(float rho), ..., setMaxLines(int maxLines)).
_SETTER_PARAMS = {p.name: _binding.Param(p.name, p.kind) for p in _PARAMS}


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
        self._last_plane = None   # (GpuMat array, its 2-D view) of the last detect
        self._hot = None          # the last detect's graph replay, see _replay
        _detectors.add(self)

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
        if host_mode():
            return self._detect_numpy(src, lines, stream)
        return self._detect(src, lines, stream)

    def _detect_numpy(self, src, lines=None, stream=None):
        """detect without a usable GPU: the same result computed on the CPU (cvgpu/cuda/_hough_host.py),
        a host-backed GpuMat of the same layout; last_call_backend() says "numpy" (as every
        computation of cvgpu's own on the CPU)."""
        from . import _hough_host
        self._hot = None
        lines, stream = _stream_given_as_lines(lines, stream)
        image = _host_image(src)
        if image is None:  # an empty GpuMat / array: no points
            return _no_points(lines)
        rows, cols = image.shape
        if _backend.cupy_module() is None:
            _backend.warn_fallback()  # once per process, as every no-GPU path
        _backend.record("numpy")
        numangle, numrho = accumulator_size(rows, cols, self._rho, self._theta)
        if numangle <= 0 or numrho <= 0:
            # OpenCV checks this only once it has found points.
            if image.any():
                raise _errors.cv_error(_errors.ASSERTION_FAILED, "numangle > 0 && numrho > 0", "detect",
                                       "hough_lines.cpp", 0)
            return _binding.deliver(GpuMat(), lines)
        try:
            out = _hough_host.detect(image, self._rho, self._irho, self._theta, self._threshold, self._do_sort,
                                     self._max_lines, numangle, numrho)
        except MemoryError as exc:
            raise _errors.cv_error(-217, "out of memory (%s)" % exc, "allocate", "cuda_gpu_mat.cpp", 0) from None
        return _binding.deliver(GpuMat() if out is None else _lines_mat(out, None), lines)

    @on_input_device(1, "src")
    def _detect(self, src, lines=None, stream=None):
        self._hot = None
        lines, stream = _stream_given_as_lines(lines, stream)
        image = self._plane(src)
        if image is None:  # an empty GpuMat / array: no points
            return _no_points(lines)
        rows, cols = image.shape
        cp = _cupy()
        _backend.record("cuda")
        numangle, numrho = _cached_sizes(self._sizes, rows, cols, self._rho, self._theta)
        if numangle <= 0 or numrho <= 0:
            # OpenCV checks this only once it has found points.
            with _stream_context(stream):
                has_points = int(_device_ops.ops(cp).any_nonzero_2d(image).get()[0]) > 0
            if has_points:
                raise _errors.cv_error(_errors.ASSERTION_FAILED, "numangle > 0 && numrho > 0", "detect",
                                       "hough_lines.cpp", 0)
            return _binding.deliver(GpuMat(), lines)
        # The repeat of this call (same GpuMat, no output or stream argument) may replay directly.
        source = src._arr if (type(src) is GpuMat and lines is None and stream is None) else None
        try:
            with _stream_context(stream):
                result = self._run(cp, image, numangle, numrho, source)
        except cp.cuda.memory.OutOfMemoryError as exc:
            raise _errors.cv_error(-217, "out of memory (%s)" % exc, "allocate", "cuda_gpu_mat.cpp", 0) from None
        return _binding.deliver(result, lines)

    def _buffers(self, cp, rows, cols, numangle, numrho):
        dev = cp.cuda.runtime.getDevice()
        num_sms, max_optin, per_block, cap = _device_consts(cp, dev)
        wide = rows > 0x10000 or cols > 0x10000
        # rho and theta size the voting blocks' shared windows (vote_window).
        key = (dev, rows, cols, numangle, numrho, float(self._theta), float(self._irho), wide, TUNING.generation)
        buf = self._buf
        if buf is not None and buf.key == key:
            return buf
        old = buf
        buf = _Buffers()
        buf.key, buf.cap = key, cap
        buf.options = options = ("-DCVGPU_WIDE_POINTS",) if wide else ()

        def kernel(name, max_dynamic_shared=None):
            return _kernels.get_function(FAMILY, name, options, max_dynamic_shared=max_dynamic_shared)
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
            buf.results = _PinnedResults(cp, 1 + 3 * cap)
        buf.spare_out, buf.last_count = _graphs.SpareOutput(), None
        width = numrho + 2
        accum_size = (numangle + 2) * width
        hi_col = numrho if shared_vote_semantics(numrho, per_block) else numrho + 1
        # Two accumulators, used by alternate detects (buf.parity): a detect votes into one whose
        # vote windows are zero, and its ch_maxima blocks zero the other's once the count is
        # published, for the next detect (off the path to the count). Zeroed once here; only the
        # columns each row's votes can reach (ch_row_bounds) are ever written.
        buf.accums = cp.zeros(2 * accum_size, dtype=cp.int32)
        buf.accum_pair = (buf.accums[:accum_size], buf.accums[accum_size:])
        buf.parity = 0
        buf.bounds = cp.zeros(1 + 2 * numangle, dtype=cp.int32)
        kernel("ch_row_bounds")(
            (cdiv(numangle, 256),), (256,),
            (np.int32(numangle), np.int32(numrho), np.int32(hi_col), self._theta, self._irho, np.int64(rows),
             np.int64(cols), buf.bounds))
        # Every possible local maximum (no two neighbours in a row qualify, see hough_find_maxima).
        buf.keys = cp.empty(numangle * ((numrho + 1) // 2), dtype=cp.uint64)
        buf.plans, buf.graph_seen = {}, None
        buf.call = _graphs.CallBuffer(cp, WORDS)
        buf.call_bytes, buf.out_word = buf.call.bytes, buf.call.word("out_ptr")

        buf.collect = Kernel(kernel("ch_collect"), (collect_grid(rows, cols),), (256,), 0,
                             img=Word("image_ptr"), cols=np.int32(cols), step=Word("row_step"), rows=np.int64(rows),
                             align=Word("load_width"), points=buf.points, counters=buf.counters, call=CALL)
        buf.collect_lean = buf.collect.lean(kernel("ch_collect_lean"))
        variant = vote_variant(width * 4, max_optin - 1024)
        if variant == "shared":
            # The voting kernels' (cos, sin) / rho (ch_trig: float32 angle n * theta), near enough for
            # sizing the shared windows (vote_window's margin covers sincosf's error).
            with np.errstate(all="ignore"):
                angles = np.arange(numangle, dtype=np.float32) * np.float32(self._theta)
                host_cos = np.cos(angles.astype(np.float64)) * float(self._irho)
                host_sin = np.sin(angles.astype(np.float64)) * float(self._irho)

            def window(k):
                return vote_window(host_cos, host_sin, rows, cols, k, hi_col + 1)
            (per_block_angles, splits), forced = shared_vote_grid(
                numangle, numrho, npix, num_sms, max_optin, vote_residency(FAMILY, "ch_vote_shared_%d", options, window),
                window, lambda: one_wave_vote_config(numangle, npix, num_sms, max_optin, window))
            if forced:
                _ran(forced)
            window_cells = window(per_block_angles)
            smem = per_block_angles * window_cells * 4
            vote = (kernel("ch_vote_shared_%d" % per_block_angles, smem), (cdiv(numangle, per_block_angles), splits),
                    (VOTE_THREADS,), smem,
                    dict(numangle=np.int32(numangle), numrho=np.int32(numrho), hi_col=np.int32(hi_col),
                         window=np.int32(window_cells), min_points=np.int32(TUNING.vote_min_points),
                         rows=np.int32(rows), cols=np.int32(cols)))
        else:
            # Angle rows are split over several blocks until the GPU is covered; the number of
            # points is not known on the host (no sync), so the pixel count bounds it.
            splits = max(1, min(cdiv(num_sms * TUNING.detector_global_blocks_per_sm, numangle),
                                cdiv(npix, _THREADS * 4), 65535))
            vote = (kernel("ch_vote_global"), (numangle, splits), (_THREADS,), 0,
                    dict(numrho=np.int32(numrho), hi_col=np.int32(hi_col)))
        _ran("vote-" + variant)
        fn, grid, block, smem, sizes = vote
        buf.votes = tuple(Kernel(fn, grid, block, smem, points=buf.points, counters=buf.counters, theta=self._theta,
                                 irho=self._irho, **sizes, accum=accum) for accum in buf.accum_pair)
        buf.maxima = (kernel("ch_maxima", cap * 8),
                      (max(1, min(cdiv(numangle * numrho, 1024), TUNING.detector_maxima_blocks_per_sm * num_sms)),),
                      (1024,),
                      cap * 8, np.int32(numangle), np.int32(numrho))
        # ch_maxima's chained scan: a word per block and the overflow word (zero between detects).
        buf.chain = cp.zeros(buf.maxima[1][0] + 1, dtype=cp.uint64)
        self._buf = buf
        return buf

    def _direct(self, last_count):
        """Whether detect's maxima blocks write their own lines (ch_maxima's `direct`): without
        doSort, once the last detect of these buffers found TUNING.detector_direct_min_lines."""
        return (not self._do_sort and TUNING.detector_direct_write
                and (last_count or 0) >= TUNING.detector_direct_min_lines)

    def _plan(self, cp, buf, out_cap, direct):
        """The _Plan of the current settings over ``buf``."""
        fn, grid, block, smem, a_numangle, a_numrho = buf.maxima
        plan = _Plan()
        plan.out_cap, plan.out_bytes, plan.leans = out_cap, out_cap * 16, None
        graphs = []
        _ran("maxima-direct" if direct else "maxima-last-block")
        for parity in (0, 1):
            maxima = Kernel(fn, grid, block, smem, accum=buf.accum_pair[parity], numangle=a_numangle, numrho=a_numrho,
                            threshold=np.int32(self._threshold), keys=buf.keys, counters=buf.counters,
                            max_lines=np.int32(self._max_lines), do_sort=np.int32(1 if self._do_sort else 0),
                            smem_cap=np.int32(buf.cap), rho=self._rho, theta=self._theta, out=Word("out_ptr"),
                            out_step_floats=np.int64(out_cap * 2), out_cap=np.int32(out_cap),
                            host=np.uint64(buf.results.pinned.ptr), call=CALL, bounds=buf.bounds,
                            next_accum=buf.accum_pair[1 - parity], chain=buf.chain,
                            direct=np.int32(TUNING.detector_direct_own_cap if direct else 0))
            graphs.append(_graphs.GraphPlan(cp, FAMILY, buf.options, buf.call, (buf.collect, buf.votes[parity], maxima),
                                            buf.collect_lean, _ran))
        plan.graphs = tuple(graphs)
        return plan

    def _run(self, cp, image, numangle, numrho, source=None):
        rows, cols = image.shape
        buf = self._buffers(cp, rows, cols, numangle, numrho)
        out_cap = max(1, min(self._max_lines, buf.cap))
        direct = self._direct(buf.last_count)
        gkey = (self._threshold, self._max_lines, self._do_sort, float(self._rho), float(self._theta), out_cap,
                direct)
        plan = buf.plans.get(gkey)
        if plan is None:
            plan = buf.plans[gkey] = self._plan(cp, buf, out_cap, direct)
        stream, out = _start_detect(cp, buf, plan.out_bytes)
        step, ptr = image.strides[0], image.data.ptr
        parity = buf.parity
        graph_plan = plan.graphs[parity]
        try:
            # From the second detect with the same settings on, the launches replay as one captured
            # CUDA graph (cvgpu._graphs).
            graph = graph_plan.graph
            if graph is None and buf.graph_seen == gkey:
                graph = graph_plan.full_graph()
            buf.graph_seen = gkey
            if graph:
                head = (ptr, step, load_width(ptr, step, cols))
                _pack_words(buf.call_bytes, 0, *head, out.ptr)
                graph_plan.replay(stream, head)
                buf.parity = parity ^ 1
                if source is not None:
                    # A repeat replays a lean graph (the device call words keep this image's), one
                    # per parity.
                    leans = plan.leans
                    if leans is None:
                        leans = _leans(plan)
                    if leans:
                        hot = self._hot = _Hot(cp)
                        hot.source, hot.buf, hot.leans, hot.numrho = source, buf, leans, numrho
                        hot.out_cap, hot.out_bytes, hot.direct = out_cap, plan.out_bytes, direct
                        TUNING.ran("detector.hot")
            else:
                _ran("direct")
                graph_plan.launch_direct((image, np.int64(step), np.int32(load_width(ptr, step, cols)),
                                          np.uint64(out.ptr)))
                buf.parity = parity ^ 1
        except BaseException:
            self._abandon(buf)
            raise
        return self._finish(cp, buf, stream, out, out_cap, numrho)

    def _replay(self, hot):
        """detect's repeat of the previous graph-replayed call (same GpuMat array, device, settings
        and buffers; the setters, clear, a TUNING override and any other detect drop ``_hot``):
        only the output memory changes, the device call words still hold this image's pointer,
        step and load width, so ``hot`` holds the lean graphs, one per accumulator parity. It skips
        the full path's argument checks, device switch, plane, sizes, buffers and plan lookups,
        and does before the launch only what the launch needs (the bookkeeping follows it, while
        the GPU works)."""
        buf = hot.buf
        stream = hot.get_stream()
        out = buf.spare_out.take(hot.cp, stream, hot.out_bytes)
        buf.out_word[0] = out.ptr
        results = buf.results
        results.flag[0] = INT_MIN
        parity = buf.parity
        try:
            hot.leans[parity].launch(stream)
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
        accumulators zeroed, the device call words unknown."""
        self._hot = None
        buf.counters.fill(0)
        buf.accums.fill(0)
        buf.call.loaded = None

    def _finish(self, cp, buf, stream, out, out_cap, numrho):
        """The launched detect's result: host work during the GPU's, the one wait, the GpuMat."""
        results = buf.results
        last = buf.last_count
        expected = None
        try:
            # Host work done while the GPU runs: the next detect's output memory, and the result as
            # it is when the line count repeats (a video's frames, a benchmark's repeats), returned
            # as it is once the count is known.
            buf.spare_out.refill(cp, stream, out_cap * 16)
            if last:
                expected = _lines_mat(
                    cp.ndarray((2, last, 2), dtype=cp.float32, memptr=out, strides=(out_cap * 8, 8, 4)),
                    (results, results.launched, last, out_cap) + results.views_for(last, out_cap))
            # The one host wait: the line count, polled where ch_maxima publishes it.
            await_published(results.flag, INT_MIN, stream, results.flag_ptr)
        except BaseException:
            self._abandon(buf)
            raise
        status = results.flag[0]
        if status == last and expected is not None:
            return expected
        if status == INT_MIN:
            self._abandon(buf)
            raise _errors.cv_error(-217, "the Hough kernels did not complete", "detect", "hough_lines.cpp", 0)
        buf.last_count = max(status, 0)
        hot = self._hot
        if hot is not None and hot.buf is buf and hot.direct != self._direct(buf.last_count):
            self._hot = None  # the next detect takes the other plan (its graphs replay from then on)
        if status >= 0:
            count = status
            if count == 0:
                return GpuMat()
            # out[:, :count, :] as a direct view (CuPy's slicing costs more host time).
            prepared = cp.ndarray((2, count, 2), dtype=cp.float32, memptr=out, strides=(out_cap * 8, 8, 4))
            # downloadResults reads the pinned copy while no later detect has overwritten it.
            return _lines_mat(prepared, (results, results.launched, count, out_cap) +
                              results.views_for(count, out_cap))
        return self._host_path(cp, buf, -status - 1, numrho)

    def _host_path(self, cp, buf, total, numrho):
        """More than SMEM_CAP local maxima: ch_maxima left their keys (any order) for Thrust's sort."""
        max_lines = self._max_lines
        count = 0 if max_lines <= 0 else min(total, max_lines)
        if count == 0:
            return GpuMat()
        keys = buf.keys[:total]
        _ran("sort-host")
        ops = _device_ops.ops(cp)
        if self._do_sort or total > count:
            keys = ops.sort(keys)[:count]  # the strongest first (ties in raster order)
        if not self._do_sort:
            keys = ops.swap_halves(ops.sort(ops.swap_halves(keys)))  # raster order
        out = cp.empty((2, count, 2), dtype=cp.float32)
        _kernels.get_function(FAMILY, "ch_emit", buf.options)(
            (max(1, min(cdiv(count, 256), 1024)),), (256,),
            (keys, np.int32(count), np.int32(numrho), self._rho, self._theta, out, np.int64(count * 2)))
        return _lines_mat(out, None)

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
            # The common call on detect's own result while its pinned copy is current (less
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
        elif _on_host(d_lines._arr):  # a host-backed GpuMat (no GPU): the same layout, read directly
            lines_h, votes_h = _download_numpy(d_lines._arr, n)
        else:
            cp = _cupy()
            with _stream_context(stream):
                both = _device_ops.ops(cp).to_host(d_lines._arr)
            lines_h = np.ascontiguousarray(both[0]).reshape(1, n, 2)
            votes_h = np.ascontiguousarray(both[1]).reshape(-1).view(np.int32)[:n].reshape(1, n).copy()
        return _into(lines_h, h_lines), _into(votes_h, h_votes)


def _download_numpy(arr, n):
    """(lines (1, n, 2) float32, votes (1, n) int32) copied from a host-backed result's (2, n, 2) array."""
    both = np.ascontiguousarray(arr)
    return both[0].reshape(1, n, 2).copy(), both[1].reshape(-1).view(np.int32)[:n].reshape(1, n).copy()


def _start_detect(cp, buf, out_bytes):
    """(stream, output memory) of a detect about to launch; its pinned result slot marked unset."""
    stream = cp.cuda.get_current_stream()
    # Memory only (a (2, out_cap, 2) float32 array): the array object is made once the count is
    # known (an array costs more host time than its allocation).
    out = buf.spare_out.take(cp, stream, out_bytes)
    results = buf.results
    results.flag[0] = INT_MIN
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


def _stream_given_as_lines(lines, stream):
    """(lines, stream) of a detect call: ``detect(src, stream)`` passes the stream where the output
    goes, as the bindings accept."""
    if isinstance(lines, GpuMat) is False and lines is not None and _looks_like_stream(lines) and stream is None:
        return None, lines
    return lines, stream


def _no_points(lines):
    """A detector's answer to empty input: an empty GpuMat (into ``lines`` when given), no pixel work."""
    _backend.record("none")
    return _binding.deliver(GpuMat(), lines)


def _cached_sizes(cache, rows, cols, rho, theta):
    """accumulator_size for a detector's image size and parameters, kept in its ``cache`` dict."""
    key = (rows, cols, float(rho), float(theta))
    sizes = cache.get(key)
    if sizes is None:
        if len(cache) > 32:
            cache.clear()
        sizes = cache[key] = accumulator_size(rows, cols, rho, theta)
    return sizes


def _device_image(src, source="hough_lines.cpp"):
    """A 2-D uint8 CuPy array of src, None when src is empty; cv2.error -215 for other types
    (raised from OpenCV's ``source`` file)."""
    if isinstance(src, GpuMat):
        if src.empty():
            if src.type() != CV_8UC1:
                _type_error(source)
            return None
        if src.type() != CV_8UC1:
            _type_error(source)
        if _backend.cupy_module() is None:
            raise no_cuda()  # a host-backed GpuMat (no GPU) given to a detector that needs the GPU
        return upload_2d(src._arr[:, :, 0])
    if src is None:
        return None
    if isinstance(src, np.ndarray):
        arr = src
        if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 1)):
            _type_error(source)
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
        _type_error(source)
    if arr.ndim == 3:
        arr = arr[:, :, 0]
    if arr.size == 0:
        return None
    return upload_2d(arr)


def _host_image(src):
    """_device_image for the CPU path: a 2-D uint8 numpy array of src, None when src is empty; the
    same errors (-216 for a device array: there is no GPU to read it from)."""
    if isinstance(src, GpuMat):
        if src.type() != CV_8UC1:
            _type_error()
        if src.empty():
            return None
        arr = src._arr[:, :, 0]
        return arr if _on_host(arr) else arr.get()  # (a device GpuMat: only under the tests' switch)
    if src is None:
        return None
    if isinstance(src, np.ndarray):
        arr = src
        if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 1)):
            _type_error()
    else:
        dev = as_device_array(src)
        if dev is None:
            if hasattr(src, "__cuda_array_interface__") or hasattr(src, "__dlpack__"):
                raise no_cuda()
            raise _errors.bad_argument("detect", "Expected Ptr<cv::cuda::GpuMat> for argument 'src'",
                                       "Expected Ptr<cv::UMat> for argument 'src'")
        arr = dev.get()  # (only under the tests' switch: a GPU exists)
    if arr.dtype != np.uint8 or not (arr.ndim == 2 or (arr.ndim == 3 and arr.shape[2] == 1)):
        if arr.size == 0 and arr.dtype == np.uint8:
            return None
        _type_error()
    if arr.ndim == 3:
        arr = arr[:, :, 0]
    return None if arr.size == 0 else arr


def _type_error(source="hough_lines.cpp"):
    raise _errors.cv_error(_errors.ASSERTION_FAILED, "src.type() == CV_8UC1", "detect", source, 0)


def createHoughLinesDetector(*args, **kwargs):
    """createHoughLinesDetector(rho, theta, threshold[, doSort[, maxLines]]) -> retval

    rho and theta are stored as float32, threshold and maxLines as int (as OpenCV)."""
    a = _binding.parse("createHoughLinesDetector", _PARAMS, args, kwargs, None, overloads=1)
    return HoughLinesDetector(a["rho"], a["theta"], a["threshold"], a["doSort"], a["maxLines"])
