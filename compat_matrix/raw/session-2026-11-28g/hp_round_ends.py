import sys, math, re, ctypes, subprocess, tempfile, pathlib
sys.path[:0] = ['tests', 'tests/models', 'tests/hough']
import numpy as np
import test_hough_p_kernel_host as T
from cvgpu import _kernels
from cvgpu.hough import probabilistic as hp
from cvgpu.bench.workloads import frame_edges, segments
src = (_kernels._source_dirs()[1] / "hough" / "probabilistic.cu").read_text()
reps = [
 ("                    end = k;   // its maximum moved: its walk would differ\n", "                    end = k; hp_cnt[1]++;  // moved\n"),
 ("                end = k;   // its walk read a pixel an earlier commit cleared\n", "                end = k; hp_cnt[2]++;  // hit\n"),
 ("            if (full && commits > 0) {\n                end = k;\n", "            if (full && commits > 0) {\n                end = k; hp_cnt[3]++;\n"),
 ("            end = ctl[CTL_CMAX_K];\n", "            { end = ctl[CTL_CMAX_K]; hp_cnt[4]++; }\n"),
 ("        const int end = ctl[CTL_END], ncleared", "        if (ctl[CTL_END] == wn) hp_cnt[5]++; hp_cnt[6] += wn; hp_cnt[7] += ctl[CTL_END];\n        const int end = ctl[CTL_END], ncleared"),
]
for a, b in reps:
    assert src.count(a) == 1, a
    src = src.replace(a, b)
at = src.index("// ---------------------------------------------------------------- phase B")
src = src[:at] + 'extern "C" { long long hp_cnt[16]; }\n' + src[at:]
# hp_cnt must be visible in hp_run (defined later than phase B? hp_run is after) ok
d = pathlib.Path(tempfile.mkdtemp()); cpp = d/"hp.cpp"; so = d/"hp.so"
cpp.write_text(T.PRELUDE + src)
r = subprocess.run(["g++","-O2","-std=c++14","-ffp-contract=off","-fno-fast-math","-shared","-fPIC","-o",str(so),str(cpp)],capture_output=True,text=True)
assert r.returncode==0, r.stderr[-3000:]
lib = ctypes.CDLL(str(so)); lib.signatures = T.signatures((_kernels._source_dirs()[1] / "hough" / "probabilistic.cu").read_text())
cnt = (ctypes.c_longlong*16).in_dll(lib, "hp_cnt")
for name, size, thr in [("camera",(640,480),50),("camera",(640,480),100),("page",(640,480),50),("coffee",(640,480),50),("camera",(1280,720),50),("camera",(1920,1080),50),("camera",(3840,2160),50)]:
    img = frame_edges(name, size)
    for w in (64, 256):
        for i in range(16): cnt[i] = 0
        st = {}
        with hp.TUNING.override(window=w):
            T.host_lines(lib, img, 1, math.pi/180, thr, 50, 10, stats=st)
        print('%-7s %-12s thr %3d W %4d rounds %4d commits %5d | ends: full %4d moved %4d hit %4d bufs %3d cmax %3d | mean wn %.0f mean end %.0f' % (
            name, size, thr, w, st['rounds'], st['commits'], cnt[5], cnt[1], cnt[2], cnt[3], cnt[4], cnt[6]/st['rounds'], cnt[7]/st['rounds']))
