"""``cvgpu compare script.py [args...]``: run an unmodified OpenCV script with cv2, then with cvgpu as cv2.

(This module is ``cvgpu._compare``, not ``cvgpu.compare``: cvgpu forwards unknown names to cv2, and a
submodule named ``compare`` would shadow ``cv2.compare`` for ``import cvgpu as cv2`` users.)

Each run is a fresh ``python`` in the current directory with the script's own arguments, stdin, stdout
and stderr (nothing is captured, so its prints and output files are as usual; the second run's files
are the ones left). Before the script starts, ``sys.modules["cv2"]`` is replaced by a module that
forwards every name to the real cv2 (first run) or to cvgpu (second run) and times the calls cvgpu
computes itself. Those are discovered, not listed: every function in cvgpu's ``_OWN`` names (and in its
``cuda``/``ximgproc`` submodules) defined in a public cvgpu family module or family package (not the
``cuda``/``ximgproc`` namespaces' own ``__init__``, not a ``_private`` module, not the GpuMat/Stream
plumbing), e.g. ``HoughLines``, ``ximgproc.RadonTransform``, ``findContours``; a ``create*`` factory's object gets its
compute methods timed (``cuda.createHoughLinesDetector().detect``). Each call's outputs are hashed
(shape, dtype, bytes; GpuMat/CuPy outputs downloaded after the timer stops), and the two runs are compared
call by call.

Nothing is started before the script: cvgpu starts the GPU when its engine choice says so, as in
the user's own run, so the whole-script times compare what a user sees. Without a usable GPU no
speed is compared (cvgpu computes with cv2 then), only outputs. ``--repeat N`` runs the pair N
times, alternating which goes first, and reports the median whole-script times beside the first
pair's (a machine's run-to-run spread can exceed the difference being measured); every run's
outputs are compared with the first cv2 run's.

Exit status: 0 when every compared output is identical, 1 when one differs, 2 on a usage error (an
option of cvgpu compare written after the script), 3 when either run of the script exited with a
non-zero status, 4 when nothing was compared.
"""
import argparse
import collections
import functools
import hashlib
import importlib
import json
import os
import pkgutil
import re
import statistics
import subprocess
import sys
import threading
import time
import types

_CHILD = "import sys; from cvgpu._compare import _child_main; sys.exit(_child_main(sys.argv[1:]))"
# Methods of a factory's object that are not computations.
_NOT_COMPUTE = re.compile(r"^(_|get|set|download|upload|empty|clear|save|load|write|read|release)")


# ---------------------------------------------------------------- what cvgpu accelerates

# Plumbing, not computations: GpuMat/Stream (cuda.Stream_Null is a function there), and the cv2
# namespaces' own __init__ (cuda.getCudaEnabledDeviceCount). A family package's __init__
# (cvgpu.contours) holds the family's public functions.
_PLUMBING_MODULES = {"cvgpu.cuda.gpumat", "cvgpu.cuda", "cvgpu.ximgproc"}


def _is_family_module(modname):
    parts = modname.split(".")
    if parts[0] != "cvgpu" or len(parts) < 2 or any(p.startswith("_") for p in parts[1:]):
        return False
    if modname in _PLUMBING_MODULES:
        return False
    return sys.modules.get(modname) is not None


def accelerated_names():
    """Dotted cv2 names ("HoughLines", "cuda.createHoughLinesDetector", ...) that cvgpu computes itself."""
    import cvgpu
    out = []

    def walk(mod, prefix):
        for name in sorted(getattr(mod, "_OWN", ())):
            obj = getattr(mod, name, None)
            if isinstance(obj, types.ModuleType):
                if obj.__name__.startswith("cvgpu.") and prefix.count(".") < 3:
                    walk(obj, prefix + name + ".")
                continue
            if obj is None or isinstance(obj, type) or not callable(obj):
                continue
            if _is_family_module(getattr(obj, "__module__", None) or ""):
                out.append(prefix + name)

    walk(cvgpu, "")
    return out


def is_factory(dotted):
    return re.match(r"create[A-Z]", dotted.rsplit(".", 1)[-1]) is not None


# ---------------------------------------------------------------- hashing and describing outputs

