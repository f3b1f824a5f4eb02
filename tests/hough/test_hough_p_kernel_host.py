"""kernels/hough/probabilistic.cu compiled as host C++ and run against the models and cv2 (no GPU).

With HOUGH_P_HOST the kernel file's execution model is one host thread playing the whole grid: each
"for every item" loop runs all its items, a warp's lanes run one after another, the grid barriers
do nothing (every phase finishes before the next starts, as the barriers make it on the GPU). So the
persistent kernel's whole logic (draws, reservation rounds, fast-forward, the exact rounds' phases
A1 A2 B C D, the wrap mode) runs here bit for bit, called with the argument tuple that
cvgpu/hough/probabilistic.py builds (its parameter types checked against the kernel's signature).
What stays for the GPU tests (tests/hough/test_hough_lines_p.py, marked gpu): the GPU's own
execution (NVRTC build, the grid join, barriers, atomics' interleavings, warp intrinsics)."""
import ctypes
import math
import re
import shutil
import subprocess

import cv2
import numpy as np
import pytest
from hypothesis import assume, given, note, settings

import hough_p_model as seq
import hough_p_parallel_model as par
from conftest import same
from cvgpu import _versions
from cvgpu import _kernels
from cvgpu.hough import probabilistic as hp
from hough_p_cases import cases, checks_pass, cv2_defined, photo_edges

LINES_N4 = _versions.behaviour("hough_p.lines_shape") == "n4"  # (N, 4), else (N, 1, 4)

PRELUDE = r"""
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#define HOUGH_P_HOST 1
struct int2 { int x, y; };
static inline int2 make_int2(int x, int y) { int2 r; r.x = x; r.y = y; return r; }
#define __global__
#define __device__
#define __forceinline__ inline
#define __restrict__ __restrict
#define __launch_bounds__(n)
#define __shared__ static
static inline float f32_add(float a, float b) { return a + b; }
static inline float f32_mul(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline int __float2int_rn(float v) { return (int)std::nearbyint(v); }
static inline int atomicAdd(int* a, int v) { int o = *a; *a = o + v; return o; }
static inline int atomicSub(int* a, int v) { int o = *a; *a = o - v; return o; }
static inline unsigned atomicOr(unsigned* a, unsigned v) { unsigned o = *a; *a = o | v; return o; }
static inline unsigned long long atomicMax(unsigned long long* a, unsigned long long v)
{ unsigned long long o = *a; if (v > o) *a = v; return o; }
"""

HOST_STAGE_INTS = 1 << 20   # kernels/hough/probabilistic.cu: HP_HOST_STAGE_INTS
POINTEES = {"int2": np.int32, "int": np.int32, "float": np.float32, "unsigned long long": np.uint64,
            "unsigned char": np.uint8}
SCALARS = {"int": (np.int32, ctypes.c_int32), "long long": (np.int64, ctypes.c_int64)}


@pytest.fixture(scope="module")
def lib(tmp_path_factory):
    return _build(tmp_path_factory)


@pytest.fixture(scope="module")
def lib_small_map(tmp_path_factory):
    """The host build with phase C's map and records cut to 24 pixels (HP_HASH 64): most rounds
    then end after the ranks the map holds, and a first walk longer than that is decided alone."""
    return _build(tmp_path_factory, {"#define HP_RECORDS 2048 ": "#define HP_RECORDS 24 ",
                                     "#define HP_HASH 4096 ": "#define HP_HASH 64 "})


