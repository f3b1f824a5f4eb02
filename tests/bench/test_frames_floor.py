"""The camera-frame rows' floor (cvgpu/bench/frames.py) times real uploads: each of its three ways
sends the image's bytes or exactly np.packbits of them. A fake CuPy records what was sent."""
import ctypes
import types

import numpy as np

from cvgpu.bench import frames


def _fake_cupy(sent):
    def memcpy(dst, src, nbytes, kind, stream):
        sent.append(ctypes.string_at(src, nbytes))

    def pinned(n):
        buf = (ctypes.c_uint8 * n)()
        return buf

    runtime = types.SimpleNamespace(memcpyAsync=memcpy, memcpyHostToDevice=1)
    stream = types.SimpleNamespace(ptr=0, synchronize=lambda: None)
    cuda = types.SimpleNamespace(alloc_pinned_memory=pinned, runtime=runtime, get_current_stream=lambda: stream)
    return types.SimpleNamespace(cuda=cuda, uint8=np.uint8,
                                 empty=lambda n, dtype: types.SimpleNamespace(data=types.SimpleNamespace(ptr=0)))


def test_the_floor_sends_the_image_or_its_packed_bits(monkeypatch):
    monkeypatch.setattr(frames.os, "cpu_count", lambda: 5)     # bands that do not split evenly
    img = (np.random.default_rng(3).random((37, 61)) > 0.6).astype(np.uint8) * 255
    sent = []
    up, make, free = frames.floor_ms(_fake_cupy(sent), img, [4, 4, 9], reps=2)
    assert up >= 0 and make >= 0 and free >= 0
    flat = img.reshape(-1)
    assert {bytes(flat), np.packbits(flat).tobytes()} == set(sent)
    assert sent.count(np.packbits(flat).tobytes()) == 2 * (2 + 2)   # one thread and bands, warm-up + reps
