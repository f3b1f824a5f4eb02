"""The label-image pipeline (cvgpu.contours._labels.gpu_labels) with the kernel files it launches
(kernels/contours/labels.cu, tc89.cu, ranking.cu) compiled for the host, against cv2 (no GPU).

Each file is compiled whole by tests/contours/kernel_host.py (atomics are plain read-modify-writes there:
every "thread" runs alone, in order). The launch code itself (argument order and types checked
against the kernels' signatures, grids, scratch layout, the fixed-point rounds, the tree order,
TC89 on top) then runs on kernel_host.HostGpu, a numpy stand-in for CuPy. What stays for
tests/contours/test_find_contours_labels.py (gpu): the GPU's own execution (NVRTC build, real concurrency of
the atomics, memory) and ranking_block.cu's kernels. Skipped without a C++ compiler.
"""
import cv2
import numpy as np

from cvgpu import _versions
import pytest
from hypothesis import HealthCheck, assume, given, settings, strategies as st

import kernel_host
from cvgpu import contours as cc
from cvgpu.contours import _labels
from contours_forcing import forcing
from labels_model import UNDEFINED_IMAGE, defined
from test_labels_model import FAMILIES, label_image, offsets
from test_contours_model import assert_same_contours

# The models and kernels reproduce the findContours of OpenCV 4.10+ (#25146); before, cv2's legacy
# code traces TC89_L1 and label images otherwise and cvgpu lets cv2 compute those (_versions).
pytestmark = pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                                reason="the installed cv2 (before 4.10) runs the legacy findContours")


METHODS = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]


@pytest.fixture(scope="module")
def host_modules(tmp_path_factory):
    """The files the label pipeline launches, built for the host."""
    return {module: kernel_host.build(tmp_path_factory, module) for module in ("ranking", "tc89", "labels")}


@pytest.fixture
def host_gpu(host_modules):
    # The host's threads run one after another: no grid barrier or shared memory (HostGpu), so one
    # launch per jumping round; nor block barriers: the tree order's sort and the offsets take
    # CuPy's argsort and cumsum.
    with forcing("jump_launches", "tree_argsort", "offsets_cumsum", tree_sort_small_max=-1, offsets_scan_max=-1):
        yield kernel_host.HostGpu(host_modules)


def run_labels(gpu, img, method, offset=(0, 0)):
    """cvgpu's result for the label image (via the launch code and the host kernels)."""
    arr = np.asarray(img)
    points, offsets_d, layout, hier = _labels.gpu_labels(gpu, arr, method, int(offset[0]), int(offset[1]))
    return cc.assemble(np.asarray(points), np.asarray(layout), np.asarray(hier))


def check(gpu, img, offset=(0, 0), methods=METHODS):
    keep = np.array(img, copy=True)
    for method in methods:
        ref = cv2.findContours(img, cv2.RETR_FLOODFILL, method, offset=offset)
        ours = run_labels(gpu, img, method, offset)
        assert np.array_equal(img, keep)
        try:
            assert_same_contours(ours, ref)
        except AssertionError as e:
            raise AssertionError("method=%d offset=%r\n%r\n%s" % (method, offset, np.asarray(img), e))


# host_gpu holds the forced tuning for all of the property's examples and checks, when the property
# ends, that the forced paths ran during them: a fixture spanning the examples is what it is for.
SPANS_EXAMPLES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@SPANS_EXAMPLES
@given(family=st.sampled_from(FAMILIES), h=st.integers(1, 20), w=st.integers(1, 20), seed=st.integers(0, 2**32 - 1),
       p=st.integers(0, 1000), offset=offsets)
def test_label_images(host_gpu, family, h, w, seed, p, offset):
    img = label_image(family, h, w, seed, p)
    assume(defined(img, offset))
    check(host_gpu, img, offset)


