"""A numpy model of the exact-LMS pipeline in kernels/lms/lms.cu, with its float32 arithmetic.

It mirrors the kernels step by step for one problem (one point set, one residual mode): the
power-of-two scaled candidate directions, the float32 cross products with exact zeros at the pair,
the ~sqrt(M) stratified samples (same hash), the decision pass with its rounding margin and 1e-5
shrink, and the exact h-th-smallest evaluation of the surviving candidates. tests/lms/test_lms.py
checks it against the brute force on CPU, so the algorithm the GPU runs (sampling + pruning, not
only the exhaustive numpy fallback) is proven exact off the device too. run() returns
(best key, number of candidates that survived the decision pass); the key packs
(width bits << 32) | ((a * n + b) * 2 + side) as the kernels do.
"""
import math

import numpy as np

f32 = np.float32

def sample_count(M):
    k = int(math.floor(math.sqrt(float(M)))); k = max(k, 256); return min(M, k)

def mix64(x):
    m = (1 << 64) - 1
    x &= m; x ^= x >> 33; x = (x * 0xff51afd7ed558ccd) & m; x ^= x >> 33; x = (x * 0xc4ceb9fe1a85ec53) & m; x ^= x >> 33
    return x

def decode(t):
    b = int((math.sqrt(8.0 * t + 1.0) - 1.0) * 0.5)
    while b * (b + 1) // 2 > t: b -= 1
    while (b + 1) * (b + 2) // 2 <= t: b += 1
    return t - b * (b + 1) // 2, b

FLT_MIN = 1.1754943508222875e-38

def direction(P, a, b, mode):
    """(dx, dy, norm, ddx, ddy, dnorm, tiny) as the kernels' candidate_dir: the float32 direction and
    norm, the exact scaled direction in double, and whether the norm's component is below float32's
    normal range (modes 0 and 1: such a candidate is evaluated in double)."""
    if a == b:
        dx, dy = (f32(0), f32(1)) if mode == 1 else (f32(1), f32(0))
        return dx, dy, f32(1), float(dx), float(dy), 1.0, False
    ddx = float(f32(P[b, 0] - P[a, 0])); ddy = float(f32(P[b, 1] - P[a, 1]))
    m = max(abs(ddx), abs(ddy))
    if m > 0:
        e = math.frexp(m)[1]; ddx = math.ldexp(ddx, 1 - e); ddy = math.ldexp(ddy, 1 - e)
    dx, dy = f32(ddx), f32(ddy)
    norm = abs(dx) if mode == 0 else abs(dy) if mode == 1 else f32(math.sqrt(ddx * ddx + ddy * ddy))
    small = abs(ddx) if mode == 0 else abs(ddy) if mode == 1 else 1.0
    if 0.0 < small < FLT_MIN:
        return dx, dy, norm, ddx, ddy, small, True
    return dx, dy, norm, ddx, ddy, float(norm), False

def cdir(P, a, b, mode):
    return direction(P, a, b, mode)[:3]

def usable(d):
    """The kernels' candidate_dir result: a tiny candidate is always usable."""
    return d[6] or (d[2] > 0 and d[2] <= 3e38)

def evalc(P, mode, a, b):
    n = len(P); h = n // 2 + 1
    d = direction(P, a, b, mode)
    dx, dy, norm, ddx, ddy, dnorm, tiny = d
    if not usable(d): return None
    with np.errstate(all="ignore"):
        if tiny:  # the residual itself: the cross product in double over the norm, rounded once
            v = ((ddx * (P[:, 1] - P[a, 1]).astype(f32).astype(np.float64)
                  - ddy * (P[:, 0] - P[a, 0]).astype(f32).astype(np.float64)) / dnorm).astype(f32)
        else:
            v = (dx * (P[:, 1] - P[a, 1])).astype(f32) - (dy * (P[:, 0] - P[a, 0])).astype(f32)
    v = v.astype(f32)
    v[b] = 0  # b is on the candidate's line (the kernel's i == b), subnormal direction components too
    best = None
    for s, vv in ((0, v), (1, -v)):
        keys = np.where(vv >= 0, vv, np.inf).astype(f32)
        kth = np.sort(keys)[h - 1]
        if not np.isfinite(kth) and kth != np.inf: continue
        if kth == np.inf: continue  # KEY_NONE (inf floats only from overflow; ignored here)
        with np.errstate(all="ignore"):
            w = kth if tiny else f32(kth / norm)
        key = (w.view(np.uint32).item() << 32) | (((a * n + b) * 2 + s) & 0xffffffff)
        if best is None or key < best: best = key
    return best

def run(P, mode):
    P = np.asarray(P, f32).reshape(-1, 2); n = len(P); h = n // 2 + 1
    M = n * (n + 1) // 2; K = sample_count(M)
    best = None
    def upd(k):
        nonlocal best
        if k is not None and (best is None or k < best): best = k
    for j in range(K):
        t = j
        if M > K and j > 0:  # sample 0 is candidate 0 (the axis direction), as in the kernel
            lo, hi = j * M // K, (j + 1) * M // K
            t = lo + mix64((j * 0x9e3779b97f4a7c15 + M)) % (hi - lo)
        upd(evalc(P, mode, *decode(t)))
    nlist = 0
    if M > K:
        w0 = np.uint32(best >> 32).view(f32) if best is not None else f32(np.nan)
        m = f32(np.abs(P).max())
        for t in range(M):
            if not (w0 > 0): break
            a, b = decode(t)
            d = direction(P, a, b, mode)
            if not usable(d): continue
            dx, dy, norm = d[:3]
            if d[6]:  # tiny: no float32 bound holds, listed for the exact evaluation
                nlist += 1
                upd(evalc(P, mode, a, b))
                continue
            A, B = -dy, dx
            C = f32(f32(dy * P[a, 0]) - f32(dx * P[a, 1]))
            e = f32(4e-6) * ((abs(A) + abs(B)) * m + abs(C)) + f32(1e-30)
            T = f32(f32(w0 * norm) * f32(1 - 1e-5))
            Te = f32(T + e)  # the allowance at both ends of each side's range (kernels/lms/lms.cu)
            if not (np.isfinite(Te) and np.isfinite(C) and np.isfinite(e)): continue
            v = (np.float64(A) * P[:, 0] + (np.float64(B) * P[:, 1] + C).astype(f32)).astype(f32)  # ~fma
            cl = np.sum((v >= -e) & (v < Te)); cu = np.sum((v <= e) & (v > -Te))
            if max(cl, cu) >= h:
                nlist += 1
                upd(evalc(P, mode, a, b))
    return best, nlist
