"""Hardening of findContours, findContoursPacked and findContoursLinkRuns (issue 10): bad and odd
input against cv2's outcome (the rules are tests/hardening_support.py's) and the binding's argument
forms.

cv2 itself crashes on some inputs, so those are never run (neither through cv2 nor through cvgpu,
whose no-GPU fallback would forward them to cv2):
  * cv2.findContours with RETR_TREE and an offset near INT_MAX, e.g. (2**31 - 1, 1) or
    (0, 2**31 - 1) on a 13x11 image (segfault): offsets are fuzzed within +-2**30 (and 2**31, which
    the binding rejects; OFFSETS below).
cv2's undefined answers (an empty 8-bit image, a label image whose tree cv2 reads at index -1) are
counted as hypothesis events, not compared (undefined_empty_8bit, cv2_undefined).
"""
import cv2
import numpy as np
import pytest
from hypothesis import event, given
from hypothesis import strategies as st

import cvgpu
from cvgpu import _versions
from hardening_support import (DTYPES, FORMS, FUZZ, _packed_reference, _quiet_fallback, assert_same,  # noqa: F401
                               assert_unchanged, call_forms, case_inputs, inputs, make, outcome, pick, record_event)


# ================================================================ findContours / findContoursPacked

CONTOUR_PARAMS = ["image", "mode", "method", "contours", "hierarchy", "offset"]
MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE, cv2.RETR_FLOODFILL, 5, -1,
         np.int64(3), np.uint8(1), None, 1.0, True, "1", 2**31, 2**70]
METHODS = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS,
           0, 5, -1, np.int32(2), None, 2.0, False, "2"]
# (An offset near INT_MAX, e.g. (2**31 - 1, 1) or (0, 2**31 - 1), segfaults cv2.findContours in RETR_TREE:
# never run.)
OFFSETS = [None, (0, 0), (3, -2), [1, 2], (2**30, -2**30), (-2**30, 5), (2**31, 0), (1,), (1, 2, 3), (1.5, 2),
           (np.int64(4), np.int32(-1)), "x", 5, np.array([1, 2]), (True, False), (None, None)]
CONTOUR_EXTRA = [{}, {}, {}, {"contours": None}, {"hierarchy": None}, {"foo": 1}, {"contours": [np.zeros((1, 1, 2),
                 np.int32)]}, {"hierarchy": np.zeros((1, 1, 4), np.int32)}]
CONTOUR_DTYPES = DTYPES + [np.uint8] * 6 + [np.int32] * 3


def cv2_undefined(ours):
    """cvgpu refused a label image on which cv2 reads its contour tree at index -1 (undefined
    behaviour: garbage or a crash; see cvgpu.contours._undefined_error). cv2 is not called there:
    the case is counted as a hypothesis event, not compared."""
    if ours[0] == "error" and ours[1] == "cv2.error" and "at index -1 (undefined" in (ours[3] or ""):
        event("label image undefined in cv2: cvgpu raises")
        return True
    return False


_LEGACY = _versions.behaviour("contours.implementation") == "legacy"


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int32]), mode=pick(MODES, 5),
       method=pick(METHODS, 4), offset=pick(OFFSETS, 6), extra=pick(CONTOUR_EXTRA, 3), form=FORMS,
       pass_offset=st.booleans())
def test_find_contours_fuzz_matches_cv2(inp, mode, method, offset, extra, form, pass_offset):
    kwargs = dict(CONTOUR_EXTRA[extra])
    if pass_offset:
        kwargs["offset"] = OFFSETS[offset]
    pos = [MODES[mode], METHODS[method]]
    img_ref, img_ours = make(inp), make(inp)
    if undefined_empty_8bit(img_ref):
        return
    ours = outcome(call_forms(cvgpu.findContours, CONTOUR_PARAMS, [img_ours] + pos, kwargs, form))
    if cv2_undefined(ours):
        return
    ref = outcome(call_forms(cv2.findContours, CONTOUR_PARAMS, [img_ref] + pos, kwargs, form))
    if _LEGACY and ref != outcome(call_forms(cv2.findContours, CONTOUR_PARAMS, [make(inp)] + pos, kwargs, form)):
        return   # the legacy code (before 4.10) gives two results for one call: cv2 reads memory it never wrote
    record_event(ref)
    assert_same(ours, ref, "findContours %r %r %r form=%s" % (inp, pos, kwargs, form), function="findContours",
                inputs=case_inputs(inp, pos, kwargs, form))
    assert_unchanged(img_ours, inp, "cvgpu.findContours modified its input")


def undefined_empty_8bit(img):
    """cv2 reads memory outside an empty 8-bit image (its answer changes from call to call, e.g. a
    0 x 5 int8 image gave different points in two calls); cvgpu hands such calls to cv2 unchanged:
    nothing to compare."""
    if isinstance(img, np.ndarray) and img.size == 0 and img.dtype in (np.uint8, np.int8):
        event("empty 8-bit image: undefined in cv2")
        return True
    return False


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int32]), mode=pick(MODES, 5),
       method=pick(METHODS, 4), offset=pick(OFFSETS, 6))
