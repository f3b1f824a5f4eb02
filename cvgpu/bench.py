"""``python -m cvgpu bench``: cvgpu against cv2 in the same run, on built-in images.

cv2 is timed with the host clock (it is synchronous). cvgpu, after a warm-up: numpy in/out with the
host clock (upload, compute, the one sync and download included: what a numpy caller waits), device
in/out with CUDA events on the current stream (calls shorter than BATCH_MS in back-to-back batches
between one pair of events, see time_device). Every row gives the median and the 10th/90th
percentiles over its repetitions. Without a GPU only cv2 runs, and the header says so.

Families: every entry of ``FAMILIES`` names a module and a function returning rows (dicts with keys
function, workload, cv2_ms, cvgpu_ms, speedup, io, exact and optionally reference_ms, points, side,
contours, the ``*_p10``/``*_p90`` spreads). Modules are imported lazily; a family whose module or
function does not exist in this build is skipped, so a new family is one line in ``FAMILIES``.
"""
import argparse
import datetime
import importlib
import inspect
import json
import math
import os
import platform
import sys
import time
import traceback

import cv2
import numpy as np

from . import _backend

THETA = math.pi / 180


# ---------------------------------------------------------------- registry

class Family:
    """One benchmark family: ``module.function(quick=..., [variants=...], [progress=...])`` -> rows."""

    def __init__(self, name, module, function="bench_rows", description=""):
        self.name, self.module, self.function, self.description = name, module, function, description

    def load(self):
        """The row function, or (None, why) when this build has no such family."""
        try:
            mod = importlib.import_module(self.module)
        except ModuleNotFoundError as exc:
            if exc.name and (self.module == exc.name or self.module.startswith(exc.name + ".")):
                return None, "module %s is not in this build" % self.module
            raise
        fn = getattr(mod, self.function, None)
        if fn is None:
            return None, "%s has no %s()" % (self.module, self.function)
        return fn, None


FAMILIES = {}


def register(name, module, function="bench_rows", description=""):
    """Add a family (a module's ``bench_rows(quick=False)``); ``--only NAME`` then selects it."""
    FAMILIES[name] = Family(name, module, function, description)


register("hough", "cvgpu.bench", "bench_hough", "HoughLines: edge-point and resolution sweeps, photographs")
register("cuda", "cvgpu.bench", "bench_cuda_hough", "cuda.HoughLinesDetector vs OpenCV-CUDA's figures")
register("radon", "cvgpu.bench", "bench_radon", "ximgproc.RadonTransform")
register("contours", "cvgpu.contours", "bench_rows", "findContours")
register("lms", "cvgpu.lms", "bench_rows", "LMS line fitting / Hough refinement")
register("contours-huge", "cvgpu.contours", "huge_bench_rows", "findContours on a 20000 x 20000 sparse image")
register("contours-labels", "cvgpu.contours", "labels_bench_rows", "findContours on CV_32SC1 label images")
register("linkruns", "cvgpu.contours", "linkruns_bench_rows", "findContoursLinkRuns")


def _call_family(fn, quick, variants, progress):
    params = inspect.signature(fn).parameters
    kwargs = {}
    if "quick" in params:
        kwargs["quick"] = quick
    if "variants" in params:
        kwargs["variants"] = variants
    if "progress" in params:
        kwargs["progress"] = progress
    return list(fn(**kwargs) or [])


# ---------------------------------------------------------------- progress

