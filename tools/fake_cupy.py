"""A host-memory stand-in for CuPy, enough to run the Hough families' launch plans, graph capture,
replays and hot paths on a machine without a GPU (tools/hot_path_ops.py).

Device arrays are numpy arrays in host memory (``.data.ptr`` is their real address), pinned memory
is host memory, streams run nothing. A kernel call runs at once, or is recorded while a stream
captures a graph and runs at each ``graph.launch``. Kernels do not compute: the collection and
maxima kernels of kernels/hough/lines.cu and kernels/cuda/hough.cu read the per-call values as the
real ones do (from ``call`` in graph mode, else from their arguments, parameters found by name in
the kernel source), log them in ``LOG`` and publish ``LINES`` lines (zeros) where the real kernel
publishes its line count, so that the host code after them runs its normal path.

    import sys; sys.path.insert(0, "tools"); import fake_cupy; fake_cupy.install()
    import cvgpu   # computes "on the GPU" from here on

``install(strict=True)`` also makes every operation that real CuPy compiles a kernel for at run
time (NVRTC: casts, copies into or out of strided arrays, item assignment, comparisons, fill with a
value other than 0, sort / count_nonzero, ...) raise ``CompiledByCupy`` when cvgpu's own code calls
it (tests/test_no_jit.py, issue 40); arithmetic operators are missing from the fake altogether.
"""
import ctypes
import re
import sys
import types

import numpy as np

LOG = []     # one dict per collection / maxima kernel run: what it read
LINES = [6]  # lines the maxima kernels publish (the benchmark's 1024^2 segments give 6)
STRICT = [False]
CVGPU_DIR = __import__("os").path.join(__import__("os").path.dirname(__import__("os").path.dirname(
    __import__("os").path.abspath(__file__))), "cvgpu")


class CompiledByCupy(AssertionError):
    """cvgpu called an operation for which real CuPy compiles a kernel at run time."""


def _compiles(what, depth=2):
    """In strict mode, raise when the caller ``depth`` frames up is cvgpu's code."""
    if not STRICT[0]:
        return
    frame = sys._getframe(depth)
    if frame.f_code.co_filename.startswith(CVGPU_DIR):
        raise CompiledByCupy("%s (compiled by CuPy at run time) at %s:%d" % (
            what, frame.f_code.co_filename, frame.f_lineno))

int8, uint8, int32, uint32, int64, uint64, float32, float64 = (
    np.int8, np.uint8, np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64)


class OutOfMemoryError(MemoryError):
    pass


class MemoryPointer:
    __slots__ = ("buf", "ptr", "device_id", "size")

    def __init__(self, nbytes):
        self.buf = np.zeros(max(1, nbytes) + 256, np.uint8)
        base = self.buf.ctypes.data
        self.ptr = base + (-base) % 256  # the pool's 256-byte alignment
        self.device_id = 0
        self.size = nbytes


def alloc_pinned_memory(nbytes):
    """Pinned host memory: a ctypes buffer (np.frombuffer wraps it) with ``.ptr``."""
    raw = (ctypes.c_char * max(1, nbytes))()
    raw.ptr = ctypes.addressof(raw)
    return raw


class _Data:
    __slots__ = ("ptr", "device_id", "mem")

    def __init__(self, ptr, mem):
        self.ptr, self.device_id, self.mem = ptr, 0, mem


