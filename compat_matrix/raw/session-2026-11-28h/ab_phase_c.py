"""Same-process A/B of HoughLinesP's phase C correction order (issue 44; for the next device session).

Arm "lane-a-pair": the loop of 3168434 (a lane a hot pair, every record, then the warp's max),
made from the current kernels/hough/probabilistic.cu by putting that loop back (text edit below);
arm "chosen": the source as it is (0e5f9e3 + 240790b: the fewer steps of that and a hot pair at a
time over the lanes' share of the records, whose key needs no warp max). The rest of phase C (the
segment count kept in a register since the commit after 240790b) is the same in both arms. Both are built by NVRTC (the same path), their functions swapped into cvgpu's
function cache between timings; arms alternate ABBA per row and window. Device input, CUDA events,
median of 7 calls per turn, 4 turns per arm; every call's lines compared with cv2.HoughLinesP.

    CVGPU_ENGINE=cuda python3 compat_matrix/raw/session-2026-11-28h/ab_phase_c.py 64 256 > ab-phase-c.jsonl
"""
import json
import math
import os
import sys

os.environ.setdefault("CVGPU_ENGINE", "cuda")
os.environ["CVGPU_KERNELS"] = "nvrtc"

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402
import cv2  # noqa: E402

import cvgpu  # noqa: E402
from cvgpu import _kernels  # noqa: E402
from cvgpu.hough import probabilistic as hp  # noqa: E402
from cvgpu.bench.workloads import frame_edges, segments  # noqa: E402

FAMILY = hp.FAMILY
_orig = _kernels.kernel_source
START = "                const int hc = st_hot_cnt[r];\n"
END = "                if (key == 0)\n"
OLD_LOOP = """                unsigned long long key = 0;
                HP_LANE_FOR(i, st_hot_cnt[r]) {
                    const int n = h[HOT_WORDS * i], own = h[HOT_WORDS * i + 2];
                    int v = h[HOT_WORDS * i + 1];
                    for (int e = 0; e < nrec; ++e)
                        v -= hp_rec_weight(z, cosp, sinp, rec_px[e], rec_tr[e], rec_te[e], tc, n, own);
                    if (v >= z.threshold) {
                        const unsigned long long kv = hp_key(v, n);
                        key = kv > key ? kv : key;
                    }
                }
                key = hp_warp_max64(key);
"""


def source(arm):
    src = _orig(FAMILY)
    if arm == "chosen":
        return src
    a = src.index(START)
    b = src.index(END, a)
    return src[:a] + OLD_LOOP + src[b:]


ARM = ["chosen"]
_kernels.kernel_source = lambda family: source(ARM[0]) if family == FAMILY else _orig(family)
_cache = {}


def use(arm):
    """Put the arm's functions into cvgpu's caches (built once per arm)."""
    for d in (_kernels._functions, _kernels._modules):
        for k in [k for k in d if k[1] == FAMILY]:
            del d[k]
    if arm in _cache:
        _kernels._functions.update(_cache[arm])
        return
    ARM[0] = arm
    _cache[arm] = None


def remember(arm):
    _cache[arm] = {k: v for k, v in _kernels._functions.items() if k[1] == FAMILY}


def rows():
    out = []
    for name in ("camera", "page", "astronaut", "coffee"):
        for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
            for thr in (50, 100):
                out.append(("%s %dx%d thr %d" % (name, size[0], size[1], thr), frame_edges(name, size), thr))
    out.append(("segments 1024x1024 82k thr 50", segments(1024, 1024, 82_000), 50))
    return out


def turn(d, thr, ref):
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    times, same = [], True
    for _ in range(7):
        ev0.record()
        got = cvgpu.HoughLinesP(d, 1, math.pi / 180, thr, None, 50, 10)
        ev1.record()
        ev1.synchronize()
        times.append(cp.cuda.get_elapsed_time(ev0, ev1))
        g = np.zeros((0, 4), np.int32) if got is None else cp.asnumpy(got).reshape(-1, 4)
        same = same and np.array_equal(g, ref)
    return float(np.median(times)), same


def main():
    windows = [int(w) for w in (sys.argv[1:] or ["64", "256"])]
    for arm in ("lane-a-pair", "chosen"):   # build both once, outside the timings
        use(arm)
        cvgpu.HoughLinesP(cp.asarray(segments(256, 256, 2000)), 1, math.pi / 180, 50, None, 50, 10)
        remember(arm)
    for name, img, thr in rows():
        d = cp.asarray(img)
        r = cv2.HoughLinesP(img, 1, math.pi / 180, thr, None, 50, 10)
        ref = np.zeros((0, 4), np.int32) if r is None else r.reshape(-1, 4)
        for w in windows:
            res = {"lane-a-pair": [], "chosen": []}
            same = True
            with hp.TUNING.override(window=w):
                for arm in ("lane-a-pair", "chosen", "chosen", "lane-a-pair") * 2:
                    use(arm)
                    ms, ok = turn(d, thr, ref)
                    res[arm].append(ms)
                    same = same and ok
            a, b = float(np.median(res["lane-a-pair"])), float(np.median(res["chosen"]))
            print(json.dumps(dict(row=name, window=w, lines=int(len(ref)), same=bool(same), lane_a_pair_ms=a,
                                  chosen_ms=b, ratio=a / b, turns=res)), flush=True)


if __name__ == "__main__":
    main()