class Progress:
    """tqdm on a terminal when importable, else one stderr line per step. Families that take a ``progress``
    argument call ``progress.expect(n)`` once and ``progress(label)`` per workload; others count as
    one step."""

    def __init__(self, total, enabled=True, stream=None):
        self.total, self.done, self.stream, self.enabled = total, 0, stream or sys.stderr, enabled
        self._bar, self._pending = None, False
        if enabled:
            tqdm = None
            try:
                if self.stream.isatty():  # in a log file, one line per step reads better than \r updates
                    from tqdm import tqdm
            except Exception:
                tqdm = None
            if tqdm is not None:
                self._bar = tqdm(total=total, file=self.stream, unit="workload", leave=False,
                                 bar_format="{l_bar}{bar:20}| {n_fmt}/{total_fmt} [{elapsed}<{remaining}]")

    def expect(self, n):
        """The current family has n steps instead of the one reserved for it."""
        self.total += max(0, n - 1)
        if self._bar is not None:
            self._bar.total = self.total
            self._bar.refresh()

    def __call__(self, label):
        """Step ``label`` starts (the previous one is done)."""
        self.done += 1
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.set_description_str(label[:48], refresh=False)
            if self._pending:
                self._bar.update(1)
            else:
                self._bar.refresh()
            self._pending = True
        else:
            print("[%d/%d] %s" % (self.done, self.total, label), file=self.stream, flush=True)

    def close(self):
        if self._bar is not None:
            if self._pending:
                self._bar.update(1)
            self._bar.close()


# ---------------------------------------------------------------- timing

def summarize(times):
    """Median and 10th/90th percentiles (ms) of a list of repetitions."""
    t = np.asarray(times, dtype=np.float64)
    return {"median": float(np.median(t)), "p10": float(np.percentile(t, 10)),
            "p90": float(np.percentile(t, 90)), "reps": int(t.size)}


def time_host(fn, reps, warmup=1):
    """Host-clock repetitions of a synchronous call (cv2, or cvgpu with numpy in/out)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return summarize(times)


# A repetition of time_device lasts at least this long: shorter calls are timed in batches.
BATCH_MS = 0.5
_MAX_BATCH = 64


def time_device(cp, fn, reps, warmup=3, batch=None):
    """CUDA-event repetitions on the current stream (device-resident in/out): ``reps`` medians-ready
    times per call. A call shorter than BATCH_MS is repeated back to back between one pair of events
    and the time divided by the batch (``batch`` in the result): each call still waits for its own
    result, but the end event's submission is paid once per batch. Recorded after every single call
    that ends in a host sync, that submission adds the event's launch latency to the call (measured
    on the H100 host, HoughLines 1024^2 / 164k points device-resident, one run: 45.9 us per call with
    events around each call, 44.4 in batches). ``batch=1``: events around every call."""
    for _ in range(warmup):
        fn()
    stream = cp.cuda.get_current_stream()
    stream.synchronize()
    if batch is None:
        t0 = time.perf_counter()
        fn()
        stream.synchronize()
        once_ms = (time.perf_counter() - t0) * 1e3
        batch = max(1, min(_MAX_BATCH, int(BATCH_MS / max(once_ms, 1e-6))))
    times = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(reps):
        start.record(stream)
        for _ in range(batch):
            fn()
        end.record(stream)
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / batch)
    result = summarize(times)
    result["batch"] = batch
    return result


def timing_row(base, cv2_t=None, cvgpu_t=None, io="numpy", exact=None, **extra):
    """A table row from two ``summarize`` results (either may be None)."""
    row = dict(base)
    for key, t in (("cv2", cv2_t), ("cvgpu", cvgpu_t)):
        row["%s_ms" % key] = None if t is None else t["median"]
        row["%s_p10" % key] = None if t is None else t["p10"]
        row["%s_p90" % key] = None if t is None else t["p90"]
        row["%s_reps" % key] = None if t is None else t["reps"]
    if cvgpu_t is not None and "batch" in cvgpu_t:
        row["cvgpu_batch"] = cvgpu_t["batch"]  # calls per CUDA-event pair (time_device)
    row["speedup"] = (row["cv2_ms"] / row["cvgpu_ms"]) if row["cv2_ms"] and row["cvgpu_ms"] else None
    row["io"], row["exact"] = io, exact
    row.update(extra)
    return row


def _same(a, b):
    if a is None or b is None:
        return a is None and b is None
    a = a.get() if not isinstance(a, np.ndarray) else a
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()


# ---------------------------------------------------------------- Hough workloads

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


PHOTOS = ("camera", "astronaut", "coffee", "page")


def photograph(name):
    """Canny edges of one of scikit-image's bundled photographs (None without scikit-image)."""
    try:
        from skimage import color, data
        img = getattr(data, name)()
    except Exception:
        return None
    if img.ndim == 3:
        img = (color.rgb2gray(img) * 255).astype(np.uint8)
    return "photo %s %dx%d Canny" % (name, img.shape[1], img.shape[0]), cv2.Canny(img, 50, 150)


