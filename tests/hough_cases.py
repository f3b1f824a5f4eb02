"""Images and hypothesis cases of the Hough tests: HoughLines / HoughLinesWithAccumulator
(tests/hough) and cuda.HoughLinesDetector (tests/cuda).

A case is a dict of drawn values (family, seed, size, rho, theta, theta range, use_edgeval, the
threshold's rule and, for photographs, the crop and Canny parameters); ``build(c)`` makes its edge
image and resolves its threshold. What the cases are made to be (issue 39):

* meaningful: the threshold is drawn relative to the image's votes, so that cv2's answer is lines
  most of the time. Rule "bound": below W / (diagonal / rho + 3), W the edge points (their summed
  values with use_edgeval): each angle's W votes fall into at most diagonal / rho + 2 cells, so the
  strongest cell exceeds the threshold, and the strongest cell of the accumulator is always a local
  maximum (the first of equal ones in raster order beats its left and upper neighbours): never
  empty. Rule "line": a fraction of the longest row or column of edge points (what one straight
  line would collect), empty when no line is that long. Rule "absolute": the old fixed numbers,
  often empty or a flood of lines. Empty answers stay a covered minority.
* large: the long side is above 256 pixels in about half of the cases, up to 2048;
* real: crops of photographs' Canny edges (tests/photo_cases.py) beside drawn lines, shapes,
  segments and noise; uniform, empty and tiny images in their own properties;
* affordable: cv2's transform (the reference, serial) costs about points x angles + cells; the
  angle step is widened where the accumulator would exceed CELLS_MAX cells, and edge points are
  thinned where points x angles would exceed VOTES_MAX (about 20 ms of cv2 on a device core).

This module is no test file (pytest does not collect it); the test files import it (tests/ is on
sys.path).
"""
import math

import cv2
import numpy as np
from hypothesis import strategies as st

import photo_cases
from cvgpu import _versions
from cvgpu.hough import lines as hough

HAS_EDGEVAL = hough.HAS_USE_EDGEVAL
CELLS_MAX = 4_000_000
VOTES_MAX = 8_000_000
MAX_POINTS = 40_000  # edge points of a generated image at most (thinned, keeping the family's look)


# ---------------------------------------------------------------- images

