"""cvgpu.bench.threads._throughput: every thread is warmed by its own first calls before the timed
pass, the timed pass covers every frame once, and a failing call is raised, never a hang."""
import threading

import pytest

from cvgpu.bench import threads as bench_threads


def test_each_thread_warms_itself_then_times_every_frame():
    seen = []
    lock = threading.Lock()

    def fn(frame):
        with lock:
            seen.append((threading.get_ident(), frame))
    frames = list(range(50))
    fps = bench_threads._throughput(fn, frames, 4)
    assert fps > 0
    by_thread = {}
    for ident, frame in seen:
        by_thread.setdefault(ident, []).append(frame)
    assert len(by_thread) == 4
    for calls in by_thread.values():
        part = frames[calls[0]::4]
        warm = part[:bench_threads.WARM_CALLS]
        assert calls == warm + part
    assert sorted(f for calls in by_thread.values() for f in calls[len(calls) - len(frames[calls[0]::4]):]) == frames


def test_a_failing_call_is_raised():
    def fn(frame):
        if frame == 3:
            raise ValueError("bad frame")
    with pytest.raises(ValueError, match="bad frame"):
        bench_threads._throughput(fn, list(range(8)), 2)
