"""The array operations cvgpu's GPU paths need beside their own kernels, without compiling anything
on the user's machine (issue 40): kernels/device_ops.cu ships compiled ahead of time with the
families' kernels, where CuPy would compile its elementwise, indexing, scan and reduction kernels
through NVRTC on a machine's first call (50-100 ms each).

What CuPy does without compiling, and is used here and in the families: ``cupy.empty`` /
``zeros`` / ``empty_like`` (allocation, memset), uploads of host arrays (``cupy.asarray(numpy)``,
``.set``), ``.get()`` of a C-contiguous array, views (slices, ``reshape`` and ``.view`` of
contiguous arrays), ``cuda.runtime.memsetAsync`` / ``memcpyAsync`` / ``memcpy2DAsync``, and
Thrust's precompiled sort: ``ndarray.sort()`` in place on a contiguous 1-D array and
``cuda.thrust.argsort`` (``cupy.argsort`` and ``cupy.sort`` copy their input with a compiled
elementwise kernel first). Everything else (casts, arithmetic, comparisons, fancy indexing,
``fill`` with a value that is not zero, ``concatenate``, ``cumsum``, ``flatnonzero``, reductions,
``ascontiguousarray`` and ``.get()`` of a strided array) compiles; tests/test_no_jit.py checks
the package for them.

Every operation keeps CuPy's result bit for bit and its host synchronisations: only ``select``
(flatnonzero's count) and ``download`` / ``to_host`` wait for the device, once a call, as the CuPy
operations they replace did."""
import numpy as np

from . import _kernels

FAMILY = "device_ops"        # kernels/device_ops.cu
THREADS = 256                # block of the elementwise (grid-stride) kernels
GRID_CAP = 8192              # blocks of an elementwise launch: enough to fill any current GPU
SCAN_THREADS = 1024          # = SCAN_THREADS in kernels/device_ops.cu
SCAN_TILE = 4096             # = SCAN_TILE: elements a scan block covers
ALIGN = 16                   # download(): each array's place in the combined buffer

_F32_FROM = {"?": "b1", "B": "u8", "b": "i8", "H": "u16", "h": "i16", "I": "u32", "i": "i32", "L": "u64",
             "l": "i64", "Q": "u64", "q": "i64", "e": "f16", "d": "f64"}
_SCAN = {("B", "i"): "u8_i32", ("i", "i"): "i32_i32", ("i", "l"): "i32_i64", ("i", "q"): "i32_i64"}


