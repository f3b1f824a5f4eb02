"""A pure numpy model of opencv-contrib's cv2.ximgproc.RadonTransform as computed by OpenCV 5.0 on
x86-64 (the opencv-python wheels: SSE3 baseline, AVX2 dispatch, IPP).

It exists to prove the arithmetic that cvgpu's kernel mirrors: tests/ximgproc/test_radon.py checks it
bit for bit against cv2.ximgproc.RadonTransform where opencv-contrib is installed, and uses it as
the reference on machines whose cv2 has no ximgproc. It is written from the observed behaviour of the
installed cv2 and from reading OpenCV's sources; nothing here calls cv2.

What each step does in OpenCV 5.0 (and so here):
  * transpose; pad to ceil(sqrt(r^2 + c^2)) square (or crop to the centred min(r, c) square and mask
    it with cv::circle(FILLED, LINE_8)); rotation centre (n/2, n/2).
  * per angle t = start + col * theta: getRotationMatrix2D (double), inverted as warpAffine does.
  * warpAffine, INTER_LINEAR, BORDER_CONSTANT 0:
      - 8U and 32F: warp_kernels.simd.hpp (AVX2: 16 pixels a step). The matrix is rounded to
        float32. Vector part (x < n - n % 16): sx = fma(M0, x, fl(fl(y*M1) + M2)); scalar tail:
        sx = fl(fma(x, M0, fl(y*M1)) + M2). Interpolation: v0 = fma(ax, p01-p00, p00),
        v1 = fma(ax, p11-p10, p10), v = fma(ay, v1-v0, v0) in float32; 8U rounds half to even.
      - 64F: the classic fixed-point coordinate path (AB_BITS 10, INTER_BITS 5) feeding
        remapBilinear with the float32 coefficient table, summed left to right in double.
  * reduce(dim=1, REDUCE_SUM): 8U -> int32 (exact); 32F -> 64F through IPP's ippiSum_32f_C1R
    (accurate hint: two 4-lane double accumulators over blocks of 8, lanes folded pairwise, tail
    added in order); 64F -> 64F through four 4-lane accumulators over blocks of 16, folded
    (a0+a1)+(a2+a3), a 4-lane step loop, pairwise lane fold, tail in order.
  * norm: normalize(NORM_MINMAX, 0..255, CV_8U): scale = 255 * (1/(max-min)) (0 when
    max-min <= DBL_EPSILON), shift = 0 - min*scale, then u8(round_half_even(
    fma(float32(v), float32(scale), float32(shift)))).
"""
import math

from fractions import Fraction

import numpy as np

F32 = np.float32
F64 = np.float64
INT_MIN = -(1 << 31)


# ---------------------------------------------------------------- scalar helpers

def cv_round(x):
    """cvRound(double): round half to even, INT_MIN when NaN or out of int range (cvtsd2si)."""
    if not math.isfinite(x):
        return INT_MIN
    r = round(x)
    return r if -2147483648 <= r <= 2147483647 else INT_MIN


def cv_ceil(x):
    i = cv_round(x)
    if i == INT_MIN:
        return INT_MIN
    return i + (1 if i < x else 0)


def fma32(a, b, c):
    """Exact fused multiply-add of float32 arrays, rounded once to float32."""
    a = np.asarray(a, F32).astype(F64)
    b = np.asarray(b, F32).astype(F64)
    c = np.asarray(c, F32).astype(F64)
    p = a * b                      # exact: 24 + 24 bits
    s = p + c
    bp = s - c
    e = (p - bp) + (c - (s - bp))  # two-sum: p + c == s + e exactly
    r = s.astype(F32)
    r64 = r.astype(F64)
    lo = np.where(r64 <= s, r, np.nextafter(r, F32(-np.inf)))
    hi = np.nextafter(lo, F32(np.inf))
    mid = (lo.astype(F64) + hi.astype(F64)) * 0.5
    tie = (s == mid) & (e != 0)    # s sits on a float32 midpoint only because of rounding: e decides
    return np.where(tie, np.where(e > 0, hi, lo), r).astype(F32)


