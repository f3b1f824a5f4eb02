"""cv2.cuda.createHoughSegmentDetector: OpenCV's CUDA probabilistic Hough (cudaimgproc), in cvgpu.

Same segments as OpenCV's CUDA detector (kernels/cuda/segments.cu has the algorithm, its arithmetic
and how it was established against OpenCV's own output), plus:

* deterministic order: by local maximum in raster order of the accumulator (angle index, then rho
  index), then along that maximum's walk across the image;
* when there are more segments than maxLines, the first maxLines in that order are kept (OpenCV
  keeps whichever its atomics happened to write first);
* ``detect`` also takes CuPy / CUDA-array-interface / DLPack device arrays and numpy arrays
  (uploaded), besides GpuMat;
* one host synchronisation per detect (the segment count);
* the segments are also written to pinned host memory, so ``download()`` of detect's result
  copies host memory while no later detect of the same detector has overwritten it (a device
  read otherwise); a repeat of a detect on the same GpuMat with the same settings replays the
  captured graph directly (HoughSegmentDetector._replay).

The result is a 1 x N CV_32SC4 GpuMat (x1, y1, x2, y2 int32), empty when there are none. The
voting is the lines detector's (cvgpu.cuda.hough: its buffers, point list, voting kernels and call
words; OpenCV's two detectors share it too); from the second detect with the same settings on, the
launches replay as one captured CUDA graph (cvgpu._graphs).
"""
import weakref

import numpy as np

from .. import _backend, _binding, _device_ops, _errors, _graphs, _kernels
from .._arrays import on_input_device, upload_2d
from .._cvmath import INT_MIN, cdiv
from .._graphs import CALL, Kernel, Word, await_published
from ..hough._voting import TUNING, load_width
from . import hough as _hough
from .gpumat import GpuMat, _cupy, _stream_context, make_type

FAMILY = "cuda/segments"  # kernels/cuda/segments.cu

CV_8UC1 = 0
CV_32SC4 = make_type(4, 4)
_CELLS_PER_TILE = 1024 * 4   # cs_maxima: 1024 threads x CS_CELLS (kernels/cuda/segments.cu)
_PLACE = 256                 # cs_place: maxima a block (CS_PLACE)
_WALK_THREADS = 256
_COUNTERS = 5                # CS_COUNTERS
_HOST_HEAD = 4               # pinned ints before the host copy of the segments: [flag, total, -, -]
# Output capacity (segments) at most; a detect with more segments and a larger maxLines runs again
# with room for all of them (a second synchronisation).
OUT_CAP = 1 << 16
# Segments kept per possible maximum by the first walk (kernels/cuda/segments.cu: the stash), so
# that only maxima with more are walked again; fewer where the stash would pass STASH_BYTES. 16: the
# cuda-segments rows of seg_ab.py (compat_matrix/HISTORY.md, "Segment detector: host copy, hot
# replay, one maxima pass"; 32 lost at 3840x2160).
STASH_PER = 16
STASH_BYTES = 1 << 28

# cv::cuda::createHoughSegmentDetector(float rho, float theta, int minLineLength, int maxLineGap,
# int maxLines = 4096, int threshold = -1): one overload (no array argument), so its binding raises
# the converters' own Python errors.
_PARAMS = [
    _binding.Param("rho", "float"),
    _binding.Param("theta", "float"),
    _binding.Param("minLineLength", "int"),
    _binding.Param("maxLineGap", "int"),
    _binding.Param("maxLines", "int", 4096),
    _binding.Param("threshold", "int", -1),
]
_SETTER_PARAMS = {p.name: _binding.Param(p.name, p.kind) for p in _PARAMS}


def _setter_value(method, name, args, kwargs):
    """A setter's one argument bound and converted as cv2's binding of that method does."""
    return _binding.parse("cuda_HoughSegmentDetector." + method, [_SETTER_PARAMS[name]], args, kwargs, None,
                          overloads=1)[name]


def stash_slots(most):
    """Stash slots a possible maximum: STASH_PER, halved until ``most`` maxima's fit STASH_BYTES (0:
    none fits; every maximum with segments is then walked twice)."""
    per = STASH_PER
    while per > 0 and most * per * 16 > STASH_BYTES:
        per //= 2
    return per


def vote_threshold(threshold, min_line_length):
    """The votes a local maximum needs (OpenCV: threshold when > 0, else minLineLength)."""
    return threshold if threshold > 0 else min_line_length


