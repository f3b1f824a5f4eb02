"""Plumbing shared by the contours pipelines: cv2's constants, the argument helpers, the GPU a
call runs on (``Gpu``: CuPy, the family's kernels, the thread's scratch), and cv2's errors for
calls the kernels cannot index or the GPU cannot hold."""
import contextlib
import os
import re
import threading

import cv2
import numpy as np

from .. import _backend, _device_ops, _errors, _kernels
from .._arrays import as_device_array
from . import TUNING

RETR_EXTERNAL, RETR_LIST, RETR_CCOMP, RETR_TREE, RETR_FLOODFILL = 0, 1, 2, 3, 4
CHAIN_APPROX_NONE, CHAIN_APPROX_SIMPLE, CHAIN_APPROX_TC89_L1, CHAIN_APPROX_TC89_KCOS = 1, 2, 3, 4
NULL = np.intp(0)  # a kernel's pointer argument not used (a null pointer)
TC89 = (CHAIN_APPROX_TC89_L1, CHAIN_APPROX_TC89_KCOS)

BLOCK = 256               # threads per block of the one-thread-per-element launches
GRID_CAP = 65535 * 8      # blocks of a grid-stride launch: _suzuki's index audit relies on it


class Forward(Exception):
    """The call is cv2's to compute (or to reject)."""


def is_int(v):
    return isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))


def by_name(names, args, kwargs):
    """The call's arguments by parameter name; Forward where cv2's binding must judge them."""
    if len(args) > len(names):
        raise Forward
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names or k in bound:
            raise Forward
        bound[k] = v
    return bound


_PLAIN = (int, float, bool, str, tuple, list, np.ndarray)  # (exact types: never device arrays)


def host(v):
    """``v`` as cv2 takes it: device arrays downloaded, everything else as it is."""
    if v is None or type(v) in _PLAIN or isinstance(v, np.ndarray):
        return v
    d = as_device_array(v)
    return _device_ops.ops(_backend.cupy_module()).to_host(d) if d is not None else v


def cv2_call(function, args, kwargs):
    """cv2.<function>(*args, **kwargs) on host copies, reported as computed by cv2."""
    _backend.record("cv2")
    return getattr(cv2, function)(*[host(a) for a in args], **{k: host(v) for k, v in kwargs.items()})


# ---------------------------------------------------------------- the GPU a call runs on

class Workspace:
    """Per thread and device: scratch reused by every call (the image-sized label and flag arrays and
    the walk states), so a call allocates only what it returns. ``counter`` is zero between calls:
    ccl_finish's last block resets it."""

    def __init__(self, cp):
        self.cp = cp
        self.counter = cp.zeros(1, dtype=cp.uint32)
        self.total = cp.zeros(1, dtype=cp.uint64)
        self.barrier = cp.zeros(2, dtype=cp.uint32)  # rank_jump_inplace's grid barrier (left reusable)
        self.jump_counts = cp.zeros(64, dtype=cp.uint32)  # its list lengths per round (left zero)
        self.bufs = {}
        self.done = None          # event recorded after the last call's work, on done_stream
        self.done_stream = None
        self.last_counts = None   # (borders, border pixels) of the last _suzuki call

    def claim(self):
        """The current stream, made to wait for the previous call's work when that ran on another
        stream: a call with device results returns before its last kernels (the point emission,
        TC89) have read the scratch, and this call would overwrite it. No host sync."""
        stream = self.cp.cuda.get_current_stream()
        if self.done_stream is not None and self.done_stream != stream.ptr:
            stream.wait_event(self.done)
        return stream

    def release(self, stream):
        if self.done is None:
            self.done = self.cp.cuda.Event(block=False, disable_timing=True)
        self.done.record(stream)
        self.done_stream = stream.ptr

    def pinned(self, nbytes):
        """A reused pinned host buffer of at least nbytes (uint8 numpy view of its first nbytes)."""
        buf = self.bufs.get("pinned")
        if buf is None or buf.size < nbytes:
            mem = self.cp.cuda.alloc_pinned_memory(max(nbytes, 1))
            buf = self.bufs["pinned"] = np.frombuffer(mem, np.uint8, max(nbytes, 1))
        return buf[:nbytes]

    def grown(self, name, size, dtype):
        arr = self.bufs.get(name)
        if arr is None or arr.size < size:
            arr = self.bufs[name] = self.cp.empty(max(size, 1), dtype=dtype)
        return arr


_cooperative = {}  # (device, threads) -> blocks of rank_jump_inplace resident at once (0: no cooperative launch)


