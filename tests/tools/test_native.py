"""cvgpu/_native: the shipped host-helper library is built from the shipped source, loads without
CUDA, and its C functions do what cvgpu relies on, checked on the CPU with stand-in driver
functions (a copy of the library, so the process's own instance keeps the real driver's)."""
import ctypes
import subprocess
import sys

import numpy as np
import pytest

import native_host
from cvgpu import _native

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]


def test_shipped_library_is_current():
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_native.py"), "--check"], capture_output=True,
                       text=True)
    assert r.returncode == 0, "stale host helpers (run tools/build_native.py): " + r.stdout + r.stderr


def _private_copy(tmp_path):
    lib, why = native_host.private_library(tmp_path)
    if lib is None:
        pytest.skip("no host-helper library for this platform: %s" % why)
    return lib


_bind = native_host.bind


def bits_model(image):
    """hostcall.c's bit image of a 2-D uint8 image: per row, bit j of little-endian 16-bit word k is
    pixel 16 k + j != 0, zero bits past the row's end (what hough_collect_bits reads)."""
    rows, cols = image.shape
    words = -(-cols // 16)
    padded = np.zeros((rows, 16 * words), bool)
    padded[:, :cols] = image != 0
    return np.packbits(padded, axis=1, bitorder="little").reshape(rows, 2 * words)


def test_library_loads_without_cuda(tmp_path):
    lib = _private_copy(tmp_path)
    assert lib.cvg_version() == 2


LAYOUTS = ["contiguous", "rows of a wider image", "one row", "one column", "rows upside down"]


def _layout(layout, big):
    return {"contiguous": big, "rows of a wider image": big[3:30, 5:41], "one row": big[7:8],
            "one column": big[:, 9:10], "rows upside down": big[::-1, 2:]}[layout]


@pytest.mark.parametrize("bits", [0, 1])
@pytest.mark.parametrize("layout", LAYOUTS)
def test_upload_replay_copies_uploads_launches_and_waits(tmp_path, layout, bits):
    lib = _private_copy(tmp_path)
    rng = np.random.default_rng(5)
    big = rng.integers(0, 256, (37, 53), dtype=np.uint8) * (rng.random((37, 53)) < 0.5)
    image = _layout(layout, big.astype(np.uint8))
    rows, cols = image.shape
    expected = bits_model(image) if bits else image
    size = expected.size
    staging = np.zeros(size + 16, np.uint8)
    device = np.zeros(size + 16, np.uint8)
    flag = np.array([123], np.int32)
    calls = []

    def htod(dst, src, nbytes, stream):
        calls.append(("htod", dst, nbytes, stream))
        ctypes.memmove(device.ctypes.data + dst - 7777, src, nbytes)
        return 0

    def launch(graph, stream):
        calls.append(("launch", graph, stream, int(flag[0])))  # the flag is unset before the launch
        flag[0] = 42
        return 0
    keep = _bind(lib, htod, launch, lambda stream: 600)
    count = lib.cvg_upload_replay(image.ctypes.data, rows, cols, image.strides[0], staging.ctypes.data, 7777,
                                  1234, 99, flag.ctypes.data, -1, bits)
    assert count == 42
    assert calls == [("htod", 7777, size, 99), ("launch", 1234, 99, -1)]
    assert (device[:size].reshape(expected.shape) == expected).all()
    assert (device[size:] == 0).all() and (staging[size:] == 0).all()
    calls.clear()
    device[:] = 0
    assert lib.cvg_upload(image.ctypes.data, rows, cols, image.strides[0], staging.ctypes.data, 7777, 99, bits) == 0
    assert calls == [("htod", 7777, size, 99)]
    assert (device[:size].reshape(expected.shape) == expected).all()
    del keep


def test_upload_sends_pieces_of_whole_rows(tmp_path):
    """Images above a piece (1 MB) go up in pieces of whole rows, each at its offset; their bit image
    (packed by up to 4 threads in bands of whole rows) in one copy."""
    lib = _private_copy(tmp_path)
    rng = np.random.default_rng(9)
    image = (rng.random((700, 3001)) < 0.1).astype(np.uint8) * 255
    for bits in (0, 1):
        expected = (bits_model(image) if bits else image).reshape(-1)
        staging = np.zeros(expected.size, np.uint8)
        device = np.zeros(expected.size, np.uint8)
        sizes = []

        def htod(dst, src, nbytes, stream):
            sizes.append((dst, nbytes))
            ctypes.memmove(device.ctypes.data + dst, src, nbytes)
            return 0
        keep = _bind(lib, htod, lambda *a: 0, lambda s: 600)
        assert lib.cvg_upload(image.ctypes.data, 700, 3001, 3001, staging.ctypes.data, 0, 0, bits) == 0
        row = expected.size // 700
        assert [d for d, _ in sizes] == ([0] if bits else [0, 349 * row, 698 * row])
        assert sum(n for _, n in sizes) == expected.size and (device == expected).all()
        del keep


@pytest.mark.parametrize("isa", [1, 2, 3])
def test_pack_bits_variants_match_the_model(tmp_path, isa):
    """Every packing variant (portable, SSE2, AVX2) gives the model's bits, for row lengths around
    the 16- and 32-pixel steps and any byte value (a byte is one pixel: nonzero is 1)."""
    lib = _private_copy(tmp_path)
    _native.declare(lib)
    rng = np.random.default_rng(isa)
    # (3 rows, and 2,000 rows of 1,919: bands over threads, one to a few rows each)
    for rows, cols in [(3, c) for c in list(range(1, 70)) + [255, 256, 257, 640, 1919]] + [(2000, 1919), (9, 400000)]:
        image = rng.integers(0, 4, (rows, cols), dtype=np.uint8) * rng.integers(0, 256, (rows, cols), dtype=np.uint8)
        image[:, ::7] = 0x80
        out = np.full((rows, _native.bit_row_bytes(cols)), 0xAA, np.uint8)
        rc = lib.cvg_pack_bits(image.ctypes.data, rows, cols, image.strides[0], out.ctypes.data, isa)
        if rc == -1 and isa != 1:
            pytest.skip("variant %d not built for or supported by this CPU" % isa)
        assert rc == 0
        assert (out == bits_model(image)).all(), cols
    assert lib.cvg_set_pack_threads(8) == 4      # the default
    out = np.zeros((2000, _native.bit_row_bytes(1919)), np.uint8)
    image = rng.integers(0, 2, (2000, 1919), dtype=np.uint8)
    assert lib.cvg_pack_bits(image.ctypes.data, 2000, 1919, 1919, out.ctypes.data, isa) == 0
    assert (out == bits_model(image)).all()
    assert lib.cvg_set_pack_threads(1) == 8 and lib.cvg_set_pack_threads(99) == 1
    out = np.zeros((2000, _native.bit_row_bytes(1919)), np.uint8)
    image = rng.integers(0, 2, (2000, 1919), dtype=np.uint8)
    assert lib.cvg_pack_bits(image.ctypes.data, 2000, 1919, 1919, out.ctypes.data, isa) == 0
    assert (out == bits_model(image)).all() and lib.cvg_set_pack_threads(4) == 8


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
                                 -1, 0) == _native.ERROR - 2
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