def _feed(h, obj, depth=0):
    import numpy as np
    if obj is None:
        h.update(b"N;")
    elif isinstance(obj, np.ndarray):
        h.update(b"A%s%r;" % (str(obj.dtype).encode(), obj.shape))
        h.update(np.ascontiguousarray(obj).view(np.uint8).reshape(-1).data if obj.size else b"")
    elif isinstance(obj, (tuple, list)):
        h.update(b"T%d;" % len(obj))
        if len(obj) > 16 and all(type(a) is np.ndarray for a in obj):
            # findContours' thousands of small arrays: their shapes, one dtype and all their bytes,
            # hashed at once (item by item took longer than the call being compared)
            ndims, dtypes = {a.ndim for a in obj}, {a.dtype for a in obj}
            if len(ndims) == 1 and len(dtypes) == 1:
                h.update(b"V%s;" % str(dtypes.pop()).encode())
                h.update(np.array([a.shape for a in obj], dtype=np.int64).tobytes())
                h.update(np.concatenate([a.reshape(-1) for a in obj]).view(np.uint8).data)
                return
        for item in obj:
            _feed(h, item, depth + 1)
    elif isinstance(obj, np.generic):
        _feed(h, obj.item(), depth)
    elif isinstance(obj, (bool, int, float, complex, str, bytes)):
        h.update(("S%s:%r;" % (type(obj).__name__, obj)).encode())
    elif _has(obj, "__cuda_array_interface__") and hasattr(obj, "get") and depth < 8:
        _feed(h, obj.get(), depth + 1)  # CuPy: its contents, as numpy would hold them
    elif callable(getattr(obj, "download", None)) and depth < 8:
        try:
            host = obj.download()
        except Exception:
            host = None
        _feed(h, host if host is not None else "empty %s" % type(obj).__name__, depth + 1)
    else:
        h.update(("O%s;" % type(obj).__name__).encode())


def digest(obj):
    h = hashlib.sha256()
    _feed(h, obj)
    return h.hexdigest()[:32]


def describe(x, depth=0):
    """Shape/dtype text of one argument (values for scalars)."""
    import numpy as np
    if isinstance(x, np.ndarray):
        return "%s%s" % (x.dtype, list(x.shape))
    if _has(x, "__cuda_array_interface__") and hasattr(x, "dtype"):
        return "%s %s%s" % (type(x).__name__, x.dtype, list(getattr(x, "shape", ())))
    if callable(getattr(x, "size", None)) and callable(getattr(x, "type", None)):  # a GpuMat
        try:
            return "%s size=%s type=%s" % (type(x).__name__, x.size(), x.type())
        except Exception:
            return type(x).__name__
    if isinstance(x, (tuple, list)) and depth < 2:
        inner = [describe(i, depth + 1) for i in x[:4]]
        return "(" + ", ".join(inner) + (", ... %d items" % len(x) if len(x) > 4 else "") + ")"
    if isinstance(x, (bool, int, float, str, np.generic)) or x is None:
        text = repr(x.item() if isinstance(x, np.generic) else x)
        return text if len(text) <= 40 else text[:37] + "..."
    return type(x).__name__


# ---------------------------------------------------------------- the child: instrumented cv2

class _Recorder:
    def __init__(self, path, mode):
        self.mode = mode
        self.fh = open(path, "a", buffering=1)
        self.lock = threading.Lock()
        self.local = threading.local()
        self.index = 0
        self.overhead_s = 0.0   # compare's own work inside the script (hashing outputs), taken out of its time

    def sync(self, out):
        cp = sys.modules.get("cupy")
        if cp is None or not _on_device(out):
            return
        cp.cuda.Device().synchronize()

    def write(self, name, ms, args, kwargs, out, error=None):
        t0 = time.perf_counter()
        engine = None
        if self.mode == "cvgpu":
            cvgpu = sys.modules.get("cvgpu")
            engine = cvgpu.last_call_backend() if cvgpu is not None else None
        rec = {"name": name, "ms": ms, "digest": digest(("raise", error) if error else out),
               "args": [describe(a) for a in args], "kwargs": {k: describe(v) for k, v in kwargs.items()},
               "engine": engine, "error": error}
        with self.lock:
            rec["seq"] = self.index
            self.index += 1
            self.fh.write(json.dumps(rec) + "\n")
        self.overhead_s += time.perf_counter() - t0


