"""Exact Least-Median-of-Squares (LMS) line fitting on the GPU, and LMS refinement of Hough lines.

cvgpu's own extension (OpenCV has no LMS fitter), shaped like ``cv2.fitLine``.

Definitions
-----------
* n points, h = floor(n / 2) + 1 (the LMS literature's "half": the median for odd n, the upper
  median for even n). The LMS objective of a line is the h-th smallest squared residual.
* ``residual`` chooses the residual:
  - ``"vertical"``: y on x, r = y - (a x + b) -- the classical LMS regression (Rousseeuw). Lines are
    non-vertical; when every point has the same x the objective does not depend on the slope and
    the horizontal line is returned.
  - ``"horizontal"``: x on y, r = x - (a y + b) (the same regression in the swapped frame).
  - ``"perpendicular"``: orthogonal distance to the line (rotation invariant).
  - ``"auto"`` (default): both classical fits (y on x and x on y) are computed exactly in one
    launch and the one whose slab is thinner measured perpendicular to its own line is returned,
    so steep and vertical lines are fitted in the frame where they are shallow.
* "Exact": the returned line minimises the objective over all lines (of the mode), up to float32
  rounding: the optimum is attained at a slope through two of the points (equioscillation: the
  thinnest slab holding h points has two points on one boundary), so every pair (plus the axis
  direction, for degenerate sets) is a candidate, and a candidate's value is the h-th smallest
  residual on one side of the pair's line (the slab's other boundary). Residuals are float32
  (differences and cross products rounded once each; exact for integer coordinates below 2**11).
  Candidates within 1e-5 relative of the best found are not re-examined, so the returned objective
  is within 1e-5 relative (plus float32 rounding) of the minimum. Tests check this against an
  independent brute force (all pair slopes, all windows of h sorted residuals).
* ``halfwidth`` is the square root of the returned line's objective: half the width of the slab,
  measured along the residual direction of the fit (vertical for y on x, horizontal for x on y,
  perpendicular for ``"perpendicular"``; for ``"auto"`` that of the chosen fit).
* ``line`` is cv2.fitLine's (4, 1) float32 ``[vx, vy, x0, y0]``: unit direction with vx > 0 (or
  vx == 0, vy > 0), and (x0, y0) the centroid of the slab's points (those within halfwidth of the
  line) projected onto the line.

Algorithm (kernels/lms/lms.cu): with M = n (n + 1) / 2 candidates, about sqrt(M) of them (at least
256; all when M <= 256) spread over the candidate list are evaluated exactly (block radix select),
giving a bound; one thread per candidate then tests, in one pass with early exits, whether its slab
narrower than the bound (shrunk by 1e-5) holds h points; those that do (about M / sqrt(M) on
average, whatever the data) are evaluated exactly. Work O(n^3) worst case, streaming; memory O(n).
Results depend only on the point set (not on its position in a batch). Coordinates must be finite;
at most 46,340 points per set. Host syncs: one per call (the output download, which also reads the
candidate-list counter); device io: one small read of that counter. A list overflow adds, without
further syncs, one decide-and-evaluate round per window of the candidates; it happens where many
candidates pass the test, e.g. points far from the origin spread over a few units (the test's
rounding allowance grows with the coordinates).

Without a GPU the same definitions are computed with numpy (O(n^3) time, slow for thousands of
points) and a ``CvgpuFallbackWarning`` is issued once.

Tuned sizes are ``TUNING`` (cvgpu/_tuning.py); each GPU fit counts how its candidate list settled
(``TUNING.paths()``): "one_pass" or "windowed". The benchmark rows and the accuracy study of
refineHoughLines against least squares are in cvgpu/bench/lms.py.
"""
import math

import numpy as np

from . import _backend, _binding, _device_ops, _errors, _kernels, _versions
from ._arrays import as_device_array, on_input_device
from ._cvmath import cdiv
from ._tuning import Tuning

RESIDUALS = {"vertical": 0, "horizontal": 1, "perpendicular": 2, "auto": 3}
MAX_POINTS = 46340           # candidate ids (a * n + b) * 2 + side fit in 32 bits
_THREADS = 256               # LMS_THREADS of kernels/lms/lms.cu: its shared arrays are sized for it
_KERNELS = "lms/lms"         # kernels/lms/lms.cu

