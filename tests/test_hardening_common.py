"""Hardening across the families (issue 10): every family's calls at once, from threads and on
streams and devices; cv2.cuda's objects without a GPU. The shared rules and builders are
tests/hardening_support.py's; each family's own bad-input tests are in its folder.

CPU part (runs everywhere): eight host threads calling every family at once (the same function at
the same time, and different functions) give the serial calls' results and leave the inputs
unchanged; without a GPU, cvgpu's GpuMat and Stream behave as cv2's without CUDA.

cv2 itself crashes on one input here, so it is never run:
  * cv2.cuda.Stream_Null() in a cv2 without CUDA (aborts: an uncaught cv::Exception).

GPU part: every family's call is issued on the caller's current CuPy stream (input written behind a
long kernel on a non-blocking stream must be seen), never waits for the whole device (a kernel
running on another stream is still running when all calls have returned), leaves device memory flat
over 10,000 mixed calls, turns an allocation beyond the GPU into cv2.error -4 and keeps working;
with two GPUs, ``cupy.cuda.Device(1)`` current computes on device 1, and an array living on another
device is computed where it lives.
"""
import gc
import threading
import time

import cv2
import numpy as np
import pytest

import cvgpu
from cvgpu import _versions
from conftest import spin
from hardening_support import (HAS_GPU, HAS_XIMGPROC, _cupy, _devices_of, _gpu_calls,  # noqa: F401
                               _packed_reference, _quiet_fallback, _reference, _same_tree, _to_host, assert_same,
                               outcome)


# ================================================================ concurrency

def _concurrency_cases():
    rng = np.random.default_rng(7)
    edges = ((rng.random((64, 80)) < 0.05) * 255).astype(np.uint8)
    edges[20, :] = 255
    edges[:, 33] = 255
    blobs = np.zeros((60, 70), np.uint8)
    blobs[5:25, 5:30] = 255
    blobs[10:15, 10:15] = 0
    blobs[35:55, 40:65] = 1
    pts = np.array([[0, 0], [1, 1], [2, 2.1], [3, 2.9], [4, 4], [5, 9], [6, 6]], np.float32)
    cases = [
        ("HoughLines", lambda: cvgpu.HoughLines(edges, 1, np.pi / 180, 20),
         lambda: cv2.HoughLines(edges, 1, np.pi / 180, 20)),
        ("HoughLines theta range", lambda: cvgpu.HoughLines(edges[::-1], 2, 0.05, 10, min_theta=0.2, max_theta=2.0),
         lambda: cv2.HoughLines(edges[::-1], 2, 0.05, 10, min_theta=0.2, max_theta=2.0)),
        ("HoughLinesWithAccumulator", lambda: cvgpu.HoughLinesWithAccumulator(edges, 1, np.pi / 180, 15),
         lambda: cv2.HoughLinesWithAccumulator(edges, 1, np.pi / 180, 15)),
        ("HoughLinesP", lambda: cvgpu.HoughLinesP(edges, 1, np.pi / 180, 15, None, 5, 2),
         lambda: cv2.HoughLinesP(edges, 1, np.pi / 180, 15, None, 5, 2)),
        ("findContours TREE", lambda: cvgpu.findContours(blobs, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE),
         lambda: cv2.findContours(blobs, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)),
        ("findContours LIST", lambda: cvgpu.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE, offset=(1, 2)),
         lambda: cv2.findContours(edges, cv2.RETR_LIST, cv2.CHAIN_APPROX_NONE, offset=(1, 2))),
        ("findContoursPacked", lambda: cvgpu.findContoursPacked(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE),
         lambda: _packed_reference(blobs, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_NONE, None)),
        ("bad input", lambda: cvgpu.HoughLines(edges.astype(np.float32), 1, 0.1, 5),
         lambda: cv2.HoughLines(edges.astype(np.float32), 1, 0.1, 5)),
        # cvgpu's own: compared with their serial results only.
        ("fitLineLMS", lambda: cvgpu.fitLineLMS(pts), None),
        ("fitLineLMSBatch", lambda: cvgpu.fitLineLMSBatch([pts, pts[:4], pts[2:]]), None),
        ("refineHoughLines", lambda: cvgpu.refineHoughLines(edges, np.array([[[20.0, 1.5707964]]], np.float32), 1,
                                                            np.pi / 180), None),
    ]
    if HAS_XIMGPROC:
        sq = edges[:40, :40]
        cases.append(("RadonTransform", lambda: cvgpu.ximgproc.RadonTransform(sq, None, 5.0, 0.0, 180.0),
                      lambda: cv2.ximgproc.RadonTransform(sq.copy(), None, 5.0, 0.0, 180.0)))
        cases.append(("RadonTransform float crop", lambda: cvgpu.ximgproc.RadonTransform(
            blobs.astype(np.float32), None, 10.0, 0.0, 90.0, True, True), lambda: cv2.ximgproc.RadonTransform(
            blobs.astype(np.float32), None, 10.0, 0.0, 90.0, True, True)))
    return cases, (edges.copy(), blobs.copy(), pts.copy(), edges, blobs, pts)


