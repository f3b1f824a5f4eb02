"""The one compiled-kernel cache: ``kernels/<family>.cu`` loaded once per device and option set,
then reused. Sources ship inside the wheel as ``cvgpu/kernels`` and are read from the repository's
``kernels/`` in a source checkout.

Kernels are compiled ahead of time (``tools/build_kernels.py``, nvcc) into ``kernels/_aot/``: one
fatbin per module and option set, with machine code for every architecture in ``AOT_ARCHS``, and
``manifest.json`` recording the sha256 of the exact source and options each was built from. A module
is loaded from its fatbin when the manifest's source hash equals the source's (a stale binary is
never used) and the device's architecture is in it; otherwise, or when the driver cannot load it, it
is compiled at run time through NVRTC as before. ``CVGPU_KERNELS=nvrtc`` forces run-time compilation.
"""
import ctypes
import hashlib
import json
import os
import pathlib
import threading

import numpy as np

from ._backend import cupy_module

_HERE = pathlib.Path(__file__).resolve().parent
_SOURCE_DIRS = (_HERE / "kernels", _HERE.parent / "kernels")

# IEEE behaviour the CPU has: denormals kept (x86 without FTZ/DAZ, as cv2 runs), exact division
# and square root. Kernels that need no contraction say so with __fmul_rn/__fadd_rn themselves.
_BASE_OPTIONS = ("--std=c++14", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")

# Architectures the fatbins hold machine code for (compute capability x 10). 8.0 is the oldest the
# kernels build for (they use sm_80's warp reductions); newer devices compile at run time.
AOT_ARCHS = (80, 86, 89, 90, 100, 120)
# Option sets each module is built with ahead of time (modules not named: the base options only).
AOT_OPTION_SETS = {"hough": ((), ("-DCVGPU_WIDE_POINTS",)), "cuda_hough": ((), ("-DCVGPU_WIDE_POINTS",))}
AOT_DIR = "_aot"

_lock = threading.Lock()
_modules = {}
_functions = {}
_origins = {}        # (device, family, options, cooperative) -> "aot" or "nvrtc"
_manifest = []


def _inline_includes(path, root, seen):
    """The lines of ``path`` with each ``#include "<name>.cuh"`` replaced by that file (looked up beside
    ``path``, then in kernels/), each header inlined once per module, ``#line`` markers keeping the
    compiler's messages on the real file and line."""
    lines = []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        name = text[len('#include "'):-1] if text.startswith('#include "') and text.endswith('"') else None
        header = None
        if name and name.endswith(".cuh"):
            header = next((f for f in (path.parent / name, root / name) if f.is_file()), None)
        if header is None:
            lines.append(line)
            continue
        if header not in seen:
            seen.add(header)
            lines.append('#line 1 "%s"' % header.relative_to(root).as_posix())
            lines.extend(_inline_includes(header, root, seen))
        lines.append('#line %d "%s"' % (number + 1, path.relative_to(root).as_posix()))
    return lines


def kernel_source(family):
    """kernels/<family>.cu (``family`` may name a sub-folder: "contours/suzuki") with the shared IEEE
    float32 helpers (kernels/ieee_f32.cuh) in front and its ``#include "<name>.cuh"`` lines inlined
    (NVRTC gets one string)."""
    for root in _SOURCE_DIRS:
        path = root / (family + ".cu")
        if path.is_file():
            lines = _inline_includes(path, root, set())
            return (root / "ieee_f32.cuh").read_text() + '\n#line 1 "%s.cu"\n' % family + "\n".join(lines) + "\n"
    raise FileNotFoundError("cvgpu kernel source %s.cu not found in %s" % (family, _SOURCE_DIRS))


def aot_key(family, options):
    """The manifest's name of a module built with extra ``options``."""
    return family + "".join(" " + o for o in options)


def source_hash(family, options):
    """sha256 of what a module is compiled from: its full source and every compile option."""
    h = hashlib.sha256(kernel_source(family).encode())
    h.update("\0".join(_BASE_OPTIONS + tuple(options)).encode())
    return h.hexdigest()


def aot_manifest():
    """kernels/_aot/manifest.json as a dict, with "dir" set to its folder ({} when there is none)."""
    if not _manifest:
        found = {}
        for root in _SOURCE_DIRS:
            path = root / AOT_DIR / "manifest.json"
            if path.is_file():
                found = json.loads(path.read_text())
                found["dir"] = str(path.parent)
                break
        _manifest.append(found)
    return _manifest[0]


def _aot_path(family, options, capability):
    """The fatbin to load for this module on a device of ``capability``, or None (no binary for
    this source, options or architecture; or run-time compilation forced)."""
    if os.environ.get("CVGPU_KERNELS", "").lower() == "nvrtc":
        return None
    manifest = aot_manifest()
    entry = manifest.get("modules", {}).get(aot_key(family, options))
    if entry is None or capability not in manifest.get("archs", ()):
        return None
    if entry["source_sha256"] != source_hash(family, options):
        return None
    return os.path.join(manifest["dir"], entry["file"])


def _load_module(cp, family, options, cooperative):
    """(module, origin): the shipped fatbin when it loads, else an NVRTC build."""
    path = _aot_path(family, tuple(options), compute_capability())
    if path is not None:
        try:
            module = cp.RawModule(path=path, enable_cooperative_groups=bool(cooperative))
            module.module  # noqa: B018 - load now, so that a driver refusing the binary falls back here
            return module, "aot"
        except Exception:  # an older driver than the toolkit that built it, a damaged file
            pass
    module = cp.RawModule(code=kernel_source(family), options=_BASE_OPTIONS + tuple(options),
                          enable_cooperative_groups=bool(cooperative))
    return module, "nvrtc"


def module_origins():
    """{(device, family, options, cooperative): "aot" or "nvrtc"} of the modules loaded so far."""
    return dict(_origins)


def get_function(family, name, options=(), max_dynamic_shared=None, cooperative=False):
    """A ``cupy.RawKernel`` for ``name`` from ``kernels/<family>.cu`` on the current device.
    ``cooperative``: from a module of its own whose kernels CuPy launches with
    cuLaunchCooperativeKernel (all blocks resident at once, or the launch fails)."""
    cp = cupy_module()
    device = cp.cuda.Device().id
    fkey = (device, family, tuple(options), bool(cooperative), name)
    fn = _functions.get(fkey)
    if fn is None:
        with _lock:
            fn = _functions.get(fkey)
            if fn is None:
                mkey = fkey[:4]
                module = _modules.get(mkey)
                if module is None:
                    module, _origins[mkey] = _load_module(cp, family, options, cooperative)
                    _modules[mkey] = module
                fn = module.get_function(name)
                _functions[fkey] = fn
    if max_dynamic_shared is not None and fn.max_dynamic_shared_size_bytes < max_dynamic_shared:
        fn.max_dynamic_shared_size_bytes = max_dynamic_shared
    return fn


_scratch = threading.local()


def thread_workspace(family, make):
    """The family's scratch for the calling thread on the current device, made by ``make()`` the
    first time. Per thread: calls from several threads never share buffers or counters."""
    cp = cupy_module()
    spaces = getattr(_scratch, "spaces", None)
    if spaces is None:
        spaces = _scratch.spaces = {}
    key = (family, cp.cuda.runtime.getDevice())
    ws = spaces.get(key)
    if ws is None:
        ws = spaces[key] = make()
    return ws


_props = {}


def _device_props():
    cp = cupy_module()
    device = cp.cuda.Device().id
    props = _props.get(device)
    if props is None:
        dev = cp.cuda.Device(device)
        attrs = dev.attributes
        props = ((attrs["MultiProcessorCount"], attrs["MaxSharedMemoryPerBlockOptin"]), int(dev.compute_capability))
        _props[device] = props
    return props


def device_properties():
    """(multiprocessor count, opt-in shared memory per block) of the current device, cached."""
    return _device_props()[0]


def compute_capability():
    """The current device's compute capability as 10 * major + minor, cached."""
    return _device_props()[1]


def resident_blocks(fn, threads, dynamic_shared):
    """Blocks of ``fn`` that fit on one SM at once (CUDA's occupancy calculator), 0 when unknown."""
    cp = cupy_module()
    try:
        return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(fn.kernel.ptr, threads, dynamic_shared))
    except Exception:  # an older CuPy without the binding, or a kernel object without .kernel
        return 0


