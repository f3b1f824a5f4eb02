"""The benchmark's clocks: host-clock repetitions of synchronous calls, CUDA-event repetitions of
device-resident calls, and the row format both feed."""
import time

import numpy as np


def summarize(times):
    """Median and 10th/90th percentiles (ms) of a list of repetitions."""
    t = np.asarray(times, dtype=np.float64)
    return {"median": float(np.median(t)), "p10": float(np.percentile(t, 10)),
            "p90": float(np.percentile(t, 90)), "reps": int(t.size)}


def time_host(fn, reps, warmup=1):
    """Host-clock repetitions of a synchronous call (cv2, or cvgpu with numpy in/out)."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return summarize(times)


# A repetition of time_device lasts at least this long: shorter calls are timed in batches.
BATCH_MS = 0.5
_MAX_BATCH = 64


def time_device(cp, fn, reps, warmup=3, batch=None):
    """CUDA-event repetitions on the current stream (device-resident in/out): ``reps`` medians-ready
    times per call. A call shorter than BATCH_MS is repeated back to back between one pair of events
    and the time divided by the batch (``batch`` in the result): each call still waits for its own
    result, but the end event's submission is paid once per batch. Recorded after every single call
    that ends in a host sync, that submission adds the event's launch latency to the call (measured
    on the H100 host, HoughLines 1024^2 / 164k points device-resident, one run: 45.9 us per call with
    events around each call, 44.4 in batches). ``batch=1``: events around every call."""
    for _ in range(warmup):
        fn()
    stream = cp.cuda.get_current_stream()
    stream.synchronize()
    if batch is None:
        t0 = time.perf_counter()
        fn()
        stream.synchronize()
        once_ms = (time.perf_counter() - t0) * 1e3
        batch = max(1, min(_MAX_BATCH, int(BATCH_MS / max(once_ms, 1e-6))))
    times = []
    start, end = cp.cuda.Event(), cp.cuda.Event()
    for _ in range(reps):
        start.record(stream)
        for _ in range(batch):
            fn()
        end.record(stream)
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end) / batch)
    result = summarize(times)
    result["batch"] = batch
    return result


def timing_row(base, cv2_t=None, cvgpu_t=None, io="numpy", exact=None, **extra):
    """A table row from two ``summarize`` results (either may be None)."""
    row = dict(base)
    for key, t in (("cv2", cv2_t), ("cvgpu", cvgpu_t)):
        row["%s_ms" % key] = None if t is None else t["median"]
        row["%s_p10" % key] = None if t is None else t["p10"]
        row["%s_p90" % key] = None if t is None else t["p90"]
        row["%s_reps" % key] = None if t is None else t["reps"]
    if cvgpu_t is not None and "batch" in cvgpu_t:
        row["cvgpu_batch"] = cvgpu_t["batch"]  # calls per CUDA-event pair (time_device)
    row["speedup"] = (row["cv2_ms"] / row["cvgpu_ms"]) if row["cv2_ms"] and row["cvgpu_ms"] else None
    row["io"], row["exact"] = io, exact
    row.update(extra)
    return row


def same(a, b):
    """cv2-exact equality of two results (None, or a numpy / CuPy array against numpy)."""
    if a is None or b is None:
        return a is None and b is None
    a = a.get() if not isinstance(a, np.ndarray) else a
    return a.shape == b.shape and a.dtype == b.dtype and a.tobytes() == b.tobytes()
