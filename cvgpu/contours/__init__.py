"""cv2.findContours and cv2.findContoursLinkRuns on the GPU, bit-exact with the cv2 beside it; plus
``findContoursPacked``.

On the GPU: CV_8UC1 images with RETR_EXTERNAL / RETR_LIST / RETR_CCOMP / RETR_TREE, CV_32SC1 label
images with RETR_FLOODFILL / RETR_CCOMP, each with CHAIN_APPROX_NONE / SIMPLE / TC89_L1 / TC89_KCOS
and an offset; findContoursLinkRuns on CV_8UC1 / CV_8SC1 images. Label images with other modes and
8-bit images with RETR_FLOODFILL raise cv2's type errors from here. Everything else (the chain-code
methods, output arguments, other types, and every other call cv2 rejects) is handed to cv2
unchanged and reported as computed by cv2, so errors are cv2's own. Images beyond the kernels'
int32 indices raise cv2.error -211 (see _suzuki, "Index widths"); running out of GPU memory raises
cv2's -4 after one retry without the cached scratch.

The package follows OpenCV's split of imgproc's contours (contours_new.cpp, contours_link.cpp,
contours_approx.cpp, contours_common.cpp), one module per algorithm and one kernel file each:
  _suzuki    CV_8UC1 images (kernels/contours/suzuki.cu)
  _labels    CV_32SC1 label images (labels.cu)
  _tc89      the TC89 approximations of either's NONE result (tc89.cu)
  _linkruns  findContoursLinkRuns (linkruns.cu)
  _ranking   list ranking, the contour tree's order, offsets and layouts (ranking.cu, ranking_block.cu)
  _common    cv2's constants, the argument helpers, the Gpu a call runs on, size limits, errors.
This module holds the public functions, their argument layer, the assembly of cv2's return values
from the packed form (one point array, int64 offsets, the hierarchy) and ``TUNING``.

cvgpu extension: ``findContoursPacked(image, mode, method, offset=None)`` returns
``(points (P, 2) int32, offsets (M + 1,) int64, hierarchy (M, 4) int32)``: contour i is
``points[offsets[i]:offsets[i + 1]]`` and ``hierarchy[i]`` is cv2's ``[next, previous,
first_child, parent]``. CuPy arrays for device input (nothing leaves the GPU), numpy for host input.

For tests and benchmarks: ``TUNING.override(name=value)`` forces a path and ``TUNING.paths()``
counts the paths taken (names in ``PATHS``); ``computing_on(gpu)`` runs the public functions on
another device object (tests/contours/kernel_host.py builds one over host-compiled kernels).
"""
import cv2
import numpy as np

from .._tuning import Tuning

