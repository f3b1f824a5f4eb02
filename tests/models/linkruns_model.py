"""Reference model of cv2.findContoursLinkRuns (OpenCV 4.9+ contours_link.cpp), in the form the GPU
kernels compute it (see kernels/contours/linkruns.cu).

OpenCV scans the rows once, merging the runs of row y-1 with those of row y in one sequential
walk, and gives every run end point one ``link`` to another end point; the contours are the cycles
of that permutation. The walk's outcome is local, which is what makes it parallel:

* Every horizontal run (maximal row segment of nonzero pixels) is two nodes, its start (x0, y) and
  its end (x1, y). Runs of adjacent rows touch when they overlap 8-connectedly
  (x1' >= x0 - 1 and x0' <= x1 + 1).
* The link of a run's START node (set when its row is the lower row of the walk): in row 0, or
  when the run touches no run of the row above, its own end (a new piece starts: an "external"
  start); else, with U the first run above it touches, the end of the previous run of its row if
  that run touches U too (the top of a gap under U: an "internal" start), else U's start.
* The link of a run's END node (set when its row is the upper row): in the last row, or when the
  run touches no run of the row below, its own start; else, with L the last run below it
  touches, the start of the next run of its row if that run touches L too (the bottom of a gap
  above L), else L's end.
* Output order: OpenCV lists the external starts in raster order, then the internal ones, and
  emits the cycle of each start not yet emitted, from that start. So a cycle's first point is its
  raster-first external start, or, without one, its raster-first internal start; cycles are
  ordered by that start (all cycles with an external start first).
* The hierarchy is flat: every contour is a top-level sibling, [i+1, i-1, -1, -1] (-1 at the
  ends); no contour gives ``((), None)``.

Measured against cv2 5.0.0 by tests/contours/test_linkruns_model.py.
"""
import numpy as np


def runs_of(img):
    """(x0, x1, y) int64 arrays of all runs in raster order and the (h + 1,) row offsets."""
    a = np.asarray(img)
    if a.ndim == 3:
        a = a[:, :, 0]
    nz = a != 0
    h, w = nz.shape
    pad = np.zeros((h, w + 2), bool)
    pad[:, 1:-1] = nz
    d = np.diff(pad.astype(np.int8), axis=1)
    sy, sx = np.nonzero(d == 1)
    ey, ex = np.nonzero(d == -1)
    counts = np.bincount(sy, minlength=h)
    row_off = np.zeros(h + 1, np.int64)
    np.cumsum(counts, out=row_off[1:])
    return sx.astype(np.int64), (ex - 1).astype(np.int64), sy.astype(np.int64), row_off


def links(x0, x1, y, row_off, h):
    """(link (2R,) node -> node, start kind (R,) 0 none / 1 external / 2 internal). Node 2r is run
    r's start, 2r + 1 its end."""
    r_count = len(x0)
    link = np.empty(2 * r_count, np.int64)
    kind = np.zeros(r_count, np.int8)
    for r in range(r_count):
        yy = int(y[r])
        # Start node.
        if yy == 0:
            link[2 * r], kind[r] = 2 * r + 1, 1
        else:
            a, b = int(row_off[yy - 1]), int(row_off[yy])
            u = a + int(np.searchsorted(x1[a:b], x0[r] - 1, side="left"))   # first with x1 >= x0 - 1
            if u < b and x0[u] <= x1[r] + 1:
                if r > row_off[yy] and x1[r - 1] >= x0[u] - 1:
                    link[2 * r], kind[r] = 2 * (r - 1) + 1, 2
                else:
                    link[2 * r] = 2 * u
            else:
                link[2 * r], kind[r] = 2 * r + 1, 1
        # End node.
        if yy == h - 1:
            link[2 * r + 1] = 2 * r
        else:
            c, d = int(row_off[yy + 1]), int(row_off[yy + 2])
            lo = c + int(np.searchsorted(x0[c:d], x1[r] + 1, side="right")) - 1   # last with x0 <= x1 + 1
            if lo >= c and x1[lo] >= x0[r] - 1:
                if r + 1 < row_off[yy + 1] and x0[r + 1] <= x1[lo] + 1:
                    link[2 * r + 1] = 2 * (r + 1)
                else:
                    link[2 * r + 1] = 2 * lo + 1
            else:
                link[2 * r + 1] = 2 * r
    return link, kind


def find_contours_link_runs(img):
    """cv2.findContoursLinkRuns(img) -> (contours tuple, hierarchy or None), 2-D (or (h, w, 1))
    8-bit images with at least one row and column."""
    a = np.asarray(img)
    if a.ndim == 3:
        a = a[:, :, 0]
    h = a.shape[0]
    x0, x1, y, row_off = runs_of(a)
    r_count = len(x0)
    if r_count == 0:
        return (), None
    link, kind = links(x0, x1, y, row_off, h)
    assert np.array_equal(np.sort(link), np.arange(2 * r_count)), "links are not a permutation"
    px = np.empty(2 * r_count, np.int64)
    px[0::2], px[1::2] = x0, x1
    py = np.repeat(y, 2)
    heads = [2 * r for r in np.flatnonzero(kind == 1)] + [2 * r for r in np.flatnonzero(kind == 2)]
    seen = np.zeros(2 * r_count, bool)
    contours = []
    for s in heads:
        if seen[s]:
            continue
        cyc = []
        v = s
        while True:
            seen[v] = True
            cyc.append(v)
            v = int(link[v])
            if v == s:
                break
        cyc = np.asarray(cyc)
        contours.append(np.stack([px[cyc], py[cyc]], axis=1).astype(np.int32).reshape(-1, 1, 2))
    assert seen.all(), "a cycle without a start"
    m = len(contours)
    hier = np.full((1, m, 4), -1, np.int32)
    hier[0, :-1, 0] = np.arange(1, m)
    hier[0, 1:, 1] = np.arange(0, m - 1)
    return tuple(contours), hier
