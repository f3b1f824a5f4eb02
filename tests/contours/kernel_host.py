"""Host builds of the contours family's kernel files (kernels/contours/*.cu) for the tests: each
file is compiled whole, with its includes, as g++ C++ behind a prelude, into a shared library whose
``run_<kernel>(grid, block, ...)`` runs every thread of a launch one after another; a ``HostModule``
launches them through ctypes like a ``cupy.RawKernel`` (checking that every array has the dtype and
every scalar the numpy type the kernel's parameter asks for: what the launch code in
cvgpu/contours/ must pass on the GPU too).

What builds here: every file but ranking_block.cu (its kernels need a block's or a grid's threads
running together and its records are read by inline PTX; the host tests take ranking.cu's forms
instead). Warp and block intrinsics (barriers, shuffles, ballots) compile to a call that aborts: a
host test may launch only kernels whose threads are independent (tests that need a ballot emulate
it in their own prelude)."""
import ctypes
import os
import re
import shutil
import subprocess
import sys
import types

import numpy as np
import pytest

from cvgpu._kernels import kernel_source

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/ (from any process)
from device_ops_host import HostOps  # noqa: E402
from cvgpu.contours import _common

SCALARS = {"int": (np.int32, ctypes.c_int32), "long long": (np.int64, ctypes.c_int64)}
POINTEES = {"int2": np.int32, "int": np.int32, "long long": np.int64, "u8": np.uint8, "unsigned": np.uint32,
            "unsigned short": np.uint16, "unsigned int": np.uint32, "unsigned long long": np.uint64,
            "LrNode": np.int32}

# What the CUDA files need on the host: one thread's indices (set by the runners), the qualifiers
# as nothing (block-shared variables as statics), the intrinsics they call with their host meaning
# (IEEE round-to-nearest double arithmetic; the builds keep g++ from contracting it into FMAs;
# atomics as plain read-modify-writes, one thread at a time), and the cross-thread intrinsics as
# an abort.
PRELUDE = r"""
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
typedef unsigned char u8;
struct int2 { int x, y; };
static inline int2 make_int2(int x, int y) { int2 r; r.x = x; r.y = y; return r; }
struct uint3_ { unsigned x; };
static uint3_ blockIdx, threadIdx, blockDim, gridDim;
#define __global__
#define __device__
#define __constant__
#define __shared__ static
#define __launch_bounds__(n)
#define __forceinline__ inline
#define __restrict__ __restrict
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
template <class T> static inline T atomicMin(T* a, T v) { T o = *a; if (v < o) *a = v; return o; }
template <class T> static inline T atomicMax(T* a, T v) { T o = *a; if (v > o) *a = v; return o; }
template <class T> static inline T atomicAdd(T* a, T v) { T o = *a; *a = o + v; return o; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __clz(unsigned x) { return x ? __builtin_clz(x) : 32; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline float __double2float_rn(double a) { return (float)a; }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline double f32_to_f64(float a) { return (double)a; }
using std::signbit;
[[noreturn]] static void device_only(const char* what)
{
    std::fprintf(stderr, "%s needs threads running together: not launchable in a host build\n", what);
    std::abort();
}
static inline void __syncthreads() { device_only("__syncthreads"); }
static inline int __syncthreads_count(int) { device_only("__syncthreads_count"); }
static inline void __threadfence() { device_only("__threadfence"); }
static inline unsigned __ballot_sync(unsigned, int) { device_only("__ballot_sync"); }
template <class T> static inline T __shfl_up_sync(unsigned, T, int) { device_only("__shfl_up_sync"); }
template <class T> static inline T __shfl_down_sync(unsigned, T, int) { device_only("__shfl_down_sync"); }
"""


def module_source(module):
    """kernels/contours/<module>.cu with its includes inlined, as NVRTC compiles it
    (cvgpu._kernels.kernel_source), without the float32 helpers in front (kernels/ieee_f32.cuh:
    inline PTX; PRELUDE gives the one the family calls, f32_to_f64, its host meaning)."""
    family = "contours/" + module
    src = kernel_source(family)
    return src[src.index('#line 1 "%s.cu"' % family):]