# Every measured choice of the family. A value chosen by measurement names the `cvgpu bench` rows
# ("contours", "contours-labels", "linkruns") that chose it; the measurements are in
# compat_matrix/HISTORY.md ("Moved from the contours code") and compat_matrix/raw/.
TUNING = Tuning(
    "contours",
    # numpy output lays the points out by contour length (assemble_grouped's views) from this many
    # contours on, in output order below: "contours" noisy 1232x1028 LIST / EXTERNAL SIMPLE (grouped
    # faster) against blobs 1232x1028 (no difference).
    grouped_min=4096,
    # assemble_grouped makes one array a run of equal lengths from this many contours on, slices
    # shorter runs one by one: "contours" blobs 2464x2056 / 4928x4112 LIST SIMPLE.
    run_min=8,
    # Walk states (8 per border pixel) from which they are ranked by rulers rather than by jumping
    # over every slot: "contours" blobs 4928x4112 (rulers faster) against blobs 1232x1028 (slower).
    ruler_min_slots=1 << 22,
    # Threads per block of rank_jump_inplace: fewer, larger blocks make its grid barrier cheaper;
    # "contours" noisy 1232x1028 (the ranking's time at 1024 / 512 / 256).
    jump_block=1024,
    # Lists of up to this many records are ranked in one block's shared memory (rank_jump_shared,
    # 8 bytes a record, where it fits): faster than the cooperative kernel at every tree Euler
    # tour measured, "contours" blobs / noisy 1232x1028 TREE and blobs 2464x2056 TREE.
    jump_shared_max=24576,
    # Up to this many contours the numpy path's layout by length is sorted on the host (numpy's
    # radix sort of 16-bit keys, counts downloaded with the hierarchy): fewer host calls than the
    # device's argsort, gathers and scan; "contours" noisy 1232x1028 LIST / EXTERNAL SIMPLE.
    host_sort_max=16384,
    # RETR_EXTERNAL's selection runs in one block (external_select, no host sync) up to this many
    # borders, a flatnonzero (cvgpu._device_ops, a sync) above: "contours" EXTERNAL rows at 1232x1028 to
    # 4928x4112 (compat_matrix/raw/contours-ext-select-ab.txt).
    device_select_max=16384,
    # Host images go up as bits packed by up to upload_threads threads, one per upload_band pixels
    # at least: "contours" blobs 4928x4112 EXTERNAL SIMPLE (4 threads) and blobs 1232x1028 TREE
    # SIMPLE (one band).
    upload_threads=4,
    upload_band=1 << 21,
    # Where cvgpu._native's helpers load, the C helper packs and sends instead (upload_rows: no GIL,
    # its own threads for large images); False keeps numpy's packbits (A/B runs; HISTORY.md,
    # "findContours packs in C").
    native_upload=True,
    # Up to this many contours the offsets come from one block's scan (offsets_scan), above from
    # the device-wide scan (cvgpu._device_ops); the kernel replaced CuPy's cumsum on the "contours"
    # rows at 1232x1028 to 4928x4112 (compat_matrix/raw/contours-upload-scan-ab.txt), the bound
    # itself is not measured.
    offsets_scan_max=16384,
    # Up to this many borders the tree order's sort is tree_sort_small (one block), above Thrust's
    # argsort: the kernel's limit (14 bits of index); chosen with offsets_scan_max.
    tree_sort_small_max=16384,
    # Label images: fixed-point rounds of lab_events before one thread replays the events in order
    # instead (exact in one pass, but sequential). A bound, not a measured choice: the
    # "contours-labels" rows settle in a few dozen rounds.
    lab_max_rounds=256,
    # Rounds of tc89_nms_round before the per-contour finish (exact with any number). TC89_L1's
    # values are 1..4, so a chain of pass-2 dependencies has at most 3 links: 3 rounds decide every
    # point. KCOS values have no such bound; chains are short on real borders (not measured).
    tc89_rounds_l1=3,
    tc89_rounds_kcos=8,
    # Threads at a time in a host-input call's pipeline (0: no limit). Its host side hands the GIL
    # over a dozen times (syncs, copies, the per-contour arrays); with eight threads inside at once
    # each hand-over waits behind the others' Python work: findContours VGA from eight threads 0.75k
    # frames/s, 1.25k with one thread inside (HISTORY, "Threads: one GIL hand-over per HoughLines
    # call"). Device input is not gated: its calls stay asynchronous on the caller's stream.
    host_calls_at_once=1,
    # A host-image RETR_EXTERNAL call (NONE or SIMPLE) of a shape met before runs as one captured
    # graph (cvgpu/contours/_graph.py) up to this many pixels (0: never) and this many borders (the
    # flat layout's range, below grouped_min). graph_ab.py's camera-frame rows (HISTORY,
    # "RETR_EXTERNAL as one graph a shape"): the graph faster on every row of 640x480 to 1920x1080;
    # larger frames not measured (a graph keeps ~25 bytes a pixel).
    graph_max_pixels=1920 * 1080,
    graph_max_borders=4096,
)

