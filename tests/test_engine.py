"""The per-call engine choice (cvgpu/_engine.py): forced engines, the cost model, the background
GPU start-up, a clean exit while it runs, and forked children. The CPU part runs everywhere with a
stand-in for the GPU's availability; the ``gpu`` part starts the real GPU."""
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cvgpu
from cvgpu import _backend, _engine

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def fresh_engine(monkeypatch):
    """An engine with no measurements, in auto mode, whose GPU counts as started and ready."""
    old = _engine.set_engine("auto")
    _engine.reset_model()
    monkeypatch.setattr(_engine._startup, "state", "ready")
    yield _engine
    _engine.reset_model()
    _engine.set_engine(old)


def test_set_engine_validates_and_returns_the_previous_mode():
    old = _engine.set_engine("cv2")
    try:
        assert _engine.get_engine() == "cv2"
        assert _engine.set_engine("CUDA ") == "cv2"
        with pytest.raises(ValueError):
            _engine.set_engine("gpu")
        assert _engine.get_engine() == "cuda"
    finally:
        _engine.set_engine(old)


@pytest.mark.parametrize("mode, on_device, expected", [
    ("cuda", False, "cuda"), ("cv2", False, "cv2"), ("cv2", True, "cuda"), ("auto", True, "cuda")])
def test_forced_engines_and_device_input(mode, on_device, expected):
    old = _engine.set_engine(mode)
    try:
        assert _engine.choose("findContours", ("k",), on_device) == expected
    finally:
        _engine.set_engine(old)


def test_a_key_is_measured_on_cv2_then_the_gpu_is_tried_then_the_faster_wins(fresh_engine):
    e = fresh_engine
    key = ("findContours", (36, 1, 2))
    with e.TUNING.override(first_use_ms=10.0, explore_factor=2.0, reprobe_every=1000):
        assert e.choose(*key) == "cv2"
        e.observe(*key, "cv2", 4.0)
        # 4 ms of cv2 on this key < 2 x 10 ms of expected first use: stay on cv2
        assert e.choose(*key) == "cv2"
        for _ in range(4):
            e.observe(*key, "cv2", 4.0)
        assert e.choose(*key) == "cuda"          # 20 ms spent: try the GPU
        e.observe(*key, "cuda", 12.0)            # its first call: plans, graphs
        assert e.choose(*key) == "cuda"          # the steady time is measured next
        e.observe(*key, "cuda", 0.5)
        assert e.choose(*key) == "cuda"          # 0.5 < 4
        snap = e.model_snapshot()[key]
        assert snap["gpu_ms"] == 0.5 and snap["first_ms"] == 12.0 and snap["cv2_n"] == 5


def _stream_of_calls(e, key, times, n):
    """n calls of ``key``, each on the engine chosen and taking that engine's time: the picks."""
    picks = []
    for _ in range(n):
        engine = e.choose(*key)
        picks.append(engine)
        e.observe(*key, engine, times[engine])
    return picks


def test_the_slower_engine_is_measured_again(fresh_engine):
    e = fresh_engine
    key = ("HoughLines", (20,))
    with e.TUNING.override(first_use_ms=0.0, reprobe_every=8, reprobe_ratio=4.0):
        e.observe(*key, "cv2", 1.0)
        assert e.choose(*key) == "cuda"
        e.observe(*key, "cuda", 5.0)
        e.observe(*key, "cuda", 3.0)             # steady GPU 3 ms > cv2 1 ms
        picks = _stream_of_calls(e, key, {"cv2": 1.0, "cuda": 3.0}, 40)
        # once 8 calls and 4 x 3 ms have passed since the last GPU measurement (whose own 3 ms
        # count): every 10th call, the first after the 9 ms spent before the stream
        assert [i for i, p in enumerate(picks) if p == "cuda"] == [6, 16, 26, 36]


@pytest.mark.parametrize("cv2_ms, gpu_ms", [(9.0, 0.07), (0.3, 0.25), (40.0, 2.0)])
def test_re_measuring_the_slower_engine_costs_a_bounded_share(fresh_engine, cv2_ms, gpu_ms):
    """However far apart the engines are, the slower one's re-measurements take at most about
    1/reprobe_ratio of a key's time (a VGA HoughLines stream: cv2 9 ms against 0.07 on the GPU,
    where one cv2 call every 64 once cost it three quarters of its throughput)."""
    e = fresh_engine
    key = ("HoughLines", (38,))
    with e.TUNING.override(first_use_ms=0.0, reprobe_every=64, reprobe_ratio=20.0):
        e.observe(*key, "cv2", cv2_ms)
        e.observe(*key, "cuda", gpu_ms)
        e.observe(*key, "cuda", gpu_ms)
        times = {"cv2": cv2_ms, "cuda": gpu_ms}
        picks = _stream_of_calls(e, key, times, 20000)
        fast = min(times, key=times.get)
        total = sum(times[p] for p in picks)
        best = len(picks) * times[fast]
        assert picks.count(fast) < len(picks)            # still measured again
        assert total <= best * (1 + 1 / 20.0 + 0.01), (total, best)