def _has(obj, name):
    try:  # a property may raise anything (an empty GpuMat's __cuda_array_interface__)
        return hasattr(obj, name)
    except Exception:
        return False


def _on_device(out, depth=0):
    if _has(out, "__cuda_array_interface__") or callable(getattr(out, "cudaPtr", None)):
        return True
    if isinstance(out, (tuple, list)) and depth < 3:
        return any(_on_device(o, depth + 1) for o in out)
    return False


def _timed(name, fn, rec, factory=False, nested=None):
    """``fn`` timed and logged. A call made inside a timed call is part of it, not logged: it goes to
    ``nested`` (cv2's own function, so cvgpu's cv2 fallback never re-enters cvgpu) or to ``fn``."""
    inner = nested or fn

    @functools.wraps(fn)
    def call(*args, **kwargs):
        if getattr(rec.local, "depth", 0):
            return inner(*args, **kwargs)
        rec.local.depth = 1
        error = None
        if rec.mode == "cvgpu":
            sys.modules["cvgpu._backend"].record(None)  # so the engine read afterwards is this call's
        t0 = time.perf_counter()
        try:
            out = fn(*args, **kwargs)
            rec.sync(out)
        except Exception as exc:
            error = "%s %s" % (type(exc).__name__, getattr(exc, "code", ""))
            raise
        finally:
            ms = (time.perf_counter() - t0) * 1e3
            rec.local.depth = 0
            if error is not None and not factory:
                rec.write(name, ms, args, kwargs, None, error)
        if factory:
            _instrument_object(out, name + "()", rec)
        else:
            rec.write(name, ms, args, kwargs, out)
        return out
    return call


def _instrument_object(obj, prefix, rec):
    for attr in dir(type(obj)):
        if _NOT_COMPUTE.match(attr):
            continue
        method = getattr(obj, attr, None)
        if method is None or isinstance(method, type) or not callable(method):
            continue
        try:
            setattr(obj, attr, _timed("%s.%s" % (prefix, attr), method, rec))
        except Exception:  # a C++-bound object that takes no attributes: left as it is
            pass


class _CV2Module(types.ModuleType):
    """Stands in for ``cv2``: forwards every name to its target, timed names overridden."""

    def __getattr__(self, name):
        return getattr(self.__dict__["_cvgpu_target"], name)

    def __dir__(self):
        return sorted(set(dir(self.__dict__["_cvgpu_target"])) | set(self.__dict__))


def _wrap_module(qualname, target, real, overrides):
    mod = _CV2Module(qualname, getattr(real, "__doc__", None))
    mod.__dict__["_cvgpu_target"] = target
    for key in ("__spec__", "__loader__", "__package__", "__file__", "__path__"):
        if hasattr(real, key):  # cv2's own package identity, so `import cv2.data` etc. still resolve
            mod.__dict__[key] = getattr(real, key)
    mod.__dict__.update(overrides)
    return mod


def install(mode, log_path):
    """Replace sys.modules["cv2"] (and its cuda/ximgproc submodules) with the timed stand-in."""
    import cv2 as real
    import cvgpu
    for info in pkgutil.walk_packages(cvgpu.__path__, "cvgpu."):
        # Every cvgpu module binds the real cv2 now, so a fallback inside cvgpu never re-enters the wrapper.
        if info.name not in ("cvgpu.__main__",):
            try:
                importlib.import_module(info.name)
            except Exception:
                pass
    rec = _Recorder(log_path, mode)
    target_root = cvgpu if mode == "cvgpu" else real
    tree = collections.defaultdict(dict)  # "" or "cuda." -> {name: timed}
    for dotted in accelerated_names():
        prefix, _, name = dotted.rpartition(".")
        owner = target_root
        for part in filter(None, prefix.split(".")):
            owner = getattr(owner, part, None)
        fn = getattr(owner, name, None) if owner is not None else None
        real_fn = real
        for part in dotted.split("."):
            real_fn = getattr(real_fn, part, None)
        if fn is not None:
            tree[prefix][name] = _timed(dotted, fn, rec, factory=is_factory(dotted), nested=real_fn)
    subs = {}
    for prefix in sorted({p for p in tree if p}, key=lambda p: -p.count(".")):
        target, real_sub = target_root, real
        for part in prefix.split("."):
            target, real_sub = getattr(target, part, None), getattr(real_sub, part, None)
        if target is None:
            continue
        subs[prefix] = _wrap_module("cv2." + prefix, target, real_sub if real_sub is not None else target,
                                    tree[prefix])
    top = dict(tree.get("", {}))
    for prefix, mod in subs.items():
        if "." not in prefix:
            top[prefix] = mod
    wrapper = _wrap_module("cv2", target_root, real, top)
    sys.modules["cv2"] = wrapper
    for prefix, mod in subs.items():
        if "cv2." + prefix in sys.modules:
            sys.modules["cv2." + prefix] = mod
    return rec