TUNING = Tuning(
    "lms",
    # Blocks per SM of the grid-stride kernels: sample, decide, evaluate, finish (bench rows "fitLineLMS").
    blocks_per_sm=8,
    # Candidate list: 64 entries a point in [list_min, list_max]; overflows settle in windows (bench "fitLineLMS").
    list_per_point=64,
    list_min=1 << 16,
    list_max=1 << 22,
    # Support gathering: a block per 32 px of the longer side, at most 32 a line (bench rows "refineHoughLines").
    gather_split_px=32,
    gather_splits_max=32,
)


# ---------------------------------------------------------------- argument layer

_ONE_D_ROW = _versions.behaviour("binding.one_d") == "row"


def _points_error(func):
    return _errors.bad_argument(func, "points is not a numpy array, neither a scalar",
                                "Expected Ptr<cv::UMat> for argument 'points'")


_NO_POINTS = "npoints2 >= 0 || npoints3 >= 0"


def _as_points(points, func):
    """(array (N, 2) host or CuPy, on_device). Accepts what cv2.fitLine reads as 2-D points (every
    dtype cv2's binding converts, bool included) and rejects the rest with cv2.fitLine's error: the
    binding's -5 for what it cannot convert, -215 for what is not a point vector (None, a number, a
    tuple: cv2 makes an empty Mat or a CV_64F column of them)."""
    dev = as_device_array(points)
    arr = dev if dev is not None else points
    try:
        if isinstance(arr, np.ndarray) or dev is not None:
            _binding.mat_header("points", arr, arr.shape, arr.dtype)
        else:
            mat = _binding.host_mat("points", points)
            if isinstance(mat, _binding.Pending):
                raise _errors.bad_argument(func, mat.message, mat.message)
            raise _errors.cv_error(_errors.ASSERTION_FAILED, _NO_POINTS, func, "lms.py", 0)
    except _binding.ConversionError as exc:
        raise _errors.bad_argument(func, str(exc), "Expected Ptr<cv::UMat> for argument 'points'") from None
    shape = arr.shape
    if dev is not None and len(shape) != 2 and not arr.flags.c_contiguous:
        # A reshape of a strided device array that cannot be a view is a compiled copy in CuPy.
        arr = _device_ops.ops(_backend.cupy_module()).contiguous(arr)
    # cv::Mat::checkVector(2): N x 2, N x 1 x 2, 1 x N x 2, or (2,) as one point (5.x's 1 x 2 row;
    # 4.x makes a 2 x 1 column of it, which checkVector refuses: _versions, binding.one_d).
    if len(shape) == 1 and shape[0] == 2 and _ONE_D_ROW:
        arr = arr.reshape(1, 2)
    elif len(shape) == 2 and shape[1] == 2:
        pass
    elif len(shape) == 3 and shape[2] == 2 and (shape[1] == 1 or shape[0] == 1):
        arr = arr.reshape(-1, 2)
    elif arr.size == 0 and len(shape) >= 1:
        arr = arr.reshape(0, 2)
    else:
        if (len(shape) == 2 and shape[1] == 3) or (len(shape) == 3 and shape[2] == 3 and 1 in shape[:2]):
            raise _errors.cv_error(_errors.NOT_IMPLEMENTED, "fitLineLMS fits 2-D points only", func,
                                   "lms.py", 0)
        raise _errors.cv_error(_errors.ASSERTION_FAILED, _NO_POINTS, func, "lms.py", 0)
    if arr.shape[0] == 0:
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "count > 0", func, "lms.py", 0)
    if arr.shape[0] > MAX_POINTS:
        raise _errors.cv_error(_errors.BAD_SIZE, "at most %d points per set" % MAX_POINTS, func,
                               "lms.py", 0)
    return arr, dev is not None


def _residual_code(residual, func):
    if residual not in RESIDUALS:
        raise _errors.cv_error(_errors.BAD_ARGUMENT, "residual must be one of %s" % sorted(RESIDUALS),
                               func, "lms.py", 0)
    return RESIDUALS[residual]


def _problems(counts, code):
    """Expand sets into problems: (starts index into sets, modes, choose pairs)."""
    nset = len(counts)
    if code == 3:
        set_of = np.repeat(np.arange(nset), 2)
        modes = np.tile(np.array([0, 1], np.int32), nset)
        choose = np.stack([np.arange(0, 2 * nset, 2), np.arange(1, 2 * nset, 2)], 1)
    else:
        set_of = np.arange(nset)
        modes = np.full(nset, code, np.int32)
        choose = np.stack([np.arange(nset), np.full(nset, -1)], 1)
    return set_of, modes, choose.astype(np.int32)


# ---------------------------------------------------------------- numpy implementation (fallback)

