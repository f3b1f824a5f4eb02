"""cv2.findContours on the GPU, bit-exact with the cv2 beside it; plus ``findContoursPacked``.

CV_8UC1 images with RETR_EXTERNAL / RETR_LIST / RETR_CCOMP / RETR_TREE and CHAIN_APPROX_NONE /
CHAIN_APPROX_SIMPLE / CHAIN_APPROX_TC89_L1 / CHAIN_APPROX_TC89_KCOS run in ``kernels/contours.cu``:
connected-component labelling of foreground (8-connected) and background (4-connected) gives every
border, its discovery rank and its parent; the tree order (pre-order, siblings newest first) comes
from an Euler tour ranked by pointer jumping; the border walks are ranked over all walk states at
once, each ruler (about one state in 16 by a hash, plus every border's first state) walking its short
sublist and the rulers ranked by pointer jumping (see ``kernels/contours.cu``), so one very long
border costs a few dozen steps plus log2 of its length in jumping rounds. The host only splits the one returned point array into the tuple of views cv2's
binding returns. The TC89 methods approximate the NONE result's contours (cv2 traces the same
borders and approximates each chain; order and hierarchy are NONE's): per-point curvature and
support in parallel, then one thread per contour for the in-place suppression passes (see
tests/tc89_model.py, the CPU-verified model the kernels follow).

CV_32SC1 label images (RETR_FLOODFILL, and RETR_CCOMP, which cv2 runs as RETR_FLOODFILL for them)
with the same four methods run on the GPU too (see "label images" at the end of this file and of
kernels/contours.cu); label images with other modes and 8-bit images with RETR_FLOODFILL raise
cv2's type errors from here.

Everything else (the chain-code methods, output arguments, other types, and every other call cv2
rejects) is handed to cv2 unchanged and reported as computed by cv2, so errors are cv2's own. Images
beyond the kernels' int32 indices (more than 2^31 - 1025 pixels with the frame, or more than
2^28 - 32 border pixels) raise cv2.error -211: see "huge images" below.

cvgpu extension: ``findContoursPacked(image, mode, method, offset=None)`` returns
``(points (P, 2) int32, offsets (M + 1,) int64, hierarchy (M, 4) int32)``: contour i is
``points[offsets[i]:offsets[i + 1]]`` and ``hierarchy[i]`` is cv2's ``[next, previous,
first_child, parent]``. CuPy arrays for device input (nothing leaves the GPU), numpy for host input.
"""
import pathlib
import re
import threading

import cv2
import numpy as np

from . import _backend, _errors, _kernels
from ._arrays import as_device_array, on_input_device

RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE, RETR_FLOODFILL = 0, 1, 2, 3, 4
CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE, CHAIN_APPROX_TC89_L1, CHAIN_APPROX_TC89_KCOS = 1, 2, 3, 4
_TC89 = (CHAIN_APPROX_TC89_L1, CHAIN_APPROX_TC89_KCOS)

_NAMES = ("image", "mode", "method", "contours", "hierarchy", "offset")
_BLOCK = 256
_INT32_PIXELS = (1 << 31) - 1025  # flat int indices, plus the last 1024-pixel tile (section "huge images")


class _Forward(Exception):
    """The call is cv2's to compute (or to reject)."""


def _is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def _by_name(names, args, kwargs):
    """The call's arguments by parameter name; _Forward where cv2's binding must judge them."""
    if len(args) > len(names):
        raise _Forward
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise _Forward
        bound[k] = v
    return bound


def _bind(args, kwargs):
    bound = _by_name(_NAMES, args, kwargs)
    for k in ("image", "mode", "method"):
        if k not in bound:
            raise _Forward
    if bound.get("contours") is not None or bound.get("hierarchy") is not None:
        raise _Forward  # output arguments: cv2's own handling
    mode, method = bound["mode"], bound["method"]
    if not (_is_int(mode) and _is_int(method)):
        raise _Forward
    mode, method = int(mode), int(method)
    if mode not in (RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE, RETR_FLOODFILL) or method not in (
            CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE) + _TC89:
        raise _Forward  # chain codes, link runs, bad values: cv2's
    offset = bound.get("offset")
    if offset is None:
        ox = oy = 0
    else:
        if not isinstance(offset, (tuple, list)) or len(offset) != 2 or not all(_is_int(o) for o in offset):
            raise _Forward
        ox, oy = int(offset[0]), int(offset[1])
        if not all(-(1 << 31) <= o < (1 << 31) for o in (ox, oy)):
            raise _Forward
    image = bound["image"]
    device = as_device_array(image)
    arr = device if device is not None else image
    if not isinstance(arr, np.ndarray) and device is None:
        raise _Forward
    if arr.dtype != np.uint8 and arr.dtype != np.int32:
        raise _Forward
    if arr.ndim == 3 and arr.shape[2] == 1:
        arr = arr[:, :, 0]
    elif arr.ndim == 1 and int(cv2.__version__.split(".")[0]) >= 5:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise _Forward
    mode = _label_mode(arr, mode)
    return arr, device is not None, mode, method, ox, oy


def _host(v):
    if v is None or isinstance(v, np.ndarray):
        return v
    d = as_device_array(v)
    return d.get() if d is not None else v


def _cv2_call(args, kwargs):
    _backend.record("cv2")
    return cv2.findContours(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})


@on_input_device(0, "image")
def findContours(*args, **kwargs):
    """cv2.findContours(image, mode, method[, contours[, hierarchy[, offset]]]) -> contours, hierarchy"""
    try:
        arr, on_device, mode, method, ox, oy = _bind(args, kwargs)
    except _Forward:
        return _cv2_call(args, kwargs)
    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        return _cv2_call(args, kwargs)
    _check_image_size(arr.shape, "findContours")
    _backend.record("cuda")
    points, offsets, layout, hier = _run_gpu("findContours", cp, arr, mode, method, ox, oy, grouped=not on_device)
    if on_device:
        # Device in, device out: CuPy arrays over one device array (findContoursPacked avoids
        # building one array object per contour).
        return _device_views(cp, points, layout, hier)
    if offsets is None:
        return _assemble_while_emitting(points, layout, hier)
    return assemble(points.get(), layout, hier if isinstance(hier, np.ndarray) else hier.get())


def _assemble_while_emitting(points, layout, hierarchy):
    """assemble_grouped for the grouped numpy paths (findContours, findContoursLinkRuns), whose layout
    and hierarchy are on the host while the points are still being emitted: the views are made over
    the host buffer first, as the GPU writes the points, then the points are downloaded into it (the
    call's last sync)."""
    host = np.empty(points.shape, dtype=np.int32)
    result = assemble_grouped(host, layout[0], layout[1], hierarchy)
    points.get(out=host)
    return result


def assemble(points, offsets, hierarchy):
    """cv2's return value from the packed form: views into one (P, 1, 2) int32 array."""
    m = len(offsets) - 1
    if m <= 0:
        return (), None
    p3 = points.reshape(-1, 1, 2)
    bounds = offsets.tolist()
    # The cheapest of the measured ways to make M views (map over slices, np.split, ...).
    contours = tuple([p3[a:b] for a, b in zip(bounds[:-1], bounds[1:])])
    return contours, hierarchy.reshape(1, m, 4)


def assemble_grouped(points, order, lengths, hierarchy):
    """cv2's return value from points laid out by length: contour order[i] has lengths[i] points, the
    i-th in the points, in runs of equal lengths whose contours ascend in output order (a stable sort
    by length gives this; a length may recur in several runs). Each run of at least _RUN_MIN contours
    is one (c, L, 1, 2) array whose iterator makes its views in C; shorter runs' contours are sliced
    one by one. The views are made lazily, in cv2's order (map(next, ...) over each contour's
    iterator), so they lie in memory in the order the caller's tuple frees them: freeing 130k views
    made run by run, out of that order, took up to twice as long on the H100 host, and the tuple
    made in order needs no object array to reorder it (compat_matrix/raw/contours-assemble-order-ab.txt)."""
    m = len(order)
    if m == 0:
        return (), None
    lengths = np.asarray(lengths, dtype=np.int64)
    starts = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    bounds = np.concatenate(([0], np.flatnonzero(lengths[1:] != lengths[:-1]) + 1, [m]))
    runs = np.diff(bounds)
    is_long = runs >= _RUN_MIN
    n_long = int(np.count_nonzero(is_long))
    iters = np.empty(n_long + 1, dtype=object)      # one per long run, then the short runs' one
    run_iter = np.cumsum(is_long) - 1
    run_iter[~is_long] = n_long
    which = np.empty(m, dtype=np.intp)
    which[order] = np.repeat(run_iter, runs)
    long_runs = np.flatnonzero(is_long)
    for j, a, c in zip(range(n_long), bounds[long_runs].tolist(), runs[long_runs].tolist()):
        length, pos = int(lengths[a]), int(starts[a])
        iters[j] = iter(points[pos:pos + length * c].reshape(c, length, 1, 2))
    if n_long < len(runs):
        short = np.flatnonzero(np.repeat(~is_long, runs))
        short = short[np.argsort(order[short], kind="stable")]
        p3 = points.reshape(-1, 1, 2)
        iters[n_long] = iter([p3[x:y] for x, y in zip(starts[short].tolist(), starts[short + 1].tolist())])
    return tuple(map(next, iters[which].tolist())), hierarchy.reshape(1, m, 4)


def pack(contours, hierarchy):
    """The packed form of cv2's (contours, hierarchy)."""
    m = len(contours)
    offsets = np.zeros(m + 1, np.int64)
    if m == 0:
        return np.zeros((0, 2), np.int32), offsets, np.zeros((0, 4), np.int32)
    np.cumsum([len(c) for c in contours], out=offsets[1:])
    points = np.concatenate([c.reshape(-1, 2) for c in contours]).astype(np.int32, copy=False)
    return points, offsets, np.asarray(hierarchy, np.int32).reshape(m, 4)


