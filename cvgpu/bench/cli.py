"""The ``cvgpu bench`` command line and the family registry."""
import argparse
import importlib
import inspect
import json
import sys
import traceback

import cv2

from .table import environment, print_table


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
        if self.name == "linkruns" and not hasattr(cv2, "findContoursLinkRuns"):
            return None, "cv2 %s has no findContoursLinkRuns (OpenCV 4.10 and newer)" % cv2.__version__
        return fn, None


FAMILIES = {}


def register(name, module, function="bench_rows", description=""):
    """Add a family (a module's ``bench_rows(quick=False)``); ``--only NAME`` then selects it."""
    FAMILIES[name] = Family(name, module, function, description)


register("hough", "cvgpu.bench.hough", "bench_hough", "HoughLines: edge-point and resolution sweeps, photographs")
register("cuda", "cvgpu.bench.cuda", "bench_cuda_hough", "cuda.HoughLinesDetector vs OpenCV-CUDA's figures")
register("radon", "cvgpu.bench.radon", "bench_radon", "ximgproc.RadonTransform")
register("contours", "cvgpu.bench.contours", "bench_rows", "findContours")
register("lms", "cvgpu.bench.lms", "bench_rows", "LMS line fitting / Hough refinement")
register("contours-huge", "cvgpu.bench.contours", "huge_bench_rows", "findContours on a 20000 x 20000 sparse image")
register("contours-labels", "cvgpu.bench.contours", "labels_bench_rows", "findContours on CV_32SC1 label images")
register("linkruns", "cvgpu.bench.contours", "linkruns_bench_rows", "findContoursLinkRuns")
register("contours-frames", "cvgpu.bench.frames", "bench_frames",
         "findContours on camera frames (photographs' masks, 640x480 to 3840x2160), with the floor")
register("threads", "cvgpu.bench.threads", "bench_threads", "frames/s from 1 and 8 host threads, cv2 beside")
register("hough-p", "cvgpu.bench.hough_p", "bench_hough_p",
         "HoughLinesP: photographs' Canny edges 640x480 to 3840x2160, 1024x1024 segments")
register("cuda-segments", "cvgpu.bench.cuda", "bench_cuda_segments",
         "cuda.HoughSegmentDetector vs OpenCV-CUDA's kernels (harness_seg), photographs 640x480 to 3840x2160")


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
    parser.add_argument("--engine", choices=("cuda", "auto"), default="cuda",
                        help="cvgpu's engine for the timed calls: cuda (default: the GPU path, every call) or "
                        "auto (the per-call choice a user gets)")
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
    from .. import _engine
    _engine.set_engine(args.engine)
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
        if env["gpu"] is None:
            # Said first, before minutes of cv2 timings.
            print("No usable GPU (%s): cvgpu bench times cv2 only; cvgpu's columns stay empty."
                  % env.get("no_gpu_reason"), flush=True)
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
        report = importlib.import_module("cvgpu.bench.report")
        written = report.write_report(args.report, rows, env, notes, command="cvgpu bench " + " ".join(
            argv if argv is not None else sys.argv[2:]))
        print("report: %s" % written["markdown"])
        for warning in written["warnings"]:
            print("report: " + warning)
    return 0 if all(r.get("exact") in (True, None) for r in rows) and not failed else 1
