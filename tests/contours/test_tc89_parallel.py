"""The parallel TC89 passes on borders that stress them: long smooth curves (circles, ellipses and
spirals of many sizes: long slopes of slowly changing k-cosines, long chains for the nms rounds,
long runs for L1's cleanup), staircases (every point turns: runs of survivors), the snake, the
seam quirk. CPU: tests/models/tc89_model.py's parallel form (approx_tc89_parallel) and the host build of
the kernels against cv2; GPU (marked gpu): cvgpu.findContours against cv2.
"""
import cv2
import numpy as np

from cvgpu import _versions
import pytest
from hypothesis import given, settings, strategies as st

from cvgpu.bench.contours import worst_snake
from tc89_model import approx_tc89, approx_tc89_parallel
from test_find_contours import check_case
from test_tc89_kernel_host import check_all, host_lib  # noqa: F401 (the fixture)

# The models and kernels reproduce the findContours of OpenCV 4.10+ (#25146); before, cv2's legacy
# code traces TC89_L1 and label images otherwise and cvgpu lets cv2 compute those (_versions).
pytestmark = pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                                reason="the installed cv2 (before 4.10) runs the legacy findContours")


MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE]
TC89 = [cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]
KINDS = ["circle", "disc", "ellipse", "spiral", "stairs", "rings"]


def curve_image(kind, size, p, seed=0):
    """Images drawn with cv2's primitives (used here only to make inputs)."""
    rng = np.random.default_rng(seed)
    img = np.zeros((size + 8, size + 8), np.uint8)
    c = (size // 2 + 4, size // 2 + 4)
    r = max(1, size // 2 - (p % 3))
    if kind == "circle":
        cv2.circle(img, c, r, 255, 1 + p % 3)
    elif kind == "disc":
        cv2.circle(img, c, r, 255, -1)
    elif kind == "ellipse":
        cv2.ellipse(img, c, (r, max(1, r * (1 + p % 7) // 8)), (p * 13) % 180, 0, 360, 255, -1 if p & 1 else 1)
    elif kind == "spiral":
        t = np.linspace(0, (2 + p % 5) * 2 * np.pi, 40 * size + 100)
        rad = r * t / t[-1]
        pts = np.stack([c[0] + rad * np.cos(t), c[1] + rad * np.sin(t)], 1).round().astype(np.int32)
        cv2.polylines(img, [pts], False, 255, 1 + p % 2)
    elif kind == "stairs":
        # Digital lines of many slopes: every point turns, long runs survive the nms.
        for m in range(1 + p % 6):
            a = rng.uniform(0, np.pi)
            d = np.array([np.cos(a), np.sin(a)]) * size
            cv2.line(img, tuple(int(v) for v in np.array(c) - d / 2), tuple(int(v) for v in np.array(c) + d / 2),
                     255, 1 + m % 2)
    else:
        for q in range(1 + p % 4):
            cv2.circle(img, c, max(1, r - 3 * q), 255 if q % 2 == 0 else 0, -1)
    return img


# The seam pass appends point 0 and starts at the first live point after it, whose run is longer
# than 2 (so its second point stays too). Found by a random search against a mutated kernel.
SEAM_START_RUN = np.array([[0, 1, 0, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 1, 1, 1, 1, 0], [1, 0, 1, 0, 1, 1, 1, 1, 1],
                           [1, 0, 0, 1, 1, 1, 1, 1, 1], [0, 1, 1, 1, 1, 1, 1, 0, 0], [1, 1, 1, 1, 1, 0, 1, 0, 0],
                           [0, 1, 0, 1, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 0, 1, 1, 1], [1, 1, 0, 1, 1, 1, 1, 1, 0]],
                          np.uint8)


def check_model(img):
    for mode in (cv2.RETR_LIST, cv2.RETR_TREE):
        none = cv2.findContours(img, mode, cv2.CHAIN_APPROX_NONE)[0]
        for method in TC89:
            ref = cv2.findContours(img, mode, method)[0]
            for c, r in zip(none, ref):
                # No Jacobi round (the index-order finish decides all) and two (most settle).
                for rounds in (0, 2):
                    ours = approx_tc89_parallel(c, method, rounds)
                    assert np.array_equal(ours, r.reshape(-1, 2)), (mode, method, img.shape, len(c), rounds)


@settings(max_examples=20, deadline=None)
@given(kind=st.sampled_from(KINDS), size=st.integers(3, 120), p=st.integers(0, 1000), seed=st.integers(0, 99))
def test_model_on_curves(kind, size, p, seed):
    check_model(curve_image(kind, size, p, seed))


@given(h=st.integers(1, 40), w=st.integers(1, 40), density=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_model_on_noise(h, w, density, seed):
    img = (np.random.default_rng(seed).random((h, w)) < density).astype(np.uint8)
    check_model(img)


def test_model_on_the_quirk_and_snake():
    quirk = (np.array([[0, 1, 0, 1, 1, 1], [1, 1, 1, 0, 1, 0], [1, 1, 0, 1, 0, 0], [1, 0, 0, 1, 0, 0],
                       [1, 1, 0, 0, 1, 1], [0, 0, 0, 0, 0, 1]]) * 255).astype(np.uint8)
    check_model(quirk)
    check_model(SEAM_START_RUN)
    check_model(worst_snake(24, 40))
    # Same answer as the sequential model on a larger chain, point for point.
    c = cv2.findContours(curve_image("spiral", 200, 3), cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE)[0][0]
    for method in TC89:
        assert np.array_equal(approx_tc89_parallel(c, method), approx_tc89(c, method))


@settings(max_examples=25, deadline=None)
@given(kind=st.sampled_from(KINDS), size=st.integers(3, 400), p=st.integers(0, 1000), seed=st.integers(0, 99))
def test_host_kernels_on_curves(host_lib, kind, size, p, seed):  # noqa: F811
    check_all(host_lib, curve_image(kind, size, p, seed))


def test_host_kernels_on_long_borders(host_lib):  # noqa: F811
    check_all(host_lib, SEAM_START_RUN)
    check_all(host_lib, worst_snake(256, 256))
    check_all(host_lib, curve_image("disc", 1500, 0))
    check_all(host_lib, curve_image("spiral", 600, 4))


@pytest.mark.gpu
@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), size=st.integers(3, 1500), p=st.integers(0, 1000), seed=st.integers(0, 99),
       mode_name=st.sampled_from(["EXTERNAL", "LIST", "CCOMP", "TREE"]),
       method_name=st.sampled_from(["TC89_L1", "TC89_KCOS"]))
def test_gpu_on_curves(compat, kind, size, p, seed, mode_name, method_name):
    check_case(compat, curve_image(kind, size, p, seed), mode_name, method_name, None)


@pytest.mark.gpu
def test_gpu_long_borders(compat):
    for img in (worst_snake(1024, 1024), curve_image("disc", 3000, 0), curve_image("spiral", 2000, 4)):
        for method_name in ("TC89_L1", "TC89_KCOS"):
            check_case(compat, img, "LIST", method_name, None)
    for mode_name in ("EXTERNAL", "LIST", "CCOMP", "TREE"):
        check_case(compat, SEAM_START_RUN, mode_name, "TC89_L1", None)
