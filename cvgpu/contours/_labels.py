"""findContours on CV_32SC1 label images on the GPU (kernels/contours/labels.cu): RETR_FLOODFILL, and
RETR_CCOMP, which cv2 5.x runs as RETR_FLOODFILL for them, with every method.

cv2's semantics (tests/models/labels_model.py is the CPU model, proven equal to cv2): regions of
equal label (raw & 0x3FFFFFFF, zero included) are traced with the Suzuki walk; which borders get
traced follows from the row scan and the flags earlier traces leave (see kernels/contours/labels.cu).
The GPU resolves that order by a fixed-point iteration over all label changes at once (one host
sync per round; rounds = the longest chain of events whose outcome depends on an earlier one) and
ranks the walks like the 8-bit pipeline. Label images with other modes and 8-bit images with
RETR_FLOODFILL raise cv2's type errors from here (label_mode)."""
import cv2
import numpy as np

from .. import _errors, _versions
from . import TUNING
from ._common import BLOCK, CHAIN_APPROX_SIMPLE, RETR_CCOMP, RETR_FLOODFILL, TC89, TooLarge, empty
from ._ranking import grouped_layout, jump_rounds, offsets as offsets_of, tree_order
from ._tc89 import tc89

# ContourScanner_::create's signature in its checks: the contour storages are arguments from 4.12
# (_versions: contours.create_signature).
_CREATE = ("static std::shared_ptr<ContourScanner_> ContourScanner_::create(%scv::Mat, int, int, cv::Point)"
           % ("cv::ContourDataStorage<cv::Point_<int>, 1024, 0>::storage_t&, cv::ContourDataStorage<signed char, "
              "1024, 0>::storage_t&, " if _versions.behaviour("contours.create_signature") == "storage" else ""))
# Error sites, measured from the installed cv2 (_errors.site).
_AT_LABEL_MODE = _errors.site("contours_new.cpp:label-mode",
                              lambda: cv2.findContours(np.zeros((2, 2), np.int32), cv2.RETR_LIST, 1),
                              _errors.UNSPECIFIED, _CREATE, "contours_new.cpp")
_AT_FLOODFILL_8U = _errors.site("contours_new.cpp:floodfill-8u",
                                lambda: cv2.findContours(np.zeros((2, 2), np.uint8), cv2.RETR_FLOODFILL, 1),
                                _errors.UNSPECIFIED, _CREATE, "contours_new.cpp")
_TYPE_NAMES = {0: "CV_8UC1", 4: "CV_32SC1"}
LAB_INF = 0x7FFFFFFF       # = LAB_INF in kernels/contours/labels.cu: no trace event


def _type_error(at, text, expected, actual):
    err = ("> %s (expected: 'img.type() == %s'), where\n>     'img.type()' is %d (%s)\n> must be equal to\n"
           ">     '%s' is %d (%s)\n" % (text, _TYPE_NAMES[expected], actual, _TYPE_NAMES[actual],
                                      _TYPE_NAMES[expected], expected, _TYPE_NAMES[expected]))
    return _errors.cv_error(_errors.UNSPECIFIED, err, _CREATE, at=at)


def label_mode(arr, mode):
    """The mode the GPU runs (RETR_FLOODFILL for label images), or cv2's type error (cv2 checks the
    type before the mode and the method, and computes nothing before)."""
    if arr.dtype == np.int32:
        if mode in (RETR_CCOMP, RETR_FLOODFILL):
            return RETR_FLOODFILL
        raise _type_error(_AT_LABEL_MODE, "Modes other than RETR_FLOODFILL and RETR_CCOMP support only CV_8UC1 images", 0, 4)
    if mode == RETR_FLOODFILL:
        raise _type_error(_AT_FLOODFILL_8U, "RETR_FLOODFILL mode supports only CV_32SC1 images", 4, 0)
    return mode


def undefined_error():
    return _errors.cv_error(
        _errors.UNSPECIFIED, "cvgpu: for this label image cv2 reads its contour tree at index -1 (undefined "
        "behaviour, cv2 may crash); a hole's LNBD lies on an input value with the flag bits set or on a "
        "bounding box broken by int32 wrap-around", "findContours")


