"""Benchmark rows of cvgpu's LMS line fitting (fitLineLMS, fitLineLMSBatch, refineHoughLines) and
the accuracy study of refineHoughLines (issue 9): LMS refinement of HoughLines' top line against
ordinary least squares on the same support points and against the Hough cell itself.

    python -m cvgpu.bench.lms [TRIALS]          the accuracy table (40 trials per row by default)
    python -m cvgpu.bench.lms --bench [--quick] the speed rows (also ``cvgpu bench --only lms``)
"""
import math

import cv2
import numpy as np

from .. import _backend
from ..lms import fitLineLMS, fitLineLMSBatch, refineHoughLines, support_points
from ._timing import time_device, time_host


def _gpu_ms(cp, fn, reps):
    return time_device(cp, fn, reps, warmup=2)["median"]  # CUDA events after warm-up, median


def _host_ms(fn, reps):
    return time_host(fn, reps)["median"]


def _outlier_set(rng, n, outliers=0.4, span=1000.0):
    x = rng.uniform(0, span, n)
    y = 0.6 * x + 40 + rng.normal(0, 0.5, n)
    out = rng.random(n) < outliers
    y[out] = rng.uniform(0, span, int(out.sum()))
    return np.stack([x, y], 1).astype(np.float32)


def _line_image(rng, side, lines, p=0.5, noise=0.0, length=None):
    """Edge image with the given (rho, theta) lines rasterised (each pixel kept with probability
    p), optionally as segments of ``length`` px around a random point, plus salt noise."""
    img = np.zeros((side, side), np.uint8)
    for r, th in lines:
        t = np.arange(-2.0 * side, 2.0 * side, 0.5)
        if length is not None:
            c = rng.uniform(-side / 3, side / 3)
            t = t[np.abs(t - c) <= length / 2]
        x = np.rint(r * math.cos(th) - t * math.sin(th)).astype(np.int64)
        y = np.rint(r * math.sin(th) + t * math.cos(th)).astype(np.int64)
        ok = (x >= 0) & (x < side) & (y >= 0) & (y < side)
        xy = np.unique(np.stack([x[ok], y[ok]], 1), axis=0)
        keep = rng.random(len(xy)) < p
        img[xy[keep, 1], xy[keep, 0]] = 255
    if noise:
        img[rng.random((side, side)) < noise] = 255
    return img


def _random_line(rng, side):
    th = rng.uniform(0, math.pi)
    cx, cy = rng.uniform(0.35 * side, 0.65 * side, 2)
    return cx * math.cos(th) + cy * math.sin(th), th


def bench_rows(quick=False, seed=0):
    """Speed rows for ``cvgpu bench``. cvgpu_ms: CUDA events around the whole call (upload,
    kernels, download for numpy io), median after warm-up. cv2 has no LMS fitter: where cv2_ms is
    given it is cv2.fitLine(DIST_L2) on the same points (least squares, the non-robust reference;
    host clock, same run), otherwise None."""
    rng = np.random.default_rng(seed)
    cp = _backend.cupy_module()
    reps = 5 if quick else 20
    rows = []

    def row(function, workload, cv2_ms, cvgpu_ms, io):
        speedup = (cv2_ms / cvgpu_ms) if (cv2_ms is not None and cvgpu_ms) else None
        rows.append(dict(function=function, workload=workload, cv2_ms=cv2_ms, cvgpu_ms=cvgpu_ms,
                         speedup=speedup, io=io, exact=None,
                         cv2_baseline="cv2.fitLine(DIST_L2): a least-squares fit, not an LMS fit (cv2 has "
                                      "none); a reference cost, not the same computation"))

    for n in ((512,) if quick else (512, 2048)):
        xy = _outlier_set(rng, n)
        cv2_ms = _host_ms(lambda: cv2.fitLine(xy, cv2.DIST_L2, 0, 0.01, 0.01), reps)
        wl = "exact LMS (y on x) of %d points, 40%% outliers" % n
        if cp is None:
            row("fitLineLMS", wl, cv2_ms, None, "numpy")
            continue
        row("fitLineLMS", wl, cv2_ms, _gpu_ms(cp, lambda: fitLineLMS(xy, "vertical"), reps), "numpy")
        d = cp.asarray(xy)
        row("fitLineLMS", wl, cv2_ms, _gpu_ms(cp, lambda: fitLineLMS(d, "vertical"), reps), "device")
        wl_auto = wl.replace("(y on x)", "(auto: y on x and x on y)")
        row("fitLineLMS", wl_auto, cv2_ms, _gpu_ms(cp, lambda: fitLineLMS(xy), reps), "numpy")
    nb, npts = (20, 256) if quick else (100, 512)
    sets = [_outlier_set(rng, npts) for _ in range(nb)]
    cv2_ms = _host_ms(lambda: [cv2.fitLine(s_, cv2.DIST_L2, 0, 0.01, 0.01) for s_ in sets], reps)
    wl = "fitLineLMSBatch: %d sets x %d points (y on x), one launch (cv2: %d fitLine calls)" % (nb, npts, nb)
    row("fitLineLMS", wl, cv2_ms,
        None if cp is None else _gpu_ms(cp, lambda: fitLineLMSBatch(sets, residual="vertical"), reps), "numpy")

    side = 1024
    nl = 20 if quick else 100
    truth = [_random_line(rng, side) for _ in range(nl)]
    img = _line_image(rng, side, truth, p=0.5, noise=0.001, length=300)
    rho, theta = 1.0, math.pi / 180
    quant = np.array([[round(r / rho) * rho, round(t / theta) * theta] for r, t in truth],
                     np.float32).reshape(-1, 1, 2)
    sizes = [len(s_) for s_ in support_points(img, quant, rho, theta)] if cp is not None else []
    wl = ("refineHoughLines end to end: %dx%d edge image, %d segments of 300 px (p = 0.5) + 0.1%% salt, "
          "lines at their (1 px, 1 deg) cells, band 0.5; support %s points per line (mean)"
          % (side, side, nl, ("%.0f" % np.mean(sizes)) if sizes else "?"))
    row("refineHoughLines", wl, None,
        None if cp is None else _gpu_ms(cp, lambda: refineHoughLines(img, quant, rho, theta), reps), "numpy")
    if cp is not None:
        d_img, d_q = cp.asarray(img), cp.asarray(quant)
        row("refineHoughLines", wl, None, _gpu_ms(cp, lambda: refineHoughLines(d_img, d_q, rho, theta), reps),
            "device")
    return rows