def test_the_gpu_starts_only_after_enough_cv2_time(monkeypatch):
    old = _engine.set_engine("auto")
    _engine.reset_model()
    started = []
    monkeypatch.setattr(_engine._startup, "state", "cold")
    monkeypatch.setattr(_engine._startup, "begin", lambda: started.append(True))
    monkeypatch.setattr(_backend, "gpu_probed", lambda: False)
    try:
        with _engine.TUNING.override(start_after_ms=50.0):
            assert _engine.choose("findContours", 1) == "cv2" and not started
            _engine.observe("findContours", 1, "cv2", 30.0)
            assert _engine.choose("findContours", 1) == "cv2" and not started
            _engine.observe("findContours", 1, "cv2", 30.0)
            assert _engine.choose("findContours", 1) == "cv2" and started   # cv2 until the GPU is ready
    finally:
        _engine.reset_model()
        _engine.set_engine(old)


def test_run_attributes_the_time_to_the_engine_that_computed(fresh_engine):
    e = fresh_engine
    key = ("radon", 7)

    def gpu():
        _backend.record("cv2")     # a GPU path that handed the call to cv2 (e.g. a NaN sinogram)
        return "g"

    assert e.run(key[0], key[1], False, gpu, lambda: (_backend.record("cv2"), "c")[1]) == "c"
    with e.TUNING.override(first_use_ms=0.0):
        assert e.run(key[0], key[1], False, gpu, lambda: "c") == "g"
    snap = e.model_snapshot()[key]
    assert snap["cv2_n"] == 2 and snap["gpu_n"] == 0


def test_a_process_without_a_gpu_computes_with_cv2_and_keeps_no_model(monkeypatch):
    """Once the GPU is known unusable ("failed"), run() hands the call to cv2 without timing it:
    nothing would ever read the model."""
    old = _engine.set_engine("auto")
    _engine.reset_model()
    monkeypatch.setattr(_engine._startup, "state", "failed")
    monkeypatch.setattr(_backend, "warn_fallback", lambda: None)
    try:
        gpu_calls = []
        out = _engine.run("findContours", ("k",), False, lambda: gpu_calls.append(1),
                          lambda: (_backend.record("cv2"), "c")[1])
        assert out == "c" and not gpu_calls and _backend.last_call_backend() == "cv2"
        assert _engine.model_snapshot() == {}
    finally:
        _engine.reset_model()
        _engine.set_engine(old)


def test_the_quick_reason_is_asked_once_while_cold(monkeypatch):
    """A cold engine asks _backend.quick_unusable_reason() (an environment read) on its first call
    only; a reason found there still fails the GPU at once."""
    old = _engine.set_engine("auto")
    asked = []
    monkeypatch.setattr(_engine._startup, "state", "cold")
    monkeypatch.setattr(_engine._startup, "nothing_known", False)
    monkeypatch.setattr(_engine._startup, "begin", lambda: None)
    monkeypatch.setattr(_backend, "gpu_probed", lambda: False)
    monkeypatch.setattr(_backend, "quick_unusable_reason", lambda: asked.append(1))
    try:
        for _ in range(3):
            assert _engine.choose("findContours", ("k",)) == "cv2"
        assert len(asked) == 1 and _engine.startup_state() == "cold"
        monkeypatch.setattr(_engine._startup, "nothing_known", False)
        monkeypatch.setattr(_backend, "quick_unusable_reason", lambda: "CVGPU_BACKEND=cv2 is set")
        monkeypatch.setattr(_backend, "mark_unusable", lambda reason: asked.append(reason))
        monkeypatch.setattr(_backend, "warn_fallback", lambda: None)
        assert _engine.choose("findContours", ("k",)) == "cv2"
        assert _engine.startup_state() == "failed" and asked[-1] == "CVGPU_BACKEND=cv2 is set"
    finally:
        _engine.set_engine(old)


def test_size_buckets_are_half_octaves():
    b = _engine.size_bucket
    assert b(600 * 480) == b(640 * 480) != b(1280 * 720)
    assert b(0) == -1 and b(1) == 0
    for n in (2, 3, 5, 1000, 307_200, 307_200, 2 ** 40 + 1):   # the memo gives what the formula gives
        assert b(n) == int(round(2 * __import__("math").log2(n)))


