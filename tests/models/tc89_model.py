"""Reference model of cv2's Teh-Chin chain approximation (CHAIN_APPROX_TC89_L1 / TC89_KCOS).

Input: one contour exactly as cv2.findContours returns it with CHAIN_APPROX_NONE (its first point
is the chain's origin and consecutive points are 8-neighbours, the last one closing back to the
first). Output: the points cv2 returns for the same border with TC89_L1 / TC89_KCOS. The border
tracing (and so the order of contours and the hierarchy) is the same for every method; only the
point list of each contour changes. Nothing here calls cv2; tests/contours/test_tc89_model.py checks it
against cv2 bit for bit.

Written from observing cv2 5.0 and reading OpenCV's description of its passes; the structure below
is the one kernels/contours/tc89.cu follows (``tc89_approx``), pass by pass. All passes work on the full
chain: index i is the i-th NONE point, ``s[i]`` its curvature value, ``k[i]`` its region of
support, ``gone[i]`` whether it is dropped. Indices wrap around the closed chain.

  pass 0  code[i] = Freeman direction from point i to point i + 1. The 1-curvature of point i is
          the turn from code[i - 1] to code[i], 0..4 (min(|d|, 8 - |d|)). Points with curvature 0
          are dropped at once (s = 0).
  pass 1  every remaining point gets its region of support k (see ``support``; integer geometry,
          one decision through a float whose sign is read from its bit pattern). For KCOS its
          value s becomes the bit pattern (as int32) of float(cos + 1.1), the k-cosine taken at
          the largest j <= k from which the cosines keep increasing (see ``kcos``).
  pass 2  non-maximum suppression, IN PLACE in index order: point i (k >= 2) is dropped, s = 0,
          when a point within k // 2 on either side has a larger s *as it is now* (earlier points
          already dropped read 0, which is what makes the pass order-dependent).
  pass 3  a remaining point with k == 1 is dropped (s = 0) when s <= the s of either direct
          neighbour (again in place, in order).
  pass 4  TC89_L1 only (KCOS stops after pass 3): runs of consecutive surviving indices are
          thinned. A run of 2 keeps the one with the larger s (ties: the larger k loses, equal k:
          the first stays); a run of 3 or more keeps its last point and its first point, and also
          its second point when the run begins at the pass's start index. When both ends of the
          chain survive, the wrap-around run is handled first by ``_new_start`` (quirky: see there).
"""
import math
import struct

import numpy as np

# Freeman code of the step (dx, dy), image coordinates (y down): 0 right, 1 up-right, 2 up, ...
_CODE = {(1, 0): 0, (1, -1): 1, (0, -1): 2, (-1, -1): 3, (-1, 0): 4, (-1, 1): 5, (0, 1): 6, (1, 1): 7}

TC89_L1, TC89_KCOS = 3, 4


def _i32(v):
    """Wrap to int32 (cv2 does the integer geometry in C int; big contours overflow there too)."""
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


def _f32_bits(x):
    """Bit pattern, read as int32, of the float nearest the double x."""
    return struct.unpack("<i", struct.pack("<f", x))[0]


def _f32(x):
    return struct.unpack("<f", struct.pack("<f", x))[0]


def chain_codes(pts):
    """Freeman codes of a closed NONE contour (N, 2): code[i] leads from point i to point i + 1."""
    n = len(pts)
    codes = []
    for i in range(n):
        a, b = pts[i], pts[(i + 1) % n]
        codes.append(_CODE[(_i32(int(b[0]) - int(a[0])), _i32(int(b[1]) - int(a[1])))])
    return codes