def _slope_intercept(vx, vy, x0, y0, steep, side):
    """(slope, intercept) in the line's shallow frame: y = m x + b if not steep, else x = m y + b;
    the intercept is taken at the image centre (x = side / 2, resp. y = side / 2)."""
    c = side / 2.0
    if steep:
        m = vx / vy
        return m, x0 + m * (c - y0)
    m = vy / vx
    return m, y0 + m * (c - x0)


def _polar_to_dir(r, th):
    return -math.sin(th), math.cos(th), r * math.cos(th), r * math.sin(th)


def accuracy_rows(trials=40, noises=(0.0005, 0.001, 0.002, 0.004),
                  resolutions=((1.0, 1.0), (2.0, 2.0), (4.0, 4.0)), side=1024, seed=0):
    """The study's accuracy experiment. Per trial: a side x side image with one random line (each
    pixel kept with probability 0.5) plus salt noise; cv2.HoughLines at (rho px, theta deg); its
    top line is refined by refineHoughLines (LMS, band 0.5) and, on the same support points, by
    ordinary least squares. Errors in the true line's shallow frame (y on x if |slope| <= 1, else
    x on y): slope error = |m - m_true| * 100 (% of a 45-degree slope), intercept error =
    |b - b_true| px at the image centre. outliers = mean fraction of support points farther than
    1.5 px from the true line. Rows: dicts; print_accuracy() prints them as a table."""
    rng = np.random.default_rng(seed)
    out = []
    for rho, theta_deg in resolutions:
        theta = math.radians(theta_deg)
        for noise in noises:
            errs = {k: ([], []) for k in ("hough", "ols", "lms")}
            outl, found = [], 0
            for _ in range(trials):
                r_true, th_true = _random_line(rng, side)
                img = _line_image(rng, side, [(r_true, th_true)], p=0.5, noise=noise)
                lines = cv2.HoughLines(img, rho, theta, 60)
                if lines is None:
                    continue
                found += 1
                top = lines[:1]
                vx, vy, x0, y0 = _polar_to_dir(r_true, th_true)
                steep = abs(vy) > abs(vx)
                m_t, b_t = _slope_intercept(vx, vy, x0, y0, steep, side)
                pts = support_points(img, top, rho, theta)[0].astype(np.float64)
                nx, ny = math.cos(th_true), math.sin(th_true)
                if len(pts):
                    outl.append(float(np.mean(np.abs(pts[:, 0] * nx + pts[:, 1] * ny - r_true) > 1.5)))
                est = {"hough": _polar_to_dir(float(top[0, 0, 0]), float(top[0, 0, 1]))}
                if len(pts) >= 2:
                    u, v = (pts[:, 1], pts[:, 0]) if steep else (pts[:, 0], pts[:, 1])
                    m, b = np.polyfit(u, v, 1)
                    est["ols"] = (m, b)
                ref = refineHoughLines(img, top, rho, theta)
                est["lms"] = _polar_to_dir(float(ref[0, 0, 0]), float(ref[0, 0, 1]))
                for k, e in est.items():
                    if k == "ols":
                        m, b0 = e
                        b = b0 + m * side / 2.0
                    else:
                        m, b = _slope_intercept(*e, steep, side)
                    errs[k][0].append(abs(m - m_t) * 100.0)
                    errs[k][1].append(abs(b - b_t))
            row = dict(rho=rho, theta_deg=theta_deg, noise=noise, trials=found,
                       outliers=float(np.mean(outl)) if outl else None)
            for k, (se, ie) in errs.items():
                row[k + "_slope_pct"] = float(np.mean(se)) if se else None
                row[k + "_intercept_px"] = float(np.mean(ie)) if ie else None
            out.append(row)
    return out


def print_accuracy(rows):
    head = ("rho", "theta", "noise", "n", "outl", "Hough slope%", "OLS slope%", "LMS slope%",
            "Hough icpt px", "OLS icpt px", "LMS icpt px")
    print("| " + " | ".join(head) + " |")
    print("|" + "---:|" * len(head))
    f = lambda v, d=3: "-" if v is None else ("%.*f" % (d, v))  # noqa: E731
    for r in rows:
        print("| %g | %g | %g | %d | %s | %s | %s | %s | %s | %s | %s |" % (
            r["rho"], r["theta_deg"], r["noise"], r["trials"], f(r["outliers"], 2),
            f(r["hough_slope_pct"]), f(r["ols_slope_pct"]), f(r["lms_slope_pct"]),
            f(r["hough_intercept_px"]), f(r["ols_intercept_px"]), f(r["lms_intercept_px"])))


if __name__ == "__main__":
    import sys
    if "--bench" in sys.argv:
        for r in bench_rows(quick="--quick" in sys.argv):
            print(r)
    else:
        print_accuracy(accuracy_rows(trials=int(sys.argv[1]) if len(sys.argv) > 1 else 40))
