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
import os
import threading

from ._backend import cupy_module

# (hashlib, json and pathlib are imported where first used: a script whose calls all stay on cv2
# imports this module with its family and never needs them; together ~9 ms of its first call.)
_dirs = []


def _source_dirs():
    """(cvgpu/kernels, the repository's kernels/) as pathlib.Path objects."""
    if not _dirs:
        import pathlib
        here = pathlib.Path(__file__).resolve().parent
        _dirs.append((here / "kernels", here.parent / "kernels"))
    return _dirs[0]

# IEEE behaviour the CPU has: denormals kept (x86 without FTZ/DAZ, as cv2 runs), exact division
# and square root. Kernels that need no contraction say so with __fmul_rn/__fadd_rn themselves.
_BASE_OPTIONS = ("--std=c++14", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")

# Architectures the fatbins hold machine code for (compute capability x 10). 8.0 is the oldest the
# kernels build for (they use sm_80's warp reductions); newer devices compile at run time.
AOT_ARCHS = (80, 86, 89, 90, 100, 120)
# Option sets each module is built with ahead of time (modules not named: the base options only).
AOT_OPTION_SETS = {"hough/lines": ((), ("-DCVGPU_WIDE_POINTS",)), "cuda/hough": ((), ("-DCVGPU_WIDE_POINTS",)),
                   "cuda/segments": ((), ("-DCVGPU_WIDE_POINTS",))}
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
    for root in _source_dirs():
        path = root / (family + ".cu")
        if path.is_file():
            lines = _inline_includes(path, root, set())
            return (root / "ieee_f32.cuh").read_text() + '\n#line 1 "%s.cu"\n' % family + "\n".join(lines) + "\n"
    raise FileNotFoundError("cvgpu kernel source %s.cu not found in %s" % (family, _source_dirs()))


def aot_key(family, options):
    """The manifest's name of a module built with extra ``options``."""
    return family + "".join(" " + o for o in options)


def source_hash(family, options):
    """sha256 of what a module is compiled from: its full source and every compile option."""
    import hashlib
    h = hashlib.sha256(kernel_source(family).encode())
    h.update("\0".join(_BASE_OPTIONS + tuple(options)).encode())
    return h.hexdigest()


def aot_manifest():
    """kernels/_aot/manifest.json as a dict, with "dir" set to its folder ({} when there is none)."""
    if not _manifest:
        import json
        found = {}
        for root in _source_dirs():
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


def _module(cp, mkey):
    """The loaded module of (device, family, options, cooperative); the caller holds _lock."""
    module = _modules.get(mkey)
    if module is None:
        module, _origins[mkey] = _load_module(cp, mkey[1], mkey[2], mkey[3])
        _modules[mkey] = module
    return module


def preload(family, options=(), cooperative=False):
    """Load a module on the current device now (the engine's background start-up warms the
    families a process has called), so that its first call does not pay for it."""
    cp = cupy_module()
    with _lock:
        _module(cp, (cp.cuda.Device().id, family, tuple(options), bool(cooperative))).module  # noqa: B018 (loads)


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
                fn = _functions[fkey] = _module(cp, fkey[:4]).get_function(name)
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