def _run_label():
    """(backend, no-GPU reason) of the cvgpu run, told without starting anything: where the script
    never started the GPU, asking ``cvgpu.backend()`` would import CuPy and make the CUDA context
    (0.3-0.5 s) inside the process whose wall time is reported as the script's."""
    return sys.modules["cvgpu._backend"].label_without_start()


def _child_main(argv):
    mode, log_path, script = argv[0], argv[1], argv[2]
    rec = install(mode, log_path)
    # Nothing is started before the script: cvgpu's GPU start-up (CuPy, the CUDA context, kernels)
    # happens when cvgpu decides to, as in the user's own run, and counts in the script's time.
    t_start = time.perf_counter()
    import runpy
    import traceback
    sys.argv = [script] + list(argv[3:])
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    if mode == "cvgpu":
        backend, reason = _run_label()
        with open(log_path, "a") as fh:
            engine = sys.modules["cvgpu._engine"]
            fh.write(json.dumps({"meta": {"backend": backend, "no_gpu_reason": reason,
                                          "engine_mode": engine.get_engine(), "gpu_start": engine.startup_state(),
                                          "gpu_start_s": engine._startup.seconds,
                                          "cupy_loaded": "cupy" in sys.modules,
                                          "script_s": time.perf_counter() - t_start}}) + "\n")
    with open(log_path, "a") as fh:
        fh.write(json.dumps({"meta": {"compare_overhead_s": rec.overhead_s}}) + "\n")
    return code


# ---------------------------------------------------------------- the parent: two runs, one table

def _stats(records):
    times = [r["ms"] for r in records]
    if not times:
        return {"calls": 0, "total_ms": 0.0, "median_ms": None, "first_ms": None}
    return {"calls": len(times), "total_ms": sum(times), "median_ms": statistics.median(times),
            "first_ms": times[0]}


def _engines(records):
    counts = collections.Counter(r.get("engine") or "?" for r in records if not r.get("error"))
    return dict(counts)


def summarize(logs, runs):
    """The comparison of two runs' call logs ({"cv2": [...], "cvgpu": [...]}) as a JSON-able dict."""
    names = []
    for mode in ("cv2", "cvgpu"):
        for r in logs[mode]:
            if r["name"] not in names:
                names.append(r["name"])
    functions, first_diff = [], None
    for name in names:
        a = [r for r in logs["cv2"] if r["name"] == name]
        b = [r for r in logs["cvgpu"] if r["name"] == name]
        entry = {"function": name, "cv2": _stats(a), "cvgpu": _stats(b), "engines": _engines(b),
                 "raised": {"cv2": sum(1 for r in a if r.get("error")), "cvgpu": sum(1 for r in b if r.get("error"))}}
        sa, sb = entry["cv2"]["median_ms"], entry["cvgpu"]["median_ms"]
        entry["speedup"] = sa / sb if sa and sb else None
        if not a or not b:
            entry["identical"] = None
            entry["note"] = "called only in the %s run" % ("cvgpu" if not a else "cv2")
        else:
            diff = next((i for i, (x, y) in enumerate(zip(a, b)) if x["digest"] != y["digest"]), None)
            if diff is None and len(a) != len(b):
                diff = min(len(a), len(b))
            entry["identical"] = diff is None
            if diff is not None:
                x = a[diff] if diff < len(a) else None
                y = b[diff] if diff < len(b) else None
                entry["first_difference"] = {
                    "call": diff + 1, "function": name,
                    "cv2_args": None if x is None else {"args": x["args"], "kwargs": x["kwargs"], "error": x["error"]},
                    "cvgpu_args": None if y is None else {"args": y["args"], "kwargs": y["kwargs"],
                                                          "error": y["error"]},
                    "reason": "outputs differ" if x is not None and y is not None else "call counts differ",
                    "seq": (y or x)["seq"]}
                if first_diff is None or entry["first_difference"]["seq"] < first_diff["seq"]:
                    first_diff = entry["first_difference"]
        functions.append(entry)
    verdicts = [f["identical"] for f in functions]
    return {"runs": runs, "functions": functions, "first_difference": first_diff,
            "identical": (False if False in verdicts else (True if True in verdicts else None)),
            "accelerated": accelerated_names(), "gpu_compared": runs.get("cvgpu", {}).get("backend") == "cuda"}


