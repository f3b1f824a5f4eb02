"""cvgpu.findContoursLinkRuns against the installed cv2.

CPU part (runs everywhere): the argument layer (images cv2 rejects raise cv2's own error, code /
err / func; calls cvgpu does not claim are forwarded and reported as cv2's), the no-GPU fallback
equal to cv2, the caller's array untouched. GPU part (``gpu``): cvgpu == cv2 bit for bit (contours
tuple, each array's dtype, shape and points, the hierarchy or None) on hypothesis images (the
families of test_find_contours: nested blobs, salt-and-pepper, 1-px lines, checkerboards, border
shapes, full/empty, label-like, single pixels, snakes; 1x1 up to 4096^2, big sizes rare), 8-bit
unsigned and signed, host and device input; compat rows "findContoursLinkRuns".
"""
import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cvgpu
from cvgpu import _versions
from cvgpu import contours as cc
from cvgpu.bench.contours import blobs_image, worst_snake
from conftest import HAS_GPU, examples, kind_of
from test_contours_model import nested_blobs, salt_pepper
from test_find_contours import images, outcome, same_result, signature

# cv2.findContoursLinkRuns exists from OpenCV 4.10 (_versions: contours.implementation); before, cvgpu
# has none either (tests/test_versions.py checks that).
pytestmark = pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"),
                                reason="the installed cv2 (before 4.10) has no findContoursLinkRuns")


IMG = nested_blobs(40, 50, 4, 4, 7) | salt_pepper(40, 50, 0.05, 7)
F = "findContoursLinkRuns"


def call(mod, *args, **kwargs):
    return getattr(mod, F)(*args, **kwargs)


# ---------------------------------------------------------------- CPU: argument layer

BAD_CALLS = [
    ("float32", (IMG.astype(np.float32),), {}),
    ("float64", (IMG.astype(np.float64),), {}),
    ("float16", (IMG.astype(np.float16),), {}),
    ("int32", (IMG.astype(np.int32),), {}),
    ("int64", (IMG.astype(np.int64),), {}),
    ("uint16", (IMG.astype(np.uint16),), {}),
    ("uint32", (IMG.astype(np.uint32),), {}),
    ("bool", (IMG.astype(bool),), {}),
    ("complex", (IMG.astype(np.complex64),), {}),
    ("big-endian", (IMG.astype(">u2"),), {}),
    ("object", (IMG.astype(object),), {}),
    ("float128", (IMG.astype(np.longdouble),), {}),
    ("2 channels", (np.dstack([IMG, IMG]),), {}),
    ("3 channels", (np.dstack([IMG, IMG, IMG]),), {}),
    ("5 channels float", (np.zeros((4, 4, 5), np.float32),), {}),
    ("0 channels", (np.zeros((4, 4, 0), np.uint8),), {}),
    ("4-d", (np.zeros((2, 3, 4, 1), np.uint8),), {}),
    ("4-d float", (np.zeros((2, 3, 4, 1), np.float32),), {}),
    ("129 channels", (np.zeros((2, 3, 129), np.uint8),), {}),
    ("scalar float", (3.0,), {}),
    ("string", ("abc",), {}),
    ("missing image", (), {}),
    ("too many", (IMG, None, None, None), {}),
    ("bad keyword", (IMG,), {"foo": 1}),
    ("twice", (IMG,), {"image": IMG}),
    ("bad contours", (IMG,), {"contours": "x"}),
]

UNUSUAL_CALLS = [
    ("keyword", (), {"image": IMG}),
    ("outputs None", (IMG, None, None), {}),
    ("outputs None by keyword", (IMG,), {"contours": None, "hierarchy": None}),
    ("int8", (IMG.astype(np.int8),), {}),
    ("int8 negative", ((IMG.astype(np.int16) - 128).astype(np.int8),), {}),
    ("3-d one channel", (IMG[:, :, None],), {}),
    ("1-d", (np.array([0, 1, 1, 0, 1], np.uint8),), {}),
    ("0-d", (np.array(5, np.uint8),), {}),
    ("empty", (np.zeros((0, 0), np.uint8),), {}),
    ("empty cols", (np.zeros((5, 0), np.uint8),), {}),
    ("non-contiguous", (IMG[::2, ::3],), {}),
    ("fortran", (np.asfortranarray(IMG),), {}),
    ("no contour", (np.zeros((4, 4), np.uint8),), {}),
    ("full", (np.full((4, 6), 7, np.uint8),), {}),
    ("image None", (None,), {}),
    ("output list", (IMG, []), {}),
]


