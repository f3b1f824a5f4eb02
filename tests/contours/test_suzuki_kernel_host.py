"""The 8-bit pipeline (cvgpu.contours._suzuki.gpu_contours, and findContours / findContoursPacked
around it) with kernels/contours/suzuki.cu, ranking.cu and tc89.cu compiled for the host, against
cv2 (no GPU).

Every kernel runs from its host build (tests/contours/kernel_host.py) except the two that need a block's
threads together: ccl_finish and scatter_flags are stood in for by numpy (the compressed labels,
the start and border-pixel flags, their ordered compaction: what the kernels write). pad_init runs
with an emulated ballot (kernel_host.build_suzuki). The block-level and cooperative paths are forced
off (TUNING, HostGpu): external_select, tree_sort_small, offsets_scan, rank_jump_shared and
rank_jump_inplace stay for the gpu tests (tests/contours/test_find_contours.py). What runs here is the launch
code itself: argument order and types checked against the kernels' signatures, grids, scratch,
both walk rankings, the layouts, the host upload as bits, TC89 on top. Skipped without a C++
compiler.
"""
import cv2

from cvgpu import _versions
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import kernel_host
from contours_forcing import forcing
from cvgpu import contours as cc
from cvgpu.bench.contours import blobs_image, worst_snake
from cvgpu.contours import _suzuki
from test_contours_model import assert_same_contours, family_image, nested_blobs, salt_pepper

MODES = [cv2.RETR_EXTERNAL, cv2.RETR_LIST, cv2.RETR_CCOMP, cv2.RETR_TREE]
LEGACY_L1 = _versions.behaviour("contours.tc89_l1") == "legacy"
METHODS = [cv2.CHAIN_APPROX_NONE, cv2.CHAIN_APPROX_SIMPLE, cv2.CHAIN_APPROX_TC89_L1, cv2.CHAIN_APPROX_TC89_KCOS]


def ccl_finish(grid, block, args, shared_mem=0):
    """What ccl_finish writes: labels compressed to their roots, fl (bit 0: a border starts, bit 1:
    a border pixel), the per-tile (starts << 32 | border pixels) offsets and their total."""
    f, w2, n, L, fl, blk, offs, counter, total = args
    n, w2 = int(n), int(w2)
    lab = L[:n]
    while True:
        up = lab[lab]
        if np.array_equal(up, lab):
            break
        lab[...] = up
    fg = np.asarray(f[:n]) != 0
    idx = np.arange(n)
    bg_root_right = np.zeros(n, bool)
    bg_root_right[:-1] = (np.asarray(f[1:n]) == 0) & (lab[1:] == idx[1:])
    starts = fg & ((lab == idx) | bg_root_right)
    zero_nb = np.zeros(n, bool)
    for d in (-w2 - 1, -w2, -w2 + 1, -1, 1, w2 - 1, w2, w2 + 1):
        zero_nb |= np.roll(fg, -d) == 0      # foreground pixels never touch the frame: no wrap
    r = starts.astype(np.uint8) | (2 * (fg & zero_nb)).astype(np.uint8)
    fl[:n] = r
    nb = grid[0]
    tiles = np.zeros(nb * 1024, np.uint64)
    tiles[:n] = ((r & 1).astype(np.uint64) << np.uint64(32)) | (r >> 1).astype(np.uint64)
    per = tiles.reshape(nb, 1024).sum(axis=1, dtype=np.uint64)
    offs[:nb] = np.concatenate(([0], np.cumsum(per, dtype=np.uint64)[:-1])).astype(np.uint64)
    total[0] = per.sum(dtype=np.uint64)


def scatter_flags(grid, block, args, shared_mem=0):
    """What scatter_flags writes: the starts and border pixels compacted in raster order, the hole
    flags, component root -> border, border pixel -> its index."""
    fl, n, offs, L, starts, hole, bid, bpix, pmap = args
    r = np.asarray(fl[:int(n)])
    s = np.flatnonzero(r & 1)
    starts[:s.size] = s
    h = L[s] != s
    hole[:s.size] = h
    bid[np.where(h, s + 1, s)] = np.arange(s.size)
    e = np.flatnonzero(r & 2)
    bpix[:e.size] = e
    pmap[e] = np.arange(e.size)


