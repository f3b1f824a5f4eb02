"""A family's launch plan replayed as one captured CUDA graph, and the host bookkeeping around it.

A plan is a fixed sequence of kernel launches over fixed buffers; only a few values change from one
call to the next (an image pointer, a threshold, an output pointer). Those are the plan's *call
words*, declared by name (``CallWords``): 64-bit values the host writes to pinned memory before a
replay; the graph's first node (kernels/graphs.cuh: graph_load_call) copies them to device memory,
where the kernels read them (a replayed graph takes no new arguments). The kernel file defines the
same names with the same indices. Launched directly (a plan's first call, or where capture fails),
the kernels take the values as arguments instead.

Each launch is declared by parameter name (``Kernel``): fixed values, a call word (``Word``), the
device call words (``CALL``) or, for a lean graph's first kernel, the pinned ones (``FRESH``).
``GraphPlan`` holds a plan's kernels, its full graph (load node first) and its lean graph: no load
node, replayed while the device words still describe the same image; its first kernel copies the
other words itself (kernels/graphs.cuh). Every kernel after the first launches as a programmatic
dependent of the one before (``launch_dependent``), so the GPU runs them back to back.

A replay costs the host one graph launch where the plan's launches would cost one launch with its
arguments each, so a family keeps its replay path to the words' store, the launch and the wait:
``SpareOutput`` allocates the next call's output memory while the GPU works, ``await_published``
polls the flag the last kernel publishes in pinned memory (``PinnedResults``), and ``HotCall`` is
the base of what a family keeps of a call whose repeat may skip its argument layer.
"""
import ctypes
import struct
from threading import active_count as _active_count
from time import sleep as _sleep

import numpy as np

from . import _kernels, _native
from ._backend import cupy_module

NULL = np.uint64(0)


class CallWords:
    """The per-call words of a family's graphs, in the order its kernels read them: ``words`` is a
    sequence of (name, numpy type of the kernel parameter that takes the value in a direct launch).
    The first ``lean_keeps`` words describe the image: a lean graph keeps them, its first kernel
    reloads the others."""

    def __init__(self, words, lean_keeps):
        self.names = tuple(name for name, _ in words)
        self.types = tuple(kind for _, kind in words)
        self.count = len(self.names)
        self.lean_keeps = lean_keeps
        # pack_into(buffer, 0, *values): every word in one store (CallBuffer.bytes).
        self.pack_into = struct.Struct("<%dq" % self.count).pack_into

    def index(self, name):
        return self.names.index(name)


class CallBuffer:
    """A workspace's call words: ``host`` in pinned memory (written before each replay; ``bytes`` for
    CallWords.pack_into, ``store`` for one word), ``dev`` the device copy the graphs read, and
    ``loaded``: the image words the device copy holds since the last load node (None: unknown)."""

    __slots__ = ("words", "pinned", "host", "bytes", "store", "dev", "loaded")

    def __init__(self, cp, words):
        self.words = words
        self.pinned = cp.cuda.alloc_pinned_memory(8 * words.count)
        self.host = np.frombuffer(self.pinned, dtype=np.int64, count=words.count)
        self.bytes = memoryview(self.host).cast("B")
        self.store = memoryview(self.host)  # (a memoryview's item store is cheaper than numpy's)
        self.dev = cp.zeros(words.count, dtype=cp.int64)
        self.loaded = None

    def word(self, name):
        """A one-word view of the pinned word ``name``: ``view[0] = value`` stores it."""
        i = self.words.index(name)
        return self.store[i:i + 1]


