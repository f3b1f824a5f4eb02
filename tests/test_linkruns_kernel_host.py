"""kernels/contours/linkruns.cu compiled for the host and run against cv2 (no GPU).

The file is plain C++ apart from a few CUDA names; tests/kernel_host.py's prelude maps those to
host C++ and runs every "thread" of a launch in a loop (kernels of one launch never depend on each
other's writes, so any order is a valid schedule). The launch code
itself, cvgpu.contours._linkruns_gpu (argument order and types checked against the kernels'
signatures, grids, scratch, prefix sums, jump rounds), drives them on a numpy stand-in for CuPy,
and the result, assembled as findContoursLinkRuns assembles it, must equal cv2's bit for bit.
What stays for the gpu tests in test_find_contours_linkruns.py: the GPU's own execution (NVRTC
build, memory, CuPy's scans). Skipped without a C++ compiler.
"""
import types

import cv2
import numpy as np
import pytest
from hypothesis import given, strategies as st

import kernel_host
from cvgpu import contours as cc
from test_contours_model import assert_same_contours, border_shapes, checkerboard, lines, nested_blobs, salt_pepper

@pytest.fixture(scope="module")
def host_lib(tmp_path_factory):
    return kernel_host.build(tmp_path_factory, "linkruns")


class _OutOfMemory(Exception):
    pass


class _HostCupy(kernel_host.HostCupy):
    """The few CuPy calls cvgpu.contours._linkruns_gpu makes, on the host."""
    cuda = types.SimpleNamespace(memory=types.SimpleNamespace(OutOfMemoryError=_OutOfMemory), **kernel_host.HOST_CUDA)
    freed = 0

    @classmethod
    def get_default_memory_pool(cls):
        def free_all_blocks():
            cls.freed += 1
        return types.SimpleNamespace(free_all_blocks=free_all_blocks)


