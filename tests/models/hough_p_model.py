"""A pure Python/numpy model of cv2.HoughLinesP as OpenCV 5.0 computes it (imgproc/src/hough.cpp,
HoughLinesProbabilistic), written from reading that source and from the installed cv2's results.
It is the reference the parallel model (hough_p_parallel_model.py) and the GPU kernels
(kernels/hough/probabilistic.cu) are checked against; tests/hough/test_hough_p_model.py checks it
against cv2 bit for bit. Nothing here calls cv2.

cv2's algorithm, step by step (and so here):
  * Sizes: numangle = cvFloor(pi / theta) + 1, less one when the last angle lies within theta/2 of pi
    (computeNumangle(0, pi, theta), theta the float32 argument read as a double); numrho =
    cvRound(float(2 (w + h) + 1) / rho) in float32. The accumulator is numangle x numrho int32,
    no border (unlike HoughLines'); a vote at rho bin r of angle n lands at flat index
    n * numrho + r, so a bin just outside a row lands in the neighbouring angle's row.
  * Trig table: cos(n * theta) / rho and sin(n * theta) / rho, n * theta in double (not the float32
    accumulated angle of HoughLines), libm's cos/sin, times the float32 1/rho, rounded to float32.
  * Points: the nonzero pixels in row-major order, each with a mask byte set to 1.
  * RNG: cv::RNG seeded with (uint64)-1, multiply-with-carry: state = lo32(state) * 4164903690 +
    hi32(state), next() = lo32(state); uniform(0, count) = next() % count. One draw per loop turn,
    whatever the turn does, so the pick order depends only on the number of points.
  * For count = N .. 1: idx = uniform(0, count); the point at idx is taken and the last one moved
    into its slot. A point whose mask byte is 0 is skipped. Otherwise it votes at every angle,
    r = cvRound(j * cos_n + i * sin_n) (float32 products and sum, round half to even) + (numrho -
    1) / 2, and max_n is the first angle whose bin, right after this point's increment, holds the
    largest value above threshold - 1 (int arithmetic). Below threshold: next turn.
  * Walk: a = -sin_n, b = cos_n of max_n; along x when |a| > |b| (dx0 = +-1, dy0 = cvRound(b * 2**16
    / |a|), y in 16.16 fixed point from i + 0.5), else along y. From the point, each direction k = 0
    (+) and 1 (-) steps until the image border or more than lineGap consecutive mask-0 pixels; the
    last mask-1 pixel is line_end[k].
  * good_line = |dx| >= lineLength or |dy| >= lineLength of the two ends (lineLength =
    cvRound(minLineLength)). A second walk over the same pixels up to each end clears every mask-1
    pixel; when good_line it also subtracts that pixel's vote at every angle, whether or not the
    pixel has voted (an unvoted pixel's bins go below what it had). The segment is appended when
    good_line.
  * Output: N x 1 CV_32SC4 Mat: (N, 4) int32 in cv2 5.x's Python binding, (N, 1, 4) in 4.x; None
    when there is no segment.

Undefined in cv2 (this model raises Undefined, the tests do not compare such cases): a vote outside
the flat accumulator (numrho <= 0 with points, or a huge rho whose bins leave the last row), and
sizes whose byte count wraps (cv2 asks the allocator for the wrapped size_t).
"""
import math

import numpy as np

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
MWC_A = 4164903690
M32 = (1 << 32) - 1
SHIFT = 16


class Undefined(Exception):
    """cv2's own call is undefined behaviour here (out-of-bounds accumulator writes)."""


class OutOfMemory(Exception):
    """cv2 fails to allocate ``nbytes`` (the size_t it asks for), cv2.error -4."""

    def __init__(self, nbytes):
        super().__init__(nbytes)
        self.nbytes = nbytes


def wrap32(v):
    return (v + (1 << 31)) % (1 << 32) - (1 << 31)


# How cvRound / cvFloor leave the int range depends on the release (cvgpu/_versions.py,
# cvround.out_of_range): INT_MIN (x86 cvtsd2si), a wrap modulo 2**32 with NaN/inf -> 0 (the 4.7 and
# 4.8 wheels' 64-bit lrint), or saturation (5.1).
from cvgpu import _versions  # noqa: E402  (a fact about the installed cv2, not cvgpu's code)

RULE = _versions.behaviour("cvround.out_of_range")
EMPTY_N4 = _versions.behaviour("hough_p.no_segments") == "empty_n4"
NUMANGLE_ROUND = _versions.behaviour("hough.numangle") == "round"  # before 4.7 (#22164)