class Word:
    """A kernel parameter that takes call word ``name`` (a direct launch passes the value, a graph's
    kernel reads it from the call words)."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name


CALL = Word("(the device call words)")   # the kernel's ``call``: NULL in a direct launch
FRESH = Word("(the pinned call words)")  # a lean graph's first kernel's ``fresh``


class Kernel:
    """One launch of a plan: ``fn`` (a cupy.RawKernel) on ``grid`` x ``block`` with ``shared_mem``
    bytes of dynamic shared memory; its arguments by parameter name, in the kernel's parameter
    order: fixed values, Word(name), CALL or FRESH."""

    __slots__ = ("fn", "grid", "block", "shared_mem", "args")

    def __init__(self, fn, grid, block, shared_mem=0, /, **args):
        self.fn, self.grid, self.block, self.shared_mem, self.args = fn, grid, block, shared_mem, args

    def lean(self, fn):
        """This launch as a lean graph's first kernel: ``fn`` takes the same arguments and ``fresh``."""
        return Kernel(fn, self.grid, self.block, self.shared_mem, **self.args, fresh=FRESH)

    def arguments(self, words, call, fresh):
        """The argument tuple of a graph's launch (call words read on the device)."""
        out = []
        for value in self.args.values():
            if value is CALL:
                value = call
            elif value is FRESH:
                value = fresh
            elif type(value) is Word:
                value = words.types[words.index(value.name)](0)
            out.append(value)
        return tuple(out)

    def direct(self, words):
        """(template, slots) of a direct launch: the argument list with CALL as NULL, and the
        (position, word index) pairs that take the call's values."""
        template, slots = [], []
        for position, value in enumerate(self.args.values()):
            if value is CALL:
                value = NULL
            elif value is FRESH:
                raise ValueError("a lean graph's first kernel is never launched directly")
            elif type(value) is Word:
                slots.append((position, words.index(value.name)))
                value = None
            template.append(value)
        return template, tuple(slots)


class GraphPlan:
    """A plan's kernels over a CallBuffer, launched directly or replayed as captured graphs.
    ``lean_first``: the first kernel's lean variant (Kernel.lean). ``graph`` / ``lean``: None before
    capture, False where capture failed (the caller then launches directly), else the graph.
    ``ran``: called with "graph" / "lean-graph" at each capture (a family's TUNING path count).
    ``driver``: capture through the driver where possible (a DriverGraph, launchable by the C
    helpers of cvgpu._native without the GIL)."""

    __slots__ = ("cp", "family", "options", "buffer", "kernels", "lean_first", "graph", "lean", "ran", "driver",
                 "_direct")

    def __init__(self, cp, family, options, buffer, kernels, lean_first, ran=None, driver=False):
        self.cp, self.family, self.options, self.buffer = cp, family, options, buffer
        self.kernels, self.lean_first, self.ran = tuple(kernels), lean_first, ran
        self.graph = self.lean = None
        # driver: capture through the CUDA driver (cvgpu._native.DriverGraph, whose handle the C
        # helpers launch) where it is available; else CuPy's Graph.
        self.driver = bool(driver) and _native.driver() is not None
        words = buffer.words
        self._direct = tuple((k.fn, k.grid, k.block, k.shared_mem) + k.direct(words) for k in self.kernels)

    def launch_direct(self, values):
        """Launch every kernel with the call's word values (in CallWords order, typed for the
        kernels: a device array for a pointer is fine) as arguments."""
        for fn, grid, block, shared_mem, template, slots in self._direct:
            args = list(template)
            for position, i in slots:
                args[position] = values[i]
            fn(grid, block, tuple(args), shared_mem=shared_mem)

    def full_graph(self):
        """The full graph, captured on first use (False where capture fails)."""
        graph = self.graph
        if graph is None:
            graph = self.graph = self.capture(loader=True)
        return graph

    def lean_graph(self):
        """The lean graph, captured on first use (False where capture fails)."""
        lean = self.lean
        if lean is None:
            lean = self.lean = self.capture(loader=False)
        return lean

    def replay(self, stream, head):
        """Replay for the image whose lean-kept words are ``head`` (every word already stored in the
        pinned buffer; the full graph captured): the lean graph while the device words still hold
        ``head``, else the full graph, which loads them all."""
        self.pick(head).launch(stream)
        self.buffer.loaded = head

    def pick(self, head):
        """The graph to launch for ``head``, for replay or a caller that launches it itself (the C
        helpers): the lean graph while the device words hold ``head``, else the full graph, with
        ``buffer.loaded`` cleared until the caller, once it has launched it, sets it to ``head``."""
        buffer = self.buffer
        if buffer.loaded == head:
            lean = self.lean_graph()
            if lean:
                return lean
        buffer.loaded = None  # (until the load node has been launched)
        return self.graph

    def capture(self, loader=True):
        """The kernels as one CUDA graph (or False where capture fails: no capture on this platform
        or CuPy). ``loader``: the full graph, graph_load_call first; else the lean graph."""
        cp, buffer = self.cp, self.buffer
        words = buffer.words
        call = np.uint64(buffer.dev.data.ptr)
        fresh = NULL if loader else np.uint64(buffer.pinned.ptr)
        kernels = ((self.kernels[0] if loader else self.lean_first),) + self.kernels[1:]
        stream = cp.cuda.Stream(non_blocking=True)

        def launches():
            if loader:
                _kernels.get_function(self.family, "graph_load_call", self.options)(
                    (1,), (32,), (np.uint64(buffer.pinned.ptr), buffer.dev, np.int32(words.count)))
            for i, k in enumerate(kernels):
                args = k.arguments(words, call, fresh)
                if i == 0 and not loader:  # a lean graph's first kernel depends on nothing before it
                    k.fn(k.grid, k.block, args, shared_mem=k.shared_mem)
                else:
                    launch_dependent(k.fn, k.grid, k.block, args, k.shared_mem)
        try:
            with stream:
                if self.driver:
                    graph = _native.capture(stream, launches)
                else:
                    stream.begin_capture()
                    try:
                        launches()
                    finally:
                        graph = stream.end_capture()
            graph.upload(stream)
            stream.synchronize()
        except Exception:
            return False
        if self.ran is not None:
            self.ran("graph" if loader else "lean-graph")
        return graph