class ndarray:
    """A device array: a numpy array in host memory."""

    def __init__(self, shape, dtype=float, memptr=None, strides=None, _a=None):
        if _a is None:
            dtype = np.dtype(dtype)
            shape = tuple(shape) if isinstance(shape, (tuple, list)) else (shape,)
            if memptr is None:
                memptr = MemoryPointer(int(np.prod(shape)) * dtype.itemsize)
            if strides is None:
                strides = tuple(int(np.prod(shape[i + 1:])) * dtype.itemsize for i in range(len(shape)))
            extent = sum((n - 1) * s for n, s in zip(shape, strides)) + dtype.itemsize if all(shape) else 0
            raw = (ctypes.c_char * max(1, extent)).from_address(memptr.ptr)
            _a = np.ndarray(shape, dtype, buffer=raw, strides=strides)
            self._mem = memptr
        else:
            self._mem = memptr
        self._a = _a

    @property
    def data(self):
        return _Data(self._a.ctypes.data if self._a.size else 0, self._mem)

    shape = property(lambda self: self._a.shape)
    strides = property(lambda self: self._a.strides)
    dtype = property(lambda self: self._a.dtype)
    ndim = property(lambda self: self._a.ndim)
    size = property(lambda self: self._a.size)
    itemsize = property(lambda self: self._a.itemsize)
    nbytes = property(lambda self: self._a.nbytes)

    @shape.setter
    def shape(self, value):
        self._a.shape = value

    @property
    def flags(self):
        return self._a.flags

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, (ndarray, np.ndarray, list)) for k in keys):
            _compiles("fancy indexing")
        return _wrap(self._a[key], self._mem)

    def __setitem__(self, key, value):
        _compiles("item assignment")
        self._a[key] = value._a if isinstance(value, ndarray) else value

    def reshape(self, *shape):
        return _wrap(self._a.reshape(*shape), self._mem)

    def view(self, dtype):
        return _wrap(self._a.view(dtype), self._mem)

    def fill(self, v):
        if v != 0 or not self._a.flags.c_contiguous:
            _compiles("fill with %r" % (v,))
        self._a.fill(v)

    def get(self, stream=None, out=None):
        if not self._a.flags.c_contiguous:
            _compiles("get of a strided array")
        if out is not None:
            out[...] = self._a
            return out
        return self._a.copy()

    def set(self, host, stream=None):
        self._a[...] = host

    def copy(self):
        _compiles("copy")
        return _wrap(self._a.copy(), None)

    def astype(self, dtype, copy=True):
        if copy or np.dtype(dtype) != self._a.dtype:
            _compiles("astype")
        return _wrap(self._a.astype(dtype), None)

    def sort(self):
        """In place: Thrust's precompiled sort."""
        self._a.sort(kind="stable")

    def __len__(self):
        return len(self._a)

    def __eq__(self, other):
        _compiles("==")
        return _wrap(self._a == (other._a if isinstance(other, ndarray) else other), None)

    def all(self):
        _compiles("all")
        return bool(self._a.all())

    def __bool__(self):
        return bool(self._a)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.data.ptr, False),
                "strides": self.strides, "version": 3}


def _wrap(a, mem):
    return ndarray(None, _a=a, memptr=mem)


def zeros(shape, dtype=float):
    return _wrap(np.zeros(shape, dtype), None)


def empty(shape, dtype=float):
    return _wrap(np.zeros(shape, dtype), None)


def empty_like(a):
    return empty(a.shape, a.dtype)


def asarray(x, dtype=None):
    if isinstance(x, ndarray):
        if dtype is not None and np.dtype(dtype) != x.dtype:
            _compiles("asarray with a cast")
        return x
    if hasattr(x, "__cuda_array_interface__"):
        i = x.__cuda_array_interface__
        raw = (ctypes.c_char * (int(np.prod(i["shape"])) * np.dtype(i["typestr"]).itemsize or 1)).from_address(
            i["data"][0])
        return _wrap(np.ndarray(i["shape"], i["typestr"], buffer=raw, strides=i.get("strides")), None)
    return _wrap(np.array(x, dtype=dtype), None)


def ascontiguousarray(x):
    if isinstance(x, ndarray) and not x._a.flags.c_contiguous:
        _compiles("ascontiguousarray of a strided array")
    return _wrap(np.ascontiguousarray(x._a if isinstance(x, ndarray) else x), None)


def asnumpy(x, stream=None):
    if isinstance(x, ndarray) and not x._a.flags.c_contiguous:
        _compiles("asnumpy of a strided array")
    return x._a.copy() if isinstance(x, ndarray) else np.asarray(x)


def count_nonzero(x):
    _compiles("count_nonzero")
    return np.count_nonzero(x._a)


