"""Why HoughLinesP's exact rounds end (issue 44; a CPU probe of the kernel's source, not shipped).

The host build of kernels/hough/probabilistic.cu (tests/hough/test_hough_p_kernel_host.py) with a
counter per reason a round ends, added by a text edit: the window settled whole ("window"), the
64th walked candidate reached ("cmax"), the ranks phase C's map holds passed ("map"), a candidate's
maximum moved ("angle"), a committed walk holding one of its pixels ("pixel"). Rows: the bench's
photographs' Canny edges (cvgpu.bench.workloads.frame_edges) at the tutorial's parameters, the
windows the library takes; every row's lines compared with cv2.HoughLinesP.

    PYTHONPATH=$PWD:tests:tests/hough:tests/models python3 compat_matrix/raw/session-2026-11-29/hp_round_ends.py
"""
import json
import math
import sys

import cv2
import numpy as np
import pytest

import test_hough_p_kernel_host as H
from cvgpu.bench.workloads import frame_edges
from cvgpu.hough import probabilistic as hp

REASONS = ["window", "cmax", "map", "angle", "pixel"]
EDITS = {
    "        int end = wn, cleared = 0, dec = 0, commits = 0, nlines = 0;\n":   # (2576f2e: ", nrec = 0")
        "        int end = wn, cleared = 0, dec = 0, commits = 0, nlines = 0, why = 0;\n",
    "            end = ctl[CTL_CMAX_K];\n        if (lim < walked)\n            end = st_walk[lim * WALK_WORDS + WALK_K];\n":
        "            end = ctl[CTL_CMAX_K], why = 1;\n        if (lim < walked)\n"
        "            end = st_walk[lim * WALK_WORDS + WALK_K], why = 2;\n",
    "                    end = k;   // its maximum moved: its walk would differ\n":
        "                    end = k, why = 3;   // its maximum moved: its walk would differ\n",
    "                end = k;   // its walk read a pixel an earlier commit cleared\n":
        "                end = k, why = 4;   // its walk read a pixel an earlier commit cleared\n",
    "        if (HP_LEAD) {\n            meta[1] = (int)(unsigned)done;":
        "        hp_why[why] += 1;\n        if (HP_LEAD) {\n            meta[1] = (int)(unsigned)done;",
    "__device__ void hp_commit(":
        "static long long hp_why[8];\nextern \"C\" void hp_why_take(long long* out) "
        "{ for (int i = 0; i < 8; ++i) { out[i] = hp_why[i]; hp_why[i] = 0; } }\n__device__ void hp_commit(",
}


class _Factory:
    def mktemp(self, name):
        import tempfile
        import pathlib
        return pathlib.Path(tempfile.mkdtemp(prefix=name))


def main():
    lib = H._build(_Factory(), EDITS)
    out = np.zeros(8, np.int64)
    sizes = [(640, 480), (1280, 720), (1920, 1080)] + ([(3840, 2160)] if "4k" in sys.argv else [])
    for name in ("camera", "page", "astronaut", "coffee"):
        for size in sizes:
            for thr in (50, 100):
                img = frame_edges(name, size)
                st = {}
                ours = H.host_lines(lib, img, 1, math.pi / 180, thr, 50, 10, st)
                ref = cv2.HoughLinesP(img, 1, math.pi / 180, thr, None, 50, 10)
                lib.hp_why_take(out.ctypes.data_as(H.ctypes.c_void_p))
                row = dict(row="%s %dx%d thr %d" % (name, size[0], size[1], thr), window=hp.window_size(180, False, img.size),
                           same=bool(H.same(ours, ref)), rounds=st["rounds"], commits=st["commits"],
                           ends={k: int(v) for k, v in zip(REASONS, out)})
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
