"""kernels/contours/linkruns.cu compiled for the host and run against cv2 (no GPU).

The file is plain C++ apart from a few CUDA names; tests/contours/kernel_host.py's prelude maps those to
host C++ and runs every "thread" of a launch in a loop (kernels of one launch never depend on each
other's writes, so any order is a valid schedule). The launch code itself,
cvgpu.contours._linkruns.linkruns_gpu (argument order and types checked against the kernels'
signatures, grids, scratch, prefix sums, jump rounds), drives them on kernel_host.HostGpu, a numpy
stand-in for CuPy, and the result, assembled as findContoursLinkRuns assembles it, must equal cv2's bit for bit.
What stays for the gpu tests in test_find_contours_linkruns.py: the GPU's own execution (NVRTC
build, memory, CuPy's scans). Skipped without a C++ compiler.
"""
import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

import kernel_host
from contours_forcing import forcing
from cvgpu import contours as cc
from cvgpu.bench.contours import blobs_image, worst_snake
from cvgpu.contours import _linkruns
from test_contours_model import assert_same_contours, family_image, nested_blobs, salt_pepper

# cv2.findContoursLinkRuns exists from OpenCV 4.10 (_versions: contours.implementation); before, cvgpu
# has none either (tests/test_versions.py checks that).
pytestmark = pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"),
                                reason="the installed cv2 (before 4.10) has no findContoursLinkRuns")



@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    built = kernel_host.build(tmp_path_factory, "linkruns")
    assert set(built.sig) == {"lr_flags", "lr_runs", "lr_link", "lr_jump", "lr_heads", "lr_offsets", "lr_emit"}
    return built


def runner(gpu):
    """The pipeline on ``gpu``, its result assembled as findContoursLinkRuns assembles it."""
    def run(img, grouped=False):
        arr = np.asarray(img)
        arr = arr.reshape(arr.shape[0], arr.shape[1]) if arr.ndim == 3 else arr
        points, offsets, layout, hier = _linkruns.linkruns_gpu(gpu, arr.view(np.uint8), grouped=grouped)
        if offsets is None:
            return cc.assemble_grouped(points.get(), layout[0], layout[1], hier.get())
        assert np.array_equal(layout, offsets.get())
        return cc.assemble(points.get(), layout, hier.get())
    return run


# Module-scoped: a HostGpu keeps no state between calls that a property's examples could share.
@pytest.fixture(scope="module")
def host_gpu(host_lib):
    return kernel_host.HostGpu({"linkruns": host_lib})


@pytest.fixture(scope="module")
def host_run(host_gpu):
    return runner(host_gpu)


def check(run, img, grouped=False):
    keep = img.copy()
    ref = cv2.findContoursLinkRuns(img)
    ours = run(img, grouped)
    assert np.array_equal(img, keep)
    try:
        assert_same_contours(ours, ref)
    except AssertionError as e:
        raise AssertionError("shape=%r\n%s\n%s" % (img.shape, (img != 0).astype(int), e))


@given(h=st.integers(1, 64), w=st.integers(1, 64), n=st.integers(1, 6), depth=st.integers(1, 5),
       seed=st.integers(0, 2**32 - 1), noise=st.floats(0, 0.3))
def test_blobs_with_noise(host_run, h, w, n, depth, seed, noise):
    check(host_run, nested_blobs(h, w, n, depth, seed) | salt_pepper(h, w, noise, seed))


@given(family=st.sampled_from(["salt", "lines", "checker", "border", "full"]), h=st.integers(1, 48),
       w=st.integers(1, 48), seed=st.integers(0, 2**32 - 1), p=st.integers(0, 1000), signed=st.booleans())
def test_other_families(host_run, family, h, w, seed, p, signed):
    img = family_image(family, h, w, seed, p)
    check(host_run, img.view(np.int8) if signed else img)


@pytest.mark.parametrize("shape", [(1, 1), (1, 7), (7, 1), (2, 1), (1, 3000), (3000, 1), (3, 3)])
def test_thin_and_tiny(host_run, shape):
    for img in (np.ones(shape, np.uint8), salt_pepper(shape[0], shape[1], 0.5, 3), np.zeros(shape, np.uint8)):
        check(host_run, img)


def test_strided_and_channel_input(host_run):
    big = nested_blobs(60, 70, 4, 4, 3) | salt_pepper(60, 70, 0.05, 3)
    check(host_run, big[5:50:2, 3:60])
    check(host_run, big[:, :, None])


def test_bench_images(host_run):
    # Long cycles (many jump rounds matter) and thousands of small contours.
    check(host_run, worst_snake(128, 128))
    check(host_run, blobs_image(257, 308, seed=1, noise=0.01))
    check(host_run, (np.random.default_rng(0).random((200, 200)) < 0.5).astype(np.uint8))