def test_packing_threads_from_several_callers_and_after_fork(tmp_path):
    """The packing threads kept for the process: calls from several Python threads at once (one
    takes the threads, the others pack alone) give the model's bits, and a forked child, which has
    none of the parent's threads, packs again (its pool made anew) without waiting for ever."""
    import os
    import threading
    lib = _private_copy(tmp_path)
    assert lib.cvg_set_pack_threads(4) == 4
    rng = np.random.default_rng(7)
    images = [rng.integers(0, 2, (1500 + 37 * i, 1919), dtype=np.uint8) for i in range(4)]
    want = [bits_model(im) for im in images]
    bad = []

    def caller(i):
        out = np.zeros((images[i].shape[0], _native.bit_row_bytes(1919)), np.uint8)
        for _ in range(25):
            out[:] = 0
            assert lib.cvg_pack_bits(images[i].ctypes.data, images[i].shape[0], 1919, 1919, out.ctypes.data, 0) == 0
            if not (out == want[i]).all():
                bad.append(i)
    threads = [threading.Thread(target=caller, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not any(t.is_alive() for t in threads) and not bad
    pid = os.fork()
    if pid == 0:   # the child: pack twice with threads, exit 0 when both are right
        ok = True
        for i in (0, 3):
            out = np.zeros_like(want[i])
            ok = ok and lib.cvg_pack_bits(images[i].ctypes.data, images[i].shape[0], 1919, 1919,
                                          out.ctypes.data, 0) == 0 and bool((out == want[i]).all())
        os._exit(0 if ok else 1)
    import time
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            pytest.fail("the forked child's packing did not finish (a pool thread it does not have?)")
        time.sleep(0.05)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
