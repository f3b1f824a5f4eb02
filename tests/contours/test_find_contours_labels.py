"""cvgpu.findContours / findContoursPacked on CV_32SC1 label images against the installed cv2.

CPU part (runs everywhere): cv2's type errors for label images with EXTERNAL / LIST / TREE and for
8-bit images with RETR_FLOODFILL are raised by cvgpu itself with cv2's code, err and func; the
no-GPU fallback equals cv2. GPU part (``gpu``): RETR_FLOODFILL and RETR_CCOMP x NONE / SIMPLE /
TC89_L1 / TC89_KCOS equal cv2 bit for bit on hypothesis label images (tests/contours/test_labels_model.py's
families: few labels, blocks, rectangles on zero, extreme values with the flag bits set, many
distinct labels, full, stripes; 1x1 up to 1024^2 rarely) with offsets (also int32-wrapping), the
packed device form, device input staying on the device, views and read-only input. Images where
cv2's behaviour is undefined (tests/models/labels_model.py: it may crash) are never given to cv2; there
cvgpu raises cv2.error.
"""
import collections
import functools

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, settings, strategies as st

import cvgpu
from cvgpu import _versions, contours as cc
from cvgpu.bench.contours import labels_image
import photo_cases
from conftest import HAS_GPU, examples
from contours_forcing import forcing
from labels_model import UNDEFINED_IMAGE, defined
from test_find_contours import ASPECTS, METHODS, SIDE_TIERS, check_case as find_contours_case, outcome, same_result
from test_labels_model import FAMILIES, label_image, offsets

MODES = {"FLOODFILL": cv2.RETR_FLOODFILL, "CCOMP": cv2.RETR_CCOMP}
LAB = label_image("blocks", 30, 40, 3, 5)
U8 = (LAB > 1).astype(np.uint8)



# ---------------------------------------------------------------- CPU: errors raised by cvgpu

