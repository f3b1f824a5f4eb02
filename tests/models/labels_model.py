"""Reference model of cv2 5.x findContours on CV_32SC1 label images (RETR_FLOODFILL; RETR_CCOMP
with CV_32SC1 input is the same mode inside cv2). Nothing here calls cv2; tests/contours/test_labels_model.py
checks it against cv2 bit for bit.

Written from observing cv2 5.0 and reading OpenCV's contours_new.cpp. The observable rules:

* The image is padded with a zero frame and scanned in raster order (rows 1..h, columns 1..w of the
  padded image). A pixel's value is the raw int32; its *label* is the low 30 bits
  (``raw & 0x3FFFFFFF``); the top two bits are *flags* (0x80000000 "right", 0x40000000 "new").
  Input pixels whose top bits are already set (negative labels, labels >= 2^30) count as flagged
  from the start; so do the pixels a trace has visited. Zero is an ordinary label here (the
  background is traced as a region too) except in the start rule below.
* The scan stops at each column x where label(x - 1) != label(x) on the current row; q = raw(x - 1)
  and p = raw(x) as they are *now* (earlier traces set flags):
    - p unflagged and (q flagged or q == 0): an OUTER border starts at x;
    - p and q unflagged, q != 0: a HOLE border starts at x - 1 (the region of q, from its right
      side), and then, with q now flagged, the scan looks at x again: an OUTER border at x;
    - otherwise nothing.
  Every border is traced on "label == label of the start pixel" (8-connected region, everything
  else background) with the Suzuki walk; every pixel it visits gets flags (the same walk as the
  8-bit case: "right" where the right neighbour was examined and differs, else "new" where it had
  no flags), so no border is traced twice.
* Hierarchy: an outer border is a child of the root; a hole border's parent comes from OpenCV's
  8-bit bookkeeping replayed on labels (see ``_hole_parent``): candidates are earlier borders whose
  start value has the same low 7 bits as the pixel at LNBD (the last flagged pixel met on the row,
  or the last border start), filtered by a loose bounding-box test and by whether the candidate's
  border passes through LNBD. A hole parented to a hole takes that hole's parent. When no
  candidate exists cv2 indexes its tree with -1 (``LabelUndefined``: undefined behaviour, cv2 may
  crash; measured: it does). That needs LNBD on a pixel no border has visited (an input label with
  the top bits set) or a bounding box broken by int32 wrap-around of the offset; cvgpu raises.
* Output: pre-order of the tree, children newest first (so top level = reverse discovery order,
  each outer followed by its holes, newest first); points of NONE / SIMPLE as for 8-bit images;
  TC89_L1 / TC89_KCOS approximate the NONE chain (tests/models/tc89_model.py).
* Arithmetic that can overflow is int32 with wrap-around (points plus offset, the bounding box).

Order-free form (what kernels/contours/labels.cu computes; tests/contours/test_labels_kernel_host.py checks it
against cv2): a trace never changes labels, so every walk state has a fixed successor and each
border is a fixed cycle of states. At a label change (q, p) the outer event traces p's cycle iff p
is unflagged, the hole event (just before) traces q's cycle iff q and p are unflagged and q is
nonzero, and "unflagged" means: no input flag and no cycle through the pixel traced at an earlier
event. Each event depends only on earlier events, so the trace times have exactly one fixed
point. LNBD of a hole is always the previous label change on its row, so the hole rule only needs
the cycles through that pixel (plus, where none qualifies, the oldest candidate overall).
"""
import numpy as np

from tc89_model import approx_tc89

MASK_VAL = 0x3FFFFFFF
FLAGS = 0xC0000000
NEW = 0x40000000
RIGHT = 0x80000000

DX = (1, 1, 0, -1, -1, -1, 0, 1)
DY = (0, -1, -1, -1, 0, 1, 1, 1)

NONE, SIMPLE, TC89_L1, TC89_KCOS = 1, 2, 3, 4


class LabelUndefined(Exception):
    """cv2 indexes its contour tree with -1 here (undefined behaviour)."""


