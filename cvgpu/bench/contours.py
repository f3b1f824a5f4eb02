"""Benchmark rows of findContours and findContoursLinkRuns ("contours", "contours-huge",
"contours-labels", "linkruns"), and the synthetic images they and the tests use."""
import cv2
import numpy as np

from .. import _backend
from .. import contours as cc
from ..contours import _common, _linkruns
from ._timing import same, time_device, time_host, timing_row


# ---------------------------------------------------------------- images

def blobs_image(h, w, seed=0, noise=0.0):
    """Smooth random blobs with holes (thresholded blurred noise), optional salt noise."""
    rng = np.random.default_rng(seed)
    small = rng.random((max(2, h // 16), max(2, w // 16))).astype(np.float32)
    field = cv2.resize(small, (w, h), interpolation=cv2.INTER_CUBIC)
    field = cv2.GaussianBlur(field, (0, 0), 6)
    img = ((field > 0.5) & ~((field > 0.6) & (field < 0.64))).astype(np.uint8) * 255
    if noise:
        img[rng.random((h, w)) < noise] = 255
    return img


def worst_snake(h, w):
    """One long 1-px serpentine: a single border through every foreground pixel, twice."""
    img = np.zeros((h, w), np.uint8)
    img[::2, :] = 1
    img[1::4, -1] = 1
    img[3::4, 0] = 1
    return img


def sparse_shapes_image(h, w, count=300, seed=0):
    """A large, mostly empty image: ``count`` shapes (discs with a hole and an island in it, rectangle
    outlines, filled ellipses, open polylines), overlapping at random, plus a few touching the image
    border and a pixel in each corner."""
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w), np.uint8)
    rmax = max(4, min(h, w) // 40)
    for i in range(count):
        cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
        r = int(rng.integers(3, rmax + 1))
        kind = i % 4
        if kind == 0:
            cv2.circle(img, (cx, cy), r, 255, -1)
            cv2.circle(img, (cx, cy), r * 2 // 3, 0, -1)
            cv2.circle(img, (cx, cy), r // 3, 255, -1)
        elif kind == 1:
            cv2.rectangle(img, (cx - r, cy - r // 2), (cx + r, cy + r // 2), 255, 1 + i % 3)
        elif kind == 2:
            cv2.ellipse(img, (cx, cy), (r, max(1, r // 3)), float(rng.integers(0, 180)), 0, 360, 255, -1)
        else:
            pts = np.stack([cx + rng.integers(-r, r + 1, 6), cy + rng.integers(-r, r + 1, 6)], 1).astype(np.int32)
            cv2.polylines(img, [pts], False, 255, 1)
    img[0, w // 4:w // 2] = 255
    img[h // 3:h // 2, w - 1] = 255
    img[h - 3:h, :min(w, 50)] = 255
    img[0, 0] = img[0, w - 1] = img[h - 1, 0] = img[h - 1, w - 1] = 255
    return img


def labels_image(h, w, seed=0, noise=0.0):
    """The label-image workload: 8-connected components of the blob workload (background 0), so
    with noise every salt pixel is its own region."""
    return cv2.connectedComponents(blobs_image(h, w, seed=seed, noise=noise), connectivity=8, ltype=cv2.CV_32S)[1]


def same_contours(ours, ref):
    """Whether two (contours, hierarchy) results are equal, bit for bit."""
    return len(ours[0]) == len(ref[0]) and all(same(a, b) for a, b in zip(ours[0], ref[0])) and same(ours[1], ref[1])


# ---------------------------------------------------------------- rows

def find_contours_rows(cp, img, d_img, workload, mode, method, reps, cv2_reps=None):
    """One workload's speed rows: findContours, cv2 against cvgpu with numpy io (host clock, cv2
    timed in this run), and on a GPU the packed device form beside it (CuPy in and out, no
    per-contour objects; CUDA events)."""
    result = {}

    def cv2_call():
        result["ref"] = cv2.findContours(img, mode, method)

    t_cv = time_host(cv2_call, cv2_reps or reps, warmup=0)
    ref = result["ref"]
    base = {"function": "findContours", "workload": workload, "contours": len(ref[0])}
    if cp is None:
        return [timing_row(base, t_cv)]
    exact = same_contours(cc.findContours(img, mode, method), ref)  # also the numpy path's warm-up
    t_np = time_host(lambda: cc.findContours(img, mode, method), reps, warmup=0)
    t_dev = time_device(cp, lambda: cc.findContoursPacked(d_img, mode, method), reps, warmup=1)
    return [timing_row(base, t_cv, t_np, "numpy", exact, packed_device_ms=t_dev["median"]),
            timing_row(dict(base, function="findContoursPacked"), t_cv, t_dev, "device", exact)]


def bench_rows(quick=False):
    """Speed rows ("contours"): cv2 vs cvgpu (numpy io) and the packed device form."""
    cp = _backend.cupy_module()
    rows = []
    scales = (1,) if quick else (1, 2, 4)
    reps = 3 if quick else 7
    modes = (("TREE", cv2.RETR_TREE), ("LIST", cv2.RETR_LIST), ("EXTERNAL", cv2.RETR_EXTERNAL))
    cases = [(label, noise, s, blobs_image(1028 * s, 1232 * s, seed=s, noise=noise), modes)
             for label, noise in (("blobs", 0.0), ("noisy", 0.01)) for s in scales]
    if not quick:
        # Worst cases: one 8-million-point border (a 1-px serpentine), and 288k tiny contours.
        cases.append(("snake", 0.0, 0, worst_snake(4096, 4096), modes[:2]))
        cases.append(("salt50", 0.0, 0, (np.random.default_rng(0).random((2048, 2048)) < 0.5).astype(np.uint8),
                      modes[1:2]))
    for noise_label, noise, s, img, case_modes in cases:
        h, w = img.shape
        d_img = cp.asarray(img) if cp is not None else None
        runs = [(mname, mode, "SIMPLE", cv2.CHAIN_APPROX_SIMPLE) for mname, mode in case_modes]
        if s == 1:
            runs += [("TREE", cv2.RETR_TREE, "TC89_L1", cv2.CHAIN_APPROX_TC89_L1),
                     ("TREE", cv2.RETR_TREE, "TC89_KCOS", cv2.CHAIN_APPROX_TC89_KCOS)]
        for mname, mode, meth_name, method in runs:
            workload = "%s %dx%d %s %s" % (noise_label, w, h, mname, meth_name)
            cv2_reps = max(1, reps // 2) if s == 4 and mode == cv2.RETR_TREE and noise else reps
            rows += find_contours_rows(cp, img, d_img, workload, mode, method, reps, cv2_reps)
    return rows


def huge_bench_rows(quick=False):
    """Speed rows on a 20000 x 20000 sparse image (sparse_shapes_image): cv2 and cvgpu (numpy io),
    and the packed device form (CuPy in and out), cv2 timed in the same run."""
    cp = _backend.cupy_module()
    img = sparse_shapes_image(20000, 20000, 300, seed=0)
    d_img = cp.asarray(img) if cp is not None else None
    reps = 1 if quick else 3
    runs = [("TREE", cv2.RETR_TREE, "SIMPLE", cv2.CHAIN_APPROX_SIMPLE),
            ("EXTERNAL", cv2.RETR_EXTERNAL, "SIMPLE", cv2.CHAIN_APPROX_SIMPLE)]
    if not quick:
        runs += [("LIST", cv2.RETR_LIST, "NONE", cv2.CHAIN_APPROX_NONE),
                 ("TREE", cv2.RETR_TREE, "TC89_L1", cv2.CHAIN_APPROX_TC89_L1)]
    rows = []
    for mname, mode, meth_name, method in runs:
        workload = "sparse 20000x20000 %s %s" % (mname, meth_name)
        rows += find_contours_rows(cp, img, d_img, workload, mode, method, reps)
    return rows


def labels_bench_rows(quick=False):
    """Speed rows for label images (RETR_FLOODFILL and RETR_CCOMP, CV_32SC1): cv2 vs cvgpu (numpy
    io) and the packed device form."""
    cp = _backend.cupy_module()
    rows = []
    scales = (1,) if quick else (1, 4)
    reps = 3 if quick else 7
    for label, noise in (("blobs", 0.0), ("noisy", 0.01)):
        for s in scales:
            img = labels_image(1028 * s, 1232 * s, seed=s, noise=noise)
            h, w = img.shape
            d_img = cp.asarray(img) if cp is not None else None
            runs = [("FLOODFILL", cv2.RETR_FLOODFILL, "SIMPLE", cv2.CHAIN_APPROX_SIMPLE),
                    ("CCOMP", cv2.RETR_CCOMP, "SIMPLE", cv2.CHAIN_APPROX_SIMPLE)]
            if s == 1:
                runs += [("FLOODFILL", cv2.RETR_FLOODFILL, "NONE", cv2.CHAIN_APPROX_NONE),
                         ("FLOODFILL", cv2.RETR_FLOODFILL, "TC89_L1", cv2.CHAIN_APPROX_TC89_L1)]
            for mname, mode, meth_name, method in runs:
                workload = "labels-%s %dx%d %s %s (%d regions)" % (label, w, h, mname, meth_name, int(img.max()) + 1)
                rows += find_contours_rows(cp, img, d_img, workload, mode, method, reps)
    return rows


def linkruns_bench_rows(quick=False):
    """Speed rows of findContoursLinkRuns against cv2: the blobs and noisy (1% salt) images at
    1232x1028 and 4x (4928x4112); numpy io (host clock, transfers and views included) and device
    io (CuPy in, CuPy views out; CUDA events), with the packed device pipeline beside it."""
    cp = _backend.cupy_module()
    rows = []
    reps = 3 if quick else 7
    for s in ((1,) if quick else (1, 4)):
        for label, noise in (("blobs", 0.0), ("noisy", 0.01)):
            img = blobs_image(1028 * s, 1232 * s, seed=s, noise=noise)
            h, w = img.shape
            workload = "%s %dx%d" % (label, w, h)
            ref = cv2.findContoursLinkRuns(img)
            t_cv = time_host(lambda: cv2.findContoursLinkRuns(img), max(1, reps // 2) if s == 4 else reps)
            base = {"function": "findContoursLinkRuns", "workload": workload, "contours": len(ref[0])}
            if cp is None:
                rows.append(timing_row(base, t_cv))
                continue
            ours = cc.findContoursLinkRuns(img)
            exact = same_contours(ours, ref)
            t_np = time_host(lambda: cc.findContoursLinkRuns(img), reps)
            d_img = cp.asarray(img)
            gpu = _common.current_gpu()
            t_packed = time_device(cp, lambda: _linkruns.linkruns_gpu(gpu, d_img), reps)
            rows.append(timing_row(base, t_cv, t_np, "numpy", bool(exact), packed_device_ms=t_packed["median"]))
            t_dev = time_device(cp, lambda: cc.findContoursLinkRuns(d_img), reps)
            rows.append(timing_row(base, t_cv, t_dev, "device", bool(exact), packed_device_ms=t_packed["median"]))
    return rows