def _build(tmp_path_factory, edits=None):
    cxx = shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        pytest.skip("no C++ compiler for the host build of kernels/hough/probabilistic.cu")
    src = (_kernels._source_dirs()[1] / "hough" / "probabilistic.cu").read_text()
    for a, b in (edits or {}).items():
        assert a in src, a
        src = src.replace(a, b)
    d = tmp_path_factory.mktemp("hough_p_host")
    cpp, so = d / "hp.cpp", d / "hp.so"
    cpp.write_text(PRELUDE + src)
    built = subprocess.run([cxx, "-O2", "-std=c++14", "-ffp-contract=off", "-fno-fast-math", "-shared", "-fPIC", "-o",
                            str(so), str(cpp)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    out = ctypes.CDLL(str(so))
    out.signatures = signatures(src)
    return out


def signatures(src):
    """{kernel: [(type, name)]} of the extern "C" kernels (pointer types end in "*")."""
    sig = {}
    for name, params in re.findall(r'extern "C" __global__ void __launch_bounds__\(\w+\) (\w+)\(([^)]*)\)', src):
        out = []
        for p in params.split(","):
            p = " ".join(p.replace("__restrict__", "").replace("const", "").split())
            base, _, pname = p.rpartition(" ")
            if pname.startswith("*"):
                base, pname = base + "*", pname[1:]
            out.append((base.replace(" *", "*"), pname))
        sig[name] = out
    return sig


def call(lib, name, args):
    """Run kernel ``name`` on the host with a launch's argument tuple (types checked)."""
    params = lib.signatures[name]
    assert len(params) == len(args), (name, len(params), len(args))
    cargs = []
    for (kind, pname), a in zip(params, args):
        if kind.endswith("*"):
            assert isinstance(a, np.ndarray) and a.flags.c_contiguous, (name, pname)
            assert a.dtype == POINTEES[kind[:-1].strip()], (name, pname, kind, a.dtype)
            cargs.append(ctypes.c_void_p(a.ctypes.data))
        else:
            dtype, ctype = SCALARS[kind]
            assert type(a) is dtype, (name, pname, kind, type(a))
            cargs.append(ctype(int(a)))
    getattr(lib, name)(*cargs)


def host_lines(lib, img, rho, theta, threshold, mll=0.0, mlg=0.0, stats=None):
    """What cvgpu.HoughLinesP returns, from the host build: None when nothing is found becomes 5.1's
    empty (0, 4) array (hp.no_segments)."""
    out = _host_lines(lib, img, rho, theta, threshold, mll, mlg, stats)
    return hp.no_segments() if out is None and img.size else out


def _host_lines(lib, img, rho, theta, threshold, mll=0.0, mlg=0.0, stats=None):
    """cvgpu.hough.probabilistic.gpu_lines' steps with numpy for CuPy and the host build for the GPU."""
    rows, cols = img.shape
    numangle, numrho, rho32, theta32 = hp.sizes(rows, cols, rho, theta)
    if numangle < 0 or numrho < 0:
        raise seq.OutOfMemory(numangle * numrho * 4)
    pix = np.flatnonzero(img).astype(np.int32)   # DeviceOps.select's result
    n = len(pix)
    threshold = int(threshold)
    if n == 0:
        return None
    if numangle == 0:
        if threshold == -(1 << 31):
            raise seq.Undefined("empty table")
        return None
    tab_cos, tab_sin = hp.trig_table(numangle, rho32, theta32)
    wrap = False
    if not hp.rows_hold_every_bin_numpy(rows, cols, numangle, numrho, tab_cos, tab_sin):
        flags = np.zeros(2, np.int32)
        call(lib, "hough_p_check", (pix, np.int32(n), np.int32(cols), tab_cos, tab_sin, np.int32(numangle),
                                    np.int32(numrho), np.int64(numangle * numrho), flags))
        if flags[0]:
            raise seq.Undefined("vote outside")
        wrap = bool(flags[1])
    states = hp.chunk_states(-(-n // hp.DRAW_CHUNK))
    args, shared, lines, ctl = hp.launch_args(np, pix, n, rows, cols, numangle, numrho, tab_cos, tab_sin, threshold,
                                              seq.cv_round(mll), seq.cv_round(mlg), wrap, states,
                                              hp.TUNING.stage_bytes)
    assert shared <= 4 * HOST_STAGE_INTS
    call(lib, "hough_p_main", args)
    assert ctl[hp.CTL_ERROR] == 0, ctl[:16]
    if stats is not None:
        stats.update(rounds=int(ctl[hp.CTL_ROUNDS]), commits=int(ctl[hp.CTL_COMMITS]), wrap=wrap,
                     permutation_rounds=int(ctl[hp.CTL_PERM_ROUNDS]), forward=int(ctl[hp.CTL_FORWARD]))
    count = int(ctl[hp.CTL_LINES])
    if count == 0:
        return None
    return lines[:4 * count].reshape(count, 4).copy()


def cv2_lines(img, rho, theta, threshold, mll=0.0, mlg=0.0):
    out = cv2.HoughLinesP(img, rho, theta, threshold, None, mll, mlg)
    return out if out is None or LINES_N4 else out.reshape(-1, 4)


def test_pick_order(lib):
    """Isolated pixels, threshold 1: the segments come out in cv2's pick order (draws, swap
    targets and the reservation rounds of the kernel)."""
    img = np.zeros((150, 160), np.uint8)
    img[::2, ::2] = 255
    stats = {}
    assert same(host_lines(lib, img, 1, math.pi / 180, 1, stats=stats), cv2_lines(img, 1, math.pi / 180, 1))
    assert stats["permutation_rounds"] > 1


@pytest.mark.parametrize("name", ["camera", "astronaut", "coffee", "page"])
@pytest.mark.parametrize("threshold,mll,mlg", [(50, 50, 10), (100, 50, 10), (10, 0, 0), (1, 5, 2)])
def test_photographs(lib, name, threshold, mll, mlg):
    img = photo_edges(name, 240, 320)
    stats = {}
    ours = host_lines(lib, img, 1, math.pi / 180, threshold, mll, mlg, stats)
    assert same(ours, cv2_lines(img, 1, math.pi / 180, threshold, mll, mlg)), stats


@pytest.mark.parametrize("window,forward,stage", [(1, 0, 0), (7, 64, 64 << 10), (64, 0, 4096), (1024, 4096, 0),
                                                  (1024, 4096, 6000), (1024, 4096, 64 << 10)])
def test_window_sizes(lib, window, forward, stage):
    """Forced windows and staging sizes (0: every candidate reads global memory; a few KB: some
    staged, some not)."""
    img = photo_edges("camera", 180, 240)
    with hp.TUNING.override(window=window, forward=forward, stage_bytes=stage):
        for threshold, mll, mlg in ((30, 20, 5), (5, 0, 0)):
            assert same(host_lines(lib, img, 1, math.pi / 180, threshold, mll, mlg),
                        cv2_lines(img, 1, math.pi / 180, threshold, mll, mlg))


def test_small_map(lib, lib_small_map):
    """Rounds cut by phase C's map (ranks whose walks' pixels fit HP_RECORDS) give cv2's lines."""
    img = photo_edges("camera", 180, 240)
    for threshold, mll, mlg in ((30, 20, 5), (5, 0, 0), (12, 40, 3)):
        full, small = {}, {}
        ref = cv2_lines(img, 1, math.pi / 180, threshold, mll, mlg)
        assert same(host_lines(lib, img, 1, math.pi / 180, threshold, mll, mlg, full), ref)
        assert same(host_lines(lib_small_map, img, 1, math.pi / 180, threshold, mll, mlg, small), ref)
        assert small["rounds"] > full["rounds"], (small, full)


def test_wrap_mode(lib):
    """rho near the image's size: rho bins leave their rows (numrho 1 or 2), the kernel's wrap mode."""
    img = np.zeros((30, 40), np.uint8)
    img[5, 3:35] = 255
    img[2:28, 20] = 255
    img[np.random.default_rng(3).random((30, 40)) < 0.05] = 255
    seen = 0
    for rho in (60.0, 80.0, 100.0, 120.0, 140.0):
        for threshold in (1, 3, 10):
            if not cv2_defined(img, rho, math.pi / 180):
                continue
            stats = {}
            assert same(host_lines(lib, img, rho, math.pi / 180, threshold, 0, 0, stats),
                        cv2_lines(img, rho, math.pi / 180, threshold))
            seen += stats.get("wrap", False)
    assert seen


@settings(max_examples=max(settings.default.max_examples, 200))
@given(case=cases(max_side=320, max_votes=20_000_000))
def test_kernel_matches_cv2(lib, case):
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        ours = host_lines(lib, img, rho, theta, threshold, mll, mlg)
    except seq.OutOfMemory:
        return
    assert same(ours, cv2_lines(img, rho, theta, threshold, mll, mlg))


@settings(max_examples=max(settings.default.max_examples, 40))
@given(case=cases(max_side=96, max_votes=300_000))
def test_kernel_matches_models(lib, case):
    """The host kernel, the parallel model and the sequential model agree (on inputs small enough
    for the models' Python loops)."""
    img, (rho, theta, threshold, mll, mlg), desc = case
    note(desc)
    assume(checks_pass(rho, theta, threshold, mll, mlg) and cv2_defined(img, rho, theta))
    try:
        s = seq.Setup(img, rho, theta, threshold, mll, mlg)
        ref = seq.run(s)
    except (seq.OutOfMemory, seq.Undefined):
        return
    assert same(par.run(s), ref)
    assert same(_host_lines(lib, img, rho, theta, threshold, mll, mlg), ref)


def test_nvcc_builds_for_sm90(tmp_path):
    """The module NVRTC gets (cvgpu._kernels.kernel_source) compiles with nvcc for sm_90, as a
    module for a cooperative launch is built (relocatable device code) and plain."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        pytest.skip("no nvcc")
    src = tmp_path / "probabilistic.cu"
    src.write_text(_kernels.kernel_source(hp.FAMILY))
    for extra in ([], ["-rdc=true"]):
        out = subprocess.run([nvcc, "-cubin", "-arch=sm_90", "--std=c++14", "-ftz=false", "-prec-div=true",
                              "-prec-sqrt=true", "-o", str(tmp_path / "hp.cubin"), str(src)] + extra,
                             capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        assert "warning" not in out.stderr.lower(), out.stderr