# A 6 x 6 label image on which cv2 reads its contour tree at index -1: a hole whose LNBD lies on an
# input pixel with the flag bits set that no border visited (found by search; cv2 returned garbage
# on it and crashed on similar images).
UNDEFINED_IMAGE = np.array([[5, -1073741824, 0, 1, 5, -1073741824],
                            [-1, 2147483647, -5, 1073741824, 2147483647, 5],
                            [2147483647, -2147483648, 1073741823, 1073741825, 1, 0],
                            [-5, 5, -5, 1073741825, 5, 2147483647],
                            [1073741824, 5, 1, 2147483647, 1, 1073741824],
                            [-1073741824, 1, -2147483648, -2147483648, -5, -1]], np.int32)

def defined(img, offset=(0, 0)):
    """Whether cv2's result for the label image is defined (its tree is never read at index -1)."""
    try:
        trace_borders(np.ascontiguousarray(img), offset)
    except LabelUndefined:
        return False
    return True


def i32(v):
    return ((v + (1 << 31)) & 0xFFFFFFFF) - (1 << 31)


class _Node:
    __slots__ = ("hole", "parent", "children", "origin", "pixels", "points", "brect", "ctable_next")

    def __init__(self, hole):
        self.hole = hole
        self.parent = -1
        self.children = []      # newest first
        self.origin = None
        self.pixels = None
        self.points = None
        self.brect = None
        self.ctable_next = -1


def _trace(f, w2, start, hole, ox, oy):
    """One border: (NONE points, SIMPLE points, visited pixels, brect). Sets the flags in f."""
    lab = f[start] & MASK_VAL
    d = [DY[k] * w2 + DX[k] for k in range(8)]
    sy, sx = divmod(start, w2)
    # origin in cv2's offset coordinates (padded coordinates + offset - 1), int32
    px, py = i32(sx + ox - 1), i32(sy + oy - 1)
    rx0, ry0, rx1, ry1 = px, py, px, py
    s_end = 0 if hole else 4
    s = s_end
    while True:
        s = (s - 1) & 7
        i1 = start + d[s]
        if (f[i1] & MASK_VAL) == lab or s == s_end:
            break
    if s == s_end and (f[i1] & MASK_VAL) != lab:
        f[start] = lab | NEW | RIGHT
        pts = [(px, py)]
        return pts, list(pts), {start}, (rx0, ry0, 1, 1)
    none, simple, pix = [], [], set()
    i3 = start
    prev_s = s ^ 4
    while True:
        came = s
        k = s
        while k < 15:
            k += 1
            i4 = i3 + d[k & 7]
            if (f[i4] & MASK_VAL) == lab:
                break
        s = k & 7
        if 1 <= s <= came:
            f[i3] = lab | NEW | RIGHT
        elif f[i3] == lab:
            f[i3] = lab | NEW
        pix.add(i3)
        none.append((px, py))
        if s != prev_s:
            simple.append((px, py))
            # cv2's bounding box, updated at direction changes only (else-if per axis)
            if px < rx0:
                rx0 = px
            elif px > rx1:
                rx1 = px
            if py < ry0:
                ry0 = py
            elif py > ry1:
                ry1 = py
        prev_s = s
        px, py = i32(px + DX[s]), i32(py + DY[s])
        if i4 == start and i3 == i1:
            break
        i3 = i4
        s = (s + 4) & 7
    return none, simple, pix, (rx0, ry0, i32(rx1 - i32(rx0 - 1)), i32(ry1 - i32(ry0 - 1)))


def _hole_parent(nodes, ctable, f, w2, lx, ly):
    """OpenCV's findFirstBoundingContour from LNBD (lx, ly) for a new hole, then the hole rule."""
    lval = f[ly * w2 + lx] & 0x7F
    res = -1
    cur = ctable[lval]
    end = ly * w2 + lx
    while cur != -1:
        e = nodes[cur]
        bx, by, bw, bh = e.brect
        if i32(lx - bx) < bw and i32(ly - by) < bh:
            if res != -1 and end in nodes[res].pixels:
                break
            res = cur
        cur = e.ctable_next
    if res == -1:
        raise LabelUndefined
    if nodes[res].hole:
        res = nodes[res].parent if nodes[res].parent != -1 else 0
    # cv2 asserts this; it always holds (a hole's parent is an outer border, never the root)
    assert not nodes[res].hole
    return res


