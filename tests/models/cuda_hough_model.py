"""An exact CPU model of OpenCV-CUDA's HoughLinesDetector (cudaimgproc's hough_lines.cu), which
cvgpu.cuda.createHoughLinesDetector reproduces.

OpenCV's pip wheels have no CUDA: the reference is OpenCV's own output recorded on a GPU (the shared
golden corpus, tests/cuda/test_cuda_hough_golden.py), and this model, checked against all of it
without a GPU, carries the comparison to any image: tests/cuda/test_cuda_hough.py compares the
detector with it bit for bit. The arithmetic: CUDA's sincosf (libdevice's reduction and polynomials,
every FMA exact), the contracted bin expression fmaf(x, cos, y * sin) (which product nvcc fused is
established by the golden cases), the (numangle + 2) x (numrho + 2) accumulator, the local maxima, and
cvgpu's documented order of the lines (votes descending with doSort, raster order otherwise, the
strongest maxLines kept when there are more). Pure numpy; nothing here calls cv2 or cvgpu's kernels
(only cvgpu's host-side sizes, accumulator_size and shared_vote_semantics, OpenCV's formulas).
"""
import numpy as np

from cvgpu.cuda import hough as chough

f32 = np.float32


def fma32(a, b, c):
    """Correctly rounded float32 fma(a, b, c), vectorised. The product is exact in float64 and the
    float64 sum s = fl(p + c) rounded once more to float32 is already the correctly rounded result,
    except where that second rounding is a tie: s exactly halfway between two float32 values while
    p + c is not s. Only those elements (and non-finite ones) go through _fma32_exact."""
    a = np.asarray(a, np.float32).astype(np.float64)
    b = np.asarray(b, np.float32).astype(np.float64)
    c = np.asarray(c, np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        s = np.asarray(a * b + c, np.float64)
        r = s.astype(np.float32)
        # In float32's normal range a tie is s with the 29 mantissa bits below float32's precision
        # equal to 1000...0; below it (subnormal float32 results, s != 0) and for results that do
        # not fit in float32 the exact path decides.
        tiny = np.abs(s) < 2.0 ** -126
        odd = ((s.view(np.int64) & 0x1FFFFFFF) == 0x10000000) | (tiny & (s != 0)) | ~np.isfinite(r)
    if odd.any():
        a, b, c = np.broadcast_arrays(a, b, c)
        r[odd] = _fma32_exact(a[odd], b[odd], c[odd])
    return r


def _fma32_exact(a, b, c):
    """fma32 on float64 copies of float32 values: the sum formed exactly as (s, e) with TwoSum, then
    rounded to odd in float64 and once to float32 (round-to-odd makes the double rounding harmless:
    53 >= 24 + 2)."""
    p = a * b
    s = np.asarray(p + c, np.float64)
    bb = s - p
    e = (p - (s - bb)) + (c - bb)
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0)
    s = np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
    return s.astype(np.float32)


def _f(hex32):
    return np.frombuffer(bytes.fromhex(hex32)[::-1], dtype=np.float32)[0]


# CUDA's accurate sinf/cosf (libdevice, as NVRTC and nvcc inline it): quadrant from
# rint(a * 2/pi), a three-part Cody-Waite reduction with FMAs, then a degree-7 odd polynomial (sin)
# or degree-8 even polynomial (cos) on the reduced argument, the sign from the quadrant.
_TWO_OVER_PI = _f("3F22F983")
_PIO2 = (_f("BFC90FDA"), _f("B3A22168"), _f("A7C234C5"))
_SIN = (_f("B94D4153"), _f("3C0885E4"), _f("BE2AAAA8"))
_COS = (_f("37CBAC00"), _f("BAB607ED"), _f("3D2AAABB"), _f("BEFFFFFF"))


def model_sincosf(a):
    """(sin, cos) of float32 angles |a| < 105615 exactly as CUDA's sincosf computes them."""
    a = np.asarray(a, np.float32)
    assert np.all(np.abs(a) < 105615)
    q = np.rint(a * _TWO_OVER_PI).astype(np.int64)
    j = q.astype(np.float32)
    t = fma32(j, _PIO2[0], a)
    t = fma32(j, _PIO2[1], t)
    t = fma32(j, _PIO2[2], t)
    s = t * t

    def kernel(quadrant):
        odd = (quadrant & 1) != 0
        p = np.where(odd, f32(1), t).astype(np.float32)
        u = fma32(s, p, f32(0))
        z = np.where(odd, fma32(_COS[0], s, _COS[1]), _SIN[0]).astype(np.float32)
        z = fma32(z, s, np.where(odd, _COS[2], _SIN[1]).astype(np.float32))
        z = fma32(z, s, np.where(odd, _COS[3], _SIN[2]).astype(np.float32))
        r = fma32(z, u, p)
        return np.where((quadrant & 2) != 0, fma32(r, f32(-1), f32(0)), r).astype(np.float32)

    return kernel(q), kernel(q + 1)