@pytest.fixture
def host_run(host_lib, monkeypatch):
    assert set(host_lib.sig) == {"lr_flags", "lr_runs", "lr_link", "lr_jump", "lr_heads", "lr_offsets", "lr_emit"}
    monkeypatch.setattr(cc, "_fn", host_lib.launcher)
    monkeypatch.setattr(cc, "_OFFSETS_SCAN_MAX", -1)   # a block-level kernel: CuPy's cumsum here
    hcp = _HostCupy()
    spaces = {}
    monkeypatch.setattr(cc._kernels, "thread_workspace",
                        lambda family, make: spaces.setdefault(family, make()))

    def run(img, grouped=False):
        arr = np.asarray(img)
        arr = arr.reshape(arr.shape[0], arr.shape[1]) if arr.ndim == 3 else arr
        points, offsets, layout, hier = cc._linkruns_gpu(hcp, arr.view(np.uint8), grouped=grouped)
        if offsets is None:
            return cc.assemble_grouped(points.get(), layout[0], layout[1], hier.get())
        assert np.array_equal(layout, offsets.get())
        return cc.assemble(points.get(), layout, hier.get())
    return run


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
    if family == "salt":
        img = salt_pepper(h, w, (p % 101) / 100, seed)
    elif family == "lines":
        img = lines(h, w, 1 + p % 8, seed)
    elif family == "checker":
        img = checkerboard(h, w, 1 + p % 5, 1 + (p // 5) % 5, p % 3, p % 4, bool(p & 1))
    elif family == "border":
        img = border_shapes(h, w, 1 + p % 6, seed)
    else:
        img = np.full((h, w), p % 256, np.uint8)
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
    check(host_run, cc.worst_snake(128, 128))
    check(host_run, cc.blobs_image(257, 308, seed=1, noise=0.01))
    check(host_run, (np.random.default_rng(0).random((200, 200)) < 0.5).astype(np.uint8))


@pytest.mark.parametrize("host_sort_max", [1 << 62, 0])
@pytest.mark.parametrize("grouped_min", [1, 50])
def test_length_grouped_layout(host_run, monkeypatch, grouped_min, host_sort_max):
    monkeypatch.setattr(cc, "_HOST_SORT_MAX", host_sort_max)
    # The numpy path's layout by (length, index) for many contours (cut to a small threshold here).
    monkeypatch.setattr(cc, "_GROUPED_MIN", grouped_min)
    for seed in range(3):
        check(host_run, nested_blobs(70, 90, 5, 4, seed) | salt_pepper(70, 90, 0.2, seed), grouped=True)
    check(host_run, np.ones((1, 1), np.uint8), grouped=True)


def test_grid_stride_loops(host_run, monkeypatch):
    # A grid capped below the element count: every thread walks several elements (as on the GPU
    # past _grid's cap).
    monkeypatch.setattr(cc, "_grid", lambda n: (max(1, min(-(-n // cc._BLOCK), 2)),))
    monkeypatch.setattr(cc, "_BLOCK", 3)
    for seed in range(3):
        check(host_run, nested_blobs(50, 61, 5, 4, seed) | salt_pepper(50, 61, 0.1, seed))


@pytest.mark.parametrize("grouped_min", [1, 16384])
def test_public_function_numpy_path(host_run, monkeypatch, grouped_min):
    # cvgpu.findContoursLinkRuns itself (argument layer, layout choice, host-built hierarchy,
    # assembly) on the host kernels.
    monkeypatch.setattr(cc._backend, "cupy_module", lambda: _HostCupy())
    monkeypatch.setattr(cc, "_GROUPED_MIN", grouped_min)
    rng = np.random.default_rng(3)
    for it in range(8):
        h, w = (int(v) for v in rng.integers(1, 50, 2))
        img = nested_blobs(h, w, 1 + it % 4, 1 + it % 3, it) | salt_pepper(h, w, 0.15 * (it % 3), it)
        for arg in (img, img.view(np.int8), img[:, :, None], img[::-1, ::2]):
            ref = cv2.findContoursLinkRuns(arg)
            ours = cc.findContoursLinkRuns(image=arg)
            assert cc._backend.last_call_backend() == "cuda"
            assert_same_contours(ours, ref)
    assert cc.findContoursLinkRuns(np.zeros((3, 4), np.uint8)) == ((), None)


def test_size_limit_and_out_of_memory(host_run, monkeypatch):
    # Beyond the int32 node indices: cv2.error -211 before the GPU is touched (as findContours).
    # Out of GPU memory: one retry without the cached scratch, then cv2's -4.
    monkeypatch.setattr(cc._backend, "cupy_module", lambda: _HostCupy())
    img = nested_blobs(30, 40, 3, 3, 1)
    monkeypatch.setattr(cc, "_LR_MAX_NODES", 30 * 41)
    with pytest.raises(cv2.error) as e:
        cc.findContoursLinkRuns(img)
    assert e.value.code == -211 and e.value.func == "findContoursLinkRuns"
    monkeypatch.setattr(cc, "_LR_MAX_NODES", 30 * 41 + 1)
    assert_same_contours(cc.findContoursLinkRuns(img), cv2.findContoursLinkRuns(img))

    real = cc._linkruns_gpu
    calls = []

    def failing(times):
        def run(cp, arr, grouped=False):
            calls.append(1)
            if len(calls) <= times:
                raise _OutOfMemory("Out of memory allocating 1,536 bytes (allocated so far: 0 bytes).")
            return real(cp, arr, grouped=grouped)
        return run
    monkeypatch.setattr(cc, "_linkruns_gpu", failing(1))
    _HostCupy.freed = 0
    assert_same_contours(cc.findContoursLinkRuns(img), cv2.findContoursLinkRuns(img))
    assert len(calls) == 2 and _HostCupy.freed == 1
    calls.clear()
    monkeypatch.setattr(cc, "_linkruns_gpu", failing(2))
    with pytest.raises(cv2.error) as e:
        cc.findContoursLinkRuns(img)
    assert e.value.code == -4 and e.value.err == "Failed to allocate 1536 bytes" and len(calls) == 2