def pool_runs(result, runs_logs):
    """With repeated runs (``runs_logs``: {mode: [each run's call log]}, the first run's first): each
    function's per-call median becomes the median of the runs' medians (``run_medians_ms`` lists
    them), and its speedup follows. One process's medians mislead on hosts where a fresh process
    runs the same cv2 calls at one of two speeds (a 16-core H100 host: 2.4-2.9 or 4.1-5.7 ms a
    call, any variant: HISTORY, "compare's children and the host's two speeds"); totals and
    first calls stay the first run's."""
    for f in result["functions"]:
        for mode in ("cv2", "cvgpu"):
            medians = [statistics.median(times) for times in
                       ([r["ms"] for r in calls if r["name"] == f["function"]] for calls in runs_logs[mode])
                       if times]
            if len(medians) > 1:
                f[mode]["run_medians_ms"] = medians
                f[mode]["median_ms"] = statistics.median(medians)
        sa, sb = f["cv2"]["median_ms"], f["cvgpu"]["median_ms"]
        f["speedup"] = sa / sb if sa and sb else None
    return result


def _ms(v):
    return "-" if v is None else ("%.3f" % v if v < 100 else "%.1f" % v)


def summary_lines(result, markdown=False):
    """The comparison as text lines: a fixed-width table, or (markdown=True) a markdown table."""
    runs = result["runs"]
    lines = [] if markdown else [""]
    title = "cvgpu compare: %s %s" % (runs["script"], " ".join(runs["args"]))
    lines.append(("`%s`" % title.strip()) if markdown else title)
    if markdown:
        lines.append("")
    for mode in ("cv2", "cvgpu"):
        run = runs[mode]
        extra = ""
        if mode == "cvgpu":
            extra = ", engine %s, GPU %s" % (run.get("engine_mode", "?"), run.get("gpu_start", "?"))
            if run.get("gpu_start_s") is not None:
                extra += " (start-up %.2f s, in the background)" % run["gpu_start_s"]
        text = "%-5s run: exit %s, whole script %.2f s (less %.2f s of compare's own hashing)%s" % (
            mode, run["exit"], run["seconds"], run.get("compare_overhead_s", 0.0), extra)
        lines.append(("- " if markdown else "  ") + text)
    gpu = result.get("gpu_compared", True)
    if not gpu:
        lines.append(("- " if markdown else "  ") + "no speed compared: there is no usable GPU (%s), so cvgpu "
                     "computed every call on the CPU (cv2, or cvgpu's numpy code: 'numpy'); only the outputs "
                     "were compared" % runs["cvgpu"].get("no_gpu_reason"))
    elif runs["cv2"]["exit"] == 0 and runs["cvgpu"]["exit"] == 0 and runs["cvgpu"]["seconds"] > 0:
        lines.append(("- " if markdown else "  ") + "whole script: %.2fx (cv2 %.2f s / cvgpu %.2f s)" % (
            runs["cv2"]["seconds"] / runs["cvgpu"]["seconds"], runs["cv2"]["seconds"], runs["cvgpu"]["seconds"]))
        if runs["cvgpu"].get("median_s"):
            a, b = runs["cv2"], runs["cvgpu"]
            lines.append(("- " if markdown else "  ") + "whole script, median of %d runs each: %.2fx (cv2 %.2f s, "
                         "%.2f-%.2f / cvgpu %.2f s, %.2f-%.2f)" % (
                             len(b["repeat_s"]), a["median_s"] / b["median_s"], a["median_s"], min(a["repeat_s"]),
                             max(a["repeat_s"]), b["median_s"], min(b["repeat_s"]), max(b["repeat_s"])))
    cols = ("function", "calls cv2/cvgpu", "cv2 total ms", "cvgpu total ms", "cv2 median", "cvgpu median",
            "cvgpu 1st", "speedup", "identical", "computed by")
    rows = []
    for f in result["functions"]:
        engines = f["engines"]
        by = ", ".join("%s %d" % kv for kv in sorted(engines.items())) if len(engines) > 1 else \
            (next(iter(engines)) if engines else "-")
        rows.append((f["function"], "%d/%d" % (f["cv2"]["calls"], f["cvgpu"]["calls"]),
                     _ms(f["cv2"]["total_ms"] if f["cv2"]["calls"] else None),
                     _ms(f["cvgpu"]["total_ms"] if f["cvgpu"]["calls"] else None),
                     _ms(f["cv2"]["median_ms"]), _ms(f["cvgpu"]["median_ms"]), _ms(f["cvgpu"]["first_ms"]),
                     "-" if f["speedup"] is None or not gpu else "%.1fx" % f["speedup"],
                     {True: "yes", False: "NO", None: "n/a"}[f["identical"]], by))
    if markdown:
        lines += ["", "| " + " | ".join(cols) + " |", "|---|---|" + "---:|" * 6 + "---|---|"]
        lines += ["| " + " | ".join(r) + " |" for r in rows]
        lines.append("")
    else:
        widths = [max(len(c), *(len(r[i]) for r in rows)) if rows else len(c) for i, c in enumerate(cols)]
        header = "  ".join(c.ljust(w) for c, w in zip(cols, widths))
        lines += [header, "-" * len(header)]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    if not rows:
        lines.append("(the script made no call that cvgpu computes itself: %s)" % ", ".join(result["accelerated"]))
    for f in result["functions"]:
        if f.get("note"):
            lines.append("note: %s: %s" % (f["function"], f["note"]))
    d = result["first_difference"]
    if d:
        lines.append("first difference: call %d of %s (%s)" % (d["call"], d["function"], d["reason"]))
        for mode in ("cv2", "cvgpu"):
            a = d["%s_args" % mode]
            if a is not None:
                kw = ", ".join("%s=%s" % kv for kv in a["kwargs"].items())
                lines.append("  %-5s args: %s%s%s" % (mode, ", ".join(a["args"]), ", " if kw and a["args"] else "",
                                                      kw) + (" -> raised %s" % a["error"] if a["error"] else ""))
    for mode in ("cv2", "cvgpu"):
        if runs[mode]["exit"] != 0:
            lines.append("THE SCRIPT FAILED in the %s run (exit %s): its error is printed above" % (mode,
                                                                                             runs[mode]["exit"]))
    verdict = {True: "all outputs identical", False: "OUTPUTS DIFFER",
               None: "NOTHING COMPARED: no call cvgpu accelerates was made in both runs"}[result["identical"]]
    pooled = any(f[m].get("run_medians_ms") for f in result["functions"] for m in ("cv2", "cvgpu"))
    lines.append("%s. Times: host clock around each call (device outputs synchronized)%s; speedup: cv2 median / "
                 "cvgpu median (ms per call); a function's first cvgpu call also loads or compiles its kernels "
                 "(cvgpu 1st), so with one or two calls the median includes it." % (
                     verdict, "; medians: of every run's median, totals and 1st: the first run" if pooled else ""))
    return lines