def sort(x):
    _compiles("sort (a compiled copy, then Thrust)")
    return _wrap(np.sort(x._a), None)


def argsort(x):
    _compiles("argsort (a compiled copy, then Thrust)")
    return _wrap(np.argsort(x._a, kind="stable"), None)


def _host_view(ptr, nbytes, dtype=np.uint8):
    return np.frombuffer((ctypes.c_char * max(1, nbytes)).from_address(ptr), np.uint8)[:nbytes].view(dtype)


class _Thrust:
    """cupy.cuda.thrust: the precompiled sorts on raw pointers."""

    @staticmethod
    def argsort(dtype, idx_ptr, data_ptr, keys_ptr, shape):
        n = int(np.prod(shape))
        dtype = np.dtype(dtype)
        data = _host_view(data_ptr, n * dtype.itemsize, dtype)
        order = np.argsort(data, kind="stable")
        data[...] = data[order]
        _host_view(idx_ptr, 8 * n, np.int64)[...] = order

    @staticmethod
    def sort(dtype, data_ptr, keys_ptr, shape):
        n = int(np.prod(shape))
        dtype = np.dtype(dtype)
        data = _host_view(data_ptr, n * dtype.itemsize, dtype)
        data.sort(kind="stable")


def _memcpy2d(dst, dpitch, src, spitch, width, height, kind, stream):
    for r in range(height):
        ctypes.memmove(dst + r * dpitch, src + r * spitch, width)


def from_dlpack(x):
    raise TypeError("no DLPack in the fake")


# ---------------------------------------------------------------- streams and graphs

class Stream:
    null = None

    def __init__(self, non_blocking=False, ptr=0):
        self.ptr = ptr or id(self)
        self.done = True
        self.capturing = None
        self._prev = []

    def __enter__(self):
        self._prev.append(_current[0])
        _current[0] = self
        return self

    def __exit__(self, *exc):
        _current[0] = self._prev.pop()

    def synchronize(self):
        pass

    def begin_capture(self):
        self.capturing = []

    def end_capture(self):
        g, self.capturing = Graph(self.capturing), None
        return g

    def use(self):
        _current[0] = self

    def wait_event(self, event):
        pass

    def record(self, event=None):
        return event if event is not None else Event()


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        pass

    def record(self, stream=None):
        pass

    def synchronize(self):
        pass

    @property
    def done(self):
        return True


Stream.null = Stream(ptr=1)
_current = [Stream.null]


def get_current_stream():
    return _current[0]


class Graph:
    def __init__(self, calls):
        self.calls = calls
        self.launches = 0

    def upload(self, stream):
        pass

    def launch(self, stream):
        self.launches += 1
        for call in self.calls:
            _run(*call)


class Device:
    def __init__(self, i=0):
        self.id = i
        # Below 9.0: cvgpu._graphs.launch_dependent then launches plainly, never through the real
        # driver (which a machine with a GPU has).
        self.compute_capability = "80"
        self.attributes = {"MultiProcessorCount": 132, "MaxSharedMemoryPerBlockOptin": 232448,
                           "MaxSharedMemoryPerBlock": 49152}

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        pass


# ---------------------------------------------------------------- kernels

_PARAMS = {}


def _kernel_params(code, name):
    """The parameter names of ``extern "C" __global__ ... name(...)`` in the source, or None."""
    key = (id(code), name)
    if key not in _PARAMS:
        m = re.search(r"__global__ void (?:__launch_bounds__\(\d+\) )?%s\s*\(([^)]*)\)" % re.escape(name), code)
        if m is None and re.search(r"_\d+$", name):  # a kernel a macro defines: name_##K(
            m = re.search(r"\b%s##K\s*\(([^)]*)\)" % re.escape(name.rsplit("_", 1)[0] + "_"), code)
        names = None
        if m:
            params = m.group(1).replace("\\", " ").split(",")
            names = [re.findall(r"(\w+)\s*$", p.strip())[0] for p in params if p.strip()]
        _PARAMS[key] = names
    return _PARAMS[key]


