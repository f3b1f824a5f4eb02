"""cvgpu/_native: the shipped host-helper library is built from the shipped source, loads without
CUDA, and its C functions do what cvgpu relies on, checked on the CPU with stand-in driver
functions (a copy of the library, so the process's own instance keeps the real driver's)."""
import ctypes
import shutil
import subprocess
import sys

import numpy as np
import pytest

from cvgpu import _native

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_shipped_library_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_native.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, "stale host helpers (run tools/build_native.py): " + r.stdout + r.stderr


def _private_copy(tmp_path):
    lib, why = _native.load_library()
    if lib is None:
        pytest.skip("no host-helper library for this platform: %s" % why)
    entry = _native.manifest()["libraries"][_native.platform_tag()]
    path = tmp_path / entry["file"]
    shutil.copy(ROOT / "cvgpu" / "_native" / entry["file"], path)
    return ctypes.CDLL(str(path))


HTOD = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
LAUNCH = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p)
QUERY = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)


def _bind(lib, htod, launch, query):
    keep = (HTOD(htod), LAUNCH(launch), QUERY(query))
    assert lib.cvg_init(*[ctypes.cast(f, ctypes.c_void_p) for f in keep]) == 0
    vp, ll, i32 = ctypes.c_void_p, ctypes.c_longlong, ctypes.c_int32
    lib.cvg_wait.argtypes, lib.cvg_wait.restype = [vp, i32, vp], ll
    lib.cvg_upload_replay.argtypes = [vp, ll, ll, ll, vp, ctypes.c_uint64, vp, vp, vp, i32]
    lib.cvg_upload_replay.restype = ll
    return keep


def test_library_loads_without_cuda(tmp_path):
    lib = _private_copy(tmp_path)
    assert lib.cvg_version() == 1


@pytest.mark.parametrize("layout", ["contiguous", "rows of a wider image", "one row", "one column"])
def test_upload_replay_copies_uploads_launches_and_waits(tmp_path, layout):
    lib = _private_copy(tmp_path)
    rng = np.random.default_rng(5)
    big = rng.integers(0, 256, (37, 53), dtype=np.uint8)
    image = {"contiguous": big, "rows of a wider image": big[3:30, 5:41], "one row": big[7:8],
             "one column": big[:, 9:10]}[layout]
    rows, cols = image.shape
    staging = np.zeros(rows * cols + 16, np.uint8)
    device = np.zeros(rows * cols + 16, np.uint8)
    flag = np.array([123], np.int32)
    calls = []

    def htod(dst, src, nbytes, stream):
        calls.append(("htod", dst, nbytes, stream))
        ctypes.memmove(device.ctypes.data, src, nbytes)
        return 0

    def launch(graph, stream):
        calls.append(("launch", graph, stream, int(flag[0])))  # the flag is unset before the launch
        flag[0] = 42
        return 0
    keep = _bind(lib, htod, launch, lambda stream: 600)
    count = lib.cvg_upload_replay(image.ctypes.data, rows, cols, image.strides[0], staging.ctypes.data, 7777,
                                  1234, 99, flag.ctypes.data, -1)
    assert count == 42
    assert calls == [("htod", 7777, rows * cols, 99), ("launch", 1234, 99, -1)]
    assert (device[:rows * cols].reshape(rows, cols) == image).all()
    assert (device[rows * cols:] == 0).all() and (staging[rows * cols:] == 0).all()
    del keep


def test_wait_ends_on_the_flag_a_finished_stream_or_an_error(tmp_path):
    lib = _private_copy(tmp_path)
    flag = np.array([-1], np.int32)
    state = {"queries": 0}

    def query(stream):
        state["queries"] += 1
        if state["queries"] == 3:
            flag[0] = 17   # published while the host polls
        return 600
    keep = _bind(lib, lambda *a: 0, lambda *a: 0, query)
    assert lib.cvg_wait(flag.ctypes.data, -1, 5) == 17
    assert state["queries"] == 3
    flag[0] = 9
    assert lib.cvg_wait(flag.ctypes.data, -1, 5) == 9          # already published: no query
    assert state["queries"] == 3
    flag[0] = -1
    keep = _bind(lib, lambda *a: 0, lambda *a: 0, lambda s: 0)  # finished without the flag
    assert lib.cvg_wait(flag.ctypes.data, -1, 5) == -1
    keep = _bind(lib, lambda *a: 0, lambda *a: 0, lambda s: 700)  # a failed query: its code
    assert lib.cvg_wait(flag.ctypes.data, -1, 5) == _native.ERROR - 700
    keep = _bind(lib, lambda *a: 0, lambda *a: 2, lambda s: 600)  # a failed launch
    staging = np.zeros(4, np.uint8)
    img = np.ones((2, 2), np.uint8)
    assert lib.cvg_upload_replay(img.ctypes.data, 2, 2, 2, staging.ctypes.data, 0, 0, 0, flag.ctypes.data,
                                 -1) == _native.ERROR - 2
    del keep


def test_helpers_are_none_without_a_driver_or_when_disabled(monkeypatch):
    monkeypatch.setattr(_native, "_state", {})
    monkeypatch.setenv("CVGPU_NATIVE", "0")
    assert _native.helpers() is None
    monkeypatch.setattr(_native, "_state", {"driver": None})
    monkeypatch.delenv("CVGPU_NATIVE")
    assert _native.helpers() is None


def test_first_helpers_call_returns(monkeypatch):
    """The first helpers() call loads the library and the driver under one lock: it returns (None
    on a machine without a CUDA driver) instead of waiting for itself."""
    import threading
    monkeypatch.setattr(_native, "_state", {})
    monkeypatch.delenv("CVGPU_NATIVE", raising=False)
    out = []
    t = threading.Thread(target=lambda: out.append(_native.helpers()), daemon=True)
    t.start()
    t.join(20)
    assert out, "cvgpu._native.helpers() did not return"
    if _native.driver() is None:
        assert out[0] is None
