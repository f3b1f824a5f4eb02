"""Independent CPU brute force for the exact-LMS objective of cvgpu.fitLineLMS (float64, numpy).

Definitions (cvgpu/lms.py's docstring): n points, h = n // 2 + 1; the LMS objective of a line is the
h-th smallest squared residual, i.e. its square root is half the width of the thinnest slab around
the line that holds h points. Residual modes:

* 0 ``"vertical"`` (y on x): r = y - (t x + b), slab width measured vertically; slopes t finite.
* 1 ``"horizontal"`` (x on y): mode 0 with x and y swapped.
* 2 ``"perpendicular"``: orthogonal distance, slab width measured across the line.

``objective(xy, mode)`` returns (w, (dx, dy)): w = twice the optimal half-width (the full slab
width) and a direction attaining it (of the tied ones found, the least steep in the mode's
frame). It shares no code with cvgpu (nor with tests/models/lms_model.py, the kernels' float32
model); it evaluates slabs direction by direction, not with the kernels' anchored (pair, side)
candidates.

Why pair directions suffice
---------------------------
For a fixed direction, the thinnest slab of that direction holding h points is the thinnest
window of h consecutive residuals once they are sorted (residuals up to the line's offset:
dx y - dy x divided by the mode's norm |dx| resp. |d|). So the objective is
min over directions of f(direction), f = min over windows. For a fixed h-subset S, the width of S
along a direction is max - min of its residuals: piecewise linear and convex in the slope
(vertical / horizontal), or the hull width of S (perpendicular), whose minimum is attained where two
points of S lie on one boundary of the slab (equioscillation; for the hull width, the classic "one
hull edge is flush with a caliper"). Hence the minimum over all lines is attained at a direction
through two of the points, and f evaluated at every pair direction gives the exact optimum. Pairs
that define no direction of the mode (coincident points; equal x in mode 0) are skipped; the axis
direction (slope 0) is added, which is the answer when no pair defines one (all x equal in mode 0,
all points equal in mode 2) and is a valid line otherwise.

Pruning (exact, for speed)
--------------------------
Evaluating f at all ~n^2/2 directions costs ~n^3 log n (too slow for n = 2000 in a test), so
directions are pruned with a Lipschitz bound that can only drop directions that cannot beat the
best value found: window widths move at most L per unit of the direction parameter
(mode 0: parameter t = slope, L = max x - min x, since d/dt (r_i - r_j) = x_j - x_i; mode 2:
parameter theta = angle, L = the bounding box diagonal, since d/dtheta (r_i - r_j) is the
component of p_i - p_j along the line), hence f(q) >= f(p) - L |q - p| for any evaluated p.
Rounds: evaluate a sample of the directions (sorted by parameter), bound every other one from its
nearest evaluated neighbours on both sides, evaluate a sample of those whose bound does not exceed
the best value (less a rounding slack), repeat until the few remaining are all evaluated (or the
best value is 0).
``prune=False`` evaluates every direction (the plain brute force; tests check both agree).

Rounding: coordinates are taken as float64 as they are (not moved: moving 1e-28 by -1 would
merge it with 0). For float32 / int inputs the pair differences and the products in dx y - dy x
are exact (<= 25-bit by 24-bit significands), so one rounding per residual plus one division;
directions whose slopes round to the same float64 are evaluated once (their objectives differ by
~1e-16 relative). A width at direction d errs by ~eps M |d| / norm (M: the coordinates'
magnitude), i.e. ~1e-15 M except for directions almost parallel to the residual (mode 0: pairs
whose x differ by ~1e-16 of M), where the tests' tolerances scale with that same |d| / norm.
"""
import math

import numpy as np

_ELEMS = 1 << 22  # residuals per evaluation chunk (32 MiB of float64)


