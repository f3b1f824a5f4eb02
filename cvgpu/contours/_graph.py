"""findContours(mask, RETR_EXTERNAL, NONE or SIMPLE) on a host mask of a shape met before, as one
captured CUDA graph: one upload, one graph launch, one wait, two reads (issue 41).

The launched pipeline (_suzuki.gpu_contours) reads the counts back three times to size what
follows, and its 13 launches and 9 allocations are most of a camera-frame call
(compat_matrix/HISTORY.md, "The host side of a camera-frame findContours call"). Here the same
kernels run over buffers sized by capacities learned from the shape's last launched call (twice
its borders and border pixels), and read the counts from the device (suzuki.cu: graph_counts, the
kernels' ``gc`` argument): rows past the borders are external_select's padding rows, which get no
points; states past the border pixels' are not visited. The graph ends with the copy of the
header (counts, selected borders, offsets, hierarchy) to pinned memory; the host then reads the
points. A call whose counts pass the capacities is computed again by the launched pipeline
(graph_counts zeroes the counts, so the graph did nothing), and the next graph of that shape gets
capacities from it.

Limits: host uint8 masks up to TUNING.graph_max_pixels; RETR_EXTERNAL with CHAIN_APPROX_NONE or
SIMPLE; at most TUNING.graph_max_borders borders (the flat layout; external_select's one block);
the thread's cvgpu._native helpers (the bit-row upload). Everything else takes the launched
pipeline, which stays the reference: both run the same kernels, so their results are equal."""
import numpy as np

from .. import _native
from . import TUNING
from ._common import BLOCK, CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE, NULL, Gpu
from ._suzuki import label_pixels, pixel_scratch

_GRAPHS = "graphs"        # Workspace.bufs key: {key: _Graph or False (capture refused)}
_SEEN = "graph_counts"    # Workspace.bufs key: {key: (borders, border pixels) of the last launched call}
_KEEP = 4                 # graphs kept a thread (oldest dropped): each holds ~25 bytes a pixel


def eligible(gpu, image, method, on_device):
    """Whether a RETR_EXTERNAL call may take a graph (on a CUDA device: not the host-built kernels
    of the tests' stand-in Gpu)."""
    return (not on_device and isinstance(gpu, Gpu) and image.dtype == np.uint8
            and method in (CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE)
            and 0 < image.size <= TUNING.graph_max_pixels)


def note_counts(ws, key, m, e_count):
    """The launched pipeline's counts for ``key``: the next call of that key builds its graph."""
    seen = ws.bufs.get(_SEEN)
    if seen is None:
        seen = ws.bufs[_SEEN] = {}
    seen[key] = (m, e_count)


def key_of(image, method, ox, oy):
    return (image.shape, method, ox, oy)