def drawn_lines(rng, h, w, n):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        p = rng.integers(-w // 2, w + w // 2, 2), rng.integers(-h // 2, h + h // 2, 2)
        cv2.line(img, (int(p[0][0]), int(p[1][0])), (int(p[0][1]), int(p[1][1])),
                 int(rng.integers(1, 256)), int(rng.integers(1, 3)))
    return img


def shapes(rng, h, w, n):
    img = np.zeros((h, w), np.uint8)
    for _ in range(n):
        c = (int(rng.integers(0, w)), int(rng.integers(0, h)))
        if rng.random() < 0.5:
            cv2.rectangle(img, c, (c[0] + int(rng.integers(1, w + 1)), c[1] + int(rng.integers(1, h + 1))),
                          int(rng.integers(1, 256)), 1)
        else:
            cv2.circle(img, c, int(rng.integers(1, max(h, w) + 1)), int(rng.integers(1, 256)), 1)
    return img


def noise(rng, h, w, density):
    return ((rng.random((h, w)) < density) * rng.integers(1, 256, (h, w))).astype(np.uint8)


def segments(h, w, n_points):
    """The seed study's workload: horizontal 1-px segments totalling about n_points edge pixels."""
    img = np.zeros((h, w), np.uint8)
    seg = max(1, min(w, 64))
    rng = np.random.default_rng(n_points + h * 7 + w)
    placed = 0
    while placed < n_points:
        y, x = int(rng.integers(0, h)), int(rng.integers(0, w - seg + 1))
        placed += int(seg - np.count_nonzero(img[y, x:x + seg]))
        img[y, x:x + seg] = 255
    return img


FAMILIES = ("empty", "full", "noise", "lines", "shapes", "photo", "segments")


def make_image(family, seed, h, w, photo=None, max_points=MAX_POINTS):
    """The family's image; edge points beyond ``max_points`` thinned out (never for "full")."""
    rng = np.random.default_rng(seed)
    img = _make_image(family, rng, h, w, photo)
    nz = np.flatnonzero(img)
    if len(nz) > max_points and family != "full":
        img = img.copy()
        img.flat[rng.choice(nz, len(nz) - max_points, replace=False)] = 0
    return img


def _make_image(family, rng, h, w, photo):
    if family == "empty":
        return np.zeros((h, w), np.uint8)
    if family == "full":
        return np.full((h, w), int(rng.integers(1, 256)), np.uint8)
    if family == "noise":
        # Sparse on large images (their structure is what the other families give).
        densities = [0.0005, 0.002, 0.005, 0.02] if h * w > 256 * 256 else [0.0005, 0.005, 0.02, 0.1, 0.5]
        return noise(rng, h, w, float(rng.choice(densities)))
    if family == "lines":
        return drawn_lines(rng, h, w, int(rng.integers(1, 12)))
    if family == "shapes":
        return shapes(rng, h, w, int(rng.integers(1, 6)))
    if family == "photo":
        spec, canny = photo if photo is not None else (
            (int(rng.integers(0, 1 << 16)), int(rng.integers(0, 8)), 0.0, 0.0, 1.0, 1.0, cv2.INTER_AREA), (50, 3.0))
        return photo_cases.edges(spec, h, w, canny)
    return segments(h, w, max(1, (h * w) // int(rng.integers(4, 64))))


# ---------------------------------------------------------------- strategies

# Tiers of the long side, drawn with sampled_from: hypothesis draws a wide integer range's low end
# far more often than uniformly (a tier decided by integers(0, 99) followed by other draws gave
# long sides <= 64 in 50 % of the examples, not 15 %).
SIDE_TIERS = [(1, 64)] * 3 + [(65, 256)] * 6 + [(257, 1024)] * 9 + [(1025, 2048)] * 2
ASPECTS = [(0.3, 1.0)] * 4 + [(0.0, 1.0)]


@st.composite
def image_sizes(draw, max_side=2048, tiers=SIDE_TIERS):
    """(h, w): the long side 1-64 (15 %), 65-256 (30 %), 257-1024 (45 %), 1025-2048 (10 %), capped at
    max_side; the short side a drawn fraction of it (thin images included). (Within one run of a
    test the share above 256 px drifts: 30-55 % in runs of 300.)"""
    lo, hi = draw(st.sampled_from(tiers))
    long = min(draw(st.integers(lo, hi)), max_side)
    aspect = draw(st.floats(*draw(st.sampled_from(ASPECTS))))
    short = max(1, min(long, int(round(long * aspect))))
    return (long, short) if draw(st.booleans()) else (short, long)


rhos = st.one_of(st.sampled_from([1.0, 0.5, 2.0, 1.5, 3.7]), st.floats(0.05, 10.0))
thetas = st.one_of(st.sampled_from([math.pi / 180, math.pi / 360, math.pi / 90, 0.0123, 0.05]),
                   st.floats(0.001, math.pi / 2))
# From 5.1 a negative threshold is cv::HoughLines' own error (test_errors_match_cv2 has it), not a case.
_LOWEST_THRESHOLD = 0 if _versions.behaviour("hough.arg_checks") == "hough_lines" else -5
# The threshold's rule (see the module docstring): ("bound", u < 1) half of the time, ("line", fraction)
# 35 %, ("absolute", n) 15 %.
THRESHOLD_RULES = st.sampled_from(["bound"] * 10 + ["line"] * 7 + ["absolute"] * 3).flatmap(
    lambda rule: st.tuples(st.just(rule), st.floats(0.0, 0.999) if rule == "bound" else st.floats(0.05, 1.2)
                           if rule == "line" else st.one_of(st.integers(_LOWEST_THRESHOLD, 50), st.integers(0, 1000))))


@st.composite
def theta_ranges(draw):
    if draw(st.booleans()):
        return 0.0, math.pi
    lo = draw(st.floats(-math.pi, math.pi))
    return lo, lo + draw(st.floats(0.0, 2 * math.pi))


def numangle_numrho(h, w, rho, theta, min_theta, max_theta):
    return hough.accumulator_size(h, w, np.float32(rho), np.float32(theta), min_theta, max_theta)


@st.composite
def cases(draw, families=FAMILIES, max_side=2048, sizes=None):
    family = draw(st.sampled_from(families))
    h, w = draw(sizes if sizes is not None else image_sizes(max_side))
    photo = (draw(photo_cases.specs), draw(photo_cases.canny_params)) if family == "photo" else None
    rho, theta = draw(rhos), draw(thetas)
    mn, mx = draw(theta_ranges())
    numangle, numrho = numangle_numrho(h, w, rho, theta, mn, mx)
    if numangle * numrho > CELLS_MAX:  # widen the angle step: fewer angles, the same image
        theta = min(math.pi, theta * numangle * numrho / CELLS_MAX * 1.01)
        numangle, numrho = numangle_numrho(h, w, rho, theta, mn, mx)
    if family == "full":  # every pixel votes: keep points x angles affordable
        h = max(1, min(h, VOTES_MAX // max(1, w * numangle)))
    # (No seed where the image does not use one: hypothesis varies one choice at a time at times, and a
    # choice the case ignores makes a duplicate case.)
    seed = draw(st.integers(0, 2**32 - 1)) if family not in ("photo", "empty") else 0
    return dict(family=family, seed=seed, h=h, w=w, rho=rho, theta=theta,
                rule=draw(THRESHOLD_RULES), min_theta=mn, max_theta=mx, photo=photo,
                use_edgeval=draw(st.booleans()) if HAS_EDGEVAL else False)


def resolve_threshold(img, c):
    """The threshold of case ``c`` on its image (the rules of the module docstring)."""
    rule, value = c["rule"]
    if rule == "absolute":
        return int(value)
    weights = img.astype(np.int64) if c["use_edgeval"] else (img != 0).astype(np.int64)
    total = int(weights.sum())
    diagonal = math.hypot(img.shape[0] - 1, img.shape[1] - 1)
    bound = total / (diagonal / float(np.float32(c["rho"])) + 3)
    if rule == "bound":
        return int(math.floor(value * bound))
    longest = max(int(weights.sum(axis=0).max(initial=0)), int(weights.sum(axis=1).max(initial=0)))
    return int(value * max(longest, bound))


def build(c):
    """(edge image, case with its ``threshold`` resolved) of a drawn case."""
    numangle, _ = numangle_numrho(c["h"], c["w"], c["rho"], c["theta"], c["min_theta"], c["max_theta"])
    img = make_image(c["family"], c["seed"], c["h"], c["w"], c["photo"],
                     max_points=min(MAX_POINTS, VOTES_MAX // max(1, numangle)))
    return img, dict(c, threshold=resolve_threshold(img, c))


def call(module, fn, img, c):
    kw = dict(min_theta=c["min_theta"], max_theta=c["max_theta"])
    if fn in hough.EDGEVAL_FUNCTIONS:   # (4.11: HoughLines has it, HoughLinesWithAccumulator not yet)
        kw["use_edgeval"] = c["use_edgeval"]
    return getattr(module, fn)(img, c["rho"], c["theta"], c["threshold"], **kw)


def inputs(img, c):
    """What defines a case for the compat matrix's distinct-input count: the image and parameters."""
    return (img, c["rho"], c["theta"], c["threshold"], c["min_theta"], c["max_theta"], c["use_edgeval"])