def capture_graph(cp, family, options, call_dev, call_pinned, words, launch, loader=True):
    """``launch(call, fresh, run)``: kernel launches, each made as ``run(fn, grid, block, args,
    shared_mem)``, that read their per-call values from device memory at ``call``, captured as one
    CUDA graph whose first node (kernels/hough_points.cuh: graph_load_call) brings those ``words``
    64-bit values from pinned ``call_pinned`` into ``call_dev`` (a replayed graph takes no new
    arguments). Every kernel after it is a programmatic dependent of the one before
    (launch_dependent). One replay costs the host ~3 us where three launches with their arguments
    cost ~25. ``fresh`` is NULL there. With ``loader=False``, a lean graph: no load node; ``fresh`` is
    call_pinned, for a first kernel that copies the words that change per call itself
    (kernels/hough_points.cuh: fresh_word_load), so it may only be replayed while call_dev holds
    the rest. False where capture fails: the caller then keeps launching directly."""
    capture = cp.cuda.Stream(non_blocking=True)
    first = [not loader]  # a lean graph's first kernel depends on nothing before it

    def run(fn, grid, block, args, shared_mem=0):
        if first[0]:
            first[0] = False
            fn(grid, block, args, shared_mem=shared_mem)
        else:
            launch_dependent(fn, grid, block, args, shared_mem)
    try:
        with capture:
            capture.begin_capture()
            try:
                if loader:
                    get_function(family, "graph_load_call", options)(
                        (1,), (32,), (np.uint64(call_pinned.ptr), call_dev, np.int32(words)))
                launch(np.uint64(call_dev.data.ptr), np.uint64(0 if loader else call_pinned.ptr), run)
            finally:
                graph = capture.end_capture()
        graph.upload(capture)
        capture.synchronize()
        return graph
    except Exception:  # no capture on this platform or CuPy
        return False


