import sys, math, ctypes, subprocess, tempfile, pathlib
sys.path[:0] = ['tests', 'tests/models', 'tests/hough']
import numpy as np
import test_hough_p_kernel_host as T
from cvgpu import _kernels
from cvgpu.hough import probabilistic as hp
from cvgpu.bench.workloads import frame_edges
src = (_kernels._source_dirs()[1] / "hough" / "probabilistic.cu").read_text()
a = "            const long long F = chunk < N - 1 - T ? chunk : N - 1 - T;\n"
assert src.count(a) == 1
src2 = src.replace(a, a + "            hp_cnt[0] += F; hp_cnt[1] += 1;\n")
b = "            if (HP_WARP_ID == 0 && HP_LEAD)\n                ctl[CTL_FORWARD_BACK] += 1;\n"
assert src2.count(b) == 1
src2 = src2.replace(b, b + "            hp_cnt[2] += F;\n")
c = "        const int wn = (int)(wcur < N - 1 - T ? wcur : N - 1 - T);\n"
assert src2.count(c) == 1
src2 = src2.replace(c, c + "        hp_cnt[3] += wn;\n")
at = src2.index("// ---------------------------------------------------------------- the persistent kernel")
src2 = src2[:at] + 'extern "C" { long long hp_cnt[16]; }\n' + src2[at:]
d = pathlib.Path(tempfile.mkdtemp()); cpp = d/"hp.cpp"; so = d/"hp.so"
cpp.write_text(T.PRELUDE + src2)
r = subprocess.run(["g++","-O2","-std=c++14","-ffp-contract=off","-fno-fast-math","-shared","-fPIC","-o",str(so),str(cpp)],capture_output=True,text=True)
assert r.returncode==0, r.stderr[-3000:]
lib = ctypes.CDLL(str(so)); lib.signatures = T.signatures(src)
cnt = (ctypes.c_longlong*16).in_dll(lib, "hp_cnt")
for name, size, thr in [("camera",(640,480),50),("camera",(640,480),100),("page",(640,480),50),("camera",(1280,720),50),("camera",(1920,1080),50),("camera",(3840,2160),50),("camera",(3840,2160),100)]:
    img = frame_edges(name, size)
    n = int(np.count_nonzero(img))
    for w in (64,):
        for i in range(16): cnt[i] = 0
        st = {}
        with hp.TUNING.override(window=w):
            T.host_lines(lib, img, 1, math.pi/180, thr, 50, 10, stats=st)
        print('%-7s %-12s thr %3d points %6d | FF chunks %3d turns voted %7d taken back %7d | exact-round turns %7d (rounds %d)' % (
            name, size, thr, n, cnt[1], cnt[0], cnt[2], cnt[3], st['rounds']))
