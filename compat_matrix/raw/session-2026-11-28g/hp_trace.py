"""Where a HoughLinesP call's GPU time goes, phase by phase (issue 44; a probe, not shipped).

kernels/hough/probabilistic.cu is compiled at run time (NVRTC) with a trace: after each of its 11
grid barriers, block 0's thread 0 reads %globaltimer and adds the time since the last mark to that
barrier's slot (the phase that just ended, its barrier included) and counts it. The shipped kernel
is untouched; the patched source replaces kernel_source for the family in this process only.

    CVGPU_ENGINE=cuda python3 .dev/hp_trace.py > $OUT/hp-trace.jsonl

Each row: the workload, W (TUNING.window), CUDA-event time of the call on a device image (median of
5), the kernel's own total (globaltimer, first mark to last), per-phase microseconds and counts,
and the ctl statistics (rounds, candidates, commits). A second pass per row with the trace compiled
out (same NVRTC path) gives the probe's own overhead.
"""
import json
import math
import os
import re
import sys

os.environ.setdefault("CVGPU_ENGINE", "cuda")
os.environ["CVGPU_KERNELS"] = "nvrtc"   # never the shipped fatbin: the patched source must be the one built

import cupy as cp
import numpy as np
import cv2

import cvgpu
from cvgpu import _kernels
from cvgpu.hough import probabilistic as hp
from cvgpu.bench.workloads import frame_edges, segments

FAMILY = hp.FAMILY
PHASES = ["setup", "perm_reserve", "perm_swap", "pix_turn", "ff_vote", "ff_back", "A1", "A2", "B", "C", "D"]
TRACE = os.environ.get("HP_TRACE", "1") == "1"

_orig_source = _kernels.kernel_source


def patched_source(family):
    src = _orig_source(family)
    if family != FAMILY or not TRACE:
        return src
    head = r"""
__device__ unsigned long long hp_trace[64];
__device__ __forceinline__ void hp_mark(int s) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (s >= 0) { hp_trace[s] += now - hp_trace[62]; hp_trace[32 + s] += 1; }
        else hp_trace[61] = now;
        hp_trace[62] = now;
    }
}
"""
    # Inside phase C (block 0; thread 0 is lane 0 of the serial warp): the staging and the serial
    # loop timed apart (slots 11, 12; 16: candidates the loop looked at), from a clock of their own
    # (hp_trace[60]) so that the barrier marks stay whole.
    sub = r"""
__device__ __forceinline__ void hp_sub(int s, int n) {
    if (threadIdx.x == 0) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if (s >= 0) { hp_trace[s] += now - hp_trace[60]; hp_trace[16] += n; }
        hp_trace[60] = now;
    }
}
"""
    c0 = "    HP_BLOCK_FOR(i, HP_HASH) set[i] = 0;\n"
    c1 = "    HP_BLOCK_SYNC();\n\n    if (HP_SERIAL_WARP) {\n"
    c2 = "        if (HP_LEAD) {\n            ctl[CTL_END] = end;"
    if c2 not in src:   # (since 65cf13d the round's segment count is written back first)
        c2 = "        if (HP_LEAD) {\n            ctl[CTL_LINES] = nlines;"
    loop, c3 = "        for (int r = 0; r < walked; ++r) {\n", None
    if "    // 3. the decisions\n" in src:   # (since phase C's map of the walks' pixels, 2026-11-29:
        c1 = "    HP_BLOCK_SYNC();\n\n    // 3. the decisions\n    if (HP_SERIAL_WARP) {\n"   # staging and
        c2 = "        if (HP_LEAD) {\n            meta[1] = (int)(unsigned)done;"                # map in slot
        loop = "        for (int r = 0; r < lim; ++r) {\n"                                           # 11, the
        c3 = "    HP_BLOCK_SYNC();\n}\n\n// ---------------------------------------------------------------- the persistent kernel"
    for c in (c0, c1, c2, loop) + ((c3,) if c3 else ()):                                            # writes 13)
        assert src.count(c) == 1, c
    src = src.replace(c0, "    hp_sub(-1, 0);\n" + c0)
    src = src.replace(c1, c1.replace("    if (HP_SERIAL_WARP) {\n",
                                     "    hp_sub(11, 0);\n    if (HP_SERIAL_WARP) {\n        int seen_ = 0;\n"))
    src = src.replace(loop, loop + "            ++seen_;\n", 1)
    if c3:
        src = src.replace(c3, c3.replace("    HP_BLOCK_SYNC();\n}", "    HP_BLOCK_SYNC();\n    hp_sub(13, 0);\n}"))
    src = src.replace(c2, "        hp_sub(12, seen_);\n" + c2)
    # Inside phase B (2026-11-29; block 0's thread 0 is lane 0 of warp 0, the walker of rank 0), from
    # a clock of their own (hp_trace[59]): the candidate words (slot 14), warp 0's walks after them
    # (15), and in rank 0's walk its setup (17: the loads it waits on), direction 0 (18) and
    # direction 1 (19); slot 20 counts rank 0's walked pixels. The rest of B is the wait for the
    # longest walk and the barrier.
    bsub = r"""
__device__ __forceinline__ void hp_bsub(int s, int dep) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned long long now;
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now) : "r"(dep));
        if (s >= 0) hp_trace[s] += now - hp_trace[59];
        hp_trace[59] = now;
    }
}
"""
    b0 = "        if (HP_WARP_ID < HP_CMAX) {\n"
    b1 = "            hp_candidate_words(best, wn, words);\n"
    b2 = "            if (HP_WARP_ID == 0 && HP_LEAD)\n                ctl[CTL_NCAND] = rank;\n"
    w0 = "    const HpWalk w = hp_walk_setup(tab_cos, tab_sin, q.x, q.y, hp_key_n(best[k]));\n"
    w1 = "        hp_step(w, dir, end_step, ends[2 * dir], ends[2 * dir + 1]);\n"
    w2 = "    if (HP_LEAD) {\n        int* o = walk + (long long)r * WALK_WORDS;\n"
    if all(src.count(b) == 1 for b in (b0, b1, b2, w0, w1, w2)):
        src = src.replace(b0, "        hp_bsub(-1, 0);\n" + b0).replace(b1, b1 + "            hp_bsub(14, (int)words[0]);\n")
        src = src.replace(b2, "            hp_bsub(15, rank);\n" + b2)
        src = src.replace(w0, w0 + "    if (r == 0) hp_bsub(17, w.x0 ^ w.y0 ^ w.dx0 ^ w.dy0);\n")
        src = src.replace(w1, w1 + "        if (r == 0) hp_bsub(18 + dir, count);\n")
        src = src.replace(w2, "    if (r == 0 && blockIdx.x == 0 && threadIdx.x == 0) hp_trace[20] += count;\n" + w2)
    else:
        bsub = ""
    at_c = src.index("__device__ void hp_walk(")
    src = src[:at_c] + head + sub + bsub + src[at_c:]
    head = ""
    # the marks go into hp_run only (the kernel's definition of hp_grid_sync is not a call site)
    body_at = src.index("__device__ void hp_run(")
    pre, body = src[:body_at], src[body_at:]
    count = [0]

    def mark(m):
        k = count[0]
        count[0] += 1
        return "hp_grid_sync(ctl); hp_mark(%d);" % k

    if "D" in PHASES and body.count("hp_grid_sync(ctl);") == len(PHASES) - 1 and "hp_take_back(" in body:
        PHASES.remove("D")   # (since c6ed533, tenth session: D runs in A1's phase, no barrier of its own)
    body = re.sub(r"hp_grid_sync\(ctl\);", mark, body)
    assert count[0] == len(PHASES), count[0]
    # the start mark: first statement of hp_run
    body = body.replace("const long long N = z.n_points;", "const long long N = z.n_points; hp_mark(-1);", 1)
    return pre + head + body


