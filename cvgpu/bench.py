"""``python -m cvgpu bench``: cvgpu against cv2 in the same run, on built-in images.

cv2 is timed with the host clock (it is synchronous); cvgpu with CUDA events on the current stream
after a warm-up, numpy in/out (upload, compute, the one sync, download included) and, where the
input already lives on the GPU, device in/out. Medians over repetitions. Without a GPU only cv2 runs,
and the table says so.
"""
import argparse
import json
import math
import statistics
import sys
import time

import cv2
import numpy as np

from . import _backend

THETA = math.pi / 180


def segments(h, w, n_points, seed=0):
    """The seed study's Hough workload: horizontal 1-px segments totalling n_points edge pixels."""
    img = np.zeros((h, w), np.uint8)
    seg = min(w, 64)
    rng = np.random.default_rng(seed)
    placed = 0
    while placed < n_points:
        y = rng.integers(0, h, 4096)
        x = rng.integers(0, w - seg + 1, 4096)
        for yy, xx in zip(y, x):
            row = img[yy, xx:xx + seg]
            placed += seg - int(np.count_nonzero(row))
            row[:] = 255
            if placed >= n_points:
                break
    return img


def photographs():
    """Canny edges of scikit-image's bundled photographs, when scikit-image is installed."""
    try:
        from skimage import color, data
    except Exception:
        return []
    out = []
    for name in ("camera", "astronaut", "coffee", "page"):
        try:
            img = getattr(data, name)()
        except Exception:
            continue
        if img.ndim == 3:
            img = (color.rgb2gray(img) * 255).astype(np.uint8)
        out.append(("photo %s %dx%d Canny" % (name, img.shape[1], img.shape[0]), cv2.Canny(img, 50, 150)))
    return out


