"""Shared pieces of the host builds of kernels/contours.cu (tests/test_*_kernel_host.py): each test
compiles one section of the .cu with g++ behind a prelude and calls its kernels through ctypes; these
read the kernels' signatures and turn a launch's arguments into ctypes values, checking that every
array has the dtype and every scalar the numpy type the kernel's parameter asks for (what the launch
code in cvgpu/contours.py must pass on the GPU too)."""
import ctypes
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

SCALARS = {"int": (np.int32, ctypes.c_int32), "long long": (np.int64, ctypes.c_int64)}
POINTEES = {"int2": np.int32, "int": np.int32, "long long": np.int64, "u8": np.uint8, "unsigned": np.uint32,
            "unsigned short": np.uint16}

# What the CUDA sections need on the host: one thread's indices (set by each test's loops), the
# qualifiers as nothing, and the intrinsics they call with their host meaning (IEEE round-to-nearest
# double arithmetic; the builds below keep g++ from contracting it into FMAs).
PRELUDE = r"""
#include <cmath>
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
#define __forceinline__ inline
#define __restrict__ __restrict
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline int atomicMin(int* a, int v) { int o = *a; if (v < o) *a = v; return o; }
static inline int atomicMax(int* a, int v) { int o = *a; if (v > o) *a = v; return o; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return std::sqrt(a); }
static inline float __double2float_rn(double a) { return (float)a; }
static inline int __float_as_int(float f) { int i; std::memcpy(&i, &f, 4); return i; }
static inline double f32_to_f64(float a) { return (double)a; }
using std::signbit;
"""


def contours_source():
    """kernels/contours.cu, as the tests' host builds compile it."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "kernels", "contours.cu")) as f:
        return f.read()


def build(tmp_path_factory, name, text, defines=(), opt="-O2"):
    """``text`` (a section of contours.cu and its drivers) compiled behind PRELUDE into a shared
    library; the test is skipped where there is no C++ compiler."""
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler for the host build of the %s kernels" % name)
    d = tmp_path_factory.mktemp(name + "host")
    cpp, so = d / (name + ".cpp"), d / (name + ".so")
    cpp.write_text("".join("#define %s\n" % m for m in defines) + PRELUDE + text)
    subprocess.run([cxx, opt, "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o", str(so), str(cpp)],
                   check=True, capture_output=True)
    return ctypes.CDLL(str(so))


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


def ctypes_args(name, params, args, pointees=POINTEES):
    """The ctypes values of one launch's ``args`` for the kernel parameters ``params``."""
    assert len(args) == len(params), (name, len(args), params)
    out = []
    for (kind, pname), a in zip(params, args):
        if kind.endswith("*"):
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous, (name, pname)
            assert a.dtype == pointees[kind[:-1].strip()], (name, pname, kind, a.dtype)
            out.append(ctypes.c_void_p(a.ctypes.data))
        else:
            dtype, ctype = SCALARS[kind]
            assert type(a) is dtype, (name, pname, kind, type(a))
            out.append(ctype(int(a)))
    return out


class HostArray(np.ndarray):
    """numpy standing in for a CuPy array (``.get()`` copies to the host, into ``out`` if given)."""

    def get(self, out=None):
        if out is None:
            return np.array(self)
        out[...] = self
        return out


def host(a):
    return np.asarray(a).view(HostArray)


class HostStream:
    """The current stream on the host: everything runs in call order, so ordering is a no-op."""
    ptr = 0

    def wait_event(self, event):
        pass


class HostEvent:
    def __init__(self, **kwargs):
        pass

    def record(self, stream=None):
        pass


# cupy.cuda's stream calls of cvgpu.contours._Workspace.claim / release, on the host.
HOST_CUDA = {"get_current_stream": HostStream, "Event": HostEvent}


class HostCupy:
    """The CuPy calls of the launch code in cvgpu/contours.py, on the host (the tests extend it)."""
    int32, int64, uint8, uint16, uint32, uint64 = np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64
    ndarray = HostArray

    zeros = staticmethod(lambda shape, dtype: host(np.zeros(shape, dtype)))
    empty = staticmethod(lambda shape, dtype: host(np.empty(shape, dtype)))
    arange = staticmethod(lambda n, dtype: host(np.arange(n, dtype=dtype)))
    argsort = staticmethod(lambda a: host(np.argsort(a, kind="stable")))
    asarray = staticmethod(lambda a: host(np.array(a)))
    ascontiguousarray = staticmethod(lambda a: host(np.ascontiguousarray(a)))

    @staticmethod
    def cumsum(a, dtype=None, out=None):
        np.cumsum(a, dtype=dtype, out=out)
        return out