@on_input_device(0, "image")
def findContoursPacked(image, mode, method, offset=None):
    """cvgpu extension: findContours as (points (P,2) int32, offsets (M+1,) int64, hierarchy (M,4)
    int32). CuPy arrays for device input, numpy for host input."""
    args = (image, mode, method, None, None, offset)
    try:
        arr, on_device, mode_, method_, ox, oy = _bind(args, {})
    except _Forward:
        on_device = as_device_array(image) is not None
        res = pack(*_cv2_call(args, {}))
        if on_device:
            cp = _backend.cupy_module()
            return tuple(cp.asarray(a) for a in res)
        return res
    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        return pack(*_cv2_call(args, {}))
    _check_image_size(arr.shape, "findContoursPacked")
    _backend.record("cuda")
    points, offsets, offsets_h, hier = _run_gpu("findContoursPacked", cp, arr, mode_, method_, ox, oy)
    if on_device:
        return points, offsets, hier
    return points.get(), offsets_h, hier.get()


# ---------------------------------------------------------------- GPU pipeline

def _kernel_files():
    """{kernel name: its file under kernels/contours/}."""
    files = {}
    root = pathlib.Path(__file__).resolve().parent
    for d in (root / "kernels" / "contours", root.parent / "kernels" / "contours"):
        if d.is_dir():
            for f in sorted(d.glob("*.cu")):
                for name in re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', f.read_text()):
                    files[name] = "contours/" + f.stem
            break
    return files


_FILES = _kernel_files()


def _fn(name):
    return _kernels.get_function(_FILES[name], name)