# The paths the code counts with TUNING.ran(name), the one list of their names.
PATHS = {
    "grouped": "the points laid out by contour length for the numpy views (grouped_min)",
    "flat": "the points laid out in output order",
    "host_sort": "the layout by length sorted on the host (host_sort_max)",
    "device_sort": "the layout by length sorted on the device",
    "runs_long": "assemble_grouped made one array of a run of equal lengths (run_min)",
    "runs_short": "assemble_grouped sliced contours of short runs one by one",
    "rulers": "the walk states ranked by rulers (ruler_min_slots)",
    "jump_slots": "the walk states ranked by jumping over every slot",
    "jump_shared": "a list ranked in one block's shared memory (jump_shared_max)",
    "jump_cooperative": "a list ranked in one cooperative launch (rank_jump_inplace)",
    "jump_launches": "a list ranked with one launch a round (rank_jump: no cooperative launch)",
    "tree_sort_small": "the tree order sorted in one block (tree_sort_small_max)",
    "tree_argsort": "the tree order sorted by Thrust's argsort",
    "offsets_scan": "the offsets by one block's scan (offsets_scan_max)",
    "offsets_cumsum": "the offsets by the device-wide scan (cvgpu._device_ops)",
    "external_select": "RETR_EXTERNAL selected in one block (device_select_max)",
    "external_flatnonzero": "RETR_EXTERNAL selected by a flatnonzero (cvgpu._device_ops)",
    "upload_bits": "a host image packed to bits by the calling thread",
    "upload_bands": "a host image packed to bits in bands on several threads (upload_threads, upload_band)",
    "upload_rows": "a host image packed to bit rows and sent up by cvgpu._native's C helper (native_upload)",
    "lab_rounds": "label images: the trace events settled by fixed-point rounds",
    "lab_serial": "label images: the trace events replayed by one thread (lab_max_rounds)",
    "grid_capped": "a grid-stride launch with fewer threads than elements (Gpu.grid_cap)",
    "host_gate_waited": "a host-input call waited for another thread's call (host_calls_at_once)",
    "graph": "a host-input RETR_EXTERNAL call ran as its shape's captured graph (graph_max_pixels)",
    "graph_built": "a shape's graph was captured, with capacities from its last launched call",
    "graph_over": "a graph's counts passed its capacities: the call ran again on the launched pipeline",
}

from .. import _backend, _device_ops, _engine, _kernels, _versions  # noqa: E402  (the modules below read TUNING)
from .._arrays import as_device_array, on_input_device  # noqa: E402
from . import _common, _graph, _labels, _linkruns, _suzuki  # noqa: E402
from ._common import (CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE, RETR_CCOMP, RETR_EXTERNAL,  # noqa: E402,F401
                      RETR_FLOODFILL, RETR_LIST, RETR_TREE, TC89, Forward, computing_on)

_NAMES = ("image", "mode", "method", "contours", "hierarchy", "offset")
_ONE_D = _versions.behaviour("binding.one_d")
_LEGACY = _versions.behaviour("contours.implementation") == "legacy"
_TC89_L1 = 3  # cv2.CHAIN_APPROX_TC89_L1


def _bind(args, kwargs):
    """(2-D image (numpy or CuPy), on_device, mode, method, ox, oy) of a findContours call cvgpu
    computes; Forward for the calls that are cv2's; cv2's type errors for label images."""
    bound = _common.by_name(_NAMES, args, kwargs)
    for k in ("image", "mode", "method"):
        if k not in bound:
            raise Forward
    if bound.get("contours") is not None or bound.get("hierarchy") is not None:
        raise Forward  # output arguments: cv2's own handling
    mode, method = bound["mode"], bound["method"]
    if not (_common.is_int(mode) and _common.is_int(method)):
        raise Forward
    mode, method = int(mode), int(method)
    if mode not in (RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE, RETR_FLOODFILL) or method not in (
            CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE) + TC89:
        raise Forward  # chain codes, link runs, bad values: cv2's
    offset = bound.get("offset")
    if offset is None:
        ox = oy = 0
    else:
        if not isinstance(offset, (tuple, list)) or len(offset) != 2 or not all(_common.is_int(o) for o in offset):
            raise Forward
        ox, oy = int(offset[0]), int(offset[1])
        if not all(-(1 << 31) <= o < (1 << 31) for o in (ox, oy)):
            raise Forward
    image = bound["image"]
    device = as_device_array(image)
    arr = device if device is not None else image
    if not isinstance(arr, np.ndarray) and device is None:
        raise Forward
    if arr.dtype != np.uint8 and arr.dtype != np.int32:
        raise Forward
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    elif arr.ndim == 1 and _ONE_D == "row":
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise Forward
    if _LEGACY and (arr.dtype == np.int32 or mode == RETR_FLOODFILL or method == _TC89_L1):
        # Before 4.10 (_versions: contours.implementation, contours.tc89_l1) label images, their
        # errors and TC89_L1 follow the legacy C code, which the kernels do not reproduce: cv2's.
        raise Forward
    mode = _labels.label_mode(arr, mode)
    return arr, device is not None, mode, method, ox, oy