def _out_of_int(v, x, single=False):
    if RULE == "saturate":   # cvRound(float) saturates at the largest float below 2**31
        return (2147483520 if single else INT_MAX) if x > 0 else INT_MIN
    if RULE == "wrap":
        return 0 if not math.isfinite(x) or abs(v) >= (1 << 63) else wrap32(v)
    return INT_MIN


def cv_round(x, single=False):
    """cvRound (double, or float when ``single``: both round half to even) out of int by RULE."""
    x = float(x)
    if math.isnan(x):
        return 0 if RULE == "wrap" else INT_MIN
    if math.isinf(x):
        return _out_of_int(0, x, single)
    r = round(x)
    if single and RULE == "saturate" and r >= 2147483520:
        return 2147483520
    return r if INT_MIN <= r <= INT_MAX else _out_of_int(r, x, single)


def cv_floor(x):
    x = float(x)
    if math.isnan(x):
        return INT_MIN
    if math.isinf(x):
        return INT_MAX if RULE == "saturate" and x > 0 else INT_MIN
    f = math.floor(x)
    return f if INT_MIN <= f <= INT_MAX else (INT_MIN if RULE != "saturate" else (INT_MAX if x > 0 else INT_MIN))


# ---------------------------------------------------------------- cv::RNG

class CvRNG:
    """cv::RNG: 64-bit multiply-with-carry (state 0 becomes 0xffffffff, as cv::RNG's constructor)."""

    def __init__(self, state=(1 << 64) - 1):
        self.state = state if state else 0xFFFFFFFF

    def next(self):
        self.state = (self.state & M32) * MWC_A + (self.state >> 32)
        return self.state & M32

    def uniform(self, a, b):
        # uniform(int a, int b): a == b ? a : (int)(next() % (b - a) + a), the modulus unsigned.
        if a == b:
            return a
        return wrap32(self.next() % ((b - a) & M32) + a)


def pick_order(n):
    """The points in the order cv2 picks them: ``order[t]`` is the index (row-major) of the point
    taken at turn t, for n points."""
    rng = CvRNG()
    slots = list(range(n))
    order = []
    for count in range(n, 0, -1):
        idx = rng.uniform(0, count)
        order.append(slots[idx])
        slots[idx] = slots[count - 1]
    return order


# ---------------------------------------------------------------- sizes and tables

def compute_numangle(theta64):
    """computeNumangle(0.0, CV_PI, theta): int arithmetic wrapping, the pi angle dropped (before
    4.7: cvRound(CV_PI / theta))."""
    with np.errstate(all="ignore"):
        q = float(np.float64(math.pi) / np.float64(theta64))
    if NUMANGLE_ROUND:
        return cv_round(q)
    numangle = wrap32(cv_floor(q) + 1)
    if numangle > 1 and abs(math.pi - (numangle - 1) * theta64) < theta64 / 2:
        numangle -= 1
    return numangle


def sizes(rows, cols, rho, theta):
    """(numangle, numrho, rho32, theta32) for cv2's double rho and theta arguments."""
    with np.errstate(all="ignore"):
        rho32, theta32 = np.float32(rho), np.float32(theta)
    numangle = compute_numangle(float(theta32))
    span = wrap32(wrap32((cols + rows) * 2) + 1)
    with np.errstate(all="ignore"):
        numrho = cv_round(np.float32(span) / rho32, single=True)
    return numangle, numrho, rho32, theta32


def accumulator_bytes(numangle, numrho):
    """The size_t byte count of Mat::zeros(numangle, numrho, CV_32SC1) (wrapped when negative)."""
    return (numangle * numrho * 4) % (1 << 64)


def trig_table(numangle, rho32, theta32):
    """float32 cos and sin tables: (float)(cos((double)n * theta) * irho), irho = 1.f / rho."""
    with np.errstate(all="ignore"):
        irho = float(np.float32(1) / np.float32(rho32))
    t = float(theta32)
    tab_cos = np.array([math.cos(n * t) * irho for n in range(numangle)], dtype=np.float32)
    tab_sin = np.array([math.sin(n * t) * irho for n in range(numangle)], dtype=np.float32)
    return tab_cos, tab_sin