TYPE_ERRORS = [
    ("int32 external", (LAB, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("int32 list", (LAB, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("int32 tree", (LAB, cv2.RETR_TREE, cv2.CHAIN_APPROX_TC89_L1), {}),
    ("int32 tree offset", (LAB, cv2.RETR_TREE, cv2.CHAIN_APPROX_TC89_KCOS), {"offset": (3, 4)}),
    ("int32 3-d", (LAB[:, :, None], cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("int32 keywords", (), {"image": LAB, "mode": cv2.RETR_EXTERNAL, "method": cv2.CHAIN_APPROX_SIMPLE}),
    ("uint8 floodfill", (U8, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("uint8 floodfill none", (U8, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_NONE), {"offset": (-1, 2)}),
    ("uint8 floodfill tc89", (U8, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_TC89_L1), {}),
    ("uint8 1x1 floodfill", (np.ones((1, 1), np.uint8), cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE), {}),
]


@pytest.mark.parametrize("label,args,kwargs", TYPE_ERRORS, ids=[c[0] for c in TYPE_ERRORS])
def test_type_errors_match_cv2(label, args, kwargs):
    ref = outcome(lambda: cv2.findContours(*args, **kwargs))
    assert ref[0] == "error", ref
    ours = outcome(lambda: cvgpu.findContours(*args, **kwargs))
    assert ours == ref
    if _versions.behaviour("contours.implementation") == "legacy":
        with pytest.raises(cc.Forward):   # before 4.10 label images and their errors are cv2's
            cc._bind(args, kwargs)
        return
    # Raised by cvgpu (no cv2 call), also from the packed form.
    with pytest.raises(cv2.error) as e:
        cc._bind(args, kwargs)
    assert (e.value.code, e.value.err, e.value.func) == ref[1:]
    if not kwargs or "offset" in kwargs:
        packed = outcome(lambda: cvgpu.findContoursPacked(*args, **kwargs))
        assert packed == ref


def test_errors_keep_cv2_messages():
    try:
        cv2.findContours(LAB, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    except cv2.error as e:
        ref = e
    with pytest.raises(cv2.error) as ours:
        cvgpu.findContours(LAB, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    assert str(ours.value).split("\n", 1)[1] == str(ref).split("\n", 1)[1]


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU fallback needs a machine without a usable GPU")
def test_fallback_equals_cv2():
    for mode in MODES.values():
        for method in METHODS.values():
            ref = cv2.findContours(LAB, mode, method, offset=(1, 2))
            assert same_result(cvgpu.findContours(LAB, mode, method, offset=(1, 2)), ref)
            assert cvgpu.last_call_backend() == "cv2"


# ---------------------------------------------------------------- GPU: equality with cv2

@functools.lru_cache(maxsize=16)
def _defined_bytes(shape, data, off):
    return defined(np.frombuffer(data, np.int32).reshape(shape).copy(), off)


def defined_small(img, off):
    """labels_model.defined of a small image, remembered: LabelCase.build and the property ask it
    about the same image (the model is pure Python: a third of an example's CPU time)."""
    return _defined_bytes(img.shape, np.ascontiguousarray(img, np.int32).tobytes(), tuple(off))


# Labels at most this far from zero and offsets at most this large: where cv2 is always defined (LNBD
# then lies on a border traced before, whose box holds it). Larger images keep to them; smaller ones
# are decided by the model (pure Python) and brought there when the model says undefined.
SAFE_LABEL, SAFE_OFFSET = 1 << 30, 5000


class LabelCase(collections.namedtuple("LabelCase", "family h w seed p photo offset")):
    """A drawn label image and offset (built by the test: hypothesis times its strategies)."""

    def build(self):
        """(image, offset): label_image's families (above 128 pixels on a side drawn at a coarser
        grid, up to 128 x 128 cells, and scaled up: cv2's own build on a region per pixel of a large
        image takes seconds) or the connected components of a photograph's mask."""
        family, h, w, seed, p, photo, offset = self
        if family == "photo":
            mask = photo_cases.mask(photo[0], h, w, photo[1], value=1)
            # Wu's algorithm named: 4.5.5's default for 4-connectivity (Spaghetti) segfaults.
            img = cv2.connectedComponentsWithAlgorithm(mask, 8 if p % 2 else 4, cv2.CV_32S, cv2.CCL_WU)[1]
            img = img * (1 + p % 7) + (p % 3) * (mask == 0)  # other label values; background labels
        else:
            k = max(1, -(-max(h, w) // 128))
            img = label_image(family, -(-h // k), -(-w // k), seed, p)
            img = np.repeat(np.repeat(img, k, 0), k, 1)[:h, :w]
        img = np.ascontiguousarray(img, np.int32)
        off = offset or (0, 0)
        if img.size <= 64 * 64 and defined_small(img, off):
            return img, offset
        safe = (img.astype(np.int64) % SAFE_LABEL).astype(np.int32)
        offset = offset and (int(np.clip(off[0], -SAFE_OFFSET, SAFE_OFFSET)), int(np.clip(off[1], -SAFE_OFFSET,
                                                                                               SAFE_OFFSET)))
        return safe, offset


# The connected components of photographs' masks twice as often as each of label_image's families.
LABEL_FAMILIES = FAMILIES + ("photo", "photo")
RANDOM_LABELS = ("few", "blocks", "rects", "extreme", "many")  # (label_image's families drawn from the seed)


@st.composite
def label_cases(draw):
    family = draw(st.sampled_from(LABEL_FAMILIES))
    lo, hi = draw(st.sampled_from(SIDE_TIERS))
    long = draw(st.integers(lo, hi))
    short = max(1, min(long, int(round(long * draw(st.floats(*draw(st.sampled_from(ASPECTS))))))))
    h, w = (long, short) if draw(st.booleans()) else (short, long)
    photo = (draw(photo_cases.specs), draw(photo_cases.mask_params)) if family == "photo" else None
    # (p from 1: hypothesis draws a range's low end often, and p = 0 makes "few" and "full" all zero)
    # (a seed only for the families that use one: a choice the case ignores makes duplicate cases)
    return LabelCase(family, h, w, draw(st.integers(0, 2**32 - 1)) if family in RANDOM_LABELS else 0,
                     draw(st.integers(1, 1000)), photo,
                     draw(st.one_of(st.just(None), offsets)))


def check_case(compat, img, mode_name, method_name, offset):
    find_contours_case(compat, img, mode_name, method_name, offset, modes=MODES, variant="labels-%s-%s")


# One item (one compat row) per mode x method; about 93 % of the cases have contours
# (tests/dry_run_cases.py): 13,000 device examples give each row over 10,000 non-trivial cases.
@pytest.mark.gpu
@pytest.mark.parametrize("method_name", list(METHODS))
@pytest.mark.parametrize("mode_name", list(MODES))
@settings(max_examples=examples(13_000))
@given(case=label_cases())
def test_matches_cv2(compat, mode_name, method_name, case):
    img, offset = case.build()
    assume(img.size > 64 * 64 or defined_small(img, offset or (0, 0)))  # (the safe labels are: never filtered)
    check_case(compat, img, mode_name, method_name, offset)


@pytest.mark.gpu
@pytest.mark.parametrize("method_name", list(METHODS))
@pytest.mark.parametrize("mode_name", list(MODES))
def test_fixed_cases(compat, mode_name, method_name):
    a = np.zeros((8, 10), np.int32)
    a[1:5, 1:5] = 3
    a[2:4, 2:4] = 0
    a[5:7, 5:9] = 3
    a[1:3, 6:9] = 7
    b = np.ones((9, 9), np.int32)
    b[3:6, 3:6] = 2
    cases = [a, b, LAB, np.arange(12, dtype=np.int32).reshape(1, -1) % 4, np.arange(9, dtype=np.int32)[:, None] % 2]
    cases += [np.full(s, v, np.int32) for s in ((1, 1), (1, 5), (5, 1), (3, 4)) for v in (0, 1, -1, 2**31 - 1,
                                                                                         -2**31, 2**30)]
    for img in cases:
        if defined(img, (5, -7)):
            check_case(compat, img, mode_name, method_name, (5, -7))
        if defined(img):
            check_case(compat, img, mode_name, method_name, None)


@pytest.mark.gpu
def test_bench_label_images(compat):
    # The benchmark's label images (connected components of the blob workloads; many regions).
    for noise in (0.0, 0.01):
        img = labels_image(1028, 1232, seed=1, noise=noise)
        for mode_name in MODES:
            for method_name in METHODS:
                check_case(compat, img, mode_name, method_name, None)


@pytest.mark.gpu
def test_views_read_only_and_device_io():
    import cupy as cp
    base = label_image("blocks", 60, 70, 4, 9)
    for view in (base[::2, ::3], base[5:50, 3:60], base.T, np.flipud(base)):
        assert same_result(cvgpu.findContours(view, cv2.RETR_FLOODFILL, 2), cv2.findContours(view, cv2.RETR_FLOODFILL, 2))
    ro = base.copy()
    ro.setflags(write=False)
    assert same_result(cvgpu.findContours(ro, cv2.RETR_CCOMP, 1), cv2.findContours(ro, cv2.RETR_CCOMP, 1))
    d = cp.asarray(base)
    ours = cvgpu.findContours(d, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE, offset=(2, 3))
    assert all(isinstance(c, cp.ndarray) for c in ours[0]) and isinstance(ours[1], cp.ndarray)
    assert same_result(ours, cv2.findContours(base, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE, offset=(2, 3)))
    view = d[5:50:2, 3:60]
    assert same_result(cvgpu.findContours(view, cv2.RETR_CCOMP, 1), cv2.findContours(view.get(), cv2.RETR_CCOMP, 1))
    for method in METHODS.values():
        ref = cc.pack(*cv2.findContours(base, cv2.RETR_FLOODFILL, method, offset=(-4, 1)))
        dp = cvgpu.findContoursPacked(d, cv2.RETR_FLOODFILL, method, (-4, 1))
        hp = cvgpu.findContoursPacked(base, cv2.RETR_CCOMP, method, (-4, 1))
        for a, b, r in zip(dp, hp, ref):
            assert isinstance(a, cp.ndarray) and isinstance(b, np.ndarray)
            assert np.array_equal(a.get(), r) and np.array_equal(b, r) and a.dtype == r.dtype == b.dtype


def test_remembered_definedness_is_the_models():
    # the same image asked twice (the cache), then a different image or offset (new answers)
    img = UNDEFINED_IMAGE.copy()
    assert [defined_small(img, (0, 0)), defined_small(img, (0, 0))] == [False, False] == [defined(img)] * 2
    ok = np.ones((3, 4), np.int32)
    assert defined_small(ok, (0, 0)) and defined_small(ok.astype(np.int64), (0, 0)) == defined(ok)
    assert all(defined_small(UNDEFINED_IMAGE, o) == defined(UNDEFINED_IMAGE, o) for o in ((0, 0), (3, -2), (-9, 4)))


@pytest.mark.gpu
def test_undefined_case_raises_without_cv2():
    img = UNDEFINED_IMAGE.copy()
    assert not defined(img)
    with pytest.raises(cv2.error):
        cvgpu.findContours(img, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_NONE)


@pytest.mark.gpu
def test_serial_replay_and_grouped_layout(compat):
    # The one-thread replay taken after TUNING.lab_max_rounds rounds, and the numpy-io layout by
    # contour length taken from TUNING.grouped_min contours on, forced on small images.
    imgs = [label_image(f, 37, 29, 11, 5) for f in ("few", "blocks", "rects", "many", "stripes")]
    imgs = [img for img in imgs if defined(img)]
    with forcing("lab_serial", lab_max_rounds=0):
        for img in imgs:
            check_case(compat, img, "FLOODFILL", "SIMPLE", (1, 1))
    with forcing("grouped", grouped_min=1):
        for img in imgs:
            for method_name in METHODS:
                check_case(compat, img, "CCOMP", method_name, None)