def rotation_matrix(cx, cy, angle):
    """getRotationMatrix2D(center, angle, 1) in double."""
    a = angle * (math.pi / 180)
    alpha = math.cos(a)
    beta = math.sin(a)
    return [alpha, beta, (1 - alpha) * cx - beta * cy, -beta, alpha, beta * cx + (1 - alpha) * cy]


def invert_affine(m):
    """warpAffine's inversion of the forward matrix (double)."""
    m = list(m)
    d = m[0] * m[4] - m[1] * m[3]
    d = 1.0 / d if d != 0 else 0.0
    a11 = m[4] * d
    a22 = m[0] * d
    m[0] = a11
    m[1] *= -d
    m[3] *= -d
    m[4] = a22
    b1 = -m[0] * m[2] - m[1] * m[5]
    b2 = -m[3] * m[2] - m[4] * m[5]
    m[2] = b1
    m[5] = b2
    return m


def circle_halfwidths(n):
    """Per-row half-width of cv::circle(n x n, (n/2, n/2), n/2, FILLED, LINE_8); -1: row empty."""
    c = r = n // 2
    hw = np.full(n, -1, np.int64)
    err, dx, dy, plus, minus = 0, r, 0, 1, (r << 1) - 1
    while dx >= dy:
        for yy, d in ((c - dy, dx), (c + dy, dx), (c - dx, dy), (c + dx, dy)):
            if 0 <= yy < n and d > hw[yy]:
                hw[yy] = d
        dy += 1
        err += plus
        plus += 2
        mask = -1 if err > 0 else 0
        err -= minus & mask
        dx += mask
        minus -= mask & 2
    return hw


def geometry(rows, cols, crop):
    """(n, row offset, col offset) of the transposed source inside the n x n warp source."""
    tr, tc = cols, rows  # transposed
    if crop:
        n = min(tr, tc)
        return n, tr // 2 - n // 2, tc // 2 - n // 2
    n = cv_ceil(math.sqrt(tr * tr + tc * tc))
    return n, (n - tr) // 2, (n - tc) // 2