def vote_bins(xs, ys, tab_cos, tab_sin, numrho):
    """Flat accumulator index n * numrho + r of every point (rows) at every angle (columns):
    r = cvRound(j * cos_n + i * sin_n) + (numrho - 1) / 2 in float32 (C's int division)."""
    xs = np.asarray(xs, dtype=np.float32)[:, None]
    ys = np.asarray(ys, dtype=np.float32)[:, None]
    with np.errstate(all="ignore"):
        v = xs * tab_cos[None, :] + ys * tab_sin[None, :]  # float32 products, float32 sum
    bad = ~np.isfinite(v) | (np.abs(v) >= 2.0 ** 31)
    r = np.where(bad, 0, np.rint(np.where(bad, 0, v))).astype(np.int64)
    r[bad] = INT_MIN
    half = int((numrho - 1) / 2) if numrho >= 1 else -((1 - numrho) // 2)  # C truncation
    numangle = tab_cos.shape[0]
    return (r + half) + np.arange(numangle, dtype=np.int64)[None, :] * numrho


def walk_setup(j, i, tab_cos, tab_sin, max_n, division="float"):
    """(xflag, x0, y0, dx0, dy0) of the walk from pixel (j, i) along angle max_n. dy0 / dx0 =
    cvRound(b * 2**16 / |a|): float32 b * 2**16 divided by fabs(a); ``division`` "float" (float32
    quotient) or "double" (fabs(double) overload)."""
    a = -float(tab_sin[max_n])
    b = float(tab_cos[max_n])
    a32, b32 = np.float32(a), np.float32(b)

    def quotient(num32, den32):
        with np.errstate(all="ignore"):
            if division == "float":
                return cv_round(np.float32(num32 * np.float32(1 << SHIFT)) / np.float32(abs(den32)))
            return cv_round(float(np.float32(num32 * np.float32(1 << SHIFT))) / abs(float(den32)))

    if abs(a) > abs(b):
        return 1, j, wrap32((i << SHIFT) + (1 << (SHIFT - 1))), (1 if a > 0 else -1), quotient(b32, a32)
    return 0, wrap32((j << SHIFT) + (1 << (SHIFT - 1))), i, quotient(a32, b32), (1 if b > 0 else -1)


def walk_ends(mask, width, height, setup, line_gap):
    """line_end[0], line_end[1] as (x, y) of the first walk (mask read only)."""
    xflag, x0, y0, dx0, dy0 = setup
    ends = []
    for k in range(2):
        gap, x, y = 0, x0, y0
        dx, dy = (dx0, dy0) if k == 0 else (-dx0, -dy0)
        end = None
        while True:
            if xflag:
                j1, i1 = x, y >> SHIFT
            else:
                j1, i1 = x >> SHIFT, y
            if j1 < 0 or j1 >= width or i1 < 0 or i1 >= height:
                break
            if mask[i1 * width + j1]:
                gap = 0
                end = (j1, i1)
            else:
                gap += 1
                if gap > line_gap:
                    break
            x, y = wrap32(x + dx), wrap32(y + dy)
        ends.append(end)
    return ends


def walk_pixels(setup, end, k):
    """The pixels (x, y) of the second walk in direction k, from the start up to ``end``."""
    xflag, x0, y0, dx0, dy0 = setup
    x, y = x0, y0
    dx, dy = (dx0, dy0) if k == 0 else (-dx0, -dy0)
    out = []
    while True:
        if xflag:
            j1, i1 = x, y >> SHIFT
        else:
            j1, i1 = x >> SHIFT, y
        out.append((j1, i1))
        if (j1, i1) == end:
            return out
        x, y = wrap32(x + dx), wrap32(y + dy)


# ---------------------------------------------------------------- the transform

class Setup:
    """What the loop needs, shared with the parallel model: sizes, table, points, their bins."""

    def __init__(self, image, rho, theta, threshold, min_line_length, max_line_gap):
        image = np.asarray(image)
        assert image.dtype == np.uint8 and image.ndim == 2
        self.height, self.width = image.shape
        self.numangle, self.numrho, self.rho32, self.theta32 = sizes(self.height, self.width, rho, theta)
        self.threshold = int(threshold)
        self.line_length = cv_round(min_line_length)
        self.line_gap = cv_round(max_line_gap)
        if self.numangle < 0 or self.numrho < 0:
            raise OutOfMemory(accumulator_bytes(self.numangle, self.numrho))
        ys, xs = np.nonzero(image)  # row-major
        self.xs, self.ys = xs.astype(np.int64), ys.astype(np.int64)
        self.n = len(xs)
        self.tab_cos, self.tab_sin = trig_table(self.numangle, self.rho32, self.theta32)
        self.cells = self.numangle * self.numrho
        if self.n and self.numangle:
            self.bins = vote_bins(self.xs, self.ys, self.tab_cos, self.tab_sin, self.numrho)
            if self.bins.min() < 0 or self.bins.max() >= self.cells:
                raise Undefined("a vote outside cv2's accumulator")
        else:
            self.bins = np.zeros((self.n, max(self.numangle, 0)), np.int64)
        # Points whose bins repeat a flat index (a row overflowing into the next): sequential votes.
        if self.n and self.numangle > 1:
            s = np.sort(self.bins, axis=1)
            self.repeats = (s[:, 1:] == s[:, :-1]).any(axis=1)
        else:
            self.repeats = np.zeros(self.n, bool)
        self.index = np.full(self.height * self.width, -1, np.int64)
        self.index[self.ys * self.width + self.xs] = np.arange(self.n)
        self.max_start = wrap32(self.threshold - 1)


def vote(acc, bins, repeats):
    """Increment ``bins`` in angle order; the values right after each increment."""
    if not repeats:
        acc[bins] += 1
        return acc[bins].copy()
    vals = np.empty(len(bins), np.int64)
    for n, b in enumerate(bins):
        acc[b] += 1
        vals[n] = acc[b]
    return vals


def first_max(vals, start):
    """cv2's max_n scan: max_val = threshold - 1 (wrapped); max_val < val takes val. Returns
    (max_val, max_n)."""
    m = int(vals.max()) if len(vals) else start
    if m > start:
        return m, int(np.argmax(vals))
    return start, 0


def hough_lines_p(image, rho, theta, threshold, min_line_length=0.0, max_line_gap=0.0, trace=None,
                  division="float", lines_max=INT_MAX):
    """cv2.HoughLinesP(image, rho, theta, threshold, None, minLineLength, maxLineGap) as cv2 5.0
    computes it: an (N, 4) int32 array or None (from 5.1: None only for an empty image, an empty
    (0, 4) array when nothing is found). ``trace``: a list that receives one dict per trigger
    (turn t, point p, max_n, ends, good, removed points) for the parallel model's step checks.
    The argument checks of 5.1 are not modelled (tests/hough/hough_p_cases.py: checks_pass)."""
    if EMPTY_N4 and image.size == 0:
        return None
    s = Setup(image, rho, theta, threshold, min_line_length, max_line_gap)
    return as_returned(run(s, trace, division, lines_max))


def as_returned(out):
    """run()'s result as cv2.HoughLinesP returns it for a non-empty image: None for no segment
    becomes 5.1's empty (0, 4) int32 array."""
    return np.zeros((0, 4), np.int32) if out is None and EMPTY_N4 else out


def run(s, trace=None, division="float", lines_max=INT_MAX):
    if s.n and s.numangle == 0 and s.max_start >= s.threshold:
        raise Undefined("a trigger without angles reads cv2's empty trig table")
    acc = np.zeros(max(s.cells, 0), np.int64)
    mask = np.zeros(s.height * s.width, np.uint8)
    mask[s.ys * s.width + s.xs] = 1
    lines = []
    for t, p in enumerate(pick_order(s.n)):
        j, i = int(s.xs[p]), int(s.ys[p])
        if not mask[i * s.width + j]:
            continue
        vals = vote(acc, s.bins[p], s.repeats[p])
        max_val, max_n = first_max(vals, s.max_start)
        if max_val < s.threshold:
            continue
        setup = walk_setup(j, i, s.tab_cos, s.tab_sin, max_n, division)
        ends = walk_ends(mask, s.width, s.height, setup, s.line_gap)
        (x0, y0), (x1, y1) = ends
        good = abs(x1 - x0) >= s.line_length or abs(y1 - y0) >= s.line_length
        removed = []
        for k in range(2):
            for (j1, i1) in walk_pixels(setup, ends[k], k):
                at = i1 * s.width + j1
                if mask[at]:
                    q = int(s.index[at])
                    removed.append(q)
                    if good:
                        np.subtract.at(acc, s.bins[q], 1)
                    mask[at] = 0
        if trace is not None:
            trace.append(dict(t=t, p=p, max_n=max_n, max_val=max_val, ends=((x0, y0), (x1, y1)), good=good,
                              removed=removed))
        if good:
            lines.append((x0, y0, x1, y1))
            if len(lines) >= lines_max:
                break
    if not lines:
        return None
    return np.array(lines, dtype=np.int32).reshape(-1, 4)