class _Workspace:
    """The segment kernels' buffers over one voting buffer set (the lines detector's _Buffers) and
    their launch plans, one per setting."""

    __slots__ = ("voting", "rowbits", "rw", "collect", "collect_lean", "tiles", "chains", "place_blocks", "maxima",
                 "counts", "offsets", "counters", "results", "walk_grid", "plans", "graph_seen", "spare_out",
                 "stash_per", "stash", "last_count")


class _Results(_graphs.PinnedResults):
    """The pinned host memory the last kernels write to: [flag, total, -, -] then the segments
    (OUT_CAP x 4 int32), and how many detects have been launched over it. A result GpuMat keeps
    (this, its detect's number, its (1, N, 4) view) as its host mirror (GpuMat.download copies
    the view while no later detect has overwritten it)."""

    __slots__ = ("launched", "views")

    def __init__(self, cp):
        super().__init__(cp, _HOST_HEAD + 4 * OUT_CAP)
        self.launched = 0
        self.views = {}

    def view(self, count):
        """The (1, count, 4) int32 view of the host copy (made once per count)."""
        v = self.views.get(count)
        if v is None:
            if len(self.views) > 64:
                self.views.clear()
            v = self.views[count] = self.host[_HOST_HEAD:_HOST_HEAD + 4 * count].reshape(1, count, 4)
        return v


class _Hot(_graphs.HotCall):
    """What detect's repeat of a graph-replayed call needs (HoughSegmentDetector._replay): the
    source GpuMat's array, the work space, the plan's lean graph, the output limit and bytes."""

    __slots__ = ("source", "ws", "lean", "limit", "out_bytes")