def _run(func, gpu, image, mode, method, ox, oy, grouped=False):
    """The pipeline of the image's type (label images: _labels, else _suzuki), with the huge-image
    and out-of-memory errors as cv2.error, ordered after the thread's previous call."""
    if mode == RETR_FLOODFILL:
        return _common.run_ordered(func, gpu, lambda: _labels.gpu_labels(gpu, image, method, ox, oy, grouped=grouped))
    return _common.run_ordered(func, gpu,
                               lambda: _suzuki.gpu_contours(gpu, image, mode, method, ox, oy, grouped=grouped))


def _engine_key(arr, mode, method):
    """What a call's cost depends on, for the engine's model: size, type, mode and method."""
    return (_engine.size_bucket(arr.size), arr.dtype.char, mode, method)


def _by_engine(func, arr, on_device, key, gpu_call, cv2_call):
    """Host input: the call on the engine cvgpu._engine chooses; device input: the GPU."""
    if on_device or _engine.get_engine() == _engine.CUDA:
        return gpu_call()
    return _engine.run(func, key, False, gpu_call, cv2_call)


_FAST_MODES = frozenset((RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE))
_FAST_METHODS = frozenset((CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE) + tuple(m for m in TC89
                                                                          if not (_LEGACY and m == _TC89_L1)))
_UINT8 = np.dtype(np.uint8)


def findContours(*args, **kwargs):
    """cv2.findContours(image, mode, method[, contours[, hierarchy[, offset]]]) -> contours, hierarchy"""
    if len(args) == 3 and not kwargs:
        # The common call, findContours(mask, mode, method) with a 2-D uint8 numpy mask and plain
        # ints: what _bind would find, without its generality (a small mask's cv2 call takes ~25
        # us, and the full argument layer added ~7 us to it on the CPU machine; HISTORY, "The
        # common findContours call"). The engine's key and choice are the full path's.
        image, mode, method = args
        if (type(image) is np.ndarray and type(mode) is int and type(method) is int and image.ndim == 2
                and image.dtype == _UINT8 and mode in _FAST_MODES and method in _FAST_METHODS and image.size):
            _backend.record(None)
            return _by_engine("findContours", image, False, _engine_key(image, mode, method),
                              lambda: _find_gpu(args, kwargs, image, False, mode, method, 0, 0),
                              lambda: _cv2_common(image, mode, method))
    return _find_contours(*args, **kwargs)


def _cv2_common(image, mode, method):
    _backend.record("cv2")
    return cv2.findContours(image, mode, method)


@on_input_device(0, "image")
def _find_contours(*args, **kwargs):
    _backend.record(None)
    try:
        arr, on_device, mode, method, ox, oy = _bind(args, kwargs)
    except Forward:
        return _common.cv2_call("findContours", args, kwargs)
    return _by_engine("findContours", arr, on_device, _engine_key(arr, mode, method),
                      lambda: _find_gpu(args, kwargs, arr, on_device, mode, method, ox, oy),
                      lambda: _common.cv2_call("findContours", args, kwargs))


def _find_gpu(args, kwargs, arr, on_device, mode, method, ox, oy):
    gpu = _common.current_gpu()
    if gpu is None:
        _backend.warn_fallback()
        return _common.cv2_call("findContours", args, kwargs)
    _common.check_image_size(arr.shape, "findContours")
    _backend.record("cuda")
    if on_device:
        # Device in, device out: CuPy arrays over one device array (findContoursPacked avoids
        # building one array object per contour).
        points, offsets, layout, hier = _run("findContours", gpu, arr, mode, method, ox, oy)
        return _device_views(gpu.cp, points, layout, hier)
    with _common.HOST_GATE:
        graph = mode == RETR_EXTERNAL and _graph.eligible(gpu, arr, method, on_device)
        if graph:
            out = _common.run_ordered("findContours", gpu, lambda: _graph.contours(gpu, arr, method, ox, oy))
            if out is not None:
                return assemble(*out)
        points, offsets, layout, hier = _run("findContours", gpu, arr, mode, method, ox, oy, grouped=True)
        if graph:
            ws = gpu.workspace()
            _graph.note_counts(ws, _graph.key_of(arr, method, ox, oy), *ws.last_counts)
        if offsets is None:
            return _assemble_while_emitting(points, layout, hier)
        return assemble(points.get(), layout, hier if isinstance(hier, np.ndarray) else hier.get())


