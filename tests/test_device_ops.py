"""cvgpu._device_ops (kernels/device_ops.cu): every operation against what the CuPy or numpy
operation it replaces gives, bit for bit.

CPU: kernels/device_ops.cu built for the host (tests/contours/kernel_host.py's prelude; kernels
whose threads are independent), driven by the real DeviceOps code (dimension merging, alignment,
memcpy / memcpy2D paths) on numpy stand-ins, against tests/device_ops_host.py's HostOps (the
numpy versions the contours host tests use). GPU: every operation, the scans and reductions
included, against numpy and CuPy's own operation on the device."""
import ctypes
import os
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "contours"))

import kernel_host  # noqa: E402
from device_ops_host import HostOps  # noqa: E402
from cvgpu import _device_ops  # noqa: E402
from cvgpu._kernels import kernel_source  # noqa: E402

CAST_DTYPES = [np.bool_, np.uint8, np.int8, np.uint16, np.int16, np.uint32, np.int32, np.uint64, np.int64,
               np.float16, np.float32, np.float64]


def special_values(dtype, n, rng):
    """n values of dtype with its extremes (and, for floats, infinities, NaNs, subnormals, -0)."""
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, n).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, n, dtype=dtype, endpoint=True)
        v[:4] = [info.min, info.max, 0, 1]
        return v
    info = np.finfo(dtype)
    with np.errstate(over="ignore"):   # beyond the type's range: infinities, as wanted
        v = (rng.standard_normal(n) * rng.choice([1e-40, 1e-8, 1.0, 3e5, 1e30, 1e300], n)).astype(dtype)
        extra = [np.inf, -np.inf, np.nan, -0.0, info.tiny, info.tiny / 4, info.max, -info.max,
                 np.float64(np.finfo(np.float32).max) * 1.5, 1 + 2.0 ** -30]
        v[:len(extra)] = np.array(extra, dtype=np.float64).astype(dtype)
    return v


def layouts(a):
    """Views of the C-contiguous 3-D array a with every kind of stride the operations meet."""
    yield "contiguous", a
    yield "pitched rows", a[:, 1:-1]
    yield "flipped rows", a[::-1]
    yield "flipped columns", a[:, ::-1]
    yield "step", a[::2, ::3]
    yield "transposed", a.transpose(1, 0, 2)
    yield "channel", a[:, :, 1]
    yield "one row", a[3:4, 2:]


# ---------------------------------------------------------------- CPU: the host build

POINTEES = {"char": None, "unsigned char": np.uint8, "u8": np.uint8, "unsigned short": np.uint16,
            "unsigned int": np.uint32, "unsigned long long": np.uint64, "int": np.int32, "long long": np.int64,
            "float": np.float32, "double": np.float64}
PITCHED = {"dops_any_nonzero_u8_2d", "dops_fill_rows"}
SCALARS = {"long long": ctypes.c_int64, "int": ctypes.c_int32, "unsigned": ctypes.c_uint32}


class _HostKernels:
    """kernels/device_ops.cu built for the host: ``fn(name)`` as a cupy.RawKernel."""

    def __init__(self, path, sig):
        self.lib, self.sig = ctypes.CDLL(str(path)), sig

    def fn(self, name):
        run = getattr(self.lib, "run_" + name)
        run.restype = None
        params = self.sig[name]

        def launch(grid, block, args, shared_mem=0):
            assert len(args) == len(params), (name, params)
            cargs = []
            for (kind, pname), a in zip(params, args):
                if kind.endswith("*"):
                    if isinstance(a, np.uint64):            # a raw address
                        assert POINTEES[kind[:-1].strip()] is None, (name, pname)
                        cargs.append(ctypes.c_void_p(int(a)))
                        continue
                    # (The kernels given a row pitch read a pitched 2-D array from its first element.)
                    assert isinstance(a, np.ndarray) and (a.flags.c_contiguous or name in PITCHED), (name, pname)
                    want = np.dtype(POINTEES[kind[:-1].strip()])
                    # The raw copies move elements of any type of their size (bytes: of any size).
                    same = a.dtype == want
                    if name.startswith("dops_copy_strided"):
                        same = name.endswith("_1") or a.dtype.itemsize == want.itemsize
                    same = same or (name, pname) == ("dops_fill_rows", "dst")   # bytes of any type
                    assert same, (name, pname, a.dtype)
                    cargs.append(ctypes.c_void_p(a.ctypes.data))
                else:
                    assert type(a) is {"long long": np.int64, "int": np.int32, "unsigned": np.uint32}[kind], \
                        (name, pname, type(a))
                    cargs.append(SCALARS[kind](int(a)))
            run(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), *cargs)
        return launch