class PinnedResults:
    """Pinned int32 memory the last kernel of a plan writes to: ``host[0]`` the published flag
    (read and written through ``flag``, a memoryview: its item access is cheaper than numpy's),
    the rest the family's results."""

    __slots__ = ("pinned", "host", "flag", "flag_ptr")

    def __init__(self, cp, ints):
        self.pinned = cp.cuda.alloc_pinned_memory(4 * ints)
        self.host = np.frombuffer(self.pinned, dtype=np.int32, count=ints)
        self.flag = memoryview(self.host)
        self.flag_ptr = self.pinned.ptr  # (await_published's poll in C)


class HotCall:
    """The base of what a family keeps of a replayed call so that its repeat skips the argument
    layer: CuPy, the device the call ran on, and the current device's and stream's getters, bound
    once. The family adds what its replay needs, computed when the call is made hot."""

    __slots__ = ("cp", "device", "get_device", "get_stream")

    def __init__(self, cp):
        self.cp = cp
        self.get_device, self.get_stream = cp.cuda.runtime.getDevice, cp.cuda.get_current_stream
        self.device = self.get_device()


class SpareOutput:
    """Output memory for a plan's next call, allocated while the GPU runs the current one, so the
    allocation is off the next call's path. ``take`` returns the spare when it was made on the
    same stream with the same size, else new memory; ``refill`` makes the next spare."""

    __slots__ = ("_spare",)

    def __init__(self):
        self._spare = None

    def take(self, cp, stream, nbytes):
        spare, self._spare = self._spare, None
        if spare is not None and spare[0] == stream.ptr and spare[1] == nbytes:
            return spare[2]
        return cp.cuda.alloc(nbytes)

    def refill(self, cp, stream, nbytes):
        self._spare = (stream.ptr, nbytes, cp.cuda.alloc(nbytes))


