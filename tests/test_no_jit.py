"""No GPU path of cvgpu makes CuPy compile a kernel (issue 40 §1).

CuPy compiles its elementwise, indexing, scan and reduction kernels through NVRTC the first time an
operation meets given dtypes (50-100 ms each on a fresh machine); cvgpu's own kernels ship compiled,
and the array operations its paths need besides are in cvgpu/_device_ops.py (kernels/device_ops.cu).
Four checks:

* static (CPU): every call of a CuPy module function in cvgpu/ is one that compiles nothing, and
  every call of a method CuPy compiles for (astype, copy, fill, reductions, sort, ...) is on a numpy
  array or precompiled, each one listed in ALLOWED with the reason;
* the contours pipelines (CPU) on the host stand-in of the GPU (tests/contours/kernel_host.py) with
  arrays that raise when cvgpu's code applies an operation CuPy would compile (operators, casts,
  copies, fancy indexing, item assignment, ...) and a CuPy module without the compiling functions,
  every forced path included, the results checked against cv2;
* every family's public calls (CPU) on tools/fake_cupy.py in strict mode (tests/no_jit_calls.py);
* the same calls on the GPU (gpu), in a fresh process with an empty CUPY_CACHE_DIR and a hook on
  CuPy's compiler: nothing may be compiled, with and without CuPy's CUB accelerators.
"""
import ast
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import cv2
import numpy as np
import pytest

from cvgpu import _versions

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE / "contours"))

import kernel_host  # noqa: E402
from contours_forcing import forcing  # noqa: E402
from cvgpu import contours as cc  # noqa: E402
from cvgpu.contours import _labels, _linkruns, _suzuki  # noqa: E402
from cvgpu.ximgproc import radon  # noqa: E402
from device_ops_host import HostOps  # noqa: E402

CVGPU = str(ROOT / "cvgpu") + os.sep

# ---------------------------------------------------------------- static check

# CuPy module functions that compile nothing: allocation (memset for zeros), uploads and views.
# cupy.asarray compiles nothing without a dtype (an upload, or a view of a device array).
SAFE_CUPY = {"empty", "zeros", "empty_like", "ndarray", "asarray", "get_default_memory_pool", "from_dlpack",
             "RawModule", "RawKernel"}
# Methods CuPy runs as a compiled kernel (fill: unless the value is 0, a memset).
COMPILING_METHODS = {"astype", "copy", "fill", "any", "all", "sum", "max", "min", "mean", "prod", "take", "put",
                     "cumsum", "cumprod", "nonzero", "argsort", "sort", "argmax", "argmin", "ravel", "flatten",
                     "clip", "round", "repeat", "dot", "asnumpy"}
DEVICE_OPS = {"ops", "gpu.ops", "self.ops"}   # receivers that are cvgpu._device_ops.DeviceOps

