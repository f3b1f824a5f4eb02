"""cvgpu.cuda without a GPU (issue 43): host-backed GpuMat, no-op Stream, the CPU lines detector.

Every CPU test here runs in host mode: with no usable GPU that is the default; on a GPU machine the
``host`` fixture turns on cvgpu.cuda.gpumat's private switch (_FORCE_HOST), so these tests check the
same path everywhere. References: numpy's equivalents for GpuMat (OpenCV's GpuMat semantics), and
for the detector OpenCV-CUDA's own recorded outputs (the golden corpora of
test_cuda_hough_golden.py, compared by its README's rules), never the test-side CPU model. On the
GPU (marker ``gpu``) the CPU path is compared with the GPU path bit for bit, lines and order.
"""
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cv2
import cvgpu
import cvgpu.cuda as cuda
from cvgpu.cuda import gpumat as gm
from cvgpu.cuda import _hough_host
from conftest import examples
from test_cuda_hough_golden import (GLOBAL_GOLDEN, ROOT, _as_set, _sorted_by_votes, golden_agrees, golden_dir,
                                    load_cases, GOLDEN_NAME)

HAS_GPU = cvgpu.backend() == "cuda"


@pytest.fixture
def host():
    """Host mode for the test (the default without a GPU; forced with one)."""
    gm._FORCE_HOST[0] = True
    try:
        yield
    finally:
        gm._FORCE_HOST[0] = False


def _no_cuda(call):
    with pytest.raises(cv2.error) as e:
        call()
    assert e.value.code == -216 and "compiled without CUDA support" in e.value.err


# ================================================================ GpuMat: layout and round trips

DEPTHS = sorted(gm.DTYPE_OF_DEPTH)


def _host_array(rng, dtype, shape):
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.random(shape) < 0.5
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype) * 100
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)