def signatures(src, names=r"\w+"):
    """{kernel name: [(parameter type, parameter name)]} of the extern "C" kernels in ``src`` whose
    names match ``names``; pointer types end in "*"."""
    sig = {}
    pattern = r'extern "C" __global__ void (?:__launch_bounds__\(\d+\) )?(%s)\(([^)]*)\)' % names
    for name, params in re.findall(pattern, src):
        out = []
        for p in params.split(","):
            p = " ".join(p.replace("__restrict__", "").replace("const", "").split())
            base, _, pname = p.rpartition(" ")
            if pname.startswith("*"):
                base, pname = base + "*", pname[1:]
            out.append((base.replace(" *", "*"), pname))
        sig[name] = out
    return sig


def _runners(sig):
    """One C function per kernel, run_<name>(grid, block, params...), that runs all its threads."""
    out = ['extern "C" {']
    for name, params in sig.items():
        decl = "".join(", %s %s" % (t, p) for t, p in params)
        out.append("void run_%s(unsigned grid_, unsigned block_%s) {" % (name, decl))
        out.append("  gridDim.x = grid_; blockDim.x = block_;")
        out.append("  for (unsigned b = 0; b < grid_; ++b) for (unsigned t = 0; t < block_; ++t) {")
        out.append("    blockIdx.x = b; threadIdx.x = t; %s(%s); } }" % (name, ", ".join(p for _, p in params)))
    out.append("}")
    return "\n".join(out)


def ctypes_args(name, params, args, pointees=POINTEES):
    """The ctypes values of one launch's ``args`` for the kernel parameters ``params``."""
    assert len(args) == len(params), (name, len(args), params)
    out = []
    for (kind, pname), a in zip(params, args):
        if kind.endswith("*"):
            if isinstance(a, np.intp) and int(a) == 0:   # a null pointer (an unused array)
                out.append(ctypes.c_void_p(0))
                continue
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous, (name, pname)
            assert a.dtype == pointees[kind[:-1].strip()], (name, pname, kind, a.dtype)
            out.append(ctypes.c_void_p(a.ctypes.data))
        else:
            dtype, ctype = SCALARS[kind]
            assert type(a) is dtype, (name, pname, kind, type(a))
            out.append(ctype(int(a)))
    return out


class HostModule:
    """One kernel file built for the host: ``lib`` (ctypes), ``sig`` (its kernels' signatures),
    ``launcher(name)`` (called as a cupy.RawKernel: ``(grid, block, args, shared_mem=0)``), ``path``
    (the library's file, for a test that loads it in another process)."""

    def __init__(self, path, sig):
        self.path, self.lib, self.sig = str(path), ctypes.CDLL(str(path)), sig

    def launcher(self, name):
        fn = getattr(self.lib, "run_" + name)
        fn.restype = None
        params = self.sig[name]

        def launch(grid, block, args, shared_mem=0):
            assert len(grid) == 1 and len(block) == 1 and grid[0] >= 1 and block[0] >= 1, (name, grid, block)
            fn(ctypes.c_uint(grid[0]), ctypes.c_uint(block[0]), *ctypes_args(name, params, args))
        return launch