# (file, function, call) -> why it compiles nothing.
ALLOWED = {
    ("cvgpu/_device_ops.py", "argsort", "cp.argsort"):
        "only for a CuPy without cuda.thrust.argsort (every CuPy since v11 has it)",
    ("cvgpu/_device_ops.py", "argsort", "thrust.argsort"): "Thrust's precompiled argsort on raw pointers",
    ("cvgpu/_device_ops.py", "sort", "out.sort"):
        "ndarray.sort in place on a contiguous 1-D array: Thrust's precompiled sort, no copy",
    ("cvgpu/contours/_ranking.py", "grouped_layout", "lengths.sum"): "numpy: the downloaded lengths",
    ("cvgpu/cuda/gpumat.py", "setTo", "values.astype"): "numpy: the fill values",
    ("cvgpu/cuda/hough.py", "_buffers", "angles.astype"): "numpy: the angle table",
    ("cvgpu/cuda/hough.py", "_replay", "buf.spare_out.take"): "_graphs.SpareOutput.take: memory, not an array",
    ("cvgpu/cuda/hough.py", "_start_detect", "buf.spare_out.take"): "_graphs.SpareOutput.take",
    ("cvgpu/cuda/segments.py", "_launch", "ws.spare_out.take"): "_graphs.SpareOutput.take",
    ("cvgpu/cuda/segments.py", "_replay", "ws.spare_out.take"): "_graphs.SpareOutput.take",
    ("cvgpu/cuda/gpumat.py", "download", "mirror[2].copy"): "numpy: the pinned mirror of a segment detector's result",
    ("cvgpu/cuda/hough.py", "downloadResults", "mirror[4].copy"): "numpy: the pinned mirror of the result",
    ("cvgpu/cuda/hough.py", "downloadResults", "mirror[5].copy"): "numpy: the pinned mirror of the result",
    ("cvgpu/dask.py", "_warm_contours", "(rng.random((512, 512)) < 0.45) * 255.astype"): "numpy: a warm-up image",
    ("cvgpu/dask.py", "_warm_radon", "img.astype"): "numpy: a warm-up image",
    ("cvgpu/dask.py", "submit", "self.frames[self.start:self.stop].to_delayed().ravel"): "a dask array of tasks",
    ("cvgpu/dask.py", "tasks", "batches[0].frames.to_delayed().ravel"): "a dask array of tasks",
    ("cvgpu/hough/_voting.py", "vote_window", "need.max"): "numpy: launch geometry",
    ("cvgpu/hough/lines.py", "_gpu_lines", "ws.spare_out.take"): "_graphs.SpareOutput.take",
    ("cvgpu/hough/lines.py", "_replay", "ws.spare_out.take"): "_graphs.SpareOutput.take",
    ("cvgpu/hough/lines.py", "rows_inside", "bins.max"): "numpy: launch geometry (the corners' bins)",
    ("cvgpu/hough/lines.py", "rows_inside", "bins.min"): "numpy: launch geometry (the corners' bins)",
    ("cvgpu/hough/lines.py", "_result", "ws.host[1:1 + count * per_line].view(np.float32).reshape(shape).copy"):
        "numpy: the pinned result",
    ("cvgpu/lms.py", "_fit_gpu", "host[4 * nset:5 * nset].copy"): "numpy: the downloaded fits",
    ("cvgpu/lms.py", "_fit_gpu", "host[:4 * nset].reshape(nset, 4, 1).copy"): "numpy: the downloaded fits",
    ("cvgpu/lms.py", "_host_meta", "counts.astype"): "numpy: the problems' metadata, uploaded once",
    ("cvgpu/lms.py", "_host_meta", "m.max"): "numpy: the problems' metadata",
    ("cvgpu/lms.py", "_offsets", "off.astype"): "numpy: the offsets argument on the host",
    ("cvgpu/lms.py", "_offsets", "off.astype(np.int64).ravel"): "numpy: the offsets argument on the host",
    ("cvgpu/lms.py", "_problems", "choose.astype"): "numpy: the problems' metadata",
    ("cvgpu/lms.py", "_sample_count", "m.astype"): "numpy: the problems' metadata",
    ("cvgpu/lms.py", "fitLineLMSBatch", "counts.sum"): "numpy: the sets' sizes",
    ("cvgpu/lms.py", "fitLineLMSBatch", "counts.astype"): "numpy: the sets' sizes",
    ("cvgpu/lms.py", "refineHoughLines", "host.copy"): "numpy: the downloaded result",
    ("cvgpu/lms.py", "support_points", "xs.astype"): "numpy: the no-GPU path",
    ("cvgpu/lms.py", "support_points", "ys.astype"): "numpy: the no-GPU path",
    ("cvgpu/ximgproc/radon.py", "_cv2_computes", "src.copy"): "numpy: cv2's input",
    ("cvgpu/ximgproc/radon.py", "_gpu_radon_plain", "inverse_matrices(n, start, theta, a_count).astype"):
        "numpy: the warp matrices, uploaded once",
    ("cvgpu/ximgproc/radon.py", "_gpu_radon_u8_tex", "inverse_matrices(n, start, theta, a_count).astype"):
        "numpy: the warp matrices, uploaded once",
}


def _is_cupy(node):
    return (isinstance(node, ast.Name) and node.id in ("cp", "cupy")) or (
        isinstance(node, ast.Attribute) and node.attr == "cp")


# Modules that make numpy data only (never a GPU path): the selftest's generated cases, the cuda lines
# detector's CPU path (no GPU).
HOST_ONLY = {"cvgpu/_selftest.py", "cvgpu/cuda/_hough_host.py"}