def gpu_labels(gpu, image, method, ox, oy, grouped=False):
    """findContours(image, RETR_FLOODFILL, method, offset) for an int32 image: (points, offsets,
    host offsets, hierarchy) as _suzuki.gpu_contours returns them (``grouped``: the same too)."""
    cp = gpu.cp
    fn = gpu.fn
    i32, i64 = np.int32, np.int64
    h, w = image.shape
    w2, h2 = w + 2, h + 2
    n = w2 * h2
    if isinstance(image, cp.ndarray):
        ok = image.strides[1] == 4 and image.strides[0] > 0 and image.strides[0] % 4 == 0
        src = image if ok else gpu.ops.contiguous(image)
    else:
        src = cp.asarray(np.ascontiguousarray(image))
    pitch = src.strides[0] // 4 if src.shape[0] > 1 else w
    f = cp.empty(n, dtype=cp.uint32)
    fn("labels", "lab_pad")(gpu.grid(n), (BLOCK,), (src, i64(pitch), i32(h), i32(w), i32(n), f))
    fl = cp.empty(n, dtype=cp.uint8)
    fn("labels", "lab_flags")(gpu.grid(n), (BLOCK,), (f, i32(w2), i32(h), i32(n), fl))
    # flatnonzero(fl & 1), flatnonzero(fl & 2) as int32, their counts read in one wait.
    bpix, epos = gpu.ops.select(("mask", fl, 1, np.int32), ("mask", fl, 2, np.int32))
    e_count, k_edges = int(bpix.size), int(epos.size)
    if k_edges == 0:
        return empty(cp)
    if 9 * e_count > (1 << 31) - 256:
        # int32 state slots (8 per border pixel) and cycle ids (slots + border pixels), as the 8-bit
        # path's check_counts: -211 through _common.retrying, before the walk arrays are allocated.
        raise TooLarge("cvgpu: the label image has %d border pixels; their %d walk states and ids exceed the "
                        "%d that the GPU kernels index with int32" % (e_count, 9 * e_count, (1 << 31) - 256))
    pmap = gpu.ops.full_i32(n, -1)
    gpu.ops.scatter_iota(bpix, pmap)                  # pmap[bpix] = arange(e_count)
    slots = 8 * e_count
    gs = (-(-slots // BLOCK),)
    nxt = cp.empty(slots, dtype=cp.int32)
    cyc = cp.empty((slots, 2), dtype=cp.int32)
    cyc2 = cp.empty((slots, 2), dtype=cp.int32)
    sdir = cp.empty(slots, dtype=cp.uint8)
    fn("labels", "lab_state_init")(gs, (BLOCK,), (f, i32(w2), i32(n), i32(slots), bpix, pmap, nxt, cyc, sdir))
    # Min-jumping until a round changes nothing (one host read per round; that round bounds the
    # cycle lengths, so the ranking below needs no more rounds than it took).
    mj = fn("labels", "lab_min_jump")
    cap = max(1, slots.bit_length())
    changed = cp.zeros(cap + 1, dtype=cp.int32)
    rounds = 0
    while rounds < cap:
        mj(gs, (BLOCK,), (i32(slots), cyc, cyc2, changed[rounds:rounds + 1]))
        cyc, cyc2 = cyc2, cyc
        rounds += 1
        if not int(changed[rounds - 1:rounds].get()[0]):
            break
    simple = i32(1 if method == CHAIN_APPROX_SIMPLE else 0)
    leader = cp.empty(slots, dtype=cp.int32)
    st = cyc2             # free after the min-jumping
    st2 = cp.empty((slots, 2), dtype=cp.int32)
    fn("labels", "lab_rank_init")(gs, (BLOCK,), (i32(slots), nxt, cyc, sdir, simple, leader, st))
    st, st2 = jump_rounds(gpu, slots, rounds, st, st2)

    ids = slots + e_count
    t_old = gpu.ops.full_i32(ids, LAB_INF)
    t_new = cp.empty(ids, dtype=cp.int32)
    gk = (-(-k_edges // BLOCK),)
    ev_fn = fn("labels", "lab_events")
    for _ in range(TUNING.lab_max_rounds):
        gpu.ops.fill_i32(t_new, LAB_INF)
        ev_fn(gk, (BLOCK,), (f, i32(w2), i32(n), i32(k_edges), epos, pmap, sdir, leader, i32(slots), t_old, t_new))
        if not int(gpu.ops.any_differ(t_new, t_old).get()[0]):   # (t_new == t_old).all()
            TUNING.ran("lab_rounds")
            break
        t_old, t_new = t_new, t_old
    else:
        TUNING.ran("lab_serial")
        gpu.ops.fill_i32(t_new, LAB_INF)
        fn("labels", "lab_events_serial")((1,), (1,), (f, i32(w2), i32(n), i32(k_edges), epos, pmap, sdir, leader,
                                                        i32(slots), t_new))
    traced, = gpu.ops.select(("below", t_new, LAB_INF, np.int32))   # flatnonzero(t_new < LAB_INF)
    m = int(traced.size)
    if m == 0:
        return empty(cp)
    times = gpu.ops.gather(t_new, traced)
    srt = gpu.ops.argsort(times)
    cyc_of = gpu.ops.gather(traced, srt)
    ev = gpu.ops.gather(times, srt)
    gm = (-(-m // BLOCK),)
    cycle_border = gpu.ops.full_i32(ids, -1)
    hole = cp.empty(m, dtype=cp.uint8)
    head = cp.empty(m, dtype=cp.int32)
    origin = cp.empty(m, dtype=cp.int32)
    bbox = cp.empty(4 * m, dtype=cp.int32)
    fn("labels", "lab_borders")(gm, (BLOCK,), (f, i32(w2), i32(n), i32(m), ev, cyc_of, epos, pmap, leader, i32(slots),
                                      i32(ox), i32(oy), cycle_border, hole, head, origin, bbox))
    fn("labels", "lab_bbox")(gs, (BLOCK,), (i32(w2), i32(slots), bpix, sdir, leader, cycle_border, i32(ox), i32(oy),
                                            bbox))
    raw = cp.empty(m, dtype=cp.int32)
    fn("labels", "lab_hole_parent")(gm, (BLOCK,), (f, i32(w2), i32(m), hole, ev, epos, pmap, sdir, leader, i32(slots),
                                          cycle_border, origin, bbox, i32(ox), i32(oy), raw))
    parent = cp.empty(m, dtype=cp.int32)
    fn("labels", "lab_parents")(gm, (BLOCK,), (i32(m), hole, raw, parent))
    out_node, hier = tree_order(gpu, m, parent)
    counts = cp.empty(m, dtype=cp.int32)
    fn("labels", "lab_counts")(gm, (BLOCK,), (i32(m), out_node, head, leader, st, counts))
    undefined = gpu.ops.any_equal(parent, -2)       # (parent == -2).any(), on the device
    if grouped and m >= TUNING.grouped_min and method not in TC89:
        TUNING.ran("grouped")
        # Points laid out by (length, output index), as gpu_contours does for assemble_grouped; the
        # hierarchy and the undefined-case flag come along (one download).
        order, lengths, dst, total, (hier, undefined_h) = grouped_layout(gpu, counts, m, (hier, undefined))
        if undefined_h[0]:
            raise undefined_error()
        layout, offsets = (order, lengths), None
    else:
        TUNING.ran("flat")
        offsets = offsets_of(gpu, counts, m)
        # One download for the offsets and the undefined-case check.
        layout, undefined_h = gpu.ops.download(offsets, undefined)
        if undefined_h[0]:
            raise undefined_error()
        total = int(layout[-1])
        dst = offsets
    border_out = cp.empty(m, dtype=cp.int32)
    gpu.ops.scatter_iota(out_node, border_out)        # border_out[out_node] = arange(m)
    points = cp.empty((total, 2), dtype=cp.int32)
    fn("labels", "lab_emit")(gs, (BLOCK,), (i32(w2), i32(slots), bpix, sdir, leader, st, simple, cycle_border,
                                            border_out, head, dst, i32(ox), i32(oy), points))
    fn("labels", "lab_single")(gm, (BLOCK,), (i32(w2), i32(m), out_node, head, origin, dst, i32(ox), i32(oy), points))
    if method in TC89:
        points, offsets, layout = tc89(gpu, points, offsets, total, m, method)
    return points, offsets, layout, hier