def model_trig(numangle, theta32, irho32):
    ang = np.arange(numangle).astype(np.float32) * f32(theta32)
    s, c = model_sincosf(ang)
    return c * f32(irho32), s * f32(irho32)


def model_bins(xs, ys, c, s, numrho, fused="x"):
    """Accumulator columns r + shift (no border offset) for every (angle, point).
    fused="x": fmaf(x, cos, y*sin) — what OpenCV's nvcc build does (established below);
    "y": fmaf(y, sin, x*cos); None: two rounded products and a rounded add."""
    x = np.asarray(xs, np.float32)[None, :]
    y = np.asarray(ys, np.float32)[None, :]
    C, S = c[:, None], s[:, None]
    if fused == "x":
        v = fma32(x, C, (y * S).astype(np.float32))
    elif fused == "y":
        v = fma32(y, S, (x * C).astype(np.float32))
    else:
        v = (x * C) + (y * S)
    return np.rint(v).astype(np.int64) + (numrho - 1) // 2


def model_accumulator(img, rho, theta, fused="x", shared_semantics=None):
    """OpenCV-CUDA's (numangle + 2) x (numrho + 2) accumulator, or None (no points / bad sizes)."""
    rho32, theta32 = f32(rho), f32(theta)
    rows, cols = img.shape
    ys, xs = np.nonzero(img)
    numangle, numrho = chough.accumulator_size(rows, cols, rho32, theta32)
    if len(xs) == 0 or numangle <= 0 or numrho <= 0:
        return None, numangle, numrho
    c, s = model_trig(numangle, theta32, f32(1) / rho32)
    width = numrho + 2
    acc = np.zeros((numangle + 2) * width, np.int64)
    if shared_semantics is None:
        shared_semantics = chough.shared_vote_semantics(numrho)
    hi = numrho if shared_semantics else numrho + 1
    for start in range(0, numangle, 64):  # bound the memory of large cases
        stop = min(numangle, start + 64)
        col = model_bins(xs, ys, c[start:stop], s[start:stop], numrho, fused) + 1
        ok = (col >= 0) & (col <= hi)
        n = np.broadcast_to(np.arange(start, stop)[:, None], col.shape)
        acc += np.bincount((n[ok] + 1) * width + col[ok], minlength=acc.size)
    return acc.reshape(numangle + 2, width), numangle, numrho


def model_maxima(acc, threshold):
    """(n, r, votes) of the local maxima, in raster order."""
    inner = acc[1:-1, 1:-1]
    m = ((inner > threshold) & (inner > acc[1:-1, :-2]) & (inner >= acc[1:-1, 2:]) &
         (inner > acc[:-2, 1:-1]) & (inner >= acc[2:, 1:-1]))
    n, r = np.nonzero(m)
    return n, r, inner[n, r].astype(np.int32)


def model_line_values(n, r, numrho, rho, theta):
    radius = (r.astype(np.float32) - f32(f32(numrho - 1) * f32(0.5))) * f32(rho)
    angle = n.astype(np.float32) * f32(theta)
    return radius.astype(np.float32), angle.astype(np.float32)


def model_detect(img, rho, theta, threshold, do_sort=False, max_lines=4096, fused="x"):
    """cvgpu's documented output: (lines (N, 2) float32, votes (N,) int32), or None when empty.
    Order: doSort -> votes descending, ties in raster order; else raster order; more maxima than
    maxLines -> the strongest maxLines (votes descending, ties raster) are kept."""
    acc, numangle, numrho = model_accumulator(img, rho, theta, fused)
    if acc is None:
        return None
    n, r, votes = model_maxima(acc, threshold)
    flat = (n + 1) * (numrho + 2) + r + 1
    count = 0 if max_lines <= 0 else min(len(n), max_lines)
    if count == 0:
        return None
    if do_sort or len(n) > count:
        order = np.lexsort((flat, -votes.astype(np.int64)))[:count]
        if not do_sort:
            order = np.sort(order)  # raster order among the kept (flat is increasing with index)
        n, r, votes = n[order], r[order], votes[order]
    radius, angle = model_line_values(n, r, numrho, rho, theta)
    return np.stack([radius, angle], axis=1), votes