def test_eight_threads_match_serial_calls():
    cases, (edges0, blobs0, pts0, edges, blobs, pts) = _concurrency_cases()
    serial = {}
    for name, ours, ref in cases:
        serial[name] = outcome(ours)
        if ref is not None:
            assert_same(serial[name], outcome(ref), name)
    n_threads, rounds = 8, 4
    barrier = threading.Barrier(n_threads)
    results = [[] for _ in range(n_threads)]
    errors = []

    def worker(t):
        try:
            barrier.wait()
            for r in range(rounds):
                if t < 4:   # threads 0-3: all of them call the same function at the same time
                    order = [cases[r % len(cases)]] * 3
                else:       # threads 4-7: different functions, each thread its own order
                    order = cases[t:] + cases[:t]
                for name, ours, _ in order:
                    results[t].append((name, outcome(ours)))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(n_threads)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=120)
    assert not any(th.is_alive() for th in threads), "a thread hangs"
    assert not errors, errors
    total = 0
    for t in range(n_threads):
        for name, got in results[t]:
            assert_same(got, serial[name], "thread %d, %s differs from the serial call" % (t, name))
            total += 1
    assert total == 4 * rounds * 3 + 4 * rounds * len(cases)
    assert edges.tobytes() == edges0.tobytes() and blobs.tobytes() == blobs0.tobytes()
    assert pts.tobytes() == pts0.tobytes()


# ================================================================ cuda objects without a GPU

@pytest.mark.skipif(HAS_GPU, reason="compares with cv2's behaviour without CUDA")
@pytest.mark.parametrize("call", [
    lambda m: m.cuda_GpuMat(),
    lambda m: m.cuda_GpuMat().empty(),
    lambda m: m.cuda.getCudaEnabledDeviceCount(),
], ids=["GpuMat()", "empty()", "device count"])
def test_cuda_objects_without_gpu_match_cv2(call):
    # What needs no memory matches cv2 without CUDA. What does (GpuMat(array), GpuMat(rows, cols,
    # type), Stream(), Stream_Null()) raises -216 in cv2's CUDA-less wheels, and works in cvgpu
    # without a GPU (issue 43: host-backed GpuMat, no-op Stream): tests/cuda/test_cuda_host.py.
    assert_same(outcome(lambda: call(cvgpu)), outcome(lambda: call(cv2)))


# ================================================================ GPU part: streams, devices, memory

@pytest.mark.gpu
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_work_follows_the_callers_stream(call):
    """The input is written on a non-blocking stream behind a long kernel; cvgpu, called with that
    stream current, must see the written input (its work is ordered on the caller's stream)."""
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    fn(cvgpu, cp.asarray(host))  # compile and warm up outside the timed stream
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        device = cp.zeros(host.shape, host.dtype)
        spin(cp, stream, 0.3)
        device.set(host)  # lands only after the spin, in stream order
        ours = fn(cvgpu, device)
        stream.synchronize()
    assert _devices_of(ours) <= {cp.cuda.Device().id}
    assert _same_tree(_to_host(ours), ref), name


@pytest.mark.gpu
def test_gpu_calls_do_not_synchronize_the_device():
    """While a long kernel runs on another stream, every call returns: none waits for the device."""
    cp = _cupy()
    calls = _gpu_calls()
    inputs = [cp.asarray(c[1]) for c in calls]
    for c, x in zip(calls, inputs):  # warm up: kernels compiled, scratch and pools allocated
        for _ in range(2):
            _to_host(c[2](cvgpu, x))
            _to_host(c[2](cvgpu, c[1]))
    other = cp.cuda.Stream(non_blocking=True)
    mine = cp.cuda.Stream(non_blocking=True)
    spin(cp, other, 8.0)
    finished = []  # (call, seconds, the other stream still busy after it)
    start = time.perf_counter()
    with mine:
        for c, x in zip(calls, inputs):
            t0 = time.perf_counter()
            _to_host(c[2](cvgpu, x))
            _to_host(c[2](cvgpu, c[1]))
            finished.append((c[0], round(time.perf_counter() - t0, 4), not other.done))
    still_busy = not other.done
    total = time.perf_counter() - start
    other.synchronize()
    assert still_busy, ("a call waited for the whole device (another stream's kernel had finished after %.2f s): "
                        "%s" % (total, finished))
    assert len(finished) == len(calls)


