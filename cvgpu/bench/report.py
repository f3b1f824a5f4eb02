"""``cvgpu bench --report DIR``: DIR/report.md (header, table, plots), the PNG plots and DIR/bench.json.

Plots use matplotlib's Agg canvas directly (no pyplot, so no global backend is switched); without
matplotlib the markdown is written alone and says why. Rows are read by key, with the workload text as
the fallback for families that do not give the key: ``points`` (edge points), ``width``/``height``
(else "WxH" in the workload), ``contours`` (else "N contours"), ``mode`` (else RETR_* / TREE / LIST /
EXTERNAL / CCOMP / FLOODFILL), ``method`` (else NONE / SIMPLE / TC89_*), ``series`` (a label overriding
mode + method + noise).
"""
import json
import os
import re

from .table import COLUMNS, FOOTNOTE, header_lines, table_cells

ENGINE_STYLES = {  # (label, linestyle, marker)
    "cv2": ("cv2 (CPU)", "--", "o"),
    "numpy": ("cvgpu, numpy in/out", "-", "s"),
    "device": ("cvgpu, device in/out", ":", "^"),
}


# ---------------------------------------------------------------- reading rows

def _int(text):
    return int(text.replace(",", ""))


def points(r):
    if r.get("points") is not None:
        return int(r["points"])
    m = re.search(r"(\d[\d,]*)\s*(k?)\s*(?:pts|points|edge points)\b", r.get("workload", ""))
    if m:
        return _int(m.group(1)) * (1000 if m.group(2) else 1)
    return None


def size(r):
    """(width, height) or None."""
    if r.get("width") and r.get("height"):
        return int(r["width"]), int(r["height"])
    if r.get("side"):
        return int(r["side"]), int(r["side"])
    m = re.search(r"\b(\d+)[x\u00d7](\d+)\b", r.get("workload", ""))
    return (int(m.group(1)), int(m.group(2))) if m else None


def contour_count(r):
    if r.get("contours") is not None:
        return int(r["contours"])
    m = re.search(r"(\d[\d,]*)\s+contours", r.get("workload", ""))
    return _int(m.group(1)) if m else None


def contour_series(r):
    if r.get("series"):
        return str(r["series"])
    text = " ".join(str(r.get(k, "")) for k in ("mode", "function", "workload"))
    m = re.search(r"RETR_(\w+)|\b(EXTERNAL|LIST|CCOMP|TREE|FLOODFILL)\b", text)
    label = (m.group(1) or m.group(2)) if m else r.get("function", "findContours")
    method = r.get("method") or re.search(r"\b(?:CHAIN_APPROX_)?(NONE|SIMPLE|TC89_L1|TC89_KCOS)\b", text)
    if method:
        label += " " + (method if isinstance(method, str) else method.group(1))
    # One series per image family (the workload's first word: blobs, noisy, snake, ...), so that a
    # worst-case image is not joined by a line to a different family's points.
    family = str(r.get("workload", "")).split(" ", 1)[0]
    if family and not family[0].isdigit():
        label += " " + family
    return label


def is_contours(r):
    return r.get("family") == "contours" or str(r.get("function", "")).startswith("findContours")


# ---------------------------------------------------------------- plots

def _figure(width=7.0, height=4.6):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    fig = Figure(figsize=(width, height), dpi=110)
    FigureCanvasAgg(fig)
    return fig


def _plot_series(ax, xs, ys, lows, highs, **style):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    xs, ys = [xs[i] for i in order], [ys[i] for i in order]
    lows, highs = [lows[i] for i in order], [highs[i] for i in order]
    if all(lo is not None and hi is not None for lo, hi in zip(lows, highs)):
        yerr = [[max(0.0, y - lo) for y, lo in zip(ys, lows)], [max(0.0, hi - y) for y, hi in zip(ys, highs)]]
        ax.errorbar(xs, ys, yerr=yerr, capsize=2, **style)
    else:
        ax.plot(xs, ys, **style)


def _collect(rows, key_x, engine):
    """xs, ys, p10s, p90s of one engine ("cv2", "numpy", "device"), one point per x."""
    seen = {}
    for r in rows:
        x = key_x(r)
        if x is None:
            continue
        if engine == "cv2":
            y, lo, hi = r.get("cv2_ms"), r.get("cv2_p10"), r.get("cv2_p90")
        elif r.get("io") == engine:
            y, lo, hi = r.get("cvgpu_ms"), r.get("cvgpu_p10"), r.get("cvgpu_p90")
        else:
            continue
        if y is not None and x not in seen:
            seen[x] = (y, lo, hi)
    xs = list(seen)
    return xs, [seen[x][0] for x in xs], [seen[x][1] for x in xs], [seen[x][2] for x in xs]