# cuLaunchKernelEx with CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION (CUDA 12 driver API;
# CuPy's launches take no attributes). Used while capturing graphs only: building the ctypes call
# costs tens of microseconds of host time, once per captured plan.
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
    kernel before it: the kernel must call await_previous_kernel() (kernels/hough_points.cuh) before
    its first global memory access. A plain launch where that is not available (compute capability
    below 9.0, no cuLaunchKernelEx, an argument kind not handled here)."""
    cp = cupy_module()
    launch_ex = _driver_launch_ex()
    buffers = _argument_buffers(cp, args) if launch_ex is not None else None
    if buffers is None or compute_capability() < 90:
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


class SpareOutput:
    """Output memory for a call's next replay, allocated while the GPU runs the current one, so the
    allocation (~1 us of host time) is off the critical path of the next call. ``take`` returns
    the spare when it was made on the same stream with the same size, else new memory; ``refill``
    makes the next spare. Used by cvgpu.hough and cvgpu.cuda.hough."""

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


def await_published(flag_view, unset, stream):
    """Wait until a kernel on ``stream`` has published a result flag at flag_view[0] (pinned host
    memory, ``unset`` before the launch). The kernels write everything the host then reads before
    the flag, fenced (__threadfence_system), so the host may go on as soon as the flag changes, a
    few microseconds before the stream could report completion (measured in cvgpu.hough). Every
    4096 polls the stream is asked: a finished stream that left the flag unset (a failed launch)
    is synchronised, which raises its error; if none is raised the flag is still ``unset`` and the
    caller reports it."""
    polls = 0
    while flag_view[0] == unset:
        polls += 1
        if polls & 4095 == 0 and stream.done:
            stream.synchronize()
            return