@pytest.mark.parametrize("host_sort_max,sort", [(1 << 62, "host_sort"), (0, "device_sort")])
@pytest.mark.parametrize("grouped_min", [1, 50])
def test_length_grouped_layout(host_run, grouped_min, host_sort_max, sort):
    # The numpy path's layout by (length, index) for many contours (from a small threshold here),
    # sorted on the host or on the device (whose offsets take CuPy's cumsum: offsets_scan is a
    # block-level kernel).
    with forcing("grouped", sort, *(("offsets_cumsum",) if sort == "device_sort" else ()),
                 grouped_min=grouped_min, host_sort_max=host_sort_max, offsets_scan_max=-1):
        for seed in range(3):
            check(host_run, nested_blobs(70, 90, 5, 4, seed) | salt_pepper(70, 90, 0.2, seed), grouped=True)
        check(host_run, np.ones((1, 1), np.uint8), grouped=True)


def test_grid_stride_loops(host_lib):
    # Grids capped below the element count (two blocks here): every thread walks several elements,
    # as on the GPU past Gpu.grid_cap.
    run = runner(kernel_host.HostGpu({"linkruns": host_lib}, grid_cap=2))
    before = cc.TUNING.paths()
    for seed in range(3):
        check(run, nested_blobs(50, 61, 5, 4, seed) | salt_pepper(50, 61, 0.1, seed))
    assert (cc.TUNING.paths() - before)["grid_capped"] > 0


@pytest.mark.parametrize("grouped_min,layout", [(1, "grouped"), (16384, "flat")])
def test_public_function_numpy_path(host_gpu, grouped_min, layout):
    # cvgpu.findContoursLinkRuns itself (argument layer, layout choice, host-built hierarchy,
    # assembly) on the host kernels.
    rng = np.random.default_rng(3)
    with cc.computing_on(host_gpu), forcing(layout, grouped_min=grouped_min):
        for it in range(8):
            h, w = (int(v) for v in rng.integers(1, 50, 2))
            img = nested_blobs(h, w, 1 + it % 4, 1 + it % 3, it) | salt_pepper(h, w, 0.15 * (it % 3), it)
            for arg in (img, img.view(np.int8), img[:, :, None], img[::-1, ::2]):
                ref = cv2.findContoursLinkRuns(arg)
                ours = cc.findContoursLinkRuns(image=arg)
                assert cc._backend.last_call_backend() == "cuda"
                assert_same_contours(ours, ref)
        assert cc.findContoursLinkRuns(np.zeros((3, 4), np.uint8)) == ((), None)


class _PoisonGpu:
    """Stands in for the GPU where it must not be touched: any use fails the test."""

    def __getattr__(self, name):
        raise AssertionError("the GPU was touched (%s)" % name)


def test_size_limit():
    # Beyond the int32 node indices (h * (w + 1) run end points): cv2.error -211 before the GPU is
    # touched (as findContours); the largest image below passes the check.
    _linkruns.check_size((1, 2**31 - 3))
    _linkruns.check_size((2**15 - 1, 2**16))
    for shape in ((1, 2**31 - 2), (2**15, 2**16), (46341, 46341)):
        with pytest.raises(cv2.error) as e:
            _linkruns.check_size(shape)
        assert e.value.code == -211 and e.value.func == "findContoursLinkRuns"
    with cc.computing_on(_PoisonGpu()):
        with pytest.raises(cv2.error) as e:
            cc.findContoursLinkRuns(np.broadcast_to(np.zeros(1, np.uint8), (2**15, 2**16)))   # no memory
    assert e.value.code == -211 and e.value.func == "findContoursLinkRuns"


class _FailingGpu(kernel_host.HostGpu):
    """HostGpu whose first ``times`` pipeline runs fail as CuPy fails when the GPU is out of memory."""

    def __init__(self, modules, times):
        super().__init__(modules)
        self.times, self.runs = times, 0

    def fn(self, module, name, **kwargs):
        if name == "lr_flags":
            self.runs += 1
            if self.runs <= self.times:
                raise kernel_host.HostOutOfMemory("Out of memory allocating 1,536 bytes (allocated so far: 0 bytes).")
        return super().fn(module, name, **kwargs)


def test_out_of_memory(host_lib):
    # Out of GPU memory: one retry without the cached scratch, then cv2's -4.
    img = nested_blobs(30, 40, 3, 3, 1)
    gpu = _FailingGpu({"linkruns": host_lib}, 1)
    with cc.computing_on(gpu):
        assert_same_contours(cc.findContoursLinkRuns(img), cv2.findContoursLinkRuns(img))
    assert gpu.runs == 2 and gpu.cp.freed == 1
    gpu = _FailingGpu({"linkruns": host_lib}, 2)
    gpu.workspace(_linkruns.FAMILY).bufs["stale"] = object()
    with cc.computing_on(gpu), pytest.raises(cv2.error) as e:
        cc.findContoursLinkRuns(img)
    assert e.value.code == -4 and e.value.err == "Failed to allocate 1536 bytes" and gpu.runs == 2
    assert gpu.cp.freed == 2 and gpu.workspace(_linkruns.FAMILY).bufs == {}
