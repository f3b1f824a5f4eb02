"""cvgpu.findContours / findContoursPacked against the installed cv2.

CPU part (runs everywhere): the argument layer (every rejected call raises cv2's own error, calls
cvgpu does not claim are forwarded and reported as cv2's), the no-GPU fallback equal to cv2, the
packed form's round trip, the caller's array untouched. GPU part (``gpu``): cvgpu == cv2 bit for
bit on hypothesis images (nested blobs, salt-and-pepper, 1-px lines, checkerboards, border
shapes, full/empty, label-like images; 1x1 up to 4096^2, big sizes rare) for every mode x method
(NONE, SIMPLE, TC89_L1, TC89_KCOS), with offsets; the packed device form equals cv2 packed.
"""
import collections
import ctypes
import glob
import operator
import os
import re
import subprocess
import sys
import textwrap
import types

import cv2
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import cvgpu
from cvgpu import _versions, contours as cc
from cvgpu.bench.contours import blobs_image, worst_snake
from cvgpu.contours import _common, _ranking, _suzuki
import photo_cases
from conftest import HAS_GPU, examples, kind_of, spin
from contours_forcing import forcing
from test_contours_model import (border_shapes, checkerboard, lines, nested_blobs, salt_pepper)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
MODES = {"EXTERNAL": cv2.RETR_EXTERNAL, "LIST": cv2.RETR_LIST, "CCOMP": cv2.RETR_CCOMP, "TREE": cv2.RETR_TREE}
METHODS = {"NONE": cv2.CHAIN_APPROX_NONE, "SIMPLE": cv2.CHAIN_APPROX_SIMPLE,
           "TC89_L1": cv2.CHAIN_APPROX_TC89_L1, "TC89_KCOS": cv2.CHAIN_APPROX_TC89_KCOS}


def outcome(f):
    try:
        r = f()
    except cv2.error as e:
        return ("error", e.code, e.err, e.func)
    except Exception as e:  # noqa: BLE001 - the type and text are what we compare
        return ("exc", type(e).__name__, str(e))
    return ("ok", signature(r))


def _host(a):
    return a.get() if hasattr(a, "get") and not isinstance(a, np.ndarray) else a


def signature(res):
    """One int64 array holding everything cv2 returns: container type, count, each array's dtype,
    shape and points, the hierarchy (or its absence)."""
    contours, hier = res
    if not set(map(type, contours)) <= {np.ndarray}:
        contours = [_host(c) for c in contours]
    hier = _host(hier)
    head = [int(type(res) is tuple), int(type(contours) is list or True), len(contours), int(hier is None)]
    n = len(contours)
    lens = np.fromiter(map(len, contours), np.int64, n)
    joined = None
    if n and set(map(operator.attrgetter("dtype"), contours)) == {np.dtype(np.int32)}:
        try:
            joined = np.concatenate(contours)  # (one shape but the first axis, or it raises)
        except ValueError:
            pass
    if joined is not None and joined.ndim == 3 and joined.shape[1:] == (1, 2):
        # cv2's layout throughout (every contour int32 (k, 1, 2)): the points as one array, the same
        # int64s as contour by contour at a fifth of the cost (a 640x480 noise image has ~17,000).
        ok = np.ones(n, np.int64)
        points = [joined.reshape(-1).astype(np.int64)]
    else:
        ok = np.array([int(c.dtype == np.int32 and c.ndim == 3 and c.shape[1:] == (1, 2)) for c in contours],
                      np.int64)
        points = [c.reshape(-1).astype(np.int64) for c in contours]
    parts = [np.array(head, np.int64), lens, ok] + points
    if hier is not None:
        parts.append(np.array([hier.dtype == np.int32] + list(hier.shape), np.int64))
        parts.append(hier.reshape(-1).astype(np.int64))
    return np.concatenate(parts)


def _signature_contour_by_contour(res):
    """signature's definition, one contour at a time (its fast path must give the same array)."""
    contours, hier = res
    contours = [_host(c) for c in contours]
    hier = _host(hier)
    head = [int(type(res) is tuple), 1, len(contours), int(hier is None)]
    lens = [len(c) for c in contours]
    ok = [int(c.dtype == np.int32 and c.ndim == 3 and c.shape[1:] == (1, 2)) for c in contours]
    parts = [np.array(head + lens + ok, np.int64)] + [c.reshape(-1).astype(np.int64) for c in contours]
    if hier is not None:
        parts += [np.array([hier.dtype == np.int32] + list(hier.shape), np.int64), hier.reshape(-1).astype(np.int64)]
    return np.concatenate(parts)


def test_signature_equals_its_contour_by_contour_definition():
    rng = np.random.default_rng(7)
    results = [((), None), ([], None)]
    for _ in range(40):
        img = (rng.random((int(rng.integers(1, 60)), int(rng.integers(1, 60)))) < rng.random()).astype(np.uint8)
        results.append(cv2.findContours(img, int(rng.choice(list(MODES.values()))), cv2.CHAIN_APPROX_SIMPLE))
    cs, hier = cv2.findContours(np.eye(6, dtype=np.uint8), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)
    c = cs[0]
    # layouts cv2 never returns: other dtypes (int16 joins int32 without changing the joined dtype),
    # other shapes, a mix; each must be told apart as contour by contour
    for odd in ((c.astype(np.int64),), (c.reshape(-1, 2),), (c, c.astype(np.float32)), (c, c.astype(np.int16)),
                (c.astype(np.int16), c), (c, c.reshape(1, -1, 2))):
        results.append((odd, hier))
    for r in results:
        want = _signature_contour_by_contour(r)
        got = signature(r)
        assert got.dtype == want.dtype and np.array_equal(got, want), r
    assert not np.array_equal(signature(((c, c.astype(np.int16)), hier)), signature(((c, c), hier)))


