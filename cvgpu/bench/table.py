"""What a benchmark ran on, and its rows as a text table."""
import datetime
import os
import platform
import sys
import textwrap

import cv2
import numpy as np

from .. import _backend
from ._timing import BATCH_MS


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


def table_cells(r, brackets=True):
    cv2_cell = fmt_ms(r.get("cv2_ms"), r.get("cv2_p10") if brackets else None, r.get("cv2_p90"), 3)
    if r.get("cv2_baseline") and r.get("cv2_ms") is not None:
        cv2_cell += " *"  # not the same computation: see the baseline note
    return [r["workload"], r["function"], r["io"], cv2_cell,
            fmt_ms(r.get("cvgpu_ms"), r.get("cvgpu_p10") if brackets else None, r.get("cvgpu_p90"), 4),
            "-" if r.get("speedup") is None else "%.1fx" % r["speedup"], exact_text(r.get("exact")),
            fmt_ms(r.get("reference_ms")) + (" rec" if r.get("reference_kind") == "recorded" else "")]


COLUMNS = ["workload", "function", "io", "cv2 ms [p10-p90]", "cvgpu ms [p10-p90]", "speedup", "exact",
           "ocv-cuda"]
FOOTNOTE = ("speedup: cv2 median / cvgpu median, cv2 timed in this run (host clock); cvgpu numpy io: host "
            "clock, device io: CUDA events (calls under %g ms in back-to-back batches between two events, "
            "per call). exact: every output equal to cv2's, bit for bit ('-': not compared). ocv-cuda: "
            "OpenCV's own CUDA kernels timed in this run, ms (ocv_harness; 'rec': figures recorded on an H100 where the harness is not built), cuda.* rows." % BATCH_MS)
# The terminal table's width (columns of text): empty columns are dropped, then the p10-p90 ranges,
# then the workload column is cut (to no less than WORKLOAD_MIN).
TABLE_WIDTH = 100
WORKLOAD_MIN = 20


def baseline_notes(rows):
    """One note per cv2 baseline that is not the function itself (the LMS rows' cv2.fitLine)."""
    seen = []
    for r in rows:
        b = r.get("cv2_baseline")
        if b and r.get("cv2_ms") is not None and (r["function"], b) not in seen:
            seen.append((r["function"], b))
    return ["* %s rows: the cv2 column times %s" % (f, b) for f, b in seen]


def _layout(rows):
    """(columns kept, names, cells, widths) of a table that fits TABLE_WIDTH where it can: empty
    columns dropped, then the workload column cut, then the p10-p90 ranges dropped."""
    for brackets in (True, False):
        cells = [table_cells(r, brackets) for r in rows]
        names = [c if brackets else c.replace(" [p10-p90]", "") for c in COLUMNS]
        keep = [i for i in range(len(COLUMNS)) if i < 3 or not cells or any(row[i] != "-" for row in cells)]
        widths = {i: max([len(names[i])] + [len(row[i]) for row in cells]) for i in keep}
        widths[0] = min(widths[0], 44)
        total = sum(widths.values()) + 2 * (len(keep) - 1)
        if total > TABLE_WIDTH:
            widths[0] = max(WORKLOAD_MIN, widths[0] - (total - TABLE_WIDTH))
            total = sum(widths.values()) + 2 * (len(keep) - 1)
        if total <= TABLE_WIDTH:
            break
    return keep, names, cells, widths


def print_table(rows, env=None, notes=(), out=None):
    out = out or sys.stdout
    env = env or environment()
    for line in header_lines(env):
        print(line, file=out)
    keep, names, cells, widths = _layout(rows)
    line = "  ".join(names[i].ljust(widths[i]) for i in keep)
    print(line, file=out)
    print("-" * len(line), file=out)
    for row in cells:
        print("  ".join(row[i][:widths[i]].ljust(widths[i]) for i in keep).rstrip(), file=out)
    if not rows:
        print("(no rows)", file=out)
    dropped = [COLUMNS[i].replace(" [p10-p90]", "") for i in range(len(COLUMNS)) if i not in keep]
    if dropped:
        print("(columns with no value in any row left out: %s)" % ", ".join(dropped), file=out)
    print(textwrap.fill(FOOTNOTE, TABLE_WIDTH), file=out)
    for note in baseline_notes(rows):
        print(textwrap.fill(note, TABLE_WIDTH), file=out)
    for note in notes:
        print(textwrap.fill("note: " + note, TABLE_WIDTH), file=out)