def _hough_plot(path, rows, x_of, select_ref, xlabel, title, base2=False):
    hough = [r for r in rows if r.get("function") == "HoughLines" and "segments" in r.get("workload", "")]
    cuda = [r for r in rows if r.get("function") == "cuda.HoughLinesDetector"]
    hough = [r for r in hough if x_of(r) is not None]
    cuda = [r for r in cuda if x_of(r) is not None]
    if not hough and not cuda:
        return False
    fig = _figure()
    ax = fig.add_subplot(1, 1, 1)
    drawn = False
    for engine in ("cv2", "numpy", "device"):
        xs, ys, lo, hi = _collect(hough, x_of, engine)
        if xs:
            label, ls, marker = ENGINE_STYLES[engine]
            _plot_series(ax, xs, ys, lo, hi, label=label.replace("cvgpu", "cvgpu.HoughLines")
                         .replace("cv2 (CPU)", "cv2.HoughLines (CPU)"), linestyle=ls, marker=marker)
            drawn = True
    xs, ys, lo, hi = _collect(cuda, x_of, "device")
    if xs:
        _plot_series(ax, xs, ys, lo, hi, label="cvgpu.cuda.HoughLinesDetector (device)", linestyle="-.",
                     marker="D")
    measured_gpu = any(r.get("cvgpu_ms") is not None for r in hough + cuda)
    if measured_gpu:
        from .cuda import REFERENCE_MS
        ref = sorted((x, ms) for (side, pts), ms in REFERENCE_MS.items() for x in [select_ref(side, pts)]
                     if x is not None)
        if ref:
            ax.plot([x for x, _ in ref], [ms for _, ms in ref], linestyle="none", marker="*", markersize=9,
                    color="black", label="OpenCV-CUDA HoughLinesDetector (recorded, H100)")
    if not drawn and not xs:
        return False
    ax.set_xscale("log", base=2 if base2 else 10)
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    return _finish_time_plot(fig, ax, path, title, measured_gpu, fontsize=7)


def plot_hough_points(path, rows):
    def x_of(r):
        s = size(r)
        return points(r) if s == (1024, 1024) else None
    return _hough_plot(path, rows, x_of, lambda side, pts: pts if side == 1024 else None,
                       "edge points (1024x1024 image of horizontal segments)", "Hough lines: time vs edge points")


def plot_hough_resolution(path, rows):
    def x_of(r):
        p, s = points(r), size(r)
        return s[0] if p is not None and s is not None and 80_000 <= p <= 84_000 and s[0] == s[1] else None
    return _hough_plot(path, rows, x_of, lambda side, pts: side if 80_000 <= pts <= 84_000 else None,
                       "image side, px (square, ~82k edge points)", "Hough lines: time vs resolution", base2=True)