def warp_source(src, crop):
    """The n x n image that OpenCV rotates (transposed, padded or cropped and masked)."""
    t = src.T
    n, r0, c0 = geometry(src.shape[0], src.shape[1], crop)
    if crop:
        img = t[r0:r0 + n, c0:c0 + n].copy()
        hw = circle_halfwidths(n)
        x = np.arange(n)[None, :]
        keep = (hw[:, None] >= 0) & (np.abs(x - n // 2) <= hw[:, None])
        img[~keep] = 0
        return img
    img = np.zeros((n, n), src.dtype)
    img[r0:r0 + t.shape[0], c0:c0 + t.shape[1]] = t
    return img


# ---------------------------------------------------------------- warps (stacked over angles)

def _gather(img, iy, ix):
    n_r, n_c = img.shape
    ok = (iy >= 0) & (iy < n_r) & (ix >= 0) & (ix < n_c)
    return np.where(ok, img[np.clip(iy, 0, n_r - 1), np.clip(ix, 0, n_c - 1)], 0)


def warp_float_path(img, minv):
    """8U/32F: OpenCV 5.0's float warpAffineLinearInvoker (AVX2). Returns float32 interpolated values
    (A, n, n) before the 8U rounding. ``minv``: (A, 6) inverted matrices in double."""
    n = img.shape[0]
    m = np.asarray(minv, F64).astype(F32)[:, :, None, None]   # (A, 6, 1, 1)
    ys = np.arange(n, dtype=F32)[None, :, None]
    xs = np.arange(n, dtype=F32)[None, None, :]
    nvec = (n // 16) * 16
    coords = []
    for k in (0, 3):
        m0, m1, m2 = m[:, k], m[:, k + 1], m[:, k + 2]
        ym1 = (ys * m1).astype(F32)
        row = (ym1 + m2).astype(F32)
        vec = fma32(m0, xs, row)
        tail = (fma32(xs, m0, ym1) + m2).astype(F32)
        coords.append(np.where(xs < nvec, vec, tail).astype(F32))
    sx, sy = coords
    fx = np.floor(sx)
    fy = np.floor(sy)
    ax = (sx - fx).astype(F32)
    ay = (sy - fy).astype(F32)
    ix = fx.astype(np.int64)
    iy = fy.astype(np.int64)
    f = img.astype(F32)
    p00 = _gather(f, iy, ix).astype(F32)
    p01 = _gather(f, iy, ix + 1).astype(F32)
    p10 = _gather(f, iy + 1, ix).astype(F32)
    p11 = _gather(f, iy + 1, ix + 1).astype(F32)
    v0 = fma32(ax, (p01 - p00).astype(F32), p00)
    v1 = fma32(ax, (p11 - p10).astype(F32), p10)
    return fma32(ay, (v1 - v0).astype(F32), v0)


_AB_SCALE = 1024
_ROUND_DELTA = 16


def _bilinear_table():
    one_d = np.zeros((32, 2), F32)
    for i in range(32):
        x = F32(i) * F32(1.0 / 32)
        one_d[i] = (F32(1) - x, x)
    tab = np.zeros((1024, 4), F32)
    for i in range(32):
        for j in range(32):
            tab[i * 32 + j] = (one_d[i][0] * one_d[j][0], one_d[i][0] * one_d[j][1],
                               one_d[i][1] * one_d[j][0], one_d[i][1] * one_d[j][1])
    return tab


BILINEAR_TAB = _bilinear_table()


def warp_fixed_path(img, minv):
    """64F: WarpAffineInvoker's fixed-point coordinates + remapBilinear with the float table."""
    n = img.shape[0]
    m = np.asarray(minv, F64)[:, :, None, None]
    xs = np.arange(n, dtype=F64)[None, None, :]
    ys = np.arange(n, dtype=F64)[None, :, None]
    adelta = np.rint(m[:, 0] * xs * _AB_SCALE).astype(np.int64)
    bdelta = np.rint(m[:, 3] * xs * _AB_SCALE).astype(np.int64)
    x0 = np.rint((m[:, 1] * ys + m[:, 2]) * _AB_SCALE).astype(np.int64) + _ROUND_DELTA
    y0 = np.rint((m[:, 4] * ys + m[:, 5]) * _AB_SCALE).astype(np.int64) + _ROUND_DELTA
    X = (x0 + adelta) >> 5
    Y = (y0 + bdelta) >> 5
    sx = np.clip(X >> 5, -32768, 32767)
    sy = np.clip(Y >> 5, -32768, 32767)
    w = BILINEAR_TAB[(Y & 31) * 32 + (X & 31)].astype(F64)
    return (_gather(img, sy, sx) * w[..., 0] + _gather(img, sy, sx + 1) * w[..., 1]
            + _gather(img, sy + 1, sx) * w[..., 2] + _gather(img, sy + 1, sx + 1) * w[..., 3])


# ---------------------------------------------------------------- row sums

def sum_rows_ipp32f(v):
    """ippiSum_32f_C1R (accurate) of each row, float32 values summed in double."""
    s = v.astype(F64)
    w = s.shape[-1]
    acc0 = np.zeros(s.shape[:-1] + (4,))
    acc1 = np.zeros(s.shape[:-1] + (4,))
    k = 0
    while k + 8 <= w:
        acc0 = acc0 + s[..., k:k + 4]
        acc1 = acc1 + s[..., k + 4:k + 8]
        k += 8
    a = acc0 + acc1
    t = (a[..., 0] + a[..., 1]) + (a[..., 2] + a[..., 3])
    while k < w:
        t = t + s[..., k]
        k += 1
    return t


def sum_rows_64f(s):
    """OpenCV 5.0 reduce(REDUCE_SUM) 64F -> 64F of each row."""
    w = s.shape[-1]
    accs = [np.zeros(s.shape[:-1] + (4,)) for _ in range(4)]
    k = 0
    while k + 16 <= w:
        for u in range(4):
            accs[u] = accs[u] + s[..., k + 4 * u:k + 4 * u + 4]
        k += 16
    a = (accs[0] + accs[1]) + (accs[2] + accs[3])
    while k + 4 <= w:
        a = a + s[..., k:k + 4]
        k += 4
    t = (a[..., 0] + a[..., 1]) + (a[..., 2] + a[..., 3])
    while k < w:
        t = t + s[..., k]
        k += 1
    return t


def normalize_u8(radon):
    """normalize(radon, NORM_MINMAX, 0, 255, CV_8U) for a non-empty int32 or float64 matrix."""
    smin = float(radon.min())
    smax = float(radon.max())
    scale = 255.0 * (1.0 / (smax - smin) if smax - smin > np.finfo(F64).eps else 0.0)
    shift = 0.0 - smin * scale
    if radon.dtype == F64 and radon.size < 16:
        # cvt_32f's AVX2 loop takes 16 elements a step and leaves a shorter (continuous) matrix
        # to its scalar line, where double * float + float is evaluated in double (fused by GCC).
        s, b = float(F32(scale)), float(F32(shift))
        r = np.array([_fused(v, s, b) for v in radon.ravel().tolist()], F64)
        return _x86_saturate_u8(r).reshape(radon.shape)
    with np.errstate(over="ignore", invalid="ignore"):
        r = fma32(radon.astype(F32), F32(scale), F32(shift))
    return _x86_saturate_u8(r.astype(F64))


def _fused(v, s, b):
    if not (math.isfinite(v) and math.isfinite(s) and math.isfinite(b)):
        return v * s + b
    try:
        return float(Fraction(v) * Fraction(s) + Fraction(b))
    except OverflowError:
        return math.copysign(math.inf, float(Fraction(v) * Fraction(s) + Fraction(b) > 0) - 0.5)


def _x86_saturate_u8(r):
    """saturate_cast<uchar> of x86's round to int: NaN and values beyond int's range round to
    INT_MIN (cvtps2dq's "integer indefinite"), which saturates to 0, not 255."""
    with np.errstate(invalid="ignore"):
        rounded = np.rint(r)
        out_of_range = ~((rounded >= -2.0 ** 31) & (rounded < 2.0 ** 31))
    return np.where(out_of_range, 0, np.clip(np.nan_to_num(rounded), 0, 255)).astype(np.uint8)


# ---------------------------------------------------------------- the transform

def radon_model(src, theta=1.0, start_angle=0.0, end_angle=180.0, crop=False, norm=False,
                angle_chunk=32):
    """cv2.ximgproc.RadonTransform for a valid 2-D uint8 / float32 / float64 ``src`` and parameters
    cv2 accepts (None when there are no angles, as cv2 returns)."""
    src = np.asarray(src)
    assert src.ndim == 2 and src.dtype in (np.uint8, np.float32, np.float64) and src.size > 0
    col_num = cv_round((end_angle - start_angle) / theta)
    assert col_num >= 0
    img = warp_source(src, crop)
    n = img.shape[0]
    floating = src.dtype != np.uint8
    out = np.zeros((n, col_num), F64 if floating else np.int32)
    c = n // 2
    for a0 in range(0, col_num, angle_chunk):
        cols = range(a0, min(col_num, a0 + angle_chunk))
        minv = np.array([invert_affine(rotation_matrix(c, c, start_angle + col * theta)) for col in cols])
        if src.dtype == np.uint8:
            v = warp_float_path(img, minv)
            u = np.clip(np.rint(v.astype(F64)), 0, 255).astype(np.int64)
            sums = u.sum(axis=-1).astype(np.int32)
        elif src.dtype == np.float32:
            sums = sum_rows_ipp32f(warp_float_path(img, minv))
        else:
            sums = sum_rows_64f(warp_fixed_path(img, minv))
        out[:, a0:a0 + len(cols)] = sums.T
    if col_num == 0:
        return None
    return normalize_u8(out) if norm else out