def _grid(n):
    return (max(1, min(-(-n // _BLOCK), 65535 * 8)),)


class _Workspace:
    """Per thread and device: scratch reused by every call (the image-sized label and flag arrays and
    the walk states), so a call allocates only what it returns. ``counter`` is zero between calls:
    ccl_finish's last block resets it."""

    def __init__(self, cp):
        self.cp = cp
        self.counter = cp.zeros(1, dtype=cp.uint32)
        self.total = cp.zeros(1, dtype=cp.uint64)
        self.barrier = cp.zeros(2, dtype=cp.uint32)  # rank_jump_inplace's grid barrier (left reusable)
        self.jump_counts = cp.zeros(64, dtype=cp.uint32)  # its list lengths per round (left zero)
        self.bufs = {}
        self.done = None          # event recorded after the last call's work, on done_stream
        self.done_stream = None

    def claim(self):
        """The current stream, made to wait for the previous call's work when that ran on another
        stream: a call with device results returns before its last kernels (the point emission,
        TC89) have read the scratch, and this call would overwrite it. No host sync."""
        stream = self.cp.cuda.get_current_stream()
        if self.done_stream is not None and self.done_stream != stream.ptr:
            stream.wait_event(self.done)
        return stream

    def release(self, stream):
        if self.done is None:
            self.done = self.cp.cuda.Event(block=False, disable_timing=True)
        self.done.record(stream)
        self.done_stream = stream.ptr

    def pinned(self, nbytes):
        """A reused pinned host buffer of at least nbytes (uint8 numpy view of its first nbytes)."""
        buf = self.bufs.get("pinned")
        if buf is None or buf.size < nbytes:
            mem = self.cp.cuda.alloc_pinned_memory(max(nbytes, 1))
            buf = self.bufs["pinned"] = np.frombuffer(mem, np.uint8, max(nbytes, 1))
        return buf[:nbytes]

    def grown(self, name, size, dtype):
        arr = self.bufs.get(name)
        if arr is None or arr.size < size:
            arr = self.bufs[name] = self.cp.empty(max(size, 1), dtype=dtype)
        return arr


def _workspace(cp):
    return _kernels.thread_workspace("contours", lambda: _Workspace(cp))


# Fewer contours: the sort and its launches cost about what the cheaper views save. Measured on
# one H100 host (numpy io, 1232x1028 noisy, means of two interleaved runs, grouped from 1,024 on;
# compat_matrix/raw/contours-ab-jump-grouped.txt): 8,388 contours (LIST) 5.1 ms flat against 3.8
# grouped, 5,140 (EXTERNAL) 3.7 against 2.9; at 2,510 (blobs) no difference beyond the noise.
_GROUPED_MIN = 4096
_RULER_SPAN = 16      # = RULER_SPAN in kernels/contours.cu
# Walk states (8 per border pixel) from which they are ranked by rulers rather than by jumping over
# every slot: measured on the H100, rulers took 3.2 instead of 5.9 ms at 4928x4112 blobs (17M slots)
# but 1.17 instead of 0.77 ms at 1232x1028 (1.1M slots).
_RULER_MIN_SLOTS = 1 << 22
# Shorter runs of equal length are sliced per contour (a run's iterator costs a few us). 8 against
# 32 on the H100 host, interleaved in one process, three rounds: 2464x2056 blobs LIST 5-6 % faster,
# 4928x4112 blobs LIST 2-6 %, 1232x1028 within 5 % either way (compat_matrix/raw/contours-assemble-order-ab.txt).
_RUN_MIN = 8


_cooperative = {}  # device -> blocks of rank_jump_inplace resident at once (0: one launch a round)
# Threads per block of rank_jump_inplace: fewer, larger blocks make its grid barrier cheaper
# (measured on the H100, the ranking alone at 1232x1028 noisy: 1024 150 us, 512 192, 256 229).
_JUMP_BLOCK = 1024
# Lists of up to this many records (n, the bound) are ranked in one block's shared memory
# (rank_jump_shared), where a round's barrier is a block's: the tree's Euler tours, measured on the
# H100 against the cooperative kernel, 1,294 records 40 -> 17 us, 5,022 52 -> 27, 16,778 64 -> 53,
# 19,082 57 -> 49 (compat_matrix/raw/contours-rank-jump-ab.txt).
_JUMP_SHARED_MAX = 24576


def _rank_jump_cooperative(cp):
    """(rank_jump_inplace, the most blocks of it resident at once) on the current device, or None
    where it cannot be launched cooperatively."""
    device = cp.cuda.runtime.getDevice()
    fn = _kernels.get_function("contours/ranking_block", "rank_jump_inplace", cooperative=True)
    resident = _cooperative.get(device)
    if resident is None:
        num_sms, _ = _kernels.device_properties()
        resident = _cooperative[device] = num_sms * _kernels.resident_blocks(fn, _JUMP_BLOCK, 0)
    return (fn, resident) if resident else None


def _jump_rounds(cp, n, rounds, a, b, k=0, live=None):
    """List ranking by pointer jumping over the first n records of a, b as (successor, suffix sum)
    int pairs, or over k + live[0] of them (n is then a bound): at most ``rounds`` rounds, enough
    for the longest chain. Returns (result, spare). Up to _JUMP_SHARED_MAX records (n) that fit, one block
    jumps them in its shared memory (rank_jump_shared); above, one cooperative launch jumps the
    records in place, in rounds that skip finished records and stop once only endless cycles are
    left (rank_jump_inplace); where the device refuses a cooperative launch, one synchronous launch
    a round (rank_jump), all ``rounds`` of them. Every record that reaches an end holds the same
    result either way."""
    i32 = np.int32
    if n <= _JUMP_SHARED_MAX:
        # 8 bytes a record. One limit a device, the same for every call: threads raising a kernel's
        # limit to sizes of their own could lower it under another's launch.
        limit = min(8 * _JUMP_SHARED_MAX, _kernels.device_properties()[1] - 1024)
        if 8 * n <= limit:
            _kernels.get_function("contours/ranking_block", "rank_jump_shared", max_dynamic_shared=limit)(
                (1,), (1024,), (i32(n), i32(k), live if live is not None else np.uint64(0), i32(rounds), a),
                shared_mem=8 * n)
            return a, b
    coop = _rank_jump_cooperative(cp)
    if coop is not None:
        fn, resident = coop
        ws = _workspace(cp)
        open_words = ws.grown("jump_open", -(-n // 32), cp.uint32)
        try:
            fn((max(1, min(resident, -(-n // _JUMP_BLOCK))),), (_JUMP_BLOCK,),
               (i32(n), i32(k), live if live is not None else np.uint64(0), i32(rounds), a, open_words,
                ws.jump_counts, ws.barrier))
            return a, b
        except cp.cuda.driver.CUDADriverError:  # no cooperative launch here (driver, MPS): launch nothing
            _cooperative[cp.cuda.runtime.getDevice()] = 0
    grid = (max(1, -(-n // _BLOCK)),)
    for _ in range(rounds):
        if live is None:
            _fn("rank_jump")(grid, (_BLOCK,), (i32(n), a, b))
        else:
            _fn("rank_jump_n")(grid, (_BLOCK,), (i32(k), live, a, b))
        a, b = b, a
    return a, b


def _empty(cp):
    return cp.zeros((0, 2), cp.int32), cp.zeros(1, cp.int64), np.zeros(1, np.int64), cp.zeros((0, 4), cp.int32)


def _length_order(cp, counts, k, ride=None):
    """Contours laid out by (length, output index), so the host can cut each run of equal lengths
    into views with one C-level iteration (assemble_grouped), ordered on the device: (ps, dst) with
    ps a flat int32 device array, the order (k), the lengths (k) and then ``ride`` (a 1-D int32
    device array that comes along in the same download), and dst (k,) int64, each contour's first
    point."""
    perm = cp.argsort(counts)  # stable: equal lengths stay in output order
    extra = 0 if ride is None else int(ride.size)
    ps = cp.empty(2 * k + extra, dtype=cp.int32)
    ps[:k] = perm
    ps[k:2 * k] = counts[perm]
    if extra:
        ps[2 * k:] = ride
    goff = _offsets(cp, ps[k:2 * k], k)
    dst = cp.empty(k, dtype=cp.int64)
    dst[perm] = goff[:-1]
    return ps, dst


# Up to this many contours the numpy path's layout by length is ordered on the host (numpy's radix
# sort of 16-bit keys on counts downloaded with the hierarchy, the first points uploaded): fewer host
# calls than the device's argsort and its gathers and scan (measured on the H100 host, interleaved in
# one process: 1232x1028 noisy LIST, 8,388 contours, 3.11 against 3.33 ms; EXTERNAL, 5,140, 3.86
# against 4.19); above, numpy's sort itself costs more (0.46 ms for 130k keys on a fast host).
# Sorting the tree order's keys on the host as well gained nothing measurable and was left out.
_HOST_SORT_MAX = 16384
# RETR_EXTERNAL's selection of outer borders runs in one block (external_select) up to this many
# borders, with no host sync: k reaches the host with the layout. Above, CuPy's flatnonzero (a sync).
_DEVICE_SELECT_MAX = 16384


# Host images go up as bits, packed by up to _UPLOAD_THREADS threads, one per _UPLOAD_BAND pixels
# at least (measured on the H100 host, numpy io, interleaved in one process: 4928x4112 blobs
# EXTERNAL 6.24 ms as bytes, 6.09 as bits packed by one thread, 4.49 by 4, 4.53 by 8; 1232x1028
# blobs TREE 1.36 -> 1.31, one band; compat_matrix/raw/contours-upload-scan-ab.txt).
_UPLOAD_THREADS = 4
_UPLOAD_BAND = 1 << 21
_upload_pool = []
_upload_pool_lock = threading.Lock()


def _upload_bits(cp, ws, image):
    """A host 8-bit image on the device as one bit a pixel (nonzero -> 1, as the kernels binarise),
    the pixels one row-major bit stream, most significant bit first (pad_init_bits with pitch w).
    The host's cost of an upload is reading the image once more: np.packbits reads it in bands on
    several threads (it releases the GIL), into pinned memory the copy engine reads at once. The
    staging buffer is the thread's own and reused: every call with host input ends with a sync."""
    flat = np.ascontiguousarray(image).reshape(-1)
    size = flat.size
    nbytes = -(-size // 8)
    staging = ws.pinned(nbytes)
    bands = min(_UPLOAD_THREADS, max(1, size // _UPLOAD_BAND))
    if bands == 1:
        staging[:] = np.packbits(flat)
    else:
        cuts = [(size * i // bands) & ~7 for i in range(bands)] + [size]

        def pack(i):
            a, b = cuts[i], cuts[i + 1]
            staging[a >> 3:-(-b // 8)] = np.packbits(flat[a:b])
        with _upload_pool_lock:
            if not _upload_pool:
                from concurrent.futures import ThreadPoolExecutor
                _upload_pool.append(ThreadPoolExecutor(_UPLOAD_THREADS, thread_name_prefix="cvgpu-upload"))
        list(_upload_pool[0].map(pack, range(bands)))
    bits = cp.empty(nbytes, dtype=cp.uint8)
    cp.cuda.runtime.memcpyAsync(bits.data.ptr, staging.ctypes.data, nbytes, cp.cuda.runtime.memcpyHostToDevice,
                                cp.cuda.get_current_stream().ptr)
    return bits


# Up to this many contours the offsets come from one block's scan (offsets_scan), above from cp.cumsum.
_OFFSETS_SCAN_MAX = 16384
# Up to this many borders the tree order's sort is tree_sort_small (one block; its keys hold 14 bits
# of index), above CuPy's argsort.
_TREE_SORT_SMALL = 16384


def _offsets(cp, counts, k):
    """(k + 1,) int64 device offsets of k contours from their int32 point counts."""
    if k <= _OFFSETS_SCAN_MAX:
        offsets = cp.empty(k + 1, dtype=cp.int64)
        _fn("offsets_scan")((1,), (1024,), (np.int32(k), counts, offsets))
    else:
        offsets = cp.zeros(k + 1, dtype=cp.int64)
        cp.cumsum(counts, out=offsets[1:])
    return offsets


def _grouped_layout(cp, counts, k, ride=None, counts_h=None):
    """The layout of assemble_grouped for the k contours of ``counts`` (int32 lengths in output
    order, on the device): (order, lengths, dst, total, ride_host), order and lengths on the host,
    dst (k,) int64 on the device (each contour's first point), ``total`` the points, and
    ``ride`` (a 1-D int32 device array, e.g. the hierarchy) downloaded in the same transfer. One
    host sync. ``counts_h``: the lengths already on the host (k <= _HOST_SORT_MAX; no download)."""
    if counts_h is not None or k <= _HOST_SORT_MAX:
        if counts_h is None:
            host = (counts if ride is None else cp.concatenate((counts, ride))).get()
            counts_h = host[:k]
        else:
            host = counts_h
        # Keys capped at 16 bits keep numpy's radix sort; longer contours share the last key and
        # stay in output order, which is still a valid layout (runs are cut where lengths change).
        order = np.argsort(np.minimum(counts_h, 0xFFFF).astype(np.uint16), kind="stable")
        lengths = counts_h[order]
        starts = np.zeros(k, dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        first = np.empty(k, dtype=np.int64)
        first[order] = starts
        return order, lengths, cp.asarray(first), int(starts[-1]) + int(lengths[-1]), host[k:]
    ps, dst = _length_order(cp, counts, k, ride)
    host = ps.get()
    order, lengths = host[:k], host[k:2 * k]
    return order, lengths, dst, int(lengths.sum(dtype=np.int64)), host[2 * k:]


def _selected_layout(cp, counts, m, hier, k_dev):
    """The numpy path's layout after external_select (m rows, the first k of them contours, k on the
    device): (k, layout, offsets, dst, total, hierarchy (k, 4) on the host) from one download, laid
    out as _gpu_contours lays out k contours (by length from _GROUPED_MIN on, see _grouped_layout;
    else in output order). The padding rows count no points, so offsets[:k + 1] are the real ones."""
    offsets = _offsets(cp, counts, m)
    host = cp.concatenate((offsets, hier.ravel().view(cp.int64), k_dev)).get()
    k = int(host[-1])
    layout, hier_h = host[:k + 1], host[m + 1:m + 1 + 2 * k].view(np.int32).reshape(k, 4)
    if k >= _GROUPED_MIN:
        order, lengths, dst, total, _ = _grouped_layout(cp, None, k, counts_h=np.diff(layout))
        return k, (order, lengths), None, dst, total, hier_h
    offsets = offsets[:k + 1]
    return k, layout, offsets, offsets, int(layout[-1]), hier_h


def _gpu_contours(cp, image, mode, method, ox, oy, grouped=False):
    """(points (P,2) int32, offsets (M+1,) int64, the same offsets on the host, hierarchy (M,4) int32),
    CuPy but for the host offsets. Host syncs: one for the border counts, one for the offsets (and one
    for RETR_EXTERNAL's selection above _DEVICE_SELECT_MAX borders). With ``grouped`` (and enough
    contours) the points are laid out by length instead: offsets is None and the host array is
    (order, lengths), see assemble_grouped."""
    h, w = image.shape
    w2, h2 = w + 2, h + 2
    n = w2 * h2
    ws = _workspace(cp)
    pad = "pad_init"
    if isinstance(image, cp.ndarray):
        src = image if image.strides[1] == 1 else cp.ascontiguousarray(image)
        pitch = src.strides[0]
    else:
        src, pitch, pad = _upload_bits(cp, ws, image), w, "pad_init_bits"
    i32, i64 = np.int32, np.int64
    f = ws.grown("f", n, cp.uint8)
    labels = ws.grown("labels", n, cp.int32)
    fl = ws.grown("fl", n, cp.uint8)
    nb = -(-n // 1024)
    blk = ws.grown("blk", nb, cp.uint64)
    offs = ws.grown("offs", nb, cp.uint64)
    starts = ws.grown("starts", n, cp.int32)
    hole = ws.grown("hole", n, cp.uint8)
    bid = ws.grown("bid", n, cp.int32)              # component root -> border (only roots read)
    bpix = ws.grown("bpix", n, cp.int32)
    pmap = ws.grown("pmap", n, cp.int32)            # read only at border pixels
    _fn(pad)(_grid(n), (_BLOCK,), (src, i64(pitch), i32(h), i32(w), i32(n), f, labels))
    _fn("ccl_union")(_grid(n), (_BLOCK,), (f, i32(w2), i32(n), labels))
    _fn("ccl_finish")((nb,), (1024,), (f, i32(w2), i32(n), labels, fl, blk, offs, ws.counter, ws.total))
    _fn("scatter_flags")((nb,), (1024,), (fl, i32(n), offs, labels, starts, hole, bid, bpix, pmap))
    tot = int(ws.total.get()[0])
    m, e_count = tot >> 32, tot & 0xFFFFFFFF       # borders (discovery order), border pixels
    _check_counts(m, e_count)                      # before anything sized by them is allocated
    if m == 0:
        return _empty(cp)
    gm = (-(-m // _BLOCK),)
    parent = cp.empty(m, dtype=cp.int32)
    _fn("border_parents")(gm, (_BLOCK,), (starts, i32(m), labels, hole, bid, i32(mode), parent))

    k_dev = None   # RETR_EXTERNAL selected on the device: k rows of the m below, k read with the layout
    if mode == RETR_EXTERNAL and m <= _DEVICE_SELECT_MAX:
        k = m
        out_node = cp.empty(m, dtype=cp.int32)
        hier = cp.empty((m, 4), dtype=cp.int32)
        k_dev = cp.empty(1, dtype=cp.int64)
        _fn("external_select")((1,), (1024,), (i32(m), hole, parent, out_node, hier, k_dev))
    elif mode in (RETR_LIST, RETR_EXTERNAL):
        if mode == RETR_EXTERNAL:
            flag = cp.empty(m, dtype=cp.uint8)
            _fn("external_flags")(gm, (_BLOCK,), (i32(m), hole, parent, flag))
            sel = cp.flatnonzero(flag)
        else:
            sel = cp.arange(m, dtype=cp.int64)
        k = int(sel.size)
        if k == 0:
            return _empty(cp)
        out_node = cp.empty(k, dtype=cp.int32)
        hier = cp.empty((k, 4), dtype=cp.int32)
        _fn("flat_output")((-(-k // _BLOCK),), (_BLOCK,), (i32(k), sel, out_node, hier))
    else:
        k = m
        out_node, hier = _tree_order(cp, m, parent)

    gk = (-(-k // _BLOCK),)
    simple = i32(1 if method == CHAIN_APPROX_SIMPLE else 0)
    slots = 8 * e_count
    head_of = ws.grown("head_of", slots, cp.int32)
    cp.cuda.runtime.memsetAsync(head_of.data.ptr, 0xFF, 4 * slots, cp.cuda.get_current_stream().ptr)  # all -1
    head_slot = cp.empty(k, dtype=cp.int32)
    _fn("border_heads")(gk, (_BLOCK,), (f, i32(w2), i32(k), out_node, starts, hole, pmap, head_slot, head_of))
    st = ws.grown("st", 2 * slots, cp.int32)        # (next, weight) pairs
    sdir = ws.grown("sdir", slots, cp.uint8)
    gs = (-(-slots // _BLOCK),)
    direct = slots < _RULER_MIN_SLOTS
    if direct:
        rid = rloc = np.intp(0)                     # null pointers: not used
    else:
        rid = ws.grown("rid", slots, cp.int32)      # state -> its ruler (see ruler_walk)
        rloc = ws.grown("rloc", slots, cp.int32)    # state -> weight before it in its ruler's sublist
    _fn("state_init")(gs, (_BLOCK,), (f, i32(w2), i32(slots), bpix, fl, pmap, head_of, simple, st, sdir, rid))
    if direct:
        st2 = ws.grown("st2", 2 * slots, cp.int32)
        rj, _ = _jump_rounds(cp, slots, max(1, slots.bit_length()), st, st2)
    else:
        rj = _rank_by_rulers(cp, ws, slots, k, st, sdir, head_of, head_slot, rid, rloc)
    counts = cp.empty(k, dtype=cp.int32)
    _fn("border_counts")(gk, (_BLOCK,), (i32(k), i32(direct), head_slot, rj, counts))
    if k_dev is not None and grouped and method not in _TC89:
        k, layout, offsets, dst, total, hier = _selected_layout(cp, counts, m, hier, k_dev)
        if k == 0:
            return _empty(cp)
    elif grouped and k >= _GROUPED_MIN and method not in _TC89:
        # Contours ordered by (length, output index), so the host can cut each run of equal lengths
        # into views with one C-level iteration (see assemble_grouped); the hierarchy comes along.
        order, lengths, dst, total, hier = _grouped_layout(cp, counts, k, hier.ravel())
        layout, hier, offsets = (order, lengths), hier.reshape(k, 4), None
    else:
        offsets = dst = _offsets(cp, counts, k)
        if grouped and method not in _TC89:
            # Host output: the hierarchy comes along with the offsets (one download).
            both = cp.concatenate((offsets, hier.ravel().view(cp.int64))).get()
            layout, hier = both[:k + 1], both[k + 1:].view(np.int32).reshape(k, 4)
        elif k_dev is None:
            layout = offsets.get()
        else:
            layout = cp.concatenate((offsets, k_dev)).get()
            k = int(layout[-1])
            if k == 0:
                return _empty(cp)
            layout, offsets, hier = layout[:k + 1], offsets[:k + 1], hier[:k]
        total = int(layout[-1])
    points = cp.empty((total, 2), dtype=cp.int32)
    _fn("state_emit")(gs, (_BLOCK,), (i32(w2), i32(slots), bpix, i32(direct), rid, rloc, rj, sdir, simple, counts,
                                     dst, i32(ox), i32(oy), points))
    _fn("single_points")(gk, (_BLOCK,), (i32(w2), i32(k), out_node, starts, head_slot, dst, i32(ox), i32(oy),
                                        points))
    if method in _TC89:
        points, offsets, layout = _tc89(cp, ws, points, offsets, total, k, method)
    return points, offsets, layout, hier


def _rank_by_rulers(cp, ws, slots, k, st, sdir, head_of, head_slot, rid, rloc):
    """The ruler records (see ruler_walk in kernels/contours.cu), ranked: ruler j < k is border j's
    first state."""
    i32 = np.int32
    nblk = max(1, -(-slots // _RULER_SPAN))
    gb = (-(-nblk // _BLOCK),)
    rflag = ws.grown("rflag", nblk, cp.int32)
    rank = ws.grown("rank", nblk, cp.int32)
    _fn("ruler_flags")(gb, (_BLOCK,), (i32(slots), i32(nblk), sdir, head_of, rflag))
    cp.cumsum(rflag[:nblk], out=rank[:nblk])
    nr = nblk + k                                   # bound on the rulers (k + rank[nblk - 1] live)
    rj = ws.grown("rj", 2 * nr, cp.int32)
    rj2 = ws.grown("rj2", 2 * nr, cp.int32)
    gr = (-(-nr // _BLOCK),)
    _fn("ruler_walk")(gr, (_BLOCK,), (i32(slots), i32(nblk), i32(k), st, sdir, head_of, head_slot, rank, rid, rloc,
                                      rj))
    rj, _ = _jump_rounds(cp, nr, max(1, nr.bit_length()), rj, rj2, k=k, live=rank[nblk - 1:nblk])
    return rj


# Rounds of tc89_nms_round before the per-contour finish. TC89_L1's values are 1..4, so a chain of
# pass-2 dependencies (strictly decreasing values) has at most 3 links: 3 rounds decide every point.
# KCOS values have no such bound; chains are short on real borders, and what stays open after
# these rounds is finished in index order by one thread per contour (exact either way).
_TC89_ROUNDS = {CHAIN_APPROX_TC89_L1: 3, CHAIN_APPROX_TC89_KCOS: 8}


def _tc89(cp, ws, points, offsets, total, k, method):
    """TC89 points of the k NONE contours (points, offsets; total points): (points, offsets, host
    offsets). Scratch slot of point i of contour j is offsets[j] + j + i (one spare slot per contour
    for the copy of point 0 that TC89_L1's seam pass can append). Every pass runs one thread per
    point (or slot) but the seam walk and the rare nms finish; one host sync (the new offsets)."""
    i32, i64 = np.int32, np.int64
    slots = total + k
    l1 = method == CHAIN_APPROX_TC89_L1
    sv = ws.grown("tc89_s", slots, cp.int32)
    kv = ws.grown("tc89_k", slots, cp.int32)
    gone = ws.grown("tc89_gone", slots, cp.uint8)
    st = ws.grown("tc89_st", slots, cp.uint8)
    fl = ws.grown("tc89_fl", slots, cp.int32)[:slots]
    rid = ws.grown("tc89_rid", slots, cp.int32)[:slots]
    used = cp.empty(k, dtype=cp.int32)
    start4 = cp.empty(k, dtype=cp.int32)
    cut4 = cp.empty(k, dtype=cp.int32)
    pend = cp.zeros(k, dtype=cp.int32)
    seam = cp.zeros(3 * k, dtype=cp.int32)
    gk = (-(-k // _BLOCK),)
    gp = (-(-total // _BLOCK),)
    gs = (-(-slots // _BLOCK),)
    _fn("tc89_point")(gp, (_BLOCK,), (points, offsets, i32(k), i64(total), i32(not l1), sv, kv, gone))
    _fn("tc89_nms_init")(gp, (_BLOCK,), (offsets, i32(k), i64(total), sv, kv, st))
    rounds = _TC89_ROUNDS[method]
    for r in range(rounds):
        _fn("tc89_nms_round")(gp, (_BLOCK,), (offsets, i32(k), i64(total), sv, kv, st, i32(r == rounds - 1), pend))
    if rounds == 0:
        pend.fill(1)
    _fn("tc89_nms_finish")(gk, (_BLOCK,), (offsets, i32(k), sv, kv, st, pend))
    _fn("tc89_apply")(gp, (_BLOCK,), (offsets, i32(k), i64(total), i32(2), st, sv, gone))
    _fn("tc89_pass3")(gp, (_BLOCK,), (offsets, i32(k), i64(total), sv, kv, gone, st))
    _fn("tc89_apply3")(gp, (_BLOCK,), (offsets, i32(k), i64(total), i32(l1), st, sv, gone, seam))
    _fn("tc89_seam")(gk, (_BLOCK,), (offsets, i32(k), i32(l1), sv, kv, gone, seam, used, start4, cut4))
    if l1:
        rs = ws.grown("tc89_rs", slots, cp.int32)
        re = ws.grown("tc89_re", slots, cp.int32)
        _fn("tc89_runflag")(gs, (_BLOCK,), (offsets, i32(k), i64(slots), gone, used, start4, cut4, fl))
        cp.cumsum(fl, out=rid)
        _fn("tc89_runends")(gs, (_BLOCK,), (offsets, i32(k), i64(slots), gone, used, start4, cut4, fl, rid, rs, re))
        _fn("tc89_cleanup")(gs, (_BLOCK,), (offsets, i32(k), i64(slots), sv, kv, gone, used, start4, cut4, rid, rs,
                                                           re))
    _fn("tc89_keep")(gs, (_BLOCK,), (offsets, i32(k), i64(slots), gone, used, cut4, fl))
    cp.cumsum(fl, out=rid)
    new_off = cp.zeros(k + 1, dtype=cp.int64)
    _fn("tc89_offsets")(gk, (_BLOCK,), (offsets, i32(k), rid, new_off))
    layout = new_off.get()
    out = cp.empty((int(layout[-1]), 2), dtype=cp.int32)
    _fn("tc89_emit")(gs, (_BLOCK,), (points, offsets, i32(k), i64(slots), fl, rid, out))
    return out, new_off, layout


# ---------------------------------------------------------------- benchmark

def blobs_image(h, w, seed=0, noise=0.0):
    """Smooth random blobs with holes (thresholded blurred noise), optional salt noise."""
    rng = np.random.default_rng(seed)
    small = rng.random((max(2, h // 16), max(2, w // 16))).astype(np.float32)
    field = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    field = cv2.GaussianBlur(field, (0, 0), 6)
    img = ((field > 0.5) & ~((field > 0.6) & (field < 0.64))).astype(np.uint8) * 255
    if noise:
        img[rng.random((h, w)) < noise] = 255
    return img


def worst_snake(h, w):
    """One long 1-px serpentine: a single border through every foreground pixel, twice."""
    img = np.zeros((h, w), np.uint8)
    img[::2, :] = 1
    img[1::4, -1] = 1
    img[3::4, 0] = 1
    return img


def _same_contours(ours, ref):
    """Whether two (contours, hierarchy) results are equal, bit for bit."""
    return len(ours[0]) == len(ref[0]) and all(
        a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(ours[0], ref[0])) and (
        (ours[1] is None and ref[1] is None) or
        (ours[1] is not None and ref[1] is not None and ours[1].tobytes() == ref[1].tobytes()))


def _find_contours_rows(cp, img, d_img, workload, mode, method, reps, cv2_reps=None):
    """One workload's speed rows: findContours, cv2 against cvgpu with numpy io (host clock, cv2
    timed in this run), and on a GPU the packed device form beside it (CuPy in and out, no
    per-contour objects; CUDA events)."""
    from .bench import _timing as bench  # moves to cvgpu/bench/ with these rows (issue 38)
    result = {}

    def cv2_call():
        result["ref"] = cv2.findContours(img, mode, method)

    t_cv = bench.time_host(cv2_call, cv2_reps or reps, warmup=0)
    ref = result["ref"]
    base = {"function": "findContours", "workload": workload, "contours": len(ref[0])}
    if cp is None:
        return [bench.timing_row(base, t_cv)]
    exact = _same_contours(findContours(img, mode, method), ref)  # also the numpy path's warm-up
    t_np = bench.time_host(lambda: findContours(img, mode, method), reps, warmup=0)
    t_dev = bench.time_device(cp, lambda: findContoursPacked(d_img, mode, method), reps, warmup=1)
    return [bench.timing_row(base, t_cv, t_np, "numpy", exact, packed_device_ms=t_dev["median"]),
            bench.timing_row(dict(base, function="findContoursPacked"), t_cv, t_dev, "device", exact)]


def bench_rows(quick=False):
    """Speed rows: cv2 vs cvgpu (numpy io) and the packed device form, on the H100 workloads."""
    cp = _backend.cupy_module()
    rows = []
    scales = (1,) if quick else (1, 2, 4)
    reps = 3 if quick else 7
    modes = (("TREE", RETR_TREE), ("LIST", RETR_LIST), ("EXTERNAL", RETR_EXTERNAL))
    cases = [(label, noise, s, blobs_image(1028 * s, 1232 * s, seed=s, noise=noise), modes)
             for label, noise in (("blobs", 0.0), ("noisy", 0.01)) for s in scales]
    if not quick:
        # Worst cases: one 8-million-point border (a 1-px serpentine), and 288k tiny contours.
        cases.append(("snake", 0.0, 0, worst_snake(4096, 4096), modes[:2]))
        cases.append(("salt50", 0.0, 0, (np.random.default_rng(0).random((2048, 2048)) < 0.5).astype(np.uint8),
                      modes[1:2]))
    for noise_label, noise, s, img, case_modes in cases:
        h, w = img.shape
        d_img = cp.asarray(img) if cp is not None else None
        runs = [(mname, mode, "SIMPLE", CHAIN_APPROX_SIMPLE) for mname, mode in case_modes]
        if s == 1:
            runs += [("TREE", RETR_TREE, "TC89_L1", CHAIN_APPROX_TC89_L1),
                     ("TREE", RETR_TREE, "TC89_KCOS", CHAIN_APPROX_TC89_KCOS)]
        for mname, mode, meth_name, method in runs:
            workload = "%s %dx%d %s %s" % (noise_label, w, h, mname, meth_name)
            cv2_reps = max(1, reps // 2) if s == 4 and mode == RETR_TREE and noise else reps
            rows += _find_contours_rows(cp, img, d_img, workload, mode, method, reps, cv2_reps)
    return rows


# ---------------------------------------------------------------- huge images (issue 6)
#
# Integer widths, audited for every image up to the int32 flat-index limit and for worst-case content
# (n = (h + 2) * (w + 2) padded pixels, E border pixels, m borders, P output points, S = 8 E walk
# states). The two limits below are the only ones: everything else follows from them.
#   pixels  int flat indices everywhere (f, labels, fl, starts, bpix, pmap, L[]); ccl_finish and
#           scatter_flags index 1024-pixel tiles up to n + 1023 -> n <= _INT32_PIXELS, checked before
#           the GPU is touched. The grid-stride loops of pad_init / ccl_union count in unsigned: with
#           int, i + gridDim.x * blockDim.x (up to 2^27) wrapped negative for n > 2^31 - 2^27, about
#           44,870^2 (fixed with this section). Widening the pixels to 64 bits would buy little: at
#           23 bytes of scratch per pixel, 2^31 pixels already need 49 GB.
#   E, m    ccl_finish sums (starts << 32 | border pixels) per tile in 64 bits: each half <= n < 2^32,
#           so no carry; scatter_flags reads each half as int (< 2^31).
#   states  slot = 8 e + b is an int in border_heads / state_init / ruler_walk / state_emit / rank_jump,
#           and the (next, dist) records (states and rulers, rulers <= S / 16 + m; a ruler's sublist
#           weight and rloc <= S) are int2; their 1-D grids reach 8 E + 255 -> E <= _MAX_BORDER_PIXELS
#           (2^28 - 32). E depends on the content, not only the size: 20000^2 with a few hundred shapes
#           has E ~ 10^6; the 20000^2 one-pixel serpentine E = 2 * 10^8 (1.6 * 10^9 states, works);
#           a background pixel at the centre of every 3 x 3 block (E = 8 n / 9) or salt noise of
#           density 0.76 (E ~ 0.68 n) passes the limit from about 17,400^2 / 19,950^2 on. Those
#           raise cv2.error after labelling, at the host read of the counts that the pipeline makes
#           anyway (no extra sync), before the walk arrays are allocated. 64-bit states would need
#           16-byte records (37 bytes per slot with head_of and sdir, against 21): just past the
#           limit that is 2^31 * 37 B = 79.5 GB for the walk arrays plus >= 6 GB of pixel scratch,
#           more than an H100's 80 GB, so the limit is kept and reported instead.
#   m       every border starts on a border pixel of its own (outer: its root, whose left pixel is
#           background; hole: the pixel left of the hole's root), so m <= E < 2^28: the Euler tour
#           (2 (m + 1) int2 records), the hierarchy index 4 * pos, head_slot and the sort key
#           parent * (m + 1) + rank (int64) stay in range.
#   P       a point is one walk state on its border's cycle, or the one point of a single-pixel
#           border (whose 8 slots are unused): P <= S < 2^31, and the per-contour counts (int, the
#           dist of the head state) as well; offsets are int64 all the same. TC89: scratch slots
#           P + k with long long indices, per-contour n < 2^31, output offsets int64.
#   grids   1-D only (gridDim.x up to 2^31 - 1; nothing uses gridDim.y / z); the largest is
#           S / 256 < 2^23 blocks, _grid caps the pixel launches at 65535 * 8 blocks.
#   shared  per-warp arrays of 32 in ccl_finish / scatter_flags; no 16-bit or narrower packing
#           (sdir is a u8 direction 0..7, 255 = no state).
#   coords  points are int32 x - 1 + ox (wrapping as cv2's int); TC89's products wrap as cv2's.
# Error codes: -211 (StsOutOfRange, "Input parameters are out of range") for both limits: the
# input is valid for cv2 but outside the range this implementation indexes. Not -4: that stays
# cv2's "Failed to allocate" for a real allocation failure (raised below when the GPU runs out,
# after one retry without the cached scratch), so callers that free memory and retry on -4 are
# not sent into a loop; not -215, which reads as a failed internal assertion.

_MAX_BORDER_PIXELS = ((1 << 31) - 256) // 8   # 8 states each, int32 slot + a 256-thread block
_OOM_BYTES = re.compile(r"allocating ([0-9,]+) bytes")


class _TooLarge(Exception):
    """Counts known only after labelling exceed what the walk kernels index."""


def _check_image_size(shape, func):
    """cv2.error (-211) for an image beyond the int32 pixel indices, before the GPU is touched."""
    h, w = int(shape[0]), int(shape[1])
    n = (h + 2) * (w + 2)
    if n > _INT32_PIXELS:
        raise _errors.cv_error(
            _errors.BAD_VALUE,
            "cvgpu: the %d x %d image has %d pixels with its one-pixel frame, more than the %d that "
            "the GPU kernels index with int32" % (h, w, n, _INT32_PIXELS), func)


def _check_counts(m, e_count):
    if e_count > _MAX_BORDER_PIXELS or m > e_count:
        raise _TooLarge(
            "cvgpu: the image has %d border pixels (and %d borders); their %d border-walk states exceed "
            "the %d that the GPU kernels index with int32 (at most %d border pixels)"
            % (e_count, m, 8 * e_count, 8 * _MAX_BORDER_PIXELS, _MAX_BORDER_PIXELS))


def _release(cp):
    """Drop this thread's cached scratch and the pool's free blocks (after a failed huge call)."""
    _workspace(cp).bufs.clear()
    cp.get_default_memory_pool().free_all_blocks()


def _run_gpu(func, cp, image, mode, method, ox, oy, grouped=False):
    """_gpu_contours (_gpu_labels for RETR_FLOODFILL) with the huge-image errors as cv2.error (see
    _retrying), ordered after the thread's previous call when that ran on another stream (see
    _Workspace.claim)."""
    ws = _workspace(cp)
    stream = ws.claim()
    try:
        if mode == RETR_FLOODFILL:
            return _retrying(func, cp, lambda: _gpu_labels(cp, image, method, ox, oy, grouped=grouped), _release)
        return _retrying(func, cp, lambda: _gpu_contours(cp, image, mode, method, ox, oy, grouped=grouped),
                         _release)
    finally:
        ws.release(stream)


def _retrying(func, cp, attempt, release):
    """attempt() with cv2's errors: _TooLarge as -211; on running out of GPU memory, release(cp)
    drops the cached scratch of earlier (other-sized) calls and the call is tried once more, then
    cv2's -4. The retry and the release happen outside the except blocks, so the failed attempt's
    arrays (held by the traceback) are gone by then."""
    need = 0
    for _ in range(2):
        too_large = None
        try:
            return attempt()
        except cp.cuda.memory.OutOfMemoryError as exc:
            found = _OOM_BYTES.search(str(exc))
            need = int(found.group(1).replace(",", "")) if found else 0
        except _TooLarge as exc:
            too_large = str(exc)
        release(cp)
        if too_large is not None:
            raise _errors.cv_error(_errors.BAD_VALUE, too_large, func)
    raise _errors.out_of_memory(need)


def sparse_shapes_image(h, w, count=300, seed=0):
    """A large, mostly empty image: ``count`` shapes (discs with a hole and an island in it, rectangle
    outlines, filled ellipses, open polylines), overlapping at random, plus a few touching the image
    border and a pixel in each corner."""
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w), np.uint8)
    rmax = max(4, min(h, w) // 40)
    for i in range(count):
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = int(rng.integers(3, rmax + 1))
        kind = i % 4
        if kind == 0:
            cv2.circle(img, (cx, cy), r, 255, -1)
            cv2.circle(img, (cx, cy), r * 2 // 3, 0, -1)
            cv2.circle(img, (cx, cy), r // 3, 255, -1)
        elif kind == 1:
            cv2.rectangle(img, (cx - r, cy - r // 2), (cx + r, cy + r // 2), 255, 1 + i % 3)
        elif kind == 2:
            cv2.ellipse(img, (cx, cy), (r, max(1, r // 3)), float(rng.integers(0, 180)), 0, 360, 255, -1)
        else:
            pts = np.stack([cx + rng.integers(-r, r + 1, 6), cy + rng.integers(-r, r + 1, 6)], 1).astype(np.int32)
            cv2.polylines(img, [pts], False, 255, 1)
    img[0, w // 4:w // 2] = 255
    img[h // 3:h // 2, w - 1] = 255
    img[h - 3:h, :min(w, 50)] = 255
    img[0, 0] = img[0, w - 1] = img[h - 1, 0] = img[h - 1, w - 1] = 255
    return img


def huge_bench_rows(quick=False):
    """Speed rows on a 20000 x 20000 sparse image (sparse_shapes_image): cv2 and cvgpu (numpy io),
    and the packed device form (CuPy in and out), cv2 timed in the same run."""
    cp = _backend.cupy_module()
    img = sparse_shapes_image(20000, 20000, 300, seed=0)
    d_img = cp.asarray(img) if cp is not None else None
    reps = 1 if quick else 3
    runs = [("TREE", RETR_TREE, "SIMPLE", CHAIN_APPROX_SIMPLE), ("EXTERNAL", RETR_EXTERNAL, "SIMPLE",
                                                                 CHAIN_APPROX_SIMPLE)]
    if not quick:
        runs += [("LIST", RETR_LIST, "NONE", CHAIN_APPROX_NONE), ("TREE", RETR_TREE, "TC89_L1",
                                                                  CHAIN_APPROX_TC89_L1)]
    rows = []
    for mname, mode, meth_name, method in runs:
        workload = "sparse 20000x20000 %s %s" % (mname, meth_name)
        rows += _find_contours_rows(cp, img, d_img, workload, mode, method, reps)
    return rows

# ---------------------------------------------------------------- label images (CV_32SC1)
#
# cv2 5.x semantics (tests/labels_model.py is the CPU model, proven equal to cv2): regions of equal
# label (raw & 0x3FFFFFFF, zero included) are traced with the Suzuki walk; which borders get
# traced follows from the row scan and the flags earlier traces leave (see kernels/contours.cu,
# "label images"). The GPU resolves that order by a fixed-point iteration over all label changes
# at once (one host sync per round; rounds = the longest chain of events whose outcome depends on
# an earlier one, a few on the images measured) and ranks the walks like the 8-bit pipeline.

_CREATE = ("static std::shared_ptr<ContourScanner_> ContourScanner_::create(cv::ContourDataStorage"
           "<cv::Point_<int>, 1024, 0>::storage_t&, cv::ContourDataStorage<signed char, 1024, 0>::storage_t&, "
           "cv::Mat, int, int, cv::Point)")
_CREATE_FILE = "/io/opencv/modules/imgproc/src/contours_new.cpp"
_TYPE_NAMES = {0: "CV_8UC1", 4: "CV_32SC1"}
_LAB_INF = 0x7FFFFFFF
# Fixed-point rounds before one thread replays the events in order instead (measured: 26-40 rounds
# on the bench's label images up to 4928x4112 with 225k borders; the replay is exact in one pass
# but sequential).
_LAB_MAX_ROUNDS = 256


def _type_error(line, text, expected, actual):
    from ._errors import UNSPECIFIED, cv_error
    err = ("> %s (expected: 'img.type() == %s'), where\n>     'img.type()' is %d (%s)\n> must be equal to\n"
           ">     '%s' is %d (%s)\n" % (text, _TYPE_NAMES[expected], actual, _TYPE_NAMES[actual],
                                      _TYPE_NAMES[expected], expected, _TYPE_NAMES[expected]))
    return cv_error(UNSPECIFIED, err, _CREATE, file=_CREATE_FILE, line=line)


def _label_mode(arr, mode):
    """The mode the GPU runs (RETR_FLOODFILL for label images), or cv2's type error (cv2 checks the
    type before the mode and the method, and computes nothing before)."""
    if arr.dtype == np.int32:
        if mode in (RETR_CCOMP, RETR_FLOODFILL):
            return RETR_FLOODFILL
        raise _type_error(332, "Modes other than RETR_FLOODFILL and RETR_CCOMP support only CV_8UC1 images", 0, 4)
    if mode == RETR_FLOODFILL:
        raise _type_error(330, "RETR_FLOODFILL mode supports only CV_32SC1 images", 4, 0)
    return mode


def _undefined_error():
    from ._errors import UNSPECIFIED, cv_error
    return cv_error(UNSPECIFIED, "cvgpu: for this label image cv2 reads its contour tree at index -1 (undefined "
                    "behaviour, cv2 may crash); a hole's LNBD lies on an input value with the flag bits set or "
                    "on a bounding box broken by int32 wrap-around", "findContours")


def _tree_sort(cp, m, parent):
    """The nodes sorted by tree_sort_keys' keys, stably (int64 indices into the keys)."""
    i32 = np.int32
    if m <= _TREE_SORT_SMALL:
        order = cp.empty(m, dtype=cp.int64)
        shared = 4 << max(1, (m - 1).bit_length())
        # The kernel's limit is the largest size, the same for every call: threads raising it to
        # sizes of their own could lower it under another's launch.
        _kernels.get_function("contours/ranking_block", "tree_sort_small",
                              max_dynamic_shared=4 << max(1, (_TREE_SORT_SMALL - 1).bit_length()))(
            (1,), (1024,), (i32(m), parent, order), shared_mem=shared)
        return order
    narrow = m < 65536
    key = cp.empty(m, dtype=cp.uint16 if narrow else cp.uint32)
    _fn("tree_sort_keys16" if narrow else "tree_sort_keys32")((-(-m // _BLOCK),), (_BLOCK,), (i32(m), parent, key))
    return cp.argsort(key)  # stable (see tree_sort_keys)


def _tree_order(cp, m, parent):
    """(out_node, hier) of the tree given by parent (-1: top level), in cv2's pre-order with
    siblings newest first (the kernels of the 8-bit TREE/CCOMP path)."""
    i32 = np.int32
    gm = (-(-m // _BLOCK),)
    order = _tree_sort(cp, m, parent)
    first_child = cp.full(m + 1, -1, dtype=cp.int32)
    next_sib = cp.empty(m, dtype=cp.int32)
    prev_sib = cp.empty(m, dtype=cp.int32)
    _fn("sibling_links")(gm, (_BLOCK,), (order, i32(m), parent, first_child, next_sib, prev_sib))
    ne = 2 * (m + 1)
    et = cp.empty((ne, 2), dtype=cp.int32)
    et2 = cp.empty_like(et)
    ge = (-(-ne // _BLOCK),)
    _fn("euler_init")(ge, (_BLOCK,), (i32(m), parent, first_child, next_sib, et))
    et, _ = _jump_rounds(cp, ne, max(1, int(ne - 1).bit_length()), et, et2)
    out_node = cp.empty(m, dtype=cp.int32)
    hier = cp.empty((m, 4), dtype=cp.int32)
    _fn("tree_output")(gm, (_BLOCK,), (i32(m), et, parent, first_child, next_sib, prev_sib, out_node, hier))
    return out_node, hier


def _gpu_labels(cp, image, method, ox, oy, grouped=False):
    """findContours(image, RETR_FLOODFILL, method, offset) for an int32 image: (points, offsets,
    host offsets, hierarchy) as _gpu_contours returns them (``grouped``: the same too)."""
    i32, i64 = np.int32, np.int64
    h, w = image.shape
    w2, h2 = w + 2, h + 2
    n = w2 * h2
    if isinstance(image, cp.ndarray):
        ok = image.strides[1] == 4 and image.strides[0] > 0 and image.strides[0] % 4 == 0
        src = image if ok else cp.ascontiguousarray(image)
    else:
        src = cp.asarray(np.ascontiguousarray(image))
    pitch = src.strides[0] // 4 if src.shape[0] > 1 else w
    f = cp.empty(n, dtype=cp.uint32)
    _fn("lab_pad")(_grid(n), (_BLOCK,), (src, i64(pitch), i32(h), i32(w), i32(n), f))
    fl = cp.empty(n, dtype=cp.uint8)
    _fn("lab_flags")(_grid(n), (_BLOCK,), (f, i32(w2), i32(h), i32(n), fl))
    bpix = cp.flatnonzero(fl & 1).astype(cp.int32)
    epos = cp.flatnonzero(fl & 2).astype(cp.int32)
    e_count, k_edges = int(bpix.size), int(epos.size)
    if k_edges == 0:
        return _empty(cp)
    if 9 * e_count > (1 << 31) - 256:
        # int32 state slots (8 per border pixel) and cycle ids (slots + border pixels), as the 8-bit
        # path's _check_counts: -211 through _run_gpu, before the walk arrays are allocated.
        raise _TooLarge("cvgpu: the label image has %d border pixels; their %d walk states and ids exceed the "
                        "%d that the GPU kernels index with int32" % (e_count, 9 * e_count, (1 << 31) - 256))
    pmap = cp.full(n, -1, dtype=cp.int32)
    pmap[bpix] = cp.arange(e_count, dtype=cp.int32)
    slots = 8 * e_count
    gs = (-(-slots // _BLOCK),)
    nxt = cp.empty(slots, dtype=cp.int32)
    cyc = cp.empty((slots, 2), dtype=cp.int32)
    cyc2 = cp.empty((slots, 2), dtype=cp.int32)
    sdir = cp.empty(slots, dtype=cp.uint8)
    _fn("lab_state_init")(gs, (_BLOCK,), (f, i32(w2), i32(n), i32(slots), bpix, pmap, nxt, cyc, sdir))
    # Min-jumping until a round changes nothing (one host read per round; that round bounds the
    # cycle lengths, so the ranking below needs no more rounds than it took).
    mj = _fn("lab_min_jump")
    cap = max(1, slots.bit_length())
    changed = cp.zeros(cap + 1, dtype=cp.int32)
    rounds = 0
    while rounds < cap:
        mj(gs, (_BLOCK,), (i32(slots), cyc, cyc2, changed[rounds:rounds + 1]))
        cyc, cyc2 = cyc2, cyc
        rounds += 1
        if not int(changed[rounds - 1:rounds].get()[0]):
            break
    simple = i32(1 if method == CHAIN_APPROX_SIMPLE else 0)
    leader = cp.empty(slots, dtype=cp.int32)
    st = cyc2             # free after the min-jumping
    st2 = cp.empty((slots, 2), dtype=cp.int32)
    _fn("lab_rank_init")(gs, (_BLOCK,), (i32(slots), nxt, cyc, sdir, simple, leader, st))
    st, st2 = _jump_rounds(cp, slots, rounds, st, st2)

    ids = slots + e_count
    t_old = cp.full(ids, _LAB_INF, dtype=cp.int32)
    t_new = cp.empty(ids, dtype=cp.int32)
    gk = (-(-k_edges // _BLOCK),)
    ev_fn = _fn("lab_events")
    for _ in range(_LAB_MAX_ROUNDS):
        t_new.fill(_LAB_INF)
        ev_fn(gk, (_BLOCK,), (f, i32(w2), i32(n), i32(k_edges), epos, pmap, sdir, leader, i32(slots), t_old, t_new))
        if bool((t_new == t_old).all()):
            break
        t_old, t_new = t_new, t_old
    else:
        t_new.fill(_LAB_INF)
        _fn("lab_events_serial")((1,), (1,), (f, i32(w2), i32(n), i32(k_edges), epos, pmap, sdir, leader, i32(slots),
                                              t_new))
    traced = cp.flatnonzero(t_new < _LAB_INF)
    m = int(traced.size)
    if m == 0:
        return _empty(cp)
    times = t_new[traced]
    srt = cp.argsort(times)
    cyc_of = traced[srt].astype(cp.int32)
    ev = times[srt].astype(cp.int32)
    gm = (-(-m // _BLOCK),)
    cycle_border = cp.full(ids, -1, dtype=cp.int32)
    hole = cp.empty(m, dtype=cp.uint8)
    head = cp.empty(m, dtype=cp.int32)
    origin = cp.empty(m, dtype=cp.int32)
    bbox = cp.empty(4 * m, dtype=cp.int32)
    _fn("lab_borders")(gm, (_BLOCK,), (f, i32(w2), i32(n), i32(m), ev, cyc_of, epos, pmap, leader, i32(slots),
                                      i32(ox), i32(oy), cycle_border, hole, head, origin, bbox))
    _fn("lab_bbox")(gs, (_BLOCK,), (i32(w2), i32(slots), bpix, sdir, leader, cycle_border, i32(ox), i32(oy), bbox))
    raw = cp.empty(m, dtype=cp.int32)
    _fn("lab_hole_parent")(gm, (_BLOCK,), (f, i32(w2), i32(m), hole, ev, epos, pmap, sdir, leader, i32(slots),
                                          cycle_border, origin, bbox, i32(ox), i32(oy), raw))
    parent = cp.empty(m, dtype=cp.int32)
    _fn("lab_parents")(gm, (_BLOCK,), (i32(m), hole, raw, parent))
    out_node, hier = _tree_order(cp, m, parent)
    counts = cp.empty(m, dtype=cp.int32)
    _fn("lab_counts")(gm, (_BLOCK,), (i32(m), out_node, head, leader, st, counts))
    undefined = (parent == -2).any()
    if grouped and m >= _GROUPED_MIN and method not in _TC89:
        # Points laid out by (length, output index), as _gpu_contours does for assemble_grouped; the
        # hierarchy and the undefined-case flag come along (one download).
        ride = cp.concatenate((hier.ravel(), undefined.astype(cp.int32).reshape(1)))
        order, lengths, dst, total, ride = _grouped_layout(cp, counts, m, ride)
        if ride[-1]:
            raise _undefined_error()
        layout, hier, offsets = (order, lengths), ride[:-1].reshape(m, 4), None
    else:
        offsets = _offsets(cp, counts, m)
        # One download for the offsets and the undefined-case check.
        both = cp.concatenate([offsets, undefined.astype(cp.int64).reshape(1)]).get()
        if both[-1]:
            raise _undefined_error()
        layout = both[:-1]
        total = int(layout[-1])
        dst = offsets
    border_out = cp.empty(m, dtype=cp.int32)
    border_out[out_node] = cp.arange(m, dtype=cp.int32)
    points = cp.empty((total, 2), dtype=cp.int32)
    _fn("lab_emit")(gs, (_BLOCK,), (i32(w2), i32(slots), bpix, sdir, leader, st, simple, cycle_border, border_out,
                                   head, dst, i32(ox), i32(oy), points))
    _fn("lab_single")(gm, (_BLOCK,), (i32(w2), i32(m), out_node, head, origin, dst, i32(ox), i32(oy), points))
    if method in _TC89:
        points, offsets, layout = _tc89(cp, _workspace(cp), points, offsets, total, m, method)
    return points, offsets, layout, hier


def labels_image(h, w, seed=0, noise=0.0):
    """The label-image workload: 8-connected components of the blob workload (background 0), so
    with noise every salt pixel is its own region."""
    return cv2.connectedComponents(blobs_image(h, w, seed=seed, noise=noise), connectivity=8, ltype=cv2.CV_32S)[1]


def labels_bench_rows(quick=False):
    """Speed rows for label images (RETR_FLOODFILL and RETR_CCOMP, CV_32SC1): cv2 vs cvgpu (numpy
    io) and the packed device form."""
    cp = _backend.cupy_module()
    rows = []
    scales = (1,) if quick else (1, 4)
    reps = 3 if quick else 7
    for label, noise in (("blobs", 0.0), ("noisy", 0.01)):
        for s in scales:
            img = labels_image(1028 * s, 1232 * s, seed=s, noise=noise)
            h, w = img.shape
            d_img = cp.asarray(img) if cp is not None else None
            runs = [("FLOODFILL", RETR_FLOODFILL, "SIMPLE", CHAIN_APPROX_SIMPLE),
                    ("CCOMP", RETR_CCOMP, "SIMPLE", CHAIN_APPROX_SIMPLE)]
            if s == 1:
                runs += [("FLOODFILL", RETR_FLOODFILL, "NONE", CHAIN_APPROX_NONE),
                         ("FLOODFILL", RETR_FLOODFILL, "TC89_L1", CHAIN_APPROX_TC89_L1)]
            for mname, mode, meth_name, method in runs:
                workload = "labels-%s %dx%d %s %s (%d regions)" % (label, w, h, mname, meth_name, int(img.max()) + 1)
                rows += _find_contours_rows(cp, img, d_img, workload, mode, method, reps)
    return rows


# ---------------------------------------------------------------- findContoursLinkRuns
#
# cv2.findContoursLinkRuns(image[, contours[, hierarchy]]) -> contours, hierarchy (cv2's binding also
# lists an overload returning contours alone, but the first one accepts every call the second
# does, so Python always gets (contours, hierarchy)). Kernels: kernels/contours.cu, section
# "findContoursLinkRuns"; model: tests/linkruns_model.py. Given output arrays, empty images (cv2
# reads memory outside a 0-row Mat: its result is its own) and non-array inputs are cv2's. As
# findContours (see "huge images"): images beyond the kernels' int32 indices raise -211 (run end
# points, 2 per run, number at most h * (w + 1); the flat pixel index h * w is below that), running
# out of GPU memory raises cv2's -4 after one retry without the cached scratch.

from . import _binding  # noqa: E402  (this section's own import, kept here)

_LR_FUNC = "void cv::findContoursLinkRuns(InputArray, OutputArrayOfArrays, OutputArray)"
_LR_TYPE_ERR = ("> Bad input image type, must be CV_8UC1 or CV_8SC1:\n"
                ">     '_image.type() == CV_8UC1 || _image.type() == CV_8SC1'\n> where\n"
                ">     '_image.type()' is %d (%s)\n")
# cv2 5's depth codes of the numpy dtypes its binding accepts (int64 / uint64 arrive as CV_32S).
_LR_DEPTHS = {"uint8": (0, "8U"), "int8": (1, "8S"), "uint16": (2, "16U"), "int16": (3, "16S"),
              "int32": (4, "32S"), "int64": (4, "32S"), "uint64": (4, "32S"), "float32": (5, "32F"),
              "float64": (6, "64F"), "float16": (7, "16F"), "bool": (9, "Bool"), "uint32": (12, "32U")}
_LR_NAMES = ("image", "contours", "hierarchy")


def _lr_binding_error(msg):
    return _errors.bad_argument("findContoursLinkRuns", msg, msg, "Expected Ptr<cv::UMat> for argument 'image'",
                                "Expected Ptr<cv::UMat> for argument 'image'")


def _lr_image(args, kwargs):
    """(2-D uint8 view of the image (host or CuPy), on_device) for the calls cvgpu computes; raises
    cv2's error for images cv2 rejects; _Forward for everything that is cv2's."""
    bound = _by_name(_LR_NAMES, args, kwargs)
    if "image" not in bound or bound.get("contours") is not None or bound.get("hierarchy") is not None:
        raise _Forward
    image = bound["image"]
    device = as_device_array(image)
    arr = device if device is not None else image
    if device is None and not isinstance(arr, np.ndarray):
        raise _Forward
    try:
        if arr.ndim == 3 and arr.shape[2] == 0:
            raise _binding.ConversionError("image unable to wrap channels, invalid count (0, must be in [1, %d])"
                                           % _binding.CN_MAX)
        # cv2 reads a non-native byte order by its kind and size (a '>u2' image is CV_16U).
        dtype = arr.dtype.newbyteorder("=") if arr.dtype.byteorder not in "=|" else arr.dtype
        mat = _binding.mat_header("image", arr, arr.shape, dtype)
    except _binding.ConversionError as exc:
        if "hierarchy" in bound:
            raise _Forward from None   # the second overload's own complaint about it: cv2 raises it
        raise _lr_binding_error(str(exc)) from None
    if arr.size == 0:
        raise _Forward
    depth, name = _LR_DEPTHS[dtype.name]
    cn = mat.channels
    if depth > 1 or cn != 1:
        raise _errors.cv_error(_errors.UNSPECIFIED, _LR_TYPE_ERR % (depth + ((cn - 1) << 5), "CV_%sC%d" % (name, cn)),
                               _LR_FUNC, "contours_link.cpp", 0)
    if mat.rows < 0:  # an n-d Mat: Mat::size() asserts
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "dims <= 2", "operator()", "mat.inl.hpp", 0)
    arr = arr.reshape(mat.rows, mat.cols)
    if arr.dtype != np.uint8:
        arr = arr.view(np.uint8)
    return arr, device is not None


_LR_MAX_NODES = (1 << 31) - 1


def _lr_check_size(shape):
    h, w = int(shape[0]), int(shape[1])
    if h * (w + 1) >= _LR_MAX_NODES:
        raise _errors.cv_error(
            _errors.BAD_VALUE,
            "cvgpu: the %d x %d image can have %d run end points, more than the %d that the GPU kernels "
            "index with int32" % (h, w, h * (w + 1), _LR_MAX_NODES - 1), "findContoursLinkRuns")


def _lr_workspace(cp):
    """findContoursLinkRuns' scratch, per thread and device (apart from findContours')."""
    return _kernels.thread_workspace("contours-linkruns", lambda: _Workspace(cp))


def _lr_run_gpu(cp, arr, grouped):
    """_linkruns_gpu with cv2's -4 when the GPU runs out of memory twice (see _retrying); ordered
    after the previous call on another stream as _run_gpu."""
    ws = _lr_workspace(cp)
    stream = ws.claim()
    try:
        return _retrying("findContoursLinkRuns", cp, lambda: _linkruns_gpu(cp, arr, grouped=grouped), _lr_release)
    finally:
        ws.release(stream)


def _lr_release(cp):
    _lr_workspace(cp).bufs.clear()
    cp.get_default_memory_pool().free_all_blocks()


def _lr_cv2_call(args, kwargs, on_device):
    _backend.record("cv2")
    res = cv2.findContoursLinkRuns(*[_host(a) for a in args], **{k: _host(v) for k, v in kwargs.items()})
    cp = _backend.cupy_module() if on_device else None
    if cp is None or not isinstance(res, tuple) or len(res) != 2:
        return res
    contours, hier = res
    return tuple(cp.asarray(c) for c in contours), (None if hier is None else cp.asarray(hier))


@on_input_device(0, "image")
def findContoursLinkRuns(*args, **kwargs):
    """cv2.findContoursLinkRuns(image[, contours[, hierarchy]]) -> contours, hierarchy"""
    try:
        arr, on_device = _lr_image(args, kwargs)
    except _Forward:
        image = args[0] if args else kwargs.get("image")
        return _lr_cv2_call(args, kwargs, as_device_array(image) is not None)
    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        return _lr_cv2_call(args, kwargs, False)
    _lr_check_size(arr.shape)
    _backend.record("cuda")
    points, offsets, layout, hier = _lr_run_gpu(cp, arr, not on_device)
    if on_device:
        return _device_views(cp, points, layout, hier)
    # The flat hierarchy is known from the count alone: built here rather than downloaded.
    m = len(layout[0]) if offsets is None else len(layout) - 1
    hier = np.full((m, 4), -1, dtype=np.int32)
    hier[:-1, 0] = np.arange(1, m, dtype=np.int32)
    hier[1:, 1] = np.arange(0, m - 1, dtype=np.int32)
    if offsets is None:
        return _assemble_while_emitting(points, layout, hier)
    return assemble(points.get(), layout, hier)


def _device_views(cp, points, offsets, hier):
    """cv2's return value on the device: one CuPy array per contour over the points' memory, made
    with the ndarray constructor, which costs about 2 us per contour where slicing costs 3.3 (H100
    host, 8,388 contours: 17.9 against 27.4 ms; iterating a (c, L, 1, 2) array per length 27.7)."""
    m = len(offsets) - 1
    if m <= 0:
        return (), None
    base = points.data
    starts = (offsets[:-1] * 8).tolist()
    lengths = np.diff(offsets).tolist()
    nd, i32 = cp.ndarray, cp.int32
    return tuple([nd((n, 1, 2), i32, base + o) for n, o in zip(lengths, starts)]), hier.reshape(1, m, 4)


def _linkruns_gpu(cp, image, grouped=False):
    """(points (2R, 2) int32, offsets (M + 1,) int64, the offsets on the host, hierarchy (M, 4)
    int32), CuPy but for the host offsets. Host syncs: the run count, the contour count, the
    offsets. With ``grouped`` (and enough contours) the points are laid out by length as
    findContours lays them out: offsets is None and the host array is (order, lengths), see
    assemble_grouped."""
    h, w = image.shape
    if isinstance(image, cp.ndarray):
        src = image if image.strides[1] == 1 else cp.ascontiguousarray(image)
    else:
        src = cp.asarray(np.ascontiguousarray(image))
    pitch = src.strides[0]
    ws = _lr_workspace(cp)
    i32, i64 = np.int32, np.int64
    npix = h * w
    flags = ws.grown("flags", npix, cp.uint8)
    cs = ws.grown("cs", npix, cp.int32)
    _fn("lr_flags")(_grid(npix), (_BLOCK,), (src, i64(pitch), i32(h), i32(w), flags))
    cp.cumsum(flags[:npix], dtype=cp.int32, out=cs[:npix])
    runs = int(cs[npix - 1:npix].get()[0])
    if runs == 0:
        return _empty(cp)
    x0 = ws.grown("x0", runs, cp.int32)
    x1 = ws.grown("x1", runs, cp.int32)
    ry = ws.grown("ry", runs, cp.int32)
    row_off = ws.grown("row_off", h + 1, cp.int32)
    _fn("lr_runs")(_grid(npix), (_BLOCK,), (src, i64(pitch), i32(h), i32(w), cs, x0, x1, ry, row_off))
    n = 2 * runs
    gn = _grid(n)
    link = ws.grown("link", n, cp.int32)
    a = ws.grown("nodes_a", 4 * n, cp.int32)      # LrNode records (successor, least key, its distance, pad)
    b = ws.grown("nodes_b", 4 * n, cp.int32)
    _fn("lr_link")(_grid(runs), (_BLOCK,), (i32(runs), i32(h), x0, x1, ry, row_off, link, a))
    jump = _fn("lr_jump")
    for k in range(max(1, (n - 1).bit_length())):
        jump(gn, (_BLOCK,), (i32(n), i32(1 << k), a, b))
        a, b = b, a
    nodes = a
    is_head = ws.grown("is_head", n, cp.int32)
    lens = ws.grown("lens", n, cp.int32)
    is_head[:n].fill(0)
    lens[:n].fill(0)
    _fn("lr_heads")(gn, (_BLOCK,), (i32(n), i32(runs), link, nodes, is_head, lens))
    order = ws.grown("order", n, cp.int32)
    ends = ws.grown("ends", n, cp.int32)
    cp.cumsum(is_head[:n], out=order[:n])
    cp.cumsum(lens[:n], out=ends[:n])
    m = int(order[n - 1:n].get()[0])
    offsets = cp.empty(m + 1, dtype=cp.int64)
    hier = cp.empty((m, 4), dtype=cp.int32)
    _fn("lr_offsets")(gn, (_BLOCK,), (i32(n), i32(m), is_head, order, lens, ends, offsets, hier))
    points = cp.empty((n, 2), dtype=cp.int32)
    if grouped and m >= _GROUPED_MIN:
        # Contours ordered by (length, index), as findContours' numpy path (see assemble_grouped).
        by_length, lengths, base, _, _ = _grouped_layout(cp, (offsets[1:] - offsets[:-1]).astype(cp.int32), m)
        layout, offsets = (by_length, lengths), None
    else:
        base = offsets
        layout = offsets.get()
    _fn("lr_emit")(gn, (_BLOCK,), (i32(n), x0, x1, ry, nodes, lens, order, base, points))
    return points, offsets, layout, hier


def linkruns_bench_rows(quick=False):
    """Speed rows of findContoursLinkRuns against cv2: the blobs and noisy (1% salt) images at
    1232x1028 and 4x (4928x4112); numpy io (host clock, transfers and views included) and device
    io (CuPy in, CuPy views out; CUDA events), with the packed device pipeline beside it."""
    from .bench import _timing as bench  # moves to cvgpu/bench/ with these rows (issue 38)
    cp = _backend.cupy_module()
    rows = []
    reps = 3 if quick else 7
    for s in ((1,) if quick else (1, 4)):
        for label, noise in (("blobs", 0.0), ("noisy", 0.01)):
            img = blobs_image(1028 * s, 1232 * s, seed=s, noise=noise)
            h, w = img.shape
            workload = "%s %dx%d" % (label, w, h)
            ref = cv2.findContoursLinkRuns(img)
            t_cv = bench.time_host(lambda: cv2.findContoursLinkRuns(img), max(1, reps // 2) if s == 4 else reps)
            base = {"function": "findContoursLinkRuns", "workload": workload, "contours": len(ref[0])}
            if cp is None:
                rows.append(bench.timing_row(base, t_cv))
                continue
            ours = findContoursLinkRuns(img)
            exact = _same_contours(ours, ref)
            t_np = bench.time_host(lambda: findContoursLinkRuns(img), reps)
            d_img = cp.asarray(img)
            t_packed = bench.time_device(cp, lambda: _linkruns_gpu(cp, d_img), reps)
            rows.append(bench.timing_row(base, t_cv, t_np, "numpy", bool(exact),
                                         packed_device_ms=t_packed["median"]))
            t_dev = bench.time_device(cp, lambda: findContoursLinkRuns(d_img), reps)
            rows.append(bench.timing_row(base, t_cv, t_dev, "device", bool(exact),
                                         packed_device_ms=t_packed["median"]))
    return rows