class Gpu:
    """The GPU as the pipelines use it: ``cp`` (CuPy), ``fn(module, name)`` (a kernel of
    kernels/contours/<module>.cu), ``workspace(family)`` (the calling thread's scratch), ``grid(n)``
    (the grid of a grid-stride launch over n elements), ``cooperative(module, name, threads)`` (a
    kernel for cooperative launches and its blocks resident at once, None where there is none),
    ``cooperative_failed()``, ``shared_memory()`` (opt-in shared memory per block) and ``ops`` (the
    generic array operations, cvgpu._device_ops: nothing the pipelines run is compiled by CuPy).
    Tests stand in another object with the same members (tests/contours/kernel_host.py: HostGpu,
    kernels built for the host)."""

    grid_cap = GRID_CAP

    def __init__(self, cp):
        self.cp = cp
        self.ops = _device_ops.ops(cp)

    def fn(self, module, name, max_dynamic_shared=None, cooperative=False):
        return _kernels.get_function("contours/" + module, name, max_dynamic_shared=max_dynamic_shared,
                                     cooperative=cooperative)

    def workspace(self, family="contours"):
        return _kernels.thread_workspace(family, lambda: Workspace(self.cp))

    def grid(self, n):
        blocks = -(-n // BLOCK)
        if blocks > self.grid_cap:
            TUNING.ran("grid_capped")
            blocks = self.grid_cap
        return (max(1, blocks),)

    def cooperative(self, module, name, threads):
        """(kernel loaded for cooperative launches, its blocks of ``threads`` resident at once on the
        current device), or None where it cannot be launched cooperatively."""
        device = self.cp.cuda.runtime.getDevice()
        fn = self.fn(module, name, cooperative=True)
        resident = _cooperative.get((device, threads))
        if resident is None:
            num_sms, _ = _kernels.device_properties()
            resident = _cooperative[device, threads] = num_sms * _kernels.resident_blocks(fn, threads, 0)
        return (fn, resident) if resident else None

    def cooperative_failed(self):
        """The device refused a cooperative launch (driver, MPS): none is tried again on it."""
        device = self.cp.cuda.runtime.getDevice()
        for key in [key for key in _cooperative if key[0] == device]:
            _cooperative[key] = 0

    def shared_memory(self):
        return _kernels.device_properties()[1]


_gpu = {"override": None, "overridden": False, "made": None}


def current_gpu():
    """The Gpu the public functions compute on, None without a usable GPU (see computing_on)."""
    if _gpu["overridden"]:
        return _gpu["override"]
    cp = _backend.cupy_module()
    if cp is None:
        return None
    made = _gpu["made"]
    if made is None or made.cp is not cp:
        made = _gpu["made"] = Gpu(cp)
    return made


@contextlib.contextmanager
def computing_on(gpu):
    """For tests: inside the block the public functions compute on ``gpu`` (an object with Gpu's
    members, e.g. kernels built for the host) instead of CuPy's device; None: as without a GPU.
    Process-wide, like TUNING.override."""
    saved = dict(_gpu)
    _gpu["override"], _gpu["overridden"] = gpu, True
    try:
        yield gpu
    finally:
        _gpu.update(saved)


# ---------------------------------------------------------------- errors for what cannot run

INT32_PIXELS = (1 << 31) - 1025  # flat int indices, plus the last 1024-pixel tile (_suzuki: "Index widths")
_OOM_BYTES = re.compile(r"allocating ([0-9,]+) bytes")


class TooLarge(Exception):
    """Counts known only after labelling exceed what the walk kernels index."""


def check_image_size(shape, func):
    """cv2.error (-211) for an image beyond the int32 pixel indices, before the GPU is touched."""
    h, w = int(shape[0]), int(shape[1])
    n = (h + 2) * (w + 2)
    if n > INT32_PIXELS:
        raise _errors.cv_error(
            _errors.BAD_VALUE,
            "cvgpu: the %d x %d image has %d pixels with its one-pixel frame, more than the %d that "
            "the GPU kernels index with int32" % (h, w, n, INT32_PIXELS), func)


def release(gpu, family="contours"):
    """Drop this thread's cached scratch and the pool's free blocks (after a failed huge call)."""
    gpu.workspace(family).bufs.clear()
    gpu.cp.get_default_memory_pool().free_all_blocks()


def retrying(func, gpu, attempt, family="contours"):
    """attempt() with cv2's errors: TooLarge as -211; on running out of GPU memory, the thread's
    cached scratch of earlier (other-sized) calls is dropped (release) and the call is tried once
    more, then cv2's -4. The retry and the release happen outside the except blocks, so the failed
    attempt's arrays (held by the traceback) are gone by then."""
    need = 0
    for _ in range(2):
        too_large = None
        try:
            return attempt()
        except gpu.cp.cuda.memory.OutOfMemoryError as exc:
            found = _OOM_BYTES.search(str(exc))
            need = int(found.group(1).replace(",", "")) if found else 0
        except TooLarge as exc:
            too_large = str(exc)
        release(gpu, family)
        if too_large is not None:
            raise _errors.cv_error(_errors.BAD_VALUE, too_large, func)
    raise _errors.out_of_memory(need)


class HostGate:
    """At most TUNING.host_calls_at_once threads at a time inside (0: any number), the others
    waiting with the GIL released. ``most`` is the largest number seen inside at once (tests)."""

    def __init__(self):
        self._cond = threading.Condition()
        self.inside = 0
        self.most = 0

    def __enter__(self):
        limit = TUNING.host_calls_at_once
        with self._cond:
            if limit and self.inside >= limit:
                TUNING.ran("host_gate_waited")
                while self.inside >= limit:
                    self._cond.wait()
            self.inside += 1
            self.most = max(self.most, self.inside)
        return self

    def __exit__(self, *exc):
        with self._cond:
            self.inside -= 1
            self._cond.notify()
        return False


HOST_GATE = HostGate()


def _gate_after_fork():
    # a thread of the parent inside the gate at fork() does not exist in the child
    global HOST_GATE
    HOST_GATE = HostGate()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_gate_after_fork)


def run_ordered(func, gpu, attempt, family="contours"):
    """retrying(), ordered after the thread's previous call when that ran on another stream (see
    Workspace.claim)."""
    ws = gpu.workspace(family)
    stream = ws.claim()
    try:
        return retrying(func, gpu, attempt, family)
    finally:
        ws.release(stream)


def empty(cp):
    """The result of an image without contours: (points, offsets, host offsets, hierarchy)."""
    return cp.zeros((0, 2), cp.int32), cp.zeros(1, cp.int64), np.zeros(1, np.int64), cp.zeros((0, 4), cp.int32)