def support(xs, ys, i):
    """Region of support of point i: grow k while the chord p(i-k)..p(i+k) gets longer and the
    point's signed distance to it (scaled by the chord length) keeps increasing in magnitude with
    the same sign. The comparison of d/l with the previous one is done cross-multiplied in double,
    rounded to float, and read as the sign of that float's bit pattern, so +0 and -0 differ."""
    n = len(xs)
    d_prev = 0
    l_prev = 0
    k = 1
    while True:
        if k > n:
            raise AssertionError("support region ran past the chain (cv2 raises here)")
        a = i - k if i >= k else n - k + i
        b = i + k if i + k < n else i + k - n
        dx = _i32(xs[b] - xs[a])
        dy = _i32(ys[b] - ys[a])
        lk = _i32(dx * dx + dy * dy)
        dk = _i32(_i32((xs[i] - xs[a]) * dy) - _i32((ys[i] - ys[a]) * dx))
        # float(d_prev * lk - dk * l_prev), each product in double (cv2: SSE2, no FMA).
        v = float(d_prev) * float(lk) - float(dk) * float(l_prev)
        neg = math.copysign(1.0, v) < 0           # sign bit of the double (float keeps it)
        if k > 1:
            if l_prev >= lk:
                break
            if d_prev > 0 and (neg or v == 0.0):   # float bits <= 0: +0 or any negative
                break
            if d_prev < 0 and not neg:             # float bits >= 0: +0 or any positive
                break
        d_prev = dk
        l_prev = lk
        k += 1
    return k - 1


def kcos(xs, ys, i, k):
    """k-cosine value of point i: walk j = k, k-1, ..., 1 while the cosine's float bits grow;
    the last accepted value wins (0 if the first neighbour pair already coincides with i)."""
    n = len(xs)
    s = 0
    j = k
    while j > 0:
        a = i - j if i >= j else n - j + i
        b = i + j if i + j < n else i + j - n
        dx1 = _i32(xs[a] - xs[i])
        dy1 = _i32(ys[a] - ys[i])
        dx2 = _i32(xs[b] - xs[i])
        dy2 = _i32(ys[b] - ys[i])
        if (dx1 | dy1) == 0 or (dx2 | dy2) == 0:
            break
        num = float(_i32(_i32(dx1 * dx2) + _i32(dy1 * dy2)))
        den = math.sqrt((float(dx1) * dx1 + float(dy1) * dy1) * (float(dx2) * dx2 + float(dy2) * dy2))
        c = _f32(num / den)
        bits = _f32_bits(c + 1.1)
        if j < k and bits <= s:
            break
        s = bits
        j -= 1
    return s


def _next_alive(gone, start):
    r = start + 1
    while r < len(gone) and gone[r]:
        r += 1
    return r


def _new_start(xs, ys, s, k, gone):
    """Both ends of the chain survive pass 3: the run through the chain's end and start is cut
    as cv2 does it. Returns the start index of pass 4, or None when pass 4 is skipped (no point
    has s == 0: every point survives). Mutates s / gone and may append a copy of point 0."""
    n = len(s)
    z = 1
    while z < n and s[z] != 0:
        s[z - 1] = 0           # zeroed but NOT dropped: these points stay in the output
        z += 1
    if z == n:
        return None
    first = z - 1
    y = n - 2
    while y > 0 and s[y] != 0:
        y -= 1
    last = y + 1
    # The trailing run keeps only its first point (cv2 clears the tail once per step of the loop
    # above; the union of those clears is this one range).
    for t in range(last + 1, n):
        gone[t] = True
        s[t] = 0
    if first == 0 and last == n - 1:
        # Only point 0 and point n-1 end the two runs: point 0 is appended again at the end, so
        # the output can hold point 0 twice (first and last).
        first = _next_alive(gone, 0)
        xs.append(xs[0])
        ys.append(ys[0])
        s.append(s[0])
        k.append(k[0])
        gone.append(False)
    return first


def _cleanup(s, k, gone, start):
    n = len(s)
    count = 1
    first = start
    prev = start
    for i in range(start, n):
        if gone[i]:
            continue
        nxt = _next_alive(gone, i)
        if nxt == n or nxt - i != 1:
            if count >= 2:
                if count == 2:
                    if s[prev] > s[i] or (s[prev] == s[i] and k[prev] <= k[i]):
                        gone[i] = True
                    else:
                        gone[prev] = True
                else:
                    first = _next_alive(gone, first)
                    for t in range(first + 1, i):
                        gone[t] = True
            first = i
            count = 1
        else:
            count += 1
        prev = i