def compiling_calls():
    """{(file, function, call)} of the calls in cvgpu/ (its benchmark aside) that may compile: CuPy
    module functions outside SAFE_CUPY (cupy.asarray with a dtype) and COMPILING_METHODS on any
    receiver but numpy's (np....) and DeviceOps, in functions that are not CPU models (*_numpy*)."""
    found = set()
    for path in sorted((ROOT / "cvgpu").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("cvgpu/bench/") or rel in HOST_ONLY:
            continue
        tree = ast.parse(path.read_text())
        owner = {}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and hasattr(fn, "name"):
                for sub in ast.walk(fn):
                    owner[id(sub)] = fn.name     # the innermost (walked last) wins
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            name, recv, fn = node.func.attr, node.func.value, owner.get(id(node), "<module>")
            text = ast.unparse(recv) + "." + name
            if _is_cupy(recv):
                if name not in SAFE_CUPY or (name == "asarray" and (len(node.args) > 1 or node.keywords)):
                    found.add((rel, fn, text))
                continue
            if name not in COMPILING_METHODS or "_numpy" in fn:
                continue
            r = ast.unparse(recv)
            if r in ("np", "numpy") or r.startswith("np.") or r in DEVICE_OPS or r.startswith("_device_ops.ops("):
                continue
            if name == "fill" and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0:
                continue   # a memset
            found.add((rel, fn, text))
    return found


def test_no_compiling_cupy_calls_in_the_package():
    found = compiling_calls()
    unexplained = sorted(found - set(ALLOWED))
    assert not unexplained, "CuPy compiles a kernel for these (use cvgpu._device_ops or list why not):\n" + \
        "\n".join("  %s %s(): %s" % f for f in unexplained)
    stale = sorted(set(ALLOWED) - found)
    assert not stale, "ALLOWED lists calls that are gone:\n" + "\n".join("  %s %s(): %s" % f for f in stale)


def test_the_static_check_finds_compiling_calls(tmp_path):
    # The check itself: a module with the calls the families made before issue 40 is flagged.
    src = ("def f(cp, a, gpu):\n    b = cp.flatnonzero(a)\n    cp.cumsum(a, out=b)\n    a.fill(5)\n"
           "    c = cp.asarray(a, dtype=cp.int32)\n    d = a.astype(cp.int64)\n    a.fill(0)\n    gpu.ops.sort(a)\n"
           "    return cp.concatenate((b, c)).get(), a.any(), cp.empty(3)\n")
    tree = ast.parse(src)
    calls = [(ast.unparse(n.func.value) + "." + n.func.attr) for n in ast.walk(tree)
             if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)]
    assert {"cp.flatnonzero", "cp.cumsum", "a.fill", "cp.asarray", "a.astype", "cp.concatenate", "a.any"} <= set(calls)
    pkg = tmp_path / "cvgpu"
    pkg.mkdir()
    (pkg / "mod.py").write_text(src)
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        found = {c for _, _, c in compiling_calls()}
    finally:
        ROOT = saved
    assert found == {"cp.flatnonzero", "cp.cumsum", "a.fill", "cp.asarray", "a.astype", "cp.concatenate", "a.any"}


# ---------------------------------------------------------------- contours on a strict host GPU

class CompiledByCupy(AssertionError):
    """cvgpu's code applied an operation CuPy compiles a kernel for."""


def _from_cvgpu(depth=2):
    frame = sys._getframe(depth)
    return frame.f_code.co_filename.startswith(CVGPU), frame


def _compiles(what, depth=3):
    inside, frame = _from_cvgpu(depth)
    if inside:
        raise CompiledByCupy("%s at %s:%d" % (what, frame.f_code.co_filename, frame.f_lineno))