def _cdiv(a, b):
    return -(-a // b)


def _layout(a):
    """(dims, byte strides) of ``a`` with size-1 dimensions dropped and each dimension merged into the
    one before it where they step as one: the fewest dimensions that read it."""
    dims, strides = [], []
    for n, s in zip(a.shape, a.strides):
        if n == 1:
            continue
        if dims and strides[-1] == n * s:
            dims[-1] *= n
            strides[-1] = s
        else:
            dims.append(int(n))
            strides.append(int(s))
    return dims, strides


class DeviceOps:
    """The operations on one CuPy module's arrays (``cp``), launched on the current stream. Kernels
    come from the current device's module (cvgpu._kernels)."""

    def __init__(self, cp):
        self.cp = cp

    def fn(self, name):
        return _kernels.get_function(FAMILY, name)

    def _grid(self, n):
        return (max(1, min(_cdiv(n, THREADS), GRID_CAP)),)

    def _stream(self):
        return self.cp.cuda.get_current_stream().ptr

    def _memcpy(self, dst_ptr, src_ptr, nbytes):
        rt = self.cp.cuda.runtime
        rt.memcpyAsync(dst_ptr, src_ptr, nbytes, rt.memcpyDeviceToDevice, self._stream())

    # ------------------------------------------------------------ copies and casts

    def contiguous(self, a, dtype=None, out=None):
        """``a`` as a C-contiguous array of ``dtype`` (its own by default; another only as float32,
        converted as ``astype(float32)``): ``a`` itself when it already is one and ``out`` is not
        given, else a copy (into ``out``, C-contiguous with a's size, when given)."""
        cp = self.cp
        dtype = a.dtype if dtype is None else np.dtype(dtype)
        same = dtype == a.dtype
        if out is None:
            if same and a.flags.c_contiguous:
                return a
            out = cp.empty(a.shape, dtype=dtype)
        if a.size == 0:
            return out
        if same:
            self._copy_raw(a, out)
            return out
        if dtype != np.float32:
            raise TypeError("cvgpu: device conversion to %s" % dtype)
        kind = _F32_FROM.get(a.dtype.char)
        if kind is None:
            raise TypeError("cvgpu: device conversion from %s" % a.dtype)
        dims, strides = _layout(a)
        isz = a.dtype.itemsize
        if len(dims) > 4 or a.data.ptr % isz or any(s % isz for s in strides):
            a = self.contiguous(a)   # unaligned or too many dimensions: a raw copy first
            dims, strides = _layout(a)
        self._strided("dops_f32_from_" + kind, a.data.ptr, dims, strides, out)
        return out

    def _strided(self, name, ptr, dims, strides, out):
        dims, strides = [1] * (4 - len(dims)) + dims, [0] * (4 - len(strides)) + strides
        n = int(np.prod(dims))
        self.fn(name)(self._grid(n), (THREADS,), (np.uint64(ptr), np.int64(n), *(np.int64(d) for d in dims[1:]),
                                                 *(np.int64(s) for s in strides), out))

    def _copy_raw(self, a, out):
        """Same-type copy of ``a`` into the C-contiguous ``out``: one memcpy where a is contiguous,
        memcpy2D where its rows are, else a strided gather by element (by byte where unaligned)."""
        cp = self.cp
        dims, strides = _layout(a)
        isz = a.dtype.itemsize
        if not dims or (len(dims) == 1 and strides[0] == isz):
            self._memcpy(out.data.ptr, a.data.ptr, a.nbytes)
            return
        if len(dims) == 2 and strides[1] == isz and strides[0] > 0:
            rt = cp.cuda.runtime
            width = dims[1] * isz
            rt.memcpy2DAsync(out.data.ptr, width, a.data.ptr, strides[0], width, dims[0], rt.memcpyDeviceToDevice,
                             self._stream())
            return
        if isz in (1, 2, 4, 8) and a.data.ptr % isz == 0 and not any(s % isz for s in strides) and len(dims) <= 4:
            self._strided("dops_copy_strided_%d" % isz, a.data.ptr, dims, strides, out)
            return
        dims, strides = dims + [isz], strides + [1]
        if len(dims) > 4:
            raise ValueError("cvgpu: device copy of a %d-dimensional strided array" % (len(dims) - 1))
        self._strided("dops_copy_strided_1", a.data.ptr, dims, strides, out)

    def copy(self, a):
        """A C-contiguous copy of ``a`` (a new array)."""
        return self.contiguous(a, out=self.cp.empty(a.shape, dtype=a.dtype))

    def to_host(self, a):
        """``a`` as a numpy array (one wait, as ``.get()``)."""
        return self.contiguous(a).get()

    def download(self, *arrays):
        """The arrays as numpy arrays, from one transfer (one wait): each is copied device to device
        into one buffer, which is read back whole."""
        cp = self.cp
        places, total = [], 0
        for a in arrays:
            places.append(total)
            total += _cdiv(a.nbytes, ALIGN) * ALIGN
        buf = cp.empty(max(total, 1), dtype=cp.uint8)
        for a, at in zip(arrays, places):
            if a.size:
                self._memcpy(buf.data.ptr + at, self.contiguous(a).data.ptr, a.nbytes)
        host = buf.get()
        return [host[at:at + a.nbytes].view(a.dtype).reshape(a.shape) for a, at in zip(arrays, places)]

    def fill_rows(self, a, pattern):
        """Every row of the 2-D or 3-D array ``a`` (elements contiguous in a row) set to the bytes of
        ``pattern`` (one element of all its channels, a numpy array) repeated."""
        cp = self.cp
        pat = cp.asarray(np.frombuffer(np.ascontiguousarray(pattern).tobytes(), np.uint8))
        rows = a.shape[0]
        row_bytes = int(np.prod(a.shape[1:])) * a.itemsize
        pitch = a.strides[0] if rows > 1 else row_bytes
        self.fn("dops_fill_rows")(self._grid(rows * row_bytes), (THREADS,),
                                  (a, np.int64(pitch), np.int64(rows), np.int64(row_bytes), pat, np.int32(pat.size)))

    # ------------------------------------------------------------ scans and compaction

    def _tile_sums(self, name, src, n, extra=()):
        """The tiles' exclusive bases (and the total in the last slot) of a scan over n elements."""
        nb = max(1, _cdiv(n, SCAN_TILE))
        part = self.cp.empty(nb + 1, dtype=self.cp.int64)
        self.fn(name)((nb,), (SCAN_THREADS,), (src, np.int64(n)) + extra + (part,))
        self.fn("dops_scan_partials")((1,), (SCAN_THREADS,), (np.int64(nb), part, part[nb:]))
        return nb, part

    def inclusive_scan(self, src, out):
        """out[i] = src[0] + ... + src[i] (cumsum(src, out=out)): uint8 -> int32, int32 -> int32 or
        int64, both contiguous 1-D of the same length."""
        n = int(src.size)
        if n == 0:
            return out
        kind = _SCAN[(src.dtype.char, out.dtype.char)]
        nb, part = self._tile_sums("dops_tile_sum_" + kind.split("_")[0], src, n)
        self.fn("dops_scan_" + kind)((nb,), (SCAN_THREADS,), (src, np.int64(n), part, out))
        return out

    def offsets(self, counts, out=None):
        """(n + 1,) int64 [0, counts[0], counts[0] + counts[1], ...] of int32 counts (into ``out``)."""
        cp = self.cp
        n = int(counts.size)
        if out is None:
            out = cp.empty(n + 1, dtype=cp.int64)
        cp.cuda.runtime.memsetAsync(out.data.ptr, 0, 8, self._stream())
        self.inclusive_scan(counts, out[1:])
        return out

    def select(self, *tests):
        """flatnonzero of each test, with one wait for all their counts: a test is ("mask", uint8
        array, mask, index dtype), flagging (a & mask) != 0, or ("below", int32 array, bound, index
        dtype), flagging a < bound. Returns the index arrays (int32 or int64), ascending."""
        cp = self.cp
        runs = []
        for kind, src, param, dtype in tests:
            n = int(src.size)
            name, arg = (("mask_u8", np.uint32(param)) if kind == "mask" else ("below_i32", np.int32(param)))
            nb, part = self._tile_sums("dops_tile_count_" + name, src, n, (arg,))
            runs.append((name, src, n, arg, np.dtype(dtype), nb, part))
        if len(runs) == 1:
            counts = [int(runs[0][6][runs[0][5]:].get()[0])]
        else:
            counts = [int(c[0]) for c in self.download(*[r[6][r[5]:] for r in runs])]
        out = []
        for (name, src, n, arg, dtype, nb, part), count in zip(runs, counts):
            idx = cp.empty(count, dtype=dtype)
            if count:
                suffix = "i32" if dtype == np.int32 else "i64"
                self.fn("dops_select_%s_%s" % (name, suffix))((nb,), (SCAN_THREADS,),
                                                              (src, np.int64(n), arg, part, idx))
            out.append(idx)
        return out

    # ------------------------------------------------------------ elementwise

    def iota_i64(self, n):
        """arange(n, dtype=int64)."""
        out = self.cp.empty(n, dtype=self.cp.int64)
        if n:
            self.fn("dops_iota_i64")(self._grid(n), (THREADS,), (np.int64(n), out))
        return out

    def fill_i32(self, a, value):
        """a.fill(value) for a contiguous int32 array (a memset where every byte is the same)."""
        value = int(np.int32(value))
        if value in (0, -1):
            self.cp.cuda.runtime.memsetAsync(a.data.ptr, value & 0xFF, a.nbytes, self._stream())
        elif a.size:
            self.fn("dops_fill_i32")(self._grid(a.size), (THREADS,), (np.int64(a.size), np.int32(value), a))
        return a

    def full_i32(self, n, value):
        """full(n, value, dtype=int32)."""
        return self.fill_i32(self.cp.empty(n, dtype=self.cp.int32), value)

    def gather(self, src, idx, out=None):
        """src[idx] for an int32 src and int32 or int64 indices (out: int32, idx's length)."""
        n = int(idx.size)
        if out is None:
            out = self.cp.empty(n, dtype=self.cp.int32)
        if n:
            name = "dops_gather_i32_by_" + ("i32" if idx.dtype == np.int32 else "i64")
            self.fn(name)(self._grid(n), (THREADS,), (np.int64(n), src, idx, out))
        return out

    def scatter_iota(self, idx, out):
        """out[idx] = arange(len(idx)) (int32, distinct indices)."""
        n = int(idx.size)
        if n:
            self.fn("dops_scatter_iota_i32")(self._grid(n), (THREADS,), (np.int64(n), idx, out))
        return out

    def scatter(self, values, idx, out):
        """out[idx] = values (int64 values and indices, distinct indices)."""
        n = int(idx.size)
        if n:
            self.fn("dops_scatter_i64_by_i64")(self._grid(n), (THREADS,), (np.int64(n), values, idx, out))
        return out

    def i32_from_i64(self, src, out=None):
        """src.astype(int32) (into ``out``)."""
        n = int(src.size)
        if out is None:
            out = self.cp.empty(n, dtype=self.cp.int32)
        if n:
            self.fn("dops_i32_from_i64")(self._grid(n), (THREADS,), (np.int64(n), src, out))
        return out

    def lengths(self, offsets):
        """(offsets[1:] - offsets[:-1]).astype(int32) of int64 offsets."""
        n = int(offsets.size) - 1
        out = self.cp.empty(max(n, 0), dtype=self.cp.int32)
        if n > 0:
            self.fn("dops_diff_i64_i32")(self._grid(n), (THREADS,), (np.int64(n), offsets, out))
        return out

    def swap_halves(self, keys):
        """(keys << 32) | (keys >> 32) of uint64 keys."""
        n = int(keys.size)
        out = self.cp.empty(n, dtype=self.cp.uint64)
        if n:
            self.fn("dops_swap_halves_u64")(self._grid(n), (THREADS,), (np.int64(n), keys, out))
        return out

    def _flag(self, name, n, args):
        flag = self.cp.zeros(1, dtype=self.cp.int32)
        if n:
            self.fn(name)(self._grid(n), (THREADS,), (np.int64(n),) + args + (flag,))
        return flag

    def any_differ(self, a, b):
        """(1,) int32 on the device: 1 where some a[i] != b[i] (not (a == b).all()), int32 arrays."""
        return self._flag("dops_any_differ_i32", int(a.size), (a, b))

    def any_equal(self, a, value):
        """(1,) int32 on the device: 1 where some a[i] == value ((a == value).any()), int32 a."""
        return self._flag("dops_any_equal_i32", int(a.size), (a, np.int32(value)))

    def any_nonzero_2d(self, image):
        """(1,) int32 on the device: 1 where the 2-D uint8 image (elements contiguous in a row) has a
        nonzero pixel (count_nonzero(image) > 0)."""
        rows, cols = image.shape
        flag = self.cp.zeros(1, dtype=self.cp.int32)
        if rows and cols:
            self.fn("dops_any_nonzero_u8_2d")(self._grid(rows * cols), (THREADS,),
                                              (np.int64(rows), np.int64(cols), np.int64(image.strides[0]), image,
                                               flag))
        return flag

    def minmax(self, a):
        """(2,) device array [a.min(), a.max()] of a contiguous int32 or float64 array (size >= 1)."""
        cp = self.cp
        kind = "i32" if a.dtype == np.int32 else "f64"
        n = int(a.size)
        blocks = max(1, min(_cdiv(n, THREADS), 1024))
        part = cp.empty(2 * blocks, dtype=a.dtype)
        out = cp.empty(2, dtype=a.dtype)
        self.fn("dops_minmax_" + kind)((blocks,), (THREADS,), (a, np.int64(n), part))
        self.fn("dops_minmax_%s_final" % kind)((1,), (THREADS,), (part, np.int64(blocks), out))
        return out

    # ------------------------------------------------------------ sorting (Thrust, precompiled)

    def argsort(self, keys):
        """cupy.argsort(keys) of a contiguous 1-D array (stable, int64 indices): Thrust's argsort on
        a copy made by memcpy (cupy.argsort copies with a compiled kernel)."""
        cp = self.cp
        n = int(keys.size)
        thrust = getattr(cp.cuda, "thrust", None)
        if thrust is None or not hasattr(thrust, "argsort"):   # a CuPy without the binding
            return cp.argsort(keys)
        data = cp.empty(n, dtype=keys.dtype)
        idx = cp.empty(n, dtype=cp.int64)
        if n:
            self._memcpy(data.data.ptr, keys.data.ptr, keys.nbytes)
            try:
                thrust.argsort(keys.dtype, idx.data.ptr, data.data.ptr, 0, (n,))
            except TypeError:   # a binding that takes other arguments (not in CuPy 11 to 14)
                return cp.argsort(keys)
        return idx

    def sort(self, keys):
        """cupy.sort(keys) of a contiguous 1-D array: a memcpy copy sorted in place by Thrust."""
        out = self.cp.empty(keys.shape, dtype=keys.dtype)
        if keys.size:
            self._memcpy(out.data.ptr, keys.data.ptr, keys.nbytes)
            out.sort()
        return out


_ops = {}


def ops(cp):
    """The DeviceOps of CuPy module ``cp``."""
    got = _ops.get(id(cp))
    if got is None or got.cp is not cp:
        got = _ops[id(cp)] = DeviceOps(cp)
    return got