def _memory(cp):
    """(used, total) bytes of CuPy's device memory pool, after collecting garbage."""
    gc.collect()
    pool = cp.get_default_memory_pool()
    return pool.used_bytes(), pool.total_bytes()


@pytest.mark.gpu
def test_gpu_memory_stays_flat_over_10000_mixed_calls():
    cp = _cupy()
    calls = _gpu_calls()
    inputs = [(c, c[1]) for c in calls] + [(c, cp.asarray(c[1])) for c in calls]
    for c, x in inputs * 3:
        _to_host(c[2](cvgpu, x))
    used0, total0 = _memory(cp)
    for i in range(10_000):
        c, x = inputs[i % len(inputs)]
        _to_host(c[2](cvgpu, x))
    used1, total1 = _memory(cp)
    assert used1 <= used0 + (1 << 20), (used0, used1)
    assert total1 <= total0 + (8 << 20), (total0, total1)


@pytest.mark.gpu
def test_gpu_out_of_memory_is_cv2_error_minus_4_and_the_process_goes_on():
    cp = _cupy()
    img = np.zeros((2000, 2000), np.uint8)
    img[5, :] = 255
    # (2 * 4000 + 1) / 0.001 rho bins x 20000 angles x 4 bytes: about 640 GB of accumulator.
    with pytest.raises(cv2.error) as info:
        cvgpu.HoughLines(img, 0.001, np.pi / 20000, 100)
    assert info.value.code == -4
    with pytest.raises(cv2.error) as info:
        cvgpu.HoughLines(cp.asarray(img), 0.001, np.pi / 20000, 100)
    assert info.value.code == -4
    if hasattr(cv2, "ximgproc") and _versions.behaviour("radon.warp") != "fixed_point":  # 4.x: cv2 computes
        with pytest.raises(cv2.error) as info:
            cvgpu.ximgproc.RadonTransform(np.zeros((30000, 30000), np.uint8)[:, :1].repeat(30000, 1),
                                          theta=1e-4)
        assert info.value.code == -4
    for c in _gpu_calls():
        assert _same_tree(_to_host(c[2](cvgpu, c[1])), _reference(c, c[1])), c[0]


# -- several GPUs (run on a two-GPU machine; skipped with one)

def _device_count():
    try:
        return _cupy().cuda.runtime.getDeviceCount()
    except Exception:
        return 0


two_gpus = pytest.mark.skipif(not HAS_GPU or _device_count() < 2, reason="needs two CUDA devices")


@pytest.mark.gpu
@two_gpus
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_current_device_one_computes_on_device_one(call):
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    with cp.cuda.Device(1):
        ours_host = fn(cvgpu, host)
        d1 = cp.asarray(host)
        ours_dev = fn(cvgpu, d1)
        assert _devices_of(ours_dev) <= {1}
        assert any(key[0] == 1 for key in cvgpu._kernels._modules), "no kernel compiled for device 1"
    assert _same_tree(_to_host(ours_host), ref), name
    assert _same_tree(_to_host(ours_dev), ref), name


@pytest.mark.gpu
@two_gpus
@pytest.mark.parametrize("call", _gpu_calls(), ids=lambda c: c[0])
def test_gpu_input_on_another_device_is_computed_where_it_lives(call):
    cp = _cupy()
    name, host, fn, _ = call
    ref = _reference(call, host)
    with cp.cuda.Device(1):
        d1 = cp.asarray(host)
    with cp.cuda.Device(0):
        ours = fn(cvgpu, d1)
        assert cp.cuda.runtime.getDevice() == 0
    assert _devices_of(ours) <= {1}
    assert _same_tree(_to_host(ours), ref), name


@pytest.mark.gpu
@two_gpus
def test_gpu_two_devices_from_two_threads_match_serial_calls():
    cp = _cupy()
    calls = _gpu_calls()
    refs = [_reference(c, c[1]) for c in calls]
    errors = []

    def work(device_id):
        try:
            with cp.cuda.Device(device_id):
                for _ in range(20):
                    for c, ref in zip(calls, refs):
                        for x in (c[1], cp.asarray(c[1])):
                            if not _same_tree(_to_host(c[2](cvgpu, x)), ref):
                                errors.append((device_id, c[0]))
        except Exception as exc:  # reported below, not lost in the thread
            errors.append((device_id, repr(exc)))

    threads = [threading.Thread(target=work, args=(d,)) for d in (0, 1, 0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:5]
