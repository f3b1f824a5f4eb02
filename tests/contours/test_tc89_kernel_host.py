"""kernels/contours/tc89.cu compiled for the host and run against cv2 (no GPU).

The file is plain C++ apart from a few CUDA names; tests/contours/kernel_host.py's prelude maps those to
host C++ (the _rn double intrinsics to plain double ops, compiled with -ffp-contract=off so nothing
is fused, as on x86 SSE2) and a driver launches every "thread" in a loop, in the order the kernels
need. This checks the kernels'
logic and integer/double arithmetic bit for bit against cv2 on the CPU. The last test also runs
cvgpu.contours._tc89 (the launch code: argument order and types checked against the kernels'
signatures, grids, scratch layout) on a numpy stand-in for CuPy with these host kernels
(kernel_host.HostGpu). What stays
for the gpu tests in test_find_contours.py: the GPU's own execution (NVRTC build, the intrinsics,
memory), and the NONE pipeline feeding it. Skipped without a C++ compiler.
"""
import ctypes

import cv2
import numpy as np

from cvgpu import _versions
import pytest
from hypothesis import given, strategies as st

from cvgpu import contours as cc
from cvgpu.bench.contours import blobs_image, worst_snake
from cvgpu.contours import _tc89
import kernel_host
from test_contours_model import family_image, nested_blobs, salt_pepper

# The models and kernels reproduce the findContours of OpenCV 4.10+ (#25146); before, cv2's legacy
# code traces TC89_L1 and label images otherwise and cvgpu lets cv2 compute those (_versions).
pytestmark = pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                                reason="the installed cv2 (before 4.10) runs the legacy findContours")


MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE]
TC89 = [cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]

DRIVER = r"""
static void launch1(unsigned t) { blockIdx.x = 0; blockDim.x = 1; threadIdx.x = t; }
static void cumsum(const int* a, int* out, long long n)
{
    int c = 0;
    for (long long i = 0; i < n; ++i) out[i] = c += a[i];
}
// The launches of cvgpu.contours._tc89 in its order; each "thread" runs to its end in index order,
// or in reverse index order with rev (the kernels must not depend on it). rounds: tc89_nms_round
// launches before tc89_nms_finish (0: the finish decides every open point).
extern "C" long long host_tc89(const int2* pts, const long long* off, int k, int method, int rounds, int rev,
                               int* sv, int* kv, u8* gone, u8* st, int* fl, int* rid, int* rs, int* re,
                               int* used, int* start4, int* cut4, int* pend, int* seam, long long* new_off,
                               int2* out)
{
    const long long total = off[k], slots = total + k;
    const int l1 = method == 3;
#define EACH(n, call) for (long long u_ = 0; u_ < (n); ++u_) { launch1((unsigned)(rev ? (n) - 1 - u_ : u_)); call; }
    EACH(total, tc89_point(pts, off, k, total, !l1, sv, kv, gone));
    EACH(total, tc89_nms_init(off, k, total, sv, kv, st));
    for (int j = 0; j < k; ++j) pend[j] = 0;
    for (int r = 0; r < rounds; ++r) EACH(total, tc89_nms_round(off, k, total, sv, kv, st, r == rounds - 1, pend));
    if (rounds == 0) for (int j = 0; j < k; ++j) pend[j] = 1;
    EACH(k, tc89_nms_finish(off, k, sv, kv, st, pend));
    EACH(total, tc89_apply(off, k, total, 2, st, sv, gone));
    EACH(total, tc89_pass3(off, k, total, sv, kv, gone, st));
    for (int j = 0; j < 3 * k; ++j) seam[j] = 0;
    EACH(total, tc89_apply3(off, k, total, l1, st, sv, gone, seam));
    EACH(k, tc89_seam(off, k, l1, sv, kv, gone, seam, used, start4, cut4));
    if (l1) {
        EACH(slots, tc89_runflag(off, k, slots, gone, used, start4, cut4, fl));
        cumsum(fl, rid, slots);
        EACH(slots, tc89_runends(off, k, slots, gone, used, start4, cut4, fl, rid, rs, re));
        EACH(slots, tc89_cleanup(off, k, slots, sv, kv, gone, used, start4, cut4, rid, rs, re));
    }
    EACH(slots, tc89_keep(off, k, slots, gone, used, cut4, fl));
    cumsum(fl, rid, slots);
    new_off[0] = 0;
    EACH(k, tc89_offsets(off, k, rid, new_off));
    if (out) EACH(slots, tc89_emit(pts, off, k, slots, fl, rid, out));
    return new_off[k];
}
"""


