"""Same-process A/B of the lines detector's shared-memory voting grid (issue 42, eleventh session).

Arms (VOTE_ARMS): "auto" = the shipped rule (one_wave_vote_config: at most one block an SM; 180
angles at 1 degree give 3 angles a block x 2 point slices, 120 blocks), "KxS" = TUNING.vote_grid
(K, S) forced. The votes are integer atomic adds: every arm's lines and votes must equal auto's,
and are checked. Per workload (det_ab.py's), ABBA twice, detect + downloadResults with events
around every call, the hot replay (each turn enters the arm's TUNING override, makes a detector
and warms it first).

    VOTE_ARMS=auto,3x4,2x2 CVGPU_ENGINE=cuda python3 det_vote_ab.py > det-vote-ab.jsonl
"""
import json
import math
import os

os.environ.setdefault("CVGPU_ENGINE", "cuda")

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cvgpu.bench.workloads import frame_edges  # noqa: E402
from cvgpu.cuda import GpuMat, createHoughLinesDetector  # noqa: E402
from cvgpu.hough._voting import TUNING  # noqa: E402


WORK = [("camera", 3840, 2160, 42), ("coffee", 3840, 2160, 96), ("astronaut", 3840, 2160, 128),
        ("camera", 1920, 1080, 256), ("astronaut", 1920, 1080, 128), ("camera", 1280, 720, 151),
        ("astronaut", 1280, 720, 128), ("camera", 640, 480, 160)]   # (det_ab.py's)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def call_ms(det, d, reps):
    s = cp.cuda.get_current_stream()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        a.record(s)
        det.downloadResults(det.detect(d))
        b.record(s)
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b))
    return med(out)


def grid(arm):
    return None if arm == "auto" else tuple(int(v) for v in arm.split("x"))


def turn(arm, d, thr, reps):
    with TUNING.override(vote_grid=grid(arm)):
        det = createHoughLinesDetector(1.0, math.pi / 180, thr, False, 4096)
        for _ in range(5):
            det.downloadResults(det.detect(d))
        got = det.downloadResults(det.detect(d))
        return call_ms(det, d, reps), got


def main():
    arms = tuple(os.environ.get("VOTE_ARMS", "auto,3x4,2x2,4x4,3x3").split(","))
    for photo, w, h, thr in WORK:
        d = GpuMat(frame_edges(photo, (w, h)))
        times = {a: [] for a in arms}
        same = {a: True for a in arms}
        ref = None
        for arm in (arms + arms[::-1]) * 2:
            ms, got = turn(arm, d, thr, 40)
            ref = got if ref is None else ref
            same[arm] = same[arm] and all(np.array_equal(x, y) for x, y in zip(got, ref))
            times[arm].append(ms)
        row = dict(workload="%s %dx%d thr %d" % (photo, w, h, thr),
                   lines=0 if ref[0] is None else int(ref[0].shape[1]), same=same)
        row.update({"%s_ms" % a: round(med(times[a]), 4) for a in arms})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