_kernels.kernel_source = patched_source


def trace_buffer():
    if not TRACE:   # (the untraced build has no hp_trace: asking for it raised CUDA_ERROR_NOT_FOUND)
        return None
    for (dev, fam, opts, coop), mod in _kernels._modules.items():
        if fam == FAMILY and coop:
            return mod.get_global("hp_trace")
    return None


def rows():
    out = []
    for name in ("camera", "page", "astronaut"):
        for size in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
            if name != "camera" and size not in ((640, 480), (1920, 1080)):
                continue
            for thr in (50, 100):
                out.append(("%s %dx%d thr %d" % (name, size[0], size[1], thr), frame_edges(name, size), thr))
    out.append(("segments 1024x1024 82k thr 50", segments(1024, 1024, 82_000), 50))
    return out


def one(name, img, thr, window):
    d = cp.asarray(img)
    ref = cv2.HoughLinesP(img, 1, math.pi / 180, thr, None, 50, 10)
    with hp.TUNING.override(window=window, window_large=window):   # (4K rows at W too since 2026-11-29)
        got = cvgpu.HoughLinesP(d, 1, math.pi / 180, thr, None, 50, 10)
        same = (ref is None and (got is None or got.size == 0)) or (
            ref is not None and got is not None and np.array_equal(cp.asnumpy(got).reshape(-1, 4), ref.reshape(-1, 4)))
        ev0, ev1 = cp.cuda.Event(), cp.cuda.Event()
        times = []
        for _ in range(5):
            ev0.record()
            cvgpu.HoughLinesP(d, 1, math.pi / 180, thr, None, 50, 10)
            ev1.record()
            ev1.synchronize()
            times.append(cp.cuda.get_elapsed_time(ev0, ev1))
        row = dict(row=name, window=window, trace=TRACE, same=bool(same), call_ms=float(np.median(times)))
        buf = trace_buffer()
        if buf is not None:
            t = cp.ndarray((64,), cp.uint64, buf)
            t.fill(0)
            st = {}
            numangle, numrho, rho32, theta32 = hp.sizes(img.shape[0], img.shape[1], 1, math.pi / 180)
            hp.gpu_lines(cp, d, numangle, numrho, rho32, theta32, thr, 50, 10, to_host=False, stats=st)
            cp.cuda.Device().synchronize()
            h = t.get()
            row["kernel_us"] = float(h[62] - h[61]) / 1e3
            row["phase_us"] = {p: round(float(h[i]) / 1e3, 1) for i, p in enumerate(PHASES)}
            row["phase_n"] = {p: int(h[32 + i]) for i, p in enumerate(PHASES)}
            row["C_staging_us"], row["C_loop_us"] = float(h[11]) / 1e3, float(h[12]) / 1e3
            row["C_candidates_seen"] = int(h[16])
            row["C_writes_us"] = float(h[13]) / 1e3
            row["B_words_us"], row["B_warp0_us"] = float(h[14]) / 1e3, float(h[15]) / 1e3
            row["B_walk0_setup_us"], row["B_walk0_dir0_us"], row["B_walk0_dir1_us"] = (
                float(h[17]) / 1e3, float(h[18]) / 1e3, float(h[19]) / 1e3)
            row["B_walk0_pixels"] = int(h[20])
            row["stats"] = st
    return row


def main():
    windows = [int(w) for w in (sys.argv[1:] or ["64", "256"])]
    for name, img, thr in rows():
        for w in windows:
            print(json.dumps(one(name, img, thr, w)), flush=True)


if __name__ == "__main__":
    main()
