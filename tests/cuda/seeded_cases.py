"""Seeded inputs of the recorded OpenCV-CUDA corpus (tests/golden/opencv_cuda_seeded.npz).

The shared golden corpora hold 240 cases each: too few to call the detectors exact against
OpenCV-CUDA itself. These cases are drawn from a seed, run through OpenCV's own cudaimgproc kernels
on a GPU (compat_matrix/record_golden_seeded.py with compat_matrix/ocv_batch.cu), and only the
parameters, a digest of each image and OpenCV's outputs are stored: the images are made again here,
on any machine, and the digest proves they are the ones OpenCV saw.

Every image is made with integer numpy arithmetic and numpy's PCG64 generator, never with cv2 or a
floating-point resize: the inputs must be the same bytes under every cv2 and numpy release the
tests run with. Photograph edges are scikit-image's grayscale photographs (stored bytes, no colour
conversion), cropped, resized by integer nearest-neighbour indexing, and edge-detected by an
integer Sobel magnitude with a 4-direction non-maximum suppression and a drawn threshold.

Case ``i`` draws from ``default_rng([SEED, i])``: the image first, then the lines detector's
parameters, then the segment detector's (each from its own child stream, so changing one side's
drawing leaves the other's cases alone). Sizes lean to what users run: a quarter of the cases above
512 px on the long side, a half above 256, and the edge cases (1 px, empty, full, noise) kept; 6 %
of them are sized to vote in global memory (numrho >= 12037, OpenCV's shared-memory limit).

This module is no test file (pytest does not collect it).
"""
import collections
import hashlib
import math

import numpy as np

SEED = 20261127
GLOBAL_NUMRHO = 12037   # OpenCV votes in global memory from this numrho on (48 KiB shared memory)
GRAY_PHOTOS = ("camera", "coins", "moon", "text", "page", "clock", "brick", "grass", "gravel")
KINDS = ("lines", "lines", "lines", "photo", "photo", "photo", "grid", "noisy-lines", "shapes", "noise",
         "flat")

_photo_cache = {}


def gray_photo(name):
    """scikit-image's stored grayscale photograph (uint8 as stored), or None without scikit-image."""
    if name not in _photo_cache:
        try:
            from skimage import data
            img = np.asarray(getattr(data, name)())
            _photo_cache[name] = np.ascontiguousarray(img) if img.dtype == np.uint8 and img.ndim == 2 else None
        except Exception:
            _photo_cache[name] = None
    return _photo_cache[name]


def image_digest(img):
    """sha1 of shape and bytes: what the corpus stores to prove an image is the recorded one."""
    img = np.ascontiguousarray(img, np.uint8)
    return hashlib.sha1(np.asarray(img.shape, np.int64).tobytes() + img.tobytes()).hexdigest()


def _draw_segment(img, x0, y0, x1, y1, value=255, thickness=1):
    """Integer DDA: n = max(|dx|, |dy|) + 1 points, each rounded half up by floor division."""
    h, w = img.shape
    n = max(abs(x1 - x0), abs(y1 - y0))
    i = np.arange(n + 1, dtype=np.int64)
    if n == 0:
        xs, ys = np.array([x0]), np.array([y0])
    else:
        xs = x0 + (2 * (x1 - x0) * i + n) // (2 * n)
        ys = y0 + (2 * (y1 - y0) * i + n) // (2 * n)
    for d in range(thickness):
        # Thick lines: copies shifted across the line's minor axis.
        ox, oy = (0, d) if abs(x1 - x0) >= abs(y1 - y0) else (d, 0)
        xx, yy = xs + ox, ys + oy
        keep = (xx >= 0) & (xx < w) & (yy >= 0) & (yy < h)
        img[yy[keep], xx[keep]] = value


def _segments(img, rng, count, max_len=None):
    h, w = img.shape
    longest = 0
    for _ in range(count):
        x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, h))
        if max_len is None:
            x1, y1 = int(rng.integers(0, w)), int(rng.integers(0, h))
        else:
            a = rng.random() * 2 * math.pi
            r = rng.integers(1, max_len + 1)
            x1, y1 = x0 + int(r * math.cos(a)), y0 + int(r * math.sin(a))
        _draw_segment(img, x0, y0, x1, y1, 255, int(rng.choice([1, 1, 1, 2, 3])))
        longest = max(longest, abs(x1 - x0), abs(y1 - y0))
    return longest


