"""cv2.cuda.HoughLinesDetector computed on the CPU with numpy, for machines without a usable GPU.

The same lines, float32 values, votes and order as the GPU path (cvgpu/cuda/hough.py, whose module
docstring and kernels/cuda/hough.cu's header define them), computed the way OpenCV-CUDA's kernels
compute them:

* angle n: ``ang = f32(n) * theta`` and CUDA's accurate ``sincosf(ang)`` (libdevice: a quadrant from
  rint(ang * 2/pi), a three-step Cody-Waite reduction by pi/2 with FMAs, a degree-7 odd (sin) or
  degree-8 even (cos) polynomial, the sign from the quadrant), then ``cos * irho``, ``sin * irho``
  in float32 (irho = 1.0f / rho, computed once by the detector);
* a point (x, y) votes in bin ``rint(fma(x, cosVal, f32(y * sinVal))) + (numrho - 1) / 2``: nvcc
  contracted OpenCV's ``x * cosVal + y * sinVal`` into one fused multiply-add of the x product
  (the header of kernels/cuda/hough.cu says how that was established). numpy has no fused
  multiply-add: ``_fma32`` forms it exactly in float64 (see there);
* a (numangle + 2) x (numrho + 2) accumulator, bin r in column r + 1, columns 0 .. numrho kept when
  OpenCV votes in shared memory and 0 .. numrho + 1 when it votes with global atomics
  (shared_vote_semantics with 48 KiB a block, what every GPU OpenCV-CUDA runs on reports);
* local maxima: above the threshold, greater than the left and upper neighbours, not less than
  the right and lower ones;
* cvgpu's order: votes descending then raster order with doSort, raster order without; more
  maxima than maxLines keeps the strongest maxLines (votes descending, ties in raster order).

Memory is bounded by voting a block of angles at a time (``_CELLS`` (angle, point) pairs).
"""
import numpy as np

from .hough import shared_vote_semantics

f32 = np.float32
_CELLS = 1 << 21  # (angle, point) pairs voted at once: some 100 MB of float64 temporaries