def trace_borders(image, offset=(0, 0)):
    """The border tree: list of nodes (node 0 = root), in discovery order."""
    img = np.asarray(image)
    assert img.dtype == np.int32 and img.ndim == 2
    h, w = img.shape
    w2, h2 = w + 2, h + 2
    pad = np.zeros((h2, w2), np.uint32)
    pad[1:-1, 1:-1] = img.view(np.uint32)
    f = pad.reshape(-1).tolist()
    ox, oy = int(offset[0]), int(offset[1])
    # cv2's brect is taken in offset coordinates and shifted back by the scanner's offset
    sox, soy = i32(ox - 1), i32(oy - 1)
    root = _Node(True)
    nodes = [root]
    ctable = [-1] * 128
    for y in range(1, h2 - 1):
        lx = 0                      # LNBD column (its row is y)
        prev = 0
        x = 1
        while x < w2 - 1:
            p = f[y * w2 + x]
            if (p & MASK_VAL) == (prev & MASK_VAL):
                prev = p
                x += 1
                continue
            if ((prev & FLAGS) or prev == 0) and not (p & FLAGS):
                hole = False
            elif (prev & FLAGS) or (p & FLAGS):
                prev = p
                if prev & FLAGS:
                    lx = x
                x += 1
                continue
            else:
                hole = True
            if not hole or lx <= 0:
                parent = 0
            else:
                parent = _hole_parent(nodes, ctable, f, w2, lx, y)
            lx = x - hole
            start = y * w2 + x - hole
            node = _Node(hole)
            idx = len(nodes)
            nodes.append(node)
            lval = f[start] & 0x7F
            none, simple, pix, (bx, by, bw, bh) = _trace(f, w2, start, hole, ox, oy)
            node.origin = start
            node.pixels = pix
            node.points = (none, simple)
            node.brect = (i32(bx - sox), i32(by - soy), bw, bh)
            node.ctable_next = ctable[lval]
            ctable[lval] = idx
            node.parent = parent
            nodes[parent].children.insert(0, idx)
            if hole:
                x = x               # the scan looks at x again, now after a flagged pixel
                prev = f[y * w2 + x - 1]
            else:
                prev = f[y * w2 + x]
                x += 1
    return nodes


def find_contours_labels(image, method, offset=(0, 0)):
    """cv2.findContours(image, RETR_FLOODFILL, method, offset=offset) for an int32 2-D image."""
    nodes = trace_borders(image, offset)
    if len(nodes) == 1:
        return (), None
    order = []
    stack = list(reversed(nodes[0].children))
    while stack:
        v = stack.pop()
        order.append(v)
        stack.extend(reversed(nodes[v].children))
    pos = {v: i for i, v in enumerate(order)}
    pos[0] = -1
    contours = []
    hier = np.full((len(order), 4), -1, np.int32)
    for i, v in enumerate(order):
        node = nodes[v]
        none, simple = node.points
        if method == SIMPLE:
            pts = np.array(simple, np.int32)
        else:
            pts = np.array(none, np.int32)
            if method in (TC89_L1, TC89_KCOS):
                pts = np.asarray(approx_tc89(pts, method), np.int32).reshape(-1, 2)
        contours.append(pts.reshape(-1, 1, 2))
        sib = nodes[node.parent].children
        k = sib.index(v)
        hier[i] = (pos[sib[k + 1]] if k + 1 < len(sib) else -1, pos[sib[k - 1]] if k > 0 else -1,
                   pos[node.children[0]] if node.children else -1, pos[node.parent])
    return tuple(contours), hier.reshape(1, -1, 4)