def hough_workloads(quick=False):
    """(name, build) pairs, built lazily; ``sweep``: "points" (1024^2) or "resolution" (82k points)."""
    out = []
    counts = (10_000, 20_000, 41_000, 82_000, 164_000)
    for n in counts[:2] if quick else counts:
        out.append(("segments 1024x1024 %dk pts" % (n // 1000), lambda n=n: segments(1024, 1024, n)))
    for side in ((512,) if quick else (512, 2048, 4096, 8192)):
        out.append(("segments %dx%d 82k pts" % (side, side), lambda s=side: segments(s, s, 82_000)))
    for name in PHOTOS[:1] if quick else PHOTOS:
        out.append((None, lambda n=name: photograph(n)))
    return out


def bench_hough(quick=False, variants=False, threshold=400, progress=None):
    import cvgpu
    from . import hough
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
            rho32, theta32 = np.float32(1), np.float32(THETA)
            numangle, numrho = hough.accumulator_size(img.shape[0], img.shape[1], rho32, theta32, 0.0, math.pi)
            for variant in ("shared", "global"):
                fn = lambda v=variant: hough._gpu_lines(cp, d_img, numangle, numrho, rho32, theta32, 0.0,
                                                        threshold, False, False, False, force_variant=v)
                t_v = time_device(cp, fn, 30)
                results.append(timing_row(dict(base, function="HoughLines[vote-%s]" % variant), cv2_t, t_v,
                                          "device", None))
    return results


def bench_cuda_hough(quick=False, progress=None):
    """cvgpu.cuda.HoughLinesDetector (detect + downloadResults on a device-resident GpuMat) on the
    spec's workloads, beside OpenCV-CUDA's own kernels (their recorded H100 times)."""
    cp = _backend.cupy_module()
    if cp is None:
        return []
    from .cuda import GpuMat, createHoughLinesDetector
    _bench = importlib.import_module("cvgpu.cuda._bench")
    sizes = list(_bench.REFERENCE_MS)[:2] if quick else list(_bench.REFERENCE_MS)
    progress = progress or (lambda label: None)
    if hasattr(progress, "expect"):
        progress.expect(len(sizes))
    rows = []
    for side, points in sizes:
        progress("cuda: %dx%d %d pts" % (side, side, points))
        img = _bench.segments_image(side, points)
        det = createHoughLinesDetector(_bench.RHO, _bench.THETA, _bench.THRESHOLD)
        d_img = GpuMat(img)
        t = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 50 if quick else 200, warmup=20)
        t_one = time_device(cp, lambda: det.downloadResults(det.detect(d_img)), 50, warmup=0, batch=1)
        cv2_t = time_host(lambda: cv2.HoughLines(img, _bench.RHO, _bench.THETA, _bench.THRESHOLD),
                          7 if quick else 20)
        base = dict(family="cuda", function="cuda.HoughLinesDetector",
                    workload="%dx%d horizontal segments, %d pts" % (side, side, points), points=points,
                    width=side, height=side, reference_ms=_bench.REFERENCE_MS.get((side, points)))
        rows.append(timing_row(base, cv2_t, t, "device", None, single_call_ms=t_one["median"]))
    return rows


def bench_radon(quick=False, progress=None):
    if _backend.cupy_module() is None and not hasattr(cv2, "ximgproc"):
        return []  # neither side can run: cv2 here has no contrib modules, and there is no GPU
    from . import radon
    params = inspect.signature(radon.bench_rows).parameters
    if "quick" in params:
        rows = radon.bench_rows(quick=quick)
    else:
        sizes = (512,) if quick else (512, 1024, 2048)
        rows = radon.bench_rows(sizes=sizes, steps=(1.0,) if quick else (1.0, 0.25), reps=7,
                                 cv2_reps=1 if quick else 3)
    out, checked = [], {}
    for r in rows:
        r = dict(r)
        r.setdefault("family", "radon")
        if r.get("exact") is None:
            r["exact"] = _radon_exact(r.get("workload", ""), checked)
        out.append(r)
    return out


def _radon_exact(workload, checked):
    """cvgpu's RadonTransform == cv2.ximgproc's on a random image of the row's size and angle step
    (None without a GPU, without cv2.ximgproc, or when the workload text does not say)."""
    import re
    m = re.match(r"(\d+)x(\d+) uint8, \d+ angles \(([\d.]+) deg steps\)", workload)
    if m is None or _backend.cupy_module() is None or not hasattr(cv2, "ximgproc"):
        return None
    key = (int(m.group(1)), int(m.group(2)), float(m.group(3)))
    if key not in checked:
        from .radon import RadonTransform
        img = np.random.default_rng(1).integers(0, 256, key[:2][::-1], dtype=np.uint8)
        ref = cv2.ximgproc.RadonTransform(img.copy(), None, key[2], 0.0, 180.0)  # cv2 may transpose src
        checked[key] = _same(RadonTransform(img, theta=key[2]), ref)
    return checked[key]


# ---------------------------------------------------------------- environment and table

def environment():
    """What the numbers were measured on (the table header and report.md)."""
    import cvgpu
    env = {"generated": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
           "cv2_version": cv2.__version__, "cv2_threads": cv2.getNumThreads(), "cpu_count": os.cpu_count(),
           "cpu": platform.processor() or platform.machine(), "python": platform.python_version(),
           "numpy_version": np.__version__, "cvgpu_version": cvgpu.cvgpu_version, "gpu": None,
           "cupy_version": None, "backend": _backend.backend(), "no_gpu_reason": None}
    cp = _backend.cupy_module()
    if cp is None:
        env["no_gpu_reason"] = _backend.fallback_reason()
    else:
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        env["gpu"] = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
        env["cupy_version"] = cp.__version__
        try:
            v = cp.cuda.runtime.runtimeGetVersion()
            env["cuda_runtime"] = "%d.%d" % (v // 1000, v % 1000 // 10)
        except Exception:
            pass
    return env


def header_lines(env):
    if env.get("gpu"):
        first = "GPU: %s (CuPy %s%s)" % (env["gpu"], env["cupy_version"],
                                         ", CUDA %s" % env["cuda_runtime"] if env.get("cuda_runtime") else "")
    else:
        first = "No usable GPU (%s): cv2 timings only." % env.get("no_gpu_reason")
    return [first, "cv2 %s, %s threads | %s CPUs | cvgpu %s | numpy %s | Python %s" % (
        env["cv2_version"], env["cv2_threads"], env["cpu_count"], env["cvgpu_version"], env["numpy_version"],
        env["python"])]


def fmt_ms(v, p10=None, p90=None, digits=3):
    if v is None:
        return "-"
    s = "%.*f" % (digits, v)
    if p10 is not None and p90 is not None:
        s += " [%.*f-%.*f]" % (digits, p10, digits, p90)
    return s


def exact_text(v):
    return {True: "yes", False: "NO", None: "-"}.get(v, "-")


def table_cells(r):
    return [r["workload"], r["function"], r["io"],
            fmt_ms(r.get("cv2_ms"), r.get("cv2_p10"), r.get("cv2_p90"), 3),
            fmt_ms(r.get("cvgpu_ms"), r.get("cvgpu_p10"), r.get("cvgpu_p90"), 4),
            "-" if r.get("speedup") is None else "%.1fx" % r["speedup"], exact_text(r.get("exact")),
            fmt_ms(r.get("reference_ms"))]


COLUMNS = ["workload", "function", "io", "cv2 ms [p10-p90]", "cvgpu ms [p10-p90]", "speedup", "exact",
           "ocv-cuda ms"]
FOOTNOTE = ("speedup: cv2 median / cvgpu median, cv2 timed in this run (host clock); cvgpu numpy io: host "
            "clock, device io: CUDA events (calls under %g ms in back-to-back batches between two events, "
            "per call). exact: every output equal to cv2's, bit for bit ('-': not compared). ocv-cuda: "
            "OpenCV's own CUDA kernels on an H100 (recorded figures), cuda.* rows." % BATCH_MS)


def print_table(rows, env=None, notes=(), out=None):
    out = out or sys.stdout
    env = env or environment()
    for line in header_lines(env):
        print(line, file=out)
    cells = [table_cells(r) for r in rows]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(COLUMNS)]
    widths[0] = min(widths[0], 44)
    line = "  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths))
    print(line, file=out)
    print("-" * len(line), file=out)
    for row in cells:
        print("  ".join(c[:w].ljust(w) for c, w in zip(row, widths)).rstrip(), file=out)
    if not rows:
        print("(no rows)", file=out)
    print(FOOTNOTE, file=out)
    for note in notes:
        print("note: " + note, file=out)


# ---------------------------------------------------------------- command line

def build_parser():
    parser = argparse.ArgumentParser(prog="cvgpu bench", description="Time cvgpu against cv2 in the same run on "
                                     "built-in images and photographs; cv2 alone where there is no GPU.")
    parser.add_argument("--quick", action="store_true", help="a few small workloads (under a minute on a CPU)")
    parser.add_argument("--variants", action="store_true", help="also time each Hough voting variant")
    parser.add_argument("--json", metavar="PATH", help="write the rows as a JSON list")
    parser.add_argument("--only", metavar="FAMILY", action="append", choices=list(FAMILIES),
                        help="run only this family (repeatable): %s" % ", ".join(FAMILIES))
    parser.add_argument("--report", metavar="DIR", help="write DIR/report.md with the table and PNG plots")
    parser.add_argument("--from-json", metavar="PATH",
                        help="do not run: re-render the table/report from a saved --json or DIR/bench.json")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    return parser


def run_families(names, quick=False, variants=False, show_progress=True):
    """(rows, notes, failed families) of the named families, in registry order. A family that raises
    is reported (traceback on stderr) and the others still run."""
    rows, notes, failed = [], [], []
    progress = Progress(len(names), enabled=show_progress)
    try:
        for name in names:
            family = FAMILIES[name]
            fn, why = family.load()
            if fn is None:
                notes.append("%s skipped: %s" % (name, why))
                progress("%s: skipped" % name)
                continue
            before = progress.done
            try:
                got = _call_family(fn, quick, variants, progress)
            except Exception as exc:
                traceback.print_exc()
                notes.append("%s failed: %s: %s" % (name, type(exc).__name__, exc))
                failed.append(name)
                got = []
            if progress.done == before:
                progress(name)
            for r in got:
                r = dict(r)
                r.setdefault("family", name)
                for key in ("cv2_ms", "cvgpu_ms", "speedup", "exact", "reference_ms"):
                    r.setdefault(key, None)
                r.setdefault("io", "numpy")
                if r["speedup"] is None and r["cv2_ms"] and r["cvgpu_ms"]:
                    r["speedup"] = r["cv2_ms"] / r["cvgpu_ms"]
                rows.append(r)
    finally:
        progress.close()
    return rows, notes, failed


def main(argv=None):
    args = build_parser().parse_args(argv)
    failed = []
    if args.from_json:
        with open(args.from_json) as fh:
            saved = json.load(fh)
        if isinstance(saved, dict):
            rows, env, notes = saved["rows"], saved.get("environment") or environment(), saved.get("notes", [])
        else:
            rows, env, notes = saved, environment(), ["environment: of the machine re-rendering, not of the run"]
    else:
        env = environment()
        names = [n for n in FAMILIES if not args.only or n in args.only]
        rows, notes, failed = run_families(names, quick=args.quick, variants=args.variants,
                                   show_progress=not args.no_progress)
        if env["gpu"] is None:
            notes.insert(0, "no GPU: only cv2 ran; cvgpu columns are empty")
    print_table(rows, env, notes)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(rows, fh, indent=1)
    if args.report:
        report = importlib.import_module("cvgpu.report")
        written = report.write_report(args.report, rows, env, notes, command="cvgpu bench " + " ".join(
            argv if argv is not None else sys.argv[2:]))
        print("report: %s" % written["markdown"])
        for warning in written["warnings"]:
            print("report: " + warning)
    return 0 if all(r.get("exact") in (True, None) for r in rows) and not failed else 1
