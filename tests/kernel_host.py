"""Shared pieces of the host builds of kernels/contours.cu (tests/test_*_kernel_host.py): each test
compiles one section of the .cu with g++ behind a prelude and calls its kernels through ctypes; these
read the kernels' signatures and turn a launch's arguments into ctypes values, checking that every
array has the dtype and every scalar the numpy type the kernel's parameter asks for (what the launch
code in cvgpu/contours.py must pass on the GPU too)."""
import ctypes
import re

import numpy as np

SCALARS = {"int": (np.int32, ctypes.c_int32), "long long": (np.int64, ctypes.c_int64)}
POINTEES = {"int2": np.int32, "int": np.int32, "long long": np.int64, "u8": np.uint8, "unsigned": np.uint32}


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
    """numpy standing in for a CuPy array (``.get()`` copies to the host)."""

    def get(self):
        return np.array(self)


def host(a):
    return np.asarray(a).view(HostArray)


class HostCupy:
    """The CuPy calls of the launch code in cvgpu/contours.py, on the host (the tests extend it)."""
    int32, int64, uint8, uint32, uint64 = np.int32, np.int64, np.uint8, np.uint32, np.uint64
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