def approx_tc89(pts, method):
    """cv2's TC89 point list (M, 2) int32 for one NONE contour ``pts`` (N, 2) or (N, 1, 2)."""
    pts = np.asarray(pts).reshape(-1, 2)
    n = len(pts)
    if n <= 1:
        return pts.astype(np.int32, copy=True)
    xs = [int(v) for v in pts[:, 0]]
    ys = [int(v) for v in pts[:, 1]]
    codes = chain_codes(pts)
    # pass 0
    s = []
    for i in range(n):
        d = abs(codes[i] - codes[i - 1])
        s.append(min(d, 8 - d))
    gone = [v == 0 for v in s]
    k = [0] * n
    # pass 1
    for i in range(n):
        if gone[i]:
            continue
        k[i] = support(xs, ys, i)
        if method == TC89_KCOS:
            s[i] = kcos(xs, ys, i, k[i])
    # pass 2 (in place)
    for i in range(n):
        half = k[i] >> 1
        for j in range(1, half + 1):
            a = i - j if i >= j else n - j + i
            b = i + j if i + j < n else i + j - n
            if s[a] > s[i] or s[b] > s[i]:
                s[i] = 0
                gone[i] = True
                break
    # pass 3 (in place)
    for i in range(n):
        if gone[i] or k[i] != 1:
            continue
        if s[i] <= s[i - 1] or s[i] <= s[(i + 1) % n]:
            s[i] = 0
            gone[i] = True
    # pass 4
    if method == TC89_L1:
        start = 0
        if s[0] != 0 and s[n - 1] != 0:
            start = _new_start(xs, ys, s, k, gone)
        if start is not None:
            _cleanup(s, k, gone, start)
    keep = [i for i in range(len(gone)) if not gone[i]]
    out = np.empty((len(keep), 2), np.int32)
    for r, i in enumerate(keep):
        out[r, 0] = xs[i]
        out[r, 1] = ys[i]
    return out


def find_contours_tc89(none_result, method):
    """cv2.findContours(img, mode, TC89_*) from cv2's (or the model's) CHAIN_APPROX_NONE result of
    the same image and mode: same contour order and hierarchy, each contour approximated."""
    contours, hier = none_result
    return tuple(approx_tc89(c, method).reshape(-1, 1, 2) for c in contours), hier


# ---------------------------------------------------------------- the parallel form (the kernels')

_OPEN, _KEEP, _DROP = 0, 1, 2


def _window(i, half, n):
    for m in range(1, half + 1):
        yield (i - m if i >= m else n - m + i), (i + m if i + m < n else i + m - n)