@pytest.mark.parametrize("label,args,kwargs", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors_match_cv2(label, args, kwargs):
    ref = outcome(lambda: call(cv2, *args, **kwargs))
    ours = outcome(lambda: call(cvgpu, *args, **kwargs))
    if label == "4-d" and _versions.behaviour("linkruns.nd_image") == "computed":
        # 4.x runs findContoursLinkRuns on an n-d array (cvgpu lets cv2 do it).
        assert ref[0] == "ok" and ours[0] == "ok" and np.array_equal(ours[1], ref[1])
        return
    assert ref[0] != "ok", ref
    assert ours[:2] == ref[:2]
    if ref[0] == "error":
        assert ours == ref


@pytest.mark.parametrize("label,args,kwargs", UNUSUAL_CALLS, ids=[c[0] for c in UNUSUAL_CALLS])
def test_unusual_but_valid_calls_match_cv2(label, args, kwargs):
    ref = outcome(lambda: call(cv2, *args, **kwargs))
    ours = outcome(lambda: call(cvgpu, *args, **kwargs))
    assert ref[0] == "ok"
    assert ours[0] == "ok" and np.array_equal(ours[1], ref[1])


def test_forwarded_calls_are_reported_as_cv2():
    for args in ((IMG, []), (np.zeros((0, 3), np.uint8),), (None,)):
        call(cvgpu, *args)
        assert cvgpu.last_call_backend() == "cv2"


def test_caller_array_is_not_modified():
    img = IMG.copy()
    call(cvgpu, img)
    assert np.array_equal(img, IMG)


def test_exported_with_cv2s_doc():
    assert "findContoursLinkRuns" in dir(cvgpu) and cvgpu.findContoursLinkRuns is cc.findContoursLinkRuns
    first = cv2.findContoursLinkRuns.__doc__.splitlines()[0]
    assert cvgpu.findContoursLinkRuns.__doc__.splitlines()[0] == "cv2." + first


def test_device_views_offsets():
    # The device path's per-contour arrays (built from a memory pointer plus a byte offset), on a
    # host stand-in for cupy.ndarray / MemoryPointer.
    class Ptr:
        def __init__(self, buf, off=0):
            self.buf, self.off = buf, off

        def __add__(self, o):
            return Ptr(self.buf, self.off + o)

    class Points(np.ndarray):
        @property
        def data(self):
            return Ptr(np.asarray(self))

    class FakeCupy:
        int32 = np.int32

        @staticmethod
        def ndarray(shape, dtype, memptr):
            return np.ndarray(shape, dtype, buffer=memptr.buf, offset=memptr.off)

    ref = call(cv2, IMG)
    pts, off, hier = cc.pack(*ref)
    ours = cc._device_views(FakeCupy, pts.view(Points), off, hier)
    assert same_result(ours, ref)
    assert cc._device_views(FakeCupy, pts[:0].view(Points), np.zeros(1, np.int64), hier[:0]) == ((), None)


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU fallback needs a machine without a usable GPU")
def test_fallback_equals_cv2_and_is_reported():
    for img in (IMG, IMG.astype(np.int8), np.zeros((3, 3), np.uint8)):
        assert same_result(call(cvgpu, img), call(cv2, img))
        assert cvgpu.last_call_backend() == "cv2"


# ---------------------------------------------------------------- GPU: equality with cv2

def check_case(compat, img, variant, d_img=None):
    """cvgpu on img (or on its device copy d_img: CuPy out) against cv2 on img."""
    import cupy as cp
    keep = img.copy()
    ref = call(cv2, img)
    ours = call(cvgpu, img if d_img is None else d_img)
    assert cvgpu.last_call_backend() == "cuda"
    assert type(ours[0]) is tuple
    array_type = np.ndarray if d_img is None else cp.ndarray
    assert all(type(c) is array_type for c in ours[0]) and (ours[1] is None or type(ours[1]) is array_type)
    compat.check(F, variant, signature(ours), signature(ref), kind=kind_of(ref),
                 inputs=(img, "device" if d_img is not None else "host"))
    assert np.array_equal(img, keep)


# One item (one compat row) per input type; 85-90 % of the cases have contours (tests/dry_run_cases.py):
# 13,000 device examples give each row over 10,000 non-trivial cases.
@pytest.mark.gpu
@pytest.mark.parametrize("signed", [False, True], ids=["CV_8UC1", "CV_8SC1"])
@settings(max_examples=examples(13_000))
@given(case=images())
def test_matches_cv2(compat, signed, case):
    img = case.build()
    if signed:
        img = img.view(np.int8)
    check_case(compat, img, "CV_8SC1" if signed else "CV_8UC1")


@pytest.mark.gpu
@settings(max_examples=examples(13_000))  # its own row, "device input"
@given(case=images(), view=st.integers(0, 4))
def test_device_input_matches_cv2(compat, case, view):
    # CuPy in, CuPy out; strided, flipped, channel-axis and signed device views read as cv2 reads
    # the same host views.
    import cupy as cp
    img = case.build()
    views = [lambda a: a, lambda a: a[::2, ::3], lambda a: a[:, :, None], lambda a: a.view(np.int8),
             lambda a: a[::-1]]
    d = views[view](cp.asarray(img))
    check_case(compat, views[view](img), "device input", d)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1), (1, 4096), (4096, 1), (2048, 2048), (1, 70000)])
def test_fixed_extremes(compat, shape):
    for img in (np.ones(shape, np.uint8), worst_snake(*shape), salt_pepper(shape[0], shape[1], 0.5, 1),
                np.zeros(shape, np.uint8)):
        check_case(compat, img, "extremes")


@pytest.mark.gpu
def test_bench_images(compat):
    for s in (1, 4):
        for noise in (0.0, 0.01):
            check_case(compat, blobs_image(1028 * s, 1232 * s, seed=s, noise=noise), "bench images")
    check_case(compat, worst_snake(4096, 4096), "bench images")


@pytest.mark.gpu
def test_device_strided_view_and_errors():
    import cupy as cp
    big = cp.asarray(IMG)
    view = big[5:35:2, 3:45]
    assert same_result(call(cvgpu, view), call(cv2, view.get()))
    for bad in (IMG.astype(np.float32), np.dstack([IMG, IMG]), np.zeros((2, 3, 4, 1), np.uint8)):
        ref = outcome(lambda: call(cv2, bad))
        ours = outcome(lambda: call(cvgpu, cp.asarray(bad)))
        if bad.ndim == 4 and _versions.behaviour("linkruns.nd_image") == "computed":
            # 4.x runs findContoursLinkRuns on an n-d array (cvgpu lets cv2 do it), as test_errors_match_cv2.
            assert ref[0] == "ok" and ours[0] == "ok" and np.array_equal(ours[1], ref[1])
            continue
        assert ours == ref
    # An empty device image is cv2's (forwarded with a host copy), returned on the device.
    r = call(cvgpu, cp.zeros((5, 0), cp.uint8))
    assert r == ((), None)
