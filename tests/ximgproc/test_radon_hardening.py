"""Hardening of ximgproc.RadonTransform (issue 10): bad and odd input against cv2's outcome (the
rules are tests/hardening_support.py's), every layout of valid sources (square ones too: cv2
transposes those in place, cvgpu must not), and the mismatches issue 10 found (fixed; their tests
are at the end). Needs cv2.ximgproc (opencv-contrib).

cv2 itself is never run where it would be slow or crash; ``radon_cv2_safe`` decides this from the
arguments before anything is called:
  * RadonTransform with more than 720 angles and an output that cv2 could really allocate (slow
    rather than a crash; an output size that wraps is run only where it wraps to >= 2**48, where
    cv2 fails to allocate: -4).
"""
import cv2
import numpy as np
from hypothesis import assume, event, given
from hypothesis import strategies as st

import cvgpu
from cvgpu._cvmath import cv_round
from cvgpu.ximgproc import radon as _radon
from hardening_support import (DTYPES, FUZZ, INF, NAN, SHAPES, _COMPAT, _quiet_fallback, _to_size_t,  # noqa: F401
                               array_specs, assert_same, assert_unchanged, build, inputs, make, needs_contrib,
                               outcome, pick, record_event)


# ================================================================ ximgproc.RadonTransform

RADON_PARAMS = ["src", "dst", "theta", "start_angle", "end_angle", "crop", "norm"]
R_THETAS = [1, 1.0, 0.5, 2.5, 45, 90, 180, 360, -1, -45, 0, NAN, INF, -INF, 1e-300, 1e-3, None, True, "1",
            np.float32(15)]
R_STARTS = ["absent", 0, 10, -30, 90, 179.5, NAN, INF, None, np.int64(5), 1e300]
R_ENDS = ["absent", 180, 90, 0, -90, 45.25, 1e6, INF, NAN, None, -1e300]
R_BOOLS = ["absent", False, True, None, 1, 0, 2.5, "x", np.bool_(True), np.int64(2)]
R_DSTS = ["absent", None, "int32 3x3", "strided", 5, "x", "readonly", "int64", (1.0, 2.0)]
RADON_DTYPES = DTYPES + [np.uint8] * 6 + [np.float32] * 3 + [np.float64] * 3
RADON_SHAPES = SHAPES + [(5, 5), (6, 4), (3, 7)] * 2


def _radon_dst(kind):
    if kind == "int32 3x3":
        return np.zeros((3, 3), np.int32)
    if kind == "strided":
        return np.zeros((4, 8), np.float64)[:, ::2]
    if kind == "readonly":
        dst = np.zeros((3, 3), np.float64)
        dst.setflags(write=False)
        return dst
    if kind == "int64":
        return np.zeros((3, 3), np.int64)
    return kind


def radon_cv2_safe(args, kwargs):
    try:
        a = _radon._parse(args, kwargs)
    except cv2.error:
        return True
    try:
        _radon._plan(a)
    except cv2.error as e:
        if e.err in ("src.dims() == 2", "src.channels() == 1", "(end_angle - start_angle) * theta > 0",
                     "!fixedSize()"):
            return True  # cv2's assertions before it allocates the output (the others come after)
    theta, start, end = a["theta"], a["start_angle"], a["end_angle"]
    with np.errstate(all="ignore"):
        col_num = cv_round((end - start) / theta) if theta != 0 else 0
    if 0 <= col_num <= 720:
        return True
    mat = a["src"]
    rows, cols = mat.rows, mat.cols
    n = 0 if rows * cols == 0 else _radon.geometry(rows, cols, a["crop"])[0]
    elem = 8 if np.dtype(mat.dtype) in (np.dtype(np.float32), np.dtype(np.float64)) else 4
    return (1 << 48) <= _to_size_t(n * col_num * elem) <= (1 << 64) - (1 << 20)