class SuzukiHostGpu(kernel_host.HostGpu):
    """HostGpu with suzuki.cu's pad_init run through run_pad and its two block-level kernels in numpy."""

    def fn(self, module, name, **kwargs):
        if (module, name) == ("suzuki", "ccl_finish"):
            return ccl_finish
        if (module, name) == ("suzuki", "scatter_flags"):
            return scatter_flags
        if (module, name) in (("suzuki", "pad_init"), ("suzuki", "pad_init_bits"), ("suzuki", "pad_init_rows")):
            return self._pad({"pad_init": 0, "pad_init_bits": 1, "pad_init_rows": 2}[name])
        return super().fn(module, name, **kwargs)

    def _pad(self, bits):
        lib = self.modules["suzuki"].lib

        def launch(grid, block, args, shared_mem=0):
            src, pitch, h, w, n, f, L = args
            pred = np.zeros(int(n) + block[0] + 64, np.uint8)
            lib.run_pad(src.ctypes.data, int(pitch), int(h), int(w), int(n), f.ctypes.data, L.ctypes.data,
                        pred.ctypes.data, grid[0], block[0], 0, grid[0], int(bits))
        return launch


@pytest.fixture(scope="module")
def host_modules(tmp_path_factory):
    modules = {m: kernel_host.build(tmp_path_factory, m) for m in ("ranking", "tc89")}
    modules["suzuki"] = kernel_host.build_suzuki(tmp_path_factory)
    return modules


@pytest.fixture
def host_gpu(host_modules):
    # No block-level kernel on the host: RETR_EXTERNAL selected by flatnonzero, the tree order
    # sorted by argsort, the offsets by cumsum, every list ranked one launch a round (HostGpu).
    with forcing("jump_launches", "offsets_cumsum", device_select_max=-1, tree_sort_small_max=-1,
                 offsets_scan_max=-1):
        yield SuzukiHostGpu(host_modules)


def check(gpu, img, modes=MODES, methods=METHODS, offset=(0, 0)):
    """findContours (numpy in: the bits upload and the numpy layouts) and gpu_contours on a device
    image (HostArray: bytes, output order) against cv2, for every mode and method."""
    keep = img.copy()
    for mode in modes:
        for method in methods:
            ref = cv2.findContours(img, mode, method, offset=offset)
            with cc.computing_on(gpu):
                ours = cc.findContours(img, mode, method, offset=offset)
            assert_same_contours(ours, ref)
            if LEGACY_L1 and method == cv2.CHAIN_APPROX_TC89_L1:
                # Before 4.10 cv2's TC89_L1 is the legacy code's, not the kernels' (_versions: contours.tc89_l1).
                assert cc._backend.last_call_backend() == "cv2"
                continue
            assert cc._backend.last_call_backend() == "cuda"
            pts, off, _, hier = _suzuki.gpu_contours(gpu, kernel_host.host(img), mode, method, *offset)
            assert_same_contours(cc.assemble(np.asarray(pts), np.asarray(off), np.asarray(hier)), ref)
    assert np.array_equal(img, keep)


# host_gpu holds the forced tuning for all of the property's examples and checks, when the property
# ends, that the forced paths ran during them: a fixture spanning the examples is what it is for.
SPANS_EXAMPLES = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


@SPANS_EXAMPLES
@given(h=st.integers(1, 40), w=st.integers(1, 40), n=st.integers(1, 5), depth=st.integers(1, 4),
       seed=st.integers(0, 2**32 - 1), noise=st.floats(0, 0.3),
       offset=st.tuples(st.integers(-5000, 5000), st.integers(-5000, 5000)), method=st.sampled_from(METHODS))
def test_blobs_with_noise(host_gpu, h, w, n, depth, seed, noise, offset, method):
    check(host_gpu, nested_blobs(h, w, n, depth, seed) | salt_pepper(h, w, noise, seed), methods=[method],
          offset=offset)