def _fma32(a, b, c):
    """float32 fma(a, b, c), correctly rounded, elementwise. a * b is exact in float64 (24 + 24 bits
    of significand); the sum with c is formed in float64 with its rounding error (Knuth's TwoSum),
    and an inexact sum whose last bit is even is moved one ulp towards the exact value (rounding to
    odd), so that rounding it to float32 gives the correctly rounded result (53 >= 2 * 24 + 2)."""
    p = np.asarray(a, np.float64) * np.asarray(b, np.float64)
    c = np.asarray(c, np.float64)
    s = p + c
    pb = s - p
    err = (p - (s - pb)) + (c - pb)
    even = (s.view(np.int64) & 1) == 0
    fix = (err != 0) & even
    if np.any(fix):
        s = np.where(fix, np.nextafter(s, np.where(err > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def _hex32(text):
    return np.array(int(text, 16), np.uint32).view(np.float32)[()]


# libdevice's constants for sinf/cosf (bit patterns of the float32 values).
_2_OVER_PI = _hex32("3F22F983")
_MINUS_PI_2 = (_hex32("BFC90FDA"), _hex32("B3A22168"), _hex32("A7C234C5"))  # -pi/2 in three parts
_SIN_POLY = (_hex32("B94D4153"), _hex32("3C0885E4"), _hex32("BE2AAAA8"))
_COS_POLY = (_hex32("37CBAC00"), _hex32("BAB607ED"), _hex32("3D2AAABB"), _hex32("BEFFFFFF"))


def cuda_sincosf(angles):
    """(sin, cos) of float32 angles as CUDA's sincosf computes them (its path for |a| < 105615;
    the detector's angles are within [0, pi + theta])."""
    a = np.asarray(angles, np.float32)
    q = np.rint(a * _2_OVER_PI).astype(np.int64)
    qf = q.astype(np.float32)
    t = a
    for part in _MINUS_PI_2:
        t = _fma32(qf, part, t)
    t2 = t * t
    # The odd polynomial (sine of the reduced argument) and the even one (its cosine).
    z = _fma32(_fma32(_SIN_POLY[0], t2, _SIN_POLY[1]), t2, _SIN_POLY[2])
    sin_r = _fma32(z, _fma32(t2, t, f32(0)), t)
    z = _fma32(_fma32(_fma32(_COS_POLY[0], t2, _COS_POLY[1]), t2, _COS_POLY[2]), t2, _COS_POLY[3])
    cos_r = _fma32(z, t2, f32(1))

    def by_quadrant(k):
        r = np.where((k & 1) != 0, cos_r, sin_r)
        # The sign flip is an FMA by -1 in libdevice: -0 becomes +0.
        return np.where((k & 2) != 0, f32(0) - r, r).astype(np.float32)

    return by_quadrant(q), by_quadrant(q + 1)


def scaled_trig(numangle, theta32, irho32):
    """(cosVal, sinVal) float32 arrays of every angle, as OpenCV's voting kernel computes them."""
    angles = np.arange(numangle, dtype=np.float32) * f32(theta32)
    sin, cos = cuda_sincosf(angles)
    return cos * f32(irho32), sin * f32(irho32)


def accumulate(xs, ys, numangle, numrho, cos_val, sin_val):
    """OpenCV-CUDA's (numangle + 2) x (numrho + 2) int32 accumulator of the points (xs, ys)."""
    width = numrho + 2
    hi_col = numrho if shared_vote_semantics(numrho) else numrho + 1
    acc = np.zeros((numangle + 2, width), np.int32)
    x = xs.astype(np.float32)[None, :]
    y = ys.astype(np.float32)[None, :]
    shift = (numrho - 1) // 2 + 1  # bin shift, then column = bin + 1
    step = max(1, _CELLS // max(1, len(xs)))
    for start in range(0, numangle, step):
        stop = min(numangle, start + step)
        c = cos_val[start:stop, None]
        s = sin_val[start:stop, None]
        col = np.rint(_fma32(x, c, y * s)).astype(np.int64) + shift
        rows = np.broadcast_to(np.arange(stop - start, dtype=np.int64)[:, None], col.shape)
        keep = (col >= 0) & (col <= hi_col)
        counts = np.bincount(rows[keep] * width + col[keep], minlength=(stop - start) * width)
        acc[start + 1:stop + 1] += counts.reshape(stop - start, width).astype(np.int32)
    return acc


def local_maxima(acc, threshold):
    """(angle index, rho index, votes) of the local maxima, in raster order."""
    mid = acc[1:-1, 1:-1]
    peak = ((mid > threshold) & (mid > acc[1:-1, :-2]) & (mid >= acc[1:-1, 2:])
            & (mid > acc[:-2, 1:-1]) & (mid >= acc[2:, 1:-1]))
    n, r = np.nonzero(peak)
    return n, r, mid[n, r]


def choose(votes, do_sort, max_lines):
    """Indices (into the raster-ordered maxima) of the lines cvgpu returns, in its order."""
    total = len(votes)
    count = 0 if max_lines <= 0 else min(total, max_lines)
    if do_sort or count < total:
        # A stable sort of raster-ordered maxima: equal votes stay in raster order.
        order = np.argsort(-votes.astype(np.int64), kind="stable")[:count]
        return order if do_sort else np.sort(order)
    return np.arange(count)


def detect(image, rho32, irho32, theta32, threshold, do_sort, max_lines, numangle, numrho):
    """The detector's result on a 2-D uint8 numpy image with valid (numangle, numrho): the (2, N, 2)
    float32 array of the result GpuMat (row 0 (rho, theta), row 1 the int32 votes' bits in its first
    N * 4 bytes, zeros after), or None when there is no line."""
    ys, xs = np.nonzero(image)
    if len(xs) == 0:
        return None
    cos_val, sin_val = scaled_trig(numangle, theta32, irho32)
    acc = accumulate(xs, ys, numangle, numrho, cos_val, sin_val)
    n, r, votes = local_maxima(acc, threshold)
    pick = choose(votes, do_sort, max_lines)
    if len(pick) == 0:
        return None
    n, r, votes = n[pick], r[pick], votes[pick]
    out = np.zeros((2, len(pick), 2), np.float32)
    # OpenCV's kernel: rho = ((float)r - (float)(numrho - 1) * 0.5f) * rho, theta = (float)n * theta.
    out[0, :, 0] = (r.astype(np.float32) - f32(f32(numrho - 1) * f32(0.5))) * f32(rho32)
    out[0, :, 1] = n.astype(np.float32) * f32(theta32)
    out[1].reshape(-1).view(np.int32)[:len(pick)] = votes
    return out