@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    module = kernel_host.build(tmp_path_factory, "tc89", extra=DRIVER, opt="-O1")
    module.lib.host_tc89.restype = ctypes.c_longlong
    return module


def host_tc89(module, points, offsets, method, rounds=None, rev=False):
    """The kernels' (points, offsets) for packed NONE input (rounds: default as _tc89.tc89)."""
    k = len(offsets) - 1
    if rounds is None:
        rounds = cc.TUNING.tc89_rounds_l1 if method == cv2.CHAIN_APPROX_TC89_L1 else cc.TUNING.tc89_rounds_kcos
    pts = np.ascontiguousarray(points, np.int32)
    off = np.ascontiguousarray(offsets, np.int64)
    slots = max(int(off[-1]) + k, 1)
    rng = np.random.default_rng(slots)
    # Scratch starts as garbage, as the GPU's reused workspace does.
    sv, kv, fl, rid, rs, re = (rng.integers(-9, 9, slots).astype(np.int32) for _ in range(6))
    gone, st = (rng.integers(0, 4, slots).astype(np.uint8) for _ in range(2))
    used, start4, cut4, pend = (rng.integers(-9, 9, max(k, 1)).astype(np.int32) for _ in range(4))
    seam = rng.integers(-9, 9, max(3 * k, 1)).astype(np.int32)
    new_off = np.zeros(k + 1, np.int64)
    ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    args = [ptr(pts), ptr(off), k, method, rounds, int(rev), ptr(sv), ptr(kv), ptr(gone), ptr(st), ptr(fl), ptr(rid),
            ptr(rs), ptr(re), ptr(used), ptr(start4), ptr(cut4), ptr(pend), ptr(seam), ptr(new_off)]
    total = module.lib.host_tc89(*args, None)
    out = np.zeros((max(int(total), 1), 2), np.int32)
    module.lib.host_tc89(*args, ptr(out))
    return out[:total], new_off


def check_all(lib, img, offset=(0, 0)):
    for mode in MODES:
        none = cc.pack(*cv2.findContours(img, mode, cv2.CHAIN_APPROX_NONE, offset=offset))
        for method in TC89:
            ref = cc.pack(*cv2.findContours(img, mode, method, offset=offset))
            # Threads in index order, in reverse order (the nms rounds then settle one link of a
            # chain per round, and the finish gets what is left), and the finish alone.
            for rounds, rev in ((None, False), (None, True), (0, False)):
                pts, off = host_tc89(lib, none[0], none[1], method, rounds, rev)
                assert np.array_equal(off, ref[1]), (mode, method, img.shape, rounds, rev)
                assert np.array_equal(pts, ref[0]), (mode, method, img.shape, rounds, rev)
            assert np.array_equal(none[2], ref[2])   # the GPU keeps NONE's hierarchy


@given(h=st.integers(1, 96), w=st.integers(1, 96), n=st.integers(1, 6), depth=st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1), noise=st.floats(0, 0.3),
       offset=st.one_of(st.just((0, 0)), st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000))))
def test_blobs_with_noise(host_lib, h, w, n, depth, seed, noise, offset):
    img = nested_blobs(h, w, n, depth, seed) | salt_pepper(h, w, noise, seed)
    check_all(host_lib, img, offset)


@given(family=st.sampled_from(["salt", "lines", "checker", "border"]), h=st.integers(1, 48),
       w=st.integers(1, 48), seed=st.integers(0, 2**32 - 1), p=st.integers(0, 1000))
