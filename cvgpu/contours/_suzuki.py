"""findContours on CV_8UC1 images on the GPU (kernels/contours/suzuki.cu): every mode with every
method, bit-exact with cv2's Suzuki-Abe border following (contours_new.cpp).

Connected-component labelling of foreground (8-connected) and background (4-connected) gives every
border, its discovery rank and its parent; the tree order (pre-order, siblings newest first) comes
from an Euler tour ranked by pointer jumping (_ranking.tree_order); the border walks are ranked
over all walk states at once, each ruler (about one state in 16 by a hash, plus every border's
first state) walking its short sublist and the rulers ranked by pointer jumping, so one very long
border costs a few dozen steps plus log2 of its length in jumping rounds. TC89 approximates the
NONE result (_tc89). The host only splits the one returned point array into the views cv2's
binding returns (cvgpu.contours.assemble*)."""
import threading

import numpy as np

from .. import _native
from . import TUNING
from ._common import (BLOCK, CHAIN_APPROX_SIMPLE, NULL, RETR_EXTERNAL, RETR_LIST, TC89, TooLarge, empty)
from ._ranking import grouped_layout, jump_rounds, offsets as offsets_of, tree_order
from ._tc89 import tc89

RULER_SPAN = 16      # = RULER_SPAN in kernels/contours/suzuki.cu

# ---------------------------------------------------------------- Index widths (issue 6)
#
# Integer widths, audited for every image up to the int32 flat-index limit and for worst-case content
# (n = (h + 2) * (w + 2) padded pixels, E border pixels, m borders, P output points, S = 8 E walk
# states). The two limits below are the only ones: everything else follows from them.
#   pixels  int flat indices everywhere (f, labels, fl, starts, bpix, pmap, L[]); ccl_finish and
#           scatter_flags index 1024-pixel tiles up to n + 1023 -> n <= INT32_PIXELS (_common),
#           checked before the GPU is touched. The grid-stride loops of pad_init / ccl_union count
#           in unsigned: i + gridDim.x * blockDim.x (up to GRID_CAP * BLOCK = 2^27) passes 2^31 - 1
#           for n > 2^31 - 2^27, about 44,870^2. Widening the pixels to 64 bits would buy little:
#           at 23 bytes of scratch per pixel, 2^31 pixels already need 49 GB.
#   E, m    ccl_finish sums (starts << 32 | border pixels) per tile in 64 bits: each half <= n < 2^32,
#           so no carry; scatter_flags reads each half as int (< 2^31).
#   states  slot = 8 e + b is an int in border_heads / state_init / ruler_walk / state_emit / rank_jump,
#           and the (next, dist) records (states and rulers, rulers <= S / 16 + m; a ruler's sublist
#           weight and rloc <= S) are int2; their 1-D grids reach 8 E + 255 -> E <= MAX_BORDER_PIXELS
#           (2^28 - 32). E depends on the content, not only the size: 20000^2 with a few hundred
#           shapes has E ~ 10^6; the 20000^2 one-pixel serpentine E = 2 * 10^8 (1.6 * 10^9 states,
#           within the limit); a background pixel at the centre of every 3 x 3 block (E = 8 n / 9)
#           or salt noise of density 0.76 (E ~ 0.68 n) passes the limit from about 17,400^2 /
#           19,950^2 on. Those raise cv2.error after
#           labelling, at the host read of the counts that the pipeline makes anyway (no extra
#           sync), before the walk arrays are allocated. 64-bit states would need 16-byte records
#           (37 bytes per slot with head_of and sdir, against 21): just past the limit that is
#           2^31 * 37 B = 79.5 GB for the walk arrays plus >= 6 GB of pixel scratch, more than an
#           80 GB GPU holds, so the limit is kept and reported instead.
#   m       every border starts on a border pixel of its own (outer: its root, whose left pixel is
#           background; hole: the pixel left of the hole's root), so m <= E < 2^28: the Euler tour
#           (2 (m + 1) int2 records), the hierarchy index 4 * pos, head_slot and the sort key
#           parent * (m + 1) + rank (int64) stay in range.
#   P       a point is one walk state on its border's cycle, or the one point of a single-pixel
#           border (whose 8 slots are unused): P <= S < 2^31, and the per-contour counts (int, the
#           dist of the head state) as well; offsets are int64 all the same. TC89: scratch slots
#           P + k with long long indices, per-contour n < 2^31, output offsets int64.
#   grids   1-D only (gridDim.x up to 2^31 - 1; nothing uses gridDim.y / z); the largest is
#           S / 256 < 2^23 blocks, Gpu.grid caps the pixel launches at GRID_CAP blocks.
#   shared  per-warp arrays of 32 in ccl_finish / scatter_flags; no 16-bit or narrower packing
#           (sdir is a u8 direction 0..7, 255 = no state).
#   coords  points are int32 x - 1 + ox (wrapping as cv2's int); TC89's products wrap as cv2's.
# Error codes: -211 (StsOutOfRange, "Input parameters are out of range") for both limits: the
# input is valid for cv2 but outside the range this implementation indexes. Not -4: that stays
# cv2's "Failed to allocate" for a real allocation failure (raised when the GPU runs out, after
# one retry without the cached scratch: _common.retrying), so callers that free memory and retry
# on -4 are not sent into a loop; not -215, which reads as a failed internal assertion.