class StrictArray(kernel_host.HostArray):
    """A device array of the host stand-in on which cvgpu may only do what CuPy does without
    compiling: views, reshapes of contiguous arrays, .view, .get of contiguous arrays, fill(0)."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        _compiles("numpy ufunc %s (a CuPy elementwise kernel)" % ufunc.__name__)
        inputs = tuple(np.asarray(x) if isinstance(x, StrictArray) else x for x in inputs)
        if "out" in kwargs:
            kwargs["out"] = tuple(np.asarray(x) if isinstance(x, StrictArray) else x for x in kwargs["out"])
        return getattr(ufunc, method)(*inputs, **kwargs)

    def __array_function__(self, func, types, args, kwargs):
        _compiles("numpy %s (a CuPy kernel)" % func.__name__)
        return super().__array_function__(func, types, args, kwargs)

    def __getitem__(self, key):
        keys = key if isinstance(key, tuple) else (key,)
        if any(isinstance(k, (np.ndarray, list)) for k in keys):
            _compiles("fancy indexing")
        return super().__getitem__(key)

    def __setitem__(self, key, value):
        _compiles("item assignment")
        super().__setitem__(key, value)

    def fill(self, value):
        if value != 0 or not self.flags.c_contiguous:
            _compiles("fill with %r" % (value,))
        super().fill(value)

    def get(self, out=None):
        if not self.flags.c_contiguous:
            _compiles("get of a strided array")
        return super().get(out)

    def reshape(self, *shape, **kwargs):
        if not self.flags.c_contiguous:
            _compiles("reshape of a strided array")
        return super().reshape(*shape, **kwargs)


def _compiling_method(name):
    def method(self, *args, **kwargs):
        _compiles("ndarray.%s" % name)
        return getattr(np.ndarray, name)(self, *args, **kwargs)
    method.__name__ = name
    return method


for _name in ("astype", "copy", "any", "all", "sum", "max", "min", "take", "put", "cumsum", "nonzero", "argsort",
              "sort", "argmax", "argmin", "ravel", "flatten", "clip", "round", "repeat", "dot"):
    setattr(StrictArray, _name, _compiling_method(_name))


def strict(a):
    return np.asarray(a).view(StrictArray)


class StrictCupy(kernel_host.HostCupy):
    """kernel_host's numpy CuPy with StrictArray arrays and without the functions CuPy compiles."""
    ndarray = StrictArray
    zeros = staticmethod(lambda shape, dtype: strict(np.zeros(shape, dtype)))
    empty = staticmethod(lambda shape, dtype: strict(np.full(shape, -7, dtype) if np.dtype(dtype).kind == "i"
                                                     else np.zeros(shape, dtype)))
    empty_like = staticmethod(lambda a: strict(np.empty_like(np.asarray(a))))

    @staticmethod
    def asarray(a, dtype=None):
        if isinstance(a, StrictArray):
            if dtype is not None and np.dtype(dtype) != a.dtype:
                _compiles("cupy.asarray with a cast")
            return a
        return strict(np.array(a, dtype=dtype))

    @staticmethod
    def ascontiguousarray(a):
        if isinstance(a, StrictArray) and not a.flags.c_contiguous:
            _compiles("cupy.ascontiguousarray of a strided array")
        return a if isinstance(a, StrictArray) and a.flags.c_contiguous else strict(np.ascontiguousarray(a))

    def __getattribute__(self, name):
        if name in ("arange", "full", "flatnonzero", "concatenate", "cumsum", "argsort", "sort", "where", "stack",
                    "count_nonzero", "asnumpy"):
            _compiles("cupy.%s" % name)
        return super().__getattribute__(name)


def strict_gpu(base_class, modules, **kwargs):
    """A host GPU (kernel_host.HostGpu or a subclass) computing on StrictArray."""
    gpu = base_class(modules, **kwargs)
    gpu.cp = StrictCupy()
    gpu.ops = HostOps(gpu.cp)
    gpu.spaces = {}
    return gpu


@pytest.fixture(scope="module")
def host_modules(tmp_path_factory):
    modules = {m: kernel_host.build(tmp_path_factory, m) for m in ("ranking", "tc89", "labels", "linkruns")}
    modules["suzuki"] = kernel_host.build_suzuki(tmp_path_factory)
    return modules


@pytest.fixture
def suzuki_gpu(host_modules):
    from test_suzuki_kernel_host import SuzukiHostGpu
    return strict_gpu(SuzukiHostGpu, host_modules)


# The host runs no block-level kernel: these are forced on every call (as the host tests force them).
HOST_PATHS = dict(device_select_max=-1, tree_sort_small_max=-1, offsets_scan_max=-1, jump_shared_max=-1)


def _images():
    from test_contours_model import nested_blobs, salt_pepper
    return [nested_blobs(40, 50, 3, 3, 1), salt_pepper(30, 40, 0.45, 2)]


def _same(ours, ref):
    from test_contours_model import assert_same_contours
    assert_same_contours(ours, ref)


