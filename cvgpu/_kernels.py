"""The one compiled-kernel cache: ``kernels/<family>.cu`` built through NVRTC once per device and
option set, then reused. Sources ship inside the wheel as ``cvgpu/kernels`` and are read from the
repository's ``kernels/`` in a source checkout."""
import pathlib
import threading

from ._backend import cupy_module

_HERE = pathlib.Path(__file__).resolve().parent
_SOURCE_DIRS = (_HERE / "kernels", _HERE.parent / "kernels")

# IEEE behaviour the CPU has: denormals kept (x86 without FTZ/DAZ, as cv2 runs), exact division
# and square root. Kernels that need no contraction say so with __fmul_rn/__fadd_rn themselves.
_BASE_OPTIONS = ("--std=c++14", "--ftz=false", "--prec-div=true", "--prec-sqrt=true")

_lock = threading.Lock()
_modules = {}
_functions = {}


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
                    module = cp.RawModule(code=kernel_source(family), options=_BASE_OPTIONS + tuple(options),
                                          enable_cooperative_groups=bool(cooperative))
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