def build(tmp_path_factory, module, extra="", prelude="", opt="-O2"):
    """kernels/contours/<module>.cu (whole, with its includes) compiled behind PRELUDE (and the
    test's own ``prelude``), with every kernel's runner and the test's ``extra`` code, into a
    HostModule; the test is skipped where there is no C++ compiler."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler for the host build of kernels/contours/%s.cu" % module)
    src = module_source(module)
    sig = signatures(src)
    d = tmp_path_factory.mktemp(module + "host")
    cpp, so = d / (module + ".cpp"), d / (module + ".so")
    cpp.write_text(PRELUDE + prelude + src + "\n" + _runners(sig) + "\n" + extra)
    subprocess.run([cxx, opt, "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o", str(so), str(cpp)],
                   check=True, capture_output=True)
    return HostModule(so, sig)


# suzuki.cu's pad_init decides with __ballot_sync: run_pad emulates it in two phases per warp
# (phase 0 records each lane's predicate, phase 1 answers the ballot from them); run_union runs
# ccl_union over a range of blocks (the limit test runs a few blocks of a huge grid).
SUZUKI_PRELUDE = r"""
static int g_phase;
static u8* g_pred;
static unsigned host_ballot(bool p, int i)
{
    if (g_phase == 0) { g_pred[i] = p; return 0u; }
    unsigned m = 0u;
    const int base = i & ~31;
    for (int l = 0; l < 32; ++l) if (g_pred[base + l]) m |= 1u << l;
    return m;
}
#define __ballot_sync(mask, pred) host_ballot((pred), i)
"""

SUZUKI_DRIVER = r"""
extern "C" void run_pad(const u8* src, long long pitch, int h, int w, int n, u8* f, int* L, u8* pred,
                        unsigned grid, unsigned block, unsigned bx0, unsigned bx1, int bits)
{
    g_pred = pred; gridDim.x = grid; blockDim.x = block;
    for (unsigned bx = bx0; bx < bx1; ++bx) {
        blockIdx.x = bx;
        for (unsigned w0 = 0; w0 < block; w0 += 32)
            for (int phase = 0; phase < 2; ++phase) {
                g_phase = phase;
                for (unsigned l = 0; l < 32; ++l) {
                    threadIdx.x = w0 + l;
                    if (bits == 2) pad_init_rows(src, pitch, h, w, n, f, L);
                    else if (bits) pad_init_bits(src, pitch, h, w, n, f, L);
                    else pad_init(src, pitch, h, w, n, f, L);
                }
            }
    }
}
extern "C" void run_union(const u8* f, int w2, int n, int* L, unsigned grid, unsigned block, unsigned bx0,
                          unsigned bx1)
{
    gridDim.x = grid; blockDim.x = block;
    for (unsigned bx = bx0; bx < bx1; ++bx) {
        blockIdx.x = bx;
        for (unsigned t = 0; t < block; ++t) { threadIdx.x = t; ccl_union(f, w2, n, L); }
    }
}
"""




def build_suzuki(tmp_path_factory):
    """kernels/contours/suzuki.cu for the host with run_pad / run_union (see SUZUKI_DRIVER)."""
    module = build(tmp_path_factory, "suzuki", extra=SUZUKI_DRIVER, prelude=SUZUKI_PRELUDE)
    suzuki_lib(module.lib)
    return module


def suzuki_lib(lib):
    """``lib`` (a build_suzuki library, or its path) with run_pad's and run_union's argument types."""
    lib = ctypes.CDLL(lib) if isinstance(lib, str) else lib
    p, i32, i64, u32 = ctypes.c_void_p, ctypes.c_int32, ctypes.c_int64, ctypes.c_uint32
    lib.run_pad.argtypes = [p, i64, i32, i32, i32, p, p, p, u32, u32, u32, u32, i32]
    lib.run_union.argtypes = [p, i32, i32, p, u32, u32, u32, u32]
    return lib


class HostArray(np.ndarray):
    """numpy standing in for a CuPy array (``.get()`` copies to the host, into ``out`` if given;
    ``.data.ptr`` is the address of its first element)."""

    def get(self, out=None):
        if out is None:
            return np.array(self)
        out[...] = self
        return out

    @property
    def data(self):
        return types.SimpleNamespace(ptr=self.ctypes.data)


def host(a):
    return np.asarray(a).view(HostArray)


class HostOutOfMemory(MemoryError):
    """cupy.cuda.memory.OutOfMemoryError on the host."""


class HostCupy:
    """The CuPy calls of cvgpu/contours' launch code, on numpy (one instance a HostGpu). Fresh arrays
    start as garbage, as the GPU's reused workspace does; everything runs in call order, so stream
    ordering is a no-op; ``freed`` counts the memory pool's releases."""
    int32, int64, uint8, uint16, uint32, uint64 = np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64
    ndarray = HostArray

    zeros = staticmethod(lambda shape, dtype: host(np.zeros(shape, dtype)))
    empty = staticmethod(lambda shape, dtype: host(np.full(shape, -7, dtype) if np.dtype(dtype).kind == "i"
                                                   else np.zeros(shape, dtype)))
    full = staticmethod(lambda shape, v, dtype: host(np.full(shape, v, dtype)))
    empty_like = staticmethod(lambda a: host(np.empty_like(a)))
    arange = staticmethod(lambda n, dtype: host(np.arange(n, dtype=dtype)))
    argsort = staticmethod(lambda a: host(np.argsort(a, kind="stable")))
    asarray = staticmethod(lambda a: host(np.array(a)))
    ascontiguousarray = staticmethod(lambda a: host(np.ascontiguousarray(a)))
    flatnonzero = staticmethod(lambda a: host(np.flatnonzero(a)))
    concatenate = staticmethod(lambda xs: host(np.concatenate([np.asarray(x) for x in xs])))

    class _Stream:
        ptr = 0

        def wait_event(self, event):
            pass

    class _Event:
        def __init__(self, **kwargs):
            pass

        def record(self, stream=None):
            pass

    cuda = types.SimpleNamespace(
        get_current_stream=_Stream, Event=_Event, alloc_pinned_memory=bytearray,
        memory=types.SimpleNamespace(OutOfMemoryError=HostOutOfMemory),
        runtime=types.SimpleNamespace(memcpyHostToDevice=1,
                                      memcpyAsync=lambda dst, src, n, kind, stream: ctypes.memmove(dst, src, n),
                                      memsetAsync=lambda dst, value, n, stream: ctypes.memset(dst, value, n)))

    def __init__(self):
        self.freed = 0

    def get_default_memory_pool(self):
        def free_all_blocks():
            self.freed += 1
        return types.SimpleNamespace(free_all_blocks=free_all_blocks)

    @staticmethod
    def cumsum(a, dtype=None, out=None):
        np.cumsum(a, dtype=dtype, out=out)
        return out