def _python(code, env_extra=None, args=("-X", "dev")):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.update(env_extra or {})
    return subprocess.run([sys.executable, *args, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=120)


EXIT_WHILE_STARTING = """
    import time, cvgpu
    from cvgpu import _engine
    _engine.set_engine("auto")
    _engine._startup.begin()          # the background start-up, then exit at once
    print("state", _engine.startup_state())
"""


def test_exit_while_the_background_start_up_runs_is_clean():
    r = _python(EXIT_WHILE_STARTING)
    assert r.returncode == 0, r.stderr
    assert "Warning" not in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert r.stdout.startswith("state ")


def test_exit_from_a_thread_that_started_the_gpu_is_clean():
    r = _python("""
        import threading, cvgpu
        from cvgpu import _engine
        _engine.set_engine("auto")
        t = threading.Thread(target=_engine._startup.begin)
        t.start(); t.join()
        print("ok")
    """)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr
    assert "Warning" not in r.stderr, r.stderr


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork() on this platform")
def test_a_forked_child_of_a_started_gpu_computes_with_cv2():
    r = _python("""
        import os, numpy as np, cv2, cvgpu
        from cvgpu import _engine
        _engine.set_engine("auto")
        _engine.wait_until_ready()
        parent = _engine.startup_state()
        img = np.zeros((40, 40), np.uint8); img[10:20, 10:20] = 255
        pid = os.fork()
        if pid == 0:
            import warnings
            warnings.simplefilter("ignore")
            out = cvgpu.findContours(img, cv2.RETR_LIST, cv2.CHAIN_APPROX_SIMPLE)
            ok = len(out[0]) == 1 and cvgpu.last_call_backend() == "cv2"
            os._exit(0 if ok and _engine.startup_state() == "failed" else 3)
        _, status = os.waitpid(pid, 0)
        print("parent", parent, "child", os.waitstatus_to_exitcode(status))
    """, args=())
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[-1] == "0", r.stdout + r.stderr


@pytest.mark.gpu
def test_background_start_up_reaches_ready_and_loads_kernels_ahead_of_time():
    r = _python("""
        import time, cvgpu
        from cvgpu import _engine, _kernels
        _engine.set_engine("auto")
        assert _engine.wait_until_ready(60)
        print(_engine.startup_state(), round(_engine._startup.seconds, 3))
    """)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split()[0] == "ready"


@pytest.mark.parametrize("driver, expected", [(False, "no NVIDIA GPU/driver found"),
                                              (True, "CuPy is not installed (pip install")])
def test_reason_without_cupy_names_the_missing_driver_first(monkeypatch, driver, expected):
    """Without CuPy the engine falls back to cv2 before starting anything; its reason (the fallback
    warning's, the bench's) says "no NVIDIA GPU/driver found" where there is no driver, since
    installing CuPy would not help, and names the missing CuPy only where a driver exists."""
    import importlib.util
    monkeypatch.setitem(_backend._state, "checked", False)
    monkeypatch.delenv("CVGPU_BACKEND", raising=False)
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "cupy" else real_find_spec(name, *a))
    monkeypatch.setattr(_backend, "_cupy_found", [])
    monkeypatch.setattr(_backend, "_driver_present", lambda: driver)
    assert _backend.quick_unusable_reason().startswith(expected)


def test_cupy_is_searched_once_per_process(monkeypatch):
    """Auto mode asks quick_unusable_reason on every call before the GPU starts: CuPy's installation
    is searched once (each search stats every sys.path entry), then remembered."""
    import importlib.util
    monkeypatch.setitem(_backend._state, "checked", False)
    monkeypatch.delenv("CVGPU_BACKEND", raising=False)
    monkeypatch.setattr(_backend, "_cupy_found", [])
    searched = []
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: searched.append(name) or object())
    assert [_backend.quick_unusable_reason() for _ in range(3)] == [None] * 3
    assert searched == ["cupy"]


@pytest.mark.parametrize("value", [3, 2.5, True, None, "x", (1, 2), [1, 2], {"a": 1}, np.zeros(3), np.int32(4)])
def test_host_values_are_not_device_arrays_without_starting_the_gpu(monkeypatch, value):
    """as_device_array judges host values (scalars, tuples, lists, numpy) without CuPy: probing it
    would start the GPU in the caller's thread (the first cv2-computed findContours call in auto mode
    took ~0.5 s on an H100 machine, its mode and method going through this helper)."""
    from cvgpu import _arrays

    def no_probe():
        raise AssertionError("CuPy probed for a host value")
    monkeypatch.setattr(_arrays, "cupy_module", no_probe)
    assert _arrays.as_device_array(value) is None