@on_input_device(0, "image")
def findContoursPacked(image, mode, method, offset=None):
    """cvgpu extension: findContours as (points (P,2) int32, offsets (M+1,) int64, hierarchy (M,4)
    int32). CuPy arrays for device input, numpy for host input."""
    _backend.record(None)
    args = (image, mode, method, None, None, offset)
    try:
        arr, on_device, mode_, method_, ox, oy = _bind(args, {})
    except Forward:
        res = pack(*_common.cv2_call("findContours", args, {}))
        if as_device_array(image) is not None:
            cp = _backend.cupy_module()
            return tuple(cp.asarray(a) for a in res)
        return res
    return _by_engine("findContours", arr, on_device, _engine_key(arr, mode_, method_),
                      lambda: _packed_gpu(args, arr, on_device, mode_, method_, ox, oy),
                      lambda: pack(*_common.cv2_call("findContours", args, {})))


def _packed_gpu(args, arr, on_device, mode, method, ox, oy):
    gpu = _common.current_gpu()
    if gpu is None:
        _backend.warn_fallback()
        return pack(*_common.cv2_call("findContours", args, {}))
    _common.check_image_size(arr.shape, "findContoursPacked")
    _backend.record("cuda")
    if on_device:
        points, offsets, offsets_h, hier = _run("findContoursPacked", gpu, arr, mode, method, ox, oy)
        return points, offsets, hier
    with _common.HOST_GATE:
        points, offsets, offsets_h, hier = _run("findContoursPacked", gpu, arr, mode, method, ox, oy)
        return points.get(), offsets_h, hier.get()


@on_input_device(0, "image")
def findContoursLinkRuns(*args, **kwargs):
    """cv2.findContoursLinkRuns(image[, contours[, hierarchy]]) -> contours, hierarchy"""
    _backend.record(None)
    try:
        arr, on_device = _linkruns.image_of(args, kwargs)
    except Forward:
        image = args[0] if args else kwargs.get("image")
        return _linkruns_cv2(args, kwargs, as_device_array(image) is not None)
    return _by_engine("findContoursLinkRuns", arr, on_device, (_engine.size_bucket(arr.size), arr.dtype.char),
                      lambda: _linkruns_gpu_call(args, kwargs, arr, on_device),
                      lambda: _linkruns_cv2(args, kwargs, False))


def _linkruns_gpu_call(args, kwargs, arr, on_device):
    gpu = _common.current_gpu()
    if gpu is None:
        _backend.warn_fallback()
        return _linkruns_cv2(args, kwargs, False)
    _linkruns.check_size(arr.shape)
    _backend.record("cuda")
    points, offsets, layout, hier = _common.run_ordered(
        "findContoursLinkRuns", gpu, lambda: _linkruns.linkruns_gpu(gpu, arr, grouped=not on_device),
        _linkruns.FAMILY)
    if on_device:
        return _device_views(gpu.cp, points, layout, hier)
    # The flat hierarchy is known from the count alone: built here rather than downloaded.
    m = len(layout[0]) if offsets is None else len(layout) - 1
    hier = np.full((m, 4), -1, dtype=np.int32)
    hier[:-1, 0] = np.arange(1, m, dtype=np.int32)
    hier[1:, 1] = np.arange(0, m - 1, dtype=np.int32)
    if offsets is None:
        return _assemble_while_emitting(points, layout, hier)
    return assemble(points.get(), layout, hier)


def _linkruns_cv2(args, kwargs, on_device):
    """cv2's findContoursLinkRuns on host copies; its arrays uploaded for device input."""
    res = _common.cv2_call("findContoursLinkRuns", args, kwargs)
    cp = _backend.cupy_module() if on_device else None
    if cp is None or not isinstance(res, tuple) or len(res) != 2:
        return res
    contours, hier = res
    return tuple(cp.asarray(c) for c in contours), (None if hier is None else cp.asarray(hier))


# ---------------------------------------------------------------- cv2's return values

def pack(contours, hierarchy):
    """The packed form of cv2's (contours, hierarchy)."""
    m = len(contours)
    offsets = np.zeros(m + 1, np.int64)
    if m == 0:
        return np.zeros((0, 2), np.int32), offsets, np.zeros((0, 4), np.int32)
    np.cumsum([len(c) for c in contours], out=offsets[1:])
    points = np.concatenate([c.reshape(-1, 2) for c in contours]).astype(np.int32, copy=False)
    return points, offsets, np.asarray(hierarchy, np.int32).reshape(m, 4)