class HoughSegmentDetector:
    """cv2.cuda.HoughSegmentDetector (create it with cvgpu.cuda.createHoughSegmentDetector)."""

    def __init__(self, rho, theta, minLineLength, maxLineGap, maxLines=4096, threshold=-1):
        self._rho = _hough._float32(rho)
        self._theta = _hough._float32(theta)
        self._min_len = int(minLineLength)
        self._max_gap = int(maxLineGap)
        self._max_lines = int(maxLines)
        self._threshold = int(threshold)
        # The voting's buffers and kernels are the lines detector's (its _buffers, keyed by image
        # size, rho and theta); this detector's own work space sits beside them.
        self._voter = _hough.HoughLinesDetector(rho, theta, 1)
        self._ws = None
        self._sizes = {}
        self._hot = None          # the last detect's graph replay, see _replay
        _detectors.add(self)

    # ------------------------------------------------------------ parameters (stored as OpenCV)
    def setRho(self, *args, **kwargs):
        """setRho(rho) -> None"""
        self._rho = _hough._float32(_setter_value("setRho", "rho", args, kwargs))
        self._hot = None

    def getRho(self):
        return float(self._rho)

    def setTheta(self, *args, **kwargs):
        """setTheta(theta) -> None"""
        self._theta = _hough._float32(_setter_value("setTheta", "theta", args, kwargs))
        self._hot = None

    def getTheta(self):
        return float(self._theta)

    def setMinLineLength(self, *args, **kwargs):
        """setMinLineLength(minLineLength) -> None"""
        self._min_len = _setter_value("setMinLineLength", "minLineLength", args, kwargs)
        self._hot = None

    def getMinLineLength(self):
        return self._min_len

    def setMaxLineGap(self, *args, **kwargs):
        """setMaxLineGap(maxLineGap) -> None"""
        self._max_gap = _setter_value("setMaxLineGap", "maxLineGap", args, kwargs)
        self._hot = None

    def getMaxLineGap(self):
        return self._max_gap

    def setMaxLines(self, *args, **kwargs):
        """setMaxLines(maxLines) -> None"""
        self._max_lines = _setter_value("setMaxLines", "maxLines", args, kwargs)
        self._hot = None

    def getMaxLines(self):
        return self._max_lines

    def setThreshold(self, *args, **kwargs):
        """setThreshold(threshold) -> None"""
        self._threshold = _setter_value("setThreshold", "threshold", args, kwargs)
        self._hot = None

    def getThreshold(self):
        return self._threshold

    # ------------------------------------------------------------ cv::Algorithm
    def empty(self):
        return False

    def clear(self):
        """Releases the device buffers (they are reallocated by the next detect)."""
        self._ws = None
        self._hot = None
        self._voter.clear()

    def getDefaultName(self):
        # HoughSegmentDetectorImpl does not override Algorithm::getDefaultName.
        return "my_object"

    # ------------------------------------------------------------ detect
    def detect(self, src, lines=None, stream=None):
        """detect(src[, lines[, stream]]) -> lines: a 1 x N CV_32SC4 GpuMat (empty when none)."""
        hot = self._hot
        if (hot is not None and lines is None and stream is None and type(src) is GpuMat and src._arr is hot.source
                and src._type == CV_8UC1 and hot.get_device() == hot.device):
            return self._replay(hot, src)
        return self._detect(src, lines, stream)

    @on_input_device(1, "src")
    def _detect(self, src, lines=None, stream=None):
        self._hot = None
        lines, stream = _hough._stream_given_as_lines(lines, stream)
        image = _hough._device_image(src, "hough_segments.cpp")
        if image is None:  # an empty GpuMat / array: no points
            return _hough._no_points(lines)
        rows, cols = image.shape
        cp = _cupy()
        _backend.record("cuda")
        numangle, numrho = _hough._cached_sizes(self._sizes, rows, cols, self._rho, self._theta)
        if numangle <= 0 or numrho <= 0:
            # OpenCV checks this only once it has found points.
            with _stream_context(stream):
                has_points = int(_device_ops.ops(cp).any_nonzero_2d(image).get()[0]) > 0
            if has_points:
                raise _errors.cv_error(_errors.ASSERTION_FAILED, "numangle > 0 && numrho > 0", "detect",
                                       "hough_segments.cpp", 0)
            return _binding.deliver(GpuMat(), lines)
        # The repeat of this call (same GpuMat, no output or stream argument) may replay directly.
        source = src._arr if (type(src) is GpuMat and lines is None and stream is None) else None
        try:
            with _stream_context(stream):
                result = self._run(cp, image, numangle, numrho, source)
        except cp.cuda.memory.OutOfMemoryError as exc:
            raise _errors.cv_error(-217, "out of memory (%s)" % exc, "allocate", "cuda_gpu_mat.cpp", 0) from None
        return _binding.deliver(result, lines)

    def _workspace(self, cp, rows, cols, numangle, numrho):
        voter = self._voter
        voter._rho, voter._theta = self._rho, self._theta
        voter._irho = _hough._inverse(self._rho)
        buf = voter._buffers(cp, rows, cols, numangle, numrho)
        ws = self._ws
        if ws is not None and ws.voting is buf:
            return ws
        ws = _Workspace()
        ws.voting = buf
        ws.rw = cdiv(cols, 32)
        ws.rowbits = cp.empty(rows * ws.rw, dtype=cp.uint32)
        # The lines detector's collection that also writes the rows as bits: compiled with the
        # voting's options (its point type).
        c = buf.collect
        ws.collect = Kernel(_kernels.get_function(FAMILY, "cs_collect", buf.options), c.grid, c.block, 0,
                            **c.args, rowbits=ws.rowbits, rw=np.int32(ws.rw))
        ws.collect_lean = ws.collect.lean(_kernels.get_function(FAMILY, "cs_collect_lean", buf.options))
        ws.tiles = max(1, cdiv(numangle * (numrho + 2), _CELLS_PER_TILE))
        # No two local maxima are neighbours (strict 8-neighbour rule).
        most = cdiv(numangle, 2) * cdiv(numrho, 2)
        ws.maxima = cp.empty(most, dtype=cp.uint32)
        ws.counts = cp.empty(most, dtype=cp.int32)
        ws.offsets = cp.empty(most, dtype=cp.int32)
        # The chained scans' words: cs_maxima's (a tile each), then cs_place's (a block each); zero
        # between detects (cs_walk_write's last block zeroes them).
        ws.place_blocks = cdiv(most, _PLACE)
        ws.chains = cp.zeros(ws.tiles + ws.place_blocks, dtype=cp.uint64)
        ws.stash_per = stash_slots(most)
        ws.stash = cp.empty((most * ws.stash_per or 1, 4), dtype=cp.int32)
        ws.counters = cp.zeros(_COUNTERS, dtype=cp.int32)
        ws.results = _Results(cp)
        num_sms = _kernels.device_properties()[0]
        walk = _kernels.get_function(FAMILY, "cs_walk_count", ())
        per_sm = _kernels.resident_blocks(walk, _WALK_THREADS, 0) or 4
        ws.walk_grid = num_sms * per_sm
        ws.plans, ws.graph_seen, ws.spare_out, ws.last_count = {}, None, _graphs.SpareOutput(), None
        self._ws = ws
        return ws

    def _plan(self, cp, ws, rows, cols, numangle, numrho, limit):
        buf = ws.voting

        def kernel(name):
            return _kernels.get_function(FAMILY, name, ())
        rho, theta = self._rho, self._theta
        threshold = np.int32(max(INT_MIN, min(vote_threshold(self._threshold, self._min_len), 2**31 - 1)))
        walk = dict(numrho=np.int32(numrho), rho=rho, theta=theta, rows=np.int32(rows), cols=np.int32(cols),
                    min_len=np.int32(self._min_len), max_gap=np.int32(self._max_gap), rowbits=ws.rowbits,
                    rw=np.int32(ws.rw))
        accum = buf.accum_pair[0]
        pinned = ws.results.pinned.ptr
        # The host copy of the segments where the limit fits its room (else none: a null pointer).
        host_out = np.uint64(pinned + 4 * _HOST_HEAD if limit <= OUT_CAP else 0)
        kernels = (
            ws.collect,
            buf.votes[0],
            Kernel(kernel("cs_maxima"), (ws.tiles,), (1024,), 0, accum=accum, numangle=np.int32(numangle),
                   numrho=np.int32(numrho), threshold=threshold, bounds=buf.bounds, chain=ws.chains[:ws.tiles],
                   maxima=ws.maxima, counters=ws.counters),
            Kernel(kernel("cs_walk_count"), (ws.walk_grid,), (_WALK_THREADS,), 0, maxima=ws.maxima,
                   counters=ws.counters, **walk, counts=ws.counts, accum=accum, bounds=buf.bounds,
                   numangle=np.int32(numangle), stash=ws.stash, stash_per=np.int32(ws.stash_per)),
            Kernel(kernel("cs_place"), (ws.place_blocks,), (_PLACE,), 0, counters=ws.counters, counts=ws.counts,
                   offsets=ws.offsets, chain=ws.chains[ws.tiles:], stash=ws.stash, stash_per=np.int32(ws.stash_per),
                   max_lines=np.int32(limit), out=Word("out_ptr"), call=CALL, host_out=host_out),
            Kernel(kernel("cs_walk_write"), (ws.walk_grid,), (_WALK_THREADS,), 0, maxima=ws.maxima,
                   counters=ws.counters, **walk, counts=ws.counts, offsets=ws.offsets, max_lines=np.int32(limit),
                   out=Word("out_ptr"), point_counter=buf.counters, host=np.uint64(pinned),
                   call=CALL, stash_per=np.int32(ws.stash_per), host_out=host_out, chains=ws.chains,
                   chain_words=np.int32(ws.chains.size)),
        )
        return _graphs.GraphPlan(cp, _hough.FAMILY, buf.options, buf.call, kernels, ws.collect_lean, _ran)

    def _run(self, cp, image, numangle, numrho, source=None):
        rows, cols = image.shape
        max_lines = self._max_lines
        ws = self._workspace(cp, rows, cols, numangle, numrho)
        limit = max(0, min(max_lines, OUT_CAP))
        count, total, out = self._launch(cp, ws, image, numangle, numrho, limit, source)
        if total > limit and max_lines > limit:
            # More segments than the usual room and maxLines allows more: again with room for all.
            self._hot = None
            limit = min(max_lines, total)
            count, total, out = self._launch(cp, ws, image, numangle, numrho, limit, None)
        return _result(cp, ws, count, out, limit)

    def _launch(self, cp, ws, image, numangle, numrho, limit, source=None):
        """Runs the plan once: (segments written, segments in all, output memory). ``source``: the
        GpuMat's array, for a hot call when the lean graph replays this image."""
        rows, cols = image.shape
        buf = ws.voting
        gkey = (self._min_len, self._max_gap, limit, self._threshold, float(self._rho), float(self._theta))
        plan = ws.plans.get(gkey)
        if plan is None:
            if len(ws.plans) > 16:
                ws.plans.clear()
            plan = ws.plans[gkey] = self._plan(cp, ws, rows, cols, numangle, numrho, limit)
        stream = cp.cuda.get_current_stream()
        out_bytes = max(1, limit) * 16
        out = ws.spare_out.take(cp, stream, out_bytes)
        results = ws.results
        results.flag[0] = INT_MIN
        step, ptr = image.strides[0], image.data.ptr
        hot = None
        try:
            graph = plan.graph
            if graph is None and ws.graph_seen == gkey:
                graph = plan.full_graph()
            ws.graph_seen = gkey
            if graph:
                head = (ptr, step, load_width(ptr, step, cols))
                _hough._pack_words(buf.call_bytes, 0, *head, out.ptr)
                plan.replay(stream, head)
                if source is not None and limit <= OUT_CAP:
                    lean = plan.lean_graph()   # (captured on first use)
                    if lean and buf.call.loaded == head:
                        hot = _Hot(cp)
                        hot.source, hot.ws, hot.lean, hot.limit, hot.out_bytes = source, ws, lean, limit, out_bytes
            else:
                _ran("direct")
                plan.launch_direct((image, np.int64(step), np.int32(load_width(ptr, step, cols)), np.uint64(out.ptr)))
            results.launched += 1  # older results' host copies are overwritten from here on
            ws.spare_out.refill(cp, stream, out_bytes)
            await_published(results.flag, INT_MIN, stream, results.flag_ptr)
        except BaseException:
            self._abandon(ws)
            raise
        count = self._published(ws)
        self._hot = hot
        ws.last_count = count
        return count, int(results.host[1]), out

    def _replay(self, hot, src):
        """detect's repeat of the previous graph-replayed call (same GpuMat array, device, settings
        and work space; the setters, clear, a TUNING override and any other detect drop ``_hot``):
        only the output memory changes (its word in the pinned call words, which the lean graph's
        first kernel reads), so it skips the argument layer, sizes, work space and plan lookups.
        The result as it is when the count repeats is made while the GPU works."""
        ws = hot.ws
        cp = hot.cp
        stream = hot.get_stream()
        out = ws.spare_out.take(cp, stream, hot.out_bytes)
        ws.voting.out_word[0] = out.ptr
        results = ws.results
        results.flag[0] = INT_MIN
        try:
            hot.lean.launch(stream)
            results.launched += 1
            _backend.record("cuda")
            ws.spare_out.refill(cp, stream, hot.out_bytes)
            last = ws.last_count
            expected = _result(cp, ws, last, out, hot.limit) if last else None
            await_published(results.flag, INT_MIN, stream, results.flag_ptr)
        except BaseException:
            self._abandon(ws)
            raise
        count = self._published(ws)
        if int(results.host[1]) > hot.limit and self._max_lines > hot.limit:
            # More segments than the room: the full path (it launches again with room for all).
            self._hot = None
            return self._detect(src)
        if count != last or expected is None:
            ws.last_count = count
            expected = _result(cp, ws, count, out, hot.limit)
        return expected

    def _published(self, ws):
        """The segment count the last kernel published (after the wait); cv2's error, the work space
        reset, where the kernels did not complete."""
        count = ws.results.flag[0]
        if count == INT_MIN:
            self._abandon(ws)
            raise _errors.cv_error(-217, "the Hough kernels did not complete", "detect", "hough_segments.cpp", 0)
        return count

    def _abandon(self, ws):
        """After a launch that failed or did not complete: counters and accumulators zeroed."""
        self._hot = None
        ws.counters.fill(0)
        ws.chains.fill(0)
        ws.voting.counters.fill(0)
        ws.voting.accums.fill(0)
        ws.voting.call.loaded = None