def test_an_instance_cuda_array_interface_still_counts(monkeypatch):
    """The interface may be an instance attribute (the protocol allows it): such a value is still
    asked of CuPy."""
    from cvgpu import _arrays

    class Wrapped:
        def __init__(self):
            self.__cuda_array_interface__ = {"shape": (1,), "typestr": "|u1", "data": (0, False), "version": 3}
    asked = []
    monkeypatch.setattr(_arrays, "cupy_module", lambda: asked.append(1))
    assert _arrays.as_device_array(Wrapped()) is None and asked == [1]


FIRST_CALLS_IN_AUTO = """
    import time, warnings, numpy as np, cv2, cvgpu
    from cvgpu import _backend, _engine
    warnings.simplefilter("ignore")
    _engine.set_engine("auto")
    img = np.zeros((48, 64), np.uint8); img[10:30, 12:40] = 255
    edges = cv2.Canny(img, 50, 150)
    calls = [("findContours", lambda: cvgpu.findContours(img, cv2.RETR_TREE, cv2.CHAIN_APPROX_SIMPLE)),
             ("findContoursLinkRuns", lambda: cvgpu.findContoursLinkRuns(img)),
             ("HoughLines", lambda: cvgpu.HoughLines(edges, 1, np.pi / 180, 10)),
             ("HoughLinesP", lambda: cvgpu.HoughLinesP(edges, 1, np.pi / 180, 10, None, 5, 2)),
             ("RadonTransform", lambda: cvgpu.ximgproc.RadonTransform(img) if hasattr(cv2, "ximgproc") else None)]
    for name, call in calls:
        t = time.perf_counter(); call(); ms = (time.perf_counter() - t) * 1e3
        print(name, cvgpu.last_call_backend(), _backend.gpu_probed(), _engine.startup_state(), round(ms, 1))
"""


@pytest.mark.gpu
def test_first_small_calls_in_auto_mode_start_nothing():
    """In auto mode a script's first small calls are cv2's and start nothing: neither CuPy's probe
    (in the caller's thread) nor the background start-up, whichever family they are."""
    r = _python(FIRST_CALLS_IN_AUTO)
    assert r.returncode == 0, r.stderr
    lines = [l.split() for l in r.stdout.splitlines()]
    assert len(lines) == 5, r.stdout + r.stderr
    for name, backend, probed, state, ms in lines:
        assert (backend, probed, state) == ("cv2", "False", "cold"), (name, backend, probed, state, ms)


def test_tuning_values_read_as_attributes_and_overrides_apply():
    """Tuning keeps each value as an instance attribute (no __getattr__ on the hot paths' reads):
    an override changes what is read inside the block and restores it after, also when the block
    raises; unknown names and names that shadow the class's own are refused."""
    from cvgpu._tuning import Tuning
    t = Tuning("demo", alpha=1, beta="b")
    assert "alpha" in vars(t) and t.alpha == 1 and t.beta == "b"
    with t.override(alpha=2):
        assert t.alpha == 2 and t.beta == "b"
    assert t.alpha == 1
    with pytest.raises(RuntimeError):
        with t.override(alpha=3, beta="c"):
            assert (t.alpha, t.beta) == (3, "c")
            raise RuntimeError("inside")
    assert (t.alpha, t.beta) == (1, "b")
    with pytest.raises(AttributeError):
        t.gamma
    with pytest.raises(AttributeError):
        t.alpha = 5
    with pytest.raises(AttributeError):
        with t.override(gamma=1):
            pass
    for bad in ("ran", "override", "_values"):
        with pytest.raises(ValueError):
            Tuning("demo", **{bad: 1})
    # The families' own objects: every value is an attribute.
    from cvgpu.hough import TUNING as hough_tuning
    assert all(name in vars(hough_tuning) for name in hough_tuning.names())
    with hough_tuning.override(vote_min_points=7):
        assert hough_tuning.vote_min_points == 7
    assert hough_tuning.vote_min_points != 7


def test_hough_engine_key_memo_matches_the_computation():
    """cvgpu.hough.lines._engine_key's memo gives what the computation gives, for thetas of every
    kind (float, int, numpy scalar, zero, NaN, a string cv2 rejects, an unhashable list)."""
    import math
    from cvgpu.hough import lines as L
    img = np.zeros((48, 64), np.uint8)
    for theta in (np.pi / 180, 1, np.float32(0.01), 0.0, float("nan"), "x", [1.0], np.pi / 180):
        args = (img, 1.0, theta, 10)
        got = L._engine_key(False, img, args, {})
        try:
            angles = int(math.log2(math.pi / float(theta)))
        except (TypeError, ValueError, ZeroDivisionError, OverflowError):
            angles = None
        assert got == (False, _engine.size_bucket(img.size), angles), theta
        assert L._engine_key(False, img, (img,), {"theta": theta}) == got