def same_result(ours, ref):
    oc, oh = ours
    rc, rh = ref
    return type(oc) is tuple and type(rc) is tuple and np.array_equal(signature(ours), signature(ref))


IMG = nested_blobs(40, 50, 4, 4, 7)


# ---------------------------------------------------------------- CPU: argument layer

BAD_CALLS = [
    ("float32", (IMG.astype(np.float32), cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("int32 tree", (IMG.astype(np.int32), cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("2 channels", (np.dstack([IMG, IMG]), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("3 channels", (np.dstack([IMG, IMG, IMG]), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("bool", (IMG.astype(bool), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("int8", (IMG.astype(np.int8), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE), {}),
    ("floodfill 8u", (IMG, cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("mode 7", (IMG, 7, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("mode -1", (IMG, -1, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("method 9", (IMG, cv2.RETR_TREE, 9), {}),
    ("method -3", (IMG, cv2.RETR_TREE, -3), {}),
    ("link runs", (IMG, cv2.RETR_TREE, 5), {}),
    ("offset float", (IMG, 3, 1), {"offset": (1.5, 2)}),
    ("offset len 3", (IMG, 3, 1), {"offset": (1, 2, 3)}),
    ("offset str", (IMG, 3, 1), {"offset": "ab"}),
    ("missing method", (IMG, 3), {}),
    ("mode float", (IMG, 3.0, 1), {}),
    ("mode bool", (IMG, True, 1), {}),
    ("too many", (IMG, 3, 1, None, None, (0, 0), 5), {}),
    ("bad keyword", (IMG, 3, 1), {"foo": 1}),
    ("twice", (IMG, 3, 1), {"mode": 3}),
]

UNUSUAL_CALLS = [
    ("keywords", (), {"image": IMG, "mode": cv2.RETR_CCOMP, "method": cv2.CHAIN_APPROX_NONE}),
    ("offset list", (IMG, 3, 2), {"offset": [4, -5]}),
    ("offset numpy ints", (IMG, 3, 2), {"offset": (np.int64(4), np.int32(-5))}),
    ("offset positional", (IMG, 3, 2, None, None, (1, 1)), {}),
    ("mode numpy int", (IMG, np.int64(3), np.int32(2)), {}),
    ("3-d one channel", (IMG[:, :, None], 1, 1), {}),
    ("1-d", (np.array([0, 1, 1, 0, 1], np.uint8), 1, 1), {}),
    ("empty", (np.zeros((0, 0), np.uint8), 3, 1), {}),
    ("empty rows", (np.zeros((0, 5), np.uint8), 3, 1), {}),
    ("non-contiguous", (IMG[::2, ::3], 3, 1), {}),
    ("int32 ccomp", (IMG.astype(np.int32), cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("int32 floodfill", (IMG.astype(np.int32), cv2.RETR_FLOODFILL, cv2.CHAIN_APPROX_SIMPLE), {}),
    ("tc89 l1", (IMG, cv2.RETR_TREE, cv2.CHAIN_APPROX_TC89_L1), {}),
    ("tc89 kcos", (IMG, cv2.RETR_LIST, cv2.CHAIN_APPROX_TC89_KCOS), {}),
    ("no contour", (np.zeros((4, 4), np.uint8), 0, 1), {}),
    ("image None", (None, 3, 1), {}),
]


@pytest.mark.parametrize("label,args,kwargs", BAD_CALLS, ids=[c[0] for c in BAD_CALLS])
def test_errors_match_cv2(label, args, kwargs):
    ref = outcome(lambda: cv2.findContours(*args, **kwargs))
    # (Before 4.10 the legacy code computes some of them: cvgpu forwards those, the same result.)
    assert ref[0] != "ok" or _versions.behaviour("contours.implementation") == "legacy", ref
    ours = outcome(lambda: cvgpu.findContours(*args, **kwargs))
    if ref[0] == "ok":
        assert ours[0] == "ok" and np.array_equal(ours[1], ref[1]), (ours, ref)
    else:
        assert ours == ref


@pytest.mark.parametrize("label,args,kwargs", UNUSUAL_CALLS, ids=[c[0] for c in UNUSUAL_CALLS])
def test_unusual_but_valid_calls_match_cv2(label, args, kwargs):
    ref = outcome(lambda: cv2.findContours(*args, **kwargs))
    ours = outcome(lambda: cvgpu.findContours(*args, **kwargs))
    assert ref[0] == "ok"
    assert ours[0] == "ok" and np.array_equal(ours[1], ref[1])


@pytest.mark.parametrize("args", [(IMG, 3, 0), (IMG.astype(np.int32), cv2.RETR_FLOODFILL, 0)])
def test_unclaimed_variants_are_reported_as_cv2(args):
    cvgpu.findContours(*args)
    assert cvgpu.last_call_backend() == "cv2"


def test_caller_array_is_not_modified():
    img = IMG.copy()
    cvgpu.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    cvgpu.findContoursPacked(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_NONE)
    assert np.array_equal(img, IMG)


def test_pack_and_assemble_round_trip():
    for mode in MODES.values():
        ref = cv2.findContours(IMG, mode, cv2.CHAIN_APPROX_SIMPLE, offset=(2, -3))
        pts, off, hier = cc.pack(*ref)
        assert pts.dtype == np.int32 and pts.shape[1] == 2 and off.dtype == np.int64 and hier.shape == (len(ref[0]), 4)
        back = cc.assemble(pts, off, hier)
        assert same_result(back, ref)
        # One buffer behind every contour.
        assert all(c.base is back[0][0].base for c in back[0])
    assert cc.assemble(*cc.pack((), None)) == ((), None)


def test_assemble_grouped_round_trip():
    # The length-grouped layout the numpy path downloads: contours sorted by (length, index).
    for mode in MODES.values():
        ref = cv2.findContours(IMG, mode, cv2.CHAIN_APPROX_NONE)
        pts, off, hier = cc.pack(*ref)
        lengths = np.diff(off)
        order = np.argsort(lengths, kind="stable")
        grouped = np.concatenate([pts[off[i]:off[i + 1]] for i in order])
        back = cc.assemble_grouped(grouped, order, lengths[order], hier)
        assert same_result(back, ref)
        assert all(c.flags.c_contiguous and c.dtype == np.int32 for c in back[0])
    assert cc.assemble_grouped(np.zeros((0, 2), np.int32), np.zeros(0, np.int64), np.zeros(0, np.int32),
                               np.zeros((0, 4), np.int32)) == ((), None)


@given(st.lists(st.integers(1, 40), min_size=1, max_size=300), st.integers(0, 2 ** 31), st.integers(1, 64),
       st.booleans())
def test_assemble_grouped_any_runs(length_pool, seed, run_min, cap_keys):
    # Any layout of the contract: runs of equal lengths in any order, a length recurring in several
    # runs (the host sort's capped keys), each run's contours ascending in output order; runs
    # shorter and longer than TUNING.run_min. Compared with the output-ordered layout (assemble).
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 400))
    lengths = rng.choice(np.asarray(length_pool), size=m).astype(np.int32)
    offsets = np.zeros(m + 1, np.int64)
    np.cumsum(lengths, out=offsets[1:])
    pts = rng.integers(-1000, 1000, size=(int(offsets[-1]), 2)).astype(np.int32)
    hier = rng.integers(-1, m, size=(m, 4)).astype(np.int32)
    keys = np.minimum(lengths, 20) if cap_keys else lengths  # capped: lengths above 20 share one key
    order = np.argsort(keys, kind="stable")
    grouped = np.concatenate([pts[offsets[i]:offsets[i + 1]] for i in order])
    args = (grouped, order.astype(np.int32), lengths[order], hier)
    before = [a.copy() for a in args]
    runs = np.diff(np.flatnonzero(np.diff(lengths[order], prepend=-1, append=-1)))
    expect = ["runs_long"] * bool((runs >= run_min).any()) + ["runs_short"] * bool((runs < run_min).any())
    with forcing(*expect, run_min=run_min):
        back = cc.assemble_grouped(*args)
    ref = cc.assemble(pts, offsets, hier)
    assert len(back[0]) == m and all(a.shape == b.shape and a.dtype == np.int32 and np.array_equal(a, b)
                                     for a, b in zip(back[0], ref[0]))
    assert np.array_equal(back[1], ref[1]) and back[1].shape == (1, m, 4)
    assert all(np.array_equal(a, b) for a, b in zip(args, before))


def test_tuning_and_paths_are_documented_in_one_place():
    # Every path the code counts is named in cvgpu.contours.PATHS, and every PATHS entry is counted
    # somewhere; every tuned value is read by the code as TUNING.<name>.
    root = os.path.join(os.path.dirname(cc.__file__), "*.py")
    src = "".join(open(f).read() for f in sorted(glob.glob(root)))
    assert set(re.findall(r'TUNING\.ran\("(\w+)"\)', src)) == set(cc.PATHS)
    read = set(re.findall(r"TUNING\.(\w+)", src)) - {"ran", "override", "paths"}
    assert read == set(cc.TUNING.names()), read ^ set(cc.TUNING.names())
    with pytest.raises(AttributeError):
        with cc.TUNING.override(no_such_value=1):
            pass


def test_launch_code_names_kernels_of_the_files_it_loads():
    # Every fn("<file>", "<kernel>") of the launch code names a kernel of kernels/contours/<file>.cu,
    # and every kernel of the family is named somewhere in the launch code.
    kernels = {}
    for path in glob.glob(os.path.join(ROOT, "kernels", "contours", "*.cu")):
        names = re.findall(r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(\w+)\(', open(path).read())
        kernels[os.path.basename(path)[:-3]] = set(names)
    src = "".join(open(f).read() for f in sorted(glob.glob(os.path.join(os.path.dirname(cc.__file__), "*.py"))))
    calls = re.findall(r'fn\("(\w+)",\s*([^)]*)\)', src)
    assert len(calls) > 40
    for module, rest in calls:
        for name in re.findall(r'"(\w+)"', rest):
            assert name in kernels[module], (module, name)
    every = set().union(*kernels.values())
    assert every <= set(re.findall(r'"(\w+)"', src)), every - set(re.findall(r'"(\w+)"', src))


@pytest.mark.skipif(HAS_GPU, reason="the no-GPU fallback needs a machine without a usable GPU")
def test_fallback_equals_cv2_and_is_reported():
    for mode in MODES.values():
        for method in METHODS.values():
            ref = cv2.findContours(IMG, mode, method, offset=(1, 2))
            assert same_result(cvgpu.findContours(IMG, mode, method, offset=(1, 2)), ref)
            assert cvgpu.last_call_backend() == "cv2"
            packed = cvgpu.findContoursPacked(IMG, mode, method, (1, 2))
            assert all(np.array_equal(a, b) for a, b in zip(packed, cc.pack(*ref)))


@pytest.mark.parametrize("call", ["findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)"] +
                         (["findContoursLinkRuns(img)"] if hasattr(cv2, "findContoursLinkRuns") else []))
def test_fallback_warns_once_in_a_fresh_process(call):
    code = textwrap.dedent("""
        import os, warnings
        os.environ["CVGPU_BACKEND"] = "cv2"
        import numpy as np, cv2, cvgpu
        img = np.zeros((8, 8), np.uint8); img[2:5, 2:6] = 1
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a = cvgpu.CALL
            b = cvgpu.CALL
        n = sum(issubclass(x.category, cvgpu.CvgpuFallbackWarning) for x in w)
        ref = cv2.CALL
        ok = all(np.array_equal(p, q) for p, q in zip(a[0], ref[0])) and np.array_equal(a[1], ref[1])
        print(n, ok, cvgpu.last_call_backend())
    """).replace("CALL", call)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.stdout.split() == ["1", "True", "cv2"], out.stderr


# ---------------------------------------------------------------- GPU: equality with cv2

def label_image(h, w, seed):
    """Label-like multi-valued image (nonzero = foreground): nearest-neighbour blow-up of labels."""
    rng = np.random.default_rng(seed)
    small = rng.integers(0, 6, (max(1, h // 4), max(1, w // 4))).astype(np.uint8)
    return cv2.resize(small, (w, h), interpolation=cv2.INTER_NEAREST)


# One long 1-px serpentine border (worst case for one thread per border): the benchmark's image.
snake = worst_snake


FAMILIES = ("blobs", "salt", "lines", "checker", "border", "full", "empty", "labels", "pixels", "snake", "photo")


def make_image(family, h, w, seed, p, photo=None):
    rng = np.random.default_rng(seed)
    if family == "blobs":
        return nested_blobs(h, w, 1 + p % 6, 1 + p % 5, seed)
    # Images beyond 512^2 keep their family but not a million contours: cv2's own TREE / CCOMP
    # build on that many takes tens of seconds per call (4096 x 3000 salt at density ~0.5, 905k
    # contours: 47 s on a 2-core CPU), so the few such examples of a 10,000-example property
    # outlasted a device call. test_fixed_extremes keeps one dense 2048^2 case per mode and method.
    big = h * w > 512 * 512
    if family == "salt":
        return salt_pepper(h, w, float(rng.random()) * (0.01 if big else 1.0), seed)
    if family == "lines":
        return lines(h, w, 1 + p % 8, seed)
    if family == "checker":  # (1-pixel cells only on small images: a contour per pixel)
        cell = 16 if big else 1 if h * w <= 96 * 96 else 4
        return checkerboard(h, w, cell + p % 5, cell + (p // 5) % 5, p % 3, p % 4, bool(p & 1))
    if family == "border":
        return border_shapes(h, w, 1 + p % 6, seed)
    if family == "full":
        return np.full((h, w), 1 + p % 255, np.uint8)
    if family == "empty":
        return np.zeros((h, w), np.uint8)
    if family == "labels":
        return label_image(h, w, seed)
    if family == "pixels":
        img = np.zeros((h, w), np.uint8)
        k = 1 + p % 8
        img[rng.integers(0, h, k), rng.integers(0, w, k)] = 1 + p % 255
        return img
    if family == "photo":  # a photograph's mask: Otsu, thresholds, adaptive, Canny (tests/photo_cases.py)
        return photo_cases.mask(photo[0], h, w, photo[1], value=1 + p % 255)
    return snake(h, w)


class ImageCase(collections.namedtuple("ImageCase", "family h w seed p photo")):
    """A drawn image (built by the test, not by the strategy: hypothesis' too_slow health check
    times the strategies, and a 2048-pixel image takes milliseconds to build)."""

    def build(self):
        return make_image(*self)


# The long side: 1-48 (20 %), 49-256 (30 %), 257-1024 (40 %), 1025-2048 (10 %); drawn with sampled_from
# (hypothesis draws a wide integer range's low end far more often than uniformly; and within a test's
# run the share drifts: 25-55 % above 256 px in runs of 300). big=False: 1-48.
SIDE_TIERS = [(1, 48)] * 4 + [(49, 256)] * 6 + [(257, 1024)] * 8 + [(1025, 2048)] * 2
ASPECTS = [(0.3, 1.0)] * 4 + [(0.0, 1.0)]


SEEDED = ("blobs", "salt", "lines", "border", "labels", "pixels")
WITH_P = ("blobs", "lines", "checker", "border", "full", "pixels", "photo")
# Family weights: "empty" (no contour: a trivial case) once, the photographs' masks three times, the
# others twice.
WEIGHTED_FAMILIES = tuple(f for f in FAMILIES for _ in range(1 if f == "empty" else 3 if f == "photo" else 2))


@st.composite
def images(draw, big=True, families=WEIGHTED_FAMILIES):
    family = draw(st.sampled_from(families))
    lo, hi = draw(st.sampled_from(SIDE_TIERS if big else SIDE_TIERS[:1]))
    long = draw(st.integers(lo, hi))
    short = max(1, min(long, int(round(long * draw(st.floats(*draw(st.sampled_from(ASPECTS))))))))
    h, w = (long, short) if draw(st.booleans()) else (short, long)
    photo = (draw(photo_cases.specs), draw(photo_cases.mask_params)) if family == "photo" else None
    # Only the choices the family uses (hypothesis varies one choice at a time at times, and an ignored
    # one makes a duplicate case); p from 1 (hypothesis draws a range's low end often, and p = 0 is the
    # families' plainest image).
    seed = draw(st.integers(0, 2**32 - 1)) if family in SEEDED else 0
    p = draw(st.integers(1, 1000)) if family in WITH_P else 0
    return ImageCase(family, h, w, seed, p, photo)


offsets = st.one_of(st.just(None), st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000)))


def check_case(compat, img, mode_name, method_name, offset, modes=MODES, variant="%s/%s"):
    """cvgpu.findContours against cv2 (compat row ``variant % (mode_name, method_name)``); the
    image is left unchanged."""
    keep = img.copy()
    mode, method = modes[mode_name], METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    ref = cv2.findContours(img, mode, method, **kw)
    ours = cvgpu.findContours(img, mode, method, **kw)
    assert cvgpu.last_call_backend() == "cuda"
    assert type(ours[0]) is tuple
    compat.check("findContours", variant % (mode_name, method_name), signature(ours), signature(ref),
                 kind=kind_of(ref), inputs=(img, mode, method, offset))
    assert np.array_equal(img, keep)


# One item per mode x method (one compat row each): pytest-xdist runs the items in parallel. Device
# examples: 85-90 % of the cases have contours (tests/dry_run_cases.py), so 13,000 examples give each
# row over 10,000 non-trivial cases, about 40 % of them above 256 px on the long side.
@pytest.mark.gpu
@pytest.mark.parametrize("method_name", list(METHODS))
@pytest.mark.parametrize("mode_name", list(MODES))
@settings(max_examples=examples(13_000))
@given(case=images(), offset=offsets)
def test_matches_cv2(compat, mode_name, method_name, case, offset):
    check_case(compat, case.build(), mode_name, method_name, offset)


# The forced-path properties below feed no compat row: 3,000 device examples each (their images are
# the rows' images, many of them large).
FORCED = settings(max_examples=examples(3_000))


@pytest.mark.gpu
@FORCED
@given(case=images(big=False), mode_name=st.sampled_from(list(MODES)), method_name=st.sampled_from(list(METHODS)),
       offset=offsets)
def test_packed_device_form_matches_cv2(case, mode_name, method_name, offset):
    import cupy as cp
    img = case.build()
    mode, method = MODES[mode_name], METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    ref = cc.pack(*cv2.findContours(img, mode, method, **kw))
    d = cvgpu.findContoursPacked(cp.asarray(img), mode, method, offset)
    assert all(isinstance(a, cp.ndarray) for a in d)
    h = cvgpu.findContoursPacked(img, mode, method, offset)
    assert all(isinstance(a, np.ndarray) for a in h)
    for a, b, r in zip(d, h, ref):
        assert np.array_equal(a.get(), r) and np.array_equal(b, r) and a.dtype == r.dtype and b.dtype == r.dtype


@pytest.mark.gpu
@pytest.mark.parametrize("ranking", ["rulers", "jumping"])
@FORCED
@given(case=images(), mode_name=st.sampled_from(list(MODES)), method_name=st.sampled_from(["NONE", "SIMPLE"]),
       offset=offsets)
def test_both_walk_rankings_match_cv2(ranking, case, mode_name, method_name, offset):
    # The walk states are ranked by rulers from TUNING.ruler_min_slots slots on and by pointer
    # jumping below: each way is forced here on every image size (an image without contours has no
    # walk to rank).
    img = case.build()
    mode, method = MODES[mode_name], METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    ref = cv2.findContours(img, mode, method, **kw)
    path = "rulers" if ranking == "rulers" else "jump_slots"
    with forcing(*[path] * bool(ref[0]), ruler_min_slots=0 if ranking == "rulers" else 1 << 62):
        ours = cvgpu.findContours(img, mode, method, **kw)
    assert cvgpu.last_call_backend() == "cuda"
    assert same_result(ours, ref)


@pytest.mark.gpu
@pytest.mark.parametrize("layout", ["offsets", "host-ordered", "device-ordered"])
@FORCED
@given(case=images(), mode_name=st.sampled_from(list(MODES)), method_name=st.sampled_from(list(METHODS)),
       offset=offsets)
def test_numpy_path_layouts_match_cv2(layout, case, mode_name, method_name, offset):
    # The numpy path downloads the points in output order below TUNING.grouped_min contours and
    # grouped by length above (never for TC89, whose points are compacted in output order), ordered
    # on the host up to TUNING.host_sort_max contours and on the device beyond (RETR_EXTERNAL's
    # selection in one block with padding rows up to TUNING.device_select_max borders, and by CuPy's
    # flatnonzero with device ordering): each way is forced here on every image size.
    img = case.build()
    mode, method = MODES[mode_name], METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    ref = cv2.findContours(img, mode, method, **kw)
    expect = []
    if ref[0]:
        if layout == "offsets" or method_name.startswith("TC89"):
            expect = ["flat"]
        else:
            expect = ["grouped", "device_sort" if layout == "device-ordered" else "host_sort"]
        if mode_name == "EXTERNAL":
            expect.append("external_flatnonzero" if layout == "device-ordered" else "external_select")
    small = 0 if layout == "device-ordered" else 1 << 62
    with forcing(*expect, grouped_min=1 << 62 if layout == "offsets" else 1, host_sort_max=small,
                 device_select_max=small):
        ours = cvgpu.findContours(img, mode, method, **kw)
    assert cvgpu.last_call_backend() == "cuda"
    assert same_result(ours, ref)


class _HostBits(np.ndarray):
    """numpy standing in for the device array _upload_bits copies into (``.data.ptr``)."""

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


_HOST_COPY_CP = types.SimpleNamespace(
    uint8=np.uint8,
    empty=lambda n, dtype: np.zeros(n, dtype).view(_HostBits),
    cuda=types.SimpleNamespace(
        alloc_pinned_memory=bytearray,
        get_current_stream=lambda: types.SimpleNamespace(ptr=0),
        runtime=types.SimpleNamespace(memcpyHostToDevice=1,
                                      memcpyAsync=lambda dst, src, n, kind, stream: ctypes.memmove(dst, src, n))))


@pytest.mark.parametrize("band", [8, 64, 1000, 1 << 21])
@pytest.mark.parametrize("threads", [1, 3, 4])
def test_upload_bits_bands(band, threads):
    # Host images go up as one row-major bit stream, packed in bands of whole bytes by several
    # threads into the reused staging buffer: the bytes equal np.packbits of the flat image for any
    # band layout, from contiguous and strided images, and the image is left as it was.
    ws = _common.Workspace.__new__(_common.Workspace)
    ws.cp, ws.bufs = _HOST_COPY_CP, {}
    rng = np.random.default_rng(band + threads)
    for h, w in ((1, 1), (1, 7), (3, 5), (17, 33), (64, 64), (100, 101), (9, 1000)):
        for img in ((rng.random((h, w)) < 0.4).astype(np.uint8) * rng.integers(1, 256, (h, w), dtype=np.uint8),
                    (rng.random((h, 2 * w)) < 0.5).astype(np.uint8)[:, ::2]):
            keep = img.copy()
            bands = min(threads, max(1, h * w // band))
            with forcing("upload_bits" if bands == 1 else "upload_bands", upload_band=band, upload_threads=threads):
                got = np.asarray(_suzuki.upload_bits(_HOST_COPY_CP, ws, img))
            assert np.array_equal(got, np.packbits(img.reshape(-1) != 0)), (h, w)
            assert np.array_equal(img, keep)


@pytest.mark.gpu
@pytest.mark.parametrize("paths", ["block", "library"])
@FORCED
@given(case=images(), mode_name=st.sampled_from(list(MODES)), method_name=st.sampled_from(list(METHODS)),
       offset=offsets)
def test_small_kernels_and_uploads_match_cv2(paths, case, mode_name, method_name, offset):
    # Up to TUNING.tree_sort_small_max / offsets_scan_max contours the tree sort and the offsets are
    # one block's kernels, above CuPy's argsort and cumsum: each way is forced here on every image
    # size, with host input (uploaded as bits) and device input (read as bytes; findContours then
    # returns CuPy arrays made by the ndarray constructor over the points, whose offsets come in
    # output order).
    import cupy as cp
    img = case.build()
    mode, method = MODES[mode_name], METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    ref = cv2.findContours(img, mode, method, **kw)
    n, tree = len(ref[0]), mode_name in ("TREE", "CCOMP")
    if paths == "library":
        expect = ["tree_argsort"] * (tree and n > 0) + ["offsets_cumsum"] * (n > 0)
        small = {"tree_sort_small_max": -1, "offsets_scan_max": -1}
    else:
        expect = ["tree_sort_small"] * (tree and 0 < n <= 16384) + ["offsets_scan"] * (0 < n <= 16384)
        small = {}
    with forcing(*expect, **small):
        ours = cvgpu.findContours(img, mode, method, **kw)
        assert cvgpu.last_call_backend() == "cuda"
        packed = cvgpu.findContoursPacked(cp.asarray(img), mode, method, **kw)
        assert cvgpu.last_call_backend() == "cuda"
        on_device = cvgpu.findContours(cp.asarray(img), mode, method, **kw)
        assert cvgpu.last_call_backend() == "cuda"
    assert same_result(ours, ref) and same_result(on_device, ref)
    assert all(isinstance(c, cp.ndarray) for c in on_device[0])
    assert all(np.array_equal(a.get(), b) for a, b in zip(packed, cc.pack(*ref)))


@pytest.mark.gpu
@pytest.mark.parametrize("k", [1, 2, 3, 1023, 4096, 4097, 9999, 16384])
def test_offsets_scan_kernel(k):
    import cupy as cp
    rng = np.random.default_rng(k)
    counts = rng.integers(1, 2**31 - 1, k, dtype=np.int32)   # sums past 2^32: int64 throughout
    counts[rng.random(k) < 0.5] = 1
    with forcing("offsets_scan"):
        got = _ranking.offsets(_common.current_gpu(), cp.asarray(counts), k).get()
    want = np.concatenate(([0], np.cumsum(counts, dtype=np.int64)))
    assert got.dtype == np.int64 and np.array_equal(got, want)


@pytest.mark.gpu
@pytest.mark.parametrize("m", [1, 2, 3, 5, 1000, 1025, 4097, 16384])
def test_tree_sort_small_kernel(m):
    # tree_sort_small's order is the stable argsort of tree_sort_keys (parent of node m - 1 - j,
    # the frame m for top-level nodes), on trees whose parents come before their children.
    import cupy as cp
    rng = np.random.default_rng(m)
    for depth in (1, 4, m):
        parent = np.array([-1 if i == 0 or rng.random() < 1 / depth else rng.integers(max(0, i - depth), i)
                           for i in range(m)], dtype=np.int32)
        key = np.where(parent[::-1] < 0, m, parent[::-1])
        with forcing("tree_sort_small"):
            order = _ranking.tree_sort(_common.current_gpu(), m, cp.asarray(parent)).get()
        assert np.array_equal(order, np.argsort(key, kind="stable")), depth


@pytest.mark.gpu
@pytest.mark.parametrize("seed", range(3))
def test_rulers_on_thick_blobs(seed):
    # Thick strokes have many arrivals that no border passes (state_init drops them). A kept one
    # linked to a dropped slot at a block-ruler position whose ruler is not live joined its chain to
    # another ruler's and misplaced that border's points (seen on the 4928x4112 benchmark image).
    img = blobs_image(1028, 1232, seed=seed, noise=0.002 * seed)
    with forcing("rulers", ruler_min_slots=0):
        for mode in MODES.values():
            ours = cvgpu.findContours(img, mode, cv2.CHAIN_APPROX_SIMPLE)
            assert cvgpu.last_call_backend() == "cuda"
            assert same_result(ours, cv2.findContours(img, mode, cv2.CHAIN_APPROX_SIMPLE)), mode


class _HeldGpu(_common.Gpu):
    """The GPU, with every point emission (state_emit) held back on its stream by a spinning kernel."""

    def fn(self, module, name, **kwargs):
        kernel = super().fn(module, name, **kwargs)
        if name != "state_emit":
            return kernel

        def launch(*args, **kw):
            spin(self.cp, self.cp.cuda.get_current_stream(), 0.2)
            return kernel(*args, **kw)
        return launch


@pytest.mark.parametrize("limit, most", [(1, 1), (2, 2), (0, 6)])
def test_host_gate_lets_at_most_its_limit_in(limit, most):
    """host_calls_at_once: at most that many threads inside at once, any number with 0."""
    import threading
    import time
    gate = _common.HostGate()
    together = threading.Barrier(most, timeout=10)   # the limit's threads are inside together

    def call():
        with gate:
            together.wait()
            time.sleep(0.01)

    with forcing(*(["host_gate_waited"] if limit else []), host_calls_at_once=limit):
        threads = [threading.Thread(target=call) for _ in range(6)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
    assert gate.most == most and gate.inside == 0 and not together.broken


@pytest.mark.gpu
@pytest.mark.parametrize("limit", [1, 0])
def test_threads_calling_with_numpy_get_cv2s_results(limit):
    """Eight threads, numpy in and out, every mode: each result == cv2's, the gate's limit held."""
    import threading
    imgs = [blobs_image(240 + 8 * i, 320, seed=i, noise=0.01 * (i % 3)) for i in range(8)]
    modes = list(MODES.values())
    refs = [[cv2.findContours(img, m, cv2.CHAIN_APPROX_SIMPLE) for m in modes] for img in imgs]
    outs = [None] * len(imgs)
    gate_before = _common.HOST_GATE.most
    _common.HOST_GATE.most = 0

    backends = [set() for _ in imgs]

    def work(i):
        outs[i] = []
        for m in modes:
            for _ in range(3):
                outs[i].append(cvgpu.findContours(imgs[i], m, cv2.CHAIN_APPROX_SIMPLE))
                backends[i].add(cvgpu.last_call_backend())

    try:
        with forcing(*(["host_gate_waited"] if limit else []), host_calls_at_once=limit):
            threads = [threading.Thread(target=work, args=(i,)) for i in range(len(imgs))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(120)
        most = _common.HOST_GATE.most
    finally:
        _common.HOST_GATE.most = max(gate_before, _common.HOST_GATE.most)
    for i, out in enumerate(outs):
        assert out is not None and len(out) == 3 * len(modes), "thread %d did not finish" % i
        assert backends[i] == {"cuda"}
        for j, res in enumerate(out):
            assert same_result(res, refs[i][j // 3])
    assert most <= (limit or len(imgs)) and most >= 1


@pytest.mark.gpu
def test_calls_on_two_streams_keep_their_scratch():
    # A call with device results returns before its point emission has run; a call on another
    # stream must not overwrite the thread's scratch under it. The emission of both calls is held
    # back on its stream by a spinning kernel, so without ordering the second call's labelling
    # would run first.
    import cupy as cp
    mode = cv2.RETR_LIST
    imgs = [blobs_image(300, 400, seed=1), blobs_image(300, 400, seed=2, noise=0.01)]
    refs = [cc.pack(*cv2.findContours(i, mode, cv2.CHAIN_APPROX_SIMPLE)) for i in imgs]
    devs = [cp.asarray(i) for i in imgs]
    cvgpu.findContoursPacked(devs[0], mode, cv2.CHAIN_APPROX_SIMPLE)  # compile outside the test
    cp.cuda.Device().synchronize()
    streams = [cp.cuda.Stream(non_blocking=True) for _ in imgs]
    outs = []
    with cc.computing_on(_HeldGpu(cp)):
        for d, s in zip(devs, streams):
            with s:
                outs.append(cvgpu.findContoursPacked(d, mode, cv2.CHAIN_APPROX_SIMPLE))
    for s in streams:
        s.synchronize()
    for out, ref in zip(outs, refs):
        for a, r in zip(out, ref):
            assert np.array_equal(a.get(), r)


@pytest.mark.gpu
def test_device_input_gives_device_output():
    import cupy as cp
    ref = cv2.findContours(IMG, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    ours = cvgpu.findContours(cp.asarray(IMG), cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)
    assert all(isinstance(c, cp.ndarray) for c in ours[0]) and isinstance(ours[1], cp.ndarray)
    assert same_result(ours, ref)
    # A strided device view is read as cv2 reads the same host view.
    big = cp.asarray(nested_blobs(60, 70, 4, 4, 3))
    view = big[5:50:2, 3:60]
    assert same_result(cvgpu.findContours(view, 3, 1), cv2.findContours(view.get(), 3, 1))


@pytest.mark.gpu
@pytest.mark.parametrize("shape", [(1, 1), (1, 4096), (4096, 1), (2048, 2048)])
def test_fixed_extremes(compat, shape):
    for img in (np.ones(shape, np.uint8), snake(*shape), salt_pepper(shape[0], shape[1], 0.5, 1)):
        for mode_name in MODES:
            for method_name in METHODS:
                check_case(compat, img, mode_name, method_name, (1, -1))


@pytest.mark.gpu
def test_tc89_quirks_and_long_borders(compat):
    # TC89_L1's seam pass repeats point 0 at the end of one contour here; the blob images have long
    # smooth borders (large support regions), the snake one border of 130k points.
    quirk = (np.array([[0, 1, 0, 1, 1, 1], [1, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0],
                       [1, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]) * 255).astype(np.uint8)
    for img in (quirk, blobs_image(1028, 1232, seed=1, noise=0.01), snake(512, 512)):
        for mode_name in MODES:
            for method_name in ("TC89_L1", "TC89_KCOS"):
                check_case(compat, img, mode_name, method_name, None)


# ---------------------------------------------------------------- RETR_EXTERNAL as one captured graph

@pytest.mark.gpu
@pytest.mark.parametrize("method_name", ["NONE", "SIMPLE"])
# About 1.5 graph calls an example (the first of a shape is the launched pipeline's, some pass the
# capacities): 7,000 examples give the compat row "graph EXTERNAL/..." over 10,000 cases.
@settings(max_examples=examples(7_000))
@given(first=images(), more=st.lists(st.tuples(st.sampled_from(WEIGHTED_FAMILIES), st.integers(0, 2**32 - 1),
                                               st.integers(1, 1000)), min_size=1, max_size=3), offset=offsets)
def test_external_graph_matches_cv2(compat, method_name, first, more, offset):
    """A shape met again takes its captured graph (cvgpu/contours/_graph.py): a first image of a
    drawn shape, then up to three more of the same shape from any family (more borders than the
    graph's capacities among them: the call runs again on the launched pipeline, and the next graph
    of the shape is built larger); every call equal to cv2's. The graphs kept by the thread are
    dropped first, so the first call is always the launched pipeline's."""
    _common.current_gpu().workspace().bufs.pop("graphs", None)
    _common.current_gpu().workspace().bufs.pop("graph_counts", None)
    method = METHODS[method_name]
    kw = {} if offset is None else {"offset": offset}
    graphed = 0
    with forcing(graph_max_pixels=1 << 24):
        for case in [first] + [ImageCase(f, first.h, first.w, seed, p, first.photo) for f, seed, p in more]:
            if case.family == "photo" and case.photo is None:
                case = case._replace(family="blobs")
            img = case.build()
            keep = img.copy()
            ref = cv2.findContours(img, cv2.RETR_EXTERNAL, method, **kw)
            before = cc.TUNING.paths()
            ours = cvgpu.findContours(img, cv2.RETR_EXTERNAL, method, **kw)
            ran = cc.TUNING.paths() - before
            assert cvgpu.last_call_backend() == "cuda" and type(ours[0]) is tuple
            # (Compat row "graph EXTERNAL/...": the calls the graph computed.)
            compat.check("findContours", ("graph %s/%s" if ran["graph"] else "%s/%s") % ("EXTERNAL", method_name),
                         signature(ours), signature(ref), kind=kind_of(ref), inputs=(img, cv2.RETR_EXTERNAL, method,
                                                                                       offset))
            assert np.array_equal(img, keep)
            graphed += ran["graph"]
    assert graphed <= len(more)   # the first call of a shape is the launched pipeline's


@pytest.mark.gpu
def test_external_graph_capacities_and_fallback():
    """Few blobs, then the same shape with many more borders than the graph holds (a fallback to the
    launched pipeline), then again (a larger graph), on 480 x 640: each equal to cv2's."""
    ws = _common.current_gpu().workspace()
    ws.bufs.pop("graphs", None)
    ws.bufs.pop("graph_counts", None)
    few = nested_blobs(480, 640, 2, 2, 1)
    many = salt_pepper(480, 640, 0.005, 2)   # ~1,500 borders: past the first graph's, within graph_max_borders
    m_few, m_many = (len(cv2.findContours(i, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0]) for i in (few, many))
    assert 2 * m_few < 256 < m_many <= cc.TUNING.graph_max_borders
    before = cc.TUNING.paths()
    for img, path in ((few, None), (few, "graph"), (many, "graph_over"), (many, "graph"), (few, "graph")):
        start = cc.TUNING.paths()
        ref = cv2.findContours(img, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        assert same_result(cvgpu.findContours(img, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE), ref)
        ran = cc.TUNING.paths() - start
        if path is not None:
            assert ran[path] == 1, (path, dict(ran))
    ran = cc.TUNING.paths() - before
    assert ran["graph_built"] == 2
