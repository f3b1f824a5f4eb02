"""CHAIN_APPROX_TC89_L1 / CHAIN_APPROX_TC89_KCOS on the GPU (kernels/contours/tc89.cu): cv2 traces the
same borders as for CHAIN_APPROX_NONE and approximates each border's chain, so the TC89 methods run
on the NONE result of either pipeline (8-bit or label images); order and hierarchy are NONE's.
The kernels follow tests/models/tc89_model.py (approx_tc89_parallel), the CPU-verified model."""
import numpy as np

from . import TUNING
from ._common import BLOCK, CHAIN_APPROX_TC89_L1


def tc89(gpu, points, offsets, total, k, method):
    """TC89 points of the k NONE contours (points, offsets; total points): (points, offsets, host
    offsets). Scratch slot of point i of contour j is offsets[j] + j + i (one spare slot per contour
    for the copy of point 0 that TC89_L1's seam pass can append). Every pass runs one thread per
    point (or slot) but the seam walk and the rare nms finish; one host sync (the new offsets)."""
    cp = gpu.cp
    ws = gpu.workspace()
    fn = gpu.fn
    i32, i64 = np.int32, np.int64
    slots = total + k
    l1 = method == CHAIN_APPROX_TC89_L1
    sv = ws.grown("tc89_s", slots, cp.int32)
    kv = ws.grown("tc89_k", slots, cp.int32)
    gone = ws.grown("tc89_gone", slots, cp.uint8)
    st = ws.grown("tc89_st", slots, cp.uint8)
    fl = ws.grown("tc89_fl", slots, cp.int32)[:slots]
    rid = ws.grown("tc89_rid", slots, cp.int32)[:slots]
    used = cp.empty(k, dtype=cp.int32)
    start4 = cp.empty(k, dtype=cp.int32)
    cut4 = cp.empty(k, dtype=cp.int32)
    pend = cp.zeros(k, dtype=cp.int32)
    seam = cp.zeros(3 * k, dtype=cp.int32)
    gk = (-(-k // BLOCK),)
    gp = (-(-total // BLOCK),)
    gs = (-(-slots // BLOCK),)
    fn("tc89", "tc89_point")(gp, (BLOCK,), (points, offsets, i32(k), i64(total), i32(not l1), sv, kv, gone))
    fn("tc89", "tc89_nms_init")(gp, (BLOCK,), (offsets, i32(k), i64(total), sv, kv, st))
    # Rounds of tc89_nms_round before the per-contour finish (exact with any number of rounds).
    rounds = TUNING.tc89_rounds_l1 if l1 else TUNING.tc89_rounds_kcos
    for r in range(rounds):
        fn("tc89", "tc89_nms_round")(gp, (BLOCK,), (offsets, i32(k), i64(total), sv, kv, st, i32(r == rounds - 1),
                                                   pend))
    if rounds == 0:
        pend.fill(1)
    fn("tc89", "tc89_nms_finish")(gk, (BLOCK,), (offsets, i32(k), sv, kv, st, pend))
    fn("tc89", "tc89_apply")(gp, (BLOCK,), (offsets, i32(k), i64(total), i32(2), st, sv, gone))
    fn("tc89", "tc89_pass3")(gp, (BLOCK,), (offsets, i32(k), i64(total), sv, kv, gone, st))
    fn("tc89", "tc89_apply3")(gp, (BLOCK,), (offsets, i32(k), i64(total), i32(l1), st, sv, gone, seam))
    fn("tc89", "tc89_seam")(gk, (BLOCK,), (offsets, i32(k), i32(l1), sv, kv, gone, seam, used, start4, cut4))
    if l1:
        rs = ws.grown("tc89_rs", slots, cp.int32)
        re = ws.grown("tc89_re", slots, cp.int32)
        fn("tc89", "tc89_runflag")(gs, (BLOCK,), (offsets, i32(k), i64(slots), gone, used, start4, cut4, fl))
        cp.cumsum(fl, out=rid)
        fn("tc89", "tc89_runends")(gs, (BLOCK,), (offsets, i32(k), i64(slots), gone, used, start4, cut4, fl, rid, rs,
                                                 re))
        fn("tc89", "tc89_cleanup")(gs, (BLOCK,), (offsets, i32(k), i64(slots), sv, kv, gone, used, start4, cut4, rid,
                                                 rs, re))
    fn("tc89", "tc89_keep")(gs, (BLOCK,), (offsets, i32(k), i64(slots), gone, used, cut4, fl))
    cp.cumsum(fl, out=rid)
    new_off = cp.zeros(k + 1, dtype=cp.int64)
    fn("tc89", "tc89_offsets")(gk, (BLOCK,), (offsets, i32(k), rid, new_off))
    layout = new_off.get()
    out = cp.empty((int(layout[-1]), 2), dtype=cp.int32)
    fn("tc89", "tc89_emit")(gs, (BLOCK,), (points, offsets, i32(k), i64(slots), fl, rid, out))
    return out, new_off, layout
