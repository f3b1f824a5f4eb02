"""HoughLinesP's fast-forward turns against its exact rounds' (host build of the kernel with
counters; README.md of this folder has the output). Run from the repository root."""
import math
import sys

import numpy as np

sys.path.insert(0, "compat_matrix/raw/session-2026-11-28g")
from hp_host_counts import T, build  # noqa: E402
from cvgpu.hough import probabilistic as hp  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402

EDITS = [
    ("            const long long F = chunk < N - 1 - T ? chunk : N - 1 - T;\n",
     "            const long long F = chunk < N - 1 - T ? chunk : N - 1 - T;\n"
     "            hp_cnt[0] += F; hp_cnt[1] += 1;\n"),
    ("            if (HP_WARP_ID == 0 && HP_LEAD)\n                ctl[CTL_FORWARD_BACK] += 1;\n",
     "            if (HP_WARP_ID == 0 && HP_LEAD)\n                ctl[CTL_FORWARD_BACK] += 1;\n"
     "            hp_cnt[2] += F;\n"),
    ("        const int wn = (int)(wcur < N - 1 - T ? wcur : N - 1 - T);\n",
     "        const int wn = (int)(wcur < N - 1 - T ? wcur : N - 1 - T);\n        hp_cnt[3] += wn;\n"),
]
lib, cnt = build(EDITS, "// ---------------------------------------------------------------- the persistent kernel")
for name, size, thr in [("camera", (640, 480), 50), ("camera", (640, 480), 100), ("page", (640, 480), 50),
                        ("camera", (1280, 720), 50), ("camera", (1920, 1080), 50), ("camera", (3840, 2160), 50),
                        ("camera", (3840, 2160), 100)]:
    img = frame_edges(name, size)
    for i in range(16):
        cnt[i] = 0
    st = {}
    with hp.TUNING.override(window=64):
        T.host_lines(lib, img, 1, math.pi / 180, thr, 50, 10, stats=st)
    print('%-7s %-12s thr %3d points %6d | FF chunks %3d turns voted %7d taken back %7d | exact-round turns %7d '
          '(rounds %d)' % (name, size, thr, int(np.count_nonzero(img)), cnt[1], cnt[0], cnt[2], cnt[3], st['rounds']))