def approx_tc89_parallel(pts, method, rounds=4):
    """approx_tc89 as kernels/contours/tc89.cu computes it: passes 2..4 as steps that each decide every
    point from the previous step's arrays only (numpy whole-array steps where the step is uniform).

      pass 2  point i is dropped iff some q in its window has s[q] > s[i] and (q > i, or q < i and
              q is kept): first the decidable part (a larger q > i drops, no larger q < i keeps),
              then ``rounds`` Jacobi rounds over the open points (a kept larger q < i drops, all
              larger q < i dropped keeps; each decision is final when made), then what is still
              open in index order (every q < i is decided first).
      pass 3  x(i) = f_i(x(i - 1)) with f_i constant or the negation; x(0) direct; each point walks
              back to the nearest constant f and counts the negations.
      pass 4  _new_start from three reductions per contour (first s == 0 after 0, last s == 0
              before n - 1, first s != 0 after 0), the cut tail as a range; then runs of
              consecutive live indices from the start index are numbered (cumsum of run-start
              flags) and each point decides from its run's two ends alone.
    """
    pts = np.asarray(pts).reshape(-1, 2)
    n = len(pts)
    if n <= 1:
        return pts.astype(np.int32, copy=True)
    xs = [int(v) for v in pts[:, 0]]
    ys = [int(v) for v in pts[:, 1]]
    codes = np.array(chain_codes(pts))
    d = np.abs(codes - np.roll(codes, 1))
    s = np.minimum(d, 8 - d).astype(np.int64)
    gone = s == 0
    k = np.zeros(n, np.int64)
    for i in np.flatnonzero(~gone):
        k[i] = support(xs, ys, int(i))
        if method == TC89_KCOS:
            s[i] = kcos(xs, ys, int(i), int(k[i]))
    # pass 2
    st = np.empty(n, np.int8)
    for i in range(n):
        si = s[i]
        later = earlier = False
        for a, b in _window(i, int(k[i]) >> 1, n):
            later |= (s[a] > si and a > i) or (s[b] > si and b > i)
            earlier |= (s[a] > si and a < i) or (s[b] > si and b < i)
        st[i] = _DROP if later else (_OPEN if earlier else _KEEP)

    def larger_earlier(i):
        return [q for a, b in _window(i, int(k[i]) >> 1, n) for q in (a, b) if s[q] > s[i] and q < i]

    for _ in range(rounds):
        old = st.copy()
        for i in np.flatnonzero(old == _OPEN):
            qs = old[larger_earlier(int(i))]
            if (qs == _KEEP).any():
                st[i] = _DROP
            elif (qs == _DROP).all():
                st[i] = _KEEP
    for i in np.flatnonzero(st == _OPEN):   # index order
        st[i] = _DROP if (st[larger_earlier(int(i))] == _KEEP).any() else _KEEP
    gone |= st == _DROP
    s[st == _DROP] = 0
    # pass 3
    e = ~gone & (k == 1)
    x0 = bool(e[0] and (s[0] <= s[n - 1] or s[0] <= s[1 % n]))
    right = np.append(s[1:], 0 if x0 else s[0])
    r = s <= right
    f0 = e & (r | (s <= np.roll(s, 1)))
    f1 = e & (r | (s <= 0))
    const = f0 == f1
    const[0] = True
    f0[0] = x0
    last_const = np.maximum.accumulate(np.where(const, np.arange(n), 0))
    x = f0[last_const] ^ ((np.arange(n) - last_const) & 1).astype(bool)
    gone |= x
    s[x] = 0
    keep = ~gone
    if method == TC89_L1:
        start, cut = 0, n
        if s[0] != 0 and s[n - 1] != 0:
            # _new_start from three per-contour reductions (the kernels' atomics); cv2 also zeroes
            # s before the start index, which nothing reads again.
            zero = np.flatnonzero(s[1:] == 0) + 1
            z = int(zero[0]) if len(zero) else n
            if z == n:
                start = None
            else:
                first = z - 1
                inner = zero[zero <= n - 2]
                last = (int(inner[-1]) if len(inner) else 0) + 1
                cut = last + 1
                if first == 0 and last == n - 1:
                    live = np.flatnonzero(s[1:] != 0) + 1
                    first = int(live[0]) if len(live) else n
                    xs.append(xs[0])
                    ys.append(ys[0])
                    s, k, gone = np.append(s, s[0]), np.append(k, k[0]), np.append(gone, False)
                start = first
        alive = ~gone
        alive[cut:n] = False
        if start is not None:
            m = len(alive)
            idx = np.arange(m)
            in4 = alive & (idx >= start)
            prev_alive = np.append(False, alive[:-1])
            flag = in4 & ((idx == start) | ~prev_alive)
            rid = np.cumsum(flag) - 1
            next_alive = np.append(alive[1:], False)
            ends = in4 & ~next_alive
            rs = np.zeros(m, np.int64)
            re = np.zeros(m, np.int64)
            rs[rid[flag]] = idx[flag]
            re[rid[ends]] = idx[ends]
            a, b = rs[rid], re[rid]
            drop_b = (s[a] > s[b]) | ((s[a] == s[b]) & (k[a] <= k[b]))
            two = (b - a == 1) & np.where(drop_b, idx == b, idx == a)
            more = (b - a > 1) & (idx != a) & (idx != b) & ~((a == start) & (idx == a + 1))
            alive &= ~(in4 & (two | more))
        keep = alive
    sel = np.flatnonzero(keep)
    return np.stack([np.array(xs)[sel], np.array(ys)[sel]], 1).astype(np.int32).reshape(-1, 2)