def _result(cp, ws, count, out, limit):
    """The 1 x count CV_32SC4 GpuMat over the output memory (empty when none), with the host copy
    as its mirror where the kernels wrote one."""
    m = GpuMat()
    if count == 0:
        return m
    m._arr = cp.ndarray((1, count, 4), dtype=cp.int32, memptr=out)
    m._type = CV_32SC4
    results = ws.results
    m._host_mirror = (results, results.launched, results.view(count)) if limit <= OUT_CAP else None
    return m


def _ran(path):
    TUNING.ran("segments." + path)


# Every detector, so that a TUNING override drops their hot calls (the voting buffers' keys carry
# TUNING.generation).
_detectors = weakref.WeakSet()


def _forget():
    for det in list(_detectors):
        det._hot = None


TUNING.on_change(_forget)


def createHoughSegmentDetector(*args, **kwargs):
    """createHoughSegmentDetector(rho, theta, minLineLength, maxLineGap[, maxLines[, threshold]]) -> retval

    rho and theta are stored as float32, the others as int (as OpenCV)."""
    a = _binding.parse("createHoughSegmentDetector", _PARAMS, args, kwargs, None, overloads=1)
    return HoughSegmentDetector(a["rho"], a["theta"], a["minLineLength"], a["maxLineGap"], a["maxLines"],
                                a["threshold"])