@settings(max_examples=examples(200))
@given(st.sampled_from(DEPTHS), st.integers(1, 4), st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_round_trip_every_depth_and_channel_count(depth, cn, rows, cols, seed):
    gm._FORCE_HOST[0] = True
    try:
        dtype = gm.DTYPE_OF_DEPTH[depth]
        shape = (rows, cols) if cn == 1 else (rows, cols, cn)
        a = _host_array(np.random.default_rng(seed), dtype, shape)
        a_copy = a.copy()
        for m in (cuda.GpuMat(a), cuda.GpuMat()):
            if m.empty():
                m.upload(a)
            elem1 = dtype.itemsize
            assert (m.size(), m.depth(), m.channels(), m.elemSize(), m.elemSize1()) == \
                ((cols, rows), depth, cn, elem1 * cn, elem1)
            assert m.type() == depth + ((cn - 1) << gm.CN_SHIFT)
            # A host Mat's pitch: cols * elemSize, continuous.
            assert (m.step, m.step1(), m.isContinuous(), m.empty()) == (cols * elem1 * cn, cols * cn, True, False)
            out = m.download()
            assert out.dtype == a.dtype and out.shape == a.shape and np.array_equal(out, a)
            assert not np.shares_memory(out, a) and not np.shares_memory(out, m._arr)
            c = m.clone()
            c.setTo(0)
            assert np.array_equal(m.download(), a)  # a deep copy
            assert repr(m) == "<cvgpu.cuda.GpuMat %dx%d type=%d>" % (rows, cols, m.type())
        assert np.array_equal(a, a_copy)  # the caller's array is never written
    finally:
        gm._FORCE_HOST[0] = False


def test_type_numbers_are_cv2s(host):
    for t in (cv2.CV_8UC1, cv2.CV_8UC3, cv2.CV_16SC2, cv2.CV_32FC2, cv2.CV_32SC4, cv2.CV_64FC1):
        m = cuda.GpuMat(3, 5, t)
        dtype, cn = gm.split_type(t)
        assert (m.type(), m.size(), m.channels(), m.step) == (t, (5, 3), cn, 5 * dtype.itemsize * cn)
        assert m.download().shape == ((3, 5) if cn == 1 else (3, 5, cn))


def test_constructors_create_release_swap(host):
    m = cuda.GpuMat((4, 3), cv2.CV_8UC3, (1, 2, 3))  # size is (width, height)
    assert m.size() == (4, 3) and np.array_equal(m.download(), np.broadcast_to(np.uint8([1, 2, 3]), (3, 4, 3)))
    arr = m._arr
    m.create(3, 4, cv2.CV_8UC3)  # same size and type: kept
    assert m._arr is arr
    m.create((2, 2), cv2.CV_32FC1)
    assert (m.size(), m.type()) == ((2, 2), cv2.CV_32FC1)
    shared = cuda.GpuMat(m)
    shared.setTo(5)
    assert np.array_equal(m.download(), np.full((2, 2), 5, np.float32))  # GpuMat(m) shares m's memory
    m.release()
    assert m.empty() and m.size() == (0, 0) and m.type() == cv2.CV_32FC1 and m.step == 0
    assert m.download() is None and m.cudaPtr() == 0
    a, b = cuda.GpuMat(np.ones((2, 3), np.uint8)), cuda.GpuMat(np.zeros((1, 1), np.int16))
    a.swap(b)
    assert a.type() == cv2.CV_16SC1 and b.size() == (3, 2)
    empty = cuda.GpuMat(np.zeros((0, 0), np.uint8))
    assert empty.empty() and empty.download() is None
    assert cuda.GpuMat().copyTo().empty()


def test_download_into_dst_and_upload_reallocates(host):
    m = cuda.GpuMat(np.arange(6, dtype=np.uint8).reshape(2, 3))
    dst = np.zeros((2, 3), np.uint8)
    assert m.download(dst) is dst and np.array_equal(dst, np.arange(6).reshape(2, 3))
    m.upload(np.ones((4, 5, 2), np.float32))
    assert (m.size(), m.type()) == ((5, 4), cv2.CV_32FC2)
    strided = np.arange(40, dtype=np.uint16).reshape(5, 8)[::-2, ::3]  # negative and non-unit strides
    m.upload(strided)
    assert np.array_equal(m.download(), strided) and m.isContinuous()


# ================================================================ GpuMat: views

@settings(max_examples=examples(100))
@given(st.integers(2, 8), st.integers(2, 8), st.integers(1, 3), st.data())
def test_views_share_memory_with_opencvs_pitch(rows, cols, cn, data):
    gm._FORCE_HOST[0] = True
    try:
        a = np.arange(rows * cols * cn, dtype=np.int32).reshape((rows, cols, cn) if cn > 1 else (rows, cols))
        m = cuda.GpuMat(a)
        r0 = data.draw(st.integers(0, rows - 1))
        r1 = data.draw(st.integers(r0 + 1, rows))
        c0 = data.draw(st.integers(0, cols - 1))
        c1 = data.draw(st.integers(c0 + 1, cols))
        pitch = cols * 4 * cn
        rv, cv = m.rowRange(r0, r1), m.colRange((c0, c1))
        assert np.array_equal(rv.download(), a[r0:r1]) and np.array_equal(cv.download(), a[:, c0:c1])
        assert rv.step == pitch and rv.isContinuous()
        assert cv.step == pitch and cv.isContinuous() == (c1 - c0 == cols)
        assert np.array_equal(m.row(r0).download(), a[r0:r0 + 1]) and np.array_equal(m.col(c0).download(),
                                                                                        a[:, c0:c0 + 1])
        cv.setTo(-1)  # writes through to the parent; a number is cv::Scalar(-1, 0, 0, 0)
        expected = a.copy()
        expected[:, c0:c1] = np.array([-1, 0, 0, 0], np.int32)[:cn] if cn > 1 else -1
        assert np.array_equal(m.download(), expected)
        assert cv.clone().isContinuous() and cv.clone().step == (c1 - c0) * 4 * cn
    finally:
        gm._FORCE_HOST[0] = False


# ================================================================ GpuMat: setTo / copyTo with masks

def _expected_values(dtype, cn, s):
    """setTo's per-channel values as cv::Scalar from Python: a number v is (v, 0, 0, 0), a tuple
    channel by channel (zeros after it); integers rounded half to even and saturated."""
    v = np.zeros(4, np.float64)
    given = np.asarray(s if isinstance(s, tuple) else (s,), np.float64)[:4]
    v[:given.size] = given
    v = v[:cn]
    if np.issubdtype(dtype, np.integer):
        info = np.iinfo(dtype)
        v = np.clip(np.rint(v), info.min, info.max)
    return v.astype(dtype)


_SCALARS = st.one_of(st.floats(-1e3, 1e3, allow_nan=False), st.integers(-70000, 70000),
                     st.tuples(*[st.floats(-300, 300, allow_nan=False)] * 4),
                     st.tuples(*[st.floats(-300, 300, allow_nan=False)] * 2))


@settings(max_examples=examples(200))
@given(st.sampled_from([np.uint8, np.int8, np.uint16, np.int16, np.int32, np.float32, np.float64]),
       st.integers(1, 4), st.integers(1, 7), st.integers(1, 7), _SCALARS, st.integers(0, 2**32 - 1),
       st.booleans())
def test_set_to_and_copy_to_with_masks(dtype, cn, rows, cols, s, seed, mask_as_gpumat):
    gm._FORCE_HOST[0] = True
    try:
        rng = np.random.default_rng(seed)
        a = _host_array(rng, dtype, (rows, cols, cn))
        mask = (rng.random((rows, cols)) < 0.5).astype(np.uint8) * rng.integers(1, 256, (rows, cols)).astype(np.uint8)
        mask_arg = cuda.GpuMat(mask) if mask_as_gpumat else mask
        values = _expected_values(np.dtype(dtype), cn, s)

        m = cuda.GpuMat(a)
        assert m.setTo(s) is m
        assert np.array_equal(m.download().reshape(rows, cols, cn), np.broadcast_to(values, (rows, cols, cn)))

        m = cuda.GpuMat(a)
        m.setTo(s, mask_arg)
        expected = a.copy()
        expected[mask != 0] = values
        assert np.array_equal(m.download().reshape(rows, cols, cn), expected)

        # copyTo with a mask: into a new dst (zeros elsewhere, as Mat::copyTo), into a dst of the same
        # size and type (its other elements kept), and back into the source itself.
        src = cuda.GpuMat(a)
        fresh = src.copyTo(None, mask_arg)
        assert np.array_equal(fresh.download().reshape(rows, cols, cn), np.where(mask[..., None] != 0, a, 0))
        b = _host_array(rng, dtype, (rows, cols, cn))
        dst = cuda.GpuMat(b)
        assert src.copyTo(dst, mask_arg) is dst
        assert np.array_equal(dst.download().reshape(rows, cols, cn), np.where(mask[..., None] != 0, a, b))
        wrong = cuda.GpuMat(np.zeros((rows, cols), np.float64))
        src.copyTo(wrong, mask_arg)  # another type: reallocated
        assert wrong.type() == src.type()
        assert np.array_equal(src.copyTo(src, mask_arg).download().reshape(rows, cols, cn), a)
        assert np.array_equal(src.download().reshape(rows, cols, cn), a)
    finally:
        gm._FORCE_HOST[0] = False


def test_masks_must_be_8uc1_of_the_same_size(host):
    m = cuda.GpuMat(np.zeros((3, 4), np.uint8))
    for bad in (np.ones((3, 5), np.uint8), np.ones((3, 4), np.int32), cuda.GpuMat(np.ones((3, 4, 2), np.uint8))):
        for call in (lambda: m.setTo(1, bad), lambda: m.copyTo(None, bad)):
            with pytest.raises(cv2.error) as e:
                call()
            assert e.value.code == -215


# ================================================================ Stream and the device-only names

def test_stream_is_a_no_op_stream(host):
    for s in (cuda.Stream(), cuda.Stream(1), cuda.Stream.Null(), cuda.Stream_Null()):
        assert s.queryIfComplete() is True
        assert s.waitForCompletion() is None
        with s as inside:
            assert inside is s
        _no_cuda(s.cudaPtr)
    s = cuda.Stream()
    m = cuda.GpuMat()
    m.upload(np.arange(6, dtype=np.uint8).reshape(2, 3), s)
    assert np.array_equal(m.download(None, s), np.arange(6).reshape(2, 3))
    assert np.array_equal(m.copyTo(s).download(), np.arange(6).reshape(2, 3))
    m.setTo(9, s)
    assert np.all(m.download() == 9)


def test_device_pointers_raise_no_cuda(host):
    m = cuda.GpuMat(np.zeros((2, 2), np.uint8))
    _no_cuda(m.cudaPtr)
    _no_cuda(lambda: m.__cuda_array_interface__)
    assert m._cvgpu_device_array is None
    with pytest.raises(AttributeError):
        cuda.GpuMat().__cuda_array_interface__


@pytest.mark.skipif(HAS_GPU, reason="device arrays exist only with a GPU")
def test_device_arrays_without_gpu_raise_no_cuda():
    class FakeDevice:
        __cuda_array_interface__ = {"shape": (2, 2), "typestr": "|u1", "data": (0, False), "version": 3}
    _no_cuda(lambda: cuda.GpuMat(FakeDevice()))
    _no_cuda(lambda: cuda.createHoughLinesDetector(1, 0.1, 3).detect(FakeDevice()))


# ================================================================ the detector on the CPU

def _detect(det, src):
    return det.downloadResults(det.detect(src))


def test_detector_result_layout_and_backend(host):
    img = np.zeros((40, 50), np.uint8)
    cv2.line(img, (2, 5), (45, 30), 255, 1)
    cv2.line(img, (10, 38), (10, 2), 255, 1)
    det = cuda.createHoughLinesDetector(1, math.pi / 180, 10, True, 4096)
    d_lines = det.detect(cuda.GpuMat(img))
    assert cvgpu.last_call_backend() == "numpy"
    n = d_lines.size()[0]
    assert (d_lines.type(), d_lines.size()[1]) == (cv2.CV_32FC2, 2) and n > 0
    raw = d_lines._arr
    assert raw.shape == (2, n, 2) and not raw[1].reshape(-1).view(np.int32)[n:].any()
    h_lines, h_votes = det.downloadResults(d_lines)
    assert h_lines.shape == (1, n, 2) and h_lines.dtype == np.float32
    assert h_votes.shape == (1, n) and h_votes.dtype == np.int32 and _sorted_by_votes(h_votes)
    assert np.array_equal(h_lines, raw[0].reshape(1, n, 2))
    # The same from a numpy input, into a given lines GpuMat, with a stream and keyword arguments.
    out = cuda.GpuMat()
    assert det.detect(img, out, cuda.Stream()) is out
    assert np.array_equal(out.download(), d_lines.download())
    l2, v2 = det.downloadResults(d_lines=out, stream=cuda.Stream())
    assert np.array_equal(l2, h_lines) and np.array_equal(v2, h_votes)


def test_shared_memory_drops_the_pinned_copy(host):
    """downloadResults reads a detect result's pinned host copy only while no other GpuMat shares
    its memory: a view (row, rowRange, colRange) or a GpuMat made from it drops the copy, so that a
    write through them reaches downloadResults. (A stand-in copy on a host-backed result: the real
    one exists only on a GPU, where test_cuda_hough checks the same.)"""
    from types import SimpleNamespace
    img = np.zeros((40, 50), np.uint8)
    cv2.line(img, (2, 5), (45, 30), 255, 1)
    det = cuda.createHoughLinesDetector(1, math.pi / 180, 10, True, 4096)
    for share in (lambda d: d.row(0), lambda d: d.rowRange(0, 1), lambda d: d.colRange(0, 1),
                  lambda d: cuda.GpuMat(d)):
        d_lines = det.detect(cuda.GpuMat(img))
        n = d_lines.size()[0]
        stale = (np.full((1, n, 2), -1, np.float32), np.full((1, n), -1, np.int32))
        results = SimpleNamespace(launched=1)
        d_lines._host_mirror = (results, 1, n, None) + stale
        assert det.downloadResults(d_lines)[0].tobytes() == stale[0].tobytes()  # (the stand-in is read)
        other = share(d_lines)
        other.setTo((3.0, 4.0))
        lines, votes = det.downloadResults(d_lines)
        assert lines.tobytes() == np.ascontiguousarray(d_lines._arr[0]).reshape(1, n, 2).tobytes()
        assert lines.tobytes() != stale[0].tobytes()


def test_detector_getters_setters_and_errors(host):
    det = cuda.createHoughLinesDetector(1.1, math.pi / 180, 50)
    det.setRho(2.5)
    det.setTheta(0.05)
    det.setThreshold(3)
    det.setDoSort(True)
    det.setMaxLines(2)
    assert (det.getRho(), det.getTheta(), det.getThreshold(), det.getDoSort(), det.getMaxLines()) == \
        (2.5, float(np.float32(0.05)), 3, True, 2)
    img = np.zeros((30, 30), np.uint8)
    img[5, :] = 255
    img[:, 7] = 255
    h_lines, h_votes = _detect(det, img)
    assert h_lines.shape == (1, 2, 2) and h_votes[0, 0] >= h_votes[0, 1]
    assert _detect(det, np.zeros((10, 10), np.uint8)) == (None, None)          # no points
    assert _detect(det, np.zeros((0, 0), np.uint8)) == (None, None)            # empty input
    assert cvgpu.last_call_backend() == "none"                                  # (no pixel work)
    _detect(det, img)
    assert _detect(det, cuda.GpuMat()) == (None, None)
    assert cvgpu.last_call_backend() == "none"                                  # not the call before's
    det.setMaxLines(0)
    assert _detect(det, img) == (None, None)
    for bad in (np.zeros((4, 4), np.float32), np.zeros((4, 4, 3), np.uint8), cuda.GpuMat(np.zeros((4, 4), np.int16))):
        with pytest.raises(cv2.error) as e:
            det.detect(bad)
        assert e.value.code == -215
    bad_sizes = cuda.createHoughLinesDetector(1, 100.0, 3)  # numangle = round(pi / 100) = 0
    assert _detect(bad_sizes, np.zeros((4, 4), np.uint8)) == (None, None)  # checked only with points
    with pytest.raises(cv2.error) as e:
        bad_sizes.detect(img)
    assert e.value.code == -215
    with pytest.raises(cv2.error) as e:
        det.downloadResults(cuda.GpuMat(np.zeros((3, 4), np.float32)))
    assert e.value.code == -215


def _golden_or_skip():
    path = golden_dir() / GOLDEN_NAME
    if not path.is_file():
        pytest.skip("%s not found: set CVGPU_GOLDEN_DIR, or put shared/golden beside the checkout or inside it"
                    % path)
    return load_cases(path)


def _check_against_golden(cases):
    """The CPU detector on each golden case by the corpus README's rules (complete: the exact set;
    truncated: a maxLines subset of our full candidate set, which contains the golden lines);
    returns the indices that differ."""
    bad = []
    for i, (img, gl, gv, p) in enumerate(cases):
        rho, theta, threshold, do_sort, max_lines = float(p[0]), float(p[1]), int(p[2]), bool(p[3]), int(p[4])
        h_lines, h_votes = _detect(cuda.createHoughLinesDetector(rho, theta, threshold, do_sort, max_lines),
                                   cuda.GpuMat(img))
        assert cvgpu.last_call_backend() == "numpy" or len(gl) == 0
        full_lines, full_votes = _detect(cuda.createHoughLinesDetector(rho, theta, threshold, False, 1 << 30), img)
        ours = _as_set(h_lines, h_votes) if h_lines is not None else set()
        full = _as_set(full_lines, full_votes) if full_lines is not None else set()
        ok = golden_agrees(gl, gv, (rho, theta, threshold, do_sort, max_lines), full_lines, full_votes)
        if len(gl) < max_lines:
            ok = ok and ours == _as_set(gl, gv)
        else:
            ok = ok and len(ours) == max_lines and ours <= full
        if do_sort and h_votes is not None:
            ok = ok and _sorted_by_votes(h_votes)
        if not ok:
            bad.append(i)
    return bad


def test_cpu_detector_equals_opencv_cuda_golden(host):
    cases = _golden_or_skip()
    assert len(cases) == 240
    assert _check_against_golden(cases) == []


# The global-memory corpus's cases up to this many edge points run in the CPU suite (a few seconds);
# CVGPU_HOST_GLOBAL_ALL=1 runs all 16 (about a minute of CPU).
GLOBAL_POINTS_CI = 100_000


def test_cpu_detector_equals_opencv_cuda_global_golden(host):
    if not GLOBAL_GOLDEN.is_file():
        pytest.skip("%s not recorded" % GLOBAL_GOLDEN.relative_to(ROOT))
    cases = load_cases(GLOBAL_GOLDEN)
    if not os.environ.get("CVGPU_HOST_GLOBAL_ALL"):
        cases = [c for c in cases if np.count_nonzero(c[0]) <= GLOBAL_POINTS_CI]
    assert cases
    assert _check_against_golden(cases) == []


def test_host_sincosf_is_within_two_ulp_of_sin_cos():
    """The libdevice polynomial's accuracy (an independent sanity check of the constants)."""
    a = np.arange(0, 7200, dtype=np.float32) * np.float32(math.pi / 3600)
    s, c = _hough_host.cuda_sincosf(a)
    for got, ref in ((s, np.sin(a.astype(np.float64))), (c, np.cos(a.astype(np.float64)))):
        assert np.max(np.abs(got - ref) / np.spacing(np.abs(got).astype(np.float32) + np.float32(1e-30))) < 2


def test_fma32_is_correctly_rounded():
    from fractions import Fraction
    rng = np.random.default_rng(7)
    a = rng.integers(0, 70000, 2000).astype(np.float32)
    b = rng.uniform(-4, 4, 2000).astype(np.float32)
    c = np.where(rng.random(2000) < 0.5, -(a.astype(np.float64) * b) + 0.5, rng.uniform(-7e4, 7e4, 2000))
    c = c.astype(np.float32)
    got = _hough_host._fma32(a, b, c)
    for x, y, z, g in zip(a, b, c, got):
        exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
        lo = np.nextafter(g, np.float32(-np.inf))
        hi = np.nextafter(g, np.float32(np.inf))
        err = abs(Fraction(float(g)) - exact)
        assert err <= abs(Fraction(float(lo)) - exact) and err <= abs(Fraction(float(hi)) - exact)


# ================================================================ the README's usage snippet

def _readme_snippet():
    text = (ROOT / "README.md").read_text()
    use = text[text.index("## Use"):]
    return re.search(r"```python\n(.*?)```", use, re.S).group(1)


@pytest.mark.skipif(not hasattr(cv2, "ximgproc"), reason="the snippet calls cv2.ximgproc: opencv-contrib-python "
                    "(cvgpu's dependency, which the README installs) is not what this cv2 is")
def test_readme_snippet_runs_without_a_gpu():
    code = _readme_snippet() + textwrap.dedent("""
        assert h_lines is not None and h_lines.shape[0] == 1 and h_votes.shape == (1, h_lines.shape[1])
        det.detect(cv2.cuda_GpuMat(edges))
        assert cv2.last_call_backend() == "numpy", cv2.last_call_backend()
        assert cv2.backend() == "cv2"
        s = cv2.cuda.Stream()
        s.waitForCompletion()
        print("snippet ok", h_lines.shape)
    """)
    env = dict(os.environ, CVGPU_BACKEND="cv2", CUDA_VISIBLE_DEVICES="",
               PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "snippet ok" in r.stdout and "Traceback" not in r.stderr


# ================================================================ GPU: the CPU path equals the GPU path

from test_cuda_hough import build_detector_case, detector_cases  # noqa: E402


def _gpu_and_host(img, params):
    """(GPU result, CPU result) of one detector setting: the downloaded (lines, votes), and the
    engine each recorded."""
    det = cuda.createHoughLinesDetector(*params)
    gpu_out = det.downloadResults(det.detect(cuda.GpuMat(img)))
    gpu_engine = cvgpu.last_call_backend()
    gm._FORCE_HOST[0] = True
    try:
        d_host = det.detect(cuda.GpuMat(img))
        host_engine = cvgpu.last_call_backend()
        assert d_host.empty() or type(d_host._arr) is np.ndarray
        host_out = det.downloadResults(d_host)
    finally:
        gm._FORCE_HOST[0] = False
    return gpu_out, host_out, gpu_engine, host_engine


@pytest.mark.gpu
@settings(max_examples=examples(1_000))  # the CPU path: ~0.1 s a case
@given(detector_cases())
def test_cpu_path_equals_gpu_path(c):
    img, params = build_detector_case(c)
    (gl, gv), (hl, hv), ge, he = _gpu_and_host(img, params)
    if gl is None:
        assert hl is None and hv is None
        return
    assert ge == "cuda" and he == "numpy"
    assert hl is not None and hl.tobytes() == gl.tobytes() and hv.tobytes() == gv.tobytes()
    assert hl.shape == gl.shape and hv.shape == gv.shape


@pytest.mark.gpu
def test_cpu_path_equals_gpu_path_on_global_memory_cases():
    """Images whose accumulator rows exceed OpenCV's shared-memory limit (column numrho + 1 kept)."""
    rng = np.random.default_rng(3)
    for rows, cols, rho in ((1600, 1600, 0.5), (700, 3000, 0.5)):
        img = np.zeros((rows, cols), np.uint8)
        for _ in range(12):
            cv2.line(img, (int(rng.integers(0, cols)), int(rng.integers(0, rows))),
                     (int(rng.integers(0, cols)), int(rng.integers(0, rows))), 255, 1)
        for params in ((rho, math.pi / 180, 150, False, 4096), (rho, math.pi / 180, 60, True, 50)):
            (gl, gv), (hl, hv), _, _ = _gpu_and_host(img, params)
            assert gl is not None and hl.tobytes() == gl.tobytes() and hv.tobytes() == gv.tobytes()


@pytest.mark.gpu
def test_gpu_and_host_gpumats_agree():
    """The same GpuMat calls on device memory and on host memory give the same downloads."""
    rng = np.random.default_rng(5)
    a = rng.integers(0, 255, (5, 7, 3), dtype=np.uint8)
    outs = []
    for force in (False, True):
        gm._FORCE_HOST[0] = force
        try:
            m = cuda.GpuMat(a)
            assert (type(m._arr) is np.ndarray) == force
            v = m.colRange(2, 5)
            v.setTo((300, -4.5, 7.5))
            outs.append((m.download(), m.clone().download(), v.download(), m.step, v.step, v.isContinuous(),
                         m.type(), m.size()))
        finally:
            gm._FORCE_HOST[0] = False
    dev, hst = outs
    assert all(np.array_equal(x, y) if isinstance(x, np.ndarray) else x == y for x, y in zip(dev, hst))


@pytest.mark.skipif(HAS_GPU, reason="checks the no-GPU behaviour")
def test_segment_detector_without_gpu_raises_no_cuda_on_host_gpumats():
    # The segment detector has no CPU path: a host-backed GpuMat gets -216, as a numpy image does.
    det = cuda.createHoughSegmentDetector(1, 0.1, 3, 1)
    img = np.zeros((4, 4), np.uint8)
    img[1, 1] = 255
    for src in (img, cuda.GpuMat(img)):
        _no_cuda(lambda: det.detect(src))


@pytest.mark.parametrize("force_host", [True, pytest.param(False, marks=pytest.mark.gpu)])
@pytest.mark.parametrize("s", [7, 7.5, (1, 2), (1, 2, 3, 4)])
def test_set_to_converts_scalars_as_cv2(force_host, s):
    # cv2's own conversion of a Python number or short tuple to a cv::Scalar parameter, seen through
    # cv2.rectangle's colour filling a zero image: a number is (v, 0, 0, 0), a short tuple is padded
    # with zeros. (cv2.add is no anchor: from 5.0 it broadcasts a number to every channel.)
    zeros = np.zeros((2, 3, 3), np.float32)
    expected = cv2.rectangle(zeros.copy(), (0, 0), (2, 1), s, -1)
    gm._FORCE_HOST[0] = force_host
    try:
        m = cuda.GpuMat(zeros)
        m.setTo(s)
        assert np.array_equal(m.download(), expected)
    finally:
        gm._FORCE_HOST[0] = False
