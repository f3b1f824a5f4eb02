"""Same-process A/B of cuda.HoughSegmentDetector kernel variants (issue 44, eleventh session).

Arms (SEG_ARMS, comma-separated): "base" = the kernel file SEG_BASE (.dev/seg_base.cu, carried:
`git show <rev>:kernels/cuda/segments.cu`; only with the Python of its own commit), "cur" = the
source as it is, "cur@B" = the source with CS_WALK_BATCH B; "+cold" after an arm: every timed detect
takes the full path (no hot replay) and its download reads the device (no host copy); "+cN": CS_CELLS
N (default 4 from call 4 on, 8 before; cs_maxima's cells a thread, and segments.py's tile with it); "+sN": STASH_PER N (16 from call 4 on, 8 before); "+r1": CS_ROWS_ONLY 1; "+p1": cs_pack's
loads from clamped addresses, unconditional (the bounds only mask the bits). Each arm's detector is made while its source is the family's (its captured graph
keeps that arm's kernels), all built by NVRTC. Per workload (seg_profile.py's, plus 3840x2160),
ABBA twice: detect + download with events around every call (call_ms, the bench's single call)
and the captured graph replayed back to back (graph_ms, device time); every arm's segments equal
to base's, order included.

    SEG_ARMS=base,cur CVGPU_ENGINE=cuda python3 seg_ab.py > seg-ab.jsonl
"""
import json
import math
import os
import re

os.environ.setdefault("CVGPU_ENGINE", "cuda")
os.environ["CVGPU_KERNELS"] = "nvrtc"

import cupy as cp  # noqa: E402
import numpy as np  # noqa: E402

from cvgpu import _kernels  # noqa: E402
from cvgpu.bench.cuda import segments_image  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402
from cvgpu.cuda import GpuMat, createHoughSegmentDetector  # noqa: E402
from cvgpu.cuda import segments as S  # noqa: E402
from cvgpu.hough._voting import load_width  # noqa: E402

FAMILY = S.FAMILY
_orig = _kernels.kernel_source
ARM = ["cur"]


def source(arm):
    src = _orig(FAMILY)
    name, _, batch = arm.split("+")[0].partition("@")
    if name == "base":
        cur = open(os.path.join(os.path.dirname(S.__file__), "..", "..", "kernels", "cuda", "segments.cu")).read()
        assert cur in src
        return src.replace(cur, open(os.environ.get("SEG_BASE", ".dev/seg_base.cu")).read())
    if batch:
        src = re.sub(r"#define CS_WALK_BATCH \d+", "#define CS_WALK_BATCH %d" % int(batch), src)
    cells = flag(arm, "c", 4)
    if cells != 4:
        src = re.sub(r"#define CS_CELLS \d+", "#define CS_CELLS %d" % cells, src)
    if "+r1" in arm:
        src = src.replace("#define CS_ROWS_ONLY 0", "#define CS_ROWS_ONLY 1")
    if "+p1" in arm:
        old = "        on[j] = x < cols && y < rows && __ldg(img + (long long)y * step + x) != 0;"
        assert old in src
        src = src.replace(old, "        on[j] = __ldg(img + (long long)min(y, rows - 1) * step + min(x, cols - 1)) != 0 && x < cols && y < rows;")
    return src


def flag(arm, letter, default):
    for f in arm.split("+")[1:]:
        if f[:1] == letter and f[1:].isdigit():
            return int(f[1:])
    return default


_kernels.kernel_source = lambda family: source(ARM[0]) if family == FAMILY else _orig(family)


def use(arm):
    for d in (_kernels._functions, _kernels._modules):
        for k in [k for k in d if k[1] == FAMILY]:
            del d[k]
    ARM[0] = arm
    S._CELLS_PER_TILE = 1024 * flag(arm, "c", 4)   # (read when a detector makes its work space)
    S.STASH_PER = flag(arm, "s", 16)


def med(xs):
    xs = sorted(xs)
    return xs[len(xs) // 2]


def cold_call(det, d):
    det._hot = None
    r = det.detect(d)
    r._host_mirror = None
    return r.download()


def call_ms(det, d, reps, cold=False):
    s = cp.cuda.get_current_stream()
    a, b = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        a.record(s)
        if cold:
            cold_call(det, d)
        else:
            det.detect(d).download()
        b.record(s)
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b))
    return med(out)


def graph_ms(det, d, reps):
    ws = det._ws
    plan = next(iter(ws.plans.values()))
    s = cp.cuda.get_current_stream()
    arr = d._arr
    step, ptr = arr.strides[0], arr.data.ptr
    head = (ptr, step, load_width(ptr, step, arr.shape[1]))
    a, b = cp.cuda.Event(), cp.cuda.Event()
    out = []
    for _ in range(reps):
        a.record(s)
        for _ in range(8):
            plan.replay(s, head)
        b.record(s)
        b.synchronize()
        out.append(cp.cuda.get_elapsed_time(a, b) / 8)
    return med(out)


def main():
    arms = tuple(os.environ.get("SEG_ARMS", "base,cur").split(","))
    work = [("1024x1024 horizontal segments, 81920 pts", segments_image(1024, 81920))]
    for w, h in ((640, 480), (1280, 720), (1920, 1080), (3840, 2160)):
        for n in ("camera", "astronaut"):
            work.append(("photo %s %dx%d Canny" % (n, w, h), frame_edges(n, (w, h))))
    for name, img in work:
        d = GpuMat(img)
        dets = {}
        for arm in arms:
            use(arm)
            dets[arm] = createHoughSegmentDetector(1.0, math.pi / 180, 50, 10)
            for _ in range(5):
                dets[arm].detect(d).download()
        ref = dets[arms[0]].detect(d).download()
        same = {a: bool(np.array_equal(dets[a].detect(d).download(), ref)
                        and np.array_equal(cold_call(dets[a], d), ref)) for a in arms}
        calls = {a: [] for a in arms}
        graphs = {a: [] for a in arms}
        for arm in (arms + arms[::-1]) * 2:
            calls[arm].append(call_ms(dets[arm], d, 30, arm.endswith("+cold")))
            graphs[arm].append(graph_ms(dets[arm], d, 8))
        row = dict(workload=name, segments=0 if ref is None else int(ref.shape[1]), same=same)
        row.update({"%s_call_ms" % a: round(med(calls[a]), 4) for a in arms})
        row.update({"%s_graph_ms" % a: round(med(graphs[a]), 4) for a in arms})
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