def _finish_time_plot(fig, ax, path, title, gpu, **legend):
    """The shared tail of the time plots: labels, title (marked when only cv2 ran), grid, save."""
    ax.set_ylabel("time per call, ms (median; bars: p10-p90)")
    ax.set_title(title + ("" if gpu else "  [no GPU: cv2 only]"), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(**legend)
    fig.tight_layout()
    fig.savefig(path)
    return True


def _contours_plot(path, rows, x_of, xlabel, title):
    rows = [r for r in rows if is_contours(r) and x_of(r) is not None]
    if not rows:
        return False
    labels = sorted({contour_series(r) for r in rows})
    fig = _figure(7.5, 4.8)
    ax = fig.add_subplot(1, 1, 1)
    colors = {label: "C%d" % (i % 10) for i, label in enumerate(labels)}
    drawn = False
    for label in labels:
        group = [r for r in rows if contour_series(r) == label]
        for engine in ("cv2", "numpy", "device"):
            xs, ys, lo, hi = _collect(group, x_of, engine)
            if xs:
                name, ls, marker = ENGINE_STYLES[engine]
                _plot_series(ax, xs, ys, lo, hi, label="%s: %s" % (label, name), linestyle=ls, marker=marker,
                             color=colors[label])
                drawn = True
    if not drawn:
        return False
    gpu = any(r.get("cvgpu_ms") is not None for r in rows)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    return _finish_time_plot(fig, ax, path, title, gpu, fontsize=6, ncol=2)


def plot_contours_size(path, rows):
    def x_of(r):
        s = size(r)
        return None if s is None else s[0] * s[1] / 1e6
    return _contours_plot(path, rows, x_of, "image size, megapixels", "findContours: time vs image size")


def plot_contours_count(path, rows):
    return _contours_plot(path, rows, contour_count, "contours in the image",
                          "findContours: time vs contour count")


def plot_speedups(path, rows):
    # Internal variants (e.g. "HoughLines[vote-shared]") are diagnostics, not what a caller gets.
    rows = [r for r in rows if r.get("speedup") and "[" not in str(r.get("function", ""))]
    if not rows:
        return False
    families = sorted({r.get("family", "?") for r in rows})
    colors = {f: "C%d" % (i % 10) for i, f in enumerate(families)}
    fig = _figure(8.5, 1.6 + 0.26 * len(rows))
    ax = fig.add_subplot(1, 1, 1)
    ys = list(range(len(rows)))[::-1]
    ax.barh(ys, [r["speedup"] for r in rows], color=[colors[r.get("family", "?")] for r in rows])
    ax.set_yticks(ys)
    ax.set_yticklabels(["%s | %s | %s" % (r["function"], r["workload"][:38], r.get("io", "")) for r in rows],
                       fontsize=6)
    for y, r in zip(ys, rows):
        ax.text(r["speedup"], y, " %.1fx" % r["speedup"], va="center", fontsize=6)
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_xscale("log")
    ax.set_xlabel("speedup over cv2 (cv2 median / cvgpu median; > 1: cvgpu faster)")
    ax.set_title("cvgpu speedup over cv2, same run", fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path)
    return True


PLOTS = [
    ("hough_points.png", "HoughLines: time vs edge points", plot_hough_points),
    ("hough_resolution.png", "HoughLines: time vs resolution", plot_hough_resolution),
    ("contours_size.png", "findContours: time vs image size", plot_contours_size),
    ("contours_count.png", "findContours: time vs contour count", plot_contours_count),
    ("speedup.png", "Speedup over cv2", plot_speedups),
]


# ---------------------------------------------------------------- markdown

def _md_cell(text):
    return str(text).replace("|", "\\|")


def markdown_table(rows):
    out = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" if i < 3 or i == 6 else "---:"
                                                            for i in range(len(COLUMNS))) + "|"]
    for r in rows:
        out.append("| " + " | ".join(_md_cell(c) for c in table_cells(r)) + " |")
    return out


def write_report(directory, rows, env, notes=(), command="cvgpu bench"):
    """Write DIR/report.md, DIR/bench.json and the plots; return {"markdown", "plots", "warnings"}."""
    os.makedirs(directory, exist_ok=True)
    warnings, plots = [], []
    with open(os.path.join(directory, "bench.json"), "w") as fh:
        json.dump({"command": command, "environment": env, "notes": list(notes), "rows": rows}, fh, indent=1)
    try:
        import matplotlib  # noqa: F401
        have_mpl = True
    except Exception as exc:
        have_mpl = False
        warnings.append("matplotlib is not installed (%s): report.md written without plots "
                        "(pip install matplotlib, or the demo extra)" % exc)
    if have_mpl:
        for name, title, fn in PLOTS:
            path = os.path.join(directory, name)
            if os.path.exists(path):
                os.remove(path)  # never leave a stale plot from an earlier run beside a new table
            try:
                if fn(path, rows):
                    plots.append((name, title))
            except Exception as exc:  # a plot must not lose the table
                warnings.append("plot %s failed: %s: %s" % (name, type(exc).__name__, exc))
    md = ["# cvgpu bench report", "",
          "Generated %s by `%s`." % (env.get("generated", "?"), command), ""]
    md += ["- " + line for line in header_lines(env)]
    if not env.get("gpu"):
        md.append("- **Only cv2 ran** (no usable GPU): the cvgpu columns are empty and the plots show cv2 "
                  "alone.")
    md += ["", "## Results", ""] + markdown_table(rows) + ["", FOOTNOTE.replace("'-'", "`-`"), ""]
    for note in notes:
        md.append("- note: %s" % note)
    md += ["", "## Plots", ""]
    if not have_mpl:
        md.append("_No plots: matplotlib is not installed (`pip install matplotlib`, or the `demo` extra)._")
    elif not plots:
        md.append("_No plottable rows._")
    for name, title in plots:
        md += ["### %s" % title, "", "![%s](%s)" % (title, name), ""]
    missing = [title for name, title, _ in PLOTS if have_mpl and name not in dict(plots)]
    if have_mpl and missing:
        md.append("Not plotted (no rows for them in this run): %s." % "; ".join(missing))
        if "contours_count.png" not in dict(plots) and any(is_contours(r) for r in rows):
            md.append("(The findContours rows give no contour count: row key `contours`, or \"N contours\" "
                      "in the workload.)")
    path = os.path.join(directory, "report.md")
    with open(path, "w") as fh:
        fh.write("\n".join(md).rstrip() + "\n")
    return {"markdown": path, "plots": [os.path.join(directory, n) for n, _ in plots], "warnings": warnings}