@SPANS_EXAMPLES
@given(family=st.sampled_from(["salt", "lines", "checker", "border", "full"]), h=st.integers(1, 32),
       w=st.integers(1, 32), seed=st.integers(0, 2**32 - 1), p=st.integers(0, 1000))
def test_other_families(host_gpu, family, h, w, seed, p):
    check(host_gpu, family_image(family, h, w, seed, p), methods=METHODS[p % 4:p % 4 + 1])


@pytest.mark.parametrize("ranking,path", [(0, "rulers"), (1 << 62, "jump_slots")])
def test_both_walk_rankings(host_gpu, ranking, path):
    # Rulers (every ruler walking its sublist, the rulers ranked) and jumping over every slot, each
    # forced on the same images: thick strokes (many dropped arrivals), a long serpentine.
    with forcing(path, "tree_argsort", "external_flatnonzero", ruler_min_slots=ranking):
        for img in (blobs_image(60, 80, seed=1, noise=0.01), worst_snake(24, 31), np.ones((5, 7), np.uint8)):
            check(host_gpu, img, methods=METHODS[:2])


@pytest.mark.parametrize("host_sort_max,sort", [(1 << 62, "host_sort"), (0, "device_sort")])
def test_numpy_layout_by_length(host_gpu, host_sort_max, sort):
    # The numpy path's layout by contour length (from one contour on here), sorted on the host or on
    # the device; TC89 keeps output order.
    with forcing("grouped", sort, "runs_long", "runs_short", grouped_min=1, host_sort_max=host_sort_max, run_min=3):
        for seed in range(3):
            check(host_gpu, nested_blobs(50, 60, 5, 4, seed) | salt_pepper(50, 60, 0.1, seed), methods=METHODS[:2])


def test_upload_bands_and_grid_stride(host_modules):
    # Host images packed to bits in bands on several threads, and pixel grids capped below the
    # pixel count (every thread of pad_init / ccl_union walks several pixels).
    gpu = SuzukiHostGpu(host_modules, grid_cap=2)
    with forcing("upload_bands", "grid_capped", "offsets_cumsum", device_select_max=-1, tree_sort_small_max=-1,
                 offsets_scan_max=-1, upload_band=1000, upload_threads=3):
        check(gpu, nested_blobs(70, 90, 5, 4, 2) | salt_pepper(70, 90, 0.05, 2), methods=METHODS[1:2])


def test_upload_through_the_c_helper(host_gpu, tmp_path, monkeypatch):
    # Where cvgpu._native's helpers load, host images go up as hostcall.c's bit rows (packed by the
    # C code, on several threads for large images) and pad_init_rows reads them: widths around the
    # 16-pixel words, a strided view, one row, one column, a flipped view.
    from cvgpu import _native
    helpers = kernel_host.native_host_helpers(tmp_path)
    if helpers is None:
        pytest.skip("no host-helper library for this platform")
    monkeypatch.setattr(_native, "helpers", lambda: helpers)
    base = nested_blobs(45, 70, 5, 4, 3) | salt_pepper(45, 70, 0.08, 3)
    with forcing("upload_rows"):
        for img in (base, base[:, :15], base[:, :16], base[:, :17], base[:, 1:34], base[:, ::2], base[7:8],
                    base[:, 9:10], base[::-1]):
            check(host_gpu, img, methods=METHODS[:2])
    helpers.lib.cvg_set_pack_threads(4)
    big = blobs_image(1200, 1000, seed=4, noise=0.02)   # 1.2 MB: bands on threads
    with forcing("upload_rows"):
        check(host_gpu, big, modes=[cv2.RETR_TREE], methods=METHODS[1:2])


def test_packed_form(host_gpu):
    img = nested_blobs(40, 50, 4, 4, 7) | salt_pepper(40, 50, 0.05, 7)
    with cc.computing_on(host_gpu):
        for mode in MODES:
            for method in METHODS:
                ref = cc.pack(*cv2.findContours(img, mode, method, offset=(3, -2)))
                got = cc.findContoursPacked(img, mode, method, (3, -2))
                assert all(type(a) is np.ndarray and a.dtype == r.dtype and np.array_equal(a, r)
                           for a, r in zip(got, ref))
