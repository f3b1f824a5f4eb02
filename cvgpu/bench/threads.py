"""Throughput from several host threads: frames per second with 1 and 8 threads, cv2 beside.

Servers and video pipelines call from several threads. Each row runs the same list of frames
(Canny edges or Otsu masks of four bundled photographs at one camera-frame size) through one call
per frame, split over T threads, and reports frames per second (wall clock over the whole list,
after each thread's own warm-up calls: _throughput). cvgpu's threads each issue their work on a
stream of their own (``streams="own"``) or all on the default stream (``"default"``); cv2 runs in
the same job.
"""
import contextlib
import threading
import time

import cv2
import numpy as np

from .. import _backend
from .workloads import FRAMES, frame_edges, frame_mask

PHOTOS = ("camera", "coins", "page", "astronaut")
THETA = np.pi / 180


def _calls():
    import cvgpu
    return {
        "HoughLines": (lambda img: cv2.HoughLines(img, 1, THETA, 150), lambda img: cvgpu.HoughLines(img, 1, THETA, 150),
                       lambda name, size: frame_edges(name, size)),
        "findContours": (lambda img: cv2.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
                         lambda img: cvgpu.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
                         lambda name, size: frame_mask(name, size, "otsu")),
    }


WARM_CALLS = 8


def _throughput(fn, frames, threads, cp=None, own_streams=False):
    """Frames per second of ``fn`` over ``frames`` split round-robin over ``threads`` threads, each
    thread warmed first by its own first WARM_CALLS frames (untimed): cvgpu keeps a workspace, plans
    and captured graphs per thread, which a long-lived worker thread makes once, so fresh threads
    would time their making (a pass of a few dozen frames per thread was mostly that)."""
    errors = []
    barrier = threading.Barrier(threads + 1)

    def work(part):
        try:
            stream = cp.cuda.Stream(non_blocking=True) if (cp is not None and own_streams) else None
            with stream if stream is not None else contextlib.nullcontext():
                for img in part[:WARM_CALLS]:
                    fn(img)
                if stream is not None:
                    stream.synchronize()
                barrier.wait()
                for img in part:
                    fn(img)
        except BaseException as exc:  # reported after the join
            errors.append(exc)
            barrier.abort()

    parts = [frames[i::threads] for i in range(threads)]
    pool = [threading.Thread(target=work, args=(p,)) for p in parts]
    for t in pool:
        t.start()
    try:
        barrier.wait()
    except threading.BrokenBarrierError:
        pass
    t0 = time.perf_counter()
    for t in pool:
        t.join()
    seconds = time.perf_counter() - t0
    if errors:
        raise errors[0]
    return len(frames) / seconds


def bench_threads(quick=False, progress=None):
    cp = _backend.cupy_module()
    sizes = FRAMES[:1] if quick else FRAMES[:3]
    calls = _calls()
    work = [(fname, size) for fname in calls for size in sizes]
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    rows = []
    for fname, size in work:
        cv2_fn, ours_fn, make = calls[fname]
        progress("threads: %s %dx%d" % (fname, size[0], size[1]))
        imgs = [make(p, size) for p in PHOTOS]
        imgs = [i for i in imgs if i is not None]
        if not imgs:
            continue
        n = (32 if quick else 256) if size[0] <= 640 else (16 if quick else 96)
        frames = [imgs[i % len(imgs)] for i in range(n)]
        for img in imgs:           # warm-up: plans, graphs, kernels for each image
            cv2_fn(img)
            if cp is not None:
                ours_fn(img)
        base = dict(family="threads", function=fname, width=size[0], height=size[1], io="numpy")
        for threads in (1, 8):
            # The thread count first: the printed table cuts long workload texts.
            row = dict(base, workload="%d thread%s, %dx%d, %d frames" % (threads, "s" if threads > 1 else "", size[0],
                                                                       size[1], n), threads=threads)
            row["cv2_fps"] = _throughput(cv2_fn, frames, threads)
            if cp is not None:
                row["cvgpu_fps"] = _throughput(ours_fn, frames, threads, cp, own_streams=True)
                row["cvgpu_fps_default_stream"] = _throughput(ours_fn, frames, threads, cp, own_streams=False)
            # the table's ms columns: time per frame at this throughput
            row["cv2_ms"] = 1e3 / row["cv2_fps"]
            row["cvgpu_ms"] = 1e3 / row["cvgpu_fps"] if row.get("cvgpu_fps") else None
            row["speedup"] = row["cvgpu_fps"] / row["cv2_fps"] if row.get("cvgpu_fps") else None
            row["exact"] = None
            rows.append(row)
    return rows
