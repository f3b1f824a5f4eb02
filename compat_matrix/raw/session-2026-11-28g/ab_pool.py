"""A/B of hostcall.c's packing threads: per-call threads (main) against threads kept for the
process (branch pack-pool). Run once per tree (PYTHONPATH picks it); prints one JSON line a row:
HoughLines numpy io medians (ms) of 300 calls, one thread, and 8 threads' frames/s."""
import json, sys, time, threading
import numpy as np
import cv2
import cvgpu
from cvgpu.bench.workloads import frame_edges, segments, THETA

label = sys.argv[1]
thr = 100
rows = []
for name in ("camera", "astronaut", "coffee"):
    for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
        rows.append(("%s %dx%d" % (name, *size), frame_edges(name, size)))
rows.append(("segments 1024 82k", segments(1024, 1024, 82_000)))

for name, img in rows:
    ref = cv2.HoughLines(img, 1, THETA, thr)
    out = cvgpu.HoughLines(img, 1, THETA, thr)
    same = (ref is None and out is None) or (ref is not None and out is not None and np.array_equal(ref, out))
    for _ in range(20):
        cvgpu.HoughLines(img, 1, THETA, thr)
    ts = []
    for _ in range(300):
        t0 = time.perf_counter(); cvgpu.HoughLines(img, 1, THETA, thr); ts.append(time.perf_counter() - t0)
    backend = cvgpu.last_call_backend()
    res = {}
    for nthreads in (8,):
        n_each = 200
        bar = threading.Barrier(nthreads + 1)
        def work():
            bar.wait()
            for _ in range(n_each):
                cvgpu.HoughLines(img, 1, THETA, thr)
        th = [threading.Thread(target=work) for _ in range(nthreads)]
        for t in th: t.start()
        bar.wait(); t0 = time.perf_counter()
        for t in th: t.join()
        res["fps%d" % nthreads] = nthreads * n_each / (time.perf_counter() - t0)
    print(json.dumps(dict(tree=label, row=name, same=bool(same), backend=backend,
                          med_ms=float(np.median(ts)) * 1e3, p10_ms=float(np.percentile(ts, 10)) * 1e3, **res)),
          flush=True)