def hough_workloads(quick=False):
    rows = []
    counts = (10_000, 20_000, 41_000, 82_000, 164_000)
    for n in counts[:2] if quick else counts:
        rows.append(("segments 1024x1024 %dk pts" % (n // 1000), segments(1024, 1024, n)))
    for side in ((512,) if quick else (512, 2048, 4096, 8192)):
        rows.append(("segments %dx%d 82k pts" % (side, side), segments(side, side, 82_000)))
    rows.extend(photographs()[: 1 if quick else None])
    return rows


def _median_host_ms(fn, reps):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def _median_event_ms(cp, fn, reps, warmup=3):
    for _ in range(warmup):
        fn()
    cp.cuda.get_current_stream().synchronize()
    times = []
    for _ in range(reps):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    a = a.get() if not isinstance(a, np.ndarray) else a
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


def bench_hough(quick=False, variants=False, threshold=400):
    import cvgpu
    from . import hough
    cp = _backend.cupy_module()
    results = []
    for name, img in hough_workloads(quick):
        reps_cv2 = 3 if img.size >= 4096 * 4096 else 7
        ref = cv2.HoughLines(img, 1, THETA, threshold)
        cv2_ms = _median_host_ms(lambda: cv2.HoughLines(img, 1, THETA, threshold), reps_cv2)
        row = dict(function="HoughLines", workload=name, points=int(np.count_nonzero(img)), cv2_ms=cv2_ms)
        if cp is None:
            results.append(dict(row, cvgpu_ms=None, speedup=None, io="numpy", exact=None))
            continue
        ours = cvgpu.HoughLines(img, 1, THETA, threshold)
        exact = _same(ours, ref)
        ms = _median_event_ms(cp, lambda: cvgpu.HoughLines(img, 1, THETA, threshold), 20)
        results.append(dict(row, cvgpu_ms=ms, speedup=cv2_ms / ms, io="numpy", exact=exact))
        d_img = cp.asarray(img)
        exact_d = _same(cvgpu.HoughLines(d_img, 1, THETA, threshold), ref)
        ms_d = _median_event_ms(cp, lambda: cvgpu.HoughLines(d_img, 1, THETA, threshold), 50)
        results.append(dict(row, cvgpu_ms=ms_d, speedup=cv2_ms / ms_d, io="device", exact=exact_d))
        if variants:
            rho32, theta32 = np.float32(1), np.float32(THETA)
            numangle, numrho = hough.accumulator_size(img.shape[0], img.shape[1], rho32, theta32, 0.0, math.pi)
            for variant in ("shared", "global"):
                fn = lambda v=variant: hough._gpu_lines(cp, d_img, numangle, numrho, rho32, theta32, 0.0,
                                                        threshold, False, False, False, force_variant=v)
                ms_v = _median_event_ms(cp, fn, 30)
                results.append(dict(row, function="HoughLines[vote-%s]" % variant, cvgpu_ms=ms_v,
                                    speedup=cv2_ms / ms_v, io="device", exact=None))
    return results


def bench_cuda_hough(quick=False):
    """cvgpu.cuda.HoughLinesDetector against OpenCV-CUDA's own kernels (their recorded H100 times)."""
    if _backend.cupy_module() is None:
        return []
    from .cuda import _bench
    sizes = list(_bench.REFERENCE_MS)[:2] if quick else None
    rows = []
    for r in _bench.bench_rows(repeats=50 if quick else 200, sizes=sizes):
        rows.append(dict(function="cuda.HoughLinesDetector", workload=r["workload"].split(",")[0],
                         cv2_ms=r["cv2_ms"], cvgpu_ms=r["cvgpu_ms"], speedup=r["speedup_vs_cv2"],
                         reference_ms=r["reference_ms"], io="device", exact=None))
    return rows


def bench_radon(quick=False):
    from .radon import bench_rows
    sizes = (512,) if quick else (512, 1024, 2048)
    rows = bench_rows(sizes=sizes, steps=(1.0,) if quick else (1.0, 0.25), reps=5, cv2_reps=1 if not quick else 1)
    return [dict(r, exact=None) for r in rows]


def print_table(rows, out=sys.stdout):
    cp = _backend.cupy_module()
    if cp is None:
        print("No usable GPU (%s): cv2 timings only." % _backend.fallback_reason(), file=out)
    else:
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        print("GPU: %s | cv2 %s, %d threads" % (props["name"].decode(), cv2.__version__, cv2.getNumThreads()),
              file=out)
    header = "%-40s %-24s %7s %10s %10s %9s %6s %9s" % ("workload", "function", "io", "cv2 ms", "cvgpu ms",
                                                         "speedup", "exact", "ocv-cuda")
    print(header, file=out)
    print("-" * len(header), file=out)
    for r in rows:
        fmt = lambda v, f: "-" if v is None else f % v
        print("%-40s %-24s %7s %10s %10s %9s %6s %9s" % (
            r["workload"][:40], r["function"], r["io"], fmt(r["cv2_ms"], "%.3f"), fmt(r["cvgpu_ms"], "%.4f"),
            fmt(r["speedup"], "%.1fx"), {True: "yes", False: "NO", None: "-"}[r["exact"]],
            fmt(r.get("reference_ms"), "%.3f")), file=out)
    print("speedup: cv2 ms / cvgpu ms, cv2 timed in this run. ocv-cuda: OpenCV's own CUDA kernels on an "
          "H100 (recorded figures), for the cuda.* rows.", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="cvgpu bench", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few small workloads")
    parser.add_argument("--variants", action="store_true", help="also time each voting variant")
    parser.add_argument("--json", metavar="PATH", help="write the rows as JSON")
    parser.add_argument("--only", choices=("hough", "cuda", "radon"), help="one family")
    args = parser.parse_args(argv)
    rows = []
    if args.only in (None, "hough"):
        rows += bench_hough(quick=args.quick, variants=args.variants)
    if args.only in (None, "cuda"):
        rows += bench_cuda_hough(quick=args.quick)
    if args.only in (None, "radon") and (hasattr(cv2, "ximgproc") or _backend.cupy_module() is not None):
        rows += bench_radon(quick=args.quick)
    print_table(rows)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    return 0 if all(r["exact"] in (True, None) for r in rows) else 1
