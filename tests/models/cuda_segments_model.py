"""An exact CPU model of OpenCV-CUDA's HoughSegmentDetector (cudaimgproc's hough_segments.cu driven as
HoughSegmentDetector::detect does), which cvgpu.cuda.createHoughSegmentDetector reproduces.

OpenCV's pip wheels have no CUDA: the reference is OpenCV's own output recorded on a GPU (the shared
golden corpus; tests/cuda/test_cuda_segments_model.py checks this model against all of it without a
GPU), and this model carries the comparison to any image (tests/cuda/test_cuda_segments.py compares
the detector with it). Pure numpy, vectorised over the local maxima; float32 arithmetic throughout:

* voting: the lines detector's accumulator (cuda_hough_model.model_accumulator);
* maxima: votes >= (threshold if threshold > 0 else minLineLength), strictly above all 8 neighbours;
* start of the walk: CUDA's sincosf, correctly rounded divisions, and the contractions nvcc made:
  ``p0.y + a * dir.y`` is fmaf(a, dir.y, p0.y) (and the same for x); ``cols - 1 - p0.x`` is not
  fused. Established against the golden corpus: this choice matches all 240 cases; the
  alternatives of ``start_points``' ``fused`` each fail some (no FMA: 10 cases, the products
  sin/cos * radius fused instead: 7, ``cols - 1 - p0.x`` fused too: 2; see
  test_cuda_segments_golden.test_other_contractions_disagree_with_golden).
* the walk: one rounded float32 add per coordinate and step, the pixel at (floor(x), floor(y));
  runs of edge steps joined across at most maxLineGap non-edge steps; kept when the float32
  |x1 - x0| or |y1 - y0| reaches minLineLength; end points truncated to int.
* order: cvgpu's documented one: by maximum in raster order, then along the walk; the first
  maxLines kept.
"""
import numpy as np

from cuda_hough_model import f32, fma32, model_accumulator, model_sincosf


def model_maxima8(acc, threshold):
    """(n, r) of the 8-neighbour strict local maxima with votes >= threshold, in raster order."""
    inner = acc[1:-1, 1:-1]
    m = inner >= threshold
    for dn in (0, 1, 2):
        for dr in (0, 1, 2):
            if (dn, dr) != (1, 1):
                m &= inner > acc[dn:dn + inner.shape[0], dr:dr + inner.shape[1]]
    return np.nonzero(m)


def start_points(n, r, numrho, rows, cols, rho, theta, fused="a"):
    """(x0, y0, step x, step y) float32 of each maximum's walk; fused: "a" fmaf(a, dir, p0) (the
    kernel's), "p" fmaf(sin/cos, radius, a * dir), "none", or "a+sub" ("a" with cols - 1 - p0.x
    fused as fmaf(-cos, radius, cols - 1))."""
    rho, theta = f32(rho), f32(theta)
    radius = ((r.astype(f32) - f32(f32(numrho - 1) * f32(0.5))) * rho).astype(f32)
    angle = (n.astype(f32) * theta).astype(f32)
    sina, cosa = model_sincosf(angle)
    p0x, p0y = (cosa * radius).astype(f32), (sina * radius).astype(f32)
    dx, dy = (-sina).astype(f32), cosa.astype(f32)
    with np.errstate(all="ignore"):
        def far(cst, trig, p):  # cst - p, p = trig * radius
            return fma32(-trig, radius, f32(cst)) if fused == "a+sub" else (f32(cst) - p).astype(f32)

        def along(p, trig, a, d):  # p + a * d, p = trig * radius
            if fused == "p":
                return fma32(trig, radius, (a * d).astype(f32))
            if fused == "none":
                return (p + (a * d).astype(f32)).astype(f32)
            return fma32(a, d, p)
        h01, h23 = dx != 0, dy != 0
        b0y = np.where(h01, along(p0y, sina, (-p0x / dx).astype(f32), dy), f32(-1))
        b1y = np.where(h01, along(p0y, sina, (far(cols - 1, cosa, p0x) / dx).astype(f32), dy), f32(-1))
        b2x = np.where(h23, along(p0x, cosa, (-p0y / dy).astype(f32), dx), f32(-1))
        b3x = np.where(h23, along(p0x, cosa, (far(rows - 1, sina, p0y) / dy).astype(f32), dx), f32(-1))
    c0 = h01 & (b0y >= 0) & (b0y < rows)
    c1 = ~c0 & h01 & (b1y >= 0) & (b1y < rows)
    c2 = ~c0 & ~c1 & h23 & (b2x >= 0) & (b2x < cols)
    c3 = ~c0 & ~c1 & ~c2 & h23 & (b3x >= 0) & (b3x < cols)
    x0 = np.select([c0, c1, c2, c3], [f32(0), f32(cols - 1), b2x, b3x], p0x).astype(f32)
    y0 = np.select([c0, c1, c2, c3], [b0y, b1y, f32(0), f32(rows - 1)], p0y).astype(f32)
    flip = (c0 & (dx < 0)) | (c1 & (dx > 0)) | (c2 & (dy < 0)) | (c3 & (dy > 0))
    dx, dy = np.where(flip, -dx, dx).astype(f32), np.where(flip, -dy, dy).astype(f32)
    big = np.abs(dx) > np.abs(dy)
    with np.errstate(all="ignore"):
        sx = np.where(big, np.where(dx > 0, f32(1), f32(-1)), (dx / np.abs(dy)).astype(f32)).astype(f32)
        sy = np.where(big, (dy / np.abs(dx)).astype(f32), np.where(dy > 0, f32(1), f32(-1))).astype(f32)
    return x0, y0, sx, sy


