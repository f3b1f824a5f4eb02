"""A/B of HoughLines' host hot path (numpy 640x480 Canny edges of four photographs, engine auto and
pinned to the GPU, each thread on its own CUDA stream): "off" replaces cvgpu.hough.lines'
_note_host_hot with a no-op (no call is made hot), "on" is the library as it is. Arms alternate,
two rounds; per arm the one-thread call time (median of 300 calls, us) and frames/s from 1, 2, 4
and 8 threads. One JSON line a row."""
import json
import threading
import time

import numpy as np
import cupy as cp
import cvgpu
import cvgpu.hough.lines as L
from cvgpu.bench.workloads import frame_edges

SECONDS = 0.6
real_note = L._note_host_hot
edges = [frame_edges(n, (640, 480)) for n in ("camera", "coins", "page", "astronaut")]
theta = np.pi / 180


def rate(threads):
    stop = [False]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def work(k):
        with cp.cuda.Stream(non_blocking=True):
            img = edges[k % 4]
            for _ in range(16):
                cvgpu.HoughLines(img, 1, theta, 150)
            barrier.wait(timeout=60)
            c = 0
            while not stop[0]:
                cvgpu.HoughLines(edges[(k + c) % 4], 1, theta, 150)
                c += 1
            counts[k] = c
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    barrier.wait(timeout=60)
    t0 = time.perf_counter()
    time.sleep(SECONDS)
    stop[0] = True
    for t in ts:
        t.join()
    return round(sum(counts) / (time.perf_counter() - t0))


def one_thread_us():
    for i in range(50):
        cvgpu.HoughLines(edges[i % 4], 1, theta, 150)
    ts = []
    for i in range(300):
        t = time.perf_counter_ns()
        cvgpu.HoughLines(edges[i % 4], 1, theta, 150)
        ts.append(time.perf_counter_ns() - t)
    return round(float(np.median(ts)) / 1e3, 1)


def main():
    for rnd in range(2):
        for engine in ("cuda", "auto"):
            cvgpu.set_engine(engine)
            if engine == "auto":
                cvgpu._engine.wait_until_ready()
            for arm in (("off", "on") if rnd == 0 else ("on", "off")):
                L._note_host_hot = real_note if arm == "on" else (lambda *a, **k: None)
                with L.TUNING.override():   # (hot calls of the arm before forgotten)
                    row = {"round": rnd, "engine": engine, "arm": arm, "one_thread_us": one_thread_us()}
                    for th in (1, 2, 4, 8):
                        row["t%d" % th] = rate(th)
                    row["made_hot"] = L.TUNING.paths()["lines.host-hot"]
                    row["backend"] = cvgpu.last_call_backend()
                print(json.dumps(row), flush=True)
    L._note_host_hot = real_note


if __name__ == "__main__":
    main()