class _OpsCupy(kernel_host.HostCupy):
    """kernel_host's numpy CuPy with the runtime calls DeviceOps makes."""

    def __init__(self):
        super().__init__()
        rt = types.SimpleNamespace(**vars(kernel_host.HostCupy.cuda.runtime))
        rt.memcpyDeviceToDevice = 3

        def memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream):
            for r in range(height):
                ctypes.memmove(dst + r * dpitch, src + r * spitch, width)
        rt.memcpy2DAsync = memcpy2d
        self.cuda = types.SimpleNamespace(**vars(kernel_host.HostCupy.cuda))
        self.cuda.runtime = rt
        self.memcpy2d_calls = 0


@pytest.fixture(scope="module")
def host_ops(tmp_path_factory):
    """DeviceOps on the host: its Python code with the host build of its kernels."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler for the host build of kernels/device_ops.cu")
    src = kernel_source("device_ops")
    src = src[src.index('#line 1 "device_ops.cu"'):]
    # (Kernels declared with __launch_bounds__(SCAN_THREADS) work as a block: not built.)
    sig = {k: v for k, v in kernel_host.signatures(src).items() if k.startswith("dops_")}
    d = tmp_path_factory.mktemp("device_ops_host")
    cpp, so = d / "device_ops.cpp", d / "device_ops.so"
    cpp.write_text(kernel_host.PRELUDE + src + "\n" + kernel_host._runners(sig) + "\n")
    subprocess.run([cxx, "-O1", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o", str(so), str(cpp)],
                   check=True, capture_output=True)
    kernels = _HostKernels(so, sig)
    ops = _device_ops.DeviceOps(_OpsCupy())
    ops.fn = kernels.fn
    return ops


def dev(a):
    return kernel_host.host(a)


def test_host_build_has_the_elementwise_kernels(host_ops):
    names = set(host_ops.fn.__self__.sig)
    assert {"dops_copy_strided_1", "dops_copy_strided_8", "dops_f32_from_f16", "dops_gather_i32_by_i64",
            "dops_scatter_iota_i32", "dops_fill_rows", "dops_any_nonzero_u8_2d"} <= names


@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32, np.float64, np.complex128])
def test_contiguous_copies_every_layout(host_ops, dtype):
    rng = np.random.default_rng(1)
    base = rng.integers(0, 200, (9, 7, 3)).astype(dtype)
    for name, view in layouts(base):
        got = host_ops.contiguous(dev(view))
        assert got.flags.c_contiguous and got.dtype == view.dtype, name
        assert np.array_equal(np.asarray(got), view), name
        assert (got is not None) and (np.asarray(host_ops.copy(dev(view))) == view).all(), name
        assert np.array_equal(host_ops.to_host(dev(view)), view), name


def test_contiguous_returns_contiguous_input_itself(host_ops):
    a = dev(np.arange(12, dtype=np.int32).reshape(3, 4))
    assert host_ops.contiguous(a) is a


def test_unaligned_elements_are_copied_by_byte(host_ops):
    raw = np.arange(64, dtype=np.uint8)
    view = np.ndarray((3, 4), np.int32, buffer=raw, offset=1, strides=(20, 4))   # unaligned int32
    assert view.ctypes.data % 4
    got = host_ops.contiguous(dev(view))
    assert np.array_equal(np.asarray(got), view)


@pytest.mark.parametrize("dtype", CAST_DTYPES)
def test_float32_casts_match_numpy(host_ops, dtype):
    rng = np.random.default_rng(2)
    base = special_values(dtype, 9 * 7 * 3, rng).reshape(9, 7, 3)
    ref = HostOps(None)
    for name, view in layouts(base):
        got = np.asarray(host_ops.contiguous(dev(view), np.float32))
        with np.errstate(over="ignore"):
            want = np.asarray(view).astype(np.float32)
        assert got.dtype == np.float32 and got.tobytes() == want.tobytes(), name
        out = dev(np.zeros(view.shape, np.float32))
        assert ref.contiguous(view, np.float32, out=out) is out and out.tobytes() == want.tobytes(), name


def test_elementwise_operations_match_host_ops(host_ops):
    rng = np.random.default_rng(3)
    ref = HostOps(host_ops.cp)
    src = dev(rng.integers(-1000, 1000, 300).astype(np.int32))
    idx32 = dev(rng.permutation(300)[:120].astype(np.int32))
    idx64 = dev(rng.permutation(300)[:150].astype(np.int64))
    for got, want in [
        (host_ops.gather(src, idx32), ref.gather(src, idx32)),
        (host_ops.gather(src, idx64), ref.gather(src, idx64)),
        (host_ops.iota_i64(77), ref.iota_i64(77)),
        (host_ops.full_i32(33, 0x7FFFFFFF), ref.full_i32(33, 0x7FFFFFFF)),
        (host_ops.full_i32(33, -1), ref.full_i32(33, -1)),
        (host_ops.i32_from_i64(dev(np.array([2 ** 40 + 5, -3, 2 ** 31], np.int64))),
         ref.i32_from_i64(np.array([2 ** 40 + 5, -3, 2 ** 31], np.int64))),
        (host_ops.lengths(dev(np.array([0, 3, 3, 10, 2 ** 33], np.int64))),
         ref.lengths(np.array([0, 3, 3, 10, 2 ** 33], np.int64))),
        (host_ops.swap_halves(dev(np.array([1, 2 ** 63 + 7, 0xDEADBEEF12345678], np.uint64))),
         ref.swap_halves(np.array([1, 2 ** 63 + 7, 0xDEADBEEF12345678], np.uint64))),
    ]:
        assert got.dtype == want.dtype and np.array_equal(np.asarray(got), np.asarray(want))
    out_a, out_b = dev(np.full(300, -5, np.int32)), dev(np.full(300, -5, np.int32))
    host_ops.scatter_iota(idx32, out_a)
    ref.scatter_iota(idx32, out_b)
    assert np.array_equal(out_a, out_b)
    vals = dev(rng.integers(-2 ** 40, 2 ** 40, 150).astype(np.int64))
    out_a, out_b = dev(np.zeros(300, np.int64)), dev(np.zeros(300, np.int64))
    host_ops.scatter(vals, idx64, out_a)
    ref.scatter(vals, idx64, out_b)
    assert np.array_equal(out_a, out_b)
    a = dev(rng.integers(0, 5, 50).astype(np.int32))
    for b in (a.copy(), dev(np.where(np.arange(50) == 31, 9, a).astype(np.int32))):
        assert int(host_ops.any_differ(a, dev(b))[0]) == int(ref.any_differ(a, b)[0])
    for v in (-2, 0, 4, 7):
        assert int(host_ops.any_equal(a, v)[0]) == int(ref.any_equal(a, v)[0])
    img = np.zeros((6, 9), np.uint8)
    assert int(host_ops.any_nonzero_2d(dev(img)[:, 1:])[0]) == 0
    img[5, 8] = 3
    assert int(host_ops.any_nonzero_2d(dev(img)[:, 1:])[0]) == 1
    assert int(host_ops.any_nonzero_2d(dev(img)[:5, :])[0]) == 0


@pytest.mark.parametrize("shape, dtype", [((5, 7, 3), np.uint8), ((4, 6, 4), np.float32), ((3, 5, 2), np.float64)])
def test_fill_rows_sets_every_element(host_ops, shape, dtype):
    big = np.zeros((shape[0] * 2, shape[1] + 3, shape[2]), dtype)
    view = big[::2, 1:1 + shape[1]]                    # pitched rows, one element apart
    pattern = (np.arange(shape[2]) * 7 + 1).astype(dtype)
    host_ops.fill_rows(dev(big)[::2, 1:1 + shape[1]], pattern)
    want = np.zeros_like(big)
    want[::2, 1:1 + shape[1]] = pattern
    assert np.array_equal(big, want)
    assert (view == pattern).all()


def test_download_reads_every_array(host_ops):
    arrays = [dev(np.arange(5, dtype=np.int64)), dev(np.arange(12, dtype=np.int32).reshape(3, 4)),
              dev(np.zeros(0, np.int32)), dev(np.array([7], np.uint32)), dev(np.arange(20, dtype=np.int32))[::3]]
    got = host_ops.download(*arrays)
    for g, a in zip(got, arrays):
        assert g.dtype == a.dtype and g.shape == a.shape and np.array_equal(g, np.asarray(a))


# ---------------------------------------------------------------- GPU: every operation

def _cupy():
    import cupy
    return cupy


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 5, 4095, 4096, 4097, 3 * 4096 + 7, 4096 * 4096 + 13])
def test_scans_match_cumsum(n):
    cp = _cupy()
    ops = _device_ops.ops(cp)
    rng = np.random.default_rng(n)
    u8 = rng.integers(0, 256, n).astype(np.uint8)
    i32 = rng.integers(-3, 1000, n).astype(np.int32)
    for src, dtype in ((u8, np.int32), (i32, np.int32), (i32, np.int64)):
        out = cp.empty(n, dtype=dtype)
        ops.inclusive_scan(cp.asarray(src), out)
        assert np.array_equal(out.get(), np.cumsum(src, dtype=np.int64).astype(dtype))
    off = ops.offsets(cp.asarray(i32)).get()
    assert off.dtype == np.int64 and off[0] == 0 and np.array_equal(off[1:], np.cumsum(i32, dtype=np.int64))
    big = np.full(n, 2 ** 30, np.int32)                  # int32 sums wrap as CuPy's cumsum into int32
    out = cp.empty(n, dtype=cp.int32)
    ops.inclusive_scan(cp.asarray(big), out)
    assert np.array_equal(out.get(), np.cumsum(big, dtype=np.int64).astype(np.int32))


@pytest.mark.gpu
@pytest.mark.parametrize("n", [1, 4096, 4097, 50_000, 4096 * 4096 + 13])
def test_select_matches_flatnonzero(n):
    cp = _cupy()
    ops = _device_ops.ops(cp)
    rng = np.random.default_rng(n)
    fl = rng.integers(0, 4, n).astype(np.uint8)
    t = rng.choice(np.array([5, 0x7FFFFFFF, -4], np.int32), n)
    a, b, c, d = ops.select(("mask", cp.asarray(fl), 1, np.int32), ("mask", cp.asarray(fl), 2, np.int64),
                            ("below", cp.asarray(t), 0x7FFFFFFF, np.int32), ("mask", cp.asarray(fl), 0xFF, np.int64))
    assert a.dtype == np.int32 and np.array_equal(a.get(), np.flatnonzero(fl & 1))
    assert b.dtype == np.int64 and np.array_equal(b.get(), np.flatnonzero(fl & 2))
    assert np.array_equal(c.get(), np.flatnonzero(t < 0x7FFFFFFF))
    assert np.array_equal(d.get(), np.flatnonzero(fl))
    none, = ops.select(("mask", cp.zeros(n, cp.uint8), 1, np.int32))
    assert none.size == 0


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.uint8, np.int16, np.int32, np.float32, np.float64, np.complex128])
def test_contiguous_matches_cupy(dtype):
    cp = _cupy()
    ops = _device_ops.ops(cp)
    base = cp.asarray(np.random.default_rng(4).integers(0, 200, (90, 70, 3)).astype(dtype))
    for name, view in layouts(base):
        got = ops.contiguous(view)
        assert got.flags.c_contiguous and got.dtype == view.dtype, name
        assert np.array_equal(got.get(), cp.ascontiguousarray(view).get()), name
        assert np.array_equal(ops.to_host(view), cp.ascontiguousarray(view).get()), name


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", CAST_DTYPES)
def test_gpu_float32_casts_match_numpy(dtype):
    # The reference is numpy's (and cv2's) cast on the host: CuPy's astype flushes float32 subnormals made
    # from float64 to zero (seen on the H100 with CuPy 14), the host keeps them.
    cp = _cupy()
    ops = _device_ops.ops(cp)
    base = cp.asarray(special_values(dtype, 90 * 70 * 3, np.random.default_rng(5)).reshape(90, 70, 3))
    for name, view in layouts(base):
        got = ops.contiguous(view, np.float32).get()
        with np.errstate(over="ignore", invalid="ignore"):
            want = view.get().astype(np.float32)
        assert got.tobytes() == want.tobytes(), name


@pytest.mark.gpu
def test_elementwise_and_sorts_match_cupy():
    cp = _cupy()
    ops = _device_ops.ops(cp)
    rng = np.random.default_rng(6)
    n = 100_003
    src = rng.integers(-1000, 1000, n).astype(np.int32)
    perm = rng.permutation(n)
    d_src = cp.asarray(src)
    assert np.array_equal(ops.gather(d_src, cp.asarray(perm[:5000].astype(np.int32))).get(), src[perm[:5000]])
    assert np.array_equal(ops.gather(d_src, cp.asarray(perm[:5000])).get(), src[perm[:5000]])
    assert np.array_equal(ops.iota_i64(n).get(), np.arange(n))
    assert np.array_equal(ops.full_i32(n, 0x7FFFFFFF).get(), np.full(n, 0x7FFFFFFF, np.int32))
    t = cp.zeros(n, cp.int32)
    ops.fill_i32(t, 1)
    assert (t.get() == 1).all()
    out = cp.full(n, -9, cp.int32)
    ops.scatter_iota(cp.asarray(perm.astype(np.int32)), out)
    want = np.empty(n, np.int32)
    want[perm] = np.arange(n)
    assert np.array_equal(out.get(), want)
    vals = rng.integers(-2 ** 40, 2 ** 40, n)
    out = cp.zeros(n, cp.int64)
    ops.scatter(cp.asarray(vals), cp.asarray(perm), out)
    want = np.empty(n, np.int64)
    want[perm] = vals
    assert np.array_equal(out.get(), want)
    big = rng.integers(-2 ** 62, 2 ** 62, n)
    assert np.array_equal(ops.i32_from_i64(cp.asarray(big)).get(), big.astype(np.int32))
    off = np.cumsum(rng.integers(0, 50, n))
    assert np.array_equal(ops.lengths(cp.asarray(off)).get(), np.diff(off).astype(np.int32))
    keys = rng.integers(0, 2 ** 63, n, dtype=np.uint64) | np.uint64(1)
    sw = ops.swap_halves(cp.asarray(keys)).get()
    assert np.array_equal(sw, (keys << np.uint64(32)) | (keys >> np.uint64(32)))
    a = cp.asarray(rng.integers(0, 4, n).astype(np.int32))
    assert int(ops.any_differ(a, a.copy()).get()[0]) == 0
    b = a.copy()
    b[n - 1] += 1
    assert int(ops.any_differ(a, b).get()[0]) == 1
    assert int(ops.any_equal(a, 3).get()[0]) == 1 and int(ops.any_equal(a, 9).get()[0]) == 0
    img = cp.zeros((300, 500), cp.uint8)
    assert int(ops.any_nonzero_2d(img[:, 1:]).get()[0]) == 0
    img[299, 499] = 1
    assert int(ops.any_nonzero_2d(img[:, 1:]).get()[0]) == 1
    for dtype in (np.int32, np.float64):
        for size in (1, 255, 256, 257, 1_000_003):
            x = cp.asarray((rng.standard_normal(size) * 1e6).astype(dtype))
            mm = ops.minmax(x).get()
            assert mm[0] == x.min().get() and mm[1] == x.max().get()
    for dtype in (np.uint16, np.uint32, np.int32, np.uint64):
        k = cp.asarray(rng.integers(0, 50, n).astype(dtype))
        keep = k.copy()
        assert np.array_equal(ops.argsort(k).get(), cp.argsort(k).get())
        assert np.array_equal(ops.sort(k).get(), cp.sort(k).get())
        assert np.array_equal(k.get(), keep.get())      # the input is left as it was


@pytest.mark.gpu
def test_fill_rows_and_download_match_numpy():
    cp = _cupy()
    ops = _device_ops.ops(cp)
    for dtype in (np.uint8, np.uint16, np.float32, np.float64):
        big = cp.zeros((40, 33, 4), dtype)
        view = big[::2, 1:30]
        pattern = (np.arange(4) * 3 + 1).astype(dtype)
        ops.fill_rows(view, pattern)
        want = np.zeros((40, 33, 4), dtype)
        want[::2, 1:30] = pattern
        assert np.array_equal(big.get(), want)
    arrays = [cp.arange(5, dtype=cp.int64), cp.arange(12, dtype=cp.int32).reshape(3, 4), cp.zeros(0, cp.int32),
              cp.array([7], cp.uint32), cp.arange(20, dtype=cp.int32)[::3]]
    for g, a in zip(ops.download(*arrays), arrays):
        assert g.dtype == a.dtype and g.shape == a.shape and np.array_equal(g, a.get())