@needs_contrib
@FUZZ
@given(inp=inputs(dtypes=RADON_DTYPES, shapes=RADON_SHAPES, valid_dtypes=[np.uint8, np.float32, np.float64]),
       theta=pick(R_THETAS, 8), start=pick(R_STARTS, 6), end=pick(R_ENDS, 6), crop=pick(R_BOOLS, 3),
       norm=pick(R_BOOLS, 3), dst=pick(R_DSTS, 2), form=st.sampled_from(["keywords"] * 6 + ["positional", "too_many",
                                                                                        "foo"]))
def test_radon_fuzz_matches_cv2(inp, theta, start, end, crop, norm, dst, form):
    named = {"theta": R_THETAS[theta], "start_angle": R_STARTS[start], "end_angle": R_ENDS[end],
             "crop": R_BOOLS[crop], "norm": R_BOOLS[norm], "dst": R_DSTS[dst]}
    named = {k: v for k, v in named.items() if not (isinstance(v, str) and v == "absent")}

    def args_for(src):
        kw = {k: _radon_dst(v) if k == "dst" else v for k, v in named.items()}
        if form == "positional":
            pos = [src] + [kw.pop(p, None) for p in RADON_PARAMS[1:]]
            if pos[2] is None:
                pos[2] = 1.0  # a None theta here would mean "the default" to both
            return pos, {}
        if form == "too_many":
            return [src, None, 1.0, 0.0, 180.0, False, False, 3], {}
        if form == "foo":
            kw["foo"] = 1
        return [src], kw

    a, k = args_for(make(inp))
    assume(radon_cv2_safe(a, k))
    src_ours = make(inp)
    a_o, k_o = args_for(src_ours)
    a_r, k_r = args_for(make(inp))
    ref = outcome(lambda: cv2.ximgproc.RadonTransform(*a_r, **k_r))
    ours = outcome(lambda: cvgpu.ximgproc.RadonTransform(*a_o, **k_o))
    record_event(ref)
    if ours[0] == "ok" and cvgpu.last_call_backend() == "cv2" and cvgpu.backend() == "cuda":
        # A float sinogram with NaN: cv2 computes it (cvgpu/ximgproc/radon.py, kernels/ximgproc/radon.cu
        # radon_any_nan).
        _COMPAT.record("ximgproc.RadonTransform", "bad-input, NaN in the float sinogram (cv2 computes)",
                       ours == ref, backend="cv2")
        event("NaN sinogram: cv2 computes")
        assert ours == ref, "RadonTransform %r %r form=%s" % (inp, named, form)
    else:
        assert_same(ours, ref, "RadonTransform %r %r form=%s" % (inp, named, form),
                    function="ximgproc.RadonTransform")
    assert_unchanged(src_ours, inp, "cvgpu.ximgproc.RadonTransform modified its input")


@needs_contrib
@FUZZ
@given(spec=array_specs(dtypes=[np.uint8, np.float32, np.float64], shapes=[(1, 1), (5, 5), (6, 4), (3, 7), (6, 4, 1)],
                        kinds=(0, 1, 3)),
       theta=st.sampled_from([1.0, 7.5, 30.0]), crop=st.booleans(), norm=st.booleans())
def test_radon_valid_layouts_match_cv2(spec, theta, crop, norm):
    """Valid sources in every layout (square ones too: cv2 transposes those in place, cvgpu must not)."""
    src = build(spec)
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(src, None, theta, 0.0, 90.0, crop, norm)),
                outcome(lambda: cv2.ximgproc.RadonTransform(build(spec), None, theta, 0.0, 90.0, crop, norm)))
    assert_unchanged(src, ("array", spec), "input modified")


# ================================================================ former mismatches (issue 10), now as cv2

@needs_contrib
def test_mismatch_radon_numpy_scalar_src():
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(np.float32(2))),
                outcome(lambda: cv2.ximgproc.RadonTransform(np.float32(2))))


@needs_contrib
def test_mismatch_radon_dst_of_wrong_type():
    src = np.zeros((4, 5), np.uint8)
    assert_same(outcome(lambda: cvgpu.ximgproc.RadonTransform(src, "x")),
                outcome(lambda: cv2.ximgproc.RadonTransform(src.copy(), "x")))