def test_find_contours_packed_fuzz_matches_cv2(inp, mode, method, offset):
    args = (MODES[mode], METHODS[method], OFFSETS[offset])
    img = make(inp)
    if undefined_empty_8bit(img):
        return
    ours = outcome(lambda: cvgpu.findContoursPacked(img, *args))
    if cv2_undefined(ours):
        return
    ref = outcome(lambda: _packed_reference(make(inp), *args))
    if _LEGACY and ref != outcome(lambda: _packed_reference(make(inp), *args)):
        return   # the legacy code (before 4.10) gives two results for one call: cv2 reads memory it never wrote
    assert_same(ours, ref, "findContoursPacked %r %r" % (inp, args), function="findContoursPacked",
                inputs=case_inputs(inp, args))
    assert_unchanged(img, inp, "cvgpu.findContoursPacked modified its input")


LINK_RUNS_PARAMS = ["image", "contours", "hierarchy"]
LINK_RUNS_EXTRA = [{}, {}, {}, {"contours": None}, {"hierarchy": None}, {"foo": 1}, {"image": None}]


@FUZZ
@given(inp=inputs(dtypes=CONTOUR_DTYPES, valid_dtypes=[np.uint8, np.uint8, np.int8]), extra=pick(LINK_RUNS_EXTRA, 3),
       form=FORMS)
@pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"), reason="findContoursLinkRuns exists from OpenCV 4.10")
def test_find_contours_link_runs_fuzz_matches_cv2(inp, extra, form):
    kwargs = dict(LINK_RUNS_EXTRA[extra])
    img_ref, img_ours = make(inp), make(inp)
    if undefined_empty_8bit(img_ref):
        return
    ref = outcome(call_forms(cv2.findContoursLinkRuns, LINK_RUNS_PARAMS, [img_ref], kwargs, form))
    ours = outcome(call_forms(cvgpu.findContoursLinkRuns, LINK_RUNS_PARAMS, [img_ours], kwargs, form))
    record_event(ref)
    assert_same(ours, ref, "findContoursLinkRuns %r %r form=%s" % (inp, kwargs, form),
                function="findContoursLinkRuns", inputs=case_inputs(inp, kwargs, form))
    assert_unchanged(img_ours, inp, "cvgpu.findContoursLinkRuns modified its input")


@pytest.mark.parametrize("call", [
    lambda f: f(),
    lambda f: f(np.zeros((3, 3), np.uint8)),
    lambda f: f(np.zeros((3, 3), np.uint8), 1),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, None, None, (0, 0), 7),
    lambda f: f(image=np.zeros((3, 3), np.uint8), mode=1, method=2, offset=(1, 1)),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, mode=1),
    lambda f: f(np.zeros((3, 3), np.uint8), 1, 2, Offset=(1, 1)),
], ids=["none", "image only", "no method", "too many", "keywords", "name and position", "wrong keyword case"])
def test_find_contours_binding_matches_cv2(call, request):
    assert_same(outcome(lambda: call(cvgpu.findContours)), outcome(lambda: call(cv2.findContours)),
                function="findContours", inputs=(request.node.name,))


def test_the_common_call_takes_the_full_paths_key_and_result(monkeypatch, _quiet_fallback):
    """findContours(mask, mode, method) with a 2-D uint8 numpy mask and plain ints skips the
    argument layer: the engine sees the key the full path gives (the same call with keywords), and
    both give cv2's result; a numpy int, a bool, a 3-D mask or a label image take the full path."""
    from cvgpu import contours as cc
    seen = []
    real = cc._by_engine

    def spy(func, arr, on_device, key, gpu_call, cv2_call):
        seen.append(key)
        return real(func, arr, on_device, key, gpu_call, cv2_call)
    monkeypatch.setattr(cc, "_by_engine", spy)
    rng = np.random.default_rng(5)
    masks = [(rng.random((h, w)) < p).astype(np.uint8) * 255 for h, w, p in ((1, 1, 1), (7, 13, .5), (40, 31, .3))]
    masks.append(np.ascontiguousarray(masks[-1][::2, 1:]))  # (a strided view as well)
    masks.append(masks[2][:, ::-1])
    for mask in masks:
        for mode in (cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE):
            for method in (cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1,
                           cv2.CHAIN_APPROX_TC89_KCOS):
                want = outcome(lambda: cv2.findContours(mask, mode, method))
                del seen[:]
                fast = outcome(lambda: cvgpu.findContours(mask, mode, method))
                full = outcome(lambda: cvgpu.findContours(mask, mode=mode, method=method))
                # (Before 4.10 TC89_L1 is cv2's on both paths: neither reaches the engine.)
                legacy_l1 = cc._LEGACY and method == cv2.CHAIN_APPROX_TC89_L1
                assert len(seen) == (0 if legacy_l1 else 2) and seen[:1] == seen[1:], seen
                for got in (fast, full):
                    assert_same(got, want)
    # Not the common call: each goes through _bind (and reaches the engine with its own key).
    m = masks[1]
    for args in ((m, np.int32(cv2.RETR_TREE), cv2.CHAIN_APPROX_SIMPLE), (m, cv2.RETR_TREE, True),
                 (m[:, :, None], cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
                 ((m > 0).astype(np.int32), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)):
        assert_same(outcome(lambda: cvgpu.findContours(*args)), outcome(lambda: cv2.findContours(*args)))
