"""Phase C's correction steps before and after 0e5f9e3, counted on the host build of the kernel
(raw/session-2026-11-28g/hp_host_counts.py: the same source, counters added by a text edit). Per
candidate that reaches the corrections: its hot pairs hc and the round's records so far nrec; the
serial warp's steps were ceil(hc / 32) x nrec (a lane a hot pair, every record), and are now the
fewer of that and hc x (ceil(nrec / 32) + 1) (a hot pair at a time, the lanes splitting the records,
a warp sum counted as one step). Run from the repository root; README.md of this folder has the output."""
import math
import sys

import cv2
import numpy as np

sys.path.insert(0, "compat_matrix/raw/session-2026-11-28g")
from hp_host_counts import T, build  # noqa: E402
from cvgpu.hough import probabilistic as hp  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402

EDITS = [
    ("                const int hc = st_hot_cnt[r];\n",
     "                const int hc = st_hot_cnt[r];\n"
     "                { const long long o = (long long)((hc + 31) / 32) * nrec, w = (long long)hc * ((nrec + 31) / 32 + 1);\n"
     "                  hp_cnt[0]++; hp_cnt[1] += hc; hp_cnt[2] += nrec; hp_cnt[3] += o; hp_cnt[4] += w < o ? w : o;\n"
     "                  hp_cnt[5] += w < o; if (hc > hp_cnt[6]) hp_cnt[6] = hc; if (nrec > hp_cnt[7]) hp_cnt[7] = nrec; }\n"),
]
lib, cnt = build(EDITS, "// ---------------------------------------------------------------- phase B")
for name, size, thr in [("camera", (640, 480), 50), ("camera", (640, 480), 100), ("page", (640, 480), 50),
                        ("astronaut", (640, 480), 50), ("camera", (1920, 1080), 50), ("camera", (1920, 1080), 100),
                        ("camera", (3840, 2160), 50)]:
    img = frame_edges(name, size)
    for w in (64, 256):
        for i in range(16):
            cnt[i] = 0
        st = {}
        with hp.TUNING.override(window=w):
            out = T.host_lines(lib, img, 1, math.pi / 180, thr, 50, 10, stats=st)
        ref = cv2.HoughLinesP(img, 1, math.pi / 180, thr, minLineLength=50, maxLineGap=10)
        n = max(1, cnt[0])
        print('%-9s %-12s thr %3d W %4d | candidates %5d mean hc %5.1f (max %3d) mean nrec %6.1f (max %4d) | '
              'steps a candidate %7.1f -> %6.1f (%.1fx), new order taken %3.0f %%, lines as cv2: %s'
              % (name, size, thr, w, cnt[0], cnt[1] / n, cnt[6], cnt[2] / n, cnt[7], cnt[3] / n, cnt[4] / n,
                 cnt[3] / max(1, cnt[4]), 100.0 * cnt[5] / n, np.array_equal(out, ref)), flush=True)