def assemble(points, offsets, hierarchy):
    """cv2's return value from the packed form: views into one (P, 1, 2) int32 array."""
    m = len(offsets) - 1
    if m <= 0:
        return (), None
    p3 = points.reshape(-1, 1, 2)
    bounds = offsets.tolist()
    # Slices over a list of bounds: the cheapest way to make M views (against map over slices,
    # np.split and the like).
    contours = tuple([p3[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    return contours, hierarchy.reshape(1, m, 4)


def assemble_grouped(points, order, lengths, hierarchy):
    """cv2's return value from points laid out by length: contour order[i] has lengths[i] points, the
    i-th in the points, in runs of equal lengths whose contours ascend in output order (a stable sort
    by length gives this; a length may recur in several runs). Each run of at least TUNING.run_min
    contours is one (c, L, 1, 2) array whose iterator makes its views in C; shorter runs' contours
    are sliced one by one. The views are made lazily, in cv2's order (map(next, ...) over each
    contour's iterator), so they lie in memory in the order the caller's tuple frees them (freeing
    many views out of that order is slower) and the tuple needs no object array to reorder it."""
    m = len(order)
    if m == 0:
        return (), None
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    bounds = np.concatenate(([0], np.flatnonzero(lengths[1:] != lengths[:-1]) + 1, [m]))
    runs = np.diff(bounds)
    is_long = runs >= TUNING.run_min
    n_long = int(np.count_nonzero(is_long))
    iters = np.empty(n_long + 1, dtype=object)      # one per long run, then the short runs' one
    run_iter = np.cumsum(is_long) - 1
    run_iter[~is_long] = n_long
    which = np.empty(m, dtype=np.intp)
    which[order] = np.repeat(run_iter, runs)
    long_runs = np.flatnonzero(is_long)
    if n_long:
        TUNING.ran("runs_long")
    for j, a, c in zip(range(n_long), bounds[long_runs].tolist(), runs[long_runs].tolist()):
        length, pos = int(lengths[a]), int(starts[a])
        iters[j] = iter(points[pos:pos + length * c].reshape(c, length, 1, 2))
    if n_long < len(runs):
        TUNING.ran("runs_short")
        short = np.flatnonzero(np.repeat(~is_long, runs))
        short = short[np.argsort(order[short], kind="stable")]
        p3 = points.reshape(-1, 1, 2)
        iters[n_long] = iter([p3[x:y] for x, y in zip(starts[short].tolist(), starts[short + 1].tolist())])
    return tuple(map(next, iters[which].tolist())), hierarchy.reshape(1, m, 4)


def _assemble_while_emitting(points, layout, hierarchy):
    """assemble_grouped for the grouped numpy paths (findContours, findContoursLinkRuns), whose layout
    and hierarchy are on the host while the points are still being emitted: the views are made over
    the host buffer first, as the GPU writes the points, then the points are downloaded into it (the
    call's last sync)."""
    host = np.empty(points.shape, dtype=np.int32)
    result = assemble_grouped(host, layout[0], layout[1], hierarchy)
    points.get(out=host)
    return result


def _device_views(cp, points, offsets, hier):
    """cv2's return value on the device: one CuPy array per contour over the points' memory, made
    with the ndarray constructor, which costs less per contour than slicing or iterating a
    (c, L, 1, 2) array per length."""
    m = len(offsets) - 1
    if m <= 0:
        return (), None
    base = points.data
    starts = (offsets[:-1] * 8).tolist()
    lengths = np.diff(offsets).tolist()
    nd, i32 = cp.ndarray, cp.int32
    return tuple([nd((n, 1, 2), i32, base + o) for n, o in zip(lengths, starts)]), hier.reshape(1, m, 4)


def _warm(cp):
    """The engine's start-up: the family's kernel modules loaded before its first GPU call (and
    cvgpu._device_ops', which every pipeline launches)."""
    for module in ("suzuki", "ranking", "ranking_block", "tc89", "labels", "linkruns"):
        _kernels.preload("contours/" + module)
    _kernels.preload(_device_ops.FAMILY)


_engine.register_warmup("contours", _warm)