def print_summary(result, out=None):
    for line in summary_lines(result):
        print(line, file=out or sys.stdout)


def build_parser():
    parser = argparse.ArgumentParser(
        prog="cvgpu compare", description="Run an unmodified OpenCV script with cv2, then with cvgpu as cv2; "
        "report time and output identity of every call cvgpu computes.",
        usage="cvgpu compare [--json PATH] [--markdown PATH] [--] script.py [args...]",
        epilog="cvgpu compare's options go before the script; everything after the script is the script's "
        "(write -- before the script to pass it arguments named like these options). exit status: 0 all "
        "compared outputs identical, 1 an output differs, 2 usage error, 3 a run of the script exited "
        "non-zero, 4 nothing was compared")
    parser.add_argument("--json", metavar="PATH", help="write the comparison as JSON")
    parser.add_argument("--markdown", metavar="PATH", help="append the comparison to PATH as markdown")
    parser.add_argument("--repeat", metavar="N", type=int, default=1,
                        help="run the pair N times (alternating the order) and report median whole-script times")
    parser.add_argument("script", help="the Python script, run as `python script.py args...` would run it")
    parser.add_argument("args", nargs=argparse.REMAINDER, help="the script's own arguments")
    return parser


def _run(mode, script, args, log_path, env):
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, mode, log_path, script] + list(args), env=env)
    return {"exit": proc.returncode, "seconds": time.perf_counter() - start}