@pytest.mark.parametrize("values, paths", [
    ({}, ("external_flatnonzero", "tree_argsort", "offsets_cumsum", "jump_launches", "flat")),
    (dict(grouped_min=1), ("grouped", "host_sort")),
    (dict(grouped_min=1, host_sort_max=-1), ("grouped", "device_sort")),
    (dict(ruler_min_slots=0), ("rulers",)),
    (dict(tc89_rounds_l1=0, tc89_rounds_kcos=0), ()),
])
def test_8bit_pipeline_compiles_nothing(suzuki_gpu, values, paths):
    for img in _images():
        with forcing(*paths, **dict(HOST_PATHS, **values)), cc.computing_on(suzuki_gpu):
            for mode in (0, 1, 2, 3):
                # (Before 4.10 cv2's TC89_L1 is the legacy code's, not the kernels': _versions, contours.tc89_l1.)
                for method in (1, 2, 4) if _versions.behaviour("contours.tc89_l1") == "legacy" else (1, 2, 3, 4):
                    ref = cv2.findContours(img, mode, method, offset=(2, -1))
                    _same(cc.findContours(img, mode, method, offset=(2, -1)), ref)
                    pts, off, _, hier = _suzuki.gpu_contours(suzuki_gpu, strict(img), mode, method, 2, -1)
                    _same(cc.assemble(np.asarray(pts), np.asarray(off), np.asarray(hier)), ref)
                    packed = cc.findContoursPacked(img, mode, method, (2, -1))
                    assert all(np.array_equal(a, b) for a, b in zip(packed, cc.pack(*ref)))
            # A strided device image is copied by cvgpu._device_ops, not by CuPy.
            wide = np.zeros((img.shape[0], 2 * img.shape[1]), np.uint8)
            wide[:, ::2] = img
            pts, off, _, hier = _suzuki.gpu_contours(suzuki_gpu, strict(wide)[:, ::2], 1, 1, 0, 0)
            _same(cc.assemble(np.asarray(pts), np.asarray(off), np.asarray(hier)), cv2.findContours(img, 1, 1))


@pytest.mark.parametrize("values, paths", [
    ({}, ("tree_argsort", "offsets_cumsum", "lab_rounds", "flat")),
    (dict(lab_max_rounds=0), ("lab_serial",)),
    (dict(grouped_min=1, host_sort_max=-1), ("grouped", "device_sort")),
])
@pytest.mark.skipif(_versions.behaviour("contours.implementation") == "legacy",
                    reason="before 4.10 cv2's label-image contours are the legacy code's, not the kernels'")
def test_label_pipeline_compiles_nothing(host_modules, values, paths):
    from test_labels_model import label_image
    gpu = strict_gpu(kernel_host.HostGpu, host_modules)
    for img in (label_image("blocks", 30, 40, 3, 7), label_image("many", 25, 30, 5, 11)):
        img = np.ascontiguousarray(img, dtype=np.int32)
        with forcing(*paths, **dict(HOST_PATHS, **values)), cc.computing_on(gpu):
            for method in (1, 2, 3, 4):
                ref = cv2.findContours(img, cv2.RETR_FLOODFILL, method)
                _same(cc.findContours(img, cv2.RETR_FLOODFILL, method), ref)
                wide = np.zeros((img.shape[0], 2 * img.shape[1]), np.int32)
                wide[:, ::2] = img
                pts, off, layout, hier = _labels.gpu_labels(gpu, strict(wide)[:, ::2], method, 0, 0)
                _same(cc.assemble(np.asarray(pts), np.asarray(off), np.asarray(hier)), ref)


@pytest.mark.parametrize("values, paths", [({}, ("flat",)),
                                           (dict(grouped_min=1, host_sort_max=-1), ("grouped", "device_sort"))])
@pytest.mark.skipif(not hasattr(cv2, "findContoursLinkRuns"), reason="findContoursLinkRuns exists from OpenCV 4.10")
def test_linkruns_pipeline_compiles_nothing(host_modules, values, paths):
    gpu = strict_gpu(kernel_host.HostGpu, host_modules)
    for img in _images():
        with forcing(*paths, **dict(HOST_PATHS, **values)), cc.computing_on(gpu):
            ref = cv2.findContoursLinkRuns(img)
            _same(cc.findContoursLinkRuns(img), ref)
            wide = np.zeros((img.shape[0], 2 * img.shape[1]), np.uint8)
            wide[:, ::2] = img
            _linkruns.linkruns_gpu(gpu, strict(wide)[:, ::2])


