"""cvgpu._device_ops.DeviceOps on the host (numpy), for the host stand-ins of the GPU
(tests/contours/kernel_host.py: HostGpu.ops): each method computes what the CuPy operation it
replaces computes, on the stand-in's arrays (``cp.ndarray``, a numpy subclass), with the same
dtypes and shapes. tests/test_device_ops.py checks kernels/device_ops.cu against these methods (on
the host where a kernel's threads are independent, on the GPU for all of them)."""
import numpy as np


class HostOps:
    def __init__(self, cp):
        self.cp = cp

    def _dev(self, a):
        return np.ascontiguousarray(a).view(self.cp.ndarray)

    @staticmethod
    def _np(a):
        return np.asarray(a)

    # copies and casts
    def contiguous(self, a, dtype=None, out=None):
        dtype = a.dtype if dtype is None else np.dtype(dtype)
        if dtype != a.dtype and dtype != np.float32:
            raise TypeError("device conversion to %s" % dtype)
        if out is None:
            if dtype == a.dtype and a.flags.c_contiguous:
                return a
            with np.errstate(over="ignore"):
                return self._dev(self._np(a).astype(dtype))
        with np.errstate(over="ignore"):   # float64 beyond float32's range: infinities, as on the GPU
            np.asarray(out)[...] = self._np(a).astype(dtype)
        return out

    def copy(self, a):
        return self._dev(self._np(a).copy())

    def to_host(self, a):
        return np.array(self._np(a))

    def download(self, *arrays):
        return [np.array(self._np(a)) for a in arrays]

    def fill_rows(self, a, pattern):
        raw = np.frombuffer(np.ascontiguousarray(pattern).tobytes(), np.uint8)
        x = np.asarray(a)
        for r in range(x.shape[0]):
            row = x[r].reshape(-1).view(np.uint8)   # a view: a row's elements are contiguous
            row[...] = np.resize(raw, row.size)

    # scans and compaction
    def inclusive_scan(self, src, out):
        np.asarray(out)[...] = np.cumsum(self._np(src), dtype=np.int64).astype(out.dtype)
        return out

    def offsets(self, counts, out=None):
        if out is None:
            out = self._dev(np.zeros(counts.size + 1, np.int64))
        np.asarray(out)[0] = 0
        self.inclusive_scan(counts, out[1:])
        return out

    def select(self, *tests):
        out = []
        for kind, src, param, dtype in tests:
            a = self._np(src)
            flags = (a & param) != 0 if kind == "mask" else a < param
            out.append(self._dev(np.flatnonzero(flags).astype(dtype)))
        return out

    # elementwise
    def iota_i64(self, n):
        return self._dev(np.arange(n, dtype=np.int64))

    def fill_i32(self, a, value):
        np.asarray(a)[...] = np.int32(value)
        return a

    def full_i32(self, n, value):
        return self._dev(np.full(n, value, np.int32))

    def gather(self, src, idx, out=None):
        got = self._np(src)[self._np(idx)].astype(np.int32)
        if out is None:
            return self._dev(got)
        np.asarray(out)[...] = got
        return out

    def scatter_iota(self, idx, out):
        np.asarray(out)[self._np(idx)] = np.arange(idx.size, dtype=np.int32)
        return out

    def scatter(self, values, idx, out):
        np.asarray(out)[self._np(idx)] = self._np(values)
        return out

    def i32_from_i64(self, src, out=None):
        got = self._np(src).astype(np.int32)
        if out is None:
            return self._dev(got)
        np.asarray(out)[...] = got
        return out

    def lengths(self, offsets):
        return self._dev(np.diff(self._np(offsets)).astype(np.int32))

    def swap_halves(self, keys):
        k = self._np(keys)
        return self._dev((k << np.uint64(32)) | (k >> np.uint64(32)))

    def any_differ(self, a, b):
        return self._dev(np.array([np.any(self._np(a) != self._np(b))], np.int32))

    def any_equal(self, a, value):
        return self._dev(np.array([np.any(self._np(a) == value)], np.int32))

    def any_nonzero_2d(self, image):
        return self._dev(np.array([np.count_nonzero(self._np(image)) > 0], np.int32))

    def minmax(self, a):
        x = self._np(a)
        return self._dev(np.array([x.min(), x.max()], x.dtype))

    # sorting
    def argsort(self, keys):
        return self._dev(np.argsort(self._np(keys), kind="stable").astype(np.int64))

    def sort(self, keys):
        return self._dev(np.sort(self._np(keys), kind="stable"))