def await_published(flag_view, unset, stream, flag_ptr=None):
    """Wait until a kernel on ``stream`` has published a result flag at flag_view[0] (pinned host
    memory at address ``flag_ptr``, ``unset`` before the launch). The kernels write everything the
    host then reads before the flag, fenced (__threadfence_system), so the host may go on as soon as
    the flag changes, before the stream could report completion. A finished stream that left the
    flag unset (a failed launch) is synchronised, which raises its error; if none is raised the flag
    is still ``unset`` and the caller reports it.

    Where cvgpu._native's helpers load (and ``flag_ptr`` is given) the poll runs in C without the
    GIL, so the other threads' Python work goes on meanwhile. Else it polls here: a thread spinning
    in Python holds the GIL, and Python hands it to another thread only every switch interval
    (5 ms), so where other threads exist the poll releases it every 32 polls (time.sleep(0)); alone,
    it spins without a system call."""
    if flag_view[0] != unset:
        return
    helpers = _native.helpers() if flag_ptr is not None else None
    if helpers is not None:
        value = helpers.wait(flag_ptr, unset, stream.ptr)
        if value == unset or value <= _native.ERROR:
            stream.synchronize()
        return
    shared = _active_count() > 1
    polls = 0
    while flag_view[0] == unset:
        polls += 1
        if polls & 31 == 0:
            if shared:
                _sleep(0)
            if polls & 4095 == 0 and stream.done:
                stream.synchronize()
                return


# ---------------------------------------------------------------- programmatic dependent launches

# cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (CUDA 12 driver API;
# CuPy's launches take no attributes). Used while capturing graphs only: building the ctypes call
# is slow, and a captured graph replays it for free.
_PROGRAMMATIC_STREAM_SERIALIZATION = 6


class _LaunchAttribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", ctypes.c_ubyte * 64)]


class _LaunchConfig(ctypes.Structure):
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3), ("shared_mem", ctypes.c_uint),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.POINTER(_LaunchAttribute)),
                ("num_attrs", ctypes.c_uint)]


_launch_ex = []


def _driver_launch_ex():
    """libcuda's cuLaunchKernelEx, or None (no such library or entry point)."""
    if not _launch_ex:
        fn = None
        for name in ("libcuda.so.1", "libcuda.so", "nvcuda.dll"):
            try:
                fn = getattr(ctypes.CDLL(name), "cuLaunchKernelEx")
                break
            except (OSError, AttributeError):
                continue
        if fn is not None:
            fn.argtypes = [ctypes.POINTER(_LaunchConfig), ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p),
                           ctypes.c_void_p]
            fn.restype = ctypes.c_int
        _launch_ex.append(fn)
    return _launch_ex[0]


def _argument_buffers(cp, args):
    """Each kernel argument's bytes as CuPy passes them (device pointer, numpy scalar), or None for
    a kind this path does not handle."""
    buffers = []
    for a in args:
        if isinstance(a, cp.ndarray):
            buffers.append(ctypes.c_void_p(a.data.ptr))
        elif isinstance(a, np.generic):
            raw = a.tobytes()
            buffers.append((ctypes.c_char * len(raw)).from_buffer_copy(raw))
        else:
            return None
    return buffers


def launch_dependent(fn, grid, block, args, shared_mem=0):
    """Launch the ``cupy.RawKernel`` ``fn`` on the current stream as a programmatic dependent of the
    kernel before it: the kernel must call await_previous_kernel() (kernels/graphs.cuh) before its
    first global memory access. A plain launch where that is not available (compute capability
    below 9.0, no cuLaunchKernelEx, an argument kind not handled here)."""
    cp = cupy_module()
    launch_ex = _driver_launch_ex()
    buffers = _argument_buffers(cp, args) if launch_ex is not None else None
    if buffers is None or _kernels.compute_capability() < 90:
        fn(grid, block, args, shared_mem=shared_mem)
        return
    grid = tuple(grid) + (1,) * (3 - len(grid))
    block = tuple(block) + (1,) * (3 - len(block))
    params = (ctypes.c_void_p * max(1, len(buffers)))(*[ctypes.addressof(b) for b in buffers])
    attribute = _LaunchAttribute(id=_PROGRAMMATIC_STREAM_SERIALIZATION)
    attribute.value[0] = 1
    config = _LaunchConfig((ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block), shared_mem,
                           cp.cuda.get_current_stream().ptr, ctypes.pointer(attribute), 1)
    status = launch_ex(ctypes.byref(config), fn.kernel.ptr, params, None)
    if status != 0:
        raise RuntimeError("cuLaunchKernelEx failed with CUDA error %d" % status)
