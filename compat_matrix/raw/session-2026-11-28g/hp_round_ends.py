"""Why HoughLinesP's exact rounds end (host build of the kernel with counters at each `end = ...`
site; README.md of this folder has the output). Run from the repository root."""
import math
import sys

sys.path.insert(0, "compat_matrix/raw/session-2026-11-28g")
from hp_host_counts import T, build  # noqa: E402
from cvgpu.hough import probabilistic as hp  # noqa: E402
from cvgpu.bench.workloads import frame_edges  # noqa: E402

EDITS = [
    ("                    end = k;   // its maximum moved: its walk would differ\n",
     "                    end = k; hp_cnt[1]++;  // moved\n"),
    ("                end = k;   // its walk read a pixel an earlier commit cleared\n",
     "                end = k; hp_cnt[2]++;  // hit\n"),
    ("            if (full && commits > 0) {\n                end = k;\n",
     "            if (full && commits > 0) {\n                end = k; hp_cnt[3]++;\n"),
    ("            end = ctl[CTL_CMAX_K];\n", "            { end = ctl[CTL_CMAX_K]; hp_cnt[4]++; }\n"),
    ("        const int end = ctl[CTL_END], ncleared",
     "        if (ctl[CTL_END] == wn) hp_cnt[5]++; hp_cnt[6] += wn; hp_cnt[7] += ctl[CTL_END];\n"
     "        const int end = ctl[CTL_END], ncleared"),
]
lib, cnt = build(EDITS, "// ---------------------------------------------------------------- phase B")
for name, size, thr in [("camera", (640, 480), 50), ("camera", (640, 480), 100), ("page", (640, 480), 50),
                        ("coffee", (640, 480), 50), ("camera", (1280, 720), 50), ("camera", (1920, 1080), 50),
                        ("camera", (3840, 2160), 50)]:
    img = frame_edges(name, size)
    for w in (64, 256):
        for i in range(16):
            cnt[i] = 0
        st = {}
        with hp.TUNING.override(window=w):
            T.host_lines(lib, img, 1, math.pi / 180, thr, 50, 10, stats=st)
        print('%-7s %-12s thr %3d W %4d rounds %4d commits %5d | ends: full %4d moved %4d hit %4d bufs %3d cmax %3d | '
              'mean wn %.0f mean end %.0f' % (name, size, thr, w, st['rounds'], st['commits'], cnt[5], cnt[1], cnt[2],
                                              cnt[3], cnt[4], cnt[6] / st['rounds'], cnt[7] / st['rounds']))
