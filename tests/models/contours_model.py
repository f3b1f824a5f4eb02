"""A pure Python/numpy reference model of cv2.findContours for CV_8UC1 input.

It covers modes RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE, methods CHAIN_APPROX_NONE and
CHAIN_APPROX_SIMPLE, and ``offset``. It returns exactly what the Python binding returns: a tuple of
int32 (N, 1, 2) arrays of (x, y) points and an int32 (1, M, 4) hierarchy
``[next, previous, first_child, parent]``, or ``((), None)`` when there is no contour.

This is the model the GPU findContours must match; cv2 stays the judge (tests/contours/test_contours_model.py
checks this model against cv2 bit for bit). Written from the Suzuki-Abe paper (1985),
/work/shared/specs/contours.md and observed cv2 behaviour; nothing here calls cv2.

Algorithm (Suzuki-Abe border following as OpenCV does it), rule by rule:

  * Binarise (nonzero -> 1) into a copy with a one-pixel frame of zeros. OpenCV does the same, so
    pixels on the image border are ordinary foreground and coordinates are shifted back by 1 at the
    end (a full image gives one contour starting at (0, 0)).
  * Raster scan, rows top to bottom, columns left to right, over the *current* marks (tracing
    rewrites pixels further on in the scan, and those marks decide later starts).
  * Marks are signed border numbers NBD (2, 3, ... in discovery order; 1 is the frame). OpenCV keeps
    its 8-bit marks small and disambiguates with bounding boxes; the observable result is that of
    unbounded numbers, which is what we keep (int, no wrap).
  * Outer border start at (y, x): f == 1 and f(left) == 0.
    Hole border start at (y, x): otherwise f >= 1 (positive: unmarked or marked +NBD, never a -NBD
    pixel) and f(right) == 0. A -NBD mark means "my right neighbour was already examined as 0 by a
    border", which is exactly what stops the same hole from being traced twice.
  * LNBD = number of the last nonzero mark (|f| for f not in {0, 1}) met on this row, 1 (the frame)
    at each row start. For a hole start on a pixel that is itself marked > 1, LNBD is that pixel's
    number (Suzuki step 1b; OpenCV sets lnbd to x - 1 in that case).
  * Parent (Suzuki's table, B' = border LNBD): outer & B' outer -> parent(B'); outer & B' hole ->
    B'; hole & B' outer -> B'; hole & B' hole -> parent(B'). The frame counts as a hole.
    RETR_LIST: every parent is the frame. RETR_CCOMP: every outer border's parent is the frame (its
    holes still get the table rule, so an outer inside a hole is top level again).
  * RETR_EXTERNAL: holes are never traced (so never marked), and an outer start is skipped when the
    raw value of the last marked pixel on the row (0 at the row start: the frame column) is > 0.
    Inside a component the last marked pixel is its left border pixel, marked +NBD (its right
    neighbour is foreground, never examined as 0); after leaving a component through its right
    side, the last mark is -NBD. This is OpenCV's ``img0[lnbd] > 0`` test, not a parent lookup.
  * Tracing (directions 0..7 = right, up-right, up, up-left, left, down-left, down, down-right;
    increasing code = counter-clockwise on screen):
      - from the start pixel search clockwise (decreasing code) for the first nonzero neighbour,
        beginning just after the zero pixel that triggered the start (left, code 4, for outer;
        right, code 0, for hole). None -> a single-pixel contour, marked -NBD.
      - that neighbour i1 is the border's *last* pixel. Walk: at the current pixel, search its
        neighbours counter-clockwise starting one step after the direction back to the pixel we
        came from (for the start pixel: one step after the direction to i1). Stop after the step
        where the current pixel is i1 and the next is the start.
      - marking at each current pixel: if the search passed code 0 (right neighbour examined and
        0) write -NBD; else if the pixel is 1 write +NBD; else keep its mark (a pixel shared by
        several borders keeps its first mark unless a later border sees its right neighbour 0).
      - points: NONE records each current pixel (the start first; a 1-pixel-wide line walks out
        and back, repeating points). SIMPLE records the current pixel only when the outgoing
        direction differs from the previous outgoing one; "previous" for the start pixel is the
        direction i1 -> start, i.e. the start pixel is dropped if it lies inside a straight run
        through the closing step (OpenCV's prev_s = s ^ 4 initialisation).
  * Output order: each new border is pushed at the *front* of its parent's child list (so siblings
    come in reverse discovery order); contours are emitted in pre-order of that tree. For LIST and
    EXTERNAL every border is a child of the frame, i.e. plain reverse discovery order.

GPU note: only the scan/parent bookkeeping is sequential; the per-border walk needs only the
8-neighbourhood of the current pixel and the mark rules above.
"""
import numpy as np

RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE = 0, 1, 2, 3
CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE = 1, 2

# (dx, dy) for codes 0..7: right, up-right, up, up-left, left, down-left, down, down-right.
CODE_DELTAS = ((1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1), (1, 1))