def _lms_numpy_one(xy, mode):
    """Best candidate key (width, id) by the kernels' definitions, float64. xy: (n, 2) float32."""
    x = xy[:, 0].astype(np.float64)
    y = xy[:, 1].astype(np.float64)
    n = len(x)
    h = n // 2 + 1
    best = (math.inf, -1)
    for a in range(n):
        b = np.arange(a, n)
        dx = x[b] - x[a]
        dy = y[b] - y[a]
        dx[0], dy[0] = (0.0, 1.0) if mode == 1 else (1.0, 0.0)
        norm = np.abs(dx) if mode == 0 else np.abs(dy) if mode == 1 else np.hypot(dx, dy)
        ok = norm > 0
        if not ok.any():
            continue
        b, dx, dy, norm = b[ok], dx[ok], dy[ok], norm[ok]
        v = dx[:, None] * (y[None, :] - y[a]) - dy[:, None] * (x[None, :] - x[a])
        for side, vv in ((0, v), (1, -v)):
            keys = np.where(vv >= 0, vv, np.inf)
            kth = np.partition(keys, h - 1, axis=1)[:, h - 1]
            w = kth / norm
            ids = (a * n + b) * 2 + side
            order = np.lexsort((ids, w))
            cand = (w[order[0]], int(ids[order[0]]))
            if cand < best:
                best = cand
    return best


def _geometry_numpy(xy, mode, key):
    x = xy[:, 0].astype(np.float64)
    y = xy[:, 1].astype(np.float64)
    n = len(x)
    w, ident = key
    if ident < 0 or not math.isfinite(w):
        return None
    side, ab = ident & 1, ident >> 1
    a, b = ab // n, ab % n
    if a == b:
        dx, dy = (0.0, 1.0) if mode == 1 else (1.0, 0.0)
    else:
        dx, dy = x[b] - x[a], y[b] - y[a]
    norm = abs(dx) if mode == 0 else abs(dy) if mode == 1 else math.hypot(dx, dy)
    length = math.hypot(dx, dy)
    hw = 0.5 * w
    vc = (0.5 if side == 0 else -0.5) * w * norm
    ux, uy = dx / length, dy / length
    cx, cy = x[a] - dy * vc / length ** 2, y[a] + dx * vc / length ** 2
    v = dx * (y - y[a]) - dy * (x - x[a])
    inl = np.abs(v - vc) <= hw * norm * (1 + 1e-6) + 1e-12
    mx, my = x[inl].mean(), y[inl].mean()
    tt = (mx - cx) * ux + (my - cy) * uy
    sx, sy = cx + tt * ux, cy + tt * uy
    t = (x[inl] - sx) * ux + (y[inl] - sy) * uy
    tmin, tmax = t.min(), t.max()
    if ux < 0 or (ux == 0 and uy < 0):
        ux, uy, tmin, tmax = -ux, -uy, -tmax, -tmin
    perp = hw * norm / length
    return dict(line=np.array([ux, uy, sx, sy], np.float32), hw=np.float32(hw), perp=perp,
                ext=np.array([sx + tmin * ux, sy + tmin * uy, sx + tmax * ux, sy + tmax * uy], np.float32),
                n=int(inl.sum()))


def fit_numpy(xy, code):
    """The whole fit of one set on the CPU: dict(line, hw, ext, n) (the no-GPU path)."""
    xy = np.ascontiguousarray(xy, dtype=np.float32).reshape(-1, 2)
    modes = (0, 1) if code == 3 else (code,)
    best = None
    for mode in modes:
        g = _geometry_numpy(xy, mode, _lms_numpy_one(xy, mode))
        if g is not None and (best is None or g["perp"] < best["perp"]):
            best = g
    return best


# ---------------------------------------------------------------- GPU pipeline

def _sample_count(m):
    """Candidates evaluated exactly per problem (kernels/lms/lms.cu sample_count, same arithmetic)."""
    k = np.floor(np.sqrt(m.astype(np.float64))).astype(np.int64)
    return np.minimum(m, np.maximum(k, 256))


def _meta_words(nprob, nout):
    """int64 words of the problems' metadata (see _run_problems); the last one is free."""
    return 5 * nprob + 3 + 2 * nout