MAX_BORDER_PIXELS = ((1 << 31) - 256) // 8   # 8 states each, int32 slot + a 256-thread block


def check_counts(m, e_count):
    if e_count > MAX_BORDER_PIXELS or m > e_count:
        raise TooLarge(
            "cvgpu: the image has %d border pixels (and %d borders); their %d border-walk states exceed "
            "the %d that the GPU kernels index with int32 (at most %d border pixels)"
            % (e_count, m, 8 * e_count, 8 * MAX_BORDER_PIXELS, MAX_BORDER_PIXELS))


# ---------------------------------------------------------------- upload

_upload_pool = []
_upload_pool_lock = threading.Lock()


def pack_bits_in_bands(flat, out, bands, map_):
    """np.packbits(flat) into ``out`` (uint8, at least ceil(size / 8) long) in ``bands`` bands of
    whole bytes, each band a task of ``map_`` (a thread pool's map: packbits releases the GIL)."""
    size = flat.size
    cuts = [(size * i // bands) & ~7 for i in range(bands)] + [size]

    def pack(i):
        a, b = cuts[i], cuts[i + 1]
        out[a >> 3:-(-b // 8)] = np.packbits(flat[a:b])
    list(map_(pack, range(bands)))


def upload_bits(cp, ws, image):
    """A host 8-bit image on the device as one bit a pixel (nonzero -> 1, as the kernels binarise),
    the pixels one row-major bit stream, most significant bit first (pad_init_bits with pitch w).
    The host's cost of an upload is reading the image once more: np.packbits reads it in bands of
    at least TUNING.upload_band pixels on up to TUNING.upload_threads threads (it releases the
    GIL; paths "upload_bits" for one band, "upload_bands" for several), into pinned memory the copy
    engine reads at once. The staging buffer is the thread's own and reused: every call with host
    input ends with a sync."""
    flat = np.ascontiguousarray(image).reshape(-1)
    size = flat.size
    nbytes = -(-size // 8)
    staging = ws.pinned(nbytes)
    threads = TUNING.upload_threads
    bands = min(threads, max(1, size // TUNING.upload_band))
    if bands == 1:
        TUNING.ran("upload_bits")
        staging[:] = np.packbits(flat)
    else:
        TUNING.ran("upload_bands")
        with _upload_pool_lock:
            if not _upload_pool:
                from concurrent.futures import ThreadPoolExecutor
                _upload_pool.append(ThreadPoolExecutor(threads, thread_name_prefix="cvgpu-upload"))
        pack_bits_in_bands(flat, staging, bands, _upload_pool[0].map)
    bits = cp.empty(nbytes, dtype=cp.uint8)
    cp.cuda.runtime.memcpyAsync(bits.data.ptr, staging.ctypes.data, nbytes, cp.cuda.runtime.memcpyHostToDevice,
                                cp.cuda.get_current_stream().ptr)
    return bits


def upload_rows(cp, ws, helpers, image):
    """A host 8-bit image on the device as hostcall.c's bit rows (cvg_pack_bits: one bit a pixel,
    nonzero -> 1, least significant first, each row in whole 16-bit words; pad_init_rows), packed
    and sent up by the C helper in one call without the GIL, on up to 4 threads for large images
    (path "upload_rows"). numpy's packbits held the calling thread for the whole image (1920x1080:
    ~0.26 ms of a 1.2 ms call). Returns the device array and its row pitch in bytes."""
    TUNING.ran("upload_rows")
    image = _native.rows_contiguous(image)
    h, w = image.shape
    pitch = _native.bit_row_bytes(w)
    nbytes = h * pitch
    bits = ws.grown("bits", nbytes, cp.uint8)
    _native.send_bit_rows(helpers, image, ws.pinned(nbytes).ctypes.data, bits.data.ptr,
                          cp.cuda.get_current_stream().ptr, "findContours", "contours.cpp")
    return bits, pitch


# ---------------------------------------------------------------- the pipeline

class PixelScratch:
    """The labelling's image-sized scratch (n padded pixels), its arrays made by ``make(name, size,
    dtype)``: the thread's workspace (gpu_contours) or a captured graph's own (_graph)."""

    __slots__ = ("f", "labels", "fl", "blk", "offs", "starts", "hole", "bid", "bpix", "pmap")


def pixel_scratch(cp, n, make):
    px = PixelScratch()
    nb = -(-n // 1024)
    px.f = make("f", n, cp.uint8)
    px.labels = make("labels", n, cp.int32)
    px.fl = make("fl", n, cp.uint8)
    px.blk = make("blk", nb, cp.uint64)
    px.offs = make("offs", nb, cp.uint64)
    px.starts = make("starts", n, cp.int32)
    px.hole = make("hole", n, cp.uint8)
    px.bid = make("bid", n, cp.int32)              # component root -> border (only roots read)
    px.bpix = make("bpix", n, cp.int32)
    px.pmap = make("pmap", n, cp.int32)            # read only at border pixels
    return px


def label_pixels(gpu, px, pad, src, pitch, h, w, counter, total):
    """The image's padding (kernel ``pad`` on src, ``pitch`` bytes a row), its labelling and the
    border pixels' and starts' compaction: (borders << 32 | border pixels) in ``total``."""
    i32, i64 = np.int32, np.int64
    fn = gpu.fn
    w2 = w + 2
    n = w2 * (h + 2)
    nb = -(-n // 1024)
    grid = gpu.grid(n)
    fn("suzuki", pad)(grid, (BLOCK,), (src, i64(pitch), i32(h), i32(w), i32(n), px.f, px.labels))
    fn("suzuki", "ccl_union")(grid, (BLOCK,), (px.f, i32(w2), i32(n), px.labels))
    fn("suzuki", "ccl_finish")((nb,), (1024,), (px.f, i32(w2), i32(n), px.labels, px.fl, px.blk, px.offs, counter,
                                               total))
    fn("suzuki", "scatter_flags")((nb,), (1024,), (px.fl, i32(n), px.offs, px.labels, px.starts, px.hole, px.bid,
                                                  px.bpix, px.pmap))


def _selected_layout(gpu, counts, m, hier, k_dev):
    """The numpy path's layout after external_select (m rows, the first k of them contours, k on the
    device): (k, layout, offsets, dst, total, hierarchy (k, 4) on the host) from one download, laid
    out as gpu_contours lays out k contours (by length from TUNING.grouped_min on, see
    grouped_layout; else in output order). The padding rows count no points, so offsets[:k + 1] are
    the real ones."""
    offsets = offsets_of(gpu, counts, m)
    layout, hier_h, k_h = gpu.ops.download(offsets, hier, k_dev)
    k = int(k_h[0])
    layout, hier_h = layout[:k + 1], hier_h[:k]
    if k >= TUNING.grouped_min:
        TUNING.ran("grouped")
        order, lengths, dst, total, _ = grouped_layout(gpu, None, k, counts_h=np.diff(layout))
        return k, (order, lengths), None, dst, total, hier_h
    TUNING.ran("flat")
    offsets = offsets[:k + 1]
    return k, layout, offsets, offsets, int(layout[-1]), hier_h


def gpu_contours(gpu, image, mode, method, ox, oy, grouped=False):
    """(points (P,2) int32, offsets (M+1,) int64, the same offsets on the host, hierarchy (M,4) int32),
    CuPy but for the host offsets. Host syncs: one for the border counts, one for the offsets (and one
    for RETR_EXTERNAL's selection above TUNING.device_select_max borders). With ``grouped`` (and
    enough contours) the points are laid out by length instead: offsets is None and the host array
    is (order, lengths), see cvgpu.contours.assemble_grouped."""
    cp = gpu.cp
    fn = gpu.fn
    h, w = image.shape
    w2, h2 = w + 2, h + 2
    n = w2 * h2
    ws = gpu.workspace()
    pad = "pad_init"
    if isinstance(image, cp.ndarray):
        src = image if image.strides[1] == 1 else gpu.ops.contiguous(image)
        pitch = src.strides[0]
    else:
        helpers = _native.helpers() if TUNING.native_upload else None
        if helpers is not None:
            (src, pitch), pad = upload_rows(cp, ws, helpers, image), "pad_init_rows"
        else:
            src, pitch, pad = upload_bits(cp, ws, image), w, "pad_init_bits"
    i32 = np.int32
    px = pixel_scratch(cp, n, ws.grown)
    label_pixels(gpu, px, pad, src, pitch, h, w, ws.counter, ws.total)
    f, labels, fl, starts, hole, bid, bpix, pmap = px.f, px.labels, px.fl, px.starts, px.hole, px.bid, px.bpix, px.pmap
    tot = int(ws.total.get()[0])
    m, e_count = tot >> 32, tot & 0xFFFFFFFF       # borders (discovery order), border pixels
    check_counts(m, e_count)                       # before anything sized by them is allocated
    ws.last_counts = (m, e_count)                  # (for the shape's graph: cvgpu/contours/_graph.py)
    if m == 0:
        return empty(cp)
    gm = (-(-m // BLOCK),)
    parent = cp.empty(m, dtype=cp.int32)
    fn("suzuki", "border_parents")(gm, (BLOCK,), (starts, i32(m), labels, hole, bid, i32(mode), parent, NULL))

    k_dev = None   # RETR_EXTERNAL selected on the device: k rows of the m below, k read with the layout
    if mode == RETR_EXTERNAL and m <= TUNING.device_select_max:
        TUNING.ran("external_select")
        k = m
        out_node = cp.empty(m, dtype=cp.int32)
        hier = cp.empty((m, 4), dtype=cp.int32)
        k_dev = cp.empty(1, dtype=cp.int64)
        fn("suzuki", "external_select")((1,), (1024,), (i32(m), hole, parent, out_node, hier, k_dev, i32(m), NULL))
    elif mode in (RETR_LIST, RETR_EXTERNAL):
        if mode == RETR_EXTERNAL:
            TUNING.ran("external_flatnonzero")
            flag = cp.empty(m, dtype=cp.uint8)
            fn("suzuki", "external_flags")(gm, (BLOCK,), (i32(m), hole, parent, flag))
            sel, = gpu.ops.select(("mask", flag, 0xFF, np.int64))   # flatnonzero(flag)
        else:
            sel = gpu.ops.iota_i64(m)
        k = int(sel.size)
        if k == 0:
            return empty(cp)
        out_node = cp.empty(k, dtype=cp.int32)
        hier = cp.empty((k, 4), dtype=cp.int32)
        fn("suzuki", "flat_output")((-(-k // BLOCK),), (BLOCK,), (i32(k), sel, out_node, hier))
    else:
        k = m
        out_node, hier = tree_order(gpu, m, parent)

    gk = (-(-k // BLOCK),)
    simple = i32(1 if method == CHAIN_APPROX_SIMPLE else 0)
    slots = 8 * e_count
    head_of = ws.grown("head_of", slots, cp.int32)
    cp.cuda.runtime.memsetAsync(head_of.data.ptr, 0xFF, 4 * slots, cp.cuda.get_current_stream().ptr)  # all -1
    head_slot = cp.empty(k, dtype=cp.int32)
    fn("suzuki", "border_heads")(gk, (BLOCK,), (f, i32(w2), i32(k), out_node, starts, hole, pmap, head_slot, head_of))
    st = ws.grown("st", 2 * slots, cp.int32)        # (next, weight) pairs
    sdir = ws.grown("sdir", slots, cp.uint8)
    gs = (-(-slots // BLOCK),)
    direct = slots < TUNING.ruler_min_slots
    if direct:
        TUNING.ran("jump_slots")
        rid = rloc = NULL                           # not used
    else:
        TUNING.ran("rulers")
        rid = ws.grown("rid", slots, cp.int32)      # state -> its ruler (see ruler_walk)
        rloc = ws.grown("rloc", slots, cp.int32)    # state -> weight before it in its ruler's sublist
    fn("suzuki", "state_init")(gs, (BLOCK,), (f, i32(w2), i32(slots), bpix, fl, pmap, head_of, simple, st, sdir, rid,
                                             NULL))
    if direct:
        st2 = ws.grown("st2", 2 * slots, cp.int32)
        rj, _ = jump_rounds(gpu, slots, max(1, slots.bit_length()), st, st2)
    else:
        rj = _rank_by_rulers(gpu, ws, slots, k, st, sdir, head_of, head_slot, rid, rloc)
    counts = cp.empty(k, dtype=cp.int32)
    fn("suzuki", "border_counts")(gk, (BLOCK,), (i32(k), i32(direct), head_slot, rj, counts))
    if k_dev is not None and grouped and method not in TC89:
        k, layout, offsets, dst, total, hier = _selected_layout(gpu, counts, m, hier, k_dev)
        if k == 0:
            return empty(cp)
    elif grouped and k >= TUNING.grouped_min and method not in TC89:
        # Contours ordered by (length, output index), so the host can cut each run of equal lengths
        # into views with one C-level iteration (see assemble_grouped); the hierarchy comes along.
        TUNING.ran("grouped")
        order, lengths, dst, total, (hier,) = grouped_layout(gpu, counts, k, (hier,))
        layout, offsets = (order, lengths), None
    else:
        TUNING.ran("flat")
        offsets = dst = offsets_of(gpu, counts, k)
        if grouped and method not in TC89:
            # Host output: the hierarchy comes along with the offsets (one download).
            layout, hier = gpu.ops.download(offsets, hier)
        elif k_dev is None:
            layout = offsets.get()
        else:
            layout, k_h = gpu.ops.download(offsets, k_dev)
            k = int(k_h[0])
            if k == 0:
                return empty(cp)
            layout, offsets, hier = layout[:k + 1], offsets[:k + 1], hier[:k]
        total = int(layout[-1])
    points = cp.empty((total, 2), dtype=cp.int32)
    fn("suzuki", "state_emit")(gs, (BLOCK,), (i32(w2), i32(slots), bpix, i32(direct), rid, rloc, rj, sdir, simple,
                                             counts, dst, i32(ox), i32(oy), points, NULL))
    fn("suzuki", "single_points")(gk, (BLOCK,), (i32(w2), i32(k), out_node, starts, head_slot, dst, i32(ox), i32(oy),
                                                points))
    if method in TC89:
        points, offsets, layout = tc89(gpu, points, offsets, total, k, method)
    return points, offsets, layout, hier


def _rank_by_rulers(gpu, ws, slots, k, st, sdir, head_of, head_slot, rid, rloc):
    """The ruler records (see ruler_walk in kernels/contours/suzuki.cu), ranked: ruler j < k is
    border j's first state."""
    cp = gpu.cp
    i32 = np.int32
    nblk = max(1, -(-slots // RULER_SPAN))
    gb = (-(-nblk // BLOCK),)
    rflag = ws.grown("rflag", nblk, cp.int32)
    rank = ws.grown("rank", nblk, cp.int32)
    gpu.fn("suzuki", "ruler_flags")(gb, (BLOCK,), (i32(slots), i32(nblk), sdir, head_of, rflag))
    gpu.ops.inclusive_scan(rflag[:nblk], rank[:nblk])
    nr = nblk + k                                   # bound on the rulers (k + rank[nblk - 1] live)
    rj = ws.grown("rj", 2 * nr, cp.int32)
    rj2 = ws.grown("rj2", 2 * nr, cp.int32)
    gpu.fn("suzuki", "ruler_walk")((-(-nr // BLOCK),), (BLOCK,), (i32(slots), i32(nblk), i32(k), st, sdir, head_of,
                                                                 head_slot, rank, rid, rloc, rj))
    rj, _ = jump_rounds(gpu, nr, max(1, nr.bit_length()), rj, rj2, k=k, live=rank[nblk - 1:nblk])
    return rj
