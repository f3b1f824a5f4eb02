"""findContours on camera frames: masks of photographs at 640x480 .. 3840x2160, cv2 beside, each row
with its floor.

Masks: Otsu, adaptive-threshold and Canny masks of four bundled photographs (camera, coins, page,
astronaut) resized to each frame. A row aggregates the four photographs of one (frame, mask, mode,
method): the median of cv2's and cvgpu's times, the median and the lowest speedup, and the floor.

The floor (``floor_ms``) is what any GPU pipeline returning cv2's tuple of numpy arrays must pay on
this host: the image's upload (the cheapest of four ways, to a stream sync: its bytes copied into
pinned memory and sent; its bits packed by one thread; its bits packed in bands by every core of
the host; its bit rows packed by cvgpu._native's C helper, where it loads) plus numpy making and
freeing the row's per-contour arrays with their real lengths (numpy's own iterator over one
(count, length, 1, 2) array per length, no reordering). cvgpu's numpy-io time over it
(``over_floor``) says how much of a call is cvgpu's own. (At d239fb1 the floor's upload was one
thread packing ``img != 0``: at 3840x2160 it exceeded cvgpu's whole call.)
"""
import os
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import cv2
import numpy as np

from .. import _backend, _native
from ..contours._suzuki import pack_bits_in_bands
from ._timing import summarize, time_device, time_host, timing_row
from .workloads import FRAMES, frame_mask

PHOTOS = ("camera", "coins", "page", "astronaut")
MASKS = ("otsu", "adaptive", "canny")
MODES = {"EXTERNAL": cv2.RETR_EXTERNAL, "LIST": cv2.RETR_LIST, "CCOMP": cv2.RETR_CCOMP, "TREE": cv2.RETR_TREE}
METHODS = {"NONE": cv2.CHAIN_APPROX_NONE, "SIMPLE": cv2.CHAIN_APPROX_SIMPLE, "TC89_L1": cv2.CHAIN_APPROX_TC89_L1,
           "TC89_KCOS": cv2.CHAIN_APPROX_TC89_KCOS}


def _settings(quick):
    """(frame, mask, mode, method) of the rows: EXTERNAL and TREE with SIMPLE for every mask and
    frame; every mode x method on Otsu masks at 640x480 and 1920x1080."""
    frames = FRAMES[:1] if quick else FRAMES
    out = []
    for size in frames:
        for mask in (MASKS[:1] if quick else MASKS):
            for mode in ("EXTERNAL", "TREE"):
                out.append((size, mask, mode, "SIMPLE"))
        if not quick and size in ((640, 480), (1920, 1080)):
            for mode in MODES:
                for method in METHODS:
                    if (mode, method) not in (("EXTERNAL", "SIMPLE"), ("TREE", "SIMPLE")):
                        out.append((size, "otsu", mode, method))
    return out


def floor_ms(cp, img, lengths, reps=15):
    """(upload, make, free) medians in ms: the part of a numpy-io call no GPU pipeline avoids."""
    flat = np.ascontiguousarray(img).reshape(-1)
    packed_bytes = (flat.size + 7) // 8
    pinned = cp.cuda.alloc_pinned_memory(max(1, flat.size))
    host = np.frombuffer(pinned, np.uint8, max(1, flat.size))
    dev = cp.empty(max(1, flat.size), cp.uint8)
    stream = cp.cuda.get_current_stream()
    workers = max(1, os.cpu_count() or 1)
    pool = ThreadPoolExecutor(workers)

    def send(nbytes):
        cp.cuda.runtime.memcpyAsync(dev.data.ptr, host.ctypes.data, nbytes,
                                    cp.cuda.runtime.memcpyHostToDevice, stream.ptr)
        stream.synchronize()

    def raw():
        host[:flat.size] = flat
        send(flat.size)

    def packed():
        host[:packed_bytes] = np.packbits(flat)
        send(packed_bytes)

    def packed_bands():
        pack_bits_in_bands(flat, host, workers, pool.map)
        send(packed_bytes)

    ways = [raw, packed, packed_bands]
    helpers = _native.helpers()
    if helpers is not None:
        rows = _native.rows_contiguous(img)
        row_bytes = _native.bit_row_bytes(rows.shape[1])

        def c_rows():   # hostcall.c's bit rows (AVX2, up to 4 threads): what findContours sends
            _native.send_bit_rows(helpers, rows, host.ctypes.data, dev.data.ptr, stream.ptr, "floor", "frames.py")
            stream.synchronize()
        if rows.shape[0] * row_bytes <= host.size:
            ways.append(c_rows)
    try:
        up = min(time_host(f, reps, warmup=2)["median"] for f in ways)
    finally:
        pool.shutdown()
    lengths = np.asarray(lengths, np.int64)
    order = np.argsort(lengths, kind="stable")
    sorted_len = lengths[order]
    points = np.zeros((int(lengths.sum()), 2), np.int32)
    bounds = np.concatenate(([0], np.flatnonzero(sorted_len[1:] != sorted_len[:-1]) + 1, [len(lengths)]))
    groups = [(int(sorted_len[a]), int(b - a)) for a, b in zip(bounds[:-1], bounds[1:])]
    make, free = [], []
    for _ in range(reps):
        t0 = time.perf_counter()
        out, pos = [], 0
        for length, count in groups:
            out.extend(points[pos:pos + length * count].reshape(count, length, 1, 2))
            pos += length * count
        t1 = time.perf_counter()
        del out
        t2 = time.perf_counter()
        make.append((t1 - t0) * 1e3)
        free.append((t2 - t1) * 1e3)
    return up, statistics.median(make), statistics.median(free)