def test_examples(host_gpu):
    a = np.zeros((8, 10), np.int32)
    a[1:5, 1:5] = 3
    a[2:4, 2:4] = 0
    a[5:7, 5:9] = 3
    a[1:3, 6:9] = 7
    check(host_gpu, a)
    b = np.ones((9, 9), np.int32)
    b[3:6, 3:6] = 2
    check(host_gpu, b, (4, -3))
    for v in (0, 1, -1, 2**31 - 1, -2**31, 2**30):
        check(host_gpu, np.full((1, 1), v, np.int32))
        check(host_gpu, np.full((3, 4), v, np.int32), (7, -9))
    for n in (1, 2, 7):
        check(host_gpu, np.arange(n, dtype=np.int32).reshape(1, -1) % 3)
        check(host_gpu, np.arange(n, dtype=np.int32).reshape(-1, 1) % 3)


def test_views_and_nested_regions(host_gpu):
    base = label_image("blocks", 30, 40, 3, 5)
    for view in (base[::2, ::3], base[3:20, 5:35], base.T, np.flipud(base)):
        check(host_gpu, view, methods=[cv2.CHAIN_APPROX_SIMPLE])
    rng = np.random.default_rng(2)
    img = np.repeat(np.repeat(rng.integers(1, 40, (12, 14)), 3, 0), 3, 1).astype(np.int32)
    img[6:30, 6:36] = 0
    img[10:26, 12:30] = 7
    img[14:22, 16:26] = 0
    img[16:20, 18:22] = 9
    check(host_gpu, img, (3, -2))


def test_many_random(host_gpu):
    # A fixed sweep beside the hypothesis budget, all families and methods.
    rng = np.random.default_rng(9)
    done = 0
    for it in range(60):
        h, w = (int(v) for v in rng.integers(1, 28, 2))
        img = label_image(FAMILIES[it % len(FAMILIES)], h, w, it, int(rng.integers(0, 1000)))
        if not defined(img):
            continue
        check(host_gpu, img, methods=[METHODS[it % 4]])
        done += 1
    assert done > 40


def test_undefined_raises(host_gpu):
    img = UNDEFINED_IMAGE.copy()
    with pytest.raises(cv2.error):
        run_labels(host_gpu, img, cv2.CHAIN_APPROX_NONE)


def test_serial_replay(host_gpu):
    # The one-thread replay the launch code falls back to after TUNING.lab_max_rounds rounds.
    with forcing("lab_serial", lab_max_rounds=0):
        rng = np.random.default_rng(4)
        for it in range(14):
            h, w = (int(v) for v in rng.integers(1, 24, 2))
            img = label_image(FAMILIES[it % len(FAMILIES)], h, w, it, int(rng.integers(0, 1000)))
            if defined(img):
                check(host_gpu, img, methods=[METHODS[it % 4]])
        check(host_gpu, label_image("rects", 30, 30, 1, 7), (2, 2))


@pytest.mark.parametrize("host_sort_max,sort", [(1 << 62, "host_sort"), (0, "device_sort")])
def test_grouped_layout(host_gpu, host_sort_max, sort):
    # The numpy-io layout by contour length (assemble_grouped), taken from TUNING.grouped_min
    # contours on, ordered on the host up to TUNING.host_sort_max contours and on the device beyond.
    with forcing("grouped", sort, grouped_min=1, host_sort_max=host_sort_max):
        grouped_layout_cases(host_gpu)


def grouped_layout_cases(gpu):
    for it, img in enumerate((label_image("many", 20, 30, 1, 1), label_image("rects", 25, 25, 2, 7),
                              label_image("few", 1, 9, 3, 3))):
        for method in (cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_KCOS):
            ref = cv2.findContours(img, cv2.RETR_FLOODFILL, method, offset=(it, -it))
            points, offsets_d, layout, hier = _labels.gpu_labels(gpu, img, method, it, -it, grouped=True)
            if offsets_d is None:
                ours = cc.assemble_grouped(np.asarray(points), layout[0], layout[1], np.asarray(hier))
            else:
                assert method in (cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS)
                ours = cc.assemble(np.asarray(points), np.asarray(layout), np.asarray(hier))
            assert_same_contours(ours, ref)