class _Graph:
    """A captured graph and the buffers it runs on (its own: a later call of another size must not
    move them), for one (shape, method, offset) and its capacities."""

    def __init__(self, gpu, shape, method, ox, oy, cap_e, cap_m):
        cp = gpu.cp
        h, w = shape
        w2 = w + 2
        n = w2 * (h + 2)
        i32 = np.int32
        self.cap_e, self.cap_m = cap_e, cap_m
        self.pitch = _native.bit_row_bytes(w)
        self.bits = cp.empty(max(1, h * self.pitch), dtype=cp.uint8)
        px = pixel_scratch(cp, n, lambda name, size, dtype: cp.empty(size, dtype=dtype))
        f, labels, fl, starts, hole, bid, bpix, pmap = (px.f, px.labels, px.fl, px.starts, px.hole, px.bid, px.bpix,
                                                        px.pmap)
        counter = cp.zeros(1, dtype=cp.uint32)
        total = cp.zeros(1, dtype=cp.uint64)
        slots = 8 * cap_e
        rows = cap_m
        parent = cp.empty(rows, dtype=cp.int32)
        out_node = cp.empty(rows, dtype=cp.int32)
        head_slot = cp.empty(rows, dtype=cp.int32)
        counts = cp.empty(rows, dtype=cp.int32)
        head_of = cp.empty(slots, dtype=cp.int32)
        st = cp.empty(2 * slots, dtype=cp.int32)
        sdir = cp.empty(slots, dtype=cp.uint8)
        rounds = max(1, slots.bit_length())
        jump_open = cp.zeros(-(-slots // 32), dtype=cp.uint32)
        jump_counts = cp.zeros(max(64, rounds), dtype=cp.uint32)
        barrier = cp.zeros(2, dtype=cp.uint32)
        self.points = cp.empty((slots + rows, 2), dtype=cp.int32)
        # The header, one device block copied to pinned memory by the graph's last node: k (int64),
        # gc (8 int32), the offsets (rows + 1 int64), the hierarchy (rows x 4 int32).
        self.at_offsets = 48
        self.at_hier = self.at_offsets + 8 * (rows + 1)
        nbytes = self.at_hier + 16 * rows
        meta = cp.zeros(nbytes, dtype=cp.uint8)
        self.meta_host = np.frombuffer(cp.cuda.alloc_pinned_memory(nbytes), np.uint8, nbytes)
        k_dev = meta[0:8].view(cp.int64)
        gc = meta[8:40].view(cp.int32)
        offsets = meta[self.at_offsets:self.at_hier].view(cp.int64)
        hier = meta[self.at_hier:].view(cp.int32)
        simple = i32(1 if method == CHAIN_APPROX_SIMPLE else 0)
        coop = gpu.cooperative("ranking_block", "rank_jump_inplace", TUNING.jump_block)
        if coop is None:
            raise RuntimeError("no cooperative launch on this device")
        jump, resident = coop
        fn = gpu.fn
        grid_rows = (-(-rows // BLOCK),)
        grid_slots = (-(-slots // BLOCK),)
        keep = (self.bits, px, counter, total, parent, out_node, head_slot, counts, head_of, st, sdir, jump_open,
                jump_counts, barrier, meta)

        def launches(stream):
            label_pixels(gpu, px, "pad_init_rows", self.bits, self.pitch, h, w, counter, total)
            fn("suzuki", "graph_counts")((1,), (32,), (total, i32(cap_e), i32(cap_m), gc))
            fn("suzuki", "border_parents")(grid_rows, (BLOCK,), (starts, i32(rows), labels, hole, bid, i32(0), parent,
                                                                 gc))
            fn("suzuki", "external_select")((1,), (1024,), (i32(rows), hole, parent, out_node, hier, k_dev, i32(rows),
                                                            gc))
            cp.cuda.runtime.memsetAsync(head_of.data.ptr, 0xFF, 4 * slots, stream.ptr)  # all -1
            fn("suzuki", "border_heads")(grid_rows, (BLOCK,), (f, i32(w2), i32(rows), out_node, starts, hole, pmap,
                                                               head_slot, head_of))
            fn("suzuki", "state_init")(grid_slots, (BLOCK,), (f, i32(w2), i32(slots), bpix, fl, pmap, head_of, simple,
                                                              st, sdir, NULL, gc))
            # (The live count: k + *live records with k = 0, *live = gc[GC_SLOTS].)
            jump((max(1, min(resident, -(-slots // TUNING.jump_block))),), (TUNING.jump_block,),
                 (i32(slots), i32(0), gc[2:3], i32(rounds), st, jump_open, jump_counts, barrier))
            fn("suzuki", "border_counts")(grid_rows, (BLOCK,), (i32(rows), i32(1), head_slot, st, counts))
            fn("ranking_block", "offsets_scan")((1,), (1024,), (i32(rows), counts, offsets))
            fn("suzuki", "state_emit")(grid_slots, (BLOCK,), (i32(w2), i32(slots), bpix, i32(1), NULL, NULL, st, sdir,
                                                              simple, counts, offsets, i32(ox), i32(oy), self.points,
                                                              gc))
            fn("suzuki", "single_points")(grid_rows, (BLOCK,), (i32(w2), i32(rows), out_node, starts, head_slot,
                                                                offsets, i32(ox), i32(oy), self.points))
            cp.cuda.runtime.memcpyAsync(self.meta_host.ctypes.data, meta.data.ptr, nbytes,
                                        cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)

        capture = cp.cuda.Stream(non_blocking=True)
        with capture:
            capture.begin_capture()
            try:
                launches(capture)
            finally:
                self.graph = capture.end_capture()
        self.keep = keep

    def run(self, gpu, helpers, image, stream):
        """The call on ``image``: (points (P, 2), offsets (k + 1,), hierarchy (k, 4)) on the host, or
        None when its counts passed the capacities (then (borders, border pixels) in self.seen)."""
        cp = gpu.cp
        ws = gpu.workspace()
        h = image.shape[0]
        _native.send_bit_rows(helpers, image, ws.pinned(h * self.pitch).ctypes.data, self.bits.data.ptr,
                              stream.ptr, "findContours", "contours.cpp")
        self.graph.launch(stream)
        stream.synchronize()
        meta = self.meta_host
        gc = meta[8:40].view(np.int32)
        if gc[3]:
            self.seen = (int(gc[4]), int(gc[5]))
            return None
        k = int(meta[0:8].view(np.int64)[0])
        # (Copied out of the pinned header, which the next call's graph overwrites.)
        offsets = np.array(meta[self.at_offsets:self.at_offsets + 8 * (k + 1)].view(np.int64))
        hier = np.array(meta[self.at_hier:self.at_hier + 16 * k].view(np.int32).reshape(k, 4))
        points = np.empty((int(offsets[-1]), 2), dtype=np.int32)
        if points.size:
            cp.cuda.runtime.memcpy(points.ctypes.data, self.points.data.ptr, points.nbytes,
                                   cp.cuda.runtime.memcpyDeviceToHost)
        return points, offsets, hier


def contours(gpu, image, method, ox, oy):
    """The call through the shape's graph: (points, offsets, hierarchy) on the host, or None where
    the launched pipeline computes it (no graph yet, capture refused, or counts past the graph's
    capacities)."""
    helpers = _native.helpers()
    if helpers is None:
        return None
    stream = gpu.cp.cuda.get_current_stream()
    ws = gpu.workspace()
    key = key_of(image, method, ox, oy)
    graphs = ws.bufs.get(_GRAPHS)
    if graphs is None:
        graphs = ws.bufs[_GRAPHS] = {}
    graph = graphs.get(key)
    if graph is False:
        return None
    seen = ws.bufs.get(_SEEN, {}).get(key)
    if graph is None or (seen is not None and (seen[1] > graph.cap_e or seen[0] > graph.cap_m)):
        if seen is None or seen[0] > TUNING.graph_max_borders:
            return None
        graphs.pop(key, None)
        if len(graphs) >= _KEEP:
            graphs.pop(next(iter(graphs)))
        cap_m = min(TUNING.graph_max_borders, max(256, 2 * seen[0]))
        cap_e = max(4096, 2 * seen[1])
        try:
            graph = graphs[key] = _Graph(gpu, image.shape, method, ox, oy, cap_e, cap_m)
        except Exception as e:  # noqa: BLE001 (no cooperative launch, a refused capture, a stand-in device)
            if type(e).__name__ == "OutOfMemoryError":
                raise              # (retrying: the thread's scratch dropped, the call tried again)
            graphs[key] = False    # the launched pipeline for this key from here on
            return None
        TUNING.ran("graph_built")
    out = graph.run(gpu, helpers, _native.rows_contiguous(image), stream)
    if out is None:
        TUNING.ran("graph_over")
        note_counts(ws, key, *graph.seen)
        return None
    TUNING.ran("graph")
    return out