def walk(img, x0, y0, sx, sy, min_len, max_gap, elems=1 << 23, limit=None):
    """The segments of every walk: int32 (S, 4) and the walk (maximum) index of each, ordered by walk
    and then along it: ``walk_stepwise``'s result (tests/cuda/test_cuda_segments.py checks that they
    agree), computed on a (walks x steps) grid instead of one numpy pass per step (20x fewer calls).

    Positions: one float32 add per step is a sequential float32 cumulative sum (numpy's accumulate
    rounds once per element, in order). A walk is processed while inside the image; its edge steps
    are its "on" steps; two consecutive on steps with more than max(maxLineGap, 0) steps between
    them end a segment (the state machine ends one after maxLineGap + 1 off steps, and never
    between adjacent on steps); leaving the image ends the last. Each segment runs from its first
    on step's position to its last's and is kept when either float32 extent reaches minLineLength.
    With ``limit``, the walks after the one that completes the first ``limit`` segments are not
    walked (the result's first ``limit`` rows are the same; chunks of walks grow from 64)."""
    rows, cols = img.shape
    edge = np.asarray(img).ravel() != 0
    x0, y0 = np.asarray(x0, f32), np.asarray(y0, f32)
    sx, sy = np.asarray(sx, f32), np.asarray(sy, f32)
    split = max(int(max_gap), 0) + 1
    length = f32(min_len)
    steps = max(rows, cols) + 2  # the major axis moves by 1 a step: every walk has left by then
    most = max(1, elems // steps)
    per = most if limit is None else min(64, most)
    found, total, c = [], 0, 0
    while c < len(x0) and (limit is None or total < limit):
        e = min(len(x0), c + per)
        b, c, per = c, e, min(most, 2 * per)  # this chunk: walks b..e-1
        with np.errstate(all="ignore"):
            X = np.add.accumulate(np.concatenate([x0[b:e, None], np.repeat(sx[b:e, None], steps, 1)], 1), 1, dtype=f32)
            Y = np.add.accumulate(np.concatenate([y0[b:e, None], np.repeat(sy[b:e, None], steps, 1)], 1), 1, dtype=f32)
        # A walk's coordinates are monotone (a float32 add of a fixed-sign step never goes back), so
        # the steps it spends inside are counted per axis: it leaves at the first step outside.
        left = np.minimum(_steps_inside(X, sx[b:e], cols), _steps_inside(Y, sy[b:e], rows))
        live = np.arange(steps + 1, dtype=np.int32)[None, :] < left[:, None].astype(np.int32)
        # (where not live the pixel index is clamped into the image; those steps are masked out)
        xi = np.minimum(np.where(live, X, f32(0)).astype(np.int32), cols - 1)
        yi = np.minimum(np.where(live, Y, f32(0)).astype(np.int32), rows - 1)
        on = live & edge[yi * np.int32(cols) + xi] if rows * cols < 2**31 else \
            live & edge[yi.astype(np.int64) * cols + xi]
        w, k = np.nonzero(on)  # by walk, then step
        if not len(w):
            continue
        first = np.ones(len(w), bool)
        first[1:] = (w[1:] != w[:-1]) | (k[1:] - k[:-1] > split)
        starts = np.flatnonzero(first)
        ends = np.append(starts[1:], len(w)) - 1
        ws, k0, k1 = w[starts], k[starts], k[ends]
        ax, ay, bx, by = X[ws, k0], Y[ws, k0], X[ws, k1], Y[ws, k1]
        keep = (np.abs((bx - ax).astype(f32)) >= length) | (np.abs((by - ay).astype(f32)) >= length)
        ws, ax, ay, bx, by = ws[keep], ax[keep], ay[keep], bx[keep], by[keep]
        total += len(ws)
        found.append(np.stack([ws + b, ax.astype(np.int64), ay.astype(np.int64), bx.astype(np.int64),
                               by.astype(np.int64)], 1))
    if not found:
        return np.zeros((0, 4), np.int32), np.zeros(0, np.int64)
    o = np.concatenate(found)
    return o[:, 1:].astype(np.int32), o[:, 0]


def _steps_inside(P, step, size):
    """Per walk (row of P, monotone along the row): how many leading positions lie in [0, size)."""
    up = step > 0
    down = step < 0
    n = np.where(up, np.count_nonzero(P < size, axis=1), np.where(down, np.count_nonzero(P >= 0, axis=1),
                                                                    P.shape[1]))
    # the start must be inside too (a walk that starts outside never runs): 0 then
    start = (P[:, 0] >= 0) & (P[:, 0] < size)
    return np.where(start, n, 0)


def walk_stepwise(img, x0, y0, sx, sy, min_len, max_gap, drop=True):
    """The segments of every walk: int32 (S, 4) and the walk (maximum) index of each, ordered by walk
    and then along it. OpenCV's per-step state machine, run for all walks at once; with ``drop`` the
    walks that have left the image are dropped from the arrays once they are half of them (a saving
    only: tests/cuda/test_cuda_segments.py checks that it changes nothing)."""
    rows, cols = img.shape
    g = np.arange(len(x0))          # the walks in the arrays (their indices)
    x, y, sx, sy = x0.copy(), y0.copy(), sx.copy(), sy.copy()
    flat = img.ravel()

    def inside(x, y):
        return ~((x < 0) | (x >= cols) | (y < 0) | (y >= rows))
    active = inside(x, y)
    count = len(g)
    in_line = np.zeros(count, bool)
    gap = np.zeros(count, np.int64)
    s0x, s0y = np.zeros(count, f32), np.zeros(count, f32)
    s1x, s1y = np.zeros(count, f32), np.zeros(count, f32)
    length = f32(min_len)
    found = []

    def emit(mask, step):
        i = np.nonzero(mask)[0]
        i = i[(np.abs((s1x[i] - s0x[i]).astype(f32)) >= length) | (np.abs((s1y[i] - s0y[i]).astype(f32)) >= length)]
        if len(i):
            found.append(np.stack([g[i], np.full(len(i), step), s0x[i].astype(np.int64), s0y[i].astype(np.int64),
                                   s1x[i].astype(np.int64), s1y[i].astype(np.int64)], 1))
    step = 0
    while True:
        live = np.count_nonzero(active)
        if live == 0:
            break
        if drop and 2 * live <= len(g):
            k = np.nonzero(active)[0]
            g, x, y, sx, sy, active = g[k], x[k], y[k], sx[k], sy[k], active[k]
            in_line, gap, s0x, s0y, s1x, s1y = in_line[k], gap[k], s0x[k], s0y[k], s1x[k], s1y[k]
        with np.errstate(invalid="ignore"):
            xi = np.clip(np.floor(x).astype(np.int64), 0, cols - 1)  # texture: point filter, clamp
            yi = np.clip(np.floor(y).astype(np.int64), 0, rows - 1)
        on = active & (flat[yi * cols + xi] != 0)
        start = on & ~in_line
        s0x[start], s0y[start] = x[start], y[start]
        s1x[on], s1y[on] = x[on], y[on]
        in_line |= on
        gap[on] = 0
        off = active & ~on & in_line
        gap[off] += 1
        end = off & (gap > max_gap)
        emit(end, step)
        in_line &= ~end
        gap[end] = 0
        np.add(x, sx, out=x, where=active)  # (float32: one rounding a step)
        np.add(y, sy, out=y, where=active)
        leaving = active & ~inside(x, y)
        emit(leaving & in_line, step)
        active &= ~leaving
        step += 1
    if not found:
        return np.zeros((0, 4), np.int32), np.zeros(0, np.int64)
    o = np.concatenate(found)
    o = o[np.lexsort((o[:, 1], o[:, 0]))]
    return o[:, 2:].astype(np.int32), o[:, 0]


def model_all_segments(img, rho, theta, min_len, max_gap, threshold=-1, fused="a", limit=None):
    """Every segment (int32 (S, 4)) in cvgpu's order, before maxLines (with ``limit``: at least the
    first ``limit`` of them, when there are that many)."""
    img = np.asarray(img)
    acc, numangle, numrho = model_accumulator(img, rho, theta)
    if acc is None:
        return np.zeros((0, 4), np.int32)
    n, r = model_maxima8(acc, threshold if threshold > 0 else min_len)
    rows, cols = img.shape
    x0, y0, sx, sy = start_points(n, r, numrho, rows, cols, rho, theta, fused)
    return walk(img, x0, y0, sx, sy, min_len, max_gap, limit=limit)[0]


def model_segments(img, rho, theta, min_len, max_gap, max_lines=4096, threshold=-1, fused="a"):
    """cvgpu's documented output: int32 (N, 4) (the first maxLines), or None when empty."""
    segs = model_all_segments(img, rho, theta, min_len, max_gap, threshold, fused, limit=max(0, max_lines))
    segs = segs[:max(0, max_lines)]
    return segs if len(segs) else None