def _host_meta(starts, counts, modes, choose, nout):
    """The metadata of _run_problems worked out on the host (numpy int64 words), and the largest
    candidate count."""
    nprob = int(starts.shape[0])
    m = counts.astype(np.int64) * (counts.astype(np.int64) + 1) // 2
    sample_units = _sample_count(m)
    decide_units = np.where(m > sample_units, (m + _THREADS - 1) // _THREADS, 0)
    ints = np.zeros(_meta_words(nprob, nout), dtype=np.int64)
    ints[:nprob] = starts
    ints[nprob + 1:2 * nprob + 1] = np.cumsum(sample_units)
    ints[2 * nprob + 2:3 * nprob + 2] = np.cumsum(decide_units)
    small = ints[3 * nprob + 2:].view(np.int32)  # counts | modes | choose, int32
    small[:nprob] = counts
    small[nprob:2 * nprob] = modes
    small[2 * nprob:2 * nprob + 2 * nout] = choose.reshape(-1)
    return ints, int(m.max())


def _run_problems(cp, pts, ints, nprob, nout, max_candidates):
    """Launch the LMS pipeline. pts: CuPy (P, 2) float32; ints: the problems' metadata as int64 words
    on the device, start[nprob] | sample unit offsets [nprob + 1] | decide unit offsets [nprob + 1]
    | int32 count[nprob], mode[nprob], choose[2 nout] (_host_meta, or lms_refine_plan on the
    device); max_candidates() the largest candidate count (read only for a list overflow).
    Returns device arrays (out_f = line (nout,4) | hw (nout,) | ext (nout,4), inliers (nout,)), the
    candidate-list counter and settle(count) for the rare list overflow."""
    num_sms, _ = _kernels.device_properties()
    blocks = num_sms * TUNING.blocks_per_sm
    small = ints[3 * nprob + 2:].view(cp.int32)
    starts = ints[:nprob]
    sample_off, decide_off = ints[nprob:2 * nprob + 1], ints[2 * nprob + 1:3 * nprob + 2]
    counts, modes = small[:nprob], small[nprob:2 * nprob]
    choose = small[2 * nprob:2 * nprob + 2 * nout]
    maxabs = cp.empty(nprob, dtype=cp.float32)
    best = cp.empty(nprob, dtype=cp.uint64)
    total_points = int(pts.shape[0])
    capacity = _cap_points(total_points)
    cand = cp.empty((capacity, 2), dtype=cp.int32)
    list_count = cp.zeros(1, dtype=cp.uint32)
    args_p = (pts, starts, counts, modes)
    _kernels.get_function(_KERNELS, "lms_prepare")(
        (min(nprob, blocks),), (_THREADS,), (pts, starts, counts, np.int32(nprob), maxabs, best))
    _kernels.get_function(_KERNELS, "lms_sample")(
        (blocks,), (_THREADS,), args_p + (np.int32(nprob), sample_off, best))

    def decide_and_eval(t_lo=0, t_hi=1 << 62):
        _kernels.get_function(_KERNELS, "lms_decide")(
            (blocks,), (_THREADS,),
            args_p + (np.int32(nprob), decide_off, best, maxabs, cand, list_count, np.int64(capacity),
                      np.int64(t_lo), np.int64(t_hi)))
        _kernels.get_function(_KERNELS, "lms_eval_list")(
            (blocks,), (_THREADS,),
            args_p + (cand, list_count, np.int64(capacity), best))

    decide_and_eval()
    out_f = cp.empty(nout * 9, dtype=cp.float32)
    out_n = cp.empty(nout, dtype=cp.int32)

    def finish():
        _kernels.get_function(_KERNELS, "lms_finish")(
            (min(nout, blocks),), (_THREADS,),
            args_p + (best, choose, np.int32(nout), out_f[:4 * nout], out_f[4 * nout:5 * nout],
                      out_f[5 * nout:], out_n))

    finish()

    def settle(count_host):
        """Rare: more candidates passed the decide test than the list held (many near-ties, or
        points far from the origin, where the test's rounding allowance exceeds the widths; then
        rerunning the whole test can overflow again every time). The candidates are then decided
        and evaluated window by window: ``window`` per problem cannot overflow the list, and the
        rounds end after the largest problem's last window. Returns whether anything was redone."""
        if int(count_host) <= capacity:
            TUNING.ran("one_pass")
            return False
        TUNING.ran("windowed")
        window = max(1, capacity // nprob)
        for t_lo in range(0, max_candidates(), window):
            list_count.fill(0)
            decide_and_eval(t_lo, t_lo + window)
        finish()
        return True

    return out_f, out_n, list_count, settle


# ---------------------------------------------------------------- public API

@on_input_device(0, "points")
def fitLineLMS(points, residual="auto"):
    """fitLineLMS(points[, residual]) -> line, halfwidth

    Exact Least-Median-of-Squares line of 2-D points (N x 2, N x 1 x 2; int or float; numpy or
    CuPy). ``line`` is cv2.fitLine's (4, 1) float32 [vx, vy, x0, y0]; ``halfwidth`` is the square
    root of the LMS objective (see the module docstring for h, the residual modes and "exact").
    numpy in: (numpy, float); device in: (CuPy, 0-d CuPy float32).

    .. note::
       Where a mode's optimum is attained by several lines (a flat stretch of slopes: points on a
       few rows or columns, duplicates), any of them may be returned, and for ``"auto"`` the choice
       between the two classical fits is made on the lines found, so the line returned can be
       thicker across itself than another optimum of the same mode (10 % on a horizontal row with
       70 % outliers). The slab width along the residual is exact in every case.
    """
    func = "fitLineLMS"
    code = _residual_code(residual, func)
    arr, on_device = _as_points(points, func)
    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        _backend.record("numpy")
        host = arr if isinstance(arr, np.ndarray) else arr.get()
        r = fit_numpy(np.asarray(host, dtype=np.float32), code)
        return r["line"].reshape(4, 1), float(r["hw"])
    _backend.record("cuda")
    d = _float_points(cp, arr)
    n = d.shape[0]
    lines, hws = _fit_gpu(cp, d, np.array([0], np.int64), np.array([n], np.int32), code, not on_device)
    if on_device:
        return lines[0], hws[0]
    return lines[0], float(hws[0])


def _float_points(cp, arr, out=None):
    """(N, 2) points on the device as a C-contiguous float32 array (astype(float32) on the device,
    cvgpu._device_ops; into ``out`` when given)."""
    dev = cp.asarray(arr) if isinstance(arr, np.ndarray) else arr
    return _device_ops.ops(cp).contiguous(dev, np.float32, out=out).reshape(-1, 2)


def _offsets(offsets, func):
    """offsets as int64 indices: integers, or floats holding integers; anything else is cv2.error -5."""
    try:
        off = offsets.get() if hasattr(offsets, "get") and not isinstance(offsets, np.ndarray) else np.asarray(offsets)
    except (TypeError, ValueError):
        off = None
    if off is None or off.dtype.kind not in "biuf" or (
            off.dtype.kind == "f" and not np.all(np.isfinite(off) & (off == np.round(off)))):
        raise _errors.cv_error(_errors.BAD_ARGUMENT, "offsets must be integer indices", func, "lms.py", 0)
    return off.astype(np.int64).ravel()


def _empty_batch(on_device):
    lines, hws = np.zeros((0, 4, 1), np.float32), np.zeros(0, np.float32)
    if on_device:
        cp = _backend.cupy_module()
        return cp.asarray(lines), cp.asarray(hws)
    return lines, hws


@on_input_device(0, "points")
def fitLineLMSBatch(points, offsets=None, residual="auto"):
    """fitLineLMSBatch(points[, offsets[, residual]]) -> lines, halfwidths

    Many exact LMS fits in one launch. ``points`` is a list of point arrays (each as fitLineLMS
    takes), or one packed (P, 2) array with ``offsets`` (B + 1 increasing indices; set i is
    points[offsets[i]:offsets[i + 1]]). Returns (B, 4, 1) float32 lines (lines[i] is what
    fitLineLMS gives for set i) and (B,) float32 half-widths. Every set needs at least one point.
    """
    func = "fitLineLMSBatch"
    code = _residual_code(residual, func)
    cp = _backend.cupy_module()
    if offsets is None:
        if not isinstance(points, (list, tuple)):
            raise _points_error(func)
        sets = [_as_points(p, func) for p in points]
        on_device = bool(sets) and all(dv for _, dv in sets)
        if not sets:
            return _empty_batch(False)
        counts = np.array([a.shape[0] for a, _ in sets], np.int64)
        if cp is None:
            hosts = [np.asarray(a if isinstance(a, np.ndarray) else a.get(), np.float32) for a, _ in sets]
        else:
            hosts = None
            # C order, explicitly: the kernels read float2 pairs, and np.concatenate keeps the
            # Fortran order of Fortran-ordered inputs.
            if on_device:
                packed = cp.empty((int(counts.sum()), 2), dtype=cp.float32)
                at = 0
                for (a, _), c in zip(sets, counts.tolist()):
                    _float_points(cp, a, out=packed[at:at + c])
                    at += c
            else:
                packed = cp.asarray(np.ascontiguousarray(np.concatenate(
                    [np.asarray(a, dtype=np.float32).reshape(-1, 2) for a, _ in sets])))
        starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
    else:
        arr, on_device = _as_points(points, func)
        off = _offsets(offsets, func)
        if off.size < 1 or off[0] < 0 or off[-1] > arr.shape[0] or np.any(np.diff(off) <= 0):
            raise _errors.cv_error(_errors.BAD_ARGUMENT, "offsets must increase strictly within the points",
                                   func, "lms.py", 0)
        if off.size == 1:  # no sets, as an empty list of sets
            return _empty_batch(on_device)
        counts = np.diff(off)
        if np.any(counts > MAX_POINTS):
            raise _errors.cv_error(_errors.BAD_SIZE, "at most %d points per set" % MAX_POINTS, func, "lms.py", 0)
        starts = off[:-1]
        if cp is None:
            host = np.asarray(arr if isinstance(arr, np.ndarray) else arr.get(), np.float32)
            hosts = [host[s:s + c] for s, c in zip(starts, counts)]
        else:
            packed = _float_points(cp, arr)
    if cp is None:
        _backend.warn_fallback()
        _backend.record("numpy")
        rs = [fit_numpy(h, code) for h in hosts]
        return (np.stack([r["line"] for r in rs]).reshape(-1, 4, 1),
                np.array([r["hw"] for r in rs], np.float32))
    _backend.record("cuda")
    return _fit_gpu(cp, packed, starts, counts.astype(np.int32), code, not on_device)


def _fit_gpu(cp, packed, starts, counts, code, to_host):
    nset = len(counts)
    set_of, modes, choose = _problems(counts, code)
    ints, max_m = _host_meta(np.asarray(starts, np.int64)[set_of], np.asarray(counts, np.int64)[set_of],
                             modes, choose, nset)
    out_f, out_n, list_count, settle = _run_problems(
        cp, packed, cp.asarray(ints), len(set_of), nset, lambda: max_m)  # the one upload of the metadata
    if to_host:
        host, count = _device_ops.ops(cp).download(out_f[:5 * nset], list_count)  # the one sync
        if settle(count[0]):
            host = out_f[:5 * nset].get()
        return host[:4 * nset].reshape(nset, 4, 1).copy(), host[4 * nset:5 * nset].copy()
    settle(int(list_count.get()[0]))  # one small sync: has the candidate list overflowed?
    return out_f[:4 * nset].reshape(nset, 4, 1), out_f[4 * nset:5 * nset]


# ---------------------------------------------------------------- refineHoughLines

def _strip_widths(rows, cols, rho, theta, band):
    bt = (band + 0.5) * theta
    br = (band + 0.5) * rho
    btc = min(bt, 0.7)
    hyp = math.hypot(rows, cols)
    span = (br + hyp * math.sin(btc)) / max(math.sqrt(0.5) - btc, 0.25)
    w = 2 * int(math.ceil(max(span, 0.0))) + 3  # band <= -0.5: an empty box, the narrowest strip
    return bt, br, min(cols, w), min(rows, w)


@on_input_device(0, "image")
def refineHoughLines(image, lines, rho, theta, band=0.5, segments=False, min_support=3):
    """refineHoughLines(image, lines, rho, theta[, band[, segments[, min_support]]]) -> lines

    LMS refinement of HoughLines output. ``image``: the 8-bit single-channel edge image given to
    HoughLines; ``lines``: its (N, 1, 2) float32 (rho, theta) output; ``rho``/``theta``: the
    accumulator resolution used.

    Support of a line: nonzero pixels whose sinusoid x cos t + y sin t passes through the Hough
    box theta_k +- (band + 0.5) theta, rho_k +- (band + 0.5) rho: pixels that voted (in the
    continuous transform) for the line's cell widened by ``band`` cells on each side (band 0: the
    cell itself; the default 0.5 reaches half-way into the neighbouring cells, which covers the
    true line when the peak landed in a neighbour of its cell). Each line's support
    is gathered on the GPU and fitted by exact LMS (y on x for lines nearer horizontal, x on y for
    steeper ones: the classical objective in the line's shallow frame), all lines in one batched
    launch. Returns (N, 1, 2) float32 (rho, theta) in the representation nearest the input theta
    (theta may leave [0, pi) by less than pi/2, rho then changes sign); with ``segments=True``
    (N, 1, 4) int32 [x1, y1, x2, y2], the extent of the LMS slab's points along the line. Lines
    with fewer than ``min_support`` slab points are returned unchanged (segment -1s).
    """
    func = "refineHoughLines"
    if lines is None:
        return None
    dev_img = as_device_array(image)
    img = dev_img if dev_img is not None else image
    if not hasattr(img, "shape") or img.dtype != np.uint8 or img.ndim != 2:
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "img.type() == CV_8UC1", func, "lms.py", 0)
    dev_lines = as_device_array(lines)
    ln = dev_lines if dev_lines is not None else np.asarray(lines)
    if ln.dtype != np.float32 or ln.size % 2 or (ln.ndim == 3 and ln.shape[1:] != (1, 2)):
        raise _errors.cv_error(_errors.ASSERTION_FAILED, "lines must be HoughLines' (N, 1, 2) float32",
                               func, "lms.py", 0)
    try:
        rho, theta = _binding._to_double("rho", rho), _binding._to_double("theta", theta)
        band = _binding._to_double("band", band)
    except _binding.ConversionError as exc:
        raise _errors.bad_argument(func, str(exc), str(exc)) from None
    if not (rho > 0 and theta > 0):
        raise _errors.cv_error(_errors.BAD_ARGUMENT, "rho and theta must be positive", func, "lms.py", 0)
    if not (math.isfinite(rho) and math.isfinite(theta) and math.isfinite(band)):
        raise _errors.cv_error(_errors.BAD_VALUE, "rho, theta and band must be finite", func, "lms.py", 0)
    on_device = dev_img is not None or dev_lines is not None
    nlines = ln.size // 2
    rows, cols = img.shape
    try:
        bt, br, w_rows, w_cols = _strip_widths(rows, cols, rho, theta, band)
    except (OverflowError, ValueError):  # a band so wide that the strip is not a number
        raise _errors.cv_error(_errors.BAD_VALUE, "band too large", func, "lms.py", 0) from None
    cp = _backend.cupy_module()
    if cp is None:
        _backend.warn_fallback()
        _backend.record("numpy")
        return _refine_numpy(np.asarray(img), np.asarray(ln, np.float32).reshape(-1, 2), bt, br,
                             segments, min_support)
    _backend.record("cuda")
    if nlines == 0:
        out = np.zeros((0, 1, 4 if segments else 2), np.int32 if segments else np.float32)
        return cp.asarray(out) if on_device else out
    ops = _device_ops.ops(cp)
    d_img = ops.contiguous(cp.asarray(img))
    d_lines = ops.contiguous(cp.asarray(ln)).reshape(-1, 2)
    pts, offsets, nsplit = _gather_gpu(cp, d_img, d_lines, bt, br, w_rows, w_cols)
    # One problem a line, its metadata worked out on the device (lms_refine_plan). Sets with no
    # point still need a valid start (their best stays "none": line kept).
    words = _meta_words(nlines, nlines)
    ints = cp.zeros(words, dtype=cp.int64)
    _kernels.get_function(_KERNELS, "lms_refine_plan")(
        (1,), (1024,), (offsets, np.int32(nsplit), np.int32(nlines), d_lines, np.int32(_THREADS), np.int64(words),
                        ints))
    out_f, out_n, list_count, settle = _run_problems(cp, pts, ints, nlines, nlines,
                                                     lambda: int(ints[words - 1:].get()[0]))
    fit = out_f[:4 * nlines]
    ext = out_f[5 * nlines:]
    polar = cp.empty(2 * nlines, dtype=cp.float32)
    seg = cp.empty(4 * nlines, dtype=cp.int32) if segments else None
    result = seg.reshape(-1, 1, 4) if segments else polar.reshape(-1, 1, 2)

    def to_polar():
        _kernels.get_function(_KERNELS, "lms_to_polar")(
            (cdiv(nlines, 128),), (128,),
            (fit, out_n, d_lines, np.int32(nlines), np.int32(min_support), polar, ext,
             seg if seg is not None else np.uint64(0)))

    to_polar()
    if on_device:
        if settle(list_count.get()[0]):  # one small sync: has the candidate list overflowed?
            to_polar()
        return result
    host, count = ops.download(result, list_count)  # the one sync
    if settle(count[0]):
        to_polar()
        host = result.get()
    return host.copy()


def _gather_gpu(cp, d_img, d_lines, bt, br, w_rows, w_cols):
    """Each line's support, packed in raster order: (points (capacity, 2) float32, offsets, nsplit):
    line k's points are points[offsets[k * nsplit]:offsets[(k + 1) * nsplit]]."""
    rows, cols = d_img.shape
    nlines = int(d_lines.shape[0])
    nsplit = max(1, min(TUNING.gather_splits_max, max(rows, cols) // TUNING.gather_split_px))
    counts = cp.empty(nlines * nsplit, dtype=cp.int32)
    offsets = cp.empty(nlines * nsplit + 1, dtype=cp.int64)
    capacity = nlines * max(rows * w_rows, cols * w_cols)
    pts = cp.empty((capacity, 2), dtype=cp.float32)
    gather = _kernels.get_function(_KERNELS, "lms_gather")
    common = (d_img, np.int32(rows), np.int32(cols), np.int64(d_img.strides[0]), d_lines, np.int32(nlines),
              np.float32(bt), np.float32(br), np.int32(w_rows), np.int32(w_cols))
    gather((nlines, nsplit), (_THREADS,), common + (offsets, counts, pts, np.int32(0)))
    _device_ops.ops(cp).offsets(counts, out=offsets)
    gather((nlines, nsplit), (_THREADS,), common + (offsets, counts, pts, np.int32(1)))
    return pts, offsets, nsplit


def support_points(image, lines, rho, theta, band=0.5):
    """Each line's support set as refineHoughLines gathers it: a list of (n_k, 2) float32 numpy
    arrays (GPU when available, else numpy). For studies (OLS on the same points)."""
    ln = np.asarray(lines, np.float32).reshape(-1, 2)
    rows, cols = image.shape
    bt, br, w_rows, w_cols = _strip_widths(rows, cols, rho, theta, band)
    cp = _backend.cupy_module()
    if cp is None:
        ys, xs = np.nonzero(image)
        x, y = xs.astype(np.float64), ys.astype(np.float64)
        return [np.stack([x[m], y[m]], 1).astype(np.float32)
                for m in (_supports_numpy(x, y, float(r), float(t), bt, br) for r, t in ln)]
    pts, offsets, nsplit = _gather_gpu(cp, cp.asarray(np.ascontiguousarray(image)), cp.asarray(ln), bt, br,
                                       w_rows, w_cols)
    off = offsets.get()
    starts, n_per = off[:-1:nsplit][:len(ln)], np.diff(off[::nsplit])[:len(ln)]
    total = int(starts[-1] + n_per[-1]) if len(starts) else 0
    host = pts[:total].get()
    return [host[s:s + c] for s, c in zip(starts, n_per)]


def _cap_points(npoints):
    """Candidate-list entries for ``npoints`` points in all (TUNING's list_* rule)."""
    return max(TUNING.list_min, min(TUNING.list_max, int(npoints) * TUNING.list_per_point))


def _supports_numpy(x, y, rk, tk, bt, br):
    t1, t2 = tk - bt, tk + bt
    f1 = x * np.cos(t1) + y * np.sin(t1)
    f2 = x * np.cos(t2) + y * np.sin(t2)
    lo, hi = np.minimum(f1, f2), np.maximum(f1, f2)
    R, phi = np.hypot(x, y), np.arctan2(y, x)
    for k in range(-2, 3):
        tm = phi + k * math.pi
        inside = (tm >= t1) & (tm <= t2)
        if k % 2:
            lo = np.where(inside, np.minimum(lo, -R), lo)
        else:
            hi = np.where(inside, np.maximum(hi, R), hi)
    return (hi >= rk - br) & (lo <= rk + br)


def _refine_numpy(img, ln, bt, br, segments, min_support, supports=None):
    ys, xs = np.nonzero(img)
    x, y = xs.astype(np.float64), ys.astype(np.float64)
    out = []
    for k, (rk, tk) in enumerate(ln.astype(np.float64)):
        mode = 0 if abs(math.sin(tk)) >= abs(math.cos(tk)) else 1
        if supports is None:
            sel = _supports_numpy(x, y, rk, tk, bt, br)
            pts = np.stack([x[sel], y[sel]], 1).astype(np.float32)
        else:
            pts = np.asarray(supports[k], np.float32).reshape(-1, 2)
        r = None
        if len(pts):
            r = _geometry_numpy(pts, mode, _lms_numpy_one(pts, mode))
        if r is None or r["n"] < min_support:
            out.append([-1] * 4 if segments else [rk, tk])
            continue
        if segments:
            out.append([int(np.rint(v)) for v in r["ext"].astype(np.float64)])
            continue
        vx, vy, x0, y0 = r["line"].astype(np.float64)
        th = math.atan2(vx, -vy)
        rr = x0 * math.cos(th) + y0 * math.sin(th)
        while th - tk > math.pi / 2:
            th, rr = th - math.pi, -rr
        while tk - th > math.pi / 2:
            th, rr = th + math.pi, -rr
        out.append([rr, th])
    if segments:
        return np.array(out, np.int32).reshape(-1, 1, 4)
    return np.array(out, np.float32).reshape(-1, 1, 2)
