"""Hypothesis inputs of the HoughLinesP tests (CPU models, host kernels, GPU): images of the kinds
HoughLinesP meets (random segments, table and sudoku grids, noise, shapes, Canny edges of
scikit-image photographs, the seed study's segment images, empty and full images) and cv2's
parameters at their extremes (rho and theta from fine to coarse, threshold from INT_MIN to INT_MAX,
minLineLength / maxLineGap 0, negative, NaN and huge).

Each case is drawn as a small description (family, seed, size, parameters; a photograph case also
tests/photo_cases.py's crop, rotation, resize and Canny thresholds) and built deterministically from
it, so hypothesis shrinks on the description and a failure prints it.
"""
import math

import cv2
import numpy as np
from hypothesis import strategies as st

from cvgpu import _versions
import hough_p_model as model
import photo_cases

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1

PHOTOS = ("camera", "astronaut", "coffee", "page", "text", "brick", "chelsea", "rocket", "coins", "clock")
FAMILIES = ("empty", "full", "noise", "lines", "grid", "shapes", "photo", "photo", "photo", "segments")

_photos = {}


def photo(name):
    """A scikit-image photograph in gray levels; without scikit-image a smooth synthetic field
    (the tests still run, on less realistic edges)."""
    img = _photos.get(name)
    if img is None:
        try:
            from skimage import data
            img = getattr(data, name)()
            if img.ndim == 3:
                img = cv2.cvtColor(np.ascontiguousarray(img[..., :3]), cv2.COLOR_RGB2GRAY)
            img = np.ascontiguousarray(img, dtype=np.uint8)
        except Exception:
            yy, xx = np.mgrid[0:512, 0:512]
            seed = sum(map(ord, name))
            img = (127 + 60 * np.sin(xx / (7.0 + seed % 5)) + 60 * np.cos(yy / 13.0 + xx / 31.0)).astype(np.uint8)
        _photos[name] = img
    return img


def photo_edges(name, h, w, lo=50, hi=150):
    """Canny edges of ``name`` resized to h x w (INTER_AREA when shrinking, as a detector would)."""
    g = photo(name)
    inter = cv2.INTER_AREA if h * w <= g.shape[0] * g.shape[1] else cv2.INTER_LINEAR
    return cv2.Canny(cv2.resize(g, (w, h), interpolation=inter), lo, hi)


def segments(h, w, n_points, seed=0):
    """The seed study's workload: horizontal 1-px segments totalling about n_points edge pixels."""
    img = np.zeros((h, w), np.uint8)
    seg = max(1, min(w, 64))
    rng = np.random.default_rng(seed)
    placed = 0
    while placed < n_points:
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w - seg + 1))
        placed += int(seg - np.count_nonzero(img[y, x:x + seg]))
        img[y, x:x + seg] = 255
    return img