def _photo_edges(h, w, rng):
    """Edges of a crop of a stored grayscale photograph at h x w (integer arithmetic only)."""
    names = [n for n in GRAY_PHOTOS if gray_photo(n) is not None]
    if not names:
        return None
    src = gray_photo(names[int(rng.integers(0, len(names)))])
    k = int(rng.integers(0, 8))
    src = np.rot90(src, k % 4)
    if k >= 4:
        src = src[:, ::-1]
    ph, pw = src.shape
    ch, cw = int(rng.integers(max(1, ph // 4), ph + 1)), int(rng.integers(max(1, pw // 4), pw + 1))
    y0, x0 = int(rng.integers(0, ph - ch + 1)), int(rng.integers(0, pw - cw + 1))
    rows = y0 + (np.arange(h, dtype=np.int64) * ch) // h
    cols = x0 + (np.arange(w, dtype=np.int64) * cw) // w
    g = np.pad(src[rows][:, cols].astype(np.int32), 1, mode="edge")
    gx = (g[:-2, 2:] + 2 * g[1:-1, 2:] + g[2:, 2:]) - (g[:-2, :-2] + 2 * g[1:-1, :-2] + g[2:, :-2])
    gy = (g[2:, :-2] + 2 * g[2:, 1:-1] + g[2:, 2:]) - (g[:-2, :-2] + 2 * g[:-2, 1:-1] + g[:-2, 2:])
    mag = np.abs(gx) + np.abs(gy)
    m = np.pad(mag, 1)
    ax, ay = np.abs(gx), np.abs(gy)
    # 4-direction suppression: along the gradient's dominant axis, else along the diagonal its signs name.
    horiz = ax * 5 >= ay * 12
    vert = ay * 5 >= ax * 12
    same = (gx >= 0) == (gy >= 0)
    c = m[1:-1, 1:-1]
    keep = np.where(horiz, (c >= m[1:-1, :-2]) & (c > m[1:-1, 2:]),
                    np.where(vert, (c >= m[:-2, 1:-1]) & (c > m[2:, 1:-1]),
                             np.where(same, (c >= m[:-2, :-2]) & (c > m[2:, 2:]),
                                      (c >= m[:-2, 2:]) & (c > m[2:, :-2]))))
    threshold = int(rng.integers(80, 420))
    return np.where(keep & (mag >= threshold), 255, 0).astype(np.uint8)


def _size(rng, global_rho=None):
    if global_rho is not None:
        # numrho = round((2 (w + h) + 1) / rho) >= GLOBAL_NUMRHO, with a margin.
        need = int(math.ceil((GLOBAL_NUMRHO * global_rho - 1) / 2)) + 8
        w = int(rng.integers(need // 2, min(need, 2048) + 1))
        return need - w + int(rng.integers(0, 64)), w
    u = rng.random()
    if u < 0.15:
        long_side = int(rng.integers(1, 33))
    elif u < 0.45:
        long_side = int(rng.integers(33, 257))
    elif u < 0.75:
        long_side = int(rng.integers(257, 513))
    elif u < 0.93:
        long_side = int(rng.integers(513, 1025))
    else:
        long_side = int(rng.integers(1025, 2049))
    short = max(1, int(long_side * (0.3 + 0.7 * rng.random())))
    return (long_side, short) if rng.random() < 0.5 else (short, long_side)


def make_image(rng, global_rho=None):
    """(image, kind, scale): scale is a vote count a strong line of this image would reach."""
    h, w = _size(rng, global_rho)
    kind = KINDS[int(rng.integers(0, len(KINDS)))]
    img = np.zeros((h, w), np.uint8)
    scale = max(h, w)
    if kind == "lines":
        scale = _segments(img, rng, int(rng.integers(1, 41)))
    elif kind == "noisy-lines":
        scale = _segments(img, rng, int(rng.integers(1, 21)))
        img[rng.random((h, w)) < rng.random() * 0.01] = 255
    elif kind == "photo":
        edges = _photo_edges(h, w, rng)
        if edges is None:
            kind = "lines"
            scale = _segments(img, rng, int(rng.integers(1, 41)))
        else:
            img = edges
            scale = max(2, max(h, w) // 4)
    elif kind == "grid":
        step = int(rng.integers(3, max(4, max(h, w) // 3) + 1))
        gap = int(rng.integers(0, 4))
        for y in range(int(rng.integers(0, step)), h, step):
            img[y, :] = 255
        for x in range(int(rng.integers(0, step)), w, step):
            img[:, x] = 255
        if gap:
            img[:, ::step + gap] = 0
        scale = max(h, w)
    elif kind == "shapes":
        for _ in range(int(rng.integers(1, 9))):
            cx, cy = int(rng.integers(0, w)), int(rng.integers(0, h))
            r = int(rng.integers(1, max(2, max(h, w) // 3)))
            corners = int(rng.choice([3, 4, 4, 5, 6, 64]))
            a0 = rng.random() * 2 * math.pi
            pts = [(cx + int(r * math.cos(a0 + 2 * math.pi * j / corners)),
                    cy + int(r * math.sin(a0 + 2 * math.pi * j / corners))) for j in range(corners)]
            for (xa, ya), (xb, yb) in zip(pts, pts[1:] + pts[:1]):
                _draw_segment(img, xa, ya, xb, yb)
        scale = max(2, max(h, w) // 3)
    elif kind == "noise":
        density = 0.001 + rng.random() * 0.05
        img[rng.random((h, w)) < density] = int(rng.integers(1, 256))
        scale = max(2, int(max(h, w) * density * 3))
    else:  # flat: empty or full (OpenCV's zero-point early return, and every pixel voting)
        img[:] = 0 if rng.random() < 0.5 else 255
        scale = max(h, w)
    return img, kind, max(1, scale)


def _f32(x):
    return float(np.float32(x))


def _rho_theta(rng, global_rho):
    if global_rho is not None:
        rho = global_rho
    else:
        rho = [1.0, 1.0, 1.0, 0.5, 2.0, 1.5, 3.7, 0.3 + 4.7 * rng.random()][int(rng.integers(0, 8))]
    theta = [math.pi / 180, math.pi / 180, math.pi / 360, math.pi / 90, 0.0123,
             0.003 + 0.12 * rng.random()][int(rng.integers(0, 6))]
    return _f32(rho), _f32(theta)


def _threshold(rng, scale):
    """A vote threshold below a strong line's votes: from a sixth of them to nine tenths."""
    lo = max(1, scale // 6)
    return int(rng.integers(lo, max(lo + 1, (scale * 9) // 10 + 1)))


def case(i):
    """(image, kind, lines params (rho, theta, threshold, doSort, maxLines),
    segment params (rho, theta, minLineLength, maxLineGap, maxLines, threshold)) of case ``i``."""
    root = np.random.default_rng([SEED, i])
    image_rng, lines_rng, seg_rng = root.spawn(3)
    global_rho = _f32(0.2 + 0.3 * image_rng.random()) if image_rng.random() < 0.06 else None
    img, kind, scale = make_image(image_rng, global_rho)
    rho, theta = _rho_theta(lines_rng, global_rho)
    lines = (rho, theta, _threshold(lines_rng, scale), int(lines_rng.integers(0, 2)),
             4096 if lines_rng.random() < 0.85 else int(lines_rng.integers(1, 65)))
    rho, theta = _rho_theta(seg_rng, global_rho)
    min_len = 0 if seg_rng.random() < 0.2 else int(seg_rng.integers(0, max(1, scale // 2) + 1))
    max_gap = 0 if seg_rng.random() < 0.2 else int(seg_rng.integers(0, 21))
    seg_threshold = -1 if seg_rng.random() < 0.1 else _threshold(seg_rng, scale)
    segments = (rho, theta, min_len, max_gap, 4096 if seg_rng.random() < 0.85 else int(seg_rng.integers(1, 65)),
                seg_threshold)
    return img, kind, lines, segments


# ------------------------------------------------------------------ canonical digests of outputs
# OpenCV-CUDA orders neither its lines (doSort aside, ties) nor its segments: outputs are compared
# as multisets, by the sha1 of their rows sorted.

def lines_rows(lines, votes):
    """(rho bits, theta bits, votes) int64 rows of a detector's lines (None or empty: no rows)."""
    if lines is None or len(lines) == 0:
        return np.zeros((0, 3), np.int64)
    lines = np.ascontiguousarray(lines, np.float32).reshape(-1, 2)
    return np.stack([lines[:, 0].view(np.uint32).astype(np.int64), lines[:, 1].view(np.uint32).astype(np.int64),
                     np.asarray(votes, np.int64).reshape(-1)], axis=1)


def multiset_le(a, b):
    """Whether the rows of ``a`` are a sub-multiset of the rows of ``b``."""
    count = collections.Counter
    return not (count(map(tuple, np.asarray(a).tolist())) - count(map(tuple, np.asarray(b).tolist())))


def votes_non_increasing(votes):
    """doSort's order: no vote larger than the one before (None or fewer than two: true)."""
    return votes is None or len(votes) < 2 or bool(np.all(np.diff(np.asarray(votes, np.int64).reshape(-1)) <= 0))


def lines_digest(lines, votes):
    """sha1 of the multiset of (rho bits, theta bits, votes) rows (None or empty: no rows)."""
    rows = lines_rows(lines, votes)
    rows = rows[np.lexsort(rows.T[::-1])]
    return hashlib.sha1(np.ascontiguousarray(rows, "<i8").tobytes()).hexdigest()


def segments_digest(segments):
    """sha1 of the multiset of (x1, y1, x2, y2) rows (None or empty: no rows)."""
    if segments is None or len(segments) == 0:
        rows = np.zeros((0, 4), np.int64)
    else:
        rows = np.asarray(segments, np.int64).reshape(-1, 4)
        rows = rows[np.lexsort(rows.T[::-1])]
    return hashlib.sha1(np.ascontiguousarray(rows, "<i8").tobytes()).hexdigest()
