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
"""
import ctypes
import re
import sys
import types

import numpy as np

LOG = []     # one dict per collection / maxima kernel run: what it read
LINES = [6]  # lines the maxima kernels publish (the benchmark's 1024^2 segments give 6)

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

    def __getitem__(self, key):
        return _wrap(self._a[key], self._mem)

    def __setitem__(self, key, value):
        self._a[key] = value._a if isinstance(value, ndarray) else value

    def reshape(self, *shape):
        return _wrap(self._a.reshape(*shape), self._mem)

    def view(self, dtype):
        return _wrap(self._a.view(dtype), self._mem)

    def fill(self, v):
        self._a.fill(v)

    def get(self, stream=None):
        return self._a.copy()

    def set(self, host, stream=None):
        self._a[...] = host

    def copy(self):
        return _wrap(self._a.copy(), None)

    def astype(self, dtype):
        return _wrap(self._a.astype(dtype), None)

    def __len__(self):
        return len(self._a)

    def __eq__(self, other):
        return _wrap(self._a == (other._a if isinstance(other, ndarray) else other), None)

    def all(self):
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


def asarray(x, dtype=None):
    if isinstance(x, ndarray):
        return x
    if hasattr(x, "__cuda_array_interface__"):
        i = x.__cuda_array_interface__
        raw = (ctypes.c_char * (int(np.prod(i["shape"])) * np.dtype(i["typestr"]).itemsize or 1)).from_address(
            i["data"][0])
        return _wrap(np.ndarray(i["shape"], i["typestr"], buffer=raw, strides=i.get("strides")), None)
    return _wrap(np.array(x, dtype=dtype), None)


def ascontiguousarray(x):
    return _wrap(np.ascontiguousarray(x._a if isinstance(x, ndarray) else x), None)


def asnumpy(x, stream=None):
    return x._a.copy() if isinstance(x, ndarray) else np.asarray(x)


def count_nonzero(x):
    return np.count_nonzero(x._a)


def sort(x):
    return _wrap(np.sort(x._a), None)


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
    elif name == "hough_maxima_emit":
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

def install():
    """Make ``import cupy`` give this module (before cvgpu is imported)."""
    me = sys.modules[__name__]
    cuda = types.ModuleType("cupy.cuda")
    cuda.Stream, cuda.Device, cuda.get_current_stream = Stream, Device, get_current_stream
    cuda.alloc = MemoryPointer
    cuda.alloc_pinned_memory = alloc_pinned_memory
    cuda.runtime = types.SimpleNamespace(getDeviceCount=lambda: 1, getDevice=lambda: 0)
    cuda.memory = types.SimpleNamespace(OutOfMemoryError=OutOfMemoryError)

    def occupancy(*args):
        raise RuntimeError("no occupancy calculator in the fake")
    cuda.driver = types.SimpleNamespace(occupancyMaxActiveBlocksPerMultiprocessor=occupancy)
    me.cuda = cuda
    sys.modules["cupy"] = me
    sys.modules["cupy.cuda"] = cuda
