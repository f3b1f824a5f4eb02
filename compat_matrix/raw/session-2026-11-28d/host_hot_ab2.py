"""Finer A/B of HoughLines' host hot path than host_hot_ab.py (whose arms, seconds apart, moved with
the host's own drift): arms alternate every block of 100 one-thread calls (40 blocks each), and
every 0.3 s window of 8-thread throughput (10 windows each), engine pinned to the GPU, numpy
640x480 Canny edges of four photographs. Prints per arm the median of its block medians (us a
call), the median paired difference (off - on, blocks side by side) and the 8-thread windows."""
import json
import threading
import time

import numpy as np
import cupy as cp
import cvgpu
import cvgpu.hough.lines as L
from cvgpu.bench.workloads import frame_edges

real_note = L._note_host_hot
edges = [frame_edges(n, (640, 480)) for n in ("camera", "coins", "page", "astronaut")]
theta = np.pi / 180


def arm(name):
    L._note_host_hot = real_note if name == "on" else (lambda *a, **k: None)
    L._host.hot[:] = [None, None]   # (this thread's hot call of the arm before: not reused)
    L._host.seen[:] = [None, None]


def block(n=100):
    for i in range(3):
        cvgpu.HoughLines(edges[i % 4], 1, theta, 150)
    ts = []
    for i in range(n):
        t = time.perf_counter_ns()
        cvgpu.HoughLines(edges[i % 4], 1, theta, 150)
        ts.append(time.perf_counter_ns() - t)
    return float(np.median(ts)) / 1e3


def window(threads, seconds=0.3):
    stop = [False]
    counts = [0] * threads
    barrier = threading.Barrier(threads + 1)

    def work(k):
        with cp.cuda.Stream(non_blocking=True):
            for i in range(4):
                cvgpu.HoughLines(edges[(k + i) % 4], 1, theta, 150)
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
    time.sleep(seconds)
    stop[0] = True
    for t in ts:
        t.join()
    return sum(counts) / (time.perf_counter() - t0)


def main():
    cvgpu.set_engine("cuda")
    for i in range(200):
        cvgpu.HoughLines(edges[i % 4], 1, theta, 150)
    res = {"on": [], "off": []}
    for b in range(40):
        for name in (("on", "off") if b % 2 else ("off", "on")):
            arm(name)
            res[name].append(block())
    diffs = [a - b for a, b in zip(res["off"], res["on"])]
    print(json.dumps({"one_thread_us_on": round(float(np.median(res["on"])), 2),
                      "one_thread_us_off": round(float(np.median(res["off"])), 2),
                      "paired_off_minus_on_us": round(float(np.median(diffs)), 2),
                      "blocks_off_slower": sum(d > 0 for d in diffs), "blocks": len(diffs)}), flush=True)
    for threads in (8, 4):
        w = {"on": [], "off": []}
        for b in range(10):
            for name in (("on", "off") if b % 2 else ("off", "on")):
                arm(name)
                w[name].append(window(threads))
        print(json.dumps({"threads": threads, "frames_s_on": round(float(np.median(w["on"]))),
                          "frames_s_off": round(float(np.median(w["off"]))),
                          "windows_on_faster": sum(a > b for a, b in zip(w["on"], w["off"])), "windows": 10}),
              flush=True)
    arm("on")


if __name__ == "__main__":
    main()
