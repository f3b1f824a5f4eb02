"""Benchmark rows of HoughLinesP (family "hough-p"): Canny edges of photographs at camera-frame sizes
(640x480 .. 3840x2160; rho 1, theta 1 degree, threshold 50 and 100, minLineLength 50, maxLineGap 10,
the issue's workload) and the seed study's 1024x1024 segment images; cv2 timed in the same run,
numpy io (host clock) and device io (CUDA events). Each row carries the kernel's counters of one call
(exact rounds, fast-forward chunks, permutation rounds, commits, candidates): the time of a call is
about rounds x (a round's grid barriers and votes) + commits x (phase C's per-candidate step), so
the counters say which part bounds a row.

``variants``: rows with the window forced to 1024, 256 and 64 ("HoughLinesP[window-256]"), and with two
blocks per SM ("[blocks-2]"), for tuning cvgpu.hough.probabilistic.TUNING."""
import math

import cv2
import numpy as np

from .. import _backend
from ._timing import same as _same, time_device, time_host, timing_row
from .workloads import FRAMES, frame_edges, segments

THETA = math.pi / 180
PHOTOS = ("camera", "astronaut", "coffee", "page")
MIN_LINE_LENGTH, MAX_LINE_GAP = 50, 10


def hough_p_workloads(quick=False):
    """(name, build) pairs, built lazily (build() -> image or None without scikit-image)."""
    out = []
    for size in FRAMES[:1] if quick else FRAMES:
        for name in PHOTOS[:1] if quick else PHOTOS:
            out.append(("photo %s %dx%d Canny" % ((name,) + size), lambda n=name, s=size: frame_edges(n, s)))
    for n in ((20_000,) if quick else (20_000, 82_000)):
        out.append(("segments 1024x1024 %dk pts" % (n // 1000), lambda n=n: segments(1024, 1024, n)))
    return out


def _counters(cp, img, threshold):
    from ..hough import probabilistic as hp
    stats = {}
    hp.gpu_lines(cp, img, *hp.sizes(img.shape[0], img.shape[1], 1, THETA), threshold, MIN_LINE_LENGTH, MAX_LINE_GAP,
                 stats=stats)
    return stats


def bench_hough_p(quick=False, variants=False, progress=None):
    import cvgpu
    from ..hough.probabilistic import TUNING
    cp = _backend.cupy_module()
    progress = progress or (lambda label: None)
    work = hough_p_workloads(quick)
    thresholds = (50,) if quick else (50, 100)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    results = []
    for name, build in work:
        img = build()
        progress("hough-p: " + name)
        if img is None:
            continue
        for threshold in thresholds:
            def ref_call():
                return cv2.HoughLinesP(img, 1, THETA, threshold, None, MIN_LINE_LENGTH, MAX_LINE_GAP)

            def ours_call(x):
                return cvgpu.HoughLinesP(x, 1, THETA, threshold, None, MIN_LINE_LENGTH, MAX_LINE_GAP)
            ref = ref_call()
            cv2_t = time_host(ref_call, 3 if img.size >= 1920 * 1080 else 7, warmup=0)
            base = dict(family="hough-p", function="HoughLinesP", workload="%s thr %d" % (name, threshold),
                        points=int(np.count_nonzero(img)), width=int(img.shape[1]), height=int(img.shape[0]),
                        lines=0 if ref is None else int(ref.shape[0]))
            if cp is None:
                results.append(timing_row(base, cv2_t, None, "numpy", None))
                continue
            base.update(_counters(cp, img, threshold))
            exact = _same(ours_call(img), ref)
            t = time_host(lambda: ours_call(img), 10, warmup=2)
            results.append(timing_row(base, cv2_t, t, "numpy", exact))
            d_img = cp.asarray(img)
            exact_d = _same(ours_call(d_img), ref)
            t_d = time_device(cp, lambda: ours_call(d_img), 10)
            results.append(timing_row(base, cv2_t, t_d, "device", exact_d))
            if variants:
                for label, values in (("window-1024", dict(window=1024, window_large=1024)),
                                      ("window-512", dict(window=512, window_large=512)),
                                      ("window-256", dict(window=256, window_large=256)),
                                      ("window-64", dict(window=64, window_large=64)),
                                      ("blocks-2", dict(blocks_per_sm=2))):
                    with TUNING.override(**values):
                        exact_v = _same(ours_call(d_img), ref)
                        t_v = time_device(cp, lambda: ours_call(d_img), 5)
                        row = dict(base, function="HoughLinesP[%s]" % label)
                        row.update(_counters(cp, img, threshold))
                    results.append(timing_row(row, cv2_t, t_v, "device", exact_v))
    return results