def bench_frames(quick=False, progress=None):
    import cvgpu
    cp = _backend.cupy_module()
    work = _settings(quick)
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    masks = {}
    rows = []
    for size, mask, mode_name, method_name in work:
        label = "%dx%d %s %s %s" % (size[0], size[1], mask, mode_name, method_name)
        progress("frames: " + label)
        mode, method = MODES[mode_name], METHODS[method_name]
        per = []
        for photo in PHOTOS:
            key = (photo, size, mask)
            if key not in masks:
                masks[key] = frame_mask(photo, size, mask)
            img = masks[key]
            if img is None:
                continue
            ref = cv2.findContours(img, mode, method)
            t_cv = time_host(lambda: cv2.findContours(img, mode, method), 3 if quick else 9, warmup=1)
            entry = {"photo": photo, "cv2": t_cv["median"], "contours": len(ref[0])}
            if cp is not None:
                ours = cvgpu.findContours(img, mode, method)
                entry["exact"] = len(ours[0]) == len(ref[0]) and all(
                    a.shape == b.shape and a.tobytes() == b.tobytes() for a, b in zip(ours[0], ref[0])) and (
                    (ours[1] is None) == (ref[1] is None)) and (ours[1] is None or ours[1].tobytes() == ref[1].tobytes())
                entry["cvgpu"] = time_host(lambda: cvgpu.findContours(img, mode, method), 5 if quick else 15,
                                           warmup=2)["median"]
                d_img = cp.asarray(img)
                entry["packed"] = time_device(cp, lambda: cvgpu.findContoursPacked(d_img, mode, method),
                                              5 if quick else 15, warmup=2)["median"]
                up, make, free = floor_ms(cp, img, [len(c) for c in ref[0]], 5 if quick else 15)
                entry.update(upload=up, make=make, free=free, floor=up + make + free)
            per.append(entry)
        if not per:
            continue
        cv2_med = statistics.median(e["cv2"] for e in per)
        base = dict(family="contours-frames", function="findContours", workload="frames " + label,
                    width=size[0], height=size[1], mask=mask, mode=mode_name, method=method_name,
                    contours=int(statistics.median(e["contours"] for e in per)), photos=[e["photo"] for e in per])
        cv2_t = {"median": cv2_med, "p10": min(e["cv2"] for e in per), "p90": max(e["cv2"] for e in per),
                 "reps": len(per)}
        if cp is None:
            rows.append(timing_row(base, cv2_t))
            continue
        speedups = [e["cv2"] / e["cvgpu"] for e in per]
        t = summarize([e["cvgpu"] for e in per])
        t["median"] = statistics.median(e["cvgpu"] for e in per)
        row = timing_row(base, cv2_t, t, "numpy", all(e["exact"] for e in per),
                         speedup_median=statistics.median(speedups), speedup_min=min(speedups),
                         floor_ms=statistics.median(e["floor"] for e in per),
                         upload_ms=statistics.median(e["upload"] for e in per),
                         over_floor_max=max(e["cvgpu"] / e["floor"] for e in per),
                         packed_ms=statistics.median(e["packed"] for e in per),
                         packed_speedup_min=min(e["cv2"] / e["packed"] for e in per))
        row["speedup"] = row["speedup_median"]
        rows.append(row)
    return rows