def _trace(f, w2, start, from_dir, nbd, simple):
    """Follow one border on the flat padded mark list ``f`` (row length ``w2``).

    Returns the list of flat indices recorded as points, and marks the border with +-nbd.
    """
    deltas = [dy * w2 + dx for dx, dy in CODE_DELTAS]
    # Clockwise (decreasing code) search around the start for the first nonzero neighbour, starting
    # just after the background pixel that triggered the start.
    s = from_dir
    while True:
        s = (s - 1) & 7
        i1 = start + deltas[s]
        if f[i1] != 0 or s == from_dir:
            break
    if s == from_dir:
        # Isolated pixel: one point, marked negative (its right neighbour is 0).
        f[start] = -nbd
        return [start]
    points = []
    prev_s = s ^ 4          # direction i1 -> start: lets SIMPLE drop a start inside a straight run
    i3 = start
    while True:
        s_end = s           # direction back to where we came from (first step: towards i1)
        # Counter-clockwise search starting one step after s_end; k counts codes past s_end.
        k = s_end
        while True:
            k += 1
            i4 = i3 + deltas[k & 7]
            if f[i4] != 0:
                break
        s = k & 7
        # k > 8 here means the search went through code 8 == 0 (the right neighbour) and it was 0.
        # OpenCV's form: (unsigned)(s - 1) < (unsigned)s_end after s &= 7.
        if 1 <= s <= s_end:
            f[i3] = -nbd
        elif f[i3] == 1:
            f[i3] = nbd
        if not simple or s != prev_s:
            points.append(i3)
            prev_s = s
        if i4 == start and i3 == i1:
            break
        i3 = i4
        s = (s + 4) & 7
    return points


def find_contours(image, mode, method, offset=(0, 0)):
    """Model of ``cv2.findContours(image, mode, method, offset=offset)`` for CV_8UC1 images."""
    img = np.asarray(image)
    if img.dtype != np.uint8 or img.ndim != 2:
        raise ValueError("model covers CV_8UC1 only")
    if mode not in (RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE):
        raise ValueError("mode not modelled")
    if method not in (CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE):
        raise ValueError("method not modelled")
    h, w = img.shape
    w2 = w + 2
    pad = np.zeros((h + 2, w2), np.int64)
    pad[1:-1, 1:-1] = img != 0
    f = pad.ravel().tolist()       # flat Python list: fast scalar access for the sequential walk
    simple = method == CHAIN_APPROX_SIMPLE

    # Per border number (index = NBD): is_hole, parent NBD, discovery slot. NBD 1 is the frame.
    is_hole = [True, True]
    parent = [0, 0]
    contours = [None, None]        # list of flat indices per border (None for frame/unused)
    children = {1: []}

    nbd = 1
    # Rows with no foreground at all cannot start anything (marks only ever go on foreground).
    rows = np.flatnonzero(pad.any(axis=1))
    for y in rows.tolist():
        lnbd = 1                   # Suzuki LNBD: the frame at each row start
        last_raw = 0               # raw value of the last marked pixel (EXTERNAL test); frame col = 0
        base = y * w2
        for x in range(1, w + 1):
            p = base + x
            v = f[p]
            if v == 0:
                continue
            start_dir = -1
            if v == 1 and f[p - 1] == 0:
                start_dir = 4                      # outer: triggered by the left zero
            elif v >= 1 and f[p + 1] == 0:
                start_dir = 0                      # hole: triggered by the right zero
                if v > 1:                          # Suzuki 1b / OpenCV lnbd.x = x - 1
                    lnbd = v
                    last_raw = v
            if start_dir >= 0:
                hole = start_dir == 0
                trace = True
                if mode == RETR_EXTERNAL:
                    trace = not hole and last_raw <= 0
                if trace:
                    if mode == RETR_LIST or mode == RETR_EXTERNAL or (mode == RETR_CCOMP and not hole):
                        par = 1
                    else:
                        par = lnbd
                        if is_hole[par] == hole:
                            par = parent[par]
                    nbd += 1
                    is_hole.append(hole)
                    parent.append(par)
                    children[nbd] = []
                    children[par].insert(0, nbd)   # newest first: reverse discovery order
                    contours.append(_trace(f, w2, p, start_dir, nbd, simple))
                    v = f[p]
            if v != 1:
                lnbd = abs(v)
                last_raw = v

    if nbd == 1:
        return (), None

    # Pre-order walk of the border tree (LIST/EXTERNAL: flat list under the frame).
    order = []
    stack = list(reversed(children[1]))
    while stack:
        b = stack.pop()
        order.append(b)
        stack.extend(reversed(children[b]))
    index = {b: i for i, b in enumerate(order)}
    m = len(order)
    hier = np.full((1, m, 4), -1, np.int32)
    for b in [1] + order:
        kids = children[b]
        for k, c in enumerate(kids):
            ic = index[c]
            if k + 1 < len(kids):
                hier[0, ic, 0] = index[kids[k + 1]]
            if k > 0:
                hier[0, ic, 1] = index[kids[k - 1]]
            hier[0, ic, 3] = index[b] if b != 1 else -1
        if kids and b != 1:
            hier[0, index[b], 2] = index[kids[0]]

    ox, oy = int(offset[0]), int(offset[1])
    out = []
    for b in order:
        idx = np.asarray(contours[b], np.int64)
        pts = np.empty((len(idx), 1, 2), np.int32)
        pts[:, 0, 0] = idx % w2 - 1 + ox
        pts[:, 0, 1] = idx // w2 - 1 + oy
        out.append(pts)
    return tuple(out), hier