_OWN_OPTIONS = ("--json", "--markdown", "--repeat")


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    explicit = "--" in argv and args.script in argv and argv.index("--") < argv.index(args.script)
    if args.args[:1] == ["--"]:
        args.args = args.args[1:]
    if not explicit:
        misplaced = [a for a in args.args if a.split("=")[0] in _OWN_OPTIONS]
        if misplaced:
            print("cvgpu compare: %s after the script would go to the script, not to cvgpu compare: put it "
                  "before the script, or write `cvgpu compare [options] -- %s ...` to pass it to the script"
                  % (", ".join(misplaced), args.script), file=sys.stderr)
            return 2
    if not os.path.isfile(args.script):
        print("cvgpu compare: no such script: %s" % args.script, file=sys.stderr)
        return 2
    import tempfile

    import cvgpu
    env = dict(os.environ)
    root = os.path.dirname(os.path.dirname(os.path.abspath(cvgpu.__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    runs = {"script": args.script, "args": list(args.args), "cwd": os.getcwd()}
    logs = {}
    if args.repeat < 1:
        print("cvgpu compare: --repeat must be at least 1", file=sys.stderr)
        return 2
    repeats = {"cv2": [], "cvgpu": []}
    later = {"cv2": [], "cvgpu": []}   # the call logs of the repeated runs
    total = 2 * args.repeat
    with tempfile.TemporaryDirectory(prefix="cvgpu-compare-") as tmp:
        for k in range(total):
            # pairs alternate their order, so that a drift of the machine favours neither
            mode = ("cv2", "cvgpu")[(k + (k // 2) % 2) % 2]
            print("cvgpu compare: run %d/%d, %s as cv2: %s %s" % (
                k + 1, total, "cv2" if mode == "cv2" else "cvgpu", args.script, " ".join(args.args)),
                file=sys.stderr, flush=True)
            log_path = os.path.join(tmp, "%s-%d.jsonl" % (mode, k))
            open(log_path, "w").close()
            run = _run(mode, args.script, args.args, log_path, env)
            with open(log_path) as fh:
                records = [json.loads(line) for line in fh if line.strip()]
            for r in records:
                run.update(r.get("meta", {}))
            # the script's own time: the child's wall time less compare's hashing of its outputs
            run["seconds"] -= run.get("compare_overhead_s", 0.0)
            calls = [r for r in records if "meta" not in r]
            if mode not in runs:
                runs[mode], logs[mode] = run, calls
            else:
                later[mode].append(calls)
                if run["exit"] != 0:
                    runs[mode]["exit"] = run["exit"]
            repeats[mode].append(run["seconds"])
    if args.repeat > 1:
        for mode in ("cv2", "cvgpu"):
            runs[mode]["repeat_s"] = repeats[mode]
            runs[mode]["median_s"] = statistics.median(repeats[mode])
    result = pool_runs(summarize(logs, runs), {mode: [logs[mode]] + later[mode] for mode in ("cv2", "cvgpu")})
    for mode in ("cv2", "cvgpu"):
        for calls in later[mode]:
            # every repeated run must give the first cv2 run's outputs, call by call
            again = summarize({"cv2": logs["cv2"], "cvgpu": calls}, runs)
            if again["identical"] is False and result["identical"] is not False:
                result["identical"] = False
                result["first_difference"] = dict(again["first_difference"], repeated_run=mode)
    print_summary(result)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    if args.markdown:
        with open(args.markdown, "a") as fh:
            fh.write("\n".join(summary_lines(result, markdown=True)) + "\n\n")
    if runs["cv2"]["exit"] != 0 or runs["cvgpu"]["exit"] != 0:
        return 3
    if result["identical"] is None:
        return 4
    return 1 if result["identical"] is False else 0