class _Kernel:
    def __init__(self, module, name):
        self.module, self.name = module, name
        self.max_dynamic_shared_size_bytes = 0
        self.kernel = types.SimpleNamespace(ptr=id(self))
        self.params = _kernel_params(module.code, name)

    def __call__(self, grid, block, args, shared_mem=0):
        if self.params is not None and len(args) != len(self.params):
            raise TypeError("%s takes %d arguments (%s), got %d" % (self.name, len(self.params), ", ".join(self.params),
                                                                   len(args)))
        stream = _current[0]
        if stream.capturing is not None:
            stream.capturing.append((self, args))
        else:
            _run(self, args)


def _value(a):
    if isinstance(a, ndarray):
        return a.data.ptr
    return int(a) if isinstance(a, (np.integer, int)) else a


def _word(ptr, i):
    return ctypes.c_int64.from_address(ptr + 8 * i).value


def _run(kernel, args):
    name = kernel.name
    if name == "graph_load_call":
        pinned, call, words = (_value(a) for a in args)
        ctypes.memmove(call, pinned, 8 * words)
        return
    if kernel.params is None:
        return
    a = dict(zip(kernel.params, (_value(v) for v in args)))
    if "collect" in name:
        call = a["call"]
        seen = (a["img"], a["step"], a["align"]) if not call else tuple(_word(call, i) for i in range(3))
        LOG.append({"kernel": name, "image": seen})
        fresh = a.get("fresh")
        if fresh:  # a lean graph's first kernel: words 3.. from pinned memory
            words = 5 if name.startswith("hough") else 4
            ctypes.memmove(call + 24, fresh + 24, 8 * (words - 3))
    elif name in ("hough_maxima_emit", "hough_maxima_emit_windowed"):
        call = a["call"]
        threshold, out = (a["threshold"], a["out_dev"]) if not call else (_word(call, 3), _word(call, 4))
        LOG.append({"kernel": name, "threshold": threshold, "out": out})
        ctypes.c_int32.from_address(a["host_count"]).value = LINES[0]
    elif name == "ch_maxima":
        call = a["call"]
        out = a["out"] if not call else _word(call, 3)
        LOG.append({"kernel": name, "threshold": a["threshold"], "out": out})
        ctypes.c_int32.from_address(a["host"]).value = LINES[0]


class RawModule:
    def __init__(self, code, options=(), enable_cooperative_groups=False):
        self.code, self.options = code, options

    def get_function(self, name):
        return _Kernel(self, name)


# ---------------------------------------------------------------- the module

def install(strict=False):
    """Make ``import cupy`` give this module (before cvgpu is imported); ``strict``: see above."""
    STRICT[0] = bool(strict)
    me = sys.modules[__name__]
    cuda = types.ModuleType("cupy.cuda")
    cuda.Stream, cuda.Device, cuda.get_current_stream, cuda.Event = Stream, Device, get_current_stream, Event
    cuda.alloc = MemoryPointer
    cuda.alloc_pinned_memory = alloc_pinned_memory
    cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0, memcpyHostToDevice=1,
                                         memcpyDeviceToHost=2, memcpyDeviceToDevice=3,
                                         memcpyAsync=lambda dst, src, n, kind, stream: ctypes.memmove(dst, src, n),
                                         memcpy2DAsync=_memcpy2d,
                                         memsetAsync=lambda dst, value, n, stream: ctypes.memset(dst, value, n),
                                         CUDARuntimeError=RuntimeError)
    cuda.thrust = _Thrust
    cuda.memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)

    def occupancy(*args):
        raise RuntimeError("no occupancy calculator in the fake")
    cuda.driver = types.SimpleNamespace(occupancyMaxActiveBlocksPerMultiprocessor=occupancy)
    me.cuda = cuda
    sys.modules["cupy"] = me
    sys.modules["cupy.cuda"] = cuda
    cupyx = types.ModuleType("cupyx")
    cupyx.empty_pinned = lambda shape, dtype=float: np.empty(shape, dtype)
    sys.modules["cupyx"] = cupyx
