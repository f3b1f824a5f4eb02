"""Same-process A/B of HoughLinesP's phase C records (issue 44), and a window / CMAX sweep.

Arm "base": kernels/hough/probabilistic.cu as at 37eef8e (its records: pixel, turn, commit turn; a
shared atomic per record; x and y by division in every correction step), read from the file named
by HP_BASE (made with `git show 37eef8e:kernels/hough/probabilistic.cu > .dev/hp_base.cu`, carried).
Arm "new": the source as it is (records kept as x, y | good, turn-or-INT_MAX, appended by ballot;
a pair's cos / sin / rho index hoisted out of the record loop). Arm "new-c128": the same with
HP_CMAX 128 (candidates walked per round; cvgpu.hough.probabilistic.CMAX set alike).
All built by NVRTC, their functions swapped into cvgpu's cache between timings. base / new at the
window the library now takes (256 everywhere): ABBA, 4 turns each of 7 calls; then the sweep, 2
turns of 5 calls per (arm, window). Device input, CUDA events, every call's lines compared with
cv2.HoughLinesP (rho 1, 1 degree, minLineLength 50, maxLineGap 10).

    HP_BASE=.dev/hp_base.cu CVGPU_ENGINE=cuda python3 compat_matrix/raw/session-2026-11-29/ab_phase_c2.py > ab2.jsonl

Call C ran it again with HP_BASE = bf1c497's kernel (the records change: its static shared memory
in HP_BASE_STATIC), the arm "new" being phase C's map of the walks' pixels, and HP_SWEEP (arm:window
pairs) "new:512,new:1024". Call D: HP_BASE = 43a99d9's kernel (the map), HP_MID = 2576f2e's (the
walks, arm "mid", HP_MID_STATIC), "new" = a63bfd4's (the records made by the block); the three in
the order base, mid, new, new, mid, base, twice. Call E: HP_AB (the arms of the ABBA turns) and the
arms "walk8" / "walk16" (the source with HP_WALK_CHUNKS 8 / 16) in the sweep.
"""
import json
import math
import os
import re
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
CUR = open(os.path.join(os.path.dirname(hp.__file__), "..", "..", "kernels", "hough", "probabilistic.cu")).read()
BASE = open(os.environ.get("HP_BASE", ".dev/hp_base.cu")).read()
MID = open(os.environ["HP_MID"]).read() if os.environ.get("HP_MID") else None
ARMS = {"base": 64, "mid": 64, "new": 64, "new-c128": 128, "walk8": 64, "walk16": 64}
STATIC = {"base": int(os.environ.get("HP_BASE_STATIC", 4 * (4096 + 3 * 2048 + 1))),
          "mid": int(os.environ.get("HP_MID_STATIC", 0))}


def source(arm):
    src = _orig(FAMILY)
    assert CUR in src
    if arm == "base":
        return src.replace(CUR, BASE)
    if arm == "mid":
        return src.replace(CUR, MID)
    if arm.startswith("walk"):
        return re.sub(r"#define HP_WALK_CHUNKS \d+ ", "#define HP_WALK_CHUNKS %s " % arm[4:], src)
    if arm == "new-c128":
        return src.replace("#define HP_CMAX 64 ", "#define HP_CMAX 128 ")
    return src


ARM = ["new"]
_kernels.kernel_source = lambda family: source(ARM[0]) if family == FAMILY else _orig(family)
_cache = {}
_static = hp.STATIC_SHARED


def use(arm):
    for d in (_kernels._functions, _kernels._modules):
        for k in [k for k in d if k[1] == FAMILY]:
            del d[k]
    hp.CMAX = ARMS[arm]
    hp.STATIC_SHARED = STATIC.get(arm, _static)
    ARM[0] = arm
    if _cache.get(arm):
        _kernels._functions.update(_cache[arm])


def remember(arm):
    _cache[arm] = {k: v for k, v in _kernels._functions.items() if k[1] == FAMILY}


def rows():
    out = []
    for name in ("camera", "page", "astronaut", "coffee"):
        for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
            for thr in (50, 100):
                out.append(("%s %dx%d thr %d" % (name, size[0], size[1], thr), frame_edges(name, size), thr))
    out.append(("segments 1024x1024 82k thr 50", segments(1024, 1024, 82_000), 50))
    out.append(("segments 1024x1024 20k thr 50", segments(1024, 1024, 20_000), 50))
    return out


def turn(d, thr, ref, calls):
    ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
    times, same = [], True
    for _ in range(calls):
        ev0.record()
        got = cvgpu.HoughLinesP(d, 1, math.pi / 180, thr, None, 50, 10)
        ev1.record()
        ev1.synchronize()
        times.append(cp.cuda.get_elapsed_time(ev0, ev1))
        g = np.zeros((0, 4), np.int32) if got is None else cp.asnumpy(got).reshape(-1, 4)
        same = same and np.array_equal(g, ref)
    return float(np.median(times)), same


def main():
    assert "#define HP_CMAX 64 " in CUR
    sweep = [("new", 128), ("new", 512), ("new", 1024), ("new-c128", 256), ("new-c128", 512), ("new-c128", 1024)]
    if os.environ.get("HP_SWEEP"):
        sweep = [(a, int(w)) for a, w in (x.split(":") for x in os.environ["HP_SWEEP"].split(","))]
    ab = ("base", "mid", "new") if MID else ("base", "new")
    if os.environ.get("HP_AB"):
        ab = tuple(os.environ["HP_AB"].split(","))
    for arm in sorted(set(ab) | {a for a, _ in sweep}):   # build each once, outside the timings
        use(arm)
        cvgpu.HoughLinesP(cp.asarray(segments(256, 256, 2000)), 1, math.pi / 180, 50, None, 50, 10)
        remember(arm)
    for name, img, thr in rows():
        d = cp.asarray(img)
        r = cv2.HoughLinesP(img, 1, math.pi / 180, thr, None, 50, 10)
        ref = np.zeros((0, 4), np.int32) if r is None else r.reshape(-1, 4)
        res = {a: [] for a in ab}
        same = True
        with hp.TUNING.override(window=256, window_large=256):
            for arm in (ab + ab[::-1]) * 2:
                use(arm)
                ms, ok = turn(d, thr, ref, 7)
                res[arm].append(ms)
                same = same and ok
        row = dict(row=name, lines=int(len(ref)), same=bool(same))
        row.update({"%s_ms" % a: float(np.median(res[a])) for a in ab})
        if "base_ms" in row and "new_ms" in row:
            row["ratio"] = row["base_ms"] / row["new_ms"]
        for arm, w in sweep:
            with hp.TUNING.override(window=w, window_large=w):
                use(arm)
                t = []
                for _ in range(2):
                    ms, ok = turn(d, thr, ref, 5)
                    t.append(ms)
                    same = same and ok
            row["%s_w%d_ms" % (arm, w)] = min(t)
        row["same"] = bool(same)
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
