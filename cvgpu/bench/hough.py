"""Benchmark rows of HoughLines (edge-point and resolution sweeps, photographs).

``variants``: also a row per voting variant, "HoughLines[vote-shared]" and "[vote-global]", the
public call on the device array under cvgpu.hough.TUNING.override(vote=...)."""
import cv2
import numpy as np

from .. import _backend
from ._timing import same as _same, time_device, time_host, timing_row
from .workloads import THETA, hough_workloads


def bench_hough(quick=False, variants=False, threshold=400, progress=None):
    import cvgpu
    from ..hough import TUNING
    cp = _backend.cupy_module()
    progress = progress or (lambda label: None)
    work = hough_workloads(quick)
    if hasattr(progress, "expect"):
        progress.expect(len(work))
    results = []
    for name, build in work:
        built = build()
        if name is None:  # a photograph
            if built is None:
                progress("hough: (scikit-image missing)")
                continue
            name, img = built
        else:
            img = built
        progress("hough: " + name)
        reps_cv2 = 3 if img.size >= 4096 * 4096 else 7
        ref = cv2.HoughLines(img, 1, THETA, threshold)
        cv2_t = time_host(lambda: cv2.HoughLines(img, 1, THETA, threshold), reps_cv2, warmup=0)
        base = dict(family="hough", function="HoughLines", workload=name, points=int(np.count_nonzero(img)),
                    width=int(img.shape[1]), height=int(img.shape[0]),
                    lines=0 if ref is None else int(ref.shape[0]))
        if cp is None:
            results.append(timing_row(base, cv2_t, None, "numpy", None))
            continue
        exact = _same(cvgpu.HoughLines(img, 1, THETA, threshold), ref)
        t = time_host(lambda: cvgpu.HoughLines(img, 1, THETA, threshold), 20, warmup=3)
        results.append(timing_row(base, cv2_t, t, "numpy", exact))
        d_img = cp.asarray(img)
        exact_d = _same(cvgpu.HoughLines(d_img, 1, THETA, threshold), ref)
        t_d = time_device(cp, lambda: cvgpu.HoughLines(d_img, 1, THETA, threshold), 50)
        t_one = time_device(cp, lambda: cvgpu.HoughLines(d_img, 1, THETA, threshold), 50, warmup=0, batch=1)
        results.append(timing_row(base, cv2_t, t_d, "device", exact_d, single_call_ms=t_one["median"]))
        if variants:
            for variant in ("shared", "global"):
                with TUNING.override(vote=variant):
                    exact_v = _same(cvgpu.HoughLines(d_img, 1, THETA, threshold), ref)
                    t_v = time_device(cp, lambda: cvgpu.HoughLines(d_img, 1, THETA, threshold), 30)
                results.append(timing_row(dict(base, function="HoughLines[vote-%s]" % variant), cv2_t, t_v,
                                          "device", exact_v))
    return results