class HostGpu(_common.Gpu):
    """cvgpu.contours' Gpu on the host: ``cp`` a HostCupy, the kernels of ``modules`` (HostModules
    by file name, e.g. {"tc89": build(..., "tc89")}), its own scratch, no cooperative launch and no
    shared memory (the pipelines then rank with ranking.cu's one launch a round), grids of at most
    ``grid_cap`` blocks. Kernels of files not given (ranking_block.cu above all) raise KeyError:
    tests force the other paths with TUNING.override."""

    def __init__(self, modules, grid_cap=_common.GRID_CAP):
        super().__init__(HostCupy())
        self.ops = HostOps(self.cp)   # cvgpu._device_ops in numpy
        self.grid_cap = grid_cap
        self.modules = modules
        self.spaces = {}

    def fn(self, module, name, max_dynamic_shared=None, cooperative=False):
        assert not cooperative, name
        return self.modules[module].launcher(name)

    def workspace(self, family="contours"):
        if family not in self.spaces:
            self.spaces[family] = _common.Workspace(self.cp)
        return self.spaces[family]

    def cooperative(self, module, name, threads):
        return None

    def shared_memory(self):
        return 0


def native_host_helpers(tmp_path):
    """cvgpu._native's helpers on the host: a private copy of the shipped hostcall library
    (tests/native_host.py) whose "device" copies are memmoves (HostCupy's device pointers are host
    addresses). None where no library is built for this platform."""
    import native_host
    lib, _why = native_host.private_library(tmp_path)
    if lib is None:
        return None
    keep = native_host.bind(lib, lambda dst, src, n, stream: ctypes.memmove(dst, src, n) and 0, lambda g, s: 0,
                            lambda s: 0)
    return types.SimpleNamespace(upload=lib.cvg_upload, lib=lib, keep=keep)
