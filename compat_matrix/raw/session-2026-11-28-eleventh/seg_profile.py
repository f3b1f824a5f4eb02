"""Where cuda.HoughSegmentDetector's time goes (issue 44: >= 3x OpenCV-CUDA), one JSON line a workload.

Per workload (the bench's: 1024^2 seed segments, camera / astronaut Canny 640x480 .. 1920x1080;
rho 1, 1 degree, minLineLength 50, maxLineGap 10, maxLines 4096), all CUDA events on one stream:
  call_ms     detect + download, events around every call (the bench's single_call_ms)
  detect_ms   detect alone (the GpuMat result stays on the device)
  graph_ms    the captured graph replayed back to back (no host work between): device time
  kernels     each kernel of the plan launched alone between events (direct launches): device time
  host_ms     detect's Python (perf_counter) with the GPU already idle, replay and wait included
  ocv_ms      OpenCV-CUDA's kernels (harness_seg, detect + download), when .ocv/harness_seg exists
  floor_ms    detect + download on an all-zero image of the same size (graph, no maxima)

    CVGPU_ENGINE=cuda python3 seg_profile.py > seg.jsonl
"""
import json
import math
import os
import sys
import time

os.environ.setdefault("CVGPU_ENGINE", "cuda")

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cvgpu.bench import ocv  # noqa: E402
from cvgpu.bench.cuda import segments_image  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402
from cvgpu.cuda import GpuMat, createHoughSegmentDetector  # noqa: E402
from cvgpu.hough._voting import load_width  # noqa: E402

REPS = int(os.environ.get("SEG_REPS", "200"))


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def events(fn, reps, per=1):
    s = cp.cuda.get_current_stream()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        a.record(s)
        for _ in range(per):
            fn()
        b.record(s)
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / per)
    return med(out)


def profile(name, img):
    d = GpuMat(img)
    det = createHoughSegmentDetector(1.0, math.pi / 180, 50, 10)
    for _ in range(20):
        det.detect(d).download()
    row = dict(workload=name, shape=list(img.shape), points=int(np.count_nonzero(img)))
    segs = det.detect(d)
    row["segments"] = 0 if segs.empty() else int(segs.size()[0])
    row["call_ms"] = events(lambda: det.detect(d).download(), REPS)
    row["detect_ms"] = events(lambda: det.detect(d), REPS)
    # host: wall time of detect with the GPU idle before it
    hs = []
    for _ in range(REPS):
        cp.cuda.get_current_stream().synchronize()
        t0 = time.perf_counter()
        det.detect(d)
        hs.append((time.perf_counter() - t0) * 1e3)
    row["host_ms"] = med(hs)
    ws = det._ws
    plan = next(iter(ws.plans.values()))
    stream = cp.cuda.get_current_stream()
    arr = d._arr
    step, ptr = arr.strides[0], arr.data.ptr
    head = (ptr, step, load_width(ptr, step, img.shape[1]))
    out = ws.spare_out.take(cp, stream, 4096 * 16)
    row["graph_ms"] = events(lambda: plan.replay(stream, head), REPS // 4, per=8)
    stream.synchronize()
    values = (arr, np.int64(step), np.int32(load_width(ptr, step, img.shape[1])), np.uint64(out.ptr))
    names = ["collect", "vote", "maxima", "walk_count", "place", "walk_write"]
    names += ["k%d" % i for i in range(len(names), len(plan.kernels))]
    direct = plan._direct
    ev = [cp.cuda.Event() for _ in range(len(direct) + 1)]
    per_k = [[] for _ in direct]
    for _ in range(REPS // 2):
        ev[0].record(stream)
        for j, (fn, grid, block, shm, template, slots) in enumerate(direct):
            args = list(template)
            for position, i in slots:
                args[position] = values[i]
            fn(grid, block, tuple(args), shared_mem=shm)
            ev[j + 1].record(stream)
        ev[-1].synchronize()
        for j in range(len(direct)):
            per_k[j].append(cp.cuda.get_elapsed_time(ev[j], ev[j + 1]))
    row["kernels"] = {"%d:%s" % (j, names[j]): round(med(per_k[j]) * 1e3, 1) for j in range(len(direct))}
    row["kernels_sum_us"] = round(sum(med(x) for x in per_k) * 1e3, 1)
    zero = GpuMat(np.zeros_like(img))
    det2 = createHoughSegmentDetector(1.0, math.pi / 180, 50, 10)
    for _ in range(10):
        det2.detect(zero)
    row["floor_ms"] = events(lambda: det2.detect(zero), REPS)
    h = ocv.find_segments_harness()
    if h:
        row["ocv_ms"], row["ocv_segments"] = ocv.run_segments(h, img, 1.0, math.pi / 180, 50, 10, 4096, -1, 100)
    print(json.dumps(row), flush=True)


def main():
    work = [("1024x1024 horizontal segments, 81920 pts", segments_image(1024, 81920))]
    for w, h in ((640, 480), (1280, 720), (1920, 1080)):
        for n in ("camera", "astronaut"):
            work.append(("photo %s %dx%d Canny" % (n, w, h), frame_edges(n, (w, h))))
    only = sys.argv[1:] or None
    for name, img in work:
        if only and not any(o in name for o in only):
            continue
        profile(name, img)


if __name__ == "__main__":
    main()