def _directions(x, y, mode):
    """Distinct usable pair directions (+ the axis direction), sorted by parameter.
    Returns dx, dy, norm, param (all float64, one entry per direction)."""
    n = len(x)
    i, j = np.triu_indices(n, 1)
    dx = x[j] - x[i]
    dy = y[j] - y[i]
    del i, j
    flip = (dx < 0) | ((dx == 0) & (dy < 0))
    dx = np.where(flip, -dx, dx)
    dy = np.where(flip, -dy, dy)
    if mode == 0:
        keep = dx > 0
    else:
        keep = (dx != 0) | (dy != 0)
    dx = np.concatenate([dx[keep], [1.0]])
    dy = np.concatenate([dy[keep], [0.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        slope = np.where(dx > 0, dy / np.where(dx > 0, dx, 1.0), np.inf)  # dx == 0: vertical class
    slope, first = np.unique(slope, return_index=True)
    dx, dy = dx[first], dy[first]
    if mode == 0:
        return dx, dy, dx, slope
    return dx, dy, np.hypot(dx, dy), np.arctan2(dy, dx)


def _evaluate(x, y, h, dx, dy, norm):
    """f = thinnest window of h sorted residuals, per direction (float64)."""
    n = len(x)
    out = np.empty(len(dx))
    rows = max(1, _ELEMS // n)
    for s in range(0, len(dx), rows):
        e = min(len(dx), s + rows)
        r = np.multiply(dx[s:e, None], y[None, :])
        r -= dy[s:e, None] * x[None, :]
        r.sort(axis=1)
        w = r[:, h - 1:] - r[:, :n - h + 1]
        out[s:e] = w.min(axis=1) / norm[s:e]
    return out


def objective(xy, mode, prune=True, first_sample=8192, round_size=4096):
    """(w, (dx, dy)): the minimal full slab width over all lines of ``mode`` (0 vertical,
    1 horizontal, 2 perpendicular; see the module docstring) and a direction attaining it."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if mode == 1:
        w, (dx, dy) = objective(xy[:, ::-1], 0, prune, first_sample, round_size)
        return w, (dy, dx)
    return _result(*_search(xy, mode, prune, first_sample, round_size, None))


def thickest_near_optimum(xy, mode, rel, const, per_stretch, prune=True, first_sample=8192, round_size=4096):
    """The largest perpendicular half-width (f / 2 * norm / |d|) over the pair directions d whose
    full width f is within rel * w + const + per_stretch * |d| / norm of the optimum w.

    The optimum of one mode is often attained by many lines (a flat stretch of slopes: points on a
    few rows, duplicates), and a float32 fitter may return any line within its tolerance of it; what
    those lines measure across themselves differs (by 10 % on a horizontal row with outliers). So
    "auto"'s choice of the thinner classical fit is checked against the thickest line each mode
    could have returned. Pruning keeps every direction that could fall within the allowance."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    if mode == 1:
        return thickest_near_optimum(xy[:, ::-1], 0, rel, const, per_stretch, prune, first_sample, round_size)

    def allowance(best, dx, dy, norm):
        return rel * best + const + per_stretch * np.hypot(dx, dy) / norm

    f, dx, dy, norm = _search(xy, mode, prune, first_sample, round_size, allowance)
    best = float(f.min())
    near = np.flatnonzero(f <= best + allowance(best, dx, dy, norm))
    return float(np.max(f[near] / 2 * norm[near] / np.hypot(dx[near], dy[near])))


def _search(xy, mode, prune, first_sample, round_size, allowance):
    """(f, dx, dy, norm): f evaluated (inf where pruned) at every direction of mode 0 or 2; with
    ``allowance`` (best, dx, dy, norm) -> extra width, every direction within it of the optimum
    is evaluated too, not only those that could lower it."""
    n = len(xy)
    if n == 0:
        raise ValueError("no points")
    x, y = xy[:, 0].copy(), xy[:, 1].copy()
    h = n // 2 + 1
    dx, dy, norm, par = _directions(x, y, mode)
    u = len(dx)
    if not prune or u <= first_sample:
        return _evaluate(x, y, h, dx, dy, norm), dx, dy, norm
    if mode == 0:
        lip = float(np.ptp(x))
        # |f computed - f| <= ~4 eps (|y| + |t| |x|) per direction; 1e-9 leaves a wide margin
        ymax, xmax = float(np.abs(y).max()), float(np.abs(x).max())
        scale = lambda q: ymax + xmax * np.abs(par[q])  # noqa: E731
    else:
        lip = float(math.hypot(np.ptp(x), np.ptp(y)))
        rmax = float(np.abs(xy).max()) * 2.0
        scale = lambda q: np.full(len(q), rmax)  # noqa: E731
    f = np.full(u, np.inf)
    done = np.zeros(u, dtype=bool)
    todo = np.unique(np.concatenate([np.linspace(0, u - 1, first_sample).astype(np.int64), [0, u - 1]]))
    while True:
        f[todo] = _evaluate(x, y, h, dx[todo], dy[todo], norm[todo])
        done[todo] = True
        best = float(f.min())
        evald = np.flatnonzero(done)
        rest = np.flatnonzero(~done)
        if len(rest) == 0 or (best == 0.0 and allowance is None):  # 0: h points coincide or lie on one
            break  # line, nothing is thinner
        pos = np.searchsorted(evald, rest)  # evald[pos - 1] < rest < evald[pos] (ends are evaluated)
        left, right = evald[pos - 1], evald[pos]
        d_left, d_right = np.abs(par[rest] - par[left]), np.abs(par[right] - par[rest])
        slack = 1e-9 * (scale(rest) + np.maximum(scale(left), scale(right)) + lip * (d_left + d_right))
        bound = np.maximum(f[left] - lip * d_left, f[right] - lip * d_right) - slack
        extra = 0.0 if allowance is None else allowance(best, dx[rest], dy[rest], norm[rest])
        alive = rest[bound < best + extra]  # without an allowance, ties cannot lower the minimum
        if len(alive) <= round_size:
            if len(alive):
                f[alive] = _evaluate(x, y, h, dx[alive], dy[alive], norm[alive])
            break
        todo = alive[np.linspace(0, len(alive) - 1, round_size).astype(np.int64)]
    return f, dx, dy, norm


def _result(f, dx, dy, norm):
    """The minimum and, among the evaluated directions attaining it, the one of least
    |d| / norm (ties are common: duplicates, collinear sets; tests scale tolerances by it)."""
    best = float(f.min())
    ties = np.flatnonzero(f == best)
    k = int(ties[np.argmin(np.hypot(dx[ties], dy[ties]) / norm[ties])])
    return best, (float(dx[k]), float(dy[k]))
