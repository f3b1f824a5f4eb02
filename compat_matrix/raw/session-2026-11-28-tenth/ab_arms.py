"""Same-process A/B of HoughLinesP kernel variants made by patching the source (issue 44, tenth session).

Arms (HP_ARMS, comma-separated; "+" composes patches, "cur" is the source as it is):
  bar     hp_grid_sync on one monotonic count: atom.add.release.gpu, spin with ld.acquire.gpu until
          the count reaches the barrier's multiple of the grid (no reset, no generation word; the
          target from the arrival's own old value)
  spread  phase B's walkers one warp a block (rank r on warp r / grid of block r % grid) instead of
          ranks 0..63 on the warps of blocks 0..7
  notab   (call 3, on 251a6a7's table) phase C's corrections table off: every candidate walks
          its earlier ranks' records as before (call 4: on 424e303, whose kernel took a corr_cap
          argument that 8793aed's, the arm "base", ignored)
  serialor (call 6) the walk's warp ORs back in the chain of chunk stops
  turnpre (call 8) the walk loads pix_turn with the mask, for every step in the image (device only)
  base    (call 4) the kernel in the file HP_BASE (8793aed's: .dev/hp_base.cu, carried)
An arm "name@W" runs at window W (else 256).
All built by NVRTC, swapped into cvgpu's cache between timings, window 256 everywhere (as
session-2026-11-29/ab_phase_c2.py), ABBA over the arms twice, 7 calls a turn, CUDA events, device
input, every call's lines compared with cv2.HoughLinesP (rho 1, 1 degree, minLineLength 50,
maxLineGap 10).

    HP_ARMS=cur,bar,spread CVGPU_ENGINE=cuda python3 ab_arms.py > ab.jsonl
"""
import json
import math
import os
import re

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

BAR_NEW = r"""__device__ void hp_grid_sync(int* ctl)
{
    __syncthreads();
    if (threadIdx.x == 0) {
        int* count = ctl + CTL_BAR_COUNT;
        int old, v;
        asm volatile("atom.add.release.gpu.s32 %0, [%1], 1;" : "=r"(old) : "l"(count) : "memory");
        const int target = (old / (int)gridDim.x + 1) * (int)gridDim.x;
        do {
            asm volatile("ld.acquire.gpu.s32 %0, [%1];" : "=r"(v) : "l"(count) : "memory");
        } while (v - target < 0);
    }
    __syncthreads();
}
#endif"""


def patch_bar(src):
    new, n = re.subn(r"__device__ void hp_grid_sync\(int\* ctl\)\n\{.*?\n\}\n#endif", lambda m: BAR_NEW, src,
                     count=1, flags=re.S)
    assert n == 1
    return new


def patch_spread(src):
    me = "((int)(threadIdx.x >> 5) * (int)gridDim.x + (int)blockIdx.x)"
    a = "        if (HP_WARP_ID < HP_CMAX) {\n"
    b = "rank % HP_NWARPS == HP_WARP_ID"
    assert src.count(a) == 1 and src.count(b) == 1
    return src.replace(a, "        if (%s < HP_CMAX) {\n" % me).replace(b, "rank == " + me)


def patch_notab(src):
    a = "    int tab_end = 0;\n    if (!z.special) {"
    assert src.count(a) == 1
    return src.replace(a, "    int tab_end = 0;\n    if (false) {")


def patch_serialor(src):
    a = "                inb[c] = hp_warp_or(inb[c]);\n                live[c] = hp_warp_or(live[c]);\n"
    b = "                const unsigned in_c = inb[c], live_c = live[c];\n"
    assert src.count(a) == 1 and src.count(b) == 1
    return src.replace(a, "").replace(b, "                const unsigned in_c = hp_warp_or(inb[c]), live_c = hp_warp_or(live[c]);\n")


def patch_turnpre(src):
    a = "            unsigned inb[HP_WALK_CHUNKS], live[HP_WALK_CHUNKS], take[HP_WALK_CHUNKS];\n"
    b = "                    live[c] |= (unsigned)(in && mask[(long long)i1 * z.width + j1]) << l;\n"
    c = "                        tr[c] = pix_turn[px[c]];\n"
    assert src.count(a) == 1 and src.count(b) == 1 and src.count(c) == 1
    src = src.replace(a, a + "            int tpre[HP_WALK_CHUNKS];\n")
    src = src.replace(b, b + "                    tpre[c] = in ? pix_turn[(long long)i1 * z.width + j1] : 0;\n")
    return src.replace(c, "                        tr[c] = tpre[c];\n")


PATCHES = {"bar": patch_bar, "spread": patch_spread, "notab": patch_notab, "serialor": patch_serialor,
           "turnpre": patch_turnpre}


def source(arm):
    src = _orig(FAMILY)
    if arm.split("@")[0] == "base":
        cur = open(os.path.join(os.path.dirname(hp.__file__), "..", "..", "kernels", "hough", "probabilistic.cu")).read()
        assert cur in src
        return src.replace(cur, open(os.environ.get("HP_BASE", ".dev/hp_base.cu")).read())
    for p in arm.split("@")[0].split("+"):
        if p != "cur":
            src = PATCHES[p](src)
    return src


ARM = ["cur"]
_kernels.kernel_source = lambda family: source(ARM[0]) if family == FAMILY else _orig(family)
_cache = {}


def use(arm):
    for d in (_kernels._functions, _kernels._modules):
        for k in [k for k in d if k[1] == FAMILY]:
            del d[k]
    ARM[0] = arm
    if _cache.get(arm):
        _kernels._functions.update(_cache[arm])


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
    arms = tuple(os.environ.get("HP_ARMS", "cur,bar,spread").split(","))
    for arm in arms:   # build each once, outside the timings
        use(arm)
        cvgpu.HoughLinesP(cp.asarray(segments(256, 256, 2000)), 1, math.pi / 180, 50, None, 50, 10)
        _cache[arm] = {k: v for k, v in _kernels._functions.items() if k[1] == FAMILY}
    for name, img, thr in rows():
        d = cp.asarray(img)
        r = cv2.HoughLinesP(img, 1, math.pi / 180, thr, None, 50, 10)
        ref = np.zeros((0, 4), np.int32) if r is None else r.reshape(-1, 4)
        res = {a: [] for a in arms}
        same = {a: True for a in arms}
        for arm in (arms + arms[::-1]) * 2:
            w = int(arm.split("@")[1]) if "@" in arm else 256
            with hp.TUNING.override(window=w, window_large=w):
                use(arm)
                ms, ok = turn(d, thr, ref, 7)
                res[arm].append(ms)
                same[arm] = same[arm] and ok
        row = dict(row=name, lines=int(len(ref)), same=same)
        row.update({"%s_ms" % a: round(float(np.median(res[a])), 3) for a in arms})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