def _lines(rng, h, w, n, thickness=1):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        p = rng.integers(-w // 2, w + w // 2 + 1, 2), rng.integers(-h // 2, h + h // 2 + 1, 2)
        cv2.line(img, (int(p[0][0]), int(p[1][0])), (int(p[0][1]), int(p[1][1])), int(rng.integers(1, 256)),
                 int(rng.integers(1, thickness + 1)))
    return img


def _grid(rng, h, w):
    """A table / sudoku grid: rows and columns of lines, slightly rotated, with gaps."""
    img = np.zeros((h, w), np.uint8)
    k = int(rng.integers(2, 11))
    angle = float(rng.normal(0, 3))
    c, s = math.cos(math.radians(angle)), math.sin(math.radians(angle))
    for t in np.linspace(0.05, 0.95, k):
        for vertical in (0, 1):
            a = (t * w, 0) if vertical else (0, t * h)
            b = (t * w, h) if vertical else (w, t * h)
            pts = [(int(w / 2 + (x - w / 2) * c - (y - h / 2) * s), int(h / 2 + (x - w / 2) * s + (y - h / 2) * c))
                   for x, y in (a, b)]
            cv2.line(img, pts[0], pts[1], 255, 1)
    gaps = rng.random((h, w)) < float(rng.choice([0, 0.02, 0.2]))
    img[gaps] = 0
    return img


def _shapes(rng, h, w, n):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        if rng.random() < 0.5:
            cv2.rectangle(img, c, (c[0] + int(rng.integers(1, w + 1)), c[1] + int(rng.integers(1, h + 1))), 255, 1)
        else:
            cv2.circle(img, c, int(rng.integers(1, max(h, w) + 1)), 255, 1)
    return img


def make_image(family, seed, h, w, max_points=None, photo_spec=None):
    """The image of one case; at most ``max_points`` edge pixels (others cleared, seeded).
    ``photo_spec``: (tests/photo_cases.py spec, canny) of a "photo" case, else the photograph and
    Canny thresholds come from the seed."""
    rng = np.random.default_rng(seed)
    if family == "empty":
        img = np.zeros((h, w), np.uint8)
    elif family == "full":
        img = np.full((h, w), int(rng.integers(1, 256)), np.uint8)
        if max_points is not None and h * w > 2 * max_points:   # (thinned here at once: cheaper at 4096^2)
            img[rng.random((h, w)) >= max_points / (h * w)] = 0
    elif family == "noise":
        d = float(rng.choice([0.0005, 0.005, 0.02, 0.1, 0.5]))
        img = ((rng.random((h, w)) < d) * rng.integers(1, 256, (h, w))).astype(np.uint8)
    elif family == "lines":
        img = _lines(rng, h, w, int(rng.integers(1, 16)), int(rng.choice([1, 1, 2, 3])))
        if rng.random() < 0.5:
            img[rng.random((h, w)) < float(rng.choice([0.001, 0.01, 0.05]))] = 255
    elif family == "grid":
        img = _grid(rng, h, w)
    elif family == "shapes":
        img = _shapes(rng, h, w, int(rng.integers(1, 6)))
    elif family == "photo":
        if photo_spec is not None:
            img = photo_cases.edges(photo_spec[0], h, w, photo_spec[1])
        else:
            lo = int(rng.choice([30, 50, 100]))
            img = photo_edges(PHOTOS[int(rng.integers(0, len(PHOTOS)))], h, w, lo, 3 * lo)
    else:
        n = max(1, (h * w) // int(rng.integers(4, 64)))
        img = segments(h, w, n if max_points is None else min(n, max_points), seed)
    if max_points is not None:
        nz = np.flatnonzero(img)
        if len(nz) > max_points:   # clear all but max_points of them, chosen by seeded random keys
            drop = np.argpartition(rng.random(len(nz)), max_points)[max_points:]
            img.flat[nz[drop]] = 0
    return img


rhos = st.one_of(st.sampled_from([1.0, 1.0, 0.5, 2.0, 1.5, 3.7, 0.1, 10.0, 40.0]), st.floats(0.05, 10.0))
thetas = st.one_of(st.sampled_from([math.pi / 180, math.pi / 180, math.pi / 360, math.pi / 90, 0.0123, 0.05, 0.003,
                                    0.5, 1.0, 3.0, 3.2, 4.0, 100.0]), st.floats(0.002, 2.0))
EXTREME_THRESHOLDS = [INT_MIN, INT_MIN + 1, INT_MAX, 1 << 20]


def thresholds(h, w):
    """Thresholds for an h x w image: fixed ranges, the extremes, and one range scaled to the
    image's long side, where a line's votes are. (With the fixed ranges alone, 69 % of 1,500 cases
    at sides up to 512 gave cv2 no segment: a threshold of hundreds on a small image.)"""
    return st.one_of(st.integers(1, 60), st.integers(1, max(2, max(h, w) // 2)), st.integers(1, 1000),
                     st.integers(-3, 5), st.sampled_from(EXTREME_THRESHOLDS))


def lengths(h, w):
    """minLineLength / maxLineGap-style lengths: the special values, up to 300, and up to a fifth of
    the image's long side (a segment that short exists on most images with lines)."""
    return st.one_of(st.sampled_from([0.0, 1.0, 5.0, 10.0, 50.0, 2.5, 3.5, -3.0, 1e10, float("nan")]),
                     st.floats(0.0, 300.0), st.floats(0.0, max(1.0, max(h, w) / 5.0)))
gaps = st.one_of(st.sampled_from([0.0, 1.0, 3.0, 10.0, 2.5, -1.0, 1e10, float("nan")]), st.floats(0.0, 50.0))


@st.composite
def cases(draw, max_side=320, max_votes=3_000_000, families=FAMILIES):
    """(image, (rho, theta, threshold, minLineLength, maxLineGap), description). ``max_votes``
    bounds edge pixels x angles (the CPU models' cost): images beyond it are thinned."""
    family = draw(st.sampled_from(families))
    side = st.one_of(st.integers(1, 24), st.integers(1, max(1, max_side // 4)), st.integers(1, max_side))
    h, w = draw(side), draw(side)
    seed = draw(st.integers(0, 2**16))
    rho, theta, threshold = draw(rhos), draw(thetas), draw(thresholds(h, w))
    mll, mlg = draw(lengths(h, w)), draw(gaps)
    numangle = max(1, model.sizes(h, w, rho, theta)[0])
    max_points = max(1, max_votes // numangle) if max_votes else None
    photo_spec = (draw(photo_cases.specs), draw(photo_cases.canny_params)) if family == "photo" else None
    img = make_image(family, seed, h, w, max_points, photo_spec)
    desc = dict(family=family, seed=seed, h=h, w=w, rho=rho, theta=theta, threshold=threshold,
                minLineLength=mll, maxLineGap=mlg, points=int(np.count_nonzero(img)))
    return img, (rho, theta, threshold, mll, mlg), desc


def checks_pass(rho, theta, threshold, mll=0.0, mlg=0.0):
    """Whether the arguments pass 5.1's checks in cv::HoughLinesP (always true before 5.1): calls
    that fail them are the argument layer's tests (test_hough_lines_p_hardening.py)."""
    if _versions.behaviour("hough_p.arg_checks") != "hough_lines_p":
        return True
    with np.errstate(over="ignore"):
        r32, t32 = float(np.float32(rho)), float(np.float32(theta))
    return (math.isfinite(r32) and r32 > 0 and math.isfinite(t32) and t32 > 0 and threshold >= 0
            and math.isfinite(mll) and mll >= 0 and math.isfinite(mlg) and mlg >= 0)


def cv2_defined(img, rho, theta):
    """Whether cv2.HoughLinesP(img, rho, theta, ...) is defined behaviour (every vote inside its
    accumulator, the accumulator size not wrapped): the extremes of a row's bins are at the
    image's corners (float32 j * cos + i * sin is monotone in j and in i), so the corners decide
    unless they are out of range; then the points decide (False, to skip, when too many to check)."""
    h, w = img.shape
    numangle, numrho, _, _ = model.sizes(h, w, rho, theta)
    if numangle < 0 or numrho < 0:
        return False
    if not np.any(img) or numangle == 0:
        return True
    _, _, rho32, theta32 = model.sizes(h, w, rho, theta)
    tab_cos, tab_sin = model.trig_table(numangle, rho32, theta32)
    corners = model.vote_bins([0, w - 1, 0, w - 1], [0, 0, h - 1, h - 1], tab_cos, tab_sin, numrho)
    if numrho > 0 and corners.min() >= 0 and corners.max() < numangle * numrho:
        return True
    if np.count_nonzero(img) * numangle > 20_000_000:
        return False  # (not decided here: skipped)
    try:
        model.Setup(img, rho, theta, 1, 0, 0)
    except model.Undefined:
        return False
    return True