def test_strict_arrays_catch_compiling_operations(host_modules):
    # The stand-in itself: what the pipelines did before issue 40 raises from cvgpu's code.
    gpu = strict_gpu(kernel_host.HostGpu, host_modules)
    cp, a = gpu.cp, strict(np.arange(6, dtype=np.int32))
    snippets = ["cp.flatnonzero(a)", "a.astype(cp.int64)", "a + 1", "a[a]", "a.fill(3)", "cp.full(3, -1, cp.int32)",
                "cp.concatenate((a, a))", "a == a", "a[:] = 0", "(a == 1).any()", "cp.cumsum(a)", "a[::2].get()",
                "cp.asarray(a, dtype=cp.int64)", "cp.ascontiguousarray(a[::2])", "a.copy()", "a[::2].reshape(3)"]
    for snippet in snippets:
        code = compile(snippet, os.path.join(CVGPU, "probe.py"), "exec")   # as if in cvgpu's code
        with pytest.raises(CompiledByCupy):
            exec(code, {"cp": cp, "a": a})
    for snippet in ("a.fill(0)", "a[2:4].get()", "a.reshape(2, 3)", "cp.zeros(3, cp.int32)", "a.view(np.uint32)",
                    "cp.asarray(a)", "cp.ascontiguousarray(a)"):
        exec(compile(snippet, os.path.join(CVGPU, "probe.py"), "exec"), {"cp": cp, "a": a, "np": np})
    a + 1   # from the tests' own code: allowed


# ---------------------------------------------------------------- every family, fake CuPy and GPU

def _pythonpath():
    """cvgpu's checkout first, then the caller's path (CI rows put the cv2 under test there)."""
    return os.pathsep.join([str(ROOT)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))


def _run_calls(mode, env=None, timeout=900):
    proc = subprocess.run([sys.executable, str(HERE / "no_jit_calls.py"), mode], capture_output=True, text=True,
                          timeout=timeout, env=env, cwd=str(ROOT))
    assert proc.returncode == 0, proc.stderr[-4000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_every_family_on_strict_fake_cupy():
    env = dict(os.environ, PYTHONPATH=_pythonpath())
    out = _run_calls("fake", env)
    assert not out["errors"], "\n".join("%s: %s" % tuple(e) for e in out["errors"])
    assert out["calls"] > 100
    # (4.x warps RadonTransform's images in fixed point: cv2 computes it there, no Radon kernel runs.)
    radon_runs = _versions.behaviour("radon.warp") != "fixed_point"
    for path in ("lines.sort-host", "detector.sort-host") + (("global",) if radon_runs else ()):
        assert out["paths"].get(path), (path, out["paths"])


@pytest.mark.gpu
@pytest.mark.parametrize("accelerators", ["", None])
def test_nothing_is_compiled_on_a_fresh_machine(accelerators):
    """Every family's calls in a fresh process with an empty kernel cache: CuPy compiles nothing.
    ``accelerators`` "": CUPY_ACCELERATORS empty (CuPy's own, non-CUB routines); None: CuPy's default."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=_pythonpath(), CUPY_CACHE_DIR=cache, CUPY_CACHE_IN_MEMORY="0")
        if accelerators is None:
            env.pop("CUPY_ACCELERATORS", None)
        else:
            env["CUPY_ACCELERATORS"] = accelerators
        out = _run_calls("gpu", env, timeout=1200)
    assert out["control"], "the hook on CuPy's compiler saw no compile of the control expression"
    assert not out["errors"], "\n".join("%s: %s" % tuple(e) for e in out["errors"])
    assert not out["compiled"], "CuPy compiled kernels:\n" + "\n".join(
        "  %s: %s from %s" % (c, k, " < ".join(reversed(f))) for c, k, f in out["compiled"])
    paths = ["lines.sort-host", "detector.sort-host", "windowed", "offsets_cumsum", "device_sort",
             "external_flatnonzero", "tree_argsort", "rulers", "lab_serial", "grouped"]
    if _versions.behaviour("radon.warp") != "fixed_point":  # beside 4.x cv2 computes RadonTransform
        paths.append("global")
        # (beside 5.1 with IPP on, the child's default, cv2 computes 8-bit input: no texture path)
        if not radon.cv2_warps_differently(np.uint8):
            paths.append("texture")
    for path in paths:
        assert out["paths"].get(path), (path, out["paths"])