def test_other_families(host_lib, family, h, w, seed, p):
    check_all(host_lib, family_image(family, h, w, seed, p))


@pytest.mark.parametrize("shape", [(4, 60000), (1, 70000), (1, 1), (2, 1), (3, 3)])
def test_rectangles_and_tiny(host_lib, shape):
    img = np.ones(shape, np.uint8)
    if shape[0] > 2 and shape[1] > 2:
        img[1:-1, 1:-1] = 0
    check_all(host_lib, img)


def test_snake_and_big_blobs(host_lib):
    # One long border walking out and back (the GPU's one-thread-per-contour worst case), and the
    # bench's blob images (long smooth borders, large support regions).
    check_all(host_lib, worst_snake(256, 256))
    check_all(host_lib, blobs_image(514, 616, seed=3, noise=0.01))


def test_first_point_repeated_at_the_end(host_lib):
    img = (np.array([[0, 1, 0, 1, 1, 1], [1, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0],
                     [1, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]) * 255).astype(np.uint8)
    check_all(host_lib, img)


def test_many_random_images(host_lib):
    # A fixed sweep wider than the hypothesis budget: a few thousand contours per method and mode.
    rng = np.random.default_rng(5)
    for it in range(40):
        h, w = (int(v) for v in rng.integers(1, 120, 2))
        img = nested_blobs(h, w, 1 + it % 6, 1 + it % 5, it) | salt_pepper(h, w, float(rng.random()) * 0.5, it)
        check_all(host_lib, img)


# ---------------------------------------------------------------- the launch code in cvgpu/contours/_tc89.py

def test_launch_code_with_host_kernels(host_lib):
    # cvgpu.contours._tc89.tc89 itself (argument order and types, grids, scratch layout, offsets)
    # driving the host build of the kernels, against cv2; with one long border (the snake) and a
    # large circle among them.
    assert set(host_lib.sig) == {"tc89_point", "tc89_nms_init", "tc89_nms_round", "tc89_nms_finish", "tc89_apply",
                                 "tc89_pass3", "tc89_apply3", "tc89_seam", "tc89_runflag", "tc89_runends",
                                 "tc89_cleanup", "tc89_keep", "tc89_offsets", "tc89_emit"}
    gpu = kernel_host.HostGpu({"tc89": host_lib})
    rng = np.random.default_rng(11)
    disc = np.zeros((1300, 1300), np.uint8)
    cv2.circle(disc, (650, 650), 640, 1, -1)
    imgs = [worst_snake(256, 256), disc]
    for it in range(6):
        h, w = (int(v) for v in rng.integers(2, 40, 2))
        imgs.append(nested_blobs(h, w, 1 + it % 4, 1 + it % 3, it) | salt_pepper(h, w, 0.1 * (it % 3), it))
    for it, img in enumerate(imgs):
        for mode in ((cv2.RETR_LIST,) if it < 2 else (cv2.RETR_TREE, cv2.RETR_EXTERNAL)):
            pts, off, _ = cc.pack(*cv2.findContours(img, mode, cv2.CHAIN_APPROX_NONE))
            k = len(off) - 1
            if k == 0:
                continue
            for method in TC89:
                ref = cc.pack(*cv2.findContours(img, mode, method))
                out, new_off, layout = _tc89.tc89(gpu, kernel_host.host(pts.copy()), kernel_host.host(off.copy()),
                                                  int(off[-1]), k, method)
                assert np.array_equal(layout, ref[1]) and np.array_equal(np.asarray(new_off), ref[1])
                assert np.array_equal(np.asarray(out), ref[0])


@pytest.mark.parametrize("offset", [(2**31 - 100, 2**31 - 100), (-2**31, -2**31)])
def test_extreme_offsets(host_lib, offset):
    for seed in range(3):
        check_all(host_lib, nested_blobs(40, 50, 3, 3, seed) | salt_pepper(40, 50, 0.05, seed), offset)
